// The ingest pipeline on fake-indexeddb with a scripted parser and embedder: lexical first (documents stored and
// the graph refreshed before any sentence is embedded), batches across documents, per-file errors that do not
// stop the batch, the size limit, embedder mismatch, cancellation, resuming a queue and an embedding backlog.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { embedDocuments } from '../../../../src/core/pipeline/embedDocuments.ts';
import type { Embedder } from '../../../../src/core/types.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { Repo } from '../../../../src/store/repo.ts';
import { IngestPipeline } from '../../../../src/services/ingest/ingestPipeline.ts';
import { BATCH_FILES } from '../../../../src/services/ingest/queueStore.ts';
import { MAX_FILE_BYTES } from '../../../../src/services/ingest/ingestProtocol.ts';
import type { IngestEvent } from '../../../../src/services/ingest/ingestProtocol.ts';
import { bytes, fakeEmbedder, prepare } from './ingestFixtures.ts';

function setup(embedder: Embedder = fakeEmbedder(), graphRefreshMs?: number) {
  const repo = new Repo(openDatabase('t', { indexedDB: new IDBFactory(), IDBKeyRange }));
  const events: IngestEvent[] = [];
  let graphBuilds = 0;
  const pipeline = new IngestPipeline(
    {
      repo,
      prepare,
      embedder: async () => embedder,
      rebuildGraph: async () => {
        graphBuilds += 1;
      },
      emit: (e) => events.push(e),
    },
    graphRefreshMs,
  );
  return { repo, events, pipeline, graphBuilds: () => graphBuilds };
}

const outcomes = (events: IngestEvent[]) => events.flatMap((e) => (e.type === 'file' ? [e.outcome] : []));

describe('embedDocuments with a batch hand-over (the worker’s use)', () => {
  it('fills batches across documents and hands over complete documents in order', async () => {
    const { documents } = await prepare(
      'x',
      new Uint8Array(bytes('a: A1. A2. A3.\nb: B1. B2.\nc: C1. C2. C3. C4.')),
      {
        maxChunkTokens: 1200,
      },
    );
    const embedder = fakeEmbedder();
    const handed: [string, number[]][] = [];
    const progress: number[] = [];
    const writes: number[] = [];
    await embedDocuments(documents, embedder, {
      signal: new AbortController().signal,
      onProgress: (p) => progress.push(p.done),
      onDocuments: async (completed) => {
        handed.push(
          ...completed.map((c): [string, number[]] => [c.prepared.doc.title, Array.from(c.vectors)]),
        );
        writes.push(completed.length);
      },
      batchSize: 4,
    });
    expect(embedder.batches).toEqual([4, 4, 1]);
    expect(progress).toEqual([4, 8, 9]);
    // Batch 1 completes a; batch 2 completes b (c is half done); batch 3 completes c.
    expect(writes).toEqual([1, 1, 1]);
    expect(handed).toEqual([
      ['a', [3, 1, 3, 1, 3, 1]],
      ['b', [3, 1, 3, 1]],
      ['c', [3, 1, 3, 1, 3, 1, 3, 1]],
    ]);
  });

  it('lets the write in flight finish before a cancel propagates', async () => {
    const { documents } = await prepare('x', new Uint8Array(bytes('a: A1.\nb: B1.\nc: C1.')), {
      maxChunkTokens: 1200,
    });
    const controller = new AbortController();
    const log: string[] = [];
    const run = embedDocuments(documents, fakeEmbedder(), {
      signal: controller.signal,
      onDocuments: async (completed) => {
        log.push(`write ${completed[0].prepared.doc.title} started`);
        // The user cancels while this write is still running.
        controller.abort(new Error('cancelled'));
        await new Promise((r) => setTimeout(r, 30));
        log.push(`write ${completed[0].prepared.doc.title} done`);
      },
      batchSize: 1,
    });
    await expect(run).rejects.toThrow('cancelled');
    log.push('run rejected');
    expect(log).toEqual(['write a started', 'write a done', 'run rejected']);
  });

  it('refuses an embedder that returns the wrong number of floats', async () => {
    const { documents } = await prepare('x', new Uint8Array(bytes('a: A1. A2.')), { maxChunkTokens: 1200 });
    const broken: Embedder = { id: 'broken', dimension: 2, embed: async () => new Float32Array(3) };
    await expect(
      embedDocuments(documents, broken, {
        signal: new AbortController().signal,
        onDocuments: async () => {},
      }),
    ).rejects.toThrow('embedDocuments: embedder broken returned 3 floats for 2 texts');
  });
});

describe('IngestPipeline', () => {
  it('indexes a batch, reports a per-file error for the bad file and goes on, and rebuilds the graph after the queue', async () => {
    const { repo, events, pipeline, graphBuilds } = setup();
    await pipeline.enqueue([
      { name: 'one.txt', bytes: bytes('a: A1. A2.\nb: B1.') },
      { name: 'bad.pdf', bytes: bytes('BAD bytes') },
      { name: 'two.txt', bytes: bytes('c: C1. C2. C3.') },
    ]);
    await pipeline.ensureRunning();
    expect(outcomes(events)).toEqual([
      { file: 'one.txt', status: 'indexed', documents: 2, reason: undefined },
      { file: 'bad.pdf', status: 'failed', documents: 0, reason: 'bad.pdf: not a real format' },
      { file: 'two.txt', status: 'indexed', documents: 1, reason: undefined },
    ]);
    expect(await repo.counts()).toMatchObject({
      documents: 3,
      chunks: 3,
      sentences: 6,
      vectors: 6,
      pending: 0,
    });
    expect((await repo.pendingSummary()).map((p) => [p.name, p.status])).toEqual([['bad.pdf', 'failed']]);
    // For the lexical layer once the first file is stored (an empty library's first refresh comes at its first
    // batch; bad.pdf may need OCR, so it is stored alone, after one.txt) and once the queue is, once more when every
    // sentence has its vector.
    expect(graphBuilds()).toBe(3);
    expect(events.at(-1)).toEqual({ type: 'idle', cancelled: false });
    const embed = events.filter((e) => e.type === 'progress' && e.progress.stage === 'embed');
    expect(embed.at(-1)).toMatchObject({ progress: { stage: 'embed', done: 6, total: 6 } });
  });

  it('frees the embedder once every sentence has its vector, before the semantic rebuild, and loads it again for new files', async () => {
    const repo = new Repo(openDatabase('t', { indexedDB: new IDBFactory(), IDBKeyRange }));
    const log: string[] = [];
    const embedder = fakeEmbedder();
    const pipeline = new IngestPipeline({
      repo,
      prepare,
      embedder: async () => {
        log.push('load');
        return embedder;
      },
      releaseEmbedder: async () => {
        log.push('release');
      },
      rebuildGraph: async (r) => {
        const c = await r.layerCounts();
        log.push(`graph ${c.embeddedSentences}/${c.sentences}`);
      },
      emit: () => undefined,
    });
    await pipeline.enqueue([{ name: 'one.txt', bytes: bytes('a: A1. A2.\nb: B1.') }]);
    await pipeline.ensureRunning();
    // The lexical graph, the vectors, then the model freed before the semantic layer's rebuild; once.
    expect(log).toEqual(['load', 'graph 0/3', 'release', 'graph 3/3']);
    await pipeline.enqueue([{ name: 'two.txt', bytes: bytes('c: C1.') }]);
    await pipeline.ensureRunning();
    expect(log.slice(4)).toEqual(['load', 'graph 3/4', 'release', 'graph 4/4']);
    expect((await repo.counts()).vectors).toBe(4);
  });

  it('reports a file already in the library as a duplicate', async () => {
    const { events, pipeline } = setup();
    await pipeline.enqueue([{ name: 'one.txt', bytes: bytes('a: A1.') }]);
    await pipeline.ensureRunning();
    await pipeline.enqueue([{ name: 'copy.txt', bytes: bytes('a: A1.') }]);
    await pipeline.ensureRunning();
    expect(outcomes(events).map((o) => [o.file, o.status])).toEqual([
      ['one.txt', 'indexed'],
      ['copy.txt', 'duplicate'],
    ]);
  });

  it('refuses a file over the size limit without parsing it', async () => {
    const { events, pipeline, repo } = setup();
    await pipeline.enqueue([{ name: 'huge.txt', bytes: new ArrayBuffer(MAX_FILE_BYTES + 1) }]);
    await pipeline.ensureRunning();
    expect(outcomes(events)).toEqual([
      {
        file: 'huge.txt',
        status: 'failed',
        documents: 0,
        reason: 'file too large (20.0 MB; the limit is 20 MB)',
      },
    ]);
    expect((await repo.counts()).documents).toBe(0);
  });

  it('stores files for an embedder other than the library’s, but refuses their vectors with the reason', async () => {
    const { repo } = setup();
    const first = new IngestPipeline({
      repo,
      prepare,
      embedder: async () => fakeEmbedder('first@1'),
      rebuildGraph: async () => {},
      emit: () => {},
    });
    await first.enqueue([{ name: 'one.txt', bytes: bytes('a: A1.') }]);
    await first.ensureRunning();
    const events: IngestEvent[] = [];
    const second = new IngestPipeline({
      repo,
      prepare,
      embedder: async () => fakeEmbedder('second@1'),
      rebuildGraph: async () => {},
      emit: (e) => events.push(e),
    });
    await second.enqueue([{ name: 'two.txt', bytes: bytes('b: B1.') }]);
    await second.ensureRunning();
    // Searchable by its words at once; the vectors of another embedder never enter the library.
    expect(outcomes(events)[0]).toMatchObject({ file: 'two.txt', status: 'indexed' });
    const error = events.find((e) => e.type === 'error');
    expect(error?.type === 'error' && error.message).toContain(
      '"second@1": this library was built with "first@1"',
    );
    expect(await repo.counts()).toMatchObject({ documents: 2, vectors: 1, embeddedDocuments: 1 });
    expect(await repo.documentsAwaitingVectors()).toEqual(['d-b']);
  });

  it('cancels while embedding: stops, drops the queue, keeps the stored documents, embeds them on the next run', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { repo, events, pipeline } = setup(fakeEmbedder('fake@1', gate));
    await pipeline.enqueue([
      { name: 'one.txt', bytes: bytes('a: A1. A2.') },
      { name: 'two.txt', bytes: bytes('b: B1.') },
    ]);
    const run = pipeline.ensureRunning();
    // Cancel once both documents are stored (the embedder is held at its gate meanwhile).
    while (!events.some((e) => e.type === 'coverage' && e.coverage.documents === 2)) {
      await new Promise((r) => setTimeout(r, 5));
    }
    const cancelling = pipeline.cancel();
    release();
    await cancelling;
    await run;
    expect(events.at(-2)).toEqual({ type: 'idle', cancelled: true });
    expect(await repo.pendingSummary()).toEqual([]);
    // Both documents were stored whole before embedding began; none has vectors.
    expect(await repo.counts()).toMatchObject({ documents: 2, sentences: 3, vectors: 0 });
    const next = new IngestPipeline({
      repo,
      prepare,
      embedder: async () => fakeEmbedder(),
      rebuildGraph: async () => {},
      emit: () => {},
    });
    await next.ensureRunning();
    expect(await repo.counts()).toMatchObject({ documents: 2, vectors: 3, embeddedDocuments: 2 });
  });

  it('resumes files left queued or working by a reload', async () => {
    const { repo, events, pipeline } = setup();
    const [a, b] = await repo.enqueue([
      { name: 'one.txt', bytes: bytes('a: A1.') },
      { name: 'two.txt', bytes: bytes('b: B1. B2.') },
    ]);
    // Started (its start counted), then the page reloaded before it was stored.
    await repo.startPending(a);
    void b;
    await pipeline.ensureRunning();
    expect(outcomes(events).map((o) => [o.file, o.status])).toEqual([
      ['one.txt', 'indexed'],
      ['two.txt', 'indexed'],
    ]);
    expect(await repo.counts()).toMatchObject({ documents: 2, vectors: 3, pending: 0 });
  });

  it('stores the files when the embedder cannot load, and says why they are not embedded', async () => {
    const { repo } = setup();
    const events: IngestEvent[] = [];
    const pipeline = new IngestPipeline({
      repo,
      prepare,
      embedder: async () => {
        throw new Error('embedder: could not load "hf:/models/missing/": HTTP 404');
      },
      rebuildGraph: async () => {},
      emit: (e) => events.push(e),
    });
    await pipeline.enqueue([
      { name: 'one.txt', bytes: bytes('a: A1.') },
      { name: 'two.txt', bytes: bytes('b: B1.') },
    ]);
    await pipeline.ensureRunning();
    expect(outcomes(events).map((o) => [o.file, o.status])).toEqual([
      ['one.txt', 'indexed'],
      ['two.txt', 'indexed'],
    ]);
    const error = events.find((e) => e.type === 'error');
    expect(error?.type === 'error' && error.message).toContain(
      'cannot be embedded: embedder: could not load "hf:/models/missing/": HTTP 404',
    );
    expect(await repo.waitingCount()).toBe(0);
    expect(await repo.counts()).toMatchObject({ documents: 2, vectors: 0 });
    expect(events.at(-1)).toEqual({ type: 'idle', cancelled: false });
  });

  it('rebuilds the graph during a long batch, not only at its end', async () => {
    // Refresh interval 0: after every batch of files that stored something (small files are stored BATCH_FILES
    // at a time, so two batches here), plus once when the vectors are all in.
    const { pipeline, graphBuilds } = setup(fakeEmbedder(), 0);
    await pipeline.enqueue(
      Array.from({ length: BATCH_FILES + 1 }, (_, i) => ({
        name: `f${i}.txt`,
        bytes: bytes(`d${i}: S${i}.`),
      })),
    );
    await pipeline.ensureRunning();
    expect(graphBuilds()).toBe(3);
  });

  it('removes a document and rebuilds the graph of what remains in a run that ends idle', async () => {
    const { repo, events, pipeline, graphBuilds } = setup();
    await pipeline.enqueue([{ name: 'one.txt', bytes: bytes('a: A1.\nb: B1.') }]);
    await pipeline.ensureRunning();
    events.length = 0;
    expect(await pipeline.removeDocuments(['d-a'])).toBe(1);
    expect(await repo.counts()).toMatchObject({ documents: 1, vectors: 1 });
    await pipeline.ensureRunning();
    expect(graphBuilds()).toBe(3);
    // The refresh is a run of its own: its graph progress is followed by 'idle' (the page's "indexing…" ends).
    const graph = events.findIndex((e) => e.type === 'progress' && e.progress.stage === 'graph');
    expect(graph).toBeGreaterThanOrEqual(0);
    expect(events.at(-1)).toEqual({ type: 'idle', cancelled: false });
    expect(pipeline.isRunning).toBe(false);
  });

  it('removes several documents at once with one refresh, and an emptied library ends idle', async () => {
    const { repo, events, pipeline, graphBuilds } = setup();
    await pipeline.enqueue([{ name: 'one.txt', bytes: bytes('a: A1.\nb: B1.\nc: C1.') }]);
    await pipeline.ensureRunning();
    const before = graphBuilds();
    expect(await pipeline.removeDocuments(['d-a', 'd-b', 'missing'])).toBe(2);
    await pipeline.ensureRunning();
    expect(graphBuilds()).toBe(before + 1);
    events.length = 0;
    expect(await pipeline.removeDocuments(['d-c'])).toBe(1);
    await pipeline.ensureRunning();
    expect(await repo.counts()).toMatchObject({ documents: 0, vectors: 0 });
    expect(events.at(-1)).toEqual({ type: 'idle', cancelled: false });
    // Nothing removed: no run.
    events.length = 0;
    expect(await pipeline.removeDocuments(['d-c'])).toBe(0);
    expect(pipeline.isRunning).toBe(false);
    expect(events.filter((e) => e.type === 'idle')).toEqual([]);
  });
});
