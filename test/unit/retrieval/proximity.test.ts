// Term proximity (proximity.ts, BM25TP): the words' first chunks gain by how close the question's words stand in
// their text. Expected values are worked by hand from Büttcher, Clarke & Lushman's formula, not read off the code.
import { describe, expect, it } from 'vitest';
import {
  proximityRerank,
  subjectWords,
  type ProximityReader,
} from '../../../src/core/retrieval/proximity.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';

const analyzer = createTermAnalyzer();
const K1 = 1.2;

function reader(texts: Record<number, string | undefined>, idf: Record<string, number>): ProximityReader {
  return { analyzer, chunkText: (k) => texts[k], chunkPath: () => undefined, idf: (t) => idf[t] ?? 0 };
}

/** BM25TP's saturation of one word's accumulator, weighted by min(1, its IDF). */
const tp = (acc: number, idf: number) => (Math.min(1, idf) * acc * (K1 + 1)) / (acc + K1);

describe('term proximity', () => {
  it('scores adjacent question words by the other word’s IDF over the squared distance (BM25TP)', () => {
    // The analyser keeps these words as they are and puts each one's stem after it.
    expect(analyzer.terms('read file line').filter((t) => !t.startsWith('~'))).toEqual([
      'read',
      'file',
      'line',
    ]);
    const idf = { read: 2, file: 0.5, line: 3 };
    const [hit] = proximityRerank(
      [{ chunk: 0, score: 0 }],
      analyzer.terms('read file line'),
      reader({ 0: 'read file line' }, idf),
      { weight: 1, top: 10, k1: K1 },
    );
    // read–file at distance 1: file gains read's 2, read gains file's 0.5; file–line: line 0.5, file 3.
    expect(hit.score).toBeCloseTo(tp(0.5, 2) + tp(5, 0.5) + tp(0.5, 3), 10);
  });

  it('ranks the chunk that holds the words together over the one that holds them apart', () => {
    const idf = { read: 2, line: 3, words: 1 };
    const question = analyzer.terms('read line');
    const texts = { 0: 'line words words words read', 1: 'read line' };
    const ranked = proximityRerank(
      [
        { chunk: 0, score: 1 },
        { chunk: 1, score: 0.9 },
      ],
      question,
      reader(texts, idf),
      { weight: 1, top: 10, k1: K1 },
    );
    expect(ranked.map((c) => c.chunk)).toEqual([1, 0]);
    // Four words apart (the three between count, stop words would not): 1/16 of the adjacent pair's gain.
    expect(ranked[1].score).toBeCloseTo(1 + tp(2 / 16, 3) + tp(3 / 16, 2), 10);
    expect(ranked[0].score).toBeCloseTo(0.9 + tp(2, 3) + tp(3, 2), 10);
  });

  it('matches another form of a question word through its stem, and counts stop words in no distance', () => {
    const idf = { read: 2, file: 2, '~read': 2, '~file': 2 };
    const question = analyzer.terms('read file');
    const [stemmed] = proximityRerank(
      [{ chunk: 0, score: 0 }],
      question,
      reader({ 0: 'reads the files' }, idf),
      {
        weight: 1,
        top: 10,
        k1: K1,
      },
    );
    expect(stemmed.score).toBeCloseTo(tp(2, 2) * 2, 10);
  });

  it('leaves alone a chunk with one question word, the chunks past `top`, an unread text, and weight 0', () => {
    const idf = { read: 2, line: 3 };
    const question = analyzer.terms('read line');
    const texts = { 0: 'line line line', 1: undefined, 2: 'read line' };
    const ranking = [
      { chunk: 0, score: 3 },
      { chunk: 1, score: 2 },
      { chunk: 2, score: 1 },
    ];
    const ranked = proximityRerank(ranking, question, reader(texts, idf), { weight: 1, top: 2, k1: K1 });
    expect(ranked).toEqual(ranking);
    expect(
      proximityRerank(ranking, question, reader({ 2: 'read line' }, idf), { weight: 0, top: 3, k1: K1 }),
    ).toEqual(ranking);
    // Within top, the adjacent pair lifts chunk 2 past both.
    const all = proximityRerank(ranking, question, reader(texts, idf), { weight: 1, top: 3, k1: K1 });
    expect(all[0].chunk).toBe(2);
  });

  describe('the subject words paired', () => {
    const plain = (terms: readonly string[]) => terms.filter((t) => !t.startsWith('~'));
    const question = analyzer.terms('would like to read a file line by line in node');
    const idf = { like: 2, read: 3.2, file: 2.6, line: 4.7, node: 3.8 };
    const wordIdf = (t: string) => idf[t as keyof typeof idf] ?? 0;

    it('keeps the words of the question’s concepts (1), and of its phrases and identifiers only (2)', () => {
      // "would", "to", "a", "by" and "in" are stop words, in no index.
      expect(plain(question)).toEqual(['like', 'read', 'file', 'line', 'line', 'node']);
      const concepts = ['file', 'node', 'file line'];
      const one = subjectWords(analyzer, question, concepts, wordIdf, { subjects: 1, idfCut: 3 });
      // The stems come along with their words, so another form still matches.
      expect(one).toEqual([
        ...analyzer.terms('file'),
        ...analyzer.terms('node'),
        ...analyzer.terms('file line'),
      ]);
      expect(plain(one)).toEqual(['file', 'node', 'file', 'line']);
      const two = subjectWords(analyzer, question, concepts, wordIdf, { subjects: 2, idfCut: 3 });
      expect(plain(two)).toEqual(['file', 'line']);
      expect(subjectWords(analyzer, question, concepts, wordIdf, { subjects: 0, idfCut: 3 })).toEqual(
        question,
      );
    });

    it('falls back on the words whose IDF reaches the cut where the concepts give fewer than two words (or with 3)', () => {
      // One concept word is no pair: read 3.2, line 4.7 (twice) and node 3.8 reach 3; like and file do not.
      const fallback = subjectWords(analyzer, question, ['file'], wordIdf, { subjects: 1, idfCut: 3 });
      expect(plain(fallback)).toEqual(['read', 'line', 'line', 'node']);
      expect(fallback).toEqual(question.filter((t) => !['like', 'file'].includes(t.replace(/^~/, ''))));
      const cut = subjectWords(analyzer, question, ['file', 'node'], wordIdf, { subjects: 3, idfCut: 4 });
      expect(plain(cut)).toEqual(['line', 'line']);
    });

    it('pairs no ordinary word: text where only they stand together gains nothing', () => {
      const subject = subjectWords(analyzer, question, ['file', 'node'], wordIdf, { subjects: 1, idfCut: 3 });
      const texts = { 0: 'would like to read it', 1: 'node reads the file' };
      const ranked = proximityRerank(
        [
          { chunk: 0, score: 1 },
          { chunk: 1, score: 0.5 },
        ],
        subject,
        reader(texts, idf),
        { weight: 1, top: 10, k1: K1 },
      );
      // Chunk 1: node–file two index terms apart ("reads" counts, "the" does not): each gains the other's IDF / 4.
      expect(ranked.map((c) => c.chunk)).toEqual([1, 0]);
      expect(ranked[0].score).toBeCloseTo(0.5 + tp(2.6 / 4, 3.8) + tp(3.8 / 4, 2.6), 10);
      expect(ranked[1].score).toBe(1);
    });
  });
});
