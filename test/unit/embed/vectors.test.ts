// Vector helpers and per-call de-duplication, on hand-computed values.
import { describe, expect, it } from 'vitest';
import { dot, normalizeRows } from '../../../src/core/embed/vectors.ts';
import { expandRows, uniqueTexts } from '../../../src/core/embed/dedupe.ts';

describe('vectors', () => {
  it('normalizes rows and leaves zero rows at zero', () => {
    const m = normalizeRows(new Float32Array([3, 4, 0, 0, 0, 2]), 2);
    [0.6, 0.8, 0, 0, 0, 1].forEach((v, i) => expect(m[i]).toBeCloseTo(v, 6));
    expect(Array.from(normalizeRows(new Float32Array([0, 0, 5]), 3))).toEqual([0, 0, 1]);
    expect(() => normalizeRows(new Float32Array(5), 2)).toThrow(/not a multiple of dimension 2/);
  });

  it('dot works on whole vectors and on row offsets', () => {
    const m = new Float32Array([1, 2, 3, 4]);
    expect(dot(m, m)).toBe(30);
    expect(dot(m, m, 2, 0, 2)).toBe(1 * 3 + 2 * 4);
  });

  it('uniqueTexts and expandRows embed repeated texts once and copy their rows', () => {
    const { unique, index } = uniqueTexts(['a', 'b', 'a', 'c', 'b']);
    expect(unique).toEqual(['a', 'b', 'c']);
    expect(Array.from(index)).toEqual([0, 1, 0, 2, 1]);
    const rows = expandRows(new Float32Array([1, 1, 2, 2, 3, 3]), index, 2);
    expect(Array.from(rows)).toEqual([1, 1, 2, 2, 1, 1, 3, 3, 2, 2]);
  });
});
