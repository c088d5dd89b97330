// BM25F over text and headings from the text's own index plus a small heading index: the same scores, to the last
// bit, as one BM25 index over each chunk's text with its heading terms appended `copies` times (the definition).
import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../../../src/core/retrieval/bm25.ts';
import {
  chunkKinds,
  HeadingFieldBm25,
  kindDocumentFrequency,
} from '../../../src/core/retrieval/fieldBm25.ts';
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

describe('document frequency per kind of chunk (ChunkKinds)', () => {
  // A manual of 10 sections (one document, so each chunk's title group is 10) beside 90 one-chunk passages that
  // never say "vue": every chunk four words long, so the length norm is 1 and only the IDF decides.
  const filler = (k: number) => [`f${k}a`, `f${k}b`, `f${k}c`];
  const manual = Array.from({ length: 10 }, (_, k) =>
    k === 0
      ? ['vue', 'vue', 'vue', 'x0']
      : k === 1
        ? ['teleport', ...filler(k)]
        : k < 5
          ? ['vue', ...filler(k)]
          : filler(k),
  );
  const passages = Array.from({ length: 90 }, (_, k) => [...filler(100 + k), `p${k}`]);
  const groups = [...manual.map(() => 10), ...passages.map(() => 1)];
  const question = ['vue', 'teleport'];
  const index = (texts: string[][]) =>
    new HeadingFieldBm25(new Bm25Index(texts), new Bm25Index(texts.map(() => [])), 1);

  it('keeps a manual common word as common beside passages as in the manual alone', () => {
    // Alone, "vue" (5 of 10 sections) weighs less than "teleport" (1 of 10): the teleport section leads.
    expect(index(manual).search(question, 2)[0].chunk).toBe(1);
    // Beside the passages "vue" is in 5 of 100 chunks: its IDF nears teleport's and three "vue"s win.
    const mixed = index([...manual, ...passages]);
    expect(mixed.search(question, 2)[0].chunk).toBe(0);
    // Read per kind (unsmoothed: prior 0), "vue" is again in half the sections: the manual's own order comes back.
    const kinds = chunkKinds(groups, 0);
    expect(kinds?.sections).toBe(10);
    expect(mixed.search(question, 2, kinds)[0].chunk).toBe(1);
  });

  it('smooths a small kind towards the library: a few one-chunk pages of a manual are no population', () => {
    // 1,000 chunks, 20 of them passages; a word in 10 passages and no section. Unsmoothed its df is half the
    // library (1,000 × 10 / 20); smoothed with 300 chunks at the library's rate (1 %), 1,000 × (10 + 3) / 320.
    expect(kindDocumentFrequency(10, 0, 1000, 980, 0)).toBe(500);
    expect(kindDocumentFrequency(10, 0, 1000, 980, 300)).toBeCloseTo(40.625, 9);
    // Never below the word's own df: a word spread evenly keeps it.
    expect(kindDocumentFrequency(100, 98, 1000, 980, 300)).toBeCloseTo(100, 9);
  });

  it('leaves a library of one kind as it was', () => {
    expect(
      chunkKinds(
        manual.map(() => 10),
        300,
      ),
    ).toBeUndefined();
    expect(
      chunkKinds(
        passages.map(() => 1),
        300,
      ),
    ).toBeUndefined();
  });
});
