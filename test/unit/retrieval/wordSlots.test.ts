// The words' slot in the default mode (params.ts wordSlots, default off; pprSearch.ts placeWords; issue 45): "Which
// city hosted the first concert of the Zorblax Orchestra?" in a library where eight passages name the orchestra
// often and one names it once beside the question's common words ("city", "first", "concert", "hosted", in so many
// passages that they are not concepts). The walk follows the orchestra's name; the words rank that one passage first.
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODE, RetrievalEngine } from '../../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';

const QUESTION = 'Which city hosted the first concert of the Zorblax Orchestra?';
const PASSAGES: Array<[string, string]> = [
  ['bergen', 'The Zorblax Orchestra: its first concert was hosted by the city of Bergen in a harbour hall.'],
  ...['Vienna', 'Prague', 'Oslo', 'Lyon', 'Turin', 'Ghent', 'Porto', 'Split'].map(
    (place, i): [string, string] => [
      `tour-${i}`,
      `The Zorblax Orchestra toured ${place} in ${1950 + i}; the Zorblax Orchestra recorded Zorblax Suite No. ${i + 1} there.`,
    ],
  ),
  ...['Arden', 'Bellow', 'Corran', 'Dunlin', 'Esker', 'Fenwick', 'Garrow', 'Hessle'].map(
    (name, i): [string, string] => [
      `town-${i}`,
      `${name} is a city whose first concert hall hosted ${i + 2} choirs on the river ${name}.`,
    ],
  ),
];

function engine(wordSlots?: number) {
  const chunks = PASSAGES.map(([id, text]) => ({
    id: `${id}#0#0`,
    docId: id,
    text,
    tokens: 30,
    start: 0,
    path: [],
  }));
  const sentences = PASSAGES.map(([id, text]) => ({
    chunkId: `${id}#0#0`,
    index: 0,
    start: 0,
    end: text.length,
    text,
  }));
  return RetrievalEngine.build(
    { chunks, sentences },
    createTermAnalyzer(),
    wordSlots === undefined ? {} : { wordSlots },
  );
}
const rankOf = (e: RetrievalEngine, mode: string) =>
  e
    .search({ text: QUESTION }, mode, 12000)
    .map((h) => h.docId)
    .indexOf('bergen') + 1;

describe('the words’ slot (wordSlots)', () => {
  it('is off by default: the walk leaves the words’ best passage below the orchestra’s tour passages', () => {
    expect(rankOf(engine(), 'bm25')).toBe(1);
    const r = rankOf(engine(), DEFAULT_MODE);
    expect(r === 0 || r > 5).toBe(true);
  });

  it('with one slot places it at rank wordsAt + 1 = 5', () => {
    expect(rankOf(engine(1), DEFAULT_MODE)).toBe(5);
  });
});
