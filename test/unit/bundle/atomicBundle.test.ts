// The atomic layer in bundles (format 2): exported and imported with the library, version 1 bundles still open
// (with no atomic layer), and the merge rule (bundle import and `cli index --into`) moves questions with their
// chunks and keeps the base's questions of a chunk it has already atomized.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { readIndexBundle } from '../../../src/core/bundle/index.ts';
import { mergeSnapshots } from '../../../src/core/bundle/merge.ts';
import { indexParts, manifestBase } from '../../../src/core/bundle/snapshot.ts';
import { writeBundle } from '../../../src/core/bundle/writer.ts';
import { bundleAtomicIndex } from '../../../src/services/library/readOnlyBundle.ts';
import { DexieAtomicStore } from '../../../src/store/atomicStore.ts';
import { exportLibraryBlob } from '../../../src/store/bundleExport.ts';
import { importBundle } from '../../../src/store/bundleImport.ts';
import { openDatabase, type ConceptDb } from '../../../src/store/db.ts';
import { Repo } from '../../../src/store/repo.ts';
import { DOCS, EMBEDDER, fakeVector, prepared, snapshotOf } from './fixtures.ts';
import { putPreparedDocument } from '../../support/putOneDocument.ts';

let n = 0;
const freshDb = (): ConceptDb =>
  openDatabase(`atomic-bundle-${n++}`, { indexedDB: new IDBFactory(), IDBKeyRange });
const chunkOf = (i: number) => `${DOCS[i].id}#0000#0000`;
const done = (questions: string[]) =>
  ({ status: 'done', questions, attempts: 1, inputTokens: 40, outputTokens: 12, cost: 0 }) as const;

async function library(atomized: Record<number, string[]>, docs = DOCS): Promise<ConceptDb> {
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
  const store = new DexieAtomicStore(db, () => 1);
  for (const [i, questions] of Object.entries(atomized)) {
    await store.commit({ id: chunkOf(Number(i)), docId: DOCS[Number(i)].id }, done(questions));
  }
  await store.putVectors((await store.questions()).map((q) => ({ id: q.id, vector: fakeVector(q.text) })));
  return db;
}

async function bytesOf(blob: Blob): Promise<Uint8Array> {
  return new Uint8Array(await blob.arrayBuffer());
}

async function collect(gen: AsyncGenerator<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const p of gen) parts.push(p);
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe('atomic layer in bundles', () => {
  it('round-trips: exported as format 3 (2 added the atomic layer) with its questions, states and vectors, imported into an empty library', async () => {
    const db = await library({
      0: ['Who was king of Lotharingia?', 'Whom did Lothair II marry?'],
      2: ['What is the capital of Trinidad and Tobago?'],
    });
    const bytes = await bytesOf(await exportLibraryBlob(db, { appVersion: 'test' }));
    expect(new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true)).toBe(3);
    const target = freshDb();
    await importBundle(target, bytes);
    const questions = await new DexieAtomicStore(target).questions();
    expect(questions.map((q) => [q.id, q.docId, q.text])).toEqual([
      [`${chunkOf(0)}?0`, DOCS[0].id, 'Who was king of Lotharingia?'],
      [`${chunkOf(0)}?1`, DOCS[0].id, 'Whom did Lothair II marry?'],
      [`${chunkOf(2)}?0`, DOCS[2].id, 'What is the capital of Trinidad and Tobago?'],
    ]);
    expect(Array.from(questions[2].vector!)).toEqual(
      Array.from(fakeVector('What is the capital of Trinidad and Tobago?')),
    );
    expect((await target.atomicChunks.toArray()).map((s) => [s.chunkId, s.status, s.questions])).toEqual([
      [chunkOf(0), 'done', 2],
      [chunkOf(2), 'done', 1],
    ]);
    // Read-only (?bundle=, cli ask): the same questions as an index.
    const snapshot = await readIndexBundle(bytes, EMBEDDER);
    expect(bundleAtomicIndex(snapshot.tables)?.size).toBe(3);
  });

  it('a format 1 bundle still opens and imports, with no atomic layer', async () => {
    const snapshot = snapshotOf();
    const v1 = await collect(
      writeBundle(indexParts(snapshot, { appVersion: 'old' }), manifestBase(snapshot, 'old'), {
        formatVersion: 1,
      }),
    );
    expect(new DataView(v1.buffer, v1.byteOffset).getUint32(8, true)).toBe(1);
    const read = await readIndexBundle(v1, EMBEDDER);
    expect(read.documents).toHaveLength(3);
    expect(bundleAtomicIndex(read.tables)).toBeNull();
    const db = freshDb();
    const result = await importBundle(db, v1);
    expect(result).toMatchObject({ mode: 'new' });
    expect(await db.documents.count()).toBe(3);
    expect(await db.atomicQuestions.count()).toBe(0);
    expect(await db.kgEntities.count()).toBe(1);
  });

  it('import into a library: a chunk already atomized keeps its questions, a new document brings its own', async () => {
    const base = await library({ 0: ['Base question?'] }, DOCS.slice(0, 1));
    const other = await library(
      { 0: ['Bundle question?'], 1: ['Who was the mother of Lothair II?'] },
      DOCS.slice(0, 2),
    );
    await importBundle(base, await bytesOf(await exportLibraryBlob(other, { appVersion: 'test' })));
    const questions = await new DexieAtomicStore(base).questions();
    expect(questions.map((q) => [q.chunkId, q.text]).sort()).toEqual([
      [chunkOf(0), 'Base question?'],
      [chunkOf(1), 'Who was the mother of Lothair II?'],
    ]);
  });

  it('merge (cli index --into): a question moves with its chunk to the merged chunk id and document', () => {
    const base = snapshotOf(DOCS.slice(0, 1), false);
    // The same text under another document id: its chunk is the base's chunk in the merged library.
    const renamed = { ...DOCS[0], id: 'dffffffffffffffff' };
    const add = snapshotOf([renamed, DOCS[1]], false);
    add.documents[0] = { ...add.documents[0], hash: base.documents[0].hash };
    add.tables.atomicQuestions = [
      {
        id: 'dffffffffffffffff#0000#0000?0',
        chunkId: 'dffffffffffffffff#0000#0000',
        docId: renamed.id,
        text: 'Q renamed?',
      },
      { id: `${chunkOf(1)}?0`, chunkId: chunkOf(1), docId: DOCS[1].id, text: 'Q new?' },
    ];
    add.tables.atomicChunks = [
      { chunkId: 'dffffffffffffffff#0000#0000', docId: renamed.id, status: 'done', questions: 1 },
      { chunkId: chunkOf(1), docId: DOCS[1].id, status: 'done', questions: 1 },
    ];
    const merged = mergeSnapshots(base, add);
    expect(merged.documents.map((d) => d.id)).toEqual([DOCS[0].id, DOCS[1].id]);
    expect(merged.tables.atomicQuestions).toEqual([
      { id: `${chunkOf(0)}?0`, chunkId: chunkOf(0), docId: DOCS[0].id, text: 'Q renamed?' },
      { id: `${chunkOf(1)}?0`, chunkId: chunkOf(1), docId: DOCS[1].id, text: 'Q new?' },
    ]);
    expect(merged.tables.atomicChunks).toEqual([
      { chunkId: chunkOf(0), docId: DOCS[0].id, status: 'done', questions: 1 },
      { chunkId: chunkOf(1), docId: DOCS[1].id, status: 'done', questions: 1 },
    ]);
  });
});
