// Core-chunk selection (G2ConS): the top κ of chunks by concept-graph chunk rank go to KG extraction. Takes ranks as
// plain data so it does not depend on the graph's internals. What a build over them would cost is estimated by
// src/core/atomic/estimate.ts, with the output ratio below.

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
