// The hash pages a link reads once the library is open, before any question (warmPages.ts, BlockStore.readUpperPages):
// level 1 over the blocks that carry paths and every page above, read in one request of the slot pool's last class,
// checked as a question's pages are, never read twice, stopped by a cancel, and nothing for a source that is not a
// link. The tree here is made with node:crypto from the rule FORMAT.md states (a block's hash the first 16 bytes of
// its SHA-256, a leaf page's hash its Merkle root, a page above's the first 16 bytes of its SHA-256).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BlockLayout } from '../../../src/core/paged/blockLayout.ts';
import { leafRootsOf, pathOf, PATH_BYTES } from '../../../src/core/paged/blockPaths.ts';
import { BlockStore } from '../../../src/core/paged/blockStore.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import { LIST_BLOCKS_A_QUESTION, warmListRuns, warmRuns } from '../../../src/core/paged/warmPages.ts';

const sha16 = (bytes: Uint8Array) =>
  new Uint8Array(createHash('sha256').update(bytes).digest()).subarray(0, 16);

// A part of 16 blocks of 128 bytes (the lists', no paths), then 48 row blocks of 100 bytes each followed by its path
// of 48 bytes: 64 blocks, 8 leaf pages of 8 hashes; level 1 in pages of 32 bytes (2 hashes: 4 pages), level 2 in
// pages of 32 bytes (2 pages), their 2 hashes the top list.
const LISTS = 16;
const ROWS = 48;
const ROW = 100;
const sections = Uint8Array.from({ length: LISTS * 128 + ROWS * ROW }, (_, i) => (i * 31 + (i >> 8)) & 0xff);
const blockBytes = (b: number) =>
  b < LISTS
    ? sections.subarray(b * 128, (b + 1) * 128)
    : sections.subarray(LISTS * 128 + (b - LISTS) * ROW, LISTS * 128 + (b - LISTS + 1) * ROW);
const leaves = new Uint8Array(64 * 16);
for (let b = 0; b < 64; b++) leaves.set(sha16(blockBytes(b)), b * 16);
const level1 = leafRootsOf(leaves, 128); // 8 roots: 128 bytes, 4 pages of 32
const level2 = new Uint8Array(4 * 16);
for (let p = 0; p < 4; p++) level2.set(sha16(level1.subarray(p * 32, (p + 1) * 32)), p * 16);
const top = new Uint8Array(2 * 16);
for (let p = 0; p < 2; p++) top.set(sha16(level2.subarray(p * 32, (p + 1) * 32)), p * 16);

/** The part as stored (each row block followed by its path), then the hashes: level 0, 1, 2. */
function fileOf(): Uint8Array {
  const stored: number[] = [...sections.subarray(0, LISTS * 128)];
  for (let b = LISTS; b < 64; b++) stored.push(...blockBytes(b), ...pathOf(leaves, b));
  return new Uint8Array([...stored, ...leaves, ...level1, ...level2]);
}
const PART = LISTS * 128 + ROWS * (ROW + PATH_BYTES);
const L1_AT = PART + leaves.length;
const L2_AT = L1_AT + level1.length;

/**
 * A host answering multi-range requests (partBytes: a link, readsAhead) over `file`, logging each request's ranges;
 * with `hold`, every request waits until `release()`.
 */
function linkSource(file: Uint8Array, options: { partBytes?: number; hold?: boolean } = {}) {
  const inner = new MemoryRangeSource(file, 'link.bundle');
  const requests: Array<Array<[number, number]>> = [];
  let gates: Array<() => void> = [];
  const source = {
    name: 'link.bundle',
    size: file.length,
    gapBytes: 0,
    partBytes: options.partBytes ?? 120,
    get bytesRead() {
      return inner.bytesRead;
    },
    read: (offset: number, length: number) => {
      requests.push([[offset, length]]);
      return inner.read(offset, length);
    },
    async readRanges(ranges: ReadonlyArray<readonly [number, number]>) {
      requests.push(ranges.map(([o, l]): [number, number] => [o, l]));
      if (options.hold) await new Promise<void>((resolve) => gates.push(resolve));
      return Promise.all(ranges.map(([o, l]) => inner.read(o, l)));
    },
  };
  const release = () => {
    const open = gates;
    gates = [];
    for (const g of open) g();
  };
  return { source, requests, release };
}

/** The store over `source`; `named`: the lists' blocks named as a directory's layout names them (warmListRuns). */
function storeOver(source: ConstructorParameters<typeof BlockStore>[0], named = false): BlockStore {
  const layout = new BlockLayout(
    [
      named ? [LISTS * 128, 128, 'lists'] : [LISTS * 128, 128],
      [ROWS * ROW, { count: ROWS, starts: Array.from({ length: ROWS }, (_, i) => i * ROW) }],
    ],
    512,
  ).withPaths(['rows'], PATH_BYTES);
  return new BlockStore(
    source,
    0,
    PART,
    layout,
    {
      offset: PART,
      length: leaves.length,
      pageSize: 128,
      top,
      upper: [
        { at: leaves.length, length: level1.length, pageSize: 32 },
        { at: leaves.length + level1.length, length: level2.length, pageSize: 32 },
      ],
    },
    'pages.bin',
    undefined,
    16,
  );
}

/** Row block b's bytes [from, to) of the sections (its place without the paths). */
const rowAt = (b: number) => LISTS * 128 + (b - LISTS) * ROW;

const levels = [
  { length: leaves.length, pageSize: 128, entry: 16 },
  { length: level1.length, pageSize: 32, entry: 16 },
  { length: level2.length, pageSize: 32, entry: 16 },
];

describe('the hash pages read ahead (warmRuns)', () => {
  it('are level 1 over the blocks with paths and every page of the levels above', () => {
    // Blocks 16..63 are in leaf pages 2..7, whose hashes lie in pages 1..3 of level 1 (2 a page); level 2 whole.
    expect(warmRuns({ first: 16, count: 48 }, levels)).toEqual([
      { level: 1, first: 1, last: 3 },
      { level: 2, first: 0, last: 1 },
    ]);
    // No blocks with paths (before version 13): the levels above level 1 only; a tree of one level above the leaves
    // with no paths: nothing.
    expect(warmRuns(undefined, levels)).toEqual([{ level: 2, first: 0, last: 1 }]);
    expect(warmRuns(undefined, levels.slice(0, 2))).toEqual([]);
  });
});

describe('the lists’ level-1 pages read ahead (warmListRuns)', () => {
  it('are every level-1 page over the lists’ blocks when a question would read more than half of them, else none', () => {
    // Blocks 0..15 are in leaf pages 0..1, whose hashes lie in page 0 of level 1.
    expect(warmListRuns({ first: 0, count: 16 }, levels)).toEqual([{ level: 1, first: 0, last: 0 }]);
    expect(warmListRuns(undefined, levels)).toEqual([]);
    expect(warmListRuns({ first: 0, count: 16 }, levels.slice(0, 1))).toEqual([]);
    // 500 list blocks a question over P pages read P·(1 − e^(−500/P)) of them: over half up to 721 pages.
    expect(Math.floor(LIST_BLOCKS_A_QUESTION / Math.LN2)).toBe(721);
    // Level-1 pages of 512 bytes (32 leaf pages of 8 blocks: 256 blocks a page), as a library's.
    const wide = [
      { length: 2000 * 32 * 128, pageSize: 128, entry: 16 },
      { length: 2000 * 512, pageSize: 512, entry: 16 },
      { length: 4 * 512, pageSize: 512, entry: 16 },
    ];
    // 100 MiB of text (/tmp/qb/mb100.bundle): 85,931 list blocks from block 76,879, over 336 pages: all read ahead.
    expect(warmListRuns({ first: 76879, count: 85931 }, wide)).toEqual([{ level: 1, first: 300, last: 635 }]);
    expect(warmListRuns({ first: 0, count: 721 * 256 }, wide)).toEqual([{ level: 1, first: 0, last: 720 }]);
    expect(warmListRuns({ first: 0, count: 721 * 256 + 1 }, wide)).toEqual([]);
    // 1 GiB of text: 3,417 pages of the lists' level 1, ~13 % read by a question: none read ahead.
    expect(warmListRuns({ first: 0, count: 3417 * 256 }, wide)).toEqual([]);
  });
});

describe('BlockStore.readUpperPages', () => {
  it('then reads the lists’ level-1 pages in a request of their own while no question has asked for anything', async () => {
    const { source, requests } = linkSource(fileOf());
    const s = storeOver(source, true);
    expect(await s.readUpperPages()).toBe(3 * 32 + 2 * 32 + 32);
    expect(requests).toEqual([
      [
        [L1_AT + 32, 3 * 32],
        [L2_AT, 2 * 32],
      ],
      [[L1_AT, 32]],
    ]);
    // A question's list: its block and its leaf page only (the page above it held).
    expect(s.bytes(3 * 128, 4)).toBeUndefined();
    await s.load();
    expect(
      requests
        .slice(2)
        .flat()
        .filter(([o]) => o >= L1_AT),
    ).toEqual([]);
  });

  it('leaves the lists’ level-1 pages to a question asked before the first request is in', async () => {
    const { source, requests, release } = linkSource(fileOf(), { hold: true });
    const s = storeOver(source, true);
    const warm = s.readUpperPages();
    await Promise.resolve();
    expect(s.bytes(rowAt(40), 10)).toBeUndefined();
    const question = s.load();
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      release();
    }
    await Promise.all([warm, question]);
    // The warm's one request and the question's: no request of the lists' level 1.
    expect(requests.flat().filter(([o]) => o === L1_AT)).toEqual([]);
    expect(await warm).toBe(3 * 32 + 2 * 32);
  });

  it('reads the pages in one request once the library is open, and a question then reads none of them', async () => {
    const { source, requests } = linkSource(fileOf());
    const s = storeOver(source);
    expect(await s.readUpperPages()).toBe(3 * 32 + 2 * 32);
    expect(requests).toEqual([
      [
        [L1_AT + 32, 3 * 32],
        [L2_AT, 2 * 32],
      ],
    ]);
    // A question's row: its block and path only (its path checks it against level 1, held).
    expect(s.bytes(rowAt(40), 10)).toBeUndefined();
    await s.load();
    expect(s.bytes(rowAt(40), 10)).toEqual(blockBytes(40).subarray(0, 10));
    expect(requests.slice(1)).toEqual([[[LISTS * 128 + 24 * (ROW + PATH_BYTES), ROW + PATH_BYTES]]]);
  });

  it('a question asked while they are on their way waits for them and reads none of them again', async () => {
    const { source, requests, release } = linkSource(fileOf(), { hold: true });
    const s = storeOver(source);
    const warm = s.readUpperPages();
    await Promise.resolve();
    expect(requests).toHaveLength(1);
    expect(s.bytes(rowAt(40), 10)).toBeUndefined();
    const question = s.load();
    // Let the question's request go out, then answer both.
    await new Promise((resolve) => setTimeout(resolve, 0));
    release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    release();
    await Promise.all([warm, question]);
    expect(s.bytes(rowAt(40), 10)).toEqual(blockBytes(40).subarray(0, 10));
    const hashRanges = requests.flat().filter(([o]) => o >= PART);
    expect(hashRanges).toEqual([
      [L1_AT + 32, 3 * 32],
      [L2_AT, 2 * 32],
    ]);
  });

  it('leaves to a question the pages it is reading already, and checks its own once they are', async () => {
    const { source, requests, release } = linkSource(fileOf(), { hold: true });
    const s = storeOver(source);
    // A list block (no path): its leaf page, and the pages above it, read by the question.
    expect(s.bytes(3 * 128, 4)).toBeUndefined();
    const question = s.load();
    await Promise.resolve();
    const warm = s.readUpperPages();
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      release();
    }
    await Promise.all([question, warm]);
    // The question read leaf page 0, level 1's page 0 and level 2's page 0; the warm read level 1's pages 1..3 and
    // level 2's page 1, not page 0 again.
    expect(requests[1]).toEqual([
      [L1_AT + 32, 3 * 32],
      [L2_AT + 32, 32],
    ]);
    // A row of leaf page 7 later: its block and path only, every page above it held.
    expect(s.bytes(rowAt(63), 4)).toBeUndefined();
    const later = s.load();
    await new Promise((resolve) => setTimeout(resolve, 0));
    release();
    await later;
    expect(
      requests
        .slice(2)
        .flat()
        .filter(([o]) => o >= PART),
    ).toEqual([]);
  });

  it('refuses a changed page among them, naming it, and so does a question waiting on it', async () => {
    const file = fileOf();
    file[L1_AT + 2 * 32 + 5] ^= 1;
    const { source, release } = linkSource(file, { hold: true });
    const s = storeOver(source);
    const warm = s.readUpperPages();
    await Promise.resolve();
    // Row 40 lies in leaf page 5, whose hash is in level 1's page 2: the changed one.
    expect(s.bytes(rowAt(40), 10)).toBeUndefined();
    const question = s.load();
    await new Promise((resolve) => setTimeout(resolve, 0));
    release();
    await expect(warm).rejects.toThrow(/SHA-256 mismatch in hash page 2 of level 1/);
    await expect(question).rejects.toThrow(/SHA-256 mismatch in hash page 2 of level 1/);
  });

  it('sends nothing once cancelled (the library closed or replaced)', async () => {
    const { source, requests } = linkSource(fileOf());
    const s = storeOver(source);
    const closed = new AbortController();
    closed.abort();
    await expect(s.readUpperPages(closed.signal)).rejects.toThrow(/abort/i);
    expect(requests).toEqual([]);
  });

  it('goes after a question’s queued requests, and is not sent once the library is closed meanwhile', async () => {
    const { source, requests, release } = linkSource(fileOf(), { hold: true });
    Object.assign(source, { inFlight: 1 });
    const s = storeOver(source);
    s.bytes(rowAt(20), 1);
    const question = s.load();
    const closed = new AbortController();
    const warm = expect(s.readUpperPages(closed.signal)).rejects.toThrow(/abort/i);
    closed.abort();
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      release();
    }
    await question;
    await warm;
    // The question's request only (its row and the pages it needed); no request of the warm's.
    expect(requests).toHaveLength(1);
  });

  it('reads nothing from a source that is not a link (a file, memory: one range costs nothing more)', async () => {
    const { source, requests } = linkSource(fileOf(), { partBytes: 0 });
    const s = storeOver(source);
    expect(await s.readUpperPages()).toBe(0);
    expect(requests).toEqual([]);
  });
});
