// Hostile bundles (issue 9, item 4): lengths and inflated sizes are checked against limits and the real file
// size before anything is allocated, record fields and KG vectors are type-checked, names that are properties of
// Object.prototype are refused, and every refusal leaves the library in IndexedDB exactly as it was. Also: an
// export taken while the concept graph is stale (during indexing, after a Cancel) imports again.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import {
  BundleError,
  bundleBytes,
  readBundle,
  readIndexBundle,
  writeBundle,
  type BundlePart,
  type ReadOptions,
} from '../../../src/core/bundle/index.ts';
import { jsonlPart, structuredPart } from '../../../src/core/bundle/codecs.ts';
import { indexParts } from '../../../src/core/bundle/snapshot.ts';
import { Sha256, toHex } from '../../../src/core/bundle/sha256.ts';
import type { SerializedGraph } from '../../../src/core/graph/conceptGraph.ts';
import { exportLibraryBlob } from '../../../src/store/bundleExport.ts';
import { importBundle } from '../../../src/store/bundleImport.ts';
import { openBundleReadOnly } from '../../../src/services/bundleBytes/bundleFetch.ts';
import { openDatabase, type ConceptDb } from '../../../src/store/db.ts';
import { Repo } from '../../../src/store/repo.ts';
import { DOCS, EMBEDDER, fakeVector, prepared, snapshotOf } from './fixtures.ts';
import { putPreparedDocument } from '../../support/putOneDocument.ts';

const enc = new TextEncoder();

// ---- raw frames, for headers no honest writer produces ----

function frame(tag: string, json: unknown): Uint8Array {
  const body = enc.encode(JSON.stringify(json));
  const out = new Uint8Array(12 + body.length + 32);
  out.set(enc.encode(tag), 0);
  const view = new DataView(out.buffer);
  view.setUint32(4, body.length, true);
  view.setUint32(8, ~body.length >>> 0, true);
  out.set(body, 12);
  out.set(new Sha256().update(body).digest(), 12 + body.length);
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const HEAD = {
  format: 'conceptrag-bundle',
  formatVersion: 1,
  appVersion: 'x',
  createdAt: '2026-01-01T00:00:00.000Z',
  embedder: EMBEDDER,
  params: {},
};

/** Preamble, head and one part header declaring `entry`, followed by `data` (and nothing else). */
function craftedStart(entry: Record<string, unknown>, data = new Uint8Array(16)): Uint8Array {
  const pre = new Uint8Array(12);
  pre.set(enc.encode('CRAGBNDL'), 0);
  new DataView(pre.buffer).setUint32(8, 1, true);
  const full = {
    kind: 'binary',
    encoding: 'identity',
    count: 0,
    sha256: toHex(new Sha256().update(data).digest()),
    ...entry,
  };
  return concat(pre, frame('HEAD', HEAD), frame('PART', full), data);
}

async function refusal(work: Promise<unknown>): Promise<BundleError> {
  const e = await work.then(
    () => null,
    (err: unknown) => err,
  );
  if (e === null) throw new Error('the bundle was accepted');
  if (!(e instanceof BundleError)) throw new Error(`not a BundleError: ${String(e)}`);
  return e;
}

// ---- index bundles with one layer replaced ----

async function indexBundleWith(edit: (parts: BundlePart[]) => BundlePart[]): Promise<Uint8Array> {
  const parts: BundlePart[] = [];
  for await (const p of indexParts(snapshotOf(), { appVersion: 'x', vectors: 'f32' })) {
    parts.push(p);
  }
  return bundleBytes(writeBundle(edit(parts), { appVersion: 'x', embedder: EMBEDDER }));
}

function replaceJsonl(name: string, change: (records: Record<string, unknown>[]) => unknown[]) {
  return (parts: BundlePart[]): BundlePart[] =>
    parts.map((p) => {
      if (p.name !== name) return p;
      const records = new TextDecoder()
        .decode(p.data)
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      return jsonlPart(name, change(records));
    });
}

function replaceTable(name: string, records: unknown[]) {
  return (parts: BundlePart[]): BundlePart[] => [
    ...parts.filter((p) => p.name !== `table.${name}.bin`),
    structuredPart(`table.${name}.bin`, records, records.length),
  ];
}

/** A kgChunks table whose one record holds a structured reference to `$typed`. */
function typedRefTable($typed: string): (parts: BundlePart[]) => BundlePart[] {
  return (parts) => {
    const json = enc.encode(JSON.stringify([{ chunkId: 'c', x: { $typed, offset: 0, length: 0 } }]));
    const data = new Uint8Array(Math.ceil((4 + json.length) / 8) * 8);
    new DataView(data.buffer).setUint32(0, json.length, true);
    data.set(json, 4);
    return [
      ...parts.filter((p) => p.name !== 'table.kgChunks.bin'),
      { name: 'table.kgChunks.bin', kind: 'structured', count: 1, data },
    ];
  };
}

// ---- the library in IndexedDB ----

let dbCounter = 0;
function freshDb(): ConceptDb {
  return openDatabase(`hostile-test-${dbCounter++}`, { indexedDB: new IDBFactory(), IDBKeyRange });
}

async function library(docs = DOCS.slice(0, 2)): Promise<ConceptDb> {
  const db = freshDb();
  const repo = new Repo(db);
  for (const d of docs) {
    const p = prepared(d);
    await putPreparedDocument(
      repo,
      { doc: p.doc, sections: p.sections, chunks: p.chunks, sentences: p.sentences },
      p.vectors,
      EMBEDDER.id,
    );
  }
  return db;
}

async function dump(db: ConceptDb): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of db.tables) out[t.name] = await t.toArray();
  return out;
}

const HUGE = 2 ** 40;

describe('declared sizes are checked, not believed', () => {
  it('refuses a part declaring 2^40 bytes in a small file, naming the counts (no allocation attempt)', async () => {
    const bytes = craftedStart({ name: 'blob.bin', length: HUGE, rawLength: HUGE });
    const all = { maxPartBytes: HUGE, maxPartRawBytes: HUGE, maxTotalBytes: HUGE, maxTotalRawBytes: HUGE };
    const e = await refusal(readBundle(bytes, { limits: all }));
    expect(e.kind).toBe('truncated');
    expect(e.message).toBe(`bundle: truncated (expected ${HUGE} bytes of part blob.bin, got 16)`);
  });

  it('refuses a part over the per-part limit even when the file is that large', async () => {
    const data = new Uint8Array(300);
    const bytes = craftedStart({ name: 'blob.bin', length: 300, rawLength: 300 }, data);
    const e = await refusal(readBundle(bytes, { limits: { maxPartBytes: 100 } }));
    expect(e.kind).toBe('invalid-content');
    expect(e.part).toBe('blob.bin');
    expect(e.message).toBe('bundle: part blob.bin declares 300 stored bytes, over the limit of 100');
  });

  it('refuses an inflated size over the per-part and the total limits before inflating anything', async () => {
    const gz = { name: 'docs.jsonl', kind: 'jsonl', encoding: 'gzip', length: 16 };
    let e = await refusal(readBundle(craftedStart({ ...gz, rawLength: HUGE })));
    expect(e.message).toBe(
      `bundle: part docs.jsonl declares ${HUGE} bytes inflated, over the limit of ${1024 ** 3}`,
    );
    e = await refusal(
      readBundle(craftedStart({ ...gz, rawLength: 5000 }), {
        limits: { maxPartRawBytes: 10_000, maxTotalRawBytes: 4000 },
      }),
    );
    expect(e.message).toBe('bundle: part docs.jsonl takes the parts over 4000 bytes inflated in total');
  });

  it('refuses a stream whose part claims more bytes than the file has, without waiting for them', async () => {
    const start = craftedStart({ name: 'blob.bin', length: 50_000_000, rawLength: 50_000_000 });
    // A hostile server: sends the headers, then nothing, forever. Only the declared file size can refuse it.
    async function* stalled(): AsyncGenerator<Uint8Array> {
      yield start;
      await new Promise(() => undefined);
    }
    const options: ReadOptions = { totalBytes: start.length };
    const outcome = await Promise.race([
      readBundle(stalled(), options).then(
        () => 'accepted',
        (err: unknown) => (err instanceof BundleError ? err.message : String(err)),
      ),
      new Promise<string>((resolve) => setTimeout(() => resolve('still reading after 2 s'), 2000)),
    ]);
    expect(outcome).toBe('bundle: truncated (expected 50000000 bytes of part blob.bin, got 16)');
  });

  it('?bundle=: a response whose Content-Length is smaller than a declared part is refused at once', async () => {
    const start = craftedStart({ name: 'blob.bin', length: 50_000_000, rawLength: 50_000_000 });
    const fetcher = (async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(start); // then nothing, forever
          },
        }),
        { headers: { 'Content-Length': String(start.length) } },
      )) as unknown as typeof fetch;
    const outcome = await Promise.race([
      openBundleReadOnly('/x.bundle', 'http://127.0.0.1:4173', fetcher).then(
        () => 'accepted',
        (err: unknown) => (err instanceof Error ? err.message : String(err)),
      ),
      new Promise<string>((resolve) => setTimeout(() => resolve('still reading after 2 s'), 2000)),
    ]);
    expect(outcome).toBe('bundle: truncated (expected 50000000 bytes of part blob.bin, got 16)');
  });

  it('refuses part names that are Object.prototype properties', async () => {
    for (const name of ['__proto__', 'constructor', 'table.__proto__.bin', 'table.constructor.bin']) {
      const e = await refusal(readBundle(craftedStart({ name, length: 16, rawLength: 16 })));
      expect(e.message).toContain('is not allowed');
    }
  });
});

const HOSTILE: Array<[string, () => Promise<Uint8Array>, RegExp]> = [
  [
    'a chunk offset that is a string',
    () => indexBundleWith(replaceJsonl('chunks.jsonl', (rs) => rs.map((r) => ({ ...r, start: '0' })))),
    /part chunks\.jsonl record 1: the field "start" must be a whole number ≥ 0/,
  ],
  [
    'a document text that is an object',
    () => indexBundleWith(replaceJsonl('documents.jsonl', (rs) => [{ ...rs[0], text: {} }, ...rs.slice(1)])),
    /part documents\.jsonl record 1: the field "text" must be a string/,
  ],
  [
    'a negative sentence index',
    () => indexBundleWith(replaceJsonl('sentences.jsonl', (rs) => [{ ...rs[0], index: -1 }, ...rs.slice(1)])),
    /part sentences\.jsonl record 1: the field "index" must be a whole number ≥ 0/,
  ],
  [
    'a chunk that is a number',
    () => indexBundleWith(replaceJsonl('chunks.jsonl', (rs) => [5, ...rs.slice(1)])),
    /part chunks\.jsonl record 1 is not an object/,
  ],
  [
    'two chunks with one id',
    () =>
      indexBundleWith(
        replaceJsonl('chunks.jsonl', (rs) => [rs[0], { ...rs[1], id: rs[0].id }, ...rs.slice(2)]),
      ),
    /part chunks\.jsonl: id d0000000000000001#0000#0000 appears twice/,
  ],
  [
    'a KG entity vector of 3 floats in an 8-d library',
    () =>
      indexBundleWith(
        replaceTable('kgEntities', [
          { id: 'x', name: 'X', chunkIds: [], vector: new Float32Array([1, 0, 0]).buffer },
        ]),
      ),
    /part table\.kgEntities\.bin record 1: the vector has 12 bytes, not 8 floats/,
  ],
  [
    'a KG entity vector that is a string',
    () => indexBundleWith(replaceTable('kgEntities', [{ id: 'x', name: 'X', chunkIds: [], vector: 'abc' }])),
    /part table\.kgEntities\.bin record 1: the vector is not a vector/,
  ],
  [
    'a KG relation whose id is a number',
    () => indexBundleWith(replaceTable('kgRelations', [{ id: 7, source: 'a', target: 'b', chunkIds: [] }])),
    /part table\.kgRelations\.bin record 1: the field "id" must be a string/,
  ],
  [
    'KG entity mentions that are not an array',
    () =>
      indexBundleWith(replaceTable('kgEntities', [{ id: 'x', name: 'X', chunkIds: ['c'], mentions: 'c' }])),
    /part table\.kgEntities\.bin record 1: the field "mentions" must be an array/,
  ],
  [
    'a KG relation mention without its chunk',
    () =>
      indexBundleWith(
        replaceTable('kgRelations', [
          {
            id: 'a→b',
            source: 'a',
            target: 'b',
            chunkIds: ['c'],
            mentions: [{ description: 'd', weight: 1 }],
          },
        ]),
      ),
    /part table\.kgRelations\.bin record 1 mentions record 1: the field "chunkId" must be a string \(it is missing\)/,
  ],
  [
    'a KG entity without chunkIds',
    () => indexBundleWith(replaceTable('kgEntities', [{ id: 'x', name: 'X' }])),
    /the field "chunkIds" must be an array of strings \(it is missing\)/,
  ],
  [
    'a table named __proto__',
    () => indexBundleWith(replaceTable('__proto__', [{ id: 'x' }])),
    /the part name "table\.__proto__\.bin" is not allowed/,
  ],
  [
    'a table named constructor',
    () => indexBundleWith(replaceTable('constructor', [{ id: 'x' }])),
    /the part name "table\.constructor\.bin" is not allowed/,
  ],
  [
    'a structured value typed "constructor"',
    () => indexBundleWith(typedRefTable('constructor')),
    /part table\.kgChunks\.bin: unknown typed array constructor/,
  ],
  [
    'a structured value with an offset that is a string',
    () =>
      indexBundleWith((parts) => {
        const json = enc.encode(
          JSON.stringify([{ chunkId: 'c', x: { $typed: 'Uint8Array', offset: '8', length: 1 } }]),
        );
        const data = new Uint8Array(Math.ceil((4 + json.length) / 8) * 8 + 16);
        new DataView(data.buffer).setUint32(0, json.length, true);
        data.set(json, 4);
        return [
          ...parts.filter((p) => p.name !== 'table.kgChunks.bin'),
          { name: 'table.kgChunks.bin', kind: 'structured', count: 1, data },
        ];
      }),
    /typed array offset or length is not a count/,
  ],
  [
    'a part declaring 2^40 bytes',
    async () => craftedStart({ name: 'blob.bin', length: HUGE, rawLength: HUGE }),
    /part blob\.bin declares 1099511627776 stored bytes, over the limit/,
  ],
];

describe('hostile index bundles are refused with the store unchanged', () => {
  for (const [what, make, reason] of HOSTILE) {
    it(`refuses ${what}`, async () => {
      const db = await library();
      const before = await dump(db);
      const bytes = await make();
      const e = await refusal(importBundle(db, bytes));
      expect(e.message).toMatch(reason);
      expect(await dump(db)).toEqual(before);
      // The CLI and ?bundle= read through the same checks.
      await expect(readIndexBundle(bytes)).rejects.toThrow(reason);
    });
  }
});

describe('a library whose concept graph is stale exports a bundle that imports again', () => {
  /** A library whose graph was built before its last document was stored (as during indexing or after Cancel). */
  async function staleLibrary(): Promise<ConceptDb> {
    const db = await library(DOCS.slice(0, 2));
    const graph = {
      format: 'conceptrag-graph',
      version: 1,
      chunkIds: DOCS.slice(0, 2).map((d) => `${d.id}#0000#0000`),
      terms: ['lothair ii'],
      edgeTargets: new Uint32Array([]),
    } as unknown as SerializedGraph;
    await new Repo(db).putGraph(graph, { concepts: 1, edges: 0 });
    const p = prepared(DOCS[2]);
    await putPreparedDocument(
      new Repo(db),
      { doc: p.doc, sections: p.sections, chunks: p.chunks, sentences: p.sentences },
      p.vectors,
      EMBEDDER.id,
    );
    await db.kgEntities.put({
      id: 'lothair ii',
      name: 'Lothair II',
      type: 'person',
      description: 'king',
      chunkIds: [`${DOCS[0].id}#0000#0000`],
      vector: fakeVector('Lothair II').buffer as ArrayBuffer,
    });
    return db;
  }

  it('leaves the stale graph out of the export; the import takes every document and rebuilds the graph', async () => {
    const bytes = new Uint8Array(
      await (await exportLibraryBlob(await staleLibrary(), { appVersion: 'x' })).arrayBuffer(),
    );
    expect((await readBundle(bytes)).manifest.parts.map((p) => p.name)).not.toContain('graph.bin');
    const target = freshDb();
    const result = await importBundle(target, bytes, { totalBytes: bytes.length });
    expect(result.mode).toBe('new');
    expect(result.added).toEqual({ documents: 3, chunks: 3, sentences: 7, vectors: 7 });
    expect(result.graphStale).toBe(true); // the ingest worker rebuilds it on this flag
    expect(await target.kgEntities.count()).toBe(1);
  });

  it('imports a bundle that already carries a graph for other chunks (older exports), without that graph', async () => {
    const stale = structuredPart('graph.bin', {
      format: 'conceptrag-graph',
      version: 1,
      chunkIds: [`${DOCS[0].id}#0000#0000`],
      terms: ['lothair ii'],
      edgeTargets: new Uint32Array([]),
    });
    const bytes = await indexBundleWith((parts) => [...parts, stale]);
    expect((await readIndexBundle(bytes)).graph).toBeUndefined();
    const target = freshDb();
    const result = await importBundle(target, bytes);
    expect(result.added.documents).toBe(3);
    expect(result.graphStale).toBe(true);
    expect(await target.graph.count()).toBe(0);
  });
});
