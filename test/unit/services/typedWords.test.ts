// The words of a question a person has finished typing (typedWords.ts): what the Ask box has read ahead as they come.
import { describe, expect, it } from 'vitest';
import { finishedWords } from '../../../src/services/questions/typedWords.ts';

describe('finishedWords', () => {
  it('leaves out a word still being typed at the end, not one a space or a mark has finished', () => {
    expect(finishedWords('Who directed the film Incep')).toBe('Who directed the film ');
    expect(finishedWords('Who directed the film Inception?')).toBe('Who directed the film Inception?');
    expect(finishedWords('what is ')).toBe('what is ');
    expect(finishedWords('pagerank')).toBe('');
    expect(finishedWords("don't kn")).toBe("don't ");
    expect(finishedWords('the c++ ')).toBe('the c++ ');
    expect(finishedWords('')).toBe('');
  });

  it('counts ideographs as typed (an input method commits them whole), not the letters it has not converted yet', () => {
    expect(finishedWords('什么是图')).toBe('什么是图');
    expect(finishedWords('什么是图zhong')).toBe('什么是图');
    expect(finishedWords('PageRank是什么')).toBe('PageRank是什么');
    expect(finishedWords('カタカナ')).toBe('カタカナ');
  });
});
