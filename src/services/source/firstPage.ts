// The Ask view's first page: the passages it shows before "More passages" (passagesShown: those within half of the best
// passage's relevance, 5 to 8), read without the rest of the evidence where the source reads records as it needs
// them (a paged index: a shared link, a bundle). A passage's relevance (rateEvidence) is the share of the question's
// words its heading path and text hold, times the square root of its score relative to the answer's best (rounded).
// A passage not read is bounded by its score (known for every hit) and the words the word index says it may hold (its
// postings: a word neither its text nor its headings hold is not counted). Reading the first cards, then every unread
// one whose bound reaches half of the best read, then any the page would still show, gives the page that every
// passage's text gives (the same cards, order, ratings and sentences), and reads the other passages' records only
// when the rest is wanted ("More passages", a written answer, Evaluate, `cli ask`).
import type { CardsWanted } from '../../core/paged/index.ts';
import { passagesShown, rateEvidence, type RetrievedChunk } from '../../core/retrieval/index.ts';

/** The hits `cards` of a paged search wants read for the first page of `question`'s answer (see above). */
export function firstPageWanted(question: string, terms: (text: string) => string[]): CardsWanted {
  return (hits, unread, mayHold) => {
    const wanted: number[] = [];
    if (unread.size === hits.length) {
      // Nothing read yet: as many first cards as a page can show; the words' postings the bounds below read are
      // asked for now, so that they come in the same round as these cards.
      const most = passagesShown(hits.map(() => 100));
      for (let i = 0; i < most; i++) wanted.push(i);
      if (hits.length > most) for (const t of new Set(terms(question))) mayHold(most, t);
      return wanted;
    }
    // An unread hit rated as if its text were the question's own words (every word held: the score's share alone),
    // then scaled by the share of the words it may hold: round(100 × share × s) ≤ share × (round(100 × s) + ½) + ½.
    const rated = rateEvidence(
      question,
      hits.map((h, i) => (unread.has(i) ? { score: h.score, text: question } : h)),
      terms,
    ).relevance.map((r) => r.value);
    const asked = [...new Set(terms(question))];
    let best = 0;
    rated.forEach((v, i) => {
      if (!unread.has(i)) best = Math.max(best, v);
    });
    for (const i of unread) {
      const share = asked.length === 0 ? 1 : asked.filter((t) => mayHold(i, t)).length / asked.length;
      if (share * (rated[i] + 0.5) + 0.5 >= best / 2) wanted.push(i);
    }
    if (wanted.length > 0) return wanted;
    // Every unread hit is below half of the best: none counts as close, and the page shows the first `shown`.
    const shown = firstPageLength(question, hits, unread, terms);
    for (const i of unread) if (i < shown) wanted.push(i);
    return wanted;
  };
}

/**
 * How many passages the page shows first, once `firstPageWanted` wants nothing more: passagesShown over the hits,
 * an unread hit counted as rated 0 (it is below half of the best, so not close, whatever its text).
 */
function firstPageLength(
  question: string,
  hits: readonly RetrievedChunk[],
  unread: ReadonlySet<number>,
  terms: (text: string) => string[],
): number {
  const { relevance } = rateEvidence(question, hits, terms);
  return passagesShown(relevance.map((r, i) => (unread.has(i) ? 0 : r.value)));
}
