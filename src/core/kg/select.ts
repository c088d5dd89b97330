// Core-chunk selection (G2ConS): the top κ of chunks by concept-graph chunk rank go to KG extraction, and the
// cost of that extraction is estimated before any call. Takes ranks as plain data so it does not depend on
// the graph's internals.
import { estimateMessageTokens, costOf } from '../llm/index.ts';
import { countTokens } from '../text/index.ts';
import { EXTRACTION_MAX_TOKENS, extractionMessages } from './prompt.ts';

export const DEFAULT_KAPPA = 0.8;

/**
 * Output tokens estimated per input token of an extraction call. An assumption, not a measurement: GraphRAG-style
 * extraction replies are typically a third to a half of the prompt; 0.35 follows the project brief. The UI and the
 * CLI label output figures as estimates.
 */
export const DEFAULT_OUTPUT_RATIO = 0.35;

export type ChunkRanks = ReadonlyMap<string, number> | ReadonlyArray<{ chunkId: string; rank: number }>;

function checkKappa(kappa: number): void {
  if (!(kappa > 0 && kappa <= 1)) throw new Error(`core-chunk selection: κ must be in (0, 1], got ${kappa}`);
}

/** Chunk ids by rank, highest first (ties by id, so the selection is deterministic). */
export function rankOrder(ranks: ChunkRanks): string[] {
  const pairs =
    ranks instanceof Map ? [...ranks].map(([chunkId, rank]) => ({ chunkId, rank })) : [...(ranks as [])];
  const list = pairs as Array<{ chunkId: string; rank: number }>;
  return list
    .sort((a, b) => b.rank - a.rank || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0))
    .map((p) => p.chunkId);
}

/** How many of n chunks κ selects: ⌈κ·n⌉, so any κ > 0 selects at least one chunk of a non-empty corpus. */
export function coreCount(n: number, kappa: number): number {
  checkKappa(kappa);
  return Math.min(n, Math.ceil(kappa * n - 1e-9));
}

/** The core chunks: the top ⌈κ·n⌉ chunk ids by rank. */
export function selectCoreChunks(ranks: ChunkRanks, kappa: number = DEFAULT_KAPPA): string[] {
  const order = rankOrder(ranks);
  return order.slice(0, coreCount(order.length, kappa));
}

export interface KgCostEstimate {
  kappa: number;
  calls: number;
  inputTokens: number;
  /** Estimated: inputTokens × outputRatio, capped per call at the extraction's max_tokens. */
  outputTokens: number;
  cost: number;
}

export interface CostOptions {
  priceInPerM?: number;
  priceOutPerM?: number;
  outputRatio?: number;
}

/** Input tokens of one chunk's extraction call (prompt + chunk + message framing). */
export function extractionInputTokens(chunkText: string): number {
  return estimateMessageTokens(extractionMessages(chunkText));
}

/**
 * Cost of extracting the given chunks (already ordered by rank) at each κ. Counting is exact per chunk for the
 * input (cl100k); the output is the ratio estimate.
 */
export function estimateKgCost(
  rankedChunks: ReadonlyArray<{ text: string }>,
  kappas: readonly number[],
  options: CostOptions = {},
): KgCostEstimate[] {
  const ratio = options.outputRatio ?? DEFAULT_OUTPUT_RATIO;
  // Prompt framing is the same for every chunk: count it once, then add each chunk's own tokens.
  const framing = extractionInputTokens('') - countTokens('');
  const perChunk = rankedChunks.map((c) => framing + countTokens(c.text));
  return kappas.map((kappa) => {
    const calls = coreCount(perChunk.length, kappa);
    let inputTokens = 0;
    let outputTokens = 0;
    for (let i = 0; i < calls; i++) {
      inputTokens += perChunk[i];
      outputTokens += Math.min(EXTRACTION_MAX_TOKENS, Math.round(perChunk[i] * ratio));
    }
    return {
      kappa,
      calls,
      inputTokens,
      outputTokens,
      cost: costOf(inputTokens, outputTokens, options.priceInPerM ?? 0, options.priceOutPerM ?? 0),
    };
  });
}
