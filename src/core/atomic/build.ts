// The resumable distillation build: for each selected core chunk, whatever it still lacks of the parts asked for
// (KG extraction, atomic questions), in one call per chunk when both are missing and one pass is on. Each finished
// chunk is committed at once; cancelling (`signal`) stops sending new chunks and lets the calls in flight finish
// and commit, because they are paid for either way: a later build resumes with what is still missing and no chunk
// is ever sent twice for the same part. `hardSignal` (closing the app) drops in-flight calls too; those chunks are
// sent again on resume, the only case where a chunk costs twice. It is the one KG build: the app's KG worker and
// the CLI bench build the KG alone as kinds { kg } (one extraction call per chunk). It lives here, beside
// atomizing, because it uses both this folder and src/core/kg, which must not depend on this one.
import type { ChunkOutcome, KgStore } from '../kg/index.ts';
import { isAbortError, type LlmClient, type StepUsage } from '../llm/index.ts';
import type { ProgressCallback } from '../types.ts';
import { distillChunk, type AtomizeOptions, type DistillKinds, type DistillOutcome } from './distill.ts';
import type { AtomicStore } from './store.ts';
import type { AtomicOutcome } from './types.ts';
import { messageOf } from '../errors.ts';

export interface DistillChunkInput {
  id: string;
  docId: string;
  /** Left out where `texts` reads it as the build reaches the chunk. */
  text?: string;
}

/** Texts read at once for chunks given without one: the lanes take them in order, a batch ahead. */
const TEXT_BATCH = 64;

export interface DistillBuildOptions extends AtomizeOptions {
  /** Core chunks in rank order. */
  chunks: readonly DistillChunkInput[];
  /**
   * The texts of chunks given without one, in their order, read a batch at a time as the lanes reach them and the
   * next batch meanwhile: a large library's core chunks are never all held (82 k at κ 0.8 of 100 MiB of text).
   */
  texts?: (chunks: readonly DistillChunkInput[]) => Promise<string[]>;
  /** The parts to build. */
  kinds: DistillKinds;
  /** One call per chunk when it needs both parts (default true). */
  onePass?: boolean;
  kg?: KgStore;
  atomic?: AtomicStore;
  /**
   * Commits one chunk's outcomes; the app's store writes both parts in one transaction. Default: the KG part,
   * then the atomic part, each through its store.
   */
  commit?: (chunk: DistillChunkInput, outcome: DistillOutcome) => Promise<void>;
  client: LlmClient;
  concurrency?: number;
  /** Send chunks that failed before once more (a failed part only). */
  retryFailed?: boolean;
  signal?: AbortSignal;
  hardSignal?: AbortSignal;
  onProgress?: ProgressCallback;
  now?: () => number;
}

interface PartCounts {
  done: number;
  failed: number;
}

export interface DistillBuildSummary extends StepUsage {
  selected: number;
  /** Chunks that needed nothing asked for: not sent. */
  skipped: number;
  /** Chunks sent and committed (whatever their outcome). */
  finished: number;
  /** Chunks left unsent because the build was cancelled or stopped on an endpoint error. */
  remaining: number;
  kg: PartCounts;
  atomic: PartCounts & { questions: number };
  cancelled: boolean;
  /** The endpoint error that stopped the build, user-facing. */
  error?: string;
  failures: Array<{ chunkId: string; part: 'kg' | 'atomic'; reason: string }>;
}

function needs(state: { status: string } | undefined, retryFailed: boolean | undefined): boolean {
  return !state || (state.status === 'failed' && !!retryFailed);
}

export async function buildDistilled(opts: DistillBuildOptions): Promise<DistillBuildSummary> {
  if (opts.kinds.kg && !opts.kg) throw new Error('distillation: a KG build needs a KG store');
  if (opts.kinds.atomic && !opts.atomic) throw new Error('distillation: atomizing needs an atomic store');
  const now = opts.now ?? (() => Date.now());
  const ids = opts.chunks.map((c) => c.id);
  const kgStates = opts.kinds.kg ? await opts.kg!.getStates(ids) : new Map();
  const atomicStates = opts.kinds.atomic ? await opts.atomic!.getStates(ids) : new Map();
  const todo = opts.chunks
    .map((chunk) => ({
      chunk,
      kinds: {
        kg: opts.kinds.kg && needs(kgStates.get(chunk.id), opts.retryFailed),
        atomic: opts.kinds.atomic && needs(atomicStates.get(chunk.id), opts.retryFailed),
      },
    }))
    .filter((t) => t.kinds.kg || t.kinds.atomic);
  const summary: DistillBuildSummary = {
    selected: opts.chunks.length,
    skipped: opts.chunks.length - todo.length,
    finished: 0,
    remaining: todo.length,
    kg: { done: 0, failed: 0 },
    atomic: { done: 0, failed: 0, questions: 0 },
    cancelled: false,
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    cost: 0,
    failures: [],
  };
  const commit =
    opts.commit ??
    (async (chunk: DistillChunkInput, outcome: DistillOutcome) => {
      if (outcome.kg) await opts.kg!.commit(chunk.id, outcome.kg);
      if (outcome.atomic) await opts.atomic!.commit(chunk, outcome.atomic);
    });
  // An endpoint error or the caller's cancel stops dispatching; only hardSignal cuts calls in flight.
  let stopped = !!opts.signal?.aborted || !!opts.hardSignal?.aborted;
  const onAbort = (): void => {
    stopped = true;
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  opts.hardSignal?.addEventListener('abort', onAbort, { once: true });
  const started = now();
  const report = (item?: string): void => {
    const seconds = Math.max(1e-3, (now() - started) / 1000);
    opts.onProgress?.({
      stage: 'kg',
      done: summary.finished,
      total: todo.length,
      rate: summary.finished / seconds,
      item,
    });
  };
  report();
  const count = (chunkId: string, part: 'kg' | 'atomic', o: ChunkOutcome | AtomicOutcome): void => {
    if (o.status === 'done') summary[part].done++;
    else {
      summary[part].failed++;
      summary.failures.push({ chunkId, part, reason: o.reason });
    }
  };
  const textOf = textsAsReached(
    todo.map((t) => t.chunk),
    opts.texts,
  );
  let next = 0;
  const lane = async (): Promise<void> => {
    while (!stopped && next < todo.length) {
      const at = next++;
      const { chunk, kinds } = todo[at];
      let outcome: DistillOutcome;
      try {
        outcome = await distillChunk(opts.client, await textOf(at), kinds, {
          onePass: opts.onePass ?? true,
          maxQuestions: opts.maxQuestions,
          temperature: opts.temperature,
          signal: opts.hardSignal,
        });
      } catch (err) {
        if (!isAbortError(err) && !summary.error) {
          summary.error = messageOf(err);
        }
        stopped = true;
        return;
      }
      // The chunk finished: commit even if a cancel arrived meanwhile (it is paid for).
      await commit(chunk, outcome);
      summary.calls += outcome.usage.calls;
      summary.inputTokens += outcome.usage.inputTokens;
      summary.outputTokens += outcome.usage.outputTokens;
      summary.cost += outcome.usage.cost;
      if (outcome.kg) count(chunk.id, 'kg', outcome.kg);
      if (outcome.atomic) {
        count(chunk.id, 'atomic', outcome.atomic);
        if (outcome.atomic.status === 'done') summary.atomic.questions += outcome.atomic.questions.length;
      }
      summary.finished++;
      summary.remaining--;
      report(chunk.id);
    }
  };
  const lanes = Math.max(1, Math.min(opts.concurrency ?? 2, todo.length));
  try {
    await Promise.all(Array.from({ length: lanes }, lane));
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    opts.hardSignal?.removeEventListener('abort', onAbort);
  }
  summary.cancelled = !!opts.signal?.aborted || !!opts.hardSignal?.aborted;
  return summary;
}

/**
 * Chunk i's text: its own, or read with its batch of TEXT_BATCH by `read` (the next batch asked for at once, the
 * batches the lanes have passed let go). Lanes take chunks in order, so at most two batches are held.
 */
function textsAsReached(
  chunks: readonly DistillChunkInput[],
  read: ((chunks: readonly DistillChunkInput[]) => Promise<string[]>) | undefined,
): (i: number) => Promise<string> {
  const batches = new Map<number, Promise<string[]>>();
  const batch = (b: number): Promise<string[]> => {
    let texts = batches.get(b);
    if (!texts) {
      const part = chunks.slice(b * TEXT_BATCH, (b + 1) * TEXT_BATCH);
      texts = part.every((c) => c.text !== undefined)
        ? Promise.resolve(part.map((c) => c.text!))
        : read
          ? read(part).then((got) => {
              if (got.length !== part.length) {
                throw new Error(`distillation: ${got.length} texts read for ${part.length} chunks`);
              }
              return got;
            })
          : Promise.reject(new Error(`distillation: chunk ${part[0].id} has no text, and none is read`));
      // A batch read ahead that fails is reported when a lane reaches it, not as an unhandled rejection.
      texts.catch(() => undefined);
      batches.set(b, texts);
    }
    return texts;
  };
  return async (i) => {
    const own = chunks[i].text;
    if (own !== undefined) return own;
    const b = Math.floor(i / TEXT_BATCH);
    for (const k of batches.keys()) if (k < b - 1) batches.delete(k);
    const texts = batch(b);
    if ((b + 1) * TEXT_BATCH < chunks.length) void batch(b + 1);
    return (await texts)[i - b * TEXT_BATCH];
  };
}
