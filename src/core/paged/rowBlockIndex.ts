// Version 16's index of the rows' blocks in `open` (the directory's `rowsDelimited`, FORMAT.md "Version 16"): each
// row starts with its concept count (rowsCoding.ts), so a reader finds chunk K's row by the block that holds it and
// decodes that block's rows from its start. `open` keeps per block of rows (`rowBlocks`) two varints in place of
// every chunk's count and row size: `rowBlockFirst`, its first chunk less the block before's (0 for the first), and
// `rowBlockSpare`, its bytes as the size less them when it holds at most `rowBlocks.size`, else its bytes (a block
// of one longer row; a block is never empty, so the two ranges do not meet). At 100 MiB 73 K blocks for 102 K chunks
// (docs/results/question-bytes.md, round twenty-five, candidate B).
// Hand-written: the format's own index of its own blocks.
import { rowBlockStarts } from './blockLayout.ts';
import { PagesError } from './blockStore.ts';
import { ByteReader, ByteWriter } from './bytes.ts';

/** What a writer puts in `open` for its row blocks (their first chunks and their bytes), as stored varints. */
export interface StoredRowBlocks {
  rowBlockFirst: Uint8Array;
  rowBlockSpare: Uint8Array;
}

/**
 * A writer's row block index: the blocks rowBlockStarts cuts the row groups (`rowGroups`, byte offsets, groups of
 * `rowsPerGroup` chunks) into at `size` bytes, each block's first chunk and bytes as stored varints.
 */
export function storedRowBlocks(
  rowGroups: ArrayLike<number>,
  size: number,
  rowsPerGroup: number,
): StoredRowBlocks {
  const starts = rowBlockStarts(rowGroups, size);
  const end = rowGroups.length > 0 ? rowGroups[rowGroups.length - 1] : 0;
  const firsts = new ByteWriter();
  const spares = new ByteWriter();
  let g = 0;
  let previous = 0;
  for (let b = 0; b < starts.length; b++) {
    // The group the block starts with: each row is a byte at least, so no group is empty and its start is its own.
    while (rowGroups[g] < starts[b]) g++;
    if (rowGroups[g] !== starts[b] || rowGroups[g + 1] === rowGroups[g])
      throw new Error(`pages: row block ${b} does not start a row group of its own`);
    firsts.varint(g * rowsPerGroup - previous);
    previous = g * rowsPerGroup;
    const bytes = (b + 1 < starts.length ? starts[b + 1] : end) - starts[b];
    spares.varint(bytes <= size ? size - bytes : bytes);
  }
  return { rowBlockFirst: firsts.take(), rowBlockSpare: spares.take() };
}

/**
 * A stored `open` value (version 11 on) as version 16 keeps it: without `conceptCounts` and `rowGroups`, with the row
 * blocks' index after every other key (the writers and `cli upgrade` make the same bytes from the same keys).
 */
export function delimitedOpen<T extends object>(
  open: T,
  rowGroups: ArrayLike<number>,
  size: number,
  rowsPerGroup: number,
): Omit<T, 'conceptCounts' | 'rowGroups'> & StoredRowBlocks {
  const {
    conceptCounts: _counts,
    rowGroups: _groups,
    ...rest
  } = open as T & {
    conceptCounts?: unknown;
    rowGroups?: unknown;
  };
  return { ...rest, ...storedRowBlocks(rowGroups, size, rowsPerGroup) } as Omit<
    T,
    'conceptCounts' | 'rowGroups'
  > &
    StoredRowBlocks;
}

/**
 * A reader's row blocks from `open`'s stored index (`count` blocks of at most `size` bytes, `n` chunks), each value
 * checked before it bounds a loop or an allocation, refused naming the block and the field: exactly `count` varints
 * in each field; the first block at chunk 0, each later one at a later chunk, all below `n`; no block of 0 bytes; a
 * block holds no more rows than bytes (each row is a byte at least). Returns each block's first chunk (`n` at
 * [count]) and its byte offset (the rows' length at [count]: checkOpen holds it to the section's).
 */
export function expandRowBlocks(
  stored: { rowBlockFirst?: unknown; rowBlockSpare?: unknown },
  count: number,
  size: number,
  n: number,
): { firsts: Uint32Array; offsets: Float64Array } {
  const fail = (why: string): never => {
    throw new PagesError(`pages.bin (open) ${why}`);
  };
  const read = (field: 'rowBlockFirst' | 'rowBlockSpare'): Float64Array => {
    const bytes = stored[field];
    if (!(bytes instanceof Uint8Array)) return fail(`has no ${field} (rowsDelimited)`);
    // A varint a block, each a byte at least: the count is checked against the bytes before anything is allocated.
    if (bytes.length < count) fail(`has ${field} of ${bytes.length} bytes for ${count} row blocks`);
    const values = new Float64Array(count);
    const r = new ByteReader(bytes);
    try {
      for (let b = 0; b < count; b++) values[b] = r.varint();
    } catch {
      fail(`has ${field} of fewer than ${count} values (one a row block)`);
    }
    if (r.at !== bytes.length) fail(`has ${field} of more than ${count} values (one a row block)`);
    return values;
  };
  if ((n === 0) !== (count === 0)) fail(`has ${count} row blocks for ${n} chunks`);
  const gaps = read('rowBlockFirst');
  const spares = read('rowBlockSpare');
  const firsts = new Uint32Array(count + 1);
  const offsets = new Float64Array(count + 1);
  let first = 0;
  for (let b = 0; b < count; b++) {
    first += gaps[b];
    if (b === 0 ? gaps[b] !== 0 : !(gaps[b] >= 1 && first < n))
      fail(`puts row block ${b} at chunk ${first} (rowBlockFirst: ascending from 0, below ${n})`);
    firsts[b] = first;
    const spare = spares[b];
    if (spare === size) fail(`gives row block ${b} 0 bytes (rowBlockSpare)`);
    offsets[b + 1] = offsets[b] + (spare < size ? size - spare : spare);
  }
  firsts[count] = n;
  for (let b = 0; b < count; b++) {
    const bytes = offsets[b + 1] - offsets[b];
    if (firsts[b + 1] - firsts[b] > bytes)
      fail(
        `gives row block ${b} ${firsts[b + 1] - firsts[b]} chunks in ${bytes} bytes (rowBlockFirst, rowBlockSpare)`,
      );
  }
  return { firsts, offsets };
}
