// The resumable, incremental KG build: extract the selected core chunks that are not done yet, a few at a time,
// committing each finished chunk atomically. Cancelling (`signal`) stops sending new chunks and lets the calls in
// flight finish and commit, because they are paid for either way: a later build resumes with the chunks still
// missing and no chunk is ever sent twice. `hardSignal` (closing the app) drops in-flight calls too; those chunks
// are then sent again on resume, which is the only case where a chunk costs twice.
import type { LlmClient } from '../llm/index.ts';
import { isAbortError } from '../llm/index.ts';
import type { ProgressCallback } from '../types.ts';
import { extractChunk } from './extract.ts';
import type { KgStore } from './store.ts';
import type { KgChunkInput } from './types.ts';

export interface KgBuildOptions {
  /** Core chunks in rank order (see select.ts). */
  chunks: readonly KgChunkInput[];
  store: KgStore;
  client: LlmClient;
  /** Parallel extractions (the client also bounds its own concurrency). */
  concurrency?: number;
  /** Send chunks that failed before once more. Default false: a failed chunk is reported, not retried silently. */
  retryFailed?: boolean;
  signal?: AbortSignal;
  /** Aborts in-flight calls as well (their chunks stay undone, nothing half-written). */
  hardSignal?: AbortSignal;
  onProgress?: ProgressCallback;
  now?: () => number;
}

export interface KgBuildSummary {
  selected: number;
  /** Chunks already done (or failed, when not retried) before this run: not sent. */
  skipped: number;
  done: number;
  failed: number;
  /** Chunks left undone because the build was cancelled or stopped on an endpoint error. */
  remaining: number;
  cancelled: boolean;
  /** The endpoint error that stopped the build, user-facing. */
  error?: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
  failures: Array<{ chunkId: string; reason: string }>;
}

export async function buildKg(opts: KgBuildOptions): Promise<KgBuildSummary> {
  const now = opts.now ?? (() => Date.now());
  const states = await opts.store.getStates(opts.chunks.map((c) => c.id));
  const todo = opts.chunks.filter((c) => {
    const s = states.get(c.id);
    return !s || (s.status === 'failed' && opts.retryFailed);
  });
  const summary: KgBuildSummary = {
    selected: opts.chunks.length,
    skipped: opts.chunks.length - todo.length,
    done: 0,
    failed: 0,
    remaining: todo.length,
    cancelled: false,
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    cost: 0,
    failures: [],
  };
  // An endpoint error or the caller's cancel stops dispatching; only hardSignal cuts calls in flight.
  let stopped = !!opts.signal?.aborted || !!opts.hardSignal?.aborted;
  const onCallerAbort = (): void => {
    stopped = true;
  };
  opts.signal?.addEventListener('abort', onCallerAbort, { once: true });
  opts.hardSignal?.addEventListener('abort', onCallerAbort, { once: true });
  const started = now();
  const report = (item?: string): void => {
    const finished = summary.done + summary.failed;
    const seconds = Math.max(1e-3, (now() - started) / 1000);
    opts.onProgress?.({ stage: 'kg', done: finished, total: todo.length, rate: finished / seconds, item });
  };
  report();

  let next = 0;
  const lane = async (): Promise<void> => {
    while (!stopped && next < todo.length) {
      const chunk = todo[next++];
      let outcome;
      try {
        outcome = await extractChunk(opts.client, chunk.text, opts.hardSignal);
      } catch (err) {
        if (!isAbortError(err) && !summary.error) {
          summary.error = err instanceof Error ? err.message : String(err);
        }
        stopped = true;
        return;
      }
      // The chunk finished: commit even if a cancel arrived meanwhile (it is paid for).
      await opts.store.commit(chunk.id, outcome);
      summary.calls += outcome.attempts;
      summary.inputTokens += outcome.inputTokens;
      summary.outputTokens += outcome.outputTokens;
      summary.cost += outcome.cost;
      if (outcome.status === 'done') summary.done++;
      else {
        summary.failed++;
        summary.failures.push({ chunkId: chunk.id, reason: outcome.reason });
      }
      summary.remaining--;
      report(chunk.id);
    }
  };
  const lanes = Math.max(1, Math.min(opts.concurrency ?? 2, todo.length));
  try {
    await Promise.all(Array.from({ length: lanes }, lane));
  } finally {
    opts.signal?.removeEventListener('abort', onCallerAbort);
    opts.hardSignal?.removeEventListener('abort', onCallerAbort);
  }
  summary.cancelled = !!opts.signal?.aborted || !!opts.hardSignal?.aborted;
  return summary;
}
