// Mode `hybrid` (G2ConS dual path): the concept-graph path and the KG path run in parallel; chunks found by both
// come first, then each path fills its own share of the budget: concept ≤ (1 − λ)·β, KG ≤ λ·β (λ = 0.6).
import type { Provenance, RetrievedChunk } from '../retrieval/index.ts';
import type { KgProvenance } from './search.ts';

export const DEFAULT_LAMBDA = 0.6;

interface HybridProvenance extends Provenance {
  mode: 'hybrid';
  /** Which paths found the chunk. */
  paths: Array<'concept' | 'kg'>;
  entities?: string[];
  concepts?: string[];
}

export function hybrid(
  conceptResults: readonly RetrievedChunk[],
  kgResults: readonly RetrievedChunk[],
  budgetTokens: number,
  lambda: number = DEFAULT_LAMBDA,
): RetrievedChunk[] {
  if (!(lambda >= 0 && lambda <= 1)) throw new Error(`hybrid retrieval: λ must be in [0, 1], got ${lambda}`);
  if (!(budgetTokens >= 0))
    throw new Error(`hybrid retrieval: budget must be ≥ 0 tokens, got ${budgetTokens}`);
  let conceptLeft = (1 - lambda) * budgetTokens;
  let kgLeft = lambda * budgetTokens;
  const kgRank = new Map(kgResults.map((r, i) => [r.chunkId, i]));
  const conceptRank = new Map(conceptResults.map((r, i) => [r.chunkId, i]));
  const kgById = new Map(kgResults.map((r) => [r.chunkId, r]));

  const make = (r: RetrievedChunk, paths: Array<'concept' | 'kg'>, score: number): RetrievedChunk => {
    const kg = kgById.get(r.chunkId)?.provenance as KgProvenance | undefined;
    const fromConcept = conceptRank.has(r.chunkId) ? conceptResults[conceptRank.get(r.chunkId)!] : undefined;
    const provenance: HybridProvenance = {
      mode: 'hybrid',
      paths,
      entities: kg?.entities,
      concepts: fromConcept?.provenance.concepts,
      hop: fromConcept?.provenance.hop,
      via: [
        fromConcept ? `${fromConcept.provenance.mode}#${conceptRank.get(r.chunkId)! + 1}` : '',
        kg ? `kg#${kgRank.get(r.chunkId)! + 1}` : '',
      ]
        .filter(Boolean)
        .join(', '),
    };
    const bestSentences = fromConcept?.bestSentences.length ? fromConcept.bestSentences : r.bestSentences;
    return { ...r, score, provenance, bestSentences };
  };

  // Both paths: ordered by the sum of reciprocal ranks, charged to the two shares in proportion λ.
  const both = conceptResults
    .filter((r) => kgRank.has(r.chunkId))
    .map((r) => ({ r, score: 1 / (60 + conceptRank.get(r.chunkId)!) + 1 / (60 + kgRank.get(r.chunkId)!) }))
    .sort((a, b) => b.score - a.score);
  const out: RetrievedChunk[] = [];
  const taken = new Set<string>();
  for (const { r, score } of both) {
    const c = (1 - lambda) * r.tokens;
    const k = lambda * r.tokens;
    if (c > conceptLeft + 1e-9 || k > kgLeft + 1e-9) continue;
    conceptLeft -= c;
    kgLeft -= k;
    taken.add(r.chunkId);
    out.push(make(r, ['concept', 'kg'], score));
  }
  // Then each path alone within its share, interleaved by rank so neither path is starved in the order.
  const pick = (list: readonly RetrievedChunk[], path: 'concept' | 'kg'): RetrievedChunk[] => {
    const chosen: RetrievedChunk[] = [];
    list.forEach((r, i) => {
      if (taken.has(r.chunkId)) return;
      const left = path === 'kg' ? kgLeft : conceptLeft;
      if (r.tokens > left + 1e-9) return;
      if (path === 'kg') kgLeft -= r.tokens;
      else conceptLeft -= r.tokens;
      taken.add(r.chunkId);
      chosen.push(make(r, [path], 1 / (60 + i)));
    });
    return chosen;
  };
  const kgOnly = pick(kgResults, 'kg');
  const conceptOnly = pick(conceptResults, 'concept');
  for (let i = 0; i < Math.max(kgOnly.length, conceptOnly.length); i++) {
    if (kgOnly[i]) out.push(kgOnly[i]);
    if (conceptOnly[i]) out.push(conceptOnly[i]);
  }
  return out;
}
