// The blocks' digests, by WebCrypto and by the pure-TypeScript fallback, against Node's own SHA-256.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { blockDigests, SHORT_BLOCK_BYTES } from '../../../src/core/paged/blockDigest.ts';

const sizes = [0, 1, 55, 56, 63, 64, 65, 4095, 4096, 1234];
const blocks = sizes.map((n, i) => Uint8Array.from({ length: n }, (_, j) => (j * 31 + i * 7) & 0xff));
const expected = blocks.map((b) => createHash('sha256').update(b).digest('hex'));
const hex = (d: Uint8Array): string => Buffer.from(d).toString('hex');

describe('blockDigests', () => {
  it('gives the SHA-256 of each block with WebCrypto', async () => {
    expect((await blockDigests(blocks, true)).map(hex)).toEqual(expected);
  });

  it('gives the same digests without it (a page that is not a secure context)', async () => {
    expect((await blockDigests(blocks, false)).map(hex)).toEqual(expected);
  });

  it('digests a block that is a view into a larger buffer by its own bytes only', async () => {
    const whole = Uint8Array.from({ length: 9000 }, (_, j) => j & 0xff);
    const view = whole.subarray(100, 4196);
    const want = createHash('sha256').update(view).digest('hex');
    expect((await blockDigests([view], true)).map(hex)).toEqual([want]);
    expect((await blockDigests([view], false)).map(hex)).toEqual([want]);
  });
});

describe('blockDigests: short blocks without WebCrypto', () => {
  afterEach(() => vi.restoreAllMocks());

  it('hashes blocks up to SHORT_BLOCK_BYTES synchronously, and only the longer ones by WebCrypto', async () => {
    const digest = vi.spyOn(globalThis.crypto.subtle, 'digest');
    const short = [0, 33, 128, SHORT_BLOCK_BYTES].map((n) =>
      Uint8Array.from({ length: n }, (_, j) => j & 0xff),
    );
    const long = Uint8Array.from({ length: SHORT_BLOCK_BYTES + 1 }, (_, j) => (j * 3) & 0xff);
    const want = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
    expect((await blockDigests(short, true)).map(hex)).toEqual(short.map(want));
    expect(digest).not.toHaveBeenCalled();
    expect((await blockDigests([...short, long], true)).map(hex)).toEqual([...short, long].map(want));
    expect(digest).toHaveBeenCalledTimes(1);
  });
});
