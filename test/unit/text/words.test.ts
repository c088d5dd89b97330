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

  // Chromium's ICU word rules break at every "." and ":" (to split host names), Node's do not: MuSiQue p03534
  // ("began in 794 A.D after … Kyōto京都") gave the term "a.d" in Node and none in Chromium. Words outside the
  // dictionary scripts go through the same regex whether or not the block holds Chinese.
  it('tokenizes Latin words next to Chinese as it does without them', () => {
    expect(wordTokens('794 A.D after 京都')).toEqual([
      { term: '794', start: 0, end: 3 },
      { term: 'a.d', start: 4, end: 7 },
      { term: 'after', start: 8, end: 13 },
      { term: '京都', start: 14, end: 16 },
    ]);
    // "x:y" splits at the colon, "80's" loses its possessive, "km²" is NFKC "km2" (ICU: "x:y", "80" + "s", "km").
    const latin = "x:y 80's 101 km² Kyōto";
    const terms = ['x', 'y', '80', '101', 'km2', 'kyōto'];
    expect(wordTokens(latin).map((t) => t.term)).toEqual(terms);
    expect(wordTokens(`${latin}京都`).map((t) => t.term)).toEqual([...terms, '京都']);
    expect(wordTokens(`${latin}京都`)[5]).toEqual({ term: 'kyōto', start: 17, end: 22 });
    expect(indexTerms('794 A.D after 京都')).toEqual(['794', 'a.d', '京都']);
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
