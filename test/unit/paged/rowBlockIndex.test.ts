// Version 16's index of the rows' blocks in `open` (rowBlockIndex.ts): each block's first chunk and its bytes, from
// which a reader places the blocks and finds the block holding a chunk. The expected values are worked out by hand from
// rowBlockStarts' rule (groups packed greedily into blocks of at most the size; a longer group a block of its own).
import { describe, expect, it } from 'vitest';
import { ByteReader, ByteWriter } from '../../../src/core/paged/bytes.ts';
import { expandRowBlocks, storedRowBlocks } from '../../../src/core/paged/rowBlockIndex.ts';

const varints = (bytes: Uint8Array): number[] => {
  const r = new ByteReader(bytes);
  const out: number[] = [];
  while (r.at < bytes.length) out.push(r.varint());
  return out;
};
const bytesOf = (values: number[]): Uint8Array => {
  const w = new ByteWriter();
  for (const v of values) w.varint(v);
  return w.take();
};

// Rows of 50, 50, 30, 170 and 10 bytes (one chunk a group) in blocks of 128: [0, 100) holds chunks 0 and 1, [100,
// 130) chunk 2 (170 more would pass 128), [130, 300) chunk 3 alone (longer than 128), [300, 310) chunk 4.
const GROUPS = [0, 50, 100, 130, 300, 310];

describe('the row blocks’ index (version 16)', () => {
  it('keeps each block’s first chunk (less the one before) and its bytes (the size less them, or a longer block’s own)', () => {
    const stored = storedRowBlocks(GROUPS, 128, 1);
    expect(varints(stored.rowBlockFirst)).toEqual([0, 2, 1, 1]);
    expect(varints(stored.rowBlockSpare)).toEqual([28, 98, 170, 118]);
    // Groups of two chunks: the blocks' first chunks are their first groups' first chunks.
    expect(varints(storedRowBlocks(GROUPS, 128, 2).rowBlockFirst)).toEqual([0, 4, 2, 2]);
  });

  it('places the blocks and gives their first chunks back, the chunk count after the last', () => {
    const { firsts, offsets } = expandRowBlocks(storedRowBlocks(GROUPS, 128, 1), 4, 128, 5);
    expect([...firsts]).toEqual([0, 2, 3, 4, 5]);
    expect([...offsets]).toEqual([0, 100, 130, 300, 310]);
  });

  it('refuses an index that lies, naming the field and the block, before it bounds a loop', () => {
    const good = storedRowBlocks(GROUPS, 128, 1);
    const expand = (first: number[], spare: number[], count = 4, n = 5) =>
      expandRowBlocks({ rowBlockFirst: bytesOf(first), rowBlockSpare: bytesOf(spare) }, count, 128, n);
    expect(() => expandRowBlocks({ rowBlockSpare: good.rowBlockSpare }, 4, 128, 5)).toThrow(
      'pages.bin (open) has no rowBlockFirst (rowsDelimited)',
    );
    expect(() => expand([0, 2, 1], [28, 98, 170, 118])).toThrow(
      'has rowBlockFirst of 3 bytes for 4 row blocks',
    );
    expect(() => expand([0, 2, 1, 1, 1], [28, 98, 170, 118])).toThrow(
      'has rowBlockFirst of more than 4 values (one a row block)',
    );
    // The last varint cut short (a byte with its high bit set, nothing after).
    expect(() =>
      expandRowBlocks(
        { rowBlockFirst: Uint8Array.of(0, 2, 1, 0x81), rowBlockSpare: good.rowBlockSpare },
        4,
        128,
        5,
      ),
    ).toThrow('has rowBlockFirst of fewer than 4 values');
    expect(() => expand([1, 2, 1, 1], [28, 98, 170, 118])).toThrow('puts row block 0 at chunk 1');
    expect(() => expand([0, 2, 0, 1], [28, 98, 170, 118])).toThrow('puts row block 2 at chunk 2');
    expect(() => expand([0, 2, 1, 2], [28, 98, 170, 118])).toThrow('puts row block 3 at chunk 5');
    expect(() => expand([0, 2, 1, 1], [28, 128, 170, 118])).toThrow(
      'gives row block 1 0 bytes (rowBlockSpare)',
    );
    // Block 1 of 1 byte cannot hold its chunk 2 and 3's rows (a row is a byte at least).
    expect(() => expand([0, 2, 2, 1], [28, 127, 170, 118], 4, 6)).toThrow(
      'gives row block 1 2 chunks in 1 bytes',
    );
    expect(() => expand([], [], 0, 5)).toThrow('has 0 row blocks for 5 chunks');
  });
});
