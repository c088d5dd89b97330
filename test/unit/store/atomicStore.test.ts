// The atomic layer in IndexedDB (fake-indexeddb): schema v3 holds it, a v2 database opens as v3 with its data, a
// chunk's questions are replaced together with its state, and removing a document removes exactly its atomic
// questions and states in the same transaction as the rest of it.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import Dexie from 'dexie';
import { describe, expect, it } from 'vitest';
import type { PreparedDocument } from '../../../src/core/types.ts';
import { DexieAtomicStore } from '../../../src/store/atomicStore.ts';
import { openDatabase, SCHEMA_V2, SCHEMA_V3 } from '../../../src/store/db.ts';
import { Repo } from '../../../src/store/repo.ts';

function prepared(id: string): PreparedDocument {
  const text = 'A one. A two.';
  const chunk = `${id}#0000#0000`;
  return {
    doc: {
      id,
      title: id,
      sourceName: `${id}.txt`,
      mime: 'text/plain',
      size: text.length,
      hash: `${id}-h`,
      addedAt: 1,
      text,
    },
    sections: [{ id: `${id}#0000`, docId: id, index: 0, heading: '', level: 0, start: 0, end: text.length }],
    chunks: [
      {
        id: chunk,
        docId: id,
        sectionIndex: 0,
        position: 0,
        order: 0,
        start: 0,
        end: text.length,
        text,
        tokens: 6,
        firstSentence: 0,
        sentenceCount: 2,
      },
    ],
    sentences: [
      { id: `${id}:000000`, docId: id, chunkId: chunk, index: 0, start: 0, end: 6, text: 'A one.' },
      { id: `${id}:000001`, docId: id, chunkId: chunk, index: 1, start: 7, end: 13, text: 'A two.' },
    ],
  };
}

const done = (questions: string[]) =>
  ({ status: 'done', questions, attempts: 1, inputTokens: 10, outputTokens: 5, cost: 0 }) as const;

describe('atomic store', () => {
  it('schema v3 adds the atomic tables to v2', async () => {
    const db = openDatabase('v3', { indexedDB: new IDBFactory(), IDBKeyRange });
    await db.open();
    // Versions 4 (the library's pages) and 5 (the queue's bytes apart) follow at once: new tables only.
    expect(db.verno).toBe(5);
    expect(SCHEMA_V3).toEqual({
      ...SCHEMA_V2,
      atomicQuestions: 'id, chunkId, docId',
      atomicChunks: 'chunkId, docId, status',
    });
    expect(db.tables.map((t) => t.name).sort()).toEqual(
      [...Object.keys(SCHEMA_V3), 'pages', 'pendingBytes'].sort(),
    );
    db.close();
  });

  it('a v2 database opens as v3 with its documents, and no atomic layer', async () => {
    const deps = { indexedDB: new IDBFactory(), IDBKeyRange };
    const old = new Dexie('upgrade', deps);
    old.version(2).stores(SCHEMA_V2);
    await old.open();
    await old.table('settings').put({ key: 'k', value: 1 });
    old.close();
    const db = openDatabase('upgrade', deps);
    await db.open();
    expect(db.verno).toBe(5);
    expect(await db.settings.get('k')).toEqual({ key: 'k', value: 1 });
    expect(await db.atomicQuestions.count()).toBe(0);
    db.close();
  });

  it('commits a chunk’s questions with its state, replacing the ones it had; skips a removed chunk', async () => {
    const db = openDatabase('commit', { indexedDB: new IDBFactory(), IDBKeyRange });
    const repo = new Repo(db);
    await repo.putPreparedDocuments([{ prepared: prepared('a') }]);
    const store = new DexieAtomicStore(db, () => 7);
    const chunk = { id: 'a#0000#0000', docId: 'a' };
    await store.commit(chunk, done(['Q1?', 'Q2?']));
    await store.commit(chunk, done(['Q3?']));
    expect((await store.questions()).map((q) => [q.id, q.text])).toEqual([['a#0000#0000?0', 'Q3?']]);
    expect((await store.getStates([chunk.id])).get(chunk.id)).toMatchObject({
      status: 'done',
      questions: 1,
      updatedAt: 7,
    });
    await store.putVectors([{ id: 'a#0000#0000?0', vector: Float32Array.from([0.6, 0.8]) }]);
    expect(Array.from((await store.questions())[0].vector!)).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    // A chunk whose document is gone: nothing is written for it.
    await store.commit({ id: 'gone#0000#0000', docId: 'gone' }, done(['Q?']));
    expect(await store.getStates(['gone#0000#0000'])).toEqual(new Map());
  });

  it('removing a document removes exactly its atomic questions and states', async () => {
    const db = openDatabase('remove', { indexedDB: new IDBFactory(), IDBKeyRange });
    const repo = new Repo(db);
    await repo.putPreparedDocuments([{ prepared: prepared('a') }]);
    await repo.putPreparedDocuments([{ prepared: prepared('b') }]);
    const store = new DexieAtomicStore(db);
    await store.commit({ id: 'a#0000#0000', docId: 'a' }, done(['About a?', 'More a?']));
    await store.commit({ id: 'b#0000#0000', docId: 'b' }, done(['About b?']));
    await store.commit(
      { id: 'b#0000#0000', docId: 'b' },
      {
        status: 'failed',
        reason: 'atomizing: malformed output twice',
        attempts: 2,
        inputTokens: 1,
        outputTokens: 1,
        cost: 0,
      },
    );
    expect(await repo.removeDocument('a')).toBe(true);
    expect((await store.questions()).map((q) => q.text)).toEqual(['About b?']);
    expect((await store.states()).map((s) => [s.chunkId, s.status])).toEqual([['b#0000#0000', 'failed']]);
    expect(await repo.removeDocument('b')).toBe(true);
    expect(await db.atomicQuestions.count()).toBe(0);
    expect(await db.atomicChunks.count()).toBe(0);
  });
});
