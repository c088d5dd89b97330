// The SHA-256 of each block a question reads, checked before the block is used (blockStore.ts). The platform's
// WebCrypto digests natively, off the calling thread in a browser; the pure-TypeScript Sha256 (which bundle reading
// keeps because it must hash parts as they stream) did 13–37 MB/s on this machine's loaded cores, and the first
// question on the 1 GiB bundle checks about 200 MB: seconds of a question's time went to hashing alone
// (docs/results/ranges.md, "Hashing"). Without WebCrypto (a page served over plain HTTP from another host than
// localhost is not a secure context and has no crypto.subtle) the pure one does the work.
// Short blocks are hashed synchronously all the same: a WebCrypto call costs the worker more than the hashing of a
// few hundred bytes (in a Chromium dedicated worker, 4,000 blocks of 128 bytes: 15.2 ms by WebCrypto, 7.3 by sha256();
// of 512 bytes 24.4 against 16.5; of 1 KiB 21.4 against 36.6: test/bench/digest-sizes.ts, round twenty-three), and a
// question at 100 MiB checks ~6,000 row blocks of ≤ 128 bytes and ~1,300 of ≤ 256 beside its few larger ones.
import { sha256 } from '../bundle/index.ts';

type Digest = (block: Uint8Array) => Promise<Uint8Array>;

const subtle: SubtleCrypto | undefined = (globalThis as { crypto?: Crypto }).crypto?.subtle;

const webDigest: Digest = async (block) =>
  new Uint8Array(await subtle!.digest('SHA-256', block as Uint8Array<ArrayBuffer>));

/** Blocks up to this many bytes are hashed by sha256() even where WebCrypto is (digest-sizes.ts: faster to 512). */
export const SHORT_BLOCK_BYTES = 512;

/**
 * Digests every block: the short ones at once, synchronously, the others all at once by WebCrypto (which runs them in
 * parallel where it can).
 */
export function blockDigests(
  blocks: readonly Uint8Array[],
  useWebCrypto = subtle !== undefined,
): Promise<Uint8Array[]> {
  if (!useWebCrypto || blocks.every((b) => b.length <= SHORT_BLOCK_BYTES))
    return Promise.resolve(blocks.map((b) => sha256(b)));
  return Promise.all(blocks.map((b) => (b.length <= SHORT_BLOCK_BYTES ? sha256(b) : webDigest(b))));
}

/**
 * Whether a block's SHA-256 begins with block `b`'s hash in `hashes` (`hashBytes` each: 16 in version 3, SHA-256
 * cut to its first 16 bytes, still 2^128 against a second preimage; 32 before: format.ts, BLOCK_HASH_BYTES).
 */
export function matchesBlockHash(
  digest: Uint8Array,
  hashes: Uint8Array,
  b: number,
  hashBytes: number,
): boolean {
  const at = b * hashBytes;
  for (let i = 0; i < hashBytes; i++) if (digest[i] !== hashes[at + i]) return false;
  return true;
}
