// The best part of a chunk that is larger than the whole token budget: a run of consecutive sentences grown from
// the chunk's best sentence towards its better-scoring neighbour, while it fits. A reader gets a passage that
// reads as one piece (not scattered lines), and a 300-token budget over 1,200-token chunks returns evidence
// instead of nothing.

export interface ScoredSentence {
  /** Offsets into the chunk text. */
  start: number;
  end: number;
  score: number;
  tokens: number;
}

/**
 * Indexes [first, last] (inclusive, into `sentences`, which are in text order) of the best run that fits in
 * `budget` tokens, or undefined when not even one sentence fits.
 */
export function bestExcerpt(
  sentences: readonly ScoredSentence[],
  budget: number,
): { first: number; last: number } | undefined {
  let seed = -1;
  for (let i = 0; i < sentences.length; i++) {
    if (sentences[i].tokens > budget) continue;
    if (seed < 0 || sentences[i].score > sentences[seed].score) seed = i;
  }
  if (seed < 0) return undefined;
  let first = seed;
  let last = seed;
  // Sentences joined by a space or a line break: their token counts add up to within a token or two.
  let used = sentences[seed].tokens;
  for (;;) {
    const left = first > 0 && used + sentences[first - 1].tokens <= budget ? first - 1 : -1;
    const right = last < sentences.length - 1 && used + sentences[last + 1].tokens <= budget ? last + 1 : -1;
    if (left < 0 && right < 0) break;
    const takeLeft = left >= 0 && (right < 0 || sentences[left].score > sentences[right].score);
    if (takeLeft) {
      first = left;
      used += sentences[left].tokens;
    } else {
      last = right;
      used += sentences[right].tokens;
    }
  }
  return { first, last };
}
