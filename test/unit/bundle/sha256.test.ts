// The streaming SHA-256 must agree with the platform's crypto.subtle on every size, however the input is split.
import { describe, expect, it } from 'vitest';
import { sha256, Sha256, toHex } from '../../../src/core/bundle/sha256.ts';

/** One buffer through the incremental hasher the bundle writer and reader use. */
const sha256HexSync = (data: Uint8Array): string => toHex(new Sha256().update(data).digest());

async function subtleHex(data: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', new Uint8Array(data))));
}

/** Deterministic pseudo-random bytes (xorshift32), so a failure can be reproduced. */
function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed | 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

describe('Sha256', () => {
  it('matches the published test vectors', () => {
    expect(sha256HexSync(new Uint8Array(0))).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(sha256HexSync(new TextEncoder().encode('abc'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(
      sha256HexSync(new TextEncoder().encode('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')),
    ).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
  });

  it('equals crypto.subtle for sizes around the 64-byte block and padding boundaries', async () => {
    const sizes = [1, 54, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 191, 192, 193, 1000, 4096, 65537];
    for (const n of sizes) {
      const data = bytes(n, n * 7919);
      expect(sha256HexSync(data), `size ${n}`).toBe(await subtleHex(data));
    }
  });

  it('gives the same digest however the input is split into updates', async () => {
    for (let trial = 0; trial < 40; trial++) {
      const n = (trial * 977) % 3000;
      const data = bytes(n, trial + 11);
      const h = new Sha256();
      let offset = 0;
      let step = 1 + (trial % 70);
      while (offset < n) {
        h.update(data.subarray(offset, offset + step));
        offset += step;
        step = 1 + ((step * 31 + trial) % 130);
      }
      expect(toHex(h.digest()), `trial ${trial} (${n} bytes)`).toBe(await subtleHex(data));
    }
  });

  it('refuses to be used after digest()', () => {
    const h = new Sha256();
    h.digest();
    expect(() => h.update(new Uint8Array(1))).toThrow(/after digest/);
    expect(() => h.digest()).toThrow(/twice/);
  });
});

describe('sha256 (one hasher reset a message)', () => {
  it('equals crypto.subtle for every size to three blocks, each message alone whatever came before it', async () => {
    // Longest first: a message after a longer one must not see its state, its length or its buffered tail.
    for (let n = 200; n >= 0; n--) {
      const data = bytes(n, n * 104729 + 3);
      expect(toHex(sha256(data)), `size ${n}`).toBe(await subtleHex(data));
    }
  });

  it('gives each digest a buffer of its own, and leaves a streaming hasher alone', async () => {
    const a = bytes(33, 1);
    const b = bytes(128, 2);
    const h = new Sha256().update(a.subarray(0, 10));
    const first = sha256(a);
    const second = sha256(b);
    h.update(a.subarray(10));
    expect(toHex(first)).toBe(await subtleHex(a));
    expect(toHex(second)).toBe(await subtleHex(b));
    expect(toHex(h.digest())).toBe(await subtleHex(a));
  });

  it('reset() makes a used hasher hash again from the start', async () => {
    const h = new Sha256().update(bytes(70, 5));
    h.digest();
    const data = bytes(90, 6);
    expect(toHex(h.reset().update(data).digest())).toBe(await subtleHex(data));
  });
});
