// A chunk order for the rows section that keeps chunks sharing a rare concept together, shared by the rows benches
// (walk-rows.ts, round fourteen; walk-layouts.ts, round sixteen).

/** What the order reads of a decoded library: each chunk's concepts, each concept's chunks and df. */
export interface ChunkConceptLinks {
  d: { chunkCount: number };
  df: Uint32Array;
  /** Chunk k's concepts: ids[starts[k]..starts[k + 1]). */
  starts: Uint32Array;
  ids: Uint32Array;
  /** Concept c's chunks: chunks[listStarts[c]..listStarts[c + 1]). */
  listStarts: ArrayLike<number>;
  chunks: Uint32Array;
}

/**
 * Breadth first from each chunk not yet placed (in chunk order), a chunk's neighbours being the other chunks of its
 * concepts of df ≤ maxDf, rarest concept first. position[k] is chunk k's place.
 */
export function rareConceptOrder(x: ChunkConceptLinks, maxDf: number): Uint32Array {
  const n = x.d.chunkCount;
  const position = new Uint32Array(n).fill(0xffffffff);
  const queue = new Uint32Array(n);
  let placed = 0;
  for (let s = 0; s < n; s++) {
    if (position[s] !== 0xffffffff) continue;
    let head = placed;
    position[s] = placed;
    queue[placed++] = s;
    while (head < placed) {
      const k = queue[head++];
      const cs = Array.from(x.ids.subarray(x.starts[k], x.starts[k + 1])).filter(
        (c) => x.df[c] >= 2 && x.df[c] <= maxDf,
      );
      cs.sort((a, b) => x.df[a] - x.df[b]);
      for (const c of cs)
        for (let i = x.listStarts[c]; i < x.listStarts[c + 1]; i++) {
          const j = x.chunks[i];
          if (position[j] === 0xffffffff) {
            position[j] = placed;
            queue[placed++] = j;
          }
        }
    }
  }
  return position;
}

/**
 * Concept u's walk row's targets (θco 1: every concept sharing a chunk with it), sorted, into `found`; `counts[v]`
 * gains each target's co-occurrences (the caller clears it after).
 */
export function coListed(x: ChunkConceptLinks, u: number, counts: Uint32Array, found: number[]): void {
  found.length = 0;
  for (let i = x.listStarts[u]; i < x.listStarts[u + 1]; i++) {
    const k = x.chunks[i];
    for (let j = x.starts[k]; j < x.starts[k + 1]; j++) {
      const v = x.ids[j];
      if (v !== u && counts[v]++ === 0) found.push(v);
    }
  }
  found.sort((a, b) => a - b);
}
