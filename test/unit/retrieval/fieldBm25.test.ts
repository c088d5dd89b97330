// BM25F over text and headings from the text's own index plus a small heading index: the same scores, to the last
// bit, as one BM25 index over each chunk's text with its heading terms appended `copies` times (the definition).
import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../../../src/core/retrieval/bm25.ts';
import { STEM_PREFIX } from '../../../src/core/graph/index.ts';
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

  it('with coverage, ranks the chunk holding most of the question over one holding its rarest word', () => {
    // "loading" in one short chunk only (the highest IDF); chunk 1 holds three of the four question words, common ones.
    const texts = [
      ['loading', 'addons'],
      ['read', 'file', 'line', 'stream', 'example', 'text', 'more', 'words'],
      ['read', 'file', 'other'],
      ['line', 'file', 'other'],
      ['read', 'line', 'other'],
      ['unrelated', 'words'],
    ];
    const field = new HeadingFieldBm25(new Bm25Index(texts), new Bm25Index(texts.map(() => [])), 1);
    const question = ['read', 'file', 'line', 'loading'];
    const plain = field.search(question, 6);
    expect(plain[0].chunk).toBe(0);
    const covered = field.search(question, 6, 1);
    expect(covered[0].chunk).toBe(1);
    // The definition: each chunk's BM25F times (question words it holds ÷ 4)^coverage.
    const held = (k: number) => question.filter((w) => texts[k].includes(w)).length;
    for (const power of [1, 2]) {
      const scored = new Map(field.search(question, 6, power).map((c) => [c.chunk, c.score]));
      for (const { chunk, score } of plain)
        expect(scored.get(chunk)).toBeCloseTo(score * Math.pow(held(chunk) / 4, power), 5);
    }
  });

  it('with coverage, counts a word held as its stem once, and a heading word as held', () => {
    // The analyser puts a word's stem right after it; a chunk holding "watcher" holds the question's "watchers".
    const field = new HeadingFieldBm25(
      new Bm25Index([
        ['watcher', `${STEM_PREFIX}watcher`, 'deep'],
        ['watchers', `${STEM_PREFIX}watcher`, 'other'],
        ['unrelated', 'text'],
        ['more', 'text'],
      ]),
      new Bm25Index([[], [], ['deep'], []]),
      1,
    );
    const question = ['watchers', `${STEM_PREFIX}watcher`, 'deep'];
    const plain = new Map(field.search(question, 4).map((c) => [c.chunk, c.score]));
    const covered = new Map(field.search(question, 4, 1).map((c) => [c.chunk, c.score]));
    expect(covered.get(0)).toBeCloseTo(plain.get(0)!, 5); // both words: "watcher" as the stem, "deep"
    expect(covered.get(1)).toBeCloseTo(plain.get(1)! / 2, 5); // "watchers" only, not twice
    expect(covered.get(2)).toBeCloseTo(plain.get(2)! / 2, 5); // "deep" in its heading
  });

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
