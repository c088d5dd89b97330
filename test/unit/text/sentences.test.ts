import { describe, expect, it } from 'vitest';
import { splitSentences } from '../../../src/core/text/sentences.ts';
import { countTokens } from '../../../src/core/text/tokens.ts';

const texts = (text: string, maxTokens?: number): string[] =>
  splitSentences(text, { maxTokens }).map((s) => text.slice(s.start, s.end));

describe('splitSentences', () => {
  it('does not split after Dr. and gives offsets into the text', () => {
    const text = 'Dr. Smith went to Washington. He arrived.';
    expect(splitSentences(text)).toEqual([
      { start: 0, end: 29 },
      { start: 30, end: 41 },
    ]);
  });

  it('keeps "U.S." inside a sentence but ends a sentence there before an opener like "He"', () => {
    expect(texts('The U.S. Army is big. He lived in the U.S. He liked it.')).toEqual([
      'The U.S. Army is big.',
      'He lived in the U.S.',
      'He liked it.',
    ]);
  });

  it('joins initials, titles, e.g., etc. before lowercase and No. before a digit', () => {
    expect(texts('J. R. R. Tolkien wrote it. Mr. and Mrs. Brown came. Prof. X teaches.')).toEqual([
      'J. R. R. Tolkien wrote it.',
      'Mr. and Mrs. Brown came.',
      'Prof. X teaches.',
    ]);
    expect(
      texts('Apples, pears, etc. are fruit. Use e.g. this one. It is No. 5 on the list. St. Louis is far.'),
    ).toEqual([
      'Apples, pears, etc. are fruit.',
      'Use e.g. this one.',
      'It is No. 5 on the list.',
      'St. Louis is far.',
    ]);
  });

  it('joins after v., dotted initialisms before a name, "!" before lowercase, and a leading closing quote', () => {
    expect(
      texts(
        'The case Buckley v. Valeo was decided. The band L.A. Guns formed. He moved to the U.S. In 1985 he left.',
      ),
    ).toEqual([
      'The case Buckley v. Valeo was decided.',
      'The band L.A. Guns formed.',
      'He moved to the U.S.',
      'In 1985 he left.',
    ]);
    expect(texts('Yahoo! is a company. Wow! 5 people came.')).toEqual([
      'Yahoo! is a company.',
      'Wow!',
      '5 people came.',
    ]);
    expect(texts('From the album "Smile and More! " released in 2000. It sold.')).toEqual([
      'From the album "Smile and More! " released in 2000.',
      'It sold.',
    ]);
  });

  it('splits Chinese and Japanese at 。！？', () => {
    expect(texts('今日は晴れです。明日は雨ですか？そうです！')).toEqual([
      '今日は晴れです。',
      '明日は雨ですか？',
      'そうです！',
    ]);
  });

  it('trims whitespace, keeps short lines apart and unwraps hard-wrapped prose', () => {
    expect(texts('  Heading\nShort line\n\n  Para two.  Yes ')).toEqual([
      'Heading',
      'Short line',
      'Para two.',
      'Yes',
    ]);
    const wrapped =
      'This is a long hard-wrapped line of prose that goes on and\ncontinues on the next line. Then more.';
    expect(texts(wrapped)).toEqual([wrapped.slice(0, wrapped.indexOf(' Then')), 'Then more.']);
  });

  it('joins an abbreviation at the end of a wrapped line with the next line, but not across a kept break', () => {
    const wrapped = 'The speech was given by the well-known orator Dr.\nSmith of Boston. He was late.';
    expect(texts(wrapped)).toEqual([
      'The speech was given by the well-known orator Dr.\nSmith of Boston.',
      'He was late.',
    ]);
    expect(texts('Notes by Dr.\nThe end')).toEqual(['Notes by Dr.', 'The end']);
  });

  it('returns nothing for blank text and honours a sub-range', () => {
    expect(splitSentences('  \n\n ')).toEqual([]);
    const text = 'One. Two. Three.';
    expect(splitSentences(text, {}, 5, 9)).toEqual([{ start: 5, end: 9 }]);
  });

  it('cuts a sentence without punctuation longer than maxTokens at whitespace, losing no word', () => {
    const words = Array.from({ length: 1000 }, (_, i) => `word${i}`);
    const text = words.join(' ');
    const spans = splitSentences(text, { maxTokens: 50 });
    expect(spans.length).toBeGreaterThan(1);
    for (const span of spans) expect(countTokens(text.slice(span.start, span.end))).toBeLessThanOrEqual(50);
    expect(spans.map((s) => text.slice(s.start, s.end)).join(' ')).toBe(text);
  });

  it('cuts text without any whitespace too', () => {
    const text = '漢字'.repeat(2000);
    const spans = splitSentences(text, { maxTokens: 100 });
    for (const span of spans) expect(countTokens(text.slice(span.start, span.end))).toBeLessThanOrEqual(100);
    expect(spans.map((s) => text.slice(s.start, s.end)).join('')).toBe(text);
  });

  it('segments a long paragraph in blocks with the same result as sentence by sentence', () => {
    const sentence = 'Dr. Who met Mr. Smith in the U.S. Army camp on a cold day. ';
    const text = sentence.repeat(500);
    const spans = splitSentences(text);
    expect(spans).toHaveLength(500);
    expect(spans.every((s) => text.slice(s.start, s.end) === sentence.trim())).toBe(true);
  });
});
