import { describe, expect, it } from 'vitest';
import { contextRecall, exactMatch, normalizeAnswer, recallAtK, tokenF1 } from '../../../src/core/metrics.ts';

describe('normalizeAnswer (SQuAD)', () => {
  it('lowercases, strips punctuation and articles, collapses spaces', () => {
    expect(normalizeAnswer('The  Eiffel Tower!')).toBe('eiffel tower');
    expect(normalizeAnswer('An apple, a day')).toBe('apple day');
    expect(normalizeAnswer('Port-of-Spain')).toBe('port of spain');
    expect(normalizeAnswer('"20 March 851."')).toBe('20 march 851');
    expect(normalizeAnswer('theatre')).toBe('theatre'); // "the" only as a whole word
  });
});

describe('exactMatch and tokenF1', () => {
  it('match over aliases after normalization', () => {
    expect(exactMatch('the Phulwari', ['Phoolwari', 'Phulwari'])).toBe(1);
    expect(exactMatch('Phulwari film', ['Phoolwari', 'Phulwari'])).toBe(0);
  });
  it('token F1 is the best over aliases', () => {
    // pred "port of spain city" vs "Port of Spain": common 3, P 3/4, R 1 → F1 6/7.
    expect(tokenF1('Port of Spain city', ['Puerto España', 'Port of Spain'])).toBeCloseTo(6 / 7, 9);
    expect(tokenF1('nothing here', ['Port of Spain'])).toBe(0);
    expect(tokenF1('the', ['a'])).toBe(1); // both normalize to empty
  });
});

describe('contextRecall', () => {
  it('finds a normalized answer or alias as whole words in the context', () => {
    const ctx = 'Ermengarde of Tours died on 20 March 851. She was born in Port-of-Spain.';
    expect(contextRecall(ctx, ['20 March 851'])).toBe(1);
    expect(contextRecall(ctx, ['Puerto España', 'Port of Spain'])).toBe(1);
    expect(contextRecall(ctx, ['85'])).toBe(0);
    expect(contextRecall(ctx, ['The'])).toBe(0); // empty after normalization never matches
  });

  it('finds an answer in an unspaced script inside a run of text', () => {
    const ctx = '我们设计了一种基于反思与全局记忆的多轮求解机制。';
    expect(contextRecall(ctx, ['全局记忆'])).toBe(1);
    expect(contextRecall(ctx, ['知识原子化'])).toBe(0);
  });
});

describe('recallAtK', () => {
  it('counts supporting passages among the first k distinct documents', () => {
    const ranked = ['p1', 'p1', 'p7', 'p3', 'p9'];
    expect(recallAtK(ranked, ['p3', 'p1'], 2)).toBe(0.5);
    expect(recallAtK(ranked, ['p3', 'p1'], 3)).toBe(1);
    expect(recallAtK([], ['p3'], 5)).toBe(0);
  });
  it('refuses a question without supporting ids and k < 1', () => {
    expect(() => recallAtK(['p1'], [], 5)).toThrow(/supporting/);
    expect(() => recallAtK(['p1'], ['p1'], 0)).toThrow(/k ≥ 1/);
  });
});
