// BM25F over text and headings from the text's own index plus a small heading index: the same scores, to the last
// bit, as one BM25 index over each chunk's text with its heading terms appended `copies` times (the definition).
import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../../../src/core/retrieval/bm25.ts';
import { HeadingFieldBm25 } from '../../../src/core/retrieval/fieldBm25.ts';
import { seededRandom } from '../../support/seededRandom.ts';

function corpus(seed: number, chunks: number, vocabulary: number) {
  const r = seededRandom(seed);
  // Zipf-like: low word numbers are common, so some terms are in most chunks and some in one.
  const word = () => `w${Math.floor(vocabulary * r() * r())}`;
  const texts = Array.from({ length: chunks }, () => Array.from({ length: 1 + Math.floor(r() * 60) }, word));
  // A third of the chunks have no heading; the others a few words, some also in their text, some only there.
  const headings = texts.map((text) =>
    r() < 0.33 ? [] : Array.from({ length: 1 + Math.floor(r() * 5) }, () => (r() < 0.5 ? text[0] : word())),
  );
  return { texts, headings, word };
}

describe('HeadingFieldBm25', () => {
  for (const [seed, copies] of [
    [1, 1],
    [2, 2],
    [3, 3],
  ]) {
    it(`scores as one index over text + ${copies} × headings (seed ${seed})`, () => {
      const { texts, headings, word } = corpus(seed, 400, 300);
      const reference = new Bm25Index(
        texts.map((t, k) => [...t, ...Array.from({ length: copies }, () => headings[k]).flat()]),
        1.2,
        0.75,
      );
      const field = new HeadingFieldBm25(new Bm25Index(texts), new Bm25Index(headings), copies, 1.2, 0.75);
      for (let q = 0; q < 50; q++) {
        const question = Array.from({ length: 1 + (q % 6) }, word);
        if (q % 10 === 0) question.push('never-seen');
        expect(field.search(question, 30)).toEqual(reference.search(question, 30));
      }
    });
  }

  it('finds a chunk by a word only its heading holds, and refuses indexes of different corpora', () => {
    const field = new HeadingFieldBm25(
      new Bm25Index([
        ['reactive', 'state'],
        ['teleport', 'modal'],
      ]),
      new Bm25Index([['lifetime', 'elision'], []]),
      1,
    );
    expect(field.search(['elision'], 5).map((c) => c.chunk)).toEqual([0]);
    expect(() => new HeadingFieldBm25(new Bm25Index([['a']]), new Bm25Index([]), 1)).toThrow(
      /0 heading entries for 1/,
    );
  });
});
