// The block runs a round of reads asks for: adjacent blocks in one range, and blocks a few apart with the ones
// between them (fewer requests, a little more read).
import { describe, expect, it } from 'vitest';
import { mergedRuns } from '../../../src/core/paged/blockStore.ts';

describe('merged block runs', () => {
  it('joins adjacent blocks, and blocks at most maxGap apart', () => {
    const wanted = [1, 2, 3, 10, 12, 30];
    expect(mergedRuns(wanted, 0)).toEqual([
      [1, 3],
      [10, 10],
      [12, 12],
      [30, 30],
    ]);
    // 3 → 10 skips 6 blocks and 10 → 12 one: both within 8; 12 → 30 skips 17.
    expect(mergedRuns(wanted, 8)).toEqual([
      [1, 12],
      [30, 30],
    ]);
    expect(mergedRuns(wanted, 17)).toEqual([[1, 30]]);
    expect(mergedRuns([], 8)).toEqual([]);
  });
});
