// The block store's follow-ups: what a follow-up notes once the bytes it waited for have arrived is read in the same
// load(), and a corrupted block is refused whichever stage reads it.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BlockStore } from '../../../src/core/paged/blockStore.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';

const BLOCK = 512;
const data = Uint8Array.from({ length: 64 * BLOCK }, (_, i) => (i * 13 + (i >> 9)) & 0xff);

function hashes(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(bytes.length / BLOCK) * 32);
  for (let b = 0; b * BLOCK < bytes.length; b++) {
    out.set(
      createHash('sha256')
        .update(bytes.subarray(b * BLOCK, (b + 1) * BLOCK))
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
