import { describe, expect, it } from 'vitest';
import { Bm25Builder, Bm25Index } from '../../../src/core/retrieval/bm25.ts';
import { cutToBudget } from '../../../src/core/retrieval/budget.ts';
import { reciprocalRankFusion } from '../../../src/core/retrieval/fusion.ts';
import { topK } from '../../../src/core/retrieval/topk.ts';

describe('Bm25Index', () => {
  // Three documents: lengths 2, 4, 3 (avg 3).
  const docs = [
    ['cat', 'dog'],
    ['cat', 'cat', 'fish', 'bird'],
    ['dog', 'fish', 'tree'],
  ];
  const bm = new Bm25Index(docs, 1.2, 0.75);

  it('scores by the Okapi formula (hand-computed) and ranks the best match first', () => {
    // idf(cat) = ln(1 + (3−2+0.5)/(2+0.5)) = ln(1.6); doc1: tf 2, len 4 → 2·2.2/(2 + 1.2·(0.25 + 0.75·4/3)).
    const idfCat = Math.log(1.6);
    const d1 = (idfCat * 2 * 2.2) / (2 + 1.2 * (0.25 + 0.75 * (4 / 3)));
    const d0 = (idfCat * 1 * 2.2) / (1 + 1.2 * (0.25 + 0.75 * (2 / 3)));
    const res = bm.search(['cat'], 10);
    expect(res.map((r) => r.chunk)).toEqual([1, 0]);
    expect(res[0].score).toBeCloseTo(d1, 5);
    expect(res[1].score).toBeCloseTo(d0, 5);
  });

  it('sums over distinct query terms, ignores unknown terms and repeats', () => {
    const catBefore = bm.search(['cat'], 1)[0].score;
    const res = bm.search(['fish', 'tree', 'tree', 'unicorn'], 10);
    expect(res.map((r) => r.chunk)).toEqual([2, 1]);
    expect(bm.search(['unicorn'], 10)).toEqual([]);
    // Scores are reset between queries.
    expect(bm.search(['cat'], 1)[0].score).toBe(catBefore);
  });

  it('rejects invalid parameters', () => {
    expect(() => new Bm25Index(docs, 1.2, 2)).toThrow(/bm25/);
  });
});

describe('Bm25Builder', () => {
  it('gives every posting and count of entries spread over several blocks, and is laid out once', () => {
    // 3,000 chunks of 50 distinct terms (150,000 entries: six of the builder's blocks, which grow from 4,096 entries), each
    // chunk's terms drawn from 997 words with a count of 1 to 3; the expected lists are counted here from the input.
    const chunks: string[][] = [];
    const expected = new Map<string, Array<[number, number]>>();
    for (let k = 0; k < 3000; k++) {
      const terms: string[] = [];
      for (let j = 0; j < 50; j++) {
        const word = `w${(k * 7 + j * 13) % 997}`;
        const tf = 1 + ((k + j) % 3);
        for (let r = 0; r < tf; r++) terms.push(word);
        let list = expected.get(word);
        if (!list) expected.set(word, (list = []));
        list.push([k, tf]);
      }
      chunks.push(terms);
    }
    const builder = new Bm25Builder();
    for (const terms of chunks) builder.add(terms);
    const index = new Bm25Index(builder);
    expect(index.chunkCount).toBe(3000);
    expect([...index.terms()].sort()).toEqual([...expected.keys()].sort());
    for (const [word, list] of expected) {
      const got = index.postingsOf(word)!;
      expect([...got.chunks], word).toEqual(list.map(([k]) => k));
      expect([...got.freqs], word).toEqual(list.map(([, tf]) => tf));
    }
    expect(index.lengthOf(2999)).toBe(chunks[2999].length);
    // The builder let its entries go as it laid them out: a second layout or a later chunk would be wrong.
    expect(() => builder.layout()).toThrow(/laid out once/);
    expect(() => builder.add(['w1'])).toThrow(/already laid out/);
  });
});

describe('topK', () => {
  it('returns the k best positive scores, ties by lower index', () => {
    expect(topK([0.5, 2, 0, 2, 1], 3)).toEqual([1, 3, 4]);
    expect(topK([0.5, 2, 0, 2, 1], 10)).toEqual([1, 3, 4, 0]);
    expect(topK([3, 1, 2], 2, [1, 2])).toEqual([2, 1]);
    expect(topK([1], 0)).toEqual([]);
  });
});

describe('reciprocalRankFusion', () => {
  it('adds 1/(k+rank) over lists and records where each chunk was found', () => {
    const fused = reciprocalRankFusion(
      [
        [
          { chunk: 7, score: 9 },
          { chunk: 3, score: 8 },
        ],
        [
          { chunk: 3, score: 1 },
          { chunk: 5, score: 0.5 },
        ],
      ],
      60,
      ['ppr', 'bm25'],
    );
    expect(fused.map((c) => c.chunk)).toEqual([3, 7, 5]);
    expect(fused[0].score).toBeCloseTo(1 / 62 + 1 / 61, 9);
    expect(fused[1].score).toBeCloseTo(1 / 61, 9);
    expect(fused[0].via).toBe('ppr#2, bm25#1');
  });
});

describe('cutToBudget', () => {
  const r = [{ tokens: 400 }, { tokens: 500 }, { tokens: 200 }, { tokens: 50 }];
  it('keeps whole chunks in order and stops at the first that does not fit', () => {
    expect(cutToBudget(r, 1000)).toEqual([{ tokens: 400 }, { tokens: 500 }]);
    expect(cutToBudget(r, 1100)).toHaveLength(3);
    expect(cutToBudget(r, 900)).toHaveLength(2); // exactly full
    expect(cutToBudget(r, 399)).toEqual([]);
    expect(cutToBudget(r, 1e9)).toHaveLength(4);
  });
  it('rejects a negative budget', () => {
    expect(() => cutToBudget(r, -1)).toThrow(/budget/);
  });
});
