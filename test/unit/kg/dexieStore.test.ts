import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DistillChunkInput } from '../../../src/core/atomic/index.ts';
import { embedKg } from '../../../src/core/kg/embed.ts';
import type { Embedder } from '../../../src/core/types.ts';
import { openDatabase, type ConceptDb } from '../../../src/store/db.ts';
import { DexieKgStore } from '../../../src/store/kgStore.ts';
import { Repo } from '../../../src/store/repo.ts';
import { buildKgOnly } from '../../support/buildKgOnly.ts';
import { scriptedClient } from '../../support/scriptedClient.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scriptedLlmServer.ts';

let server: ScriptedLlmServer;
let db: ConceptDb;
const client = () => scriptedClient(server);
const chunks: Array<Required<DistillChunkInput>> = [
  { id: 'da#0000#0000', docId: 'da', text: 'Ada Lovelace met Charles Babbage.' },
  { id: 'da#0000#0001', docId: 'da', text: 'Ada Lovelace wrote Notes.' },
  { id: 'db#0000#0000', docId: 'db', text: 'Charles Babbage lived in London.' },
];

/** Two-dimensional toy embedder: [length mod 7, 1], normalized. Deterministic and enough to test storage. */
const toyEmbedder: Embedder = {
  id: 'toy',
  dimension: 2,
  async embed(texts) {
    const out = new Float32Array(texts.length * 2);
    texts.forEach((t, i) => {
      const a = (t.length % 7) + 1;
      const n = Math.hypot(a, 1);
      out[i * 2] = a / n;
      out[i * 2 + 1] = 1 / n;
    });
    return out;
  },
};

beforeAll(async () => {
  server = await startScriptedLlmServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  db = openDatabase('kg-test', { indexedDB: new IDBFactory(), IDBKeyRange });
});

describe('DexieKgStore', () => {
  it('commits per chunk and resumes after a "reload" (a new store on the same database) without resending', async () => {
    server.setLatency(30);
    const controller = new AbortController();
    const first = await buildKgOnly({
      chunks,
      store: new DexieKgStore(db),
      client: client(),
      concurrency: 1,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.done === 1) controller.abort();
      },
    });
    server.setLatency(0);
    expect(first.kg.done).toBe(1);
    const reopened = new DexieKgStore(db);
    const second = await buildKgOnly({ chunks, store: reopened, client: client() });
    expect(second).toMatchObject({ skipped: 1, kg: { done: 2 } });
    expect(new Set(server.extractionTexts()).size).toBe(3);
    expect(server.extractionTexts()).toHaveLength(3);
    const ada = (await reopened.entities()).find((e) => e.id === 'ada lovelace')!;
    expect(ada.chunkIds).toEqual(['da#0000#0000', 'da#0000#0001']);
    expect(await db.kgChunks.count()).toBe(3);
  });

  it('embeds only new or changed items and stores vectors as buffers', async () => {
    const store = new DexieKgStore(db);
    await buildKgOnly({ chunks: chunks.slice(0, 1), store, client: client() });
    const r1 = await embedKg(store, toyEmbedder);
    expect(r1.embedded).toBe(3); // 2 entities + 1 relation
    expect((await db.kgEntities.get('ada lovelace'))!.vector).toBeInstanceOf(ArrayBuffer);
    expect((await embedKg(store, toyEmbedder)).embedded).toBe(0);
    await buildKgOnly({ chunks, store, client: client() });
    // "ada lovelace" and "charles babbage" gained descriptions; "notes", "london" and 2 relations are new.
    expect((await embedKg(store, toyEmbedder)).embedded).toBe(6);
    const e = (await store.entities()).find((x) => x.id === 'notes')!;
    expect(e.vector).toBeInstanceOf(Float32Array);
    expect(e.vector!.length).toBe(2);
  });

  it('removes a document exactly, shrinking what it shared and dropping what only it supported', async () => {
    const store = new DexieKgStore(db);
    await buildKgOnly({ chunks, store, client: client() });
    await store.removeDocument('db');
    const babbage = (await store.entities()).find((e) => e.id === 'charles babbage')!;
    expect(babbage.chunkIds).toEqual(['da#0000#0000']);
    expect(babbage.description).toBe('Ada Lovelace met Charles Babbage.');
    expect((await store.entities()).some((e) => e.id === 'london')).toBe(false);
  });

  it('does not read back mentions that an older removal left behind (their chunks no longer listed)', async () => {
    const store = new DexieKgStore(db);
    await buildKgOnly({ chunks, store, client: client() });
    // What document removal wrote before it went through removeKgChunks: chunkIds trimmed, mentions kept.
    const raw = (await db.kgEntities.get('ada lovelace'))!;
    await db.kgEntities.put({ ...raw, chunkIds: ['da#0000#0001'] });
    const ada = (await store.entities()).find((e) => e.id === 'ada lovelace')!;
    expect(ada.chunkIds).toEqual(['da#0000#0001']);
    expect(ada.description).toBe('Ada Lovelace wrote Notes.');
  });

  it('reads records without mentions (bundle imports written by other code) and merges into them', async () => {
    await db.kgEntities.put({
      id: 'ada lovelace',
      name: 'Ada Lovelace',
      type: 'person',
      description: 'Imported.',
      chunkIds: ['zz#0000#0000'],
    });
    const store = new DexieKgStore(db);
    await buildKgOnly({ chunks: chunks.slice(0, 1), store, client: client() });
    const ada = (await store.entities()).find((e) => e.id === 'ada lovelace')!;
    expect(ada.chunkIds).toEqual(['da#0000#0000', 'zz#0000#0000']);
    expect(ada.description).toBe('Imported. Ada Lovelace met Charles Babbage.');
    await store.removeChunks(['da#0000#0000']);
    expect((await store.entities()).find((e) => e.id === 'ada lovelace')!.description).toBe('Imported.');
  });
});

/** The library's records for the chunks above: one document per docId, its chunks as given. */
async function storeDocuments(target: ConceptDb): Promise<void> {
  for (const docId of ['da', 'db']) {
    const own = chunks.filter((c) => c.docId === docId);
    const text = own.map((c) => c.text).join(' ');
    await target.documents.add({
      id: docId,
      title: docId,
      sourceName: `${docId}.txt`,
      mime: 'text/plain',
      size: text.length,
      hash: `hash-${docId}`,
      addedAt: 1,
      text,
    });
    let start = 0;
    await target.chunks.bulkAdd(
      own.map((c, i) => {
        const record = {
          id: c.id,
          docId,
          sectionIndex: 0,
          position: i,
          order: i,
          start,
          end: start + c.text.length,
          text: c.text,
          tokens: 8,
          firstSentence: i,
          sentenceCount: 1,
        };
        start += c.text.length + 1;
        return record;
      }),
    );
  }
}

/** The KG tables without what differs between two builds of the same chunks (finishing times). */
async function kgTables(target: ConceptDb): Promise<Record<string, unknown[]>> {
  return {
    kgChunks: (await target.kgChunks.toArray()).map((r) => ({ ...r, finishedAt: 0 })),
    kgEntities: await target.kgEntities.toArray(),
    kgRelations: await target.kgRelations.toArray(),
  };
}

describe('removing a document from the library after a KG build', () => {
  it('leaves nothing pointing at it, and the KG a build of the other documents alone gives', async () => {
    await storeDocuments(db);
    await buildKgOnly({ chunks, store: new DexieKgStore(db), client: client(), concurrency: 1 });
    const keptDocument = await db.documents.get('da');
    const keptChunks = await db.chunks.where('docId').equals('da').toArray();
    expect(await db.kgEntities.get('london')).toBeDefined();

    expect(await new Repo(db).removeDocument('db')).toBe(true);

    const mentionsRemoved = (r: { chunkIds: string[]; mentions?: Array<{ chunkId: string }> }) =>
      [...r.chunkIds, ...(r.mentions ?? []).map((m) => m.chunkId)].some((id) => id.startsWith('db#'));
    expect((await db.kgEntities.toArray()).filter(mentionsRemoved)).toEqual([]);
    expect((await db.kgRelations.toArray()).filter(mentionsRemoved)).toEqual([]);
    expect((await db.kgChunks.toCollection().primaryKeys()).filter((id) => id.startsWith('db#'))).toEqual([]);
    const entityIds = new Set(await db.kgEntities.toCollection().primaryKeys());
    for (const r of await db.kgRelations.toArray()) {
      expect(entityIds.has(r.source) && entityIds.has(r.target)).toBe(true);
    }

    const alone = openDatabase('kg-alone', { indexedDB: new IDBFactory(), IDBKeyRange });
    await buildKgOnly({
      chunks: chunks.filter((c) => c.docId === 'da'),
      store: new DexieKgStore(alone),
      client: client(),
      concurrency: 1,
    });
    expect(await kgTables(db)).toEqual(await kgTables(alone));
    expect(await db.documents.get('da')).toEqual(keptDocument);
    expect(await db.chunks.where('docId').equals('da').toArray()).toEqual(keptChunks);
  });
});
