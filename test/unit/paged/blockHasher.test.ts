import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BlockHasher } from '../../../src/core/paged/write.ts';

describe('BlockHasher', () => {
  it("gives each block's SHA-256 cut to its length, past one piece of kept hashes, fed in pieces of any size", () => {
    // 9,001 blocks of 64 bytes (more than two of the hasher's 4,096-hash pieces, the last block short), fed in
    // pieces that straddle the blocks; the expected hashes come from node:crypto, block by block.
    const blockSize = 64;
    const data = new Uint8Array(9000 * blockSize + 17);
    for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 24;
    const hasher = new BlockHasher(blockSize, 16);
    for (let at = 0; at < data.length; at += 1000) hasher.update(data.subarray(at, at + 1000));
    const hashes = hasher.finish();
    expect(hashes.length).toBe(9001 * 16);
    for (let b = 0; b < 9001; b++) {
      const want = createHash('sha256')
        .update(data.subarray(b * blockSize, (b + 1) * blockSize))
        .digest()
        .subarray(0, 16);
      expect(Buffer.from(hashes.subarray(b * 16, (b + 1) * 16)).equals(want), `block ${b}`).toBe(true);
    }
  });
});
