// BM25F over text and headings from the text's own index plus a small heading index: the same scores, to the last
// bit, as one BM25 index over each chunk's text with its heading terms appended `copies` times (the definition);
// with the copies shared, a heading word counts once for the run of consecutive chunks it heads.
import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../../../src/core/retrieval/bm25.ts';
import { documentsOf, HeadingFieldBm25 } from '../../../src/core/retrieval/fieldBm25.ts';
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

  it('shares a heading word among the run of consecutive chunks that hold it (each 1/run of a copy)', () => {
    // Chunks 0-3: one document whose title says "guide"; chunk 4 none; chunk 5 a section headed "guide" alone.
    const texts = [
      ['alpha', 'guide'],
      ['beta'],
      ['gamma', 'delta'],
      ['alpha'],
      ['guide', 'epsilon'],
      ['zeta'],
    ];
    const headings = [['guide'], ['guide'], ['guide', 'guide'], ['guide'], [], ['guide', 'intro']];
    const field = new HeadingFieldBm25(new Bm25Index(texts), new Bm25Index(headings), 1, 1.2, 0.75, true);
    // BM25 by hand: lengths stay text + heading words; only the heading's term count is shared.
    const lengths = texts.map((t, k) => t.length + headings[k].length);
    const avg = lengths.reduce((a, b) => a + b, 0) / lengths.length;
    const df = 6; // every chunk holds "guide" in its text or heading
    const idf = Math.log(1 + (6 - df + 0.5) / (df + 0.5));
    const bm25 = (tf: number, k: number) =>
      (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * lengths[k]) / avg));
    const tfs = [1 + 1 / 4, 1 / 4, 2 / 4, 1 / 4, 1, 1];
    const expected = tfs.map((tf, k) => Math.fround(bm25(tf, k)));
    const got = new Map(field.search(['guide'], 10).map((c) => [c.chunk, c.score]));
    expect([...got.keys()].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    for (let k = 0; k < 6; k++) expect(got.get(k)).toBeCloseTo(expected[k], 5);
    // A run ends with its document: chunks 0-1 and 2-3 as two documents share by two.
    const twoDocuments = new HeadingFieldBm25(
      new Bm25Index(texts),
      new Bm25Index(headings),
      1,
      1.2,
      0.75,
      true,
      documentsOf((k) => [2, 2, 2, 2, 1, 1][k], 6),
    );
    const byDocument = new Map(twoDocuments.search(['guide'], 10).map((c) => [c.chunk, c.score]));
    const halves = [1 + 1 / 2, 1 / 2, 2 / 2, 1 / 2, 1, 1];
    for (let k = 0; k < 6; k++) expect(byDocument.get(k)).toBeCloseTo(Math.fround(bm25(halves[k], k)), 5);
  });

  it("ranks a section's own heading over a document title every chunk of the document repeats", () => {
    // Chunks 0-4: a document titled "loading guide" (in each chunk's heading path), its text saying "pipe" twice;
    // chunk 5 between documents; chunk 6 a section headed "loading streams" saying "pipe" once; 7-9 other text.
    const doc = Array.from({ length: 5 }, () => ['pipe', 'pipe', 'bytes']);
    const texts = [
      ...doc,
      ['other'],
      ['pipe', 'stream', 'bytes'],
      ...Array.from({ length: 3 }, () => ['x', 'y', 'z']),
    ];
    const headings = [...doc.map(() => ['loading', 'guide']), [], ['loading', 'streams'], [], [], []];
    const first = (share: boolean) =>
      new HeadingFieldBm25(new Bm25Index(texts), new Bm25Index(headings), 1, 1.2, 0.75, share).search(
        ['loading', 'pipe'],
        10,
      )[0].chunk;
    // One copy in every chunk: the title counts as much as the section's own heading, and the text's second "pipe"
    // puts the document's first chunk ahead. Shared, the title is a fifth of a copy in each of its five chunks.
    expect(first(false)).toBe(0);
    expect(first(true)).toBe(6);
  });
});
