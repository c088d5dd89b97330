// The hostile-input batch over the real ingest pipeline (real prepareFile, fake embedder, fake-indexeddb): each file
// gets its verdict, the ordinary files are indexed and the failures leave the store as it was. Run on one file of
// each verdict and reason in the default tier (test/unit/services/ingest/hostileIngest.test.ts) and on the whole
// corpus in the scale tier (hostileIngest.scale.test.ts).
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { expect } from 'vitest';
import { prepareFile } from '../../src/core/prepare.ts';
import type { Embedder } from '../../src/core/types.ts';
import { IngestPipeline } from '../../src/services/ingest/ingestPipeline.ts';
import type { FileOutcome, IngestEvent } from '../../src/services/ingest/ingestProtocol.ts';
import { openDatabase } from '../../src/store/db.ts';
import { Repo } from '../../src/store/repo.ts';
import type { HostileFile } from './hostileCorpus.ts';

const embedder: Embedder = {
  id: 'fake@1',
  dimension: 2,
  async embed(texts) {
    return Float32Array.from(texts.flatMap((t) => [Math.min(t.length, 1000), 1]));
  },
};

/** Everything stored about documents (not the queue): what a failure must leave untouched. */
async function storeSnapshot(repo: Repo) {
  const db = repo.db;
  return {
    documents: (await db.documents.toArray()).map((d) => [d.id, d.title, d.text.length]),
    chunks: await db.chunks.count(),
    sentences: await db.sentences.count(),
    vectors: (await db.vectors.toArray()).map((v) => [v.docId, v.count]),
  };
}

/** Drops `corpus` in one batch on a library of one document and checks every file's verdict and the store. */
export async function checkHostileBatch(corpus: readonly HostileFile[]): Promise<void> {
  const repo = new Repo(openDatabase('hostile', { indexedDB: new IDBFactory(), IDBKeyRange }));
  const events: IngestEvent[] = [];
  const pipeline = new IngestPipeline({
    repo,
    prepare: prepareFile,
    embedder: async () => embedder,
    rebuildGraph: async () => {},
    emit: (e) => events.push(e),
    // fake-indexeddb on a shared CI core takes tens of seconds for a file of 100k sentences: the store's time
    // limit (meant for a browser whose writes hang) is not what this measures.
    storeTimeoutMs: 600_000,
  });
  const outcomes = (): FileOutcome[] => events.flatMap((e) => (e.type === 'file' ? [e.outcome] : []));
  // A library with one document already in it: the batch's failures must leave it exactly as it was.
  const before = new TextEncoder().encode('The old bridge was rebuilt in stone.');
  await pipeline.enqueue([{ name: 'before.txt', bytes: before.buffer as ArrayBuffer }]);
  await pipeline.ensureRunning();
  const stored = await storeSnapshot(repo);

  await pipeline.enqueue(corpus.map((f) => ({ name: f.name, bytes: f.bytes.slice().buffer as ArrayBuffer })));
  await pipeline.ensureRunning();

  const byFile = new Map(outcomes().map((o) => [o.file, o]));
  for (const file of corpus) {
    const outcome = byFile.get(file.name);
    expect(outcome, file.name).toBeDefined();
    expect([file.name, outcome!.status]).toEqual([file.name, file.expect]);
    if (file.reason) expect(outcome!.reason, file.name).toMatch(file.reason);
  }
  const after = await storeSnapshot(repo);
  // The earlier document is intact, and the only new documents are those of files that were indexed.
  expect(after.documents).toEqual(expect.arrayContaining(stored.documents));
  expect(after.vectors).toEqual(expect.arrayContaining(stored.vectors));
  const indexedDocuments = corpus
    .filter((f) => f.expect === 'indexed')
    .reduce((n, f) => n + byFile.get(f.name)!.documents, 0);
  expect(after.documents.length).toBe(stored.documents.length + indexedDocuments);
  // The queue keeps the failed files with their reasons and without their bytes; nothing is left waiting.
  const pending = await repo.db.pending.toArray();
  expect(pending.every((p) => p.status === 'failed' && p.bytes.byteLength === 0)).toBe(true);
  expect(pending.map((p) => p.name).sort()).toEqual(
    corpus
      .filter((f) => f.expect === 'failed')
      .map((f) => f.name)
      .sort(),
  );
}
