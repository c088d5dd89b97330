import { describe, expect, it } from 'vitest';
import { createTermAnalyzer } from '../../../src/core/text/analyzer.ts';
import { isStopWord } from '../../../src/core/text/stopwords.ts';
import { capitalizedPhrases, indexTerms, wordTokens } from '../../../src/core/text/words.ts';

describe('wordTokens', () => {
  it('gives lowercased NFKC terms with offsets into the text', () => {
    const text = "Don't stop, ＡＢＣ 3.5 e-mail";
    expect(wordTokens(text)).toEqual([
      { term: "don't", start: 0, end: 5 },
      { term: 'stop', start: 6, end: 10 },
      { term: 'abc', start: 12, end: 15 },
      { term: '3.5', start: 16, end: 19 },
      { term: 'e', start: 20, end: 21 },
      { term: 'mail', start: 22, end: 26 },
    ]);
  });

  it("drops a possessive 's but keeps contractions that are stop words", () => {
    expect(wordTokens("Lothair II's mother, Emma’s son, it's here").map((t) => t.term)).toEqual([
      'lothair',
      'ii',
      'mother',
      'emma',
      'son',
      "it's",
      'here',
    ]);
    expect(wordTokens("II's")[0]).toEqual({ term: 'ii', start: 0, end: 4 });
  });

  it('segments Chinese with the dictionary segmenter', () => {
    const text = '我住在东京。';
    const tokens = wordTokens(text);
    expect(tokens.map((t) => t.term).join('')).toBe('我住在东京');
    expect(tokens.map((t) => t.term)).toContain('东京');
    for (const t of tokens) expect(text.slice(t.start, t.end)).toBe(t.term);
  });
});

describe('indexTerms and stop words', () => {
  it('drops stop words, punctuation and lone Latin letters but keeps numbers', () => {
    expect(indexTerms('The year 1990 saw a boom in X, and it was over by 2001!')).toEqual([
      'year',
      '1990',
      'saw',
      'boom',
      '2001',
    ]);
  });

  it('knows English and Chinese stop words, with either apostrophe', () => {
    expect(isStopWord('the')).toBe(true);
    expect(isStopWord('don’t')).toBe(true);
    expect(isStopWord('的')).toBe(true);
    expect(isStopWord('tolkien')).toBe(false);
    expect(indexTerms('我们的东京')).toEqual(['东京']);
  });
});

describe('capitalizedPhrases', () => {
  it('finds multi-word names with inner connectors, hyphens and Roman numerals', () => {
    const text =
      "Lothair II's son married Ermengarde of Tours in Port of Spain. In Paris, Saint-Denis Abbey stood. The United States of America";
    const phrases = capitalizedPhrases(text);
    expect(phrases.map((p) => p.term)).toEqual([
      'lothair ii',
      'ermengarde of tours',
      'port of spain',
      'saint denis abbey',
      'united states of america',
    ]);
    for (const p of phrases) expect(text.slice(p.start, p.end).toLowerCase().replace('-', ' ')).toBe(p.term);
  });

  it('does not return single words, trailing connectors or runs across punctuation', () => {
    expect(capitalizedPhrases('Paris is nice. London of the. Berlin, Rome')).toEqual([]);
  });

  it('is what the term analyzer exposes, with words for question n-grams', () => {
    const analyzer = createTermAnalyzer();
    expect(analyzer.phrases('Who was Lothair II of Lotharingia?')).toEqual(['lothair ii of lotharingia']);
    expect(analyzer.words('Who was Lothair II?')).toEqual(['who', 'was', 'lothair', 'ii']);
    expect(analyzer.terms('Who was Lothair II?')).toEqual(['lothair', 'ii']);
  });
});
