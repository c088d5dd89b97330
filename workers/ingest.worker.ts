// The indexing worker: pending file → prepareFile → embed sentences → one-transaction store write, then the
// concept graph is rebuilt once per batch. Files wait in IndexedDB (the pending table) with their bytes, so a
// reload resumes the queue; a document is stored whole or not at all. Progress goes to the page as events
// through a Comlink proxy callback; cancel() aborts the run and drops the queue.
import { expose } from 'comlink';
import { prepareFile } from '../src/core/prepare.ts';
import type { Embedder, PreparedDocument, Progress, Stage } from '../src/core/types.ts';
import { DEFAULT_INDEX_PARAMS } from '../src/core/types.ts';
import { openDatabase } from '../src/store/db.ts';
import { EmbedderMismatchError, Repo } from '../src/store/repo.ts';
import { EmbedderHolder } from './embedders.ts';
import { rebuildConceptGraph } from './graphBuild.ts';
import { DEFAULT_EMBEDDER, type EmbedderChoice, type FileOutcome, type IngestListener } from './protocol.ts';

/** Larger files are refused with a per-file error: at ~150 sentences/s, 20 MB of text already takes hours. */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;
/** Sentences per embedder call: large enough to keep the WASM kernels busy, small enough for smooth progress. */
const EMBED_BATCH = 64;

const repo = new Repo(openDatabase());
const embedders = new EmbedderHolder();
let listener: IngestListener | null = null;
let running: Promise<void> | null = null;
let controller: AbortController | null = null;

function emit(event: Parameters<IngestListener>[0]): void {
  try {
    listener?.(event);
  } catch {
    // A closed page must not stop indexing: the queue is in IndexedDB and the next page resumes it.
  }
}

/** Tracks done/total and the rate of one stage since it started. */
class StageMeter {
  private readonly started = performance.now();
  done = 0;
  constructor(
    readonly stage: Stage,
    public total: number,
  ) {}
  report(done: number, item?: string): void {
    this.done = done;
    const seconds = (performance.now() - this.started) / 1000;
    const progress: Progress = {
      stage: this.stage,
      done,
      total: this.total,
      rate: seconds > 0 ? done / seconds : 0,
      item,
    };
    emit({ type: 'progress', progress });
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Embeds the sentences of several prepared documents in batches that span documents (a .jsonl of short passages
 * would otherwise make tiny batches) and hands each document its vectors as soon as its last sentence is done.
 */
async function embedAcross(
  docs: PreparedDocument[],
  embedder: Embedder,
  signal: AbortSignal,
  meter: StageMeter,
  onDocument: (prepared: PreparedDocument, vectors: Float32Array) => Promise<void>,
): Promise<void> {
  const dim = embedder.dimension;
  const buffers = docs.map((d) => new Float32Array(d.sentences.length * dim));
  const missing = docs.map((d) => d.sentences.length);
  let nextToStore = 0;
  const storeCompleted = async (): Promise<void> => {
    while (nextToStore < docs.length && missing[nextToStore] === 0) {
      await onDocument(docs[nextToStore], buffers[nextToStore]);
      nextToStore += 1;
    }
  };
  await storeCompleted();
  let d = 0;
  let s = 0;
  let done = 0;
  for (;;) {
    const texts: string[] = [];
    const slots: [number, number][] = [];
    while (texts.length < EMBED_BATCH && d < docs.length) {
      if (s >= docs[d].sentences.length) {
        d += 1;
        s = 0;
        continue;
      }
      texts.push(docs[d].sentences[s].text);
      slots.push([d, s]);
      s += 1;
    }
    if (texts.length === 0) break;
    signal.throwIfAborted();
    const vectors = await embedder.embed(texts, signal);
    if (vectors.length !== texts.length * dim) {
      throw new Error(
        `ingest: embedder ${embedder.id} returned ${vectors.length} floats for ${texts.length} texts`,
      );
    }
    slots.forEach(([di, si], row) => {
      buffers[di].set(vectors.subarray(row * dim, (row + 1) * dim), si * dim);
      missing[di] -= 1;
    });
    done += texts.length;
    meter.report(done);
    await storeCompleted();
  }
}

async function indexOne(
  name: string,
  bytes: ArrayBuffer,
  embedder: Embedder,
  signal: AbortSignal,
): Promise<FileOutcome> {
  if (bytes.byteLength > MAX_FILE_BYTES) {
    const mb = (bytes.byteLength / 1024 / 1024).toFixed(1);
    return {
      file: name,
      status: 'failed',
      documents: 0,
      reason: `file too large (${mb} MB; the limit is ${MAX_FILE_BYTES / 1024 / 1024} MB)`,
    };
  }
  const parseMeter = new StageMeter('parse', 1);
  parseMeter.report(0, name);
  const { documents, errors } = await prepareFile(name, new Uint8Array(bytes), {
    maxChunkTokens: DEFAULT_INDEX_PARAMS.maxChunkTokens,
  });
  parseMeter.report(1, name);
  signal.throwIfAborted();
  if (documents.length === 0) {
    const reason = errors.map((e) => e.reason).join('; ') || 'no text found';
    return { file: name, status: 'failed', documents: 0, reason };
  }
  const totalSentences = documents.reduce((n, d) => n + d.sentences.length, 0);
  const embedMeter = new StageMeter('embed', totalSentences);
  embedMeter.report(0, name);
  const storeMeter = new StageMeter('store', documents.length);
  let stored = 0;
  let duplicates = 0;
  await embedAcross(documents, embedder, signal, embedMeter, async (prepared, vectors) => {
    const result = await repo.putPreparedDocument(prepared, vectors, embedder.id, DEFAULT_INDEX_PARAMS);
    if (result.stored) stored += 1;
    else duplicates += 1;
    storeMeter.report(stored + duplicates, prepared.doc.title);
    emit({ type: 'changed' });
  });
  const lineErrors = errors.length > 0 ? errors.map((e) => e.reason).join('; ') : undefined;
  if (stored === 0 && duplicates > 0) {
    return { file: name, status: 'duplicate', documents: 0, reason: 'already in the library' };
  }
  return { file: name, status: 'indexed', documents: stored, reason: lineErrors };
}

async function drain(): Promise<void> {
  controller = new AbortController();
  const { signal } = controller;
  let cancelled = false;
  try {
    for (;;) {
      const queue = await repo.pendingQueue();
      if (queue.length === 0) break;
      const embedder = await embedders.get(await currentChoice());
      const fileMeter = new StageMeter('read', queue.length);
      let storedAny = false;
      for (const [i, file] of queue.entries()) {
        signal.throwIfAborted();
        fileMeter.report(i, file.name);
        await repo.markPending(file.id, 'working');
        let outcome: FileOutcome;
        try {
          outcome = await indexOne(file.name, file.bytes, embedder, signal);
        } catch (error) {
          if (signal.aborted) throw error;
          // A mismatch is a library-wide problem, not this file's: say how to fix it.
          outcome = { file: file.name, status: 'failed', documents: 0, reason: describeError(error) };
          if (error instanceof EmbedderMismatchError) outcome.reason = error.message;
        }
        if (outcome.status === 'failed') await repo.markPending(file.id, 'failed', outcome.reason);
        else await repo.removePending(file.id);
        storedAny ||= outcome.documents > 0;
        emit({ type: 'file', outcome });
        emit({ type: 'changed' });
      }
      fileMeter.report(queue.length);
      if (storedAny) await rebuildGraph(signal);
    }
  } catch (error) {
    if (signal.aborted) cancelled = true;
    else emit({ type: 'error', message: `ingest: ${describeError(error)}` });
  } finally {
    controller = null;
    running = null;
    emit({ type: 'changed' });
    emit({ type: 'idle', cancelled });
  }
}

async function rebuildGraph(signal: AbortSignal): Promise<void> {
  const meter = new StageMeter('graph', 1);
  meter.report(0);
  await rebuildConceptGraph(repo, signal);
  meter.report(1);
  emit({ type: 'changed' });
}

async function currentChoice(): Promise<EmbedderChoice> {
  return (await repo.getSetting<EmbedderChoice>('embedder')) ?? DEFAULT_EMBEDDER;
}

function ensureRunning(): Promise<void> {
  running ??= drain();
  return running;
}

const api = {
  /** Receives every event (a Comlink proxy of a page callback). */
  subscribe(callback: IngestListener): void {
    listener = callback;
  },
  /** Queues files (their buffers are transferred) and starts indexing. */
  async enqueue(files: { name: string; bytes: ArrayBuffer }[]): Promise<void> {
    await repo.enqueue(files);
    emit({ type: 'changed' });
    void ensureRunning();
  },
  /** Resumes a queue left by a reload; resolves when the queue is empty. */
  async resume(): Promise<void> {
    await ensureRunning();
  },
  isRunning(): boolean {
    return running !== null;
  },
  /** Stops indexing and drops the queue; documents already stored stay (each one is complete). */
  async cancel(): Promise<void> {
    controller?.abort(new Error('ingest: cancelled by the user'));
    await running;
    const queue = await repo.pendingQueue();
    for (const p of queue) await repo.removePending(p.id);
    emit({ type: 'changed' });
  },
  async removeDocument(docId: string): Promise<boolean> {
    const removed = await repo.removeDocument(docId);
    if (removed && !running && (await repo.counts()).documents > 0) {
      await rebuildGraph(new AbortController().signal);
    }
    emit({ type: 'changed' });
    return removed;
  },
  async clearFailed(): Promise<void> {
    await repo.clearFailedPending();
    emit({ type: 'changed' });
  },
  /** Frees the embedding model (it is loaded again lazily). */
  async dispose(): Promise<void> {
    await embedders.dispose();
  },
};

export type IngestApi = typeof api;

expose(api);
