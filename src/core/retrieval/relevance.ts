// One relevance signal a person can read, the same for every mode. The modes' own scores live on unrelated scales
// (a PageRank mass of 0.017, a cosine of 0.89, a BM25 of 6.61), so the signal is made from what every mode
// returns: how many of the question's words a passage holds, and its score relative to the best passage of the
// same answer. When no passage holds any of the question's words, the library has no good match, and saying so
// is more honest than 47 passages ranked by nothing (a question on quantum chromodynamics over the Vue docs).

export type RelevanceLabel = 'strong' | 'good' | 'partial' | 'weak';

export interface Relevance {
  /** 0–100: 100 is a passage with every word of the question and the best score of the answer. */
  value: number;
  label: RelevanceLabel;
}

export interface RelevanceInput {
  score: number;
  text: string;
  /** Heading path: a passage under "Watchers" is about watchers even where its text says "it". */
  path?: readonly string[];
}

/** The lower bounds of the labels, on the 0–100 scale. */
const RELEVANCE_LABELS: ReadonlyArray<[number, RelevanceLabel]> = [
  [60, 'strong'],
  [35, 'good'],
  [15, 'partial'],
  [0, 'weak'],
];

/** Passages shown before "more": at least this many, at most PASSAGES_SHOWN_MAX. */
const PASSAGES_SHOWN_MIN = 5;
const PASSAGES_SHOWN_MAX = 8;

export function relevanceLabel(value: number): RelevanceLabel {
  return RELEVANCE_LABELS.find(([min]) => value >= min)?.[1] ?? 'weak';
}

/**
 * The relevance of each passage of one answer (same order), and whether the library has no good match: the
 * question has words of its own and no passage holds any of them. `terms` is the library's analyser (stems, no
 * stop words), so "watchers" in the question meets "watcher" in the text.
 */
export function rateEvidence(
  question: string,
  passages: readonly RelevanceInput[],
  terms: (text: string) => string[],
): { relevance: Relevance[]; noGoodMatch: boolean } {
  const asked = new Set(terms(question));
  // Scores below zero (a cosine) count as nothing; a list with no positive score is rated by words alone.
  const top = Math.max(0, ...passages.map((p) => p.score));
  let anyWord = false;
  const relevance = passages.map((p) => {
    let coverage = 1;
    if (asked.size > 0) {
      const own = new Set(terms([...(p.path ?? []), p.text].join('\n')));
      let held = 0;
      for (const t of asked) if (own.has(t)) held++;
      coverage = held / asked.size;
      if (held > 0) anyWord = true;
    }
    const relative = top > 0 ? Math.max(0, p.score) / top : 1;
    const value = Math.round(100 * coverage * Math.sqrt(relative));
    return { value, label: relevanceLabel(value) };
  });
  return { relevance, noGoodMatch: asked.size > 0 && passages.length > 0 && !anyWord };
}

/**
 * How many passages to show before "more": those within half of the best passage's relevance, kept between
 * PASSAGES_SHOWN_MIN and PASSAGES_SHOWN_MAX (never more than there are).
 */
export function passagesShown(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const best = Math.max(...values);
  const close = values.filter((v) => v >= best / 2).length;
  return Math.min(values.length, Math.max(PASSAGES_SHOWN_MIN, Math.min(PASSAGES_SHOWN_MAX, close)));
}
