// A theme's label (issue 48): its three concepts that name it best. A concept ranks by its PageRank within the
// community times the square root of the share of its chunks that are in the theme: a hub of the community that is
// as much in every other theme ("include", "played", "university" in Wikipedia passages) gives way to one that is
// this theme's own, the idea of class-based TF-IDF (BERTopic's c-TF-IDF) with the centrality kept first. The square
// root keeps centrality the larger factor: the share alone made the labels narrower ("nested objects · extends
// object" for Vue's reactivity fundamentals; docs/results/themes.md, "Round four").
//
// A label says three things, not one thing three times: a concept whose word stems are all in the label already
// ("events" after "event", "virtual" after "virtual dom") is passed over, and so is a number or ordinal ("1st",
// "1920s"), which names no topic.
import stem from 'wink-porter2-stemmer';

/** A concept as the label ranks it: its PageRank within its community; its documents, and those in the theme. */
export interface LabelCandidate {
  centrality: number;
  documents: number;
  /** Its documents with a chunk in the theme. */
  documentsInTheme: number;
}

/** How much a concept names its theme: centrality × √(share of its documents in the theme). */
export function labelScore(c: LabelCandidate): number {
  return c.centrality * Math.sqrt(c.documents > 0 ? c.documentsInTheme / c.documents : 0);
}

const NUMBER_WORD = /^\d+(?:st|nd|rd|th|s)?$/;

/** The stems of a concept's words (plain lowercase English words stemmed, other words as they are). */
function wordStems(term: string): string[] {
  return (term.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).map((w) => (/^[a-z]+$/.test(w) ? stem(w) : w));
}

/**
 * The first `count` of `ranked` (best first) that add a word to the label and are not numbers; if fewer qualify, the
 * label is filled from the rest in order, so a theme of few concepts keeps a label of `count`.
 */
export function labelTerms(ranked: readonly string[], count: number): string[] {
  const picked: string[] = [];
  const said = new Set<string>();
  for (const term of ranked) {
    if (picked.length >= count) break;
    const stems = wordStems(term);
    if (stems.length === 0 || stems.every((s) => NUMBER_WORD.test(s) || said.has(s))) continue;
    picked.push(term);
    for (const s of stems) said.add(s);
  }
  for (const term of ranked) {
    if (picked.length >= count) break;
    if (!picked.includes(term)) picked.push(term);
  }
  return picked;
}
