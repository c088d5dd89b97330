// TF-IDF concepts per chunk (G2ConS step 1, no LLM): a concept is a term plus the chunks it was kept for.
// Input is the analysed term list of every chunk (with repetitions), so the same analysis also feeds BM25.
import { isCjkTerm, type ScriptChunks } from '../text/index.ts';

/** Concepts and their chunk sets, as two CSR maps (concept → chunks, chunk → concepts). */
export interface ConceptTable {
  chunkCount: number;
  /** Concept id → term, sorted lexicographically (deterministic ids). */
  terms: string[];
  /** ln(N / df) over all chunks (N of the term's script with scriptChunks), counted before any selection. */
  idf: Float32Array;
  /** The per-script chunk counts the IDFs and the cap were computed against (ConceptOptions.scriptChunks). */
  scriptChunks?: ScriptChunks;
  /** T(c): chunk indexes of concept c are conceptChunks[conceptChunkOffsets[c] .. conceptChunkOffsets[c+1]). */
  conceptChunkOffsets: Uint32Array;
  conceptChunks: Uint32Array;
  /** Concepts of chunk k, ascending concept id, with their TF-IDF weight in that chunk. */
  chunkConceptOffsets: Uint32Array;
  chunkConcepts: Uint32Array;
  chunkConceptWeights: Float32Array;
}

export interface ConceptOptions {
  /** Keep at most this many concepts per chunk, highest TF-IDF first (0 = keep every term). */
  conceptsPerChunk: number;
  /** Terms in more than dfCap(maxDfFraction, N) chunks are not concepts (1 = no cap). */
  maxDfFraction: number;
  /** … but a term in up to this many chunks (and not in all) always may be (default MIN_DF_CAP). */
  minDfCap?: number;
  /**
   * The library's chunks holding a term of each script (text/scripts.ts): a term's IDF and cap are then counted
   * against its script's chunks, not all N. Absent: one N (a library of one script, or a build without them).
   */
  scriptChunks?: ScriptChunks;
}

/** A term's N and concept cap where a library counts its words per script (extractConcepts' scriptChunks). */
export interface ScriptStatistics {
  nOf(term: string): number;
  capOf(term: string): number;
}

/** The N and cap of each script's terms: dfCap over the chunks of the term's script. */
export function scriptStatistics(
  scripts: ScriptChunks,
  maxDfFraction: number,
  minCap?: number,
): ScriptStatistics {
  const capOther = dfCap(maxDfFraction, scripts.other, minCap);
  const capCjk = dfCap(maxDfFraction, scripts.cjk, minCap);
  return {
    nOf: (term) => (isCjkTerm(term) ? scripts.cjk : scripts.other),
    capOf: (term) => (isCjkTerm(term) ? capCjk : capOther),
  };
}

/** Whether two lists (of chunk ids, terms or a table's numbers) hold the same items in the same order. */
export function sameItems<T>(a: ArrayLike<T>, b: ArrayLike<T>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Builds the concept table from per-chunk term lists (chunk order = index order, callers sort by chunk id). */
export function extractConcepts(
  chunkTerms: readonly (readonly string[])[],
  options: ConceptOptions,
): ConceptTable {
  checkConceptOptions(options);
  const n = chunkTerms.length;
  // Document frequency of every term, over distinct terms per chunk.
  const df = new Map<string, number>();
  const chunkCounts: Map<string, number>[] = chunkTerms.map((terms) => {
    const counts = new Map<string, number>();
    for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const t of counts.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    return counts;
  });
  // The cap is for large libraries, where a keyphrase of a third of the chunks links thousands of passages; in the
  // samples' 11 chunks a third is 3, and "canal", the subject of a four-section page, could not be a concept, so the
  // walk had no seed. A term in up to MIN_DF_CAP chunks (and not in all of them) is always specific enough.
  const maxDf = dfCap(options.maxDfFraction, n, options.minDfCap);
  const perScript =
    options.scriptChunks && scriptStatistics(options.scriptChunks, options.maxDfFraction, options.minDfCap);

  // Select concepts per chunk by TF-IDF; ties broken by term so the result does not depend on token order.
  const kept: Array<Array<[string, number]>> = chunkCounts.map((counts) =>
    selectChunkConcepts(counts, (t) => df.get(t)!, n, maxDf, options.conceptsPerChunk, perScript),
  );

  const termSet = new Set<string>();
  for (const list of kept) for (const [t] of list) termSet.add(t);
  const terms = [...termSet].sort();
  const idOf = new Map<string, number>();
  terms.forEach((t, i) => idOf.set(t, i));
  const idf = new Float32Array(terms.length);
  terms.forEach((t, i) => (idf[i] = conceptIdf(perScript ? perScript.nOf(t) : n, df.get(t)!)));

  // chunk → concepts
  const chunkConceptOffsets = new Uint32Array(n + 1);
  for (let k = 0; k < n; k++) chunkConceptOffsets[k + 1] = chunkConceptOffsets[k] + kept[k].length;
  const total = chunkConceptOffsets[n];
  const chunkConcepts = new Uint32Array(total);
  const chunkConceptWeights = new Float32Array(total);
  for (let k = 0; k < n; k++) {
    const pairs = kept[k].map(([t, w]) => [idOf.get(t)!, w] as const).sort((a, b) => a[0] - b[0]);
    let o = chunkConceptOffsets[k];
    for (const [c, w] of pairs) {
      chunkConcepts[o] = c;
      chunkConceptWeights[o++] = w;
    }
  }
  return conceptTableFromChunks({
    chunkCount: n,
    terms,
    idf,
    chunkConceptOffsets,
    chunkConcepts,
    chunkConceptWeights,
    ...(options.scriptChunks && { scriptChunks: options.scriptChunks }),
  });
}

/**
 * The concepts one chunk keeps, best first, with their TF-IDF weight: its terms (term → tf in the chunk) in at most
 * maxDf of the n chunks, by tf · ln(n / df), at most `perChunk` of them (0 = all). Shared by extractConcepts and the
 * streaming build (src/cli/streamIndex.ts), which counts df over every chunk first and selects chunk by chunk.
 */
export function selectChunkConcepts(
  counts: Iterable<[string, number]>,
  dfOf: (term: string) => number,
  n: number,
  maxDf: number,
  perChunk: number,
  /** Per-script N and cap (scriptStatistics), in place of `n` and `maxDf`. */
  perScript?: ScriptStatistics,
): Array<[string, number]> {
  const scored: Array<[string, number]> = [];
  for (const [term, tf] of counts) {
    const d = dfOf(term);
    if (d > (perScript ? perScript.capOf(term) : maxDf)) continue;
    scored.push([term, tf * Math.log((perScript ? perScript.nOf(term) : n) / d)]);
  }
  scored.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return perChunk > 0 ? scored.slice(0, perChunk) : scored;
}

/** The IDF a concept table stores for a term in d of n chunks (ln(n / d), before any selection). */
export function conceptIdf(n: number, d: number): number {
  return Math.log(n / d);
}

/** Checks extractConcepts' options (and the streaming build's). */
export function checkConceptOptions(options: ConceptOptions): void {
  if (!Number.isInteger(options.conceptsPerChunk) || options.conceptsPerChunk < 0) {
    throw new Error(
      `concept extraction: conceptsPerChunk must be an integer ≥ 0, got ${options.conceptsPerChunk}`,
    );
  }
  if (!(options.maxDfFraction > 0 && options.maxDfFraction <= 1)) {
    throw new Error(`concept extraction: maxDfFraction must be in (0, 1], got ${options.maxDfFraction}`);
  }
}

/** Chunks a concept may always be in, whatever the fraction (and not all of a library's chunks). */
const MIN_DF_CAP = 20;

/** The largest document frequency a concept may have among n chunks (extractConcepts and the incremental graph). */
export function dfCap(maxDfFraction: number, n: number, minCap = MIN_DF_CAP): number {
  return maxDfFraction >= 1 ? n : Math.max(Math.floor(maxDfFraction * n), Math.min(minCap, n - 1), 1);
}

/** The chunk → concept side of a table: what a compact graph stores (the other side is rebuilt from it). */
export type ChunkConceptLinks = Omit<ConceptTable, 'conceptChunkOffsets' | 'conceptChunks'>;

/** A whole table from its chunk → concept side: concept → chunks, ascending chunk index. */
export function conceptTableFromChunks(links: ChunkConceptLinks): ConceptTable {
  const { chunkCount: n, terms, chunkConceptOffsets, chunkConcepts } = links;
  const total = chunkConceptOffsets[n];
  const conceptDegree = new Uint32Array(terms.length);
  for (let o = 0; o < total; o++) conceptDegree[chunkConcepts[o]]++;
  const conceptChunkOffsets = new Uint32Array(terms.length + 1);
  for (let c = 0; c < terms.length; c++)
    conceptChunkOffsets[c + 1] = conceptChunkOffsets[c] + conceptDegree[c];
  // Ascending chunk index because chunks are visited in order.
  const fill = conceptChunkOffsets.slice(0, terms.length);
  const conceptChunks = new Uint32Array(total);
  for (let k = 0; k < n; k++) {
    for (let o = chunkConceptOffsets[k]; o < chunkConceptOffsets[k + 1]; o++)
      conceptChunks[fill[chunkConcepts[o]]++] = k;
  }
  return { ...links, conceptChunkOffsets, conceptChunks };
}

/** Term → concept id lookup for a table. */
export function conceptIndex(table: ConceptTable): Map<string, number> {
  const m = new Map<string, number>();
  table.terms.forEach((t, i) => m.set(t, i));
  return m;
}
