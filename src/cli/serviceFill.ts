// `cli index --embedder openai:…` at scale: how the endpoint's requests are batched and retried, and the fill of
// the embedding cache that runs them side by side before the embedding loop (which then finds every text cached).
// Progress goes to the log at most every 2 s; Ctrl-C or SIGTERM lets the requests in flight finish and be stored.
import process from 'node:process';
import type { EndpointOptions } from './embedders.ts';
import type { CachedEmbedder } from './embeddingCache.ts';
import { formatFillProgress, formatFillSummary, throttled } from './embedProgress.ts';

/** Requests in flight against an embedding endpoint, and texts per request (docs/embedding-service.md). */
export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_BATCH = 32;
/** Attempts per request: a 429, 5xx or dropped connection is retried with back-off (8–16 s of waiting in all). */
const ENDPOINT_ATTEMPTS = 6;
const PROGRESS_EVERY_MS = 2000;

/** The endpoint embedder's request settings for `cli index`; every retry is logged (the message has no key). */
export function endpointRequestOptions(
  apiKey: string | undefined,
  batchSize: number,
  log: (line: string) => void,
): EndpointOptions {
  return {
    apiKey,
    batchSize,
    maxAttempts: ENDPOINT_ATTEMPTS,
    onRetry: (r) =>
      log(`retry ${r.attempt}/${r.maxAttempts - 1} in ${(r.delayMs / 1000).toFixed(1)} s: ${r.message}`),
  };
}

/**
 * Embeds every text the cache lacks, `concurrency` requests of `batchSize` texts at a time, each stored as it
 * arrives. The first Ctrl-C (or SIGTERM) starts no new request and stores the ones in flight before the fill
 * throws (FillStoppedError); a second one quits at once. SIGKILL loses at most the requests in flight.
 */
export async function fillFromService(
  cache: CachedEmbedder,
  texts: string[],
  options: { concurrency: number; batchSize: number; log: (line: string) => void },
): Promise<void> {
  const { log } = options;
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stop.signal.aborted) process.exit(130);
    log(`${signal}: storing the requests in flight, then stopping (again to quit at once)`);
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const cpu = process.cpuUsage();
  try {
    const done = await cache.fill(texts, {
      concurrency: options.concurrency,
      batchSize: options.batchSize,
      stop: stop.signal,
      onProgress: throttled((p) => log(formatFillProgress(p)), PROGRESS_EVERY_MS),
    });
    const used = process.cpuUsage(cpu);
    log(formatFillSummary(done, (used.user + used.system) / 1e6));
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
