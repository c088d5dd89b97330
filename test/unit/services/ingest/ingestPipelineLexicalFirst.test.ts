// Lexical first, embeddings fill in (issue 14): documents are stored and the lexical graph refreshed before any
// sentence is embedded; embedding resumes from the store after an interruption without embedding a stored
// document's sentences twice; a write the browser refuses (quota) or that hangs stops the run with a clear error,
// keeps the queue and every stored document complete, and a later run finishes the work.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../../../src/core/types.ts';
import { openDatabase, type ConceptDb } from '../../../../src/store/db.ts';
import { Repo } from '../../../../src/store/repo.ts';
import { IngestPipeline } from '../../../../src/services/ingest/ingestPipeline.ts';
import type { IngestEvent, LibraryCoverage } from '../../../../src/services/ingest/ingestProtocol.ts';
import { bytes, prepare } from './ingestFixtures.ts';

let n = 0;
const freshDb = (): ConceptDb =>
  openDatabase(`lexical-first-${n++}`, { indexedDB: new IDBFactory(), IDBKeyRange });

/** Counts the sentences it embeds; an aborted call (a cancel, a closed page) returns nothing and counts nothing. */
function countingEmbedder(onCall?: (call: number, signal?: AbortSignal) => void | Promise<void>) {
  const state = { embedded: 0, calls: 0 };
  const embedder: Embedder = {
    id: 'count@1',
    dimension: 2,
    async embed(texts, signal) {
      state.calls += 1;
      await onCall?.(state.calls, signal);
      signal?.throwIfAborted();
      state.embedded += texts.length;
      return Float32Array.from(texts.flatMap((t) => [t.length, 1]));
    },
  };
  return { embedder, state };
}

function pipelineOver(
  repo: Repo,
  embedder: Embedder,
  events: IngestEvent[] = [],
  storeTimeoutMs?: number,
  batchFiles?: number,
) {
  let graphs = 0;
  const pipeline = new IngestPipeline({
    repo,
    prepare,
    batchFiles,
    embedder: async () => embedder,
    rebuildGraph: async () => {
      graphs += 1;
    },
    emit: (e) => events.push(e),
    storeTimeoutMs,
  });
  return { pipeline, events, graphs: () => graphs };
}

/** `docs` documents of four sentences each, one per line. */
function lines(docs: number, prefix = 'p'): string {
  return Array.from(
    { length: docs },
    (_, i) => `${prefix}${i}: One ${i}. Two ${i}. Three ${i}. Four ${i}.`,
  ).join('\n');
}

const coverages = (events: IngestEvent[]): LibraryCoverage[] =>
  events.flatMap((e) => (e.type === 'coverage' ? [e.coverage] : []));

describe('lexical first', () => {
  it('stores the documents and refreshes the graph before any sentence is embedded', async () => {
    const repo = new Repo(freshDb());
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let countsWhileEmbedding: Awaited<ReturnType<Repo['counts']>> | undefined;
    let graphsWhileEmbedding = -1;
    const { embedder, state } = countingEmbedder(async (call) => {
      if (call === 1) {
        countsWhileEmbedding = await repo.counts();
        graphsWhileEmbedding = run.graphs();
        await gate;
      }
    });
    const run = pipelineOver(repo, embedder);
    await run.pipeline.enqueue([
      { name: 'one.txt', bytes: bytes('a: A1. A2.\nb: B1.') },
      { name: 'two.txt', bytes: bytes('c: C1. C2. C3.') },
    ]);
    const done = run.pipeline.ensureRunning();
    while (countsWhileEmbedding === undefined) await new Promise((r) => setTimeout(r, 5));
    // The embedder's first call: every document is stored and the lexical graph covers them, no vector yet.
    expect(countsWhileEmbedding).toMatchObject({ documents: 3, sentences: 6, vectors: 0, pending: 0 });
    expect(graphsWhileEmbedding).toBe(1);
    const searchable = coverages(run.events).at(-1);
    expect(searchable).toMatchObject({
      searchableDocuments: 3,
      searchableSentences: 6,
      embeddedSentences: 0,
    });
    release();
    await done;
    expect(state.embedded).toBe(6);
    expect(await repo.counts()).toMatchObject({ documents: 3, vectors: 6, embeddedDocuments: 3 });
    expect(coverages(run.events).at(-1)).toEqual({
      documents: 3,
      sentences: 6,
      searchableDocuments: 3,
      searchableSentences: 6,
      embeddedDocuments: 3,
      embeddedSentences: 6,
      // One chunk per document; this test's graph build stores no graph, so no concepts or edges are counted.
      chunks: 3,
      concepts: 0,
      edges: 0,
    });
    expect(run.graphs()).toBe(2);
    expect((await repo.getMeta())?.layers).toEqual({ lexical: true, semantic: true });
  });

  it('resumes embedding after an interruption without embedding a stored document twice', async () => {
    const db = freshDb();
    const repo = new Repo(db);
    // 100 documents × 4 sentences: batches of 128 sentences end on document boundaries.
    const first = countingEmbedder((call) => {
      // The page closes during the third embedder call: that call's answer never arrives.
      if (call === 3) void interrupted.pipeline.cancel();
    });
    const interrupted = pipelineOver(repo, first.embedder);
    await interrupted.pipeline.enqueue([{ name: 'passages.txt', bytes: bytes(lines(100)) }]);
    await interrupted.pipeline.ensureRunning();
    const midway = await repo.counts();
    expect(midway).toMatchObject({ documents: 100, sentences: 400, vectors: 256, embeddedDocuments: 64 });
    expect(first.state.embedded).toBe(256);

    // A new page over the same database (as after a reload) finishes the work.
    const second = countingEmbedder();
    const resumed = pipelineOver(new Repo(db), second.embedder);
    await resumed.pipeline.ensureRunning();
    expect(second.state.embedded).toBe(144);
    // Vectors alone do not tell the page the library changed (it would reload the query worker's library per
    // batch): only the graph rebuild with the semantic layer and the end of the run do; coverage tells the counts.
    expect(resumed.events.filter((e) => e.type === 'changed')).toHaveLength(2);
    expect(coverages(resumed.events).at(-1)).toMatchObject({ embeddedSentences: 400 });
    expect(first.state.embedded + second.state.embedded).toBe(400);
    expect(await repo.counts()).toMatchObject({ vectors: 400, embeddedDocuments: 100 });
    // Every stored row is the vector of its own sentence ("One 7." has length 6 → (6, 1) normalized).
    const corpus = await repo.loadCorpus();
    for (const s of corpus.sentences) {
      const rows = corpus.vectors.get(s.docId)!;
      const [x, y] = [rows[s.index * 2], rows[s.index * 2 + 1]];
      expect(x / y).toBeCloseTo(s.text.length, 0);
    }
  });

  it('parses files dropped while a backlog is embedded before going on embedding', async () => {
    const repo = new Repo(freshDb());
    const late: { pipeline?: IngestPipeline } = {};
    const { embedder } = countingEmbedder(async (call) => {
      if (call === 1) await late.pipeline?.enqueue([{ name: 'late.txt', bytes: bytes('z: Z1. Z2.') }]);
    });
    const run = pipelineOver(repo, embedder);
    late.pipeline = run.pipeline;
    // 600 documents: 2400 sentences, three embedding rounds.
    await run.pipeline.enqueue([{ name: 'big.txt', bytes: bytes(lines(600)) }]);
    await run.pipeline.ensureRunning();
    const stored = run.events.findIndex((e) => e.type === 'file' && e.outcome.file === 'late.txt');
    const embeddedBefore = coverages(run.events.slice(0, stored)).at(-1)?.embeddedSentences ?? 0;
    // Stored after the first round (1024 sentences), long before the 2400 sentences were embedded.
    expect(embeddedBefore).toBe(1024);
    expect(await repo.counts()).toMatchObject({ documents: 601, vectors: 2402 });
  });
});

describe('a write the browser refuses or never finishes', () => {
  it('stops at a full disk with a clear error naming the file, keeps the queue, and resumes later', async () => {
    const db = freshDb();
    const repo = new Repo(db);
    const put = repo.putPreparedDocuments.bind(repo);
    let puts = 0;
    repo.putPreparedDocuments = async (...args) => {
      puts += 1;
      // Dexie reports a quota failure inside a transaction as an AbortError wrapping it as `inner`.
      if (puts === 2) {
        throw Object.assign(new Error('Transaction aborted'), {
          name: 'AbortError',
          inner: Object.assign(new Error('quota exceeded'), { name: 'QuotaExceededError' }),
        });
      }
      return put(...args);
    };
    const first = countingEmbedder();
    // Every file alone (a transaction each), so the second write is the second file's (batches: ingestBatch.test.ts).
    const run = pipelineOver(repo, first.embedder, [], undefined, 1);
    await run.pipeline.enqueue([
      { name: 'one.txt', bytes: bytes('a: A1. A2.') },
      { name: 'two.txt', bytes: bytes('b: B1.') },
      { name: 'three.txt', bytes: bytes('c: C1. C2. C3.') },
    ]);
    await run.pipeline.ensureRunning();
    const error = run.events.find((e) => e.type === 'error');
    expect(error).toMatchObject({ type: 'error', cause: 'storage-full', file: 'two.txt' });
    expect(error?.type === 'error' && error.message).toContain(
      'the browser refused to store more: storage is full for this site (while storing "two.txt")',
    );
    expect(run.events.at(-1)).toEqual({ type: 'idle', cancelled: false });
    // No file is blamed; the rest of the queue waits, uncounted towards the crash-loop limit.
    const files = run.events.flatMap((e) => (e.type === 'file' ? [[e.outcome.file, e.outcome.status]] : []));
    expect(files).toEqual([['one.txt', 'indexed']]);
    const pending = await repo.pendingSummary();
    expect(pending.map((p) => [p.name, p.status])).toEqual([
      ['two.txt', 'queued'],
      ['three.txt', 'queued'],
    ]);
    expect((await db.pending.toArray()).map((p) => p.attempts ?? 0)).toEqual([0, 0]);
    expect(await repo.counts()).toMatchObject({ documents: 1, sentences: 2 });

    // Space is freed; the next run stores the rest, and embeds only what was not embedded.
    repo.putPreparedDocuments = put;
    const second = countingEmbedder();
    await pipelineOver(repo, second.embedder).pipeline.ensureRunning();
    expect(await repo.counts()).toMatchObject({ documents: 3, sentences: 6, vectors: 6, pending: 0 });
    expect(first.state.embedded + second.state.embedded).toBe(6);
  });

  it('stops when a vector write never settles, with every stored document complete, and resumes', async () => {
    const db = freshDb();
    const repo = new Repo(db);
    const putVectors = repo.putDocumentVectors.bind(repo);
    repo.putDocumentVectors = () => new Promise<string[]>(() => {});
    const first = countingEmbedder();
    // 1 s: the hung vector write reaches it; the document writes before it are not stopped by a busy machine either,
    // since the store answers meanwhile (storageGuard.ts). The hung write is stopped at ten times the limit.
    const run = pipelineOver(repo, first.embedder, [], 1_000);
    await run.pipeline.enqueue([{ name: 'one.txt', bytes: bytes('a: A1. A2.\nb: B1.') }]);
    await run.pipeline.ensureRunning();
    const error = run.events.find((e) => e.type === 'error');
    expect(error).toMatchObject({ type: 'error', cause: 'storage-timeout', file: 'one.txt' });
    expect(error?.type === 'error' && error.message).toContain(
      'the browser did not finish storing the vectors of "one.txt" within 10 s (its storage answered meanwhile; this write did not end)',
    );
    expect(await repo.counts()).toMatchObject({ documents: 2, sentences: 3, vectors: 0, pending: 0 });

    repo.putDocumentVectors = putVectors;
    await pipelineOver(repo, countingEmbedder().embedder).pipeline.ensureRunning();
    expect(await repo.counts()).toMatchObject({ documents: 2, vectors: 3, embeddedDocuments: 2 });
  });
});
