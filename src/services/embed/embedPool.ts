// A pool of embedding workers behind the one Embedder interface, so the ingest pipeline gets parallel embedding
// without knowing it. A call's distinct texts are sorted longest first and cut into batches; idle workers take
// batches from one queue shared by all calls (first come, first served, so overlapping calls are fine and a large
// call is spread over every worker); each batch's rows come back as a transferred Float32Array and are put back in
// input order. Workers are started on demand up to `size`, each loading its own copy of the embedder once.
// Platform-neutral: the worker factory is injected (the browser's embed worker in src/services/embed/embedders.ts,
// in-process fakes in the unit tests).
import { EmbedAbortError } from '../../core/embed/index.ts';
import { expandRows, uniqueTexts } from '../../core/embed/index.ts';
import type { Embedder } from '../../core/types.ts';
import { messageOf } from '../../core/errors.ts';

/** What a loaded pool worker reports about its embedder. */
export interface PoolWorkerIdentity {
  id: string;
  dimension: number;
  /** The compute backend the worker's embedder ended up on (e.g. 'wasm', 'webgl'), when it has one. */
  backend?: string;
}

/** One pool worker as the pool sees it: an embedder in another thread that can be stopped at any moment. */
export interface PoolWorker {
  /** Loads the worker's embedder; called once, before any embed(). */
  load(): Promise<PoolWorkerIdentity>;
  /** Embeds one batch: texts.length × dimension floats, L2-normalized rows in the given order. */
  embed(texts: string[]): Promise<Float32Array>;
  /** Stops the worker at once, even in the middle of a batch (its pending promises are then ignored). */
  terminate(): void;
  /** Registers the listener told, at most once, that the worker died on its own (uncaught error, out of memory). */
  onCrash(listener: (reason: string) => void): void;
}

export interface EmbedPoolOptions {
  /** Workers at most (≥ 1). */
  size: number;
  spawn: () => PoolWorker;
  /** Names the embedder in errors until a worker has reported its id (e.g. the spec). */
  name: string;
  /** Texts per batch at least (default 16; at most 128); see batchSizeFor. */
  minBatch?: number;
}

/** The pool as an Embedder, plus what a benchmark or the Settings view may want to show. */
export interface EmbedPool extends Embedder {
  readonly size: number;
  /** Workers alive now (started on demand, so fewer than `size` until calls needed them all). */
  readonly liveWorkers: number;
  /** The backend the first worker reported, if any. */
  readonly backend: string | undefined;
  dispose(): Promise<void>;
}

const DEFAULTS = { minBatch: 16 };
const MAX_BATCH = 128;

/**
 * Texts per batch for a call of `n` distinct texts on `size` workers: about four batches per worker, so a worker
 * that finishes early takes another instead of waiting for the slowest one, but never so small that per-message
 * cost shows (16 is also USE-lite's own model batch) nor so large that one batch holds a worker for long.
 */
function batchSizeFor(n: number, size: number, minBatch: number): number {
  return Math.max(minBatch, Math.min(MAX_BATCH, Math.ceil(n / (4 * size))));
}

interface Call {
  rows: Float32Array;
  /** Batches not yet back. */
  pending: number;
  settled: boolean;
  done(): void;
  fail(error: Error): void;
}

interface Job {
  call: Call;
  /** Indices of the call's distinct texts in this batch. */
  rowsOf: number[];
  texts: string[];
}

interface Slot {
  worker: PoolWorker;
  /** Rejects when the worker dies before its embedder has loaded. */
  crashed: Promise<never>;
  loaded: boolean;
  job: Job | null;
  dead: boolean;
}

/**
 * Starts the first worker and waits for its embedder to load (so a broken set-up fails here, with the load error),
 * then returns the pool. Further workers start when queued batches need them.
 */
export async function createEmbedPool(options: EmbedPoolOptions): Promise<EmbedPool> {
  const { size, spawn, name } = options;
  if (!(Number.isInteger(size) && size >= 1)) {
    throw new Error(`embed pool: the size must be a whole number ≥ 1, got ${size}`);
  }
  const minBatch = options.minBatch ?? DEFAULTS.minBatch;
  const queue: Job[] = [];
  const slots = new Set<Slot>();
  let identity: PoolWorkerIdentity | null = null;
  let disposed = false;
  // Lowered when a worker beyond the first fails to load (e.g. out of memory): the pool goes on with fewer.
  let capacity = size;

  const label = (): string => identity?.id ?? name;

  function kill(slot: Slot): void {
    if (slot.dead) return;
    slot.dead = true;
    slot.job = null;
    slots.delete(slot);
    slot.worker.terminate();
  }

  /** Fails a call once: its queued batches are dropped, its batches in flight are left to finish unheard. */
  function failCall(call: Call, error: Error): void {
    if (call.settled) return;
    for (let i = queue.length - 1; i >= 0; i--) if (queue[i].call === call) queue.splice(i, 1);
    call.fail(error);
  }

  function start(): Slot {
    let crashedWhileLoading: (error: Error) => void = () => undefined;
    const crashed = new Promise<never>((_resolve, reject) => (crashedWhileLoading = reject));
    crashed.catch(() => undefined);
    const slot: Slot = { worker: spawn(), crashed, loaded: false, job: null, dead: false };
    slots.add(slot);
    slot.worker.onCrash((reason) => {
      if (slot.dead) return;
      const job = slot.job;
      if (!slot.loaded) crashedWhileLoading(new Error(`the worker crashed (${reason})`));
      kill(slot);
      if (job) {
        failCall(
          job.call,
          new Error(
            `embed pool: a worker running ${label()} crashed (${reason}); its batch of ${job.texts.length} ` +
              'texts was not embedded',
          ),
        );
      }
      pump();
    });
    return slot;
  }

  /** Loads a started worker; resolves when it can take batches, rejects (and kills it) when it cannot. */
  async function load(slot: Slot): Promise<PoolWorkerIdentity> {
    let who: PoolWorkerIdentity;
    try {
      who = await Promise.race([slot.worker.load(), slot.crashed]);
    } catch (error) {
      kill(slot);
      throw new Error(`embed pool: a worker could not load ${label()}: ${messageOf(error)}`, {
        cause: error,
      });
    }
    if (identity && (who.id !== identity.id || who.dimension !== identity.dimension)) {
      kill(slot);
      throw new Error(
        `embed pool: a worker loaded ${who.id} (${who.dimension}-d) where the pool runs ` +
          `${identity.id} (${identity.dimension}-d)`,
      );
    }
    slot.loaded = true;
    return who;
  }

  function grow(): void {
    const slot = start();
    load(slot).then(pump, (error: unknown) => {
      if (disposed) return;
      if (slots.size > 0) {
        // Others still work: carry on with them rather than start (and fail) this one again and again.
        capacity = Math.max(1, slots.size);
        pump();
        return;
      }
      // No worker left: every queued call fails with the reason; the next call tries again.
      const calls = new Set(queue.map((j) => j.call));
      for (const call of calls) failCall(call, error instanceof Error ? error : new Error(String(error)));
    });
  }

  function run(slot: Slot, job: Job): void {
    slot.job = job;
    const dim = identity!.dimension;
    slot.worker.embed(job.texts).then(
      (rows) => {
        if (slot.job !== job) return; // killed (abort, crash, dispose) meanwhile
        slot.job = null;
        if (rows.length !== job.texts.length * dim) {
          failCall(
            job.call,
            new Error(
              `embed pool: ${label()} returned ${rows.length} floats for ${job.texts.length} texts ` +
                `of ${dim} dimensions`,
            ),
          );
        } else if (!job.call.settled) {
          job.rowsOf.forEach((u, k) => job.call.rows.set(rows.subarray(k * dim, (k + 1) * dim), u * dim));
          if (--job.call.pending === 0) job.call.done();
        }
        pump();
      },
      (error: unknown) => {
        if (slot.job !== job) return;
        slot.job = null;
        failCall(
          job.call,
          new Error(
            `embed pool: ${label()} failed on a batch of ${job.texts.length} texts: ${messageOf(error)}`,
            {
              cause: error,
            },
          ),
        );
        pump();
      },
    );
  }

  /** Gives queued batches to idle loaded workers, and starts workers for what is still waiting. */
  function pump(): void {
    if (disposed) return;
    for (const slot of slots) {
      if (queue.length === 0) break;
      if (slot.loaded && !slot.job) run(slot, queue.shift()!);
    }
    let loading = 0;
    for (const slot of slots) if (!slot.loaded) loading++;
    let waiting = queue.length - loading;
    while (waiting > 0 && slots.size < capacity) {
      grow();
      waiting--;
    }
  }

  const first = start();
  try {
    identity = await load(first);
  } catch (error) {
    kill(first);
    throw error;
  }

  const pool: EmbedPool = {
    get id() {
      return identity!.id;
    },
    get dimension() {
      return identity!.dimension;
    },
    size,
    get liveWorkers() {
      return slots.size;
    },
    get backend() {
      return identity?.backend;
    },

    embed(allTexts: string[], signal?: AbortSignal): Promise<Float32Array> {
      if (signal?.aborted) return Promise.reject(new EmbedAbortError('embed pool'));
      if (disposed)
        return Promise.reject(new Error(`embed pool: embed() called after dispose() (${label()})`));
      const dim = identity!.dimension;
      const { unique, index } = uniqueTexts(allTexts);
      if (unique.length === 0) return Promise.resolve(new Float32Array(0));
      // Longest first: the last batches to finish are then the short ones, so the workers end close together.
      const order = unique.map((_, i) => i).sort((a, b) => unique[b].length - unique[a].length);
      const batch = batchSizeFor(unique.length, size, minBatch);
      return new Promise<Float32Array>((resolve, reject) => {
        const onAbort = (): void => {
          // Synchronous model work cannot be interrupted: stop the workers busy with this call; others start
          // in their place when batches need them.
          for (const slot of [...slots]) if (slot.job?.call === call) kill(slot);
          failCall(call, new EmbedAbortError('embed pool'));
          pump();
        };
        const call: Call = {
          rows: new Float32Array(unique.length * dim),
          pending: Math.ceil(order.length / batch),
          settled: false,
          done() {
            call.settled = true;
            signal?.removeEventListener('abort', onAbort);
            resolve(expandRows(call.rows, index, dim));
          },
          fail(error) {
            call.settled = true;
            signal?.removeEventListener('abort', onAbort);
            reject(error);
          },
        };
        for (let i = 0; i < order.length; i += batch) {
          const rowsOf = order.slice(i, i + batch);
          queue.push({ call, rowsOf, texts: rowsOf.map((u) => unique[u]) });
        }
        signal?.addEventListener('abort', onAbort, { once: true });
        pump();
      });
    },

    dispose(): Promise<void> {
      if (disposed) return Promise.resolve();
      disposed = true;
      const calls = new Set<Call>(queue.map((j) => j.call));
      for (const slot of slots) if (slot.job) calls.add(slot.job.call);
      for (const slot of [...slots]) kill(slot);
      queue.length = 0;
      for (const call of calls) {
        if (!call.settled) call.fail(new Error(`embed pool: disposed while embedding with ${label()}`));
      }
      return Promise.resolve();
    },
  };
  return pool;
}
