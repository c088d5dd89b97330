// The generic-word filter: the maintained lists it is made of, and what it leaves for concepts.
import { describe, expect, it } from 'vitest';
import { isGenericWord } from '../../../src/core/text/generic.ts';
import { SPOKEN_COMMON } from '../../../src/core/text/spokenCommon.ts';
import { wordPairs } from '../../../src/core/text/grams.ts';
// @ts-expect-error -- a plain .mjs tool without types
import { spokenCommonWords } from '../../../src/tools/make-spoken-common.mjs';

describe('isGenericWord', () => {
  it('holds the words the previous graph ranked first on the Vue docs, and Chinese function words', () => {
    for (const w of [
      'makes',
      'much',
      'important',
      'run',
      'actually',
      'needed',
      '可以',
      '而且',
      'const',
      'foo',
    ])
      expect(isGenericWord(w), w).toBe(true);
  });

  it('leaves subjects of documentation and encyclopedias', () => {
    for (const w of ['component', 'ownership', 'reactivity', 'composable', 'teleport', 'lothair', '知识图谱'])
      expect(isGenericWord(w), w).toBe(false);
  });

  it('leaves the keywords that declare a kind of type, which a language book has chapters about', () => {
    for (const w of ['struct', 'enum']) expect(isGenericWord(w), w).toBe(false);
    for (const w of ['fn', 'impl', 'let', 'mut', 'pub', 'return']) expect(isGenericWord(w), w).toBe(true);
  });

  it('treats bare numbers as generic but not words with digits', () => {
    expect(isGenericWord('2023')).toBe(true);
    expect(isGenericWord('1,000')).toBe(true);
    expect(isGenericWord('es2015')).toBe(false);
  });

  it('uses the committed spoken-English list exactly as the package gives it', () => {
    expect(SPOKEN_COMMON.split(/\s+/).filter(Boolean)).toEqual(spokenCommonWords());
  });
});

describe('wordPairs', () => {
  it('pairs adjacent words separated by one space only, never two generic words or a stop word', () => {
    expect(wordPairs('A computed property. Much more, scoped slots.')).toEqual([
      'computed property',
      'scoped slots',
    ]);
  });

  it('joins adjacent Chinese words without a space', () => {
    expect(wordPairs('检索增强')).toContain('检索增强');
  });
});
