// The throughput measurements of the ingest-rate benchmark (test/bench/ingest-rate.ts): the bare embedder on a list
// of sentences, and the embedding pipeline on a stream of prepared documents, each as sentences per second of
// wall-clock time.

import type { Embedder, PreparedDocument } from '../../../src/core/types.ts';
import { embedDocuments } from '../../../src/core/pipeline/embedDocuments.ts';

export interface RateSample {
  sentences: number;
  seconds: number;
  /** sentences / seconds */
  rate: number;
}

/** The bare embedder: `texts` in calls of `callSize` (the pipeline's batch size, so both see the same calls). */
export async function measureEmbedderRate(
  embedder: Embedder,
  texts: string[],
  callSize = 128,
): Promise<RateSample> {
  const t0 = performance.now();
  for (let i = 0; i < texts.length; i += callSize) await embedder.embed(texts.slice(i, i + callSize));
  const seconds = (performance.now() - t0) / 1000;
  return { sentences: texts.length, seconds, rate: texts.length / seconds };
}

/**
 * The pipeline: documents as they come from `source` (parsing included when the source parses lazily) →
 * embedDocuments, each document's vectors handed over as the indexer takes them (it stores sentence vectors;
 * chunk vectors are the retrieval engine's, made when a library opens).
 */
export async function measurePipelineRate(
  embedder: Embedder,
  source: AsyncIterable<PreparedDocument> | Iterable<PreparedDocument>,
  batchSize = 128,
): Promise<RateSample & { documents: number }> {
  const t0 = performance.now();
  const result = await embedDocuments(source, embedder, { batchSize, onDocument: () => undefined });
  const seconds = (performance.now() - t0) / 1000;
  return {
    sentences: result.sentences,
    documents: result.documents,
    seconds,
    rate: result.sentences / seconds,
  };
}

export interface RateRow {
  name: string;
  sentences: number;
  seconds: number;
  rate: number;
  /** Optional extra column, e.g. sentences per CPU-second in Node. */
  cpuRate?: number;
}

/** A fixed-width text table of rate rows. */
export function formatRateTable(rows: RateRow[]): string {
  const head = ['run', 'sentences', 'seconds', 'sentences/s', 'sentences/CPU-s'];
  const body = rows.map((r) => [
    r.name,
    String(r.sentences),
    r.seconds.toFixed(2),
    r.rate.toFixed(1),
    r.cpuRate === undefined ? '' : r.cpuRate.toFixed(1),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n') + '\n';
}
