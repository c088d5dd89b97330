// Export from and import into the IndexedDB library (fake-indexeddb): all layers round-trip, settings never
// leave, 100 damaged bundles are refused with the store byte-for-byte unchanged, merge keeps duplicates once,
// and ?bundle= opens only same-origin bundles.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { BundleError, readBundle, type BundleErrorKind } from '../../../src/core/bundle/index.ts';
import { exportLibraryBlob, librarySnapshot } from '../../../src/store/bundleExport.ts';
import { importBundle } from '../../../src/store/bundleImport.ts';
import { openBundleReadOnly } from '../../../src/services/bundleBytes/bundleFetch.ts';
import { openDatabase, type ConceptDb } from '../../../src/store/db.ts';
import { Repo } from '../../../src/store/repo.ts';
import { buildEngine } from '../../../src/services/library/engine.ts';
import { DOCS, EMBEDDER, fakeVector, prepared } from './fixtures.ts';
import { putPreparedDocument } from '../../support/putOneDocument.ts';

let dbCounter = 0;
function freshDb(): ConceptDb {
  return openDatabase(`bundle-test-${dbCounter++}`, { indexedDB: new IDBFactory(), IDBKeyRange });
}

const SECRET = 'sk-test-SECRET-KEY-123';

async function library(docs = DOCS): Promise<ConceptDb> {
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
  const chunkIds = docs.map((d) => `${d.id}#0000#0000`);
  // A real concept graph: the store keeps it as its keep-mask (schema v2), which a bundle carries as is.
  const engine = buildEngine(await repo.loadCorpus());
  const stats = engine.stats();
  await repo.putGraph(engine.exportGraph(), { concepts: stats.concepts, edges: stats.edges });
  await db.kgEntities.put({
    id: 'e:lothair ii',
    name: 'Lothair II',
    type: 'person',
    description: 'king',
    chunkIds: [chunkIds[0]],
    vector: fakeVector('Lothair II').buffer as ArrayBuffer,
  });
  await db.kgChunks.put({
    chunkId: chunkIds[0],
    status: 'done',
    entityIds: ['e:lothair ii'],
    relationIds: [],
  });
  await repo.setSetting('llm', { baseUrl: 'http://localhost:11434', apiKey: SECRET });
  return db;
}

/** Every table's records, for before/after comparisons (ArrayBuffers compare by content). */
async function dump(db: ConceptDb): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of db.tables) out[t.name] = await t.toArray();
  // builtAt is a timestamp of the write, not content (the index record repeats the graph's).
  out.graph = out.graph.map((g) => ({ ...(g as object), builtAt: 0 }));
  out.meta = out.meta.map((m) => ({ ...(m as object), graphBuiltAt: 0 }));
  return out;
}

async function bytesOf(blob: Blob): Promise<Uint8Array> {
  return new Uint8Array(await blob.arrayBuffer());
}

describe('library export → import', () => {
  it('recreates every layer in an empty library, Float32 vectors exactly, and never exports settings', async () => {
    const source = await library();
    const bytes = await bytesOf(await exportLibraryBlob(source, { appVersion: '0.1.0', vectors: 'f32' }));
    expect(new TextDecoder('latin1').decode(bytes).includes(SECRET)).toBe(false);

    const target = freshDb();
    const result = await importBundle(target, bytes);
    expect(result).toEqual({
      mode: 'new',
      added: { documents: 3, chunks: 3, sentences: 7, vectors: 7 },
      skippedDocuments: 0,
      graphStale: false,
      ignoredTables: [],
    });
    const before = await dump(source);
    const after = await dump(target);
    for (const name of [
      'documents',
      'sections',
      'chunks',
      'sentences',
      'vectors',
      'graph',
      'kgEntities',
      'kgChunks',
    ]) {
      expect(after[name], name).toEqual(before[name]);
    }
    expect(after.settings).toEqual([]);
    expect(after.meta).toEqual(before.meta);
  });

  it('reports import progress in bytes, ending at the file size', async () => {
    const bytes = await bytesOf(await exportLibraryBlob(await library(), { appVersion: '0.1.0' }));
    const events: Array<{ stage: string; done: number; total: number }> = [];
    // Deliver the file in 100-byte chunks, as a stream would.
    async function* chunks(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < bytes.length; i += 100) yield bytes.slice(i, i + 100);
    }
    await importBundle(freshDb(), chunks(), { onProgress: (p) => events.push(p), totalBytes: bytes.length });
    expect(events.length).toBeGreaterThan(3);
    expect(events.every((e) => e.stage === 'bundle' && e.total === bytes.length)).toBe(true);
    expect(events.map((e) => e.done)).toEqual([...events.map((e) => e.done)].sort((a, b) => a - b));
    expect(events[events.length - 1].done).toBe(bytes.length);
  });

  it('stores int8 bundles as the dequantized vectors the CLI decodes (unit rows, cosine > 0.999)', async () => {
    const source = await library();
    const bytes = await bytesOf(await exportLibraryBlob(source, { appVersion: '0.1.0' }));
    const target = freshDb();
    await importBundle(target, bytes);
    const a = await librarySnapshot(source);
    const b = await librarySnapshot(target);
    for (const [docId, v] of a.vectors) {
      const w = b.vectors.get(docId)!;
      let dot = 0;
      for (let i = 0; i < v.length; i++) dot += v[i] * w[i];
      expect(dot / (v.length / EMBEDDER.dimension)).toBeGreaterThan(0.999);
    }
  });

  it('merges into a library of the same embedder, keeping shared documents once', async () => {
    const source = await library(DOCS.slice(1));
    const bytes = await bytesOf(await exportLibraryBlob(source, { appVersion: '0.1.0' }));
    const target = await library(DOCS.slice(0, 2));
    const result = await importBundle(target, bytes);
    expect(result.mode).toBe('merge');
    expect(result.added).toEqual({ documents: 1, chunks: 1, sentences: 2, vectors: 2 });
    expect(result.skippedDocuments).toBe(1);
    expect(result.graphStale).toBe(true);
    expect(await target.documents.count()).toBe(3);
    expect(await target.graph.count()).toBe(0);
    // The tally carries on from the library's own with what the import added: what counting the stores finds.
    expect((await target.meta.get('index'))?.sentenceTally).toEqual({
      documents: 3,
      sentences: await target.sentences.count(),
      chunks: await target.chunks.count(),
    });
    const meta = await target.meta.get('index');
    expect(meta?.vectorRows).toBe(7);
    // Merged KG: the entity existed on both sides with the same chunk; still one record.
    expect(await target.kgEntities.count()).toBe(1);
  });
});

describe('refused imports leave the store byte-for-byte unchanged', () => {
  it('refuses another embedder', async () => {
    const other = freshDb();
    const p = prepared(DOCS[2]);
    await putPreparedDocument(
      new Repo(other),
      { doc: p.doc, sections: p.sections, chunks: p.chunks, sentences: p.sentences },
      p.vectors,
      'hf:other-model',
    );
    const bytes = await bytesOf(await exportLibraryBlob(other, { appVersion: '0.1.0' }));
    const target = await library(DOCS.slice(0, 1));
    const before = await dump(target);
    await expect(importBundle(target, bytes)).rejects.toThrow(
      'bundle: built with embedder hf:other-model (dimension 8) but this library uses test-embedder@1 (dimension 8)',
    );
    expect(await dump(target)).toEqual(before);
  });

  it('refuses 100 damaged bundles (flips, truncations, versions, embedders) with the matching error', async () => {
    const good = await bytesOf(await exportLibraryBlob(await library(), { appVersion: '0.1.0' }));
    const target = await library(DOCS.slice(0, 1));
    const before = await dump(target);
    let x = 987654321;
    const random = (): number => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) / 0x100000000;
    };
    const cases: Array<{ name: string; bytes: Uint8Array; expected: BundleErrorKind }> = [];
    for (let i = 0; i < 45; i++) {
      const pos = Math.floor(random() * good.length);
      const bad = good.slice();
      bad[pos] ^= 1 + Math.floor(random() * 255);
      cases.push({
        name: `flip ${pos}`,
        bytes: bad,
        expected: pos < 8 ? 'not-a-bundle' : pos < 12 ? 'unknown-version' : 'corrupted',
      });
    }
    for (let i = 0; i < 45; i++) {
      const cut = 1 + Math.floor(random() * (good.length - 1));
      cases.push({ name: `cut ${cut}`, bytes: good.slice(0, cut), expected: 'truncated' });
    }
    for (const v of [0, 4, 9, 100, 65536]) {
      const bad = good.slice();
      new DataView(bad.buffer).setUint32(8, v, true);
      cases.push({ name: `version ${v}`, bytes: bad, expected: 'unknown-version' });
    }
    for (const id of ['hf:a', 'hf:b', 'openai:x#y', 'use-lite@1', 'test-embedder@2']) {
      const other = freshDb();
      const p = prepared(DOCS[1]);
      await putPreparedDocument(
        new Repo(other),
        { doc: p.doc, sections: p.sections, chunks: p.chunks, sentences: p.sentences },
        p.vectors,
        id,
      );
      cases.push({
        name: `embedder ${id}`,
        bytes: await bytesOf(await exportLibraryBlob(other, { appVersion: '0.1.0' })),
        expected: 'embedder-mismatch',
      });
    }
    expect(cases).toHaveLength(100);
    const wrong: string[] = [];
    for (const c of cases) {
      const got = await importBundle(target, c.bytes).then(
        () => 'accepted',
        (e: unknown) => (e instanceof BundleError ? e.kind : `other error: ${String(e)}`),
      );
      if (got !== c.expected) wrong.push(`${c.name}: expected ${c.expected}, got ${got}`);
    }
    expect(wrong).toEqual([]);
    expect(await dump(target)).toEqual(before);
  });
});

describe('openBundleReadOnly', () => {
  it('opens a same-origin bundle without touching IndexedDB and refuses other origins', async () => {
    const bytes = await bytesOf(await exportLibraryBlob(await library(), { appVersion: '0.1.0' }));
    const requested: string[] = [];
    const fetcher = (async (url: string) => {
      requested.push(url);
      return new Response(bytes as Uint8Array<ArrayBuffer>);
    }) as unknown as typeof fetch;
    const opened = await openBundleReadOnly('/shared/index.bundle', 'http://127.0.0.1:4173', fetcher);
    expect(requested).toEqual(['http://127.0.0.1:4173/shared/index.bundle']);
    expect(opened.counts).toMatchObject({ documents: 3, chunks: 3, sentences: 7, vectors: 7 });
    expect(opened.corpus.chunks.map((c) => c.id)).toEqual(DOCS.map((d) => `${d.id}#0000#0000`));
    expect(opened.corpus.meta?.layers).toEqual({ lexical: true, semantic: true });
    await expect(
      openBundleReadOnly('https://evil.example/x.bundle', 'http://127.0.0.1:4173', fetcher),
    ).rejects.toThrow(
      'open bundle: https://evil.example/x.bundle is not on this site (http://127.0.0.1:4173); only same-origin bundles open',
    );
    expect(requested).toHaveLength(1);
  });

  it('asks whether the library fits before reading the documents, and stops the download when it does not', async () => {
    const bytes = await bytesOf(await exportLibraryBlob(await library(), { appVersion: '0.1.0' }));
    // The body arrives in pieces of 64 bytes, so what was read before the refusal can be told from the whole.
    let sent = 0;
    let cancelled = false;
    const fetcher = (async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent >= bytes.length) return controller.close();
            controller.enqueue(bytes.slice(sent, sent + 64));
            sent += 64;
          },
          cancel() {
            cancelled = true;
          },
        }),
      )) as unknown as typeof fetch;
    const asked: Array<{ textBytes: number; vectors: boolean }> = [];
    const refuse = (library: { textBytes: number; vectors: boolean }) => {
      asked.push(library);
      return 'index.bundle would not fit this tab';
    };
    await expect(
      openBundleReadOnly('/shared/index.bundle', 'http://127.0.0.1:4173', fetcher, undefined, refuse),
    ).rejects.toThrow('index.bundle would not fit this tab');
    // Asked once, with the decoded size of the documents part (as the whole read of the same bytes decodes it).
    const documents = (await readBundle(bytes)).parts.get('documents.jsonl')!;
    expect(asked).toEqual([{ textBytes: documents.length, vectors: true }]);
    expect(cancelled).toBe(true);
    expect(sent).toBeLessThan(bytes.length);

    // A library that fits opens as before.
    sent = 0;
    const opened = await openBundleReadOnly(
      '/shared/index.bundle',
      'http://127.0.0.1:4173',
      fetcher,
      undefined,
      () => null,
    );
    expect(opened.counts).toMatchObject({ documents: 3, chunks: 3 });
  });
});
