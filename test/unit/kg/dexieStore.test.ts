import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildKg } from '../../../src/core/kg/build.ts';
import { embedKg } from '../../../src/core/kg/embed.ts';
import type { KgChunkInput } from '../../../src/core/kg/types.ts';
import { LlmClient } from '../../../src/core/llm/client.ts';
import type { Embedder } from '../../../src/core/types.ts';
import { openDatabase, type ConceptDb } from '../../../src/store/db.ts';
import { DexieKgStore } from '../../../src/store/kgStore.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scriptedLlmServer.ts';

let server: ScriptedLlmServer;
let db: ConceptDb;
const client = () =>
  new LlmClient(
    {
      baseUrl: server.baseUrl,
      model: 'scripted-model',
      apiKey: '',
      priceInPerM: 0,
      priceOutPerM: 0,
      concurrency: 2,
    },
    { backoff: { baseMs: 5, maxMs: 20 } },
  );
const chunks: KgChunkInput[] = [
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
    const first = await buildKg({
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
    expect(first.done).toBe(1);
    const reopened = new DexieKgStore(db);
    const second = await buildKg({ chunks, store: reopened, client: client() });
    expect(second).toMatchObject({ skipped: 1, done: 2 });
    expect(new Set(server.extractionTexts()).size).toBe(3);
    expect(server.extractionTexts()).toHaveLength(3);
    const ada = (await reopened.entities()).find((e) => e.id === 'ada lovelace')!;
    expect(ada.chunkIds).toEqual(['da#0000#0000', 'da#0000#0001']);
    expect(await db.kgChunks.count()).toBe(3);
  });

  it('embeds only new or changed items and stores vectors as buffers', async () => {
    const store = new DexieKgStore(db);
    await buildKg({ chunks: chunks.slice(0, 1), store, client: client() });
    const r1 = await embedKg(store, toyEmbedder);
    expect(r1.embedded).toBe(3); // 2 entities + 1 relation
    expect((await db.kgEntities.get('ada lovelace'))!.vector).toBeInstanceOf(ArrayBuffer);
    expect((await embedKg(store, toyEmbedder)).embedded).toBe(0);
    await buildKg({ chunks, store, client: client() });
    // "ada lovelace" and "charles babbage" gained descriptions; "notes", "london" and 2 relations are new.
    expect((await embedKg(store, toyEmbedder)).embedded).toBe(6);
    const e = (await store.entities()).find((x) => x.id === 'notes')!;
    expect(e.vector).toBeInstanceOf(Float32Array);
    expect(e.vector!.length).toBe(2);
  });

  it('removes a document exactly, and agrees with records trimmed by the repo (stale mentions ignored)', async () => {
    const store = new DexieKgStore(db);
    await buildKg({ chunks, store, client: client() });
    await store.removeDocument('db');
    const babbage = (await store.entities()).find((e) => e.id === 'charles babbage')!;
    expect(babbage.chunkIds).toEqual(['da#0000#0000']);
    expect(babbage.description).toBe('Ada Lovelace met Charles Babbage.');
    expect((await store.entities()).some((e) => e.id === 'london')).toBe(false);
    // The repo's removal trims chunkIds only: reading back must not resurrect the removed chunk's mention.
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
    await buildKg({ chunks: chunks.slice(0, 1), store, client: client() });
    const ada = (await store.entities()).find((e) => e.id === 'ada lovelace')!;
    expect(ada.chunkIds).toEqual(['da#0000#0000', 'zz#0000#0000']);
    expect(ada.description).toBe('Imported. Ada Lovelace met Charles Babbage.');
    await store.removeChunks(['da#0000#0000']);
    expect((await store.entities()).find((e) => e.id === 'ada lovelace')!.description).toBe('Imported.');
  });
});
