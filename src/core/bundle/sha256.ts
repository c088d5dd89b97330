// Incremental SHA-256 in pure TypeScript, for hashing bundle parts while they stream.
// crypto.subtle.digest only hashes one whole buffer; a bundle is written and read as a stream, so each part's
// digest is fed chunk by chunk here and never needs the part (or the file) in one piece a second time.

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const INITIAL = new Uint32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

export class Sha256 {
  private readonly state = new Uint32Array(INITIAL);
  private readonly block = new Uint8Array(64);
  private readonly words = new Uint32Array(64);
  private blockLength = 0;
  /** Total bytes fed so far; a double is exact up to 2^53 bytes, far beyond any bundle. */
  private totalBytes = 0;
  private finished = false;

  /** Back to the state before any update(), for another message (sha256(): one hasher, no allocation a call). */
  reset(): this {
    this.state.set(INITIAL);
    this.blockLength = 0;
    this.totalBytes = 0;
    this.finished = false;
    return this;
  }

  update(data: Uint8Array): this {
    if (this.finished) throw new Error('sha256: update() after digest()');
    this.totalBytes += data.length;
    let offset = 0;
    if (this.blockLength > 0) {
      const take = Math.min(64 - this.blockLength, data.length);
      this.block.set(data.subarray(0, take), this.blockLength);
      this.blockLength += take;
      offset = take;
      if (this.blockLength < 64) return this;
      this.compress(this.block, 0);
      this.blockLength = 0;
    }
    // Whole blocks straight from the input: no copy.
    while (offset + 64 <= data.length) {
      this.compress(data, offset);
      offset += 64;
    }
    if (offset < data.length) {
      this.block.set(data.subarray(offset), 0);
      this.blockLength = data.length - offset;
    }
    return this;
  }

  digest(): Uint8Array {
    if (this.finished) throw new Error('sha256: digest() called twice');
    this.finished = true;
    const bitLengthHigh = Math.floor(this.totalBytes / 0x20000000);
    const bitLengthLow = (this.totalBytes * 8) >>> 0;
    const block = this.block;
    block[this.blockLength++] = 0x80;
    if (this.blockLength > 56) {
      block.fill(0, this.blockLength);
      this.compress(block, 0);
      this.blockLength = 0;
    }
    block.fill(0, this.blockLength, 56);
    // Byte by byte, big-endian: a DataView a call cost sha256() of a 33-byte node more than its one compress.
    putWord(block, 56, bitLengthHigh);
    putWord(block, 60, bitLengthLow);
    this.compress(block, 0);
    const out = new Uint8Array(32);
    for (let i = 0; i < 8; i++) putWord(out, i * 4, this.state[i]);
    return out;
  }

  private compress(data: Uint8Array, offset: number): void {
    const w = this.words;
    for (let i = 0; i < 16; i++) {
      const j = offset + i * 4;
      w[i] = (data[j] << 24) | (data[j + 1] << 16) | (data[j + 2] << 8) | data[j + 3];
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15];
      const y = w[i - 2];
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    const s = this.state;
    let a = s[0];
    let b = s[1];
    let c = s[2];
    let d = s[3];
    let e = s[4];
    let f = s[5];
    let g = s[6];
    let h = s[7];
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (h + S1 + ch + K[i] + w[i]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    s[0] += a;
    s[1] += b;
    s[2] += c;
    s[3] += d;
    s[4] += e;
    s[5] += f;
    s[6] += g;
    s[7] += h;
  }
}

/** Writes a 32-bit word big-endian at `at`. */
function putWord(out: Uint8Array, at: number, word: number): void {
  out[at] = word >>> 24;
  out[at + 1] = word >>> 16;
  out[at + 2] = word >>> 8;
  out[at + 3] = word;
}

/** The one hasher sha256() resets for every message: synchronous, so no two calls share it at once. */
const shared = new Sha256();

/**
 * The SHA-256 of one whole message, synchronously, with no hasher allocated: for the many short messages a question
 * checks (a row block of ~128 bytes, a node of a leaf page's tree of 33: blockDigest.ts), where a WebCrypto call costs
 * the worker more than the hashing itself (test/bench/digest-sizes.ts).
 */
export function sha256(data: Uint8Array): Uint8Array {
  return shared.reset().update(data).digest();
}

export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += bytes[i].toString(16).padStart(2, '0');
  return out;
}
