// The words' own place in the default mode's ranking (pprSearch.ts placeWords; issue 45, wordSlots): the question's
// words' best passage, left below the walk's first few, is moved up to rank wordsAt + 1; a ranking that already holds
// it there is left alone.
import { describe, expect, it } from 'vitest';
import { placeWords } from '../../../src/core/retrieval/pprSearch.ts';
import type { Candidate } from '../../../src/core/retrieval/types.ts';

// The walk's ranking: chunks 10..17 with falling scores.
const walk: Candidate[] = [10, 11, 12, 13, 14, 15, 16, 17].map((chunk, i) => ({ chunk, score: 8 - i }));
const chunks = (list: readonly Candidate[]) => list.map((c) => c.chunk);

describe('placeWords', () => {
  it('moves the words’ best passage from rank 7 to rank 5, the rest following in order', () => {
    const out = placeWords(walk, [{ chunk: 16, score: 3.2 }], 1, 4, 8);
    expect(chunks(out)).toEqual([10, 11, 12, 13, 16, 14, 15, 17]);
    // Its score lies between its new neighbours', so the list stays ordered by score.
    expect(out[4].score).toBeLessThan(out[3].score);
    expect(out[4].score).toBeGreaterThan(out[5].score);
    expect(out[4].via).toMatch(/words/);
  });

  it('leaves the ranking alone when the words’ best is already in the first wordsAt + slots', () => {
    expect(chunks(placeWords(walk, [{ chunk: 14, score: 9 }], 1, 4, 8))).toEqual(chunks(walk));
    expect(chunks(placeWords(walk, [{ chunk: 10, score: 9 }], 1, 4, 8))).toEqual(chunks(walk));
  });

  it('takes the first of the words’ best that is missing, and a passage the walk never reached', () => {
    // 11 is in the first five already; 42 was not ranked by the walk at all.
    const out = placeWords(
      walk,
      [{ chunk: 11 }, { chunk: 42 }].map((c) => ({ ...c, score: 1 })),
      1,
      4,
      6,
    );
    expect(chunks(out)).toEqual([10, 11, 12, 13, 42, 14]);
  });
});
