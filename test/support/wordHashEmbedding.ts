// A deterministic bag-of-words embedding for tests that need concept vectors to differ (so θsem drops some edges
// and keeps others) without a model: each word adds a fixed pseudo-random vector (FNV-1a seeded), the sum is
// normalized. Texts that share words get close vectors, as with a real sentence model.
import type { TermAnalyzer } from '../../src/core/graph/index.ts';

/** A unit vector of `dim` dimensions for `text`, from the words `analyzer` gives. */
export function wordHashVector(
  text: string,
  analyzer: Pick<TermAnalyzer, 'words'>,
  dim: number,
): Float32Array {
  const out = new Float32Array(dim);
  for (const word of analyzer.words(text)) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    for (let d = 0; d < dim; d++) {
      h = Math.imul(h ^ (h >>> 13), 1540483477);
      out[d] += ((h >>> 0) / 4294967296) * 2 - 1;
    }
  }
  let norm = 0;
  for (const x of out) norm += x * x;
  if (norm > 0) for (let d = 0; d < dim; d++) out[d] /= Math.sqrt(norm);
  return out;
}
