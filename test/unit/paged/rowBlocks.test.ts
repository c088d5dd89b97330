// Version 10's blocks of whole rows (blockLayout.ts): where rowBlockStarts cuts row groups, and a layout's explicit
// zone of them beside zones of one block size. Expected values worked out by hand from the packing rule (FORMAT.md
// "Version 10"): rows in order, a block of at most `size` bytes unless it holds one row alone, no empty block.
import { describe, expect, it } from 'vitest';
import { BlockLayout, rowBlockStarts } from '../../../src/core/paged/blockLayout.ts';

describe('blocks of whole rows', () => {
  it('packs rows greedily, a long row alone, empty rows inside the block they fall in, none for no bytes', () => {
    // Rows of 60, 60, 10 bytes: 60 + 60 fit 128, the 10 does not (130): blocks [0, 120), [120, 130).
    expect(rowBlockStarts([0, 60, 120, 130], 128)).toEqual([0, 120]);
    // Exactly 128 bytes fit: one block.
    expect(rowBlockStarts([0, 64, 128], 128)).toEqual([0]);
    // A row of 300 bytes between two small ones: a block of its own.
    expect(rowBlockStarts([0, 20, 320, 330], 128)).toEqual([0, 20, 320]);
    // A long first row, then rows that fit together.
    expect(rowBlockStarts([0, 200, 250, 300], 128)).toEqual([0, 200]);
    // Empty rows (a chunk without concepts) make no block of their own, first, inside or last.
    expect(rowBlockStarts([0, 0, 100, 100, 150, 150], 128)).toEqual([0, 100]);
    expect(rowBlockStarts([0, 0, 0], 128)).toEqual([]);
    expect(rowBlockStarts([0], 128)).toEqual([]);
  });

  it('places an explicit zone between zones of one size and finds every byte’s block', () => {
    // 256 bytes in 128-byte blocks, then 130 bytes of rows cut at 0 and 120, then 100 bytes in 64-byte blocks.
    const layout = new BlockLayout(
      [
        [256, 128],
        [130, { count: 2 }],
        [100, 64],
      ],
      512,
    );
    expect(layout.count).toBe(2 + 2 + 2);
    expect(layout.placed).toBe(false);
    // The zones of one size are placed already; the rows' are not until their starts come.
    expect([layout.blockOf(255), layout.startOf(5), layout.endOf(5)]).toEqual([1, 450, 486]);
    expect(() => layout.blockOf(300)).toThrow('read before open placed them');
    layout.place([0, 120]);
    expect(layout.placed).toBe(true);
    expect([256, 375, 376, 385, 386].map((at) => layout.blockOf(at))).toEqual([2, 2, 3, 3, 4]);
    expect([2, 3].map((b) => [layout.startOf(b), layout.endOf(b)])).toEqual([
      [256, 376],
      [376, 386],
    ]);
    expect([...layout.lengths()]).toEqual([128, 128, 120, 10, 64, 36]);
    // A neighbour of the same size as the zone before it is not joined to an explicit zone.
    const joined = new BlockLayout(
      [
        [256, 128],
        [100, { count: 1, starts: [0] }],
        [256, 128],
      ],
      512,
    );
    expect([...joined.lengths()]).toEqual([128, 128, 100, 128, 128]);
  });
});
