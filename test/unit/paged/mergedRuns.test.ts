// The block runs a round of reads asks for: adjacent blocks in one range, and blocks a few apart with the ones
// between them (fewer requests, a little more read).
import { describe, expect, it } from 'vitest';
import { gapBlocks, mergedRuns } from '../../../src/core/paged/blockStore.ts';
import { MemoryRangeSource, type RangeSource } from '../../../src/core/paged/rangeSource.ts';

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

describe("the gap between runs is the source's", () => {
  const source = (gapBytes?: number): RangeSource =>
    Object.assign(new MemoryRangeSource(new Uint8Array(0)), { gapBytes });

  it('in whole blocks of the part', () => {
    expect(gapBlocks(source(0), 4096)).toBe(0);
    expect(gapBlocks(source(8192), 4096)).toBe(2);
    expect(gapBlocks(source(8191), 4096)).toBe(1);
    expect(gapBlocks(source(32 * 1024), 1024)).toBe(32);
    // Memory reads cost nothing a range: no gap.
    expect(gapBlocks(new MemoryRangeSource(new Uint8Array(0)), 512)).toBe(0);
  });

  it('a source that says nothing, or nonsense, gets a round trip’s worth (32 KiB), never an endless run', () => {
    for (const gap of [undefined, NaN, -1, Infinity]) expect(gapBlocks(source(gap), 4096)).toBe(8);
  });
});
