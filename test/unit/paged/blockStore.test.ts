// The block store's follow-ups: what a follow-up notes once the bytes it waited for have arrived is read in the same
// load(), and a corrupted block is refused whichever stage reads it.
import { createHash } from 'node:crypto';
import { gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { BlockLayout } from '../../../src/core/paged/blockLayout.ts';
import { BlockStore } from '../../../src/core/paged/blockStore.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';

const BLOCK = 512;
const data = Uint8Array.from({ length: 64 * BLOCK }, (_, i) => (i * 13 + (i >> 9)) & 0xff);

/** Each block's SHA-256, blocks of `size` bytes. */
function hashes(bytes: Uint8Array, size = BLOCK): Uint8Array {
  const out = new Uint8Array(Math.ceil(bytes.length / size) * 32);
  for (let b = 0; b * size < bytes.length; b++) {
    out.set(
      createHash('sha256')
        .update(bytes.subarray(b * size, (b + 1) * size))
        .digest(),
      b * 32,
    );
  }
  return out;
}

function store(bytes = data): { store: BlockStore; source: MemoryRangeSource } {
  const source = new MemoryRangeSource(bytes, 'test.bin');
  return { store: new BlockStore(source, 0, bytes.length, BLOCK, hashes(data), 'pages.bin'), source };
}

/**
 * A source over `bytes` that reads across gaps of up to `gapBytes` and logs each read [offset, length]; `partBytes`,
 * what it says a range of its own costs in a request of several (RangeSource.partBytes).
 */
function loggedSource(bytes: Uint8Array, name: string, gapBytes: number, partBytes?: number) {
  const inner = new MemoryRangeSource(bytes, name);
  const reads: Array<[number, number]> = [];
  const source = {
    name,
    size: bytes.length,
    gapBytes,
    partBytes,
    get bytesRead() {
      return inner.bytesRead;
    },
    read: (offset: number, length: number) => {
      reads.push([offset, length]);
      return inner.read(offset, length);
    },
  };
  return { reads, source };
}

describe('BlockStore follow-ups', () => {
  it('reads what a follow-up notes in the same load', async () => {
    const { store: s, source } = store();
    // A "pointer" at the start of block 0 says where the wanted bytes are (block 40): the follow-up reads it.
    expect(s.bytes(0, 4)).toBeUndefined();
    let followed = 0;
    s.after(() => {
      followed++;
      const pointer = s.bytes(0, 4)!;
      expect(s.bytes(40 * BLOCK + pointer[0], 8)).toBeUndefined();
    });
    await s.load();
    expect(followed).toBe(1);
    expect(s.missing).toBe(false);
    expect(s.bytes(40 * BLOCK + data[0], 8)).toEqual(
      data.subarray(40 * BLOCK + data[0], 40 * BLOCK + data[0] + 8),
    );
    // Blocks 0 and 40: far apart, read in two requests of one block each.
    expect(source.bytesRead).toBe(2 * BLOCK);
  });

  it('stops after a few stages and leaves the rest to the next run', async () => {
    const { store: s } = store();
    const chain = (b: number): void => {
      if (s.bytes(b * BLOCK, 1) === undefined) s.after(() => chain(b + 20));
    };
    chain(0);
    await s.load();
    // Each stage adds one block 20 further; three stages read blocks 0, 20 and 40, the fourth's note is left.
    expect(s.bytes(0, 1)).toBeDefined();
    expect(s.bytes(20 * BLOCK, 1)).toBeDefined();
    expect(s.bytes(40 * BLOCK, 1)).toBeDefined();
    expect(s.missing).toBe(true);
  });

  it('refuses a corrupted block read by a follow-up, naming the block', async () => {
    const bad = data.slice();
    bad[33 * BLOCK + 5] ^= 1;
    const { store: s } = store(bad);
    s.bytes(0, 1);
    s.after(() => s.bytes(33 * BLOCK, 1));
    await expect(s.load()).rejects.toThrow(/SHA-256 mismatch in block 33 of part pages\.bin/);
  });
});

describe('BlockStore groups', () => {
  /** A part holding one gzip'd JSON group at offset 0, its trailer's declared size optionally rewritten. */
  function groupPart(value: unknown, declared?: number): { s: BlockStore; length: number } {
    const gz = gzipSync(new TextEncoder().encode(JSON.stringify(value)));
    if (declared !== undefined) new DataView(gz.buffer).setUint32(gz.length - 4, declared, true);
    const bytes = new Uint8Array(4 * BLOCK);
    bytes.set(gz);
    const source = new MemoryRangeSource(bytes, 'groups.bin');
    return {
      s: new BlockStore(source, 0, bytes.length, BLOCK, hashes(bytes), 'pages.bin'),
      length: gz.length,
    };
  }
  const words = Array.from({ length: 200 }, (_, i) => `word${i}`);

  it('decodes a gzip JSON group once its blocks have loaded', async () => {
    const { s, length } = groupPart(words);
    expect(s.group('t0', 0, length)).toBeUndefined();
    await s.load();
    expect(s.group('t0', 0, length)).toEqual(words);
  });

  it('refuses a group that inflates past the size it declares, and one that declares too much', async () => {
    const short = groupPart(words, 100);
    short.s.group('t0', 0, short.length);
    await expect(short.s.load()).rejects.toThrow(/group t0 does not decode/);
    const huge = groupPart(words, 2 ** 31);
    huge.s.group('t0', 0, huge.length);
    await expect(huge.s.load()).rejects.toThrow(
      /group t0 does not decode \(declares 2147483648 bytes inflated\)/,
    );
  });
});

describe('BlockStore set aside', () => {
  it('loads only what was noted after setAside(), then what was set aside, less what came meanwhile', async () => {
    const { store: s, source } = store();
    // The walk's notes: blocks 10 and 50, and a follow-up.
    expect(s.bytes(10 * BLOCK, 4)).toBeUndefined();
    expect(s.bytes(50 * BLOCK, 4)).toBeUndefined();
    let followed = 0;
    s.after(() => followed++);
    const aside = s.setAside();
    expect(s.missing).toBe(false);
    // The words' notes: block 10 again and block 30, loaded alone.
    expect(s.bytes(10 * BLOCK, 4)).toBeUndefined();
    expect(s.bytes(30 * BLOCK, 4)).toBeUndefined();
    await s.load();
    expect(followed).toBe(0);
    expect(source.bytesRead).toBe(2 * BLOCK);
    expect(s.bytes(50 * BLOCK, 4)).toBeUndefined(); // not loaded yet (and noted again: harmless)
    s.restore(aside);
    await s.load();
    // Block 50 only: block 10 came with the words' load.
    expect(source.bytesRead).toBe(3 * BLOCK);
    expect(followed).toBe(1);
    expect(s.bytes(50 * BLOCK, 4)).toEqual(data.subarray(50 * BLOCK, 50 * BLOCK + 4));
  });

  it('reads held pages at once: nothing is missing, nothing is fetched, what was touched is counted', () => {
    const source = new MemoryRangeSource(data, 'held.bin');
    const s = new BlockStore(source, 0, data.length, BLOCK, hashes(data), 'pages.bin', data);
    expect(s.bytes(3 * BLOCK - 2, 4)).toEqual(data.subarray(3 * BLOCK - 2, 3 * BLOCK + 2));
    expect(s.missing).toBe(false);
    expect(source.bytesRead).toBe(0);
    expect(s.bytesRead).toBe(2 * BLOCK);
    const group = gzipSync(new TextEncoder().encode('{"a":1}'));
    const withGroup = new Uint8Array([...data.subarray(0, BLOCK), ...group]);
    const h = new BlockStore(source, 0, withGroup.length, BLOCK, hashes(withGroup), 'pages.bin', withGroup);
    expect(h.group('g', BLOCK, group.length)).toEqual({ a: 1 });
  });
});

describe('BlockStore over blocks of sizes by section (version 8)', () => {
  // 2 KiB of 512-byte blocks, then 4 KiB of 128-byte blocks (a rows zone), then 1 KiB of 512-byte blocks.
  const zoned = Uint8Array.from({ length: 7 * 1024 }, (_, i) => (i * 7 + (i >> 7)) & 0xff);
  const cuts: Array<[number, number]> = [];
  for (let at = 0; at < 2048; at += 512) cuts.push([at, at + 512]);
  for (let at = 2048; at < 6144; at += 128) cuts.push([at, at + 128]);
  for (let at = 6144; at < 7168; at += 512) cuts.push([at, at + 512]);
  const zonedHashes = new Uint8Array(cuts.length * 32);
  cuts.forEach(([from, to], b) =>
    zonedHashes.set(createHash('sha256').update(zoned.subarray(from, to)).digest(), b * 32),
  );
  const layout = new BlockLayout(
    [
      [2048, 512],
      [4096, 128],
      [1024, 512],
    ],
    512,
  );
  /** A source that reads across gaps of up to `gapBytes` and counts its reads. */
  const sourceWithGap = (gapBytes: number) => loggedSource(zoned, 'zoned.bin', gapBytes);

  it('reads a gap shorter than a part of a multi-range request with the blocks around it, and keeps its blocks', async () => {
    // Rows blocks 1 and 3 of the rows' zone (one 128-byte block between): one range when a part costs more than the
    // block between, two when it costs as much or less, or the source says nothing.
    for (const [partBytes, ranges] of [
      [129, 1],
      [300, 1],
      [128, 2],
      [90, 2],
      [undefined, 2],
      [Number.NaN, 2],
    ] as const) {
      const { source, reads } = loggedSource(zoned, 'zoned.bin', 0, partBytes);
      const s = new BlockStore(source, 0, zoned.length, layout, zonedHashes, 'pages.bin');
      expect(s.bytes(2048 + 128 + 5, 1)).toBeUndefined();
      expect(s.bytes(2048 + 3 * 128 + 5, 1)).toBeUndefined();
      await s.load();
      expect(reads.length, `part ${partBytes}`).toBe(ranges);
      expect(s.bytes(2048 + 3 * 128 + 5, 1)).toEqual(zoned.subarray(2048 + 3 * 128 + 5, 2048 + 3 * 128 + 6));
      // The block read between them was checked and kept: it needs no read of its own.
      expect(s.bytes(2048 + 2 * 128, 4) !== undefined, `part ${partBytes}`).toBe(ranges === 1);
    }
  });

  it('numbers, reads and checks the blocks zone by zone', async () => {
    expect(layout.count).toBe(cuts.length);
    const { source, reads } = sourceWithGap(0);
    const s = new BlockStore(source, 0, zoned.length, layout, zonedHashes, 'pages.bin');
    // A piece across the first zone's end and into the rows' second block: blocks 3, 4 and 5.
    expect(s.bytes(2000, 250)).toBeUndefined();
    await s.load();
    expect(s.bytes(2000, 250)).toEqual(zoned.subarray(2000, 2250));
    expect(reads).toEqual([[1536, 2304 - 1536]]);
  });

  it('reads across a gap counted in bytes, whatever the size of the blocks between', async () => {
    // Rows 1,280 bytes apart (ten 128-byte blocks): one range when the source reads across 1 KiB gaps or more,
    // two when it reads across less.
    for (const [gap, ranges] of [
      [2048, 1],
      [1024, 2],
      [0, 2],
    ] as const) {
      const { source, reads } = sourceWithGap(gap);
      const s = new BlockStore(source, 0, zoned.length, layout, zonedHashes, 'pages.bin');
      expect(s.bytes(2048 + 5, 1)).toBeUndefined();
      expect(s.bytes(2048 + 11 * 128 + 5, 1)).toBeUndefined();
      await s.load();
      expect(reads.length, `gap ${gap}`).toBe(ranges);
      expect(s.bytes(2048 + 11 * 128 + 5, 1)).toEqual(
        zoned.subarray(2048 + 11 * 128 + 5, 2048 + 11 * 128 + 6),
      );
    }
  });
});

describe('BlockStore between questions', () => {
  it('keeps what it read while the bytes are under its bound, however small the blocks (version 8 rows)', async () => {
    // 9 MiB in 128-byte blocks: 73,728 blocks, more than 65,536 (the bound when it counted blocks), far under 32 MiB.
    const size = 128;
    const part = Uint8Array.from({ length: 9 << 20 }, (_, i) => (i * 31 + (i >> 7)) & 0xff);
    const digests = hashes(part, size);
    const source = new MemoryRangeSource(part, 'rows.bin');
    const s = new BlockStore(
      source,
      0,
      part.length,
      BlockLayout.uniform(part.length, size),
      digests,
      'pages.bin',
    );
    expect(s.bytes(0, part.length)).toBeUndefined();
    await s.load();
    const read = source.bytesRead;
    expect(read).toBe(part.length);
    s.trim(); // between two questions
    expect(s.bytes(4096, 64)).toEqual(part.subarray(4096, 4160));
    expect(s.missing).toBe(false);
    expect(source.bytesRead).toBe(read);
  });
});

describe('BlockStore pages of block hashes made from the blocks', () => {
  // 64 blocks of 128 bytes; their 16-byte hashes in pages of 128 bytes (8 hashes, 1 KiB of blocks a page), the 8
  // pages' hashes in one page of 128 bytes above them, its hash the top list. The hashes follow the blocks in the file.
  const SIZE = 128;
  const part = Uint8Array.from({ length: 64 * SIZE }, (_, i) => (i * 29 + (i >> 7)) & 0xff);
  const sha = (bytes: Uint8Array) =>
    new Uint8Array(createHash('sha256').update(bytes).digest()).subarray(0, 16);
  const leaves = new Uint8Array(64 * 16);
  for (let b = 0; b < 64; b++) leaves.set(sha(part.subarray(b * SIZE, (b + 1) * SIZE)), b * 16);
  const upper = new Uint8Array(8 * 16);
  for (let p = 0; p < 8; p++) upper.set(sha(leaves.subarray(p * 128, (p + 1) * 128)), p * 16);
  const top = sha(upper);
  const open = (blocks: Uint8Array, gapBytes: number) => {
    const file = new Uint8Array(blocks.length + leaves.length + upper.length);
    file.set(blocks);
    file.set(leaves, blocks.length);
    file.set(upper, blocks.length + leaves.length);
    const { reads, source } = loggedSource(file, 'file.bin', gapBytes);
    const s = new BlockStore(
      source,
      0,
      blocks.length,
      BlockLayout.uniform(blocks.length, SIZE),
      {
        offset: blocks.length,
        length: leaves.length,
        pageSize: 128,
        top,
        upper: [{ at: leaves.length, length: upper.length, pageSize: 128 }],
      },
      'pages.bin',
      undefined,
      16,
    );
    return { s, reads };
  };
  const at = part.length;

  it('reads across a gap in whole pages of hashes and makes those pages, reading only the level above', async () => {
    // Blocks 3 and 20, 2 KiB apart: one run across the gap, widened to blocks 0–23 (pages 0–2 made from them).
    const { s, reads } = open(part, 2048);
    expect(s.bytes(3 * SIZE + 1, 10)).toBeUndefined();
    expect(s.bytes(20 * SIZE, 4)).toBeUndefined();
    await s.load();
    expect(s.bytes(3 * SIZE + 1, 10)).toEqual(part.subarray(3 * SIZE + 1, 3 * SIZE + 11));
    expect(s.bytes(20 * SIZE, 4)).toEqual(part.subarray(20 * SIZE, 20 * SIZE + 4));
    expect(reads.sort((a, b) => a[0] - b[0])).toEqual([
      [0, 24 * SIZE],
      [at + leaves.length, upper.length],
    ]);
    // Block 22 came with the run and checks out against the page made: nothing read for it.
    expect(s.bytes(22 * SIZE, 8)).toEqual(part.subarray(22 * SIZE, 22 * SIZE + 8));
    expect(s.missing).toBe(false);
  });

  it('reads the pages of hashes of blocks read one by one (no gap)', async () => {
    const { s, reads } = open(part, 0);
    expect(s.bytes(3 * SIZE, 1)).toBeUndefined();
    await s.load();
    expect(reads.sort((a, b) => a[0] - b[0])).toEqual([
      [3 * SIZE, SIZE],
      [at, 128],
      [at + leaves.length, upper.length],
    ]);
  });

  it('refuses a changed block in a page it makes, naming the block', async () => {
    const bad = part.slice();
    bad[10 * SIZE + 7] ^= 1;
    const { s } = open(bad, 2048);
    expect(s.bytes(3 * SIZE, 1)).toBeUndefined();
    expect(s.bytes(20 * SIZE, 1)).toBeUndefined();
    await expect(s.load()).rejects.toThrow(/SHA-256 mismatch in block 10 of part pages\.bin/);
  });

  it('refuses a changed page of the level above', async () => {
    upper[16] ^= 1;
    try {
      const { s } = open(part, 2048);
      expect(s.bytes(3 * SIZE, 1)).toBeUndefined();
      await expect(s.load()).rejects.toThrow(/SHA-256 mismatch in hash page 0 of level 1/);
    } finally {
      upper[16] ^= 1;
    }
  });
});

describe('BlockStore slots free at a request’s last byte', () => {
  // 64 blocks of 128 bytes, their 16-byte hashes in pages of 128 bytes after them, one page above: as the section
  // above, read by a source that keeps 3 requests out, one range a request, and holds its hash pages' answers.
  const SIZE = 128;
  const part = Uint8Array.from({ length: 64 * SIZE }, (_, i) => (i * 31 + (i >> 7)) & 0xff);
  const sha = (bytes: Uint8Array) =>
    new Uint8Array(createHash('sha256').update(bytes).digest()).subarray(0, 16);
  const leaves = new Uint8Array(64 * 16);
  for (let b = 0; b < 64; b++) leaves.set(sha(part.subarray(b * SIZE, (b + 1) * SIZE)), b * 16);
  const upper = new Uint8Array(8 * 16);
  for (let p = 0; p < 8; p++) upper.set(sha(leaves.subarray(p * 128, (p + 1) * 128)), p * 16);
  const file = new Uint8Array(part.length + leaves.length + upper.length);
  file.set(part);
  file.set(leaves, part.length);
  file.set(upper, part.length + leaves.length);

  it('sends every request of blocks while the stage’s hash pages are still on their way', async () => {
    const inner = new MemoryRangeSource(file, 'held.bin');
    const sent: Array<'blocks' | 'pages'> = [];
    let releasePages: () => void = () => undefined;
    const pagesHeld = new Promise<void>((resolve) => (releasePages = resolve));
    const source = {
      name: 'held.bin',
      size: file.length,
      gapBytes: 0,
      inFlight: 3,
      rangesARequest: 1,
      get bytesRead() {
        return inner.bytesRead;
      },
      read: (offset: number, length: number) => inner.read(offset, length),
      readRanges: async (ranges: ReadonlyArray<readonly [number, number]>) => {
        const pages = ranges[0][0] >= part.length;
        sent.push(pages ? 'pages' : 'blocks');
        if (pages) await pagesHeld;
        return Promise.all(ranges.map(([offset, length]) => inner.read(offset, length)));
      },
    };
    const s = new BlockStore(
      source,
      0,
      part.length,
      BlockLayout.uniform(part.length, SIZE),
      {
        offset: part.length,
        length: leaves.length,
        pageSize: 128,
        top: sha(upper),
        upper: [{ at: leaves.length, length: upper.length, pageSize: 128 }],
      },
      'pages.bin',
      undefined,
      16,
    );
    // Every other block: 32 runs, a request each, more than the 3 slots (the hash pages go in requests of their own).
    for (let b = 0; b < 64; b += 2) expect(s.bytes(b * SIZE, 1)).toBeUndefined();
    const loading = s.load();
    // Two requests of hash pages hold two slots; the third takes the 32 requests of blocks one after the other without
    // waiting for the pages (held in its slot until checked, it sent one and waited).
    for (let i = 0; i < 50 && sent.filter((k) => k === 'blocks').length < 32; i++)
      await new Promise((resolve) => setTimeout(resolve, 0));
    expect(sent.filter((k) => k === 'pages')).toHaveLength(2);
    expect(sent.filter((k) => k === 'blocks')).toHaveLength(32);
    releasePages();
    await loading;
    for (let b = 0; b < 64; b += 2)
      expect(s.bytes(b * SIZE, 4)).toEqual(part.subarray(b * SIZE, b * SIZE + 4));
    expect(s.missing).toBe(false);
  });
});

describe('BlockStore ranges a request', () => {
  /** 2,600 blocks of 32 bytes over a multi-range source that records how many ranges each request carried. */
  const scatteredStore = () => {
    const SIZE = 32;
    const bytes = Uint8Array.from({ length: 2600 * SIZE }, (_, i) => (i * 7 + (i >> 5)) & 0xff);
    const inner = new MemoryRangeSource(bytes, 'scattered.bin');
    const asked: number[] = [];
    const source = {
      name: 'scattered.bin',
      size: bytes.length,
      gapBytes: 0,
      get bytesRead() {
        return inner.bytesRead;
      },
      read: (offset: number, length: number) => inner.read(offset, length),
      readRanges: (ranges: ReadonlyArray<readonly [number, number]>) => {
        asked.push(ranges.length);
        return Promise.all(ranges.map(([offset, length]) => inner.read(offset, length)));
      },
    };
    const s = new BlockStore(source, 0, bytes.length, SIZE, hashes(bytes, SIZE), 'pages.bin');
    return { SIZE, bytes, asked, s };
  };

  it('sends a stage of scattered blocks in requests of up to 200 ranges (Apache’s MaxRanges), 6 at once', async () => {
    // 2,600 blocks of 32 bytes; every other one wanted: 1,300 runs, none adjacent.
    const { SIZE, bytes, asked, s } = scatteredStore();
    for (let b = 0; b < 2600; b += 2) expect(s.bytes(b * SIZE, 1)).toBeUndefined();
    await s.load();
    // A host on a link pays a round trip a request on each of its 6 connections: 1,300 ranges in requests of at most
    // 200, not 13 of 100, and no connection carries more than two (three round trips on the busiest before).
    // The first wave staggered (staggeredBatches): 200 × k / 6 ranges its k-th request, then 600 in 3 of 200.
    expect(asked.reduce((a, b) => a + b, 0)).toBe(1300);
    expect(asked).toEqual([33, 67, 100, 133, 167, 200, 200, 200, 200]);
    expect(Math.max(...asked)).toBeLessThanOrEqual(200);
    expect(s.bytes(2598 * SIZE, 4)).toEqual(bytes.subarray(2598 * SIZE, 2598 * SIZE + 4));
  });

  it('sends a load that says how many requests it takes in that many, its ranges permitting, and never more than 6', async () => {
    // 2,600 blocks of 32 bytes; every other one of the first 300 wanted: 150 runs, none adjacent.
    const { SIZE, bytes, asked, s } = scatteredStore();
    const load = async (from: number, to: number, requests: number) => {
      asked.length = 0;
      for (let b = from; b < to; b += 2) expect(s.bytes(b * SIZE, 1)).toBeUndefined();
      await s.load({ requests });
      for (let b = from; b < to; b += 2)
        expect(s.bytes(b * SIZE, SIZE)).toEqual(bytes.subarray(b * SIZE, (b + 1) * SIZE));
      return [...asked];
    };
    // The early evidence's records as the walk starts beside them (library.ts, BESIDE_EARLY_REQUESTS): one request
    // where a load of the same runs would take all 6 slots.
    expect(await load(0, 300, 1)).toEqual([150]);
    expect(await load(300, 600, 2)).toEqual([75, 75]);
    // More runs than one request carries (200 ranges): as few as carry them.
    expect(await load(600, 1200, 1)).toEqual([200, 100]);
    // More than the source keeps out at once: as many as it does (as without).
    expect(await load(1200, 1500, 64)).toEqual([25, 25, 25, 25, 25, 25]);
  });
});

describe('BlockStore a refused block', () => {
  it('stops sending the stage’s requests once a block it read is refused', async () => {
    // 40 blocks of 32 bytes, every other one wanted, a request each, one at a time; block 0 is corrupted.
    const SIZE = 32;
    const bytes = Uint8Array.from({ length: 40 * SIZE }, (_, i) => (i * 11 + (i >> 5)) & 0xff);
    const served = bytes.slice();
    served[3] ^= 1;
    const inner = new MemoryRangeSource(served, 'refused.bin');
    let sent = 0;
    const source = {
      name: 'refused.bin',
      size: served.length,
      gapBytes: 0,
      inFlight: 1,
      rangesARequest: 1,
      get bytesRead() {
        return inner.bytesRead;
      },
      read: (offset: number, length: number) => inner.read(offset, length),
      readRanges: async (ranges: ReadonlyArray<readonly [number, number]>) => {
        sent++;
        // An answer a turn of the event loop later, as a host's: the check before it has run by then.
        await new Promise((resolve) => setTimeout(resolve, 0));
        return Promise.all(ranges.map(([offset, length]) => inner.read(offset, length)));
      },
    };
    const s = new BlockStore(source, 0, served.length, SIZE, hashes(bytes, SIZE), 'pages.bin');
    for (let b = 0; b < 40; b += 2) expect(s.bytes(b * SIZE, 1)).toBeUndefined();
    await expect(s.load()).rejects.toThrow(/SHA-256 mismatch in block 0/);
    // Not the 20 requests of the stage: the ones sent before the refusal was known.
    expect(sent).toBeLessThan(4);
  });
});

describe('BlockStore groups decoded between responses', () => {
  it('looks at a response’s own blocks, not at every group of the load, on a host answering one range a request', async () => {
    // 128 groups of one block each, a block apart: 128 runs, each a request of its own (a bare memory source reads
    // one range a request). Checking every group of the load at each response looks up ~128²/2 blocks; a response
    // should cost its own blocks (round twenty-five: at 100 MiB over HTTP/2, 38 of 48 s of CPU).
    const bytes = Uint8Array.from({ length: 256 * BLOCK }, (_, i) => (i * 7 + (i >> 9)) & 0xff);
    const source = new MemoryRangeSource(bytes, 'scattered.bin');
    const s = new BlockStore(source, 0, bytes.length, BLOCK, hashes(bytes), 'pages.bin');
    const held = (s as unknown as { blocks: Map<number, Uint8Array> }).blocks;
    const has = held.has.bind(held);
    let lookups = 0;
    held.has = (b: number) => (lookups++, has(b));
    const decodedAt: number[] = [];
    const firstByte = (g: number) =>
      s.group<number>(`g${g}`, 2 * g * BLOCK, BLOCK, (raw) => (decodedAt.push(g), raw[0]));
    for (let g = 0; g < 128; g++) expect(firstByte(g)).toBeUndefined();
    lookups = 0;
    await s.load();
    for (let g = 0; g < 128; g++) expect(firstByte(g)).toBe(bytes[2 * g * BLOCK]);
    expect(decodedAt.sort((a, b) => a - b)).toEqual(Array.from({ length: 128 }, (_, g) => g));
    expect(lookups).toBeLessThan(8 * 128); // a few a block (noting, checking, decoding): 8,324 when every group was looked at each response
  });
});

describe('BlockStore two loads in flight (the walk’s reads beside the early evidence’s)', () => {
  /**
   * A source of one range a request (no readRanges: a request a run, no gap read across) that keeps `inFlight` out, logs each read's
   * first block and the most out at once, and answers after a turn of the event loop.
   */
  function slowSource(bytes: Uint8Array, inFlight: number) {
    const inner = new MemoryRangeSource(bytes, 'slow.bin');
    const seen = { blocks: [] as number[], out: 0, most: 0 };
    const source = {
      name: 'slow.bin',
      size: bytes.length,
      // Nothing read across a gap: a run a wanted block.
      gapBytes: 0,
      inFlight,
      get bytesRead() {
        return inner.bytesRead;
      },
      async read(offset: number, length: number) {
        for (let b = offset / BLOCK; b < (offset + length) / BLOCK; b++) seen.blocks.push(b);
        seen.most = Math.max(seen.most, ++seen.out);
        await new Promise((resolve) => setTimeout(resolve, 2));
        seen.out--;
        return inner.read(offset, length);
      },
    };
    return { source, seen };
  }

  it('keeps out as many requests as the source says now: a host found to multiplex after the first load gets more', async () => {
    // An HTTP/2 host answering one range a request says 100 once its protocol is known (rangeSources.ts), after the
    // opening's first responses: the store's slots must follow (a pool sized at the first load kept 6 out, and a
    // question of ~2,000 one-range requests took 45 s instead of 10 in Chromium, round twenty-six).
    const { source, seen } = slowSource(data, 2);
    const s = new BlockStore(source, 0, data.length, BLOCK, hashes(data), 'pages.bin');
    s.bytes(0, 1);
    await s.load();
    expect(seen.most).toBe(1);
    source.inFlight = 8;
    // Twelve runs far apart: twelve requests of one range.
    for (let b = 2; b < 60; b += 5) s.bytes(b * BLOCK, 1);
    await s.load();
    expect(seen.most).toBe(8);
  });

  it('fetches a block two loads want once: the second waits for the first’s', async () => {
    const { source, seen } = slowSource(data, 6);
    const s = new BlockStore(source, 0, data.length, BLOCK, hashes(data), 'pages.bin');
    expect(s.bytes(0, 2 * BLOCK)).toBeUndefined();
    const first = s.load();
    // Noted while the first load is in flight: block 1 is on its way, block 2 is not.
    expect(s.bytes(BLOCK, 2 * BLOCK)).toBeUndefined();
    const second = s.load({ background: true });
    await Promise.all([first, second]);
    expect([...seen.blocks].sort((a, b) => a - b)).toEqual([0, 1, 2]);
    expect(s.bytes(0, 3 * BLOCK)).toEqual(data.subarray(0, 3 * BLOCK));
    expect(s.missing).toBe(false);
  });

  it('shares the source’s slots: a foreground load’s requests go before a background load’s queued ones', async () => {
    const { source, seen } = slowSource(data, 1);
    const s = new BlockStore(source, 0, data.length, BLOCK, hashes(data), 'pages.bin');
    // Three runs far apart: three requests of the background load, queued behind one slot.
    for (const b of [10, 20, 30]) s.bytes(b * BLOCK, 1);
    const walk = s.loadTaken(s.setAside(), { background: true });
    s.bytes(40 * BLOCK, 1);
    const early = s.load();
    await Promise.all([walk, early]);
    expect(seen.blocks).toEqual([10, 40, 20, 30]);
    expect(seen.most).toBe(1);
  });

  it('a block refused in one load stops the other’s queued requests, and both fail', async () => {
    const bad = data.slice();
    bad[40 * BLOCK + 3] ^= 1;
    const { source, seen } = slowSource(bad, 1);
    const s = new BlockStore(source, 0, bad.length, BLOCK, hashes(data), 'pages.bin');
    s.bytes(40 * BLOCK, 1);
    const early = s.loadTaken(s.setAside());
    for (const b of [10, 20, 30, 50]) s.bytes(b * BLOCK, 1);
    const walk = s.loadTaken(s.setAside(), { background: true });
    await expect(early).rejects.toThrow(/SHA-256 mismatch in block 40/);
    await expect(walk).rejects.toThrow(/SHA-256 mismatch in block 40/);
    // Block 40's request, and at most the one the slot took at its last byte before its check.
    expect(seen.blocks.length).toBeLessThanOrEqual(2);
  });

  it('a cancelled question sends none of its background load’s next requests', async () => {
    const { source, seen } = slowSource(data, 1);
    const s = new BlockStore(source, 0, data.length, BLOCK, hashes(data), 'pages.bin');
    for (const b of [10, 20, 30]) s.bytes(b * BLOCK, 1);
    const cancel = new AbortController();
    const walk = s.loadTaken(s.setAside(), { background: true, signal: cancel.signal });
    cancel.abort();
    await expect(walk).rejects.toThrow(/abort/i);
    expect(seen.blocks).toEqual([10]);
  });
});
