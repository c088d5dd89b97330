// Small files in batches (IngestPipeline.storeBatch): one parse call and one transaction for many files, while
// each file keeps its own outcome and progress, a bad file fails alone, a batch that cannot be parsed as a whole
// goes file by file, a full disk stops the run with the whole batch still queued, Cancel drops it, and a reload
// in the middle of a batch resumes it file by file.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import type { FileOutcome, IngestEvent } from '../../../../src/services/ingest/ingestProtocol.ts';
import { IngestPipeline, type IngestDeps } from '../../../../src/services/ingest/ingestPipeline.ts';
import { BATCH_FILES } from '../../../../src/services/ingest/queueStore.ts';
import type { PrepareManyFn } from '../../../../src/services/ingest/limitedParse.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { Repo } from '../../../../src/store/repo.ts';
import { bytes, fakeEmbedder, prepare } from './ingestFixtures.ts';

let n = 0;
const freshRepo = () => new Repo(openDatabase(`batch-${n++}`, { indexedDB: new IDBFactory(), IDBKeyRange }));

/** The fixture parser over a batch, as the parse worker's prepareMany: a file that throws gets its error. */
function batchParser(calls: number[]): PrepareManyFn {
  return async (files, options) => {
    calls.push(files.length);
    const out: Awaited<ReturnType<PrepareManyFn>> = [];
    for (const f of files) {
      try {
        out.push(await prepare(f.name, f.bytes, options));
      } catch (error) {
        out.push({ error: (error as Error).message });
      }
    }
    return out;
  };
}

function pipelineOver(repo: Repo, deps: Partial<IngestDeps> = {}) {
  const events: IngestEvent[] = [];
  const pipeline = new IngestPipeline({
    repo,
    prepare,
    embedder: async () => fakeEmbedder(),
    rebuildGraph: async () => undefined,
    emit: (e) => events.push(e),
    ...deps,
  });
  return { pipeline, events };
}

const outcomes = (events: IngestEvent[]): FileOutcome[] =>
  events.flatMap((e) => (e.type === 'file' ? [e.outcome] : []));

/** `count` one-document files f0.txt … */
const files = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    name: `f${i}.txt`,
    bytes: bytes(`d${i}: S${i} one. S${i} two.`),
  }));

describe('ingest in batches of small files', () => {
  it('parses and stores many files per call and transaction; each file keeps its outcome, a bad one fails alone', async () => {
    const repo = freshRepo();
    const calls: number[] = [];
    const transactions: number[] = [];
    const put = repo.putParsedFiles.bind(repo);
    repo.putParsedFiles = async (...args) => {
      transactions.push(args[0].length + (args[1]?.length ?? 0));
      return put(...args);
    };
    const { pipeline, events } = pipelineOver(repo, { prepareMany: batchParser(calls) });
    const input = files(BATCH_FILES + 8);
    input[5] = { name: 'bad.docx', bytes: bytes('BAD') }; // (a PDF would be parsed alone: it may need OCR)
    input[9] = { name: 'empty.txt', bytes: bytes('') };
    await pipeline.enqueue(input);
    await pipeline.ensureRunning();

    // Two batches: BATCH_FILES files, then 8; one parse call and one transaction each.
    expect(calls).toEqual([BATCH_FILES, 8]);
    expect(transactions).toEqual([BATCH_FILES, 8]);
    // One outcome per file, in queue order; the two unreadable files fail with their reasons, the rest are in.
    expect(outcomes(events).map((o) => o.file)).toEqual(input.map((f) => f.name));
    const failed = outcomes(events).filter((o) => o.status === 'failed');
    expect(failed).toEqual([
      { file: 'bad.docx', status: 'failed', documents: 0, reason: 'bad.docx: not a real format' },
      { file: 'empty.txt', status: 'failed', documents: 0, reason: 'no text found' },
    ]);
    expect(outcomes(events).filter((o) => o.status === 'indexed')).toHaveLength(input.length - 2);
    expect(await repo.counts()).toMatchObject({
      documents: input.length - 2,
      sentences: 2 * (input.length - 2),
    });
    // The failed files stay listed with their reasons; nothing else waits.
    expect((await repo.pendingSummary()).map((p) => [p.name, p.status])).toEqual([
      ['bad.docx', 'failed'],
      ['empty.txt', 'failed'],
    ]);
    // Progress per file: the parse stage counts every file, never backwards.
    const parsed = events.flatMap((e) =>
      e.type === 'progress' && e.progress.stage === 'parse' ? [e.progress.done] : [],
    );
    expect(parsed.at(-1)).toBe(input.length);
    expect(parsed.every((d, i) => i === 0 || d >= parsed[i - 1])).toBe(true);
    expect(new Set(parsed).size).toBeGreaterThanOrEqual(input.length);
  });

  it('parses file by file, each within its own limit, when the batch does not parse in time', async () => {
    const repo = freshRepo();
    const hang: typeof prepare = (name, data, options) =>
      name === 'hang.txt' ? new Promise(() => undefined) : prepare(name, data, options);
    const { pipeline, events } = pipelineOver(repo, {
      prepare: hang,
      // As the parse worker's call does: the bytes are transferred (gone from here), and this batch never returns.
      prepareMany: (batch) => {
        for (const f of batch) structuredClone(f.bytes, { transfer: [f.bytes.buffer] });
        return new Promise(() => undefined);
      },
      // 2 s: the three good files parse well within it on a busy machine (at 50 ms a loaded CI could fail them too).
      parseTimeoutMs: 2_000,
    });
    const input = files(4);
    input[2] = { name: 'hang.txt', bytes: bytes('h: H1.') };
    await pipeline.enqueue(input);
    await pipeline.ensureRunning();
    expect(outcomes(events).map((o) => [o.file, o.status])).toEqual([
      ['f0.txt', 'indexed'],
      ['f1.txt', 'indexed'],
      ['hang.txt', 'failed'],
      ['f3.txt', 'indexed'],
    ]);
    expect(outcomes(events)[2].reason).toBe('took too long to parse (over 2 s)');
    expect(await repo.counts()).toMatchObject({ documents: 3 });
  });

  it('stops at a full disk with the whole batch still queued, uncounted, and stores it on resume', async () => {
    const repo = freshRepo();
    const put = repo.putParsedFiles.bind(repo);
    repo.putParsedFiles = async () => {
      throw Object.assign(new Error('Transaction aborted'), {
        name: 'AbortError',
        inner: Object.assign(new Error('quota exceeded'), { name: 'QuotaExceededError' }),
      });
    };
    const { pipeline, events } = pipelineOver(repo, { prepareMany: batchParser([]) });
    await pipeline.enqueue(files(5));
    await pipeline.ensureRunning();
    const error = events.find((e) => e.type === 'error');
    expect(error).toMatchObject({ type: 'error', cause: 'storage-full', file: 'f0.txt' });
    expect(outcomes(events)).toEqual([]);
    expect(await repo.counts()).toMatchObject({ documents: 0 });
    const pending = await repo.pendingSummary();
    expect(pending.map((p) => p.status)).toEqual(['queued', 'queued', 'queued', 'queued', 'queued']);
    expect((await repo.db.pending.orderBy('addedAt').toArray()).map((p) => p.attempts ?? 0)).toEqual([
      0, 0, 0, 0, 0,
    ]);

    repo.putParsedFiles = put;
    await pipelineOver(repo, { prepareMany: batchParser([]) }).pipeline.ensureRunning();
    expect(await repo.counts()).toMatchObject({ documents: 5, vectors: 10, pending: 0 });
  });

  it('cancel while a batch is parsed drops the queue and stores nothing of it', async () => {
    const repo = freshRepo();
    let started!: () => void;
    const parsing = new Promise<void>((r) => (started = r));
    const { pipeline, events } = pipelineOver(repo, {
      prepareMany: (_files, { signal }) => {
        started();
        // A parse worker stops on the abort (its promise never settles: the pipeline races it).
        return new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () => reject(signal.reason)),
        );
      },
    });
    await pipeline.enqueue(files(6));
    const run = pipeline.ensureRunning();
    await parsing;
    await pipeline.cancel();
    await run;
    expect(events.filter((e) => e.type === 'idle')).toEqual([{ type: 'idle', cancelled: true }]);
    expect(outcomes(events)).toEqual([]);
    expect(await repo.counts()).toMatchObject({ documents: 0, pending: 0 });
  });

  it('after a reload in the middle of a batch, takes its files one by one and indexes them all', async () => {
    const repo = freshRepo();
    let started!: () => void;
    const parsing = new Promise<void>((r) => (started = r));
    // The first page dies while its batch is being parsed: the parse never returns.
    const dying = pipelineOver(repo, {
      prepareMany: () => {
        started();
        return new Promise(() => undefined);
      },
    });
    await dying.pipeline.enqueue(files(5));
    void dying.pipeline.ensureRunning();
    await parsing;
    expect((await repo.db.pending.orderBy('addedAt').toArray()).map((p) => [p.status, p.attempts])).toEqual(
      Array.from({ length: 5 }, () => ['working', 1]),
    );
    // The reloaded page: files interrupted once go alone (a file that crashed the page twice fails by itself).
    const calls: number[] = [];
    const reloaded = pipelineOver(repo, { prepareMany: batchParser(calls) });
    await reloaded.pipeline.ensureRunning();
    expect(calls).toEqual([]);
    expect(outcomes(reloaded.events).map((o) => o.status)).toEqual(Array(5).fill('indexed'));
    expect(await repo.counts()).toMatchObject({ documents: 5, pending: 0 });
  });
});
