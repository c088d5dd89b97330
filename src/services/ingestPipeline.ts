// The indexing pipeline behind the ingest worker, with its dependencies injected (store, parser, embedder,
// graph rebuild) so it runs in Node tests on fake-indexeddb as well as in the worker: pending file → prepare →
// embed sentences in batches that span documents (core embedDocuments) → one store transaction for the documents
// each embedding call completed; the concept graph is rebuilt once per batch of files. Files wait in the pending table with their bytes, so a reload resumes the queue.
import type { Embedder, FileError, PreparedDocument, Progress, Stage } from '../core/types.ts';
import { DEFAULT_INDEX_PARAMS } from '../core/types.ts';
import { embedDocuments } from '../core/pipeline/index.ts';
import { EmbedderMismatchError, type Repo } from '../store/repo.ts';
import type { CrossTabLock } from './crossTab.ts';
import { MAX_FILE_BYTES, type EmbedderChoice, type FileOutcome, type IngestEvent } from './protocol.ts';
import { toEmbedderChoice } from './embedderChoice.ts';

export { MAX_FILE_BYTES } from './protocol.ts';
/** Sentences per embedder call: USE-lite sorts each call by length, so larger calls are faster (see EmbedLoopOptions). */
export const EMBED_BATCH = 128;
/**
 * During a long batch the concept graph is rebuilt this often, so questions can already be answered from the
 * documents stored so far (a rebuild takes seconds even for thousands of passages; embedding takes minutes).
 */
export const GRAPH_REFRESH_MS = 60_000;

/**
 * A file that has not been parsed (and chunked) within this time is failed: a parser must never hang the queue.
 * The browser parses in a worker of its own that is terminated when this fires or on Cancel (parseRunner.ts).
 */
export const PARSE_TIMEOUT_MS = 30_000;
/** A file whose indexing started this often without finishing (the page closed or crashed) is not retried. */
export const MAX_ATTEMPTS = 2;

/** `signal` aborts on Cancel and on the parse time limit; an implementation that can stop should. */
export type PrepareFn = (
  name: string,
  bytes: Uint8Array,
  options: { maxChunkTokens: number; signal?: AbortSignal },
) => Promise<{ documents: PreparedDocument[]; errors: FileError[] }>;

export interface IngestDeps {
  repo: Repo;
  prepare: PrepareFn;
  embedder(choice: EmbedderChoice): Promise<Embedder>;
  rebuildGraph(repo: Repo, signal: AbortSignal): Promise<void>;
  emit(event: IngestEvent): void;
  /** The library's cross-tab lock (workers/crossTab.ts): one tab at a time drains the shared queue. */
  lock?: Pick<CrossTabLock, 'run'>;
  /** Parse time limit per file (default PARSE_TIMEOUT_MS). */
  parseTimeoutMs?: number;
}

/** Tracks done/total and the rate of one stage since it started. */
class StageMeter {
  private readonly started = performance.now();
  constructor(
    private readonly emit: (event: IngestEvent) => void,
    readonly stage: Stage,
    public total: number,
  ) {}
  report(done: number, item?: string): void {
    const seconds = (performance.now() - this.started) / 1000;
    const progress: Progress = {
      stage: this.stage,
      done,
      total: this.total,
      rate: seconds > 0 ? done / seconds : 0,
      item,
    };
    this.emit({ type: 'progress', progress });
  }
}

function describeError(error: unknown): string {
  // IndexedDB (and Dexie, which keeps the name) reports a full disk or quota this way: say it plainly.
  if (error instanceof Error && error.name === 'QuotaExceededError') {
    return "the browser's storage for this site is full (free space, or remove documents)";
  }
  return error instanceof Error ? error.message : String(error);
}

export class IngestPipeline {
  private running: Promise<void> | null = null;
  private controller: AbortController | null = null;
  /** Set by enqueue(): files may have arrived after the running drain last read an empty queue. */
  private wake = false;
  /** When the graph was last rebuilt during the current drain (performance.now()). */
  private lastGraph = 0;
  /** Aborts waiting for the cross-tab lock. */
  private lockWait: AbortController | null = null;
  /** Another tab holds the lock: this one waits while that tab drains the shared queue. */
  private waitingElsewhere = false;

  constructor(
    private readonly deps: IngestDeps,
    private readonly graphRefreshMs = GRAPH_REFRESH_MS,
  ) {}

  get isRunning(): boolean {
    return this.running !== null;
  }

  private emit(event: IngestEvent): void {
    try {
      this.deps.emit(event);
    } catch {
      // A closed page must not stop indexing: the queue is in IndexedDB and the next page resumes it.
    }
  }

  private meter(stage: Stage, total: number): StageMeter {
    return new StageMeter((e) => this.emit(e), stage, total);
  }

  /** Queues files and starts indexing (resolves once they are queued, not indexed). */
  async enqueue(files: { name: string; bytes: ArrayBuffer }[]): Promise<void> {
    await this.deps.repo.enqueue(files);
    this.wake = true;
    this.emit({ type: 'changed' });
    void this.ensureRunning();
    // Another tab is draining the queue: it indexes these files too (this tab says so instead of "indexing").
    if (this.waitingElsewhere) this.emit({ type: 'waiting' });
  }

  /** Runs the queue (including files left by a reload) until it is empty. */
  ensureRunning(): Promise<void> {
    this.running ??= this.deps.lock ? this.drainExclusively(this.deps.lock) : this.drain();
    return this.running;
  }

  /**
   * Drains holding the cross-tab lock: two tabs that both find the queue on load (or both get files) must not
   * index the same files, so a tab whose lock another tab holds waits, and then drains whatever is left.
   */
  private async drainExclusively(lock: Pick<CrossTabLock, 'run'>): Promise<void> {
    const wait = new AbortController();
    this.lockWait = wait;
    let drained = false;
    try {
      const drain = () => {
        drained = true;
        this.lockWait = null;
        this.waitingElsewhere = false;
        return this.drain();
      };
      const onWait = () => {
        this.waitingElsewhere = true;
        this.emit({ type: 'waiting' });
      };
      await lock.run(drain, { signal: wait.signal, onWait });
    } catch (error) {
      // drain() reports its own errors: this is the wait failing (not cancelled) before it ran.
      if (!wait.signal.aborted) this.emit({ type: 'error', message: `ingest: ${describeError(error)}` });
    } finally {
      this.lockWait = null;
      this.waitingElsewhere = false;
      if (!drained) {
        this.running = null;
        this.emit({ type: 'idle', cancelled: wait.signal.aborted });
      }
    }
  }

  /** Stops indexing and drops the queue; documents already stored stay (each one is complete). */
  async cancel(): Promise<void> {
    // Only waiting for another tab: its run is not this tab's to cancel, nor its queue to drop.
    const onlyWaiting = this.waitingElsewhere;
    this.lockWait?.abort(new Error('ingest: cancelled by the user'));
    this.controller?.abort(new Error('ingest: cancelled by the user'));
    await this.running;
    if (onlyWaiting) return;
    await this.deps.repo.clearWaitingPending();
    this.emit({ type: 'changed' });
  }

  async removeDocument(docId: string): Promise<boolean> {
    const { repo, lock } = this.deps;
    const remove = async () => {
      const removed = await repo.removeDocument(docId);
      // A running batch rebuilds the graph when it ends; an empty library has none.
      if (removed && !this.running && (await repo.counts()).documents > 0) {
        await this.rebuildGraph(new AbortController().signal);
      }
      this.emit({ type: 'changed' });
      return removed;
    };
    // This tab's own drain holds the lock already (and rebuilds the graph when it ends); otherwise the removal
    // and its graph rebuild wait for any other tab's work.
    return lock && !this.controller ? lock.run(remove) : remove();
  }

  private async indexOne(
    name: string,
    bytes: ArrayBuffer,
    embedder: Embedder,
    signal: AbortSignal,
    onParsed: () => void,
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
    const { documents, errors } = await this.prepareWithin(name, new Uint8Array(bytes), signal);
    onParsed();
    signal.throwIfAborted();
    if (documents.length === 0) {
      const reason = errors.map((e) => e.reason).join('; ') || 'no text found';
      return { file: name, status: 'failed', documents: 0, reason };
    }
    const totalSentences = documents.reduce((n, d) => n + d.sentences.length, 0);
    const embedMeter = this.meter('embed', totalSentences);
    embedMeter.report(0, name);
    const storeMeter = this.meter('store', documents.length);
    let stored = 0;
    let duplicates = 0;
    // Batches span the file's documents; each batch's completed documents go to one store transaction, which
    // commits while the next batch is embedded.
    await embedDocuments(documents, embedder, {
      batchSize: EMBED_BATCH,
      signal,
      onProgress: (p) => embedMeter.report(p.done, name),
      onDocuments: async (completed) => {
        const results = await this.deps.repo.putPreparedDocuments(
          completed,
          embedder.id,
          DEFAULT_INDEX_PARAMS,
        );
        for (const r of results) {
          if (r.stored) stored += 1;
          else duplicates += 1;
        }
        storeMeter.report(stored + duplicates, completed.at(-1)?.prepared.doc.title);
        this.emit({ type: 'changed' });
        if (stored > 0 && performance.now() - this.lastGraph >= this.graphRefreshMs)
          await this.rebuildGraph(signal);
      },
    });
    // Lines of a .jsonl that could not be read are reported with the file, which still counts as indexed.
    const partial = errors.length > 0 ? errors.map((e) => e.reason).join('; ') : undefined;
    if (stored === 0 && duplicates > 0) {
      return { file: name, status: 'duplicate', documents: 0, reason: 'already in the library' };
    }
    return { file: name, status: 'indexed', documents: stored, reason: partial };
  }

  /**
   * Parses one file within the time limit; Cancel stops it too. The result is awaited beside the abort, so a
   * parser that never returns cannot hold the queue (and the browser's parse worker is terminated on the abort).
   */
  private async prepareWithin(name: string, bytes: Uint8Array, signal: AbortSignal): ReturnType<PrepareFn> {
    const limit = this.deps.parseTimeoutMs ?? PARSE_TIMEOUT_MS;
    const controller = new AbortController();
    const over = limit >= 1000 ? `${Math.round(limit / 1000)} s` : `${limit} ms`;
    const timer = setTimeout(
      () => controller.abort(new Error(`took too long to parse (over ${over})`)),
      limit,
    );
    const onCancel = (): void => controller.abort(signal.reason);
    signal.addEventListener('abort', onCancel, { once: true });
    try {
      controller.signal.throwIfAborted();
      return await new Promise<Awaited<ReturnType<PrepareFn>>>((resolve, reject) => {
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
        this.deps
          .prepare(name, bytes, {
            maxChunkTokens: DEFAULT_INDEX_PARAMS.maxChunkTokens,
            signal: controller.signal,
          })
          .then(resolve, reject);
      });
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onCancel);
    }
  }

  private async drain(): Promise<void> {
    const { repo } = this.deps;
    this.controller = new AbortController();
    const { signal } = this.controller;
    this.lastGraph = performance.now();
    let cancelled = false;
    let storedSinceGraph = false;
    try {
      for (;;) {
        this.wake = false;
        // Ids only: each file's bytes are read from the store when its turn comes, not the whole queue at once.
        const queue = await repo.waitingIds();
        if (queue.length === 0) {
          if (this.wake) continue;
          // The graph is rebuilt once the queue is empty, not after every batch: the page queues picked files
          // one at a time (src/ui/intake.ts), so a batch may be a single file. Files queued during the rebuild
          // are picked up by the next round.
          if (storedSinceGraph) {
            storedSinceGraph = false;
            await this.rebuildGraph(signal);
            continue;
          }
          break;
        }
        let embedder: Embedder;
        try {
          // The setting as stored, in either shape (an older choice object or a spec): read and checked here.
          embedder = await this.deps.embedder(toEmbedderChoice(await repo.getSetting<unknown>('embedder')));
        } catch (error) {
          // Without an embedder nothing in the queue can be indexed: fail each file with the reason (instead of
          // retrying forever on every reload); the user fixes the setting and adds the files again.
          const reason = describeError(error);
          for (const id of queue) {
            const name = (await repo.pendingFile(id))?.name ?? id;
            await repo.markPending(id, 'failed', reason);
            this.emit({ type: 'file', outcome: { file: name, status: 'failed', documents: 0, reason } });
          }
          this.emit({ type: 'error', message: `ingest: ${reason}` });
          continue;
        }
        // Files parsed in this batch; embedding and storing are metered per file (sentences, documents).
        const fileMeter = this.meter('parse', queue.length);
        for (const [i, id] of queue.entries()) {
          signal.throwIfAborted();
          const file = await repo.pendingFile(id);
          if (!file || file.status === 'failed') continue;
          fileMeter.report(i, file.name);
          let outcome: FileOutcome;
          if ((file.attempts ?? 0) >= MAX_ATTEMPTS) {
            // Started twice and never finished: the page closed or crashed on it both times. Retrying it on every
            // load would be a crash loop; it is failed with the reason and the rest of the queue goes on.
            const reason = `indexing was interrupted ${file.attempts} times on this file (the page was closed or crashed while reading it); it is not retried`;
            outcome = { file: file.name, status: 'failed', documents: 0, reason };
            await repo.markPending(file.id, 'failed', reason);
            this.emit({ type: 'file', outcome });
            this.emit({ type: 'changed' });
            continue;
          }
          await repo.startPending(file.id);
          try {
            outcome = await this.indexOne(file.name, file.bytes, embedder, signal, () =>
              fileMeter.report(i + 1, file.name),
            );
          } catch (error) {
            if (signal.aborted) throw error;
            outcome = { file: file.name, status: 'failed', documents: 0, reason: describeError(error) };
            if (error instanceof EmbedderMismatchError) outcome.reason = error.message;
          }
          if (outcome.status === 'failed') await repo.markPending(file.id, 'failed', outcome.reason);
          else await repo.removePending(file.id);
          storedSinceGraph ||= outcome.documents > 0;
          this.emit({ type: 'file', outcome });
          this.emit({ type: 'changed' });
        }
        fileMeter.report(queue.length);
      }
    } catch (error) {
      if (signal.aborted) cancelled = true;
      else this.emit({ type: 'error', message: `ingest: ${describeError(error)}` });
    } finally {
      this.controller = null;
      this.running = null;
      this.emit({ type: 'changed' });
      this.emit({ type: 'idle', cancelled });
    }
  }

  private async rebuildGraph(signal: AbortSignal): Promise<void> {
    this.lastGraph = performance.now();
    const meter = this.meter('graph', 1);
    meter.report(0);
    await this.deps.rebuildGraph(this.deps.repo, signal);
    meter.report(1);
    this.emit({ type: 'changed' });
  }
}
