// Fuzzing the structured codec (issue 23, item 6), beside the 100-bundle reader fuzzing of fuzz.test.ts: 400
// hand-made structured payloads with aliased, overlapping, out-of-range and huge-count typed-array references and
// deep nesting, plus byte flips of honest payloads. Every one either decodes or is refused with a BundleError that
// names the part, never another exception; the verdict on aliasing matches a brute-force oracle; and what a decoded
// payload holds in typed arrays never exceeds the payload's own length (the budget that keeps memory bounded).
import { describe, expect, it } from 'vitest';
import { decodeStructured, encodeStructured } from '../../../src/core/bundle/codecs.ts';
import { BundleError } from '../../../src/core/bundle/format.ts';

const TYPES: Record<string, number> = {
  Uint8Array: 1,
  Int8Array: 1,
  ArrayBuffer: 1,
  Int16Array: 2,
  Uint16Array: 2,
  Float32Array: 4,
  Int32Array: 4,
  Uint32Array: 4,
  Float64Array: 8,
};
const NAMES = Object.keys(TYPES);

function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

interface Ref {
  $typed: string;
  offset: number;
  length: number;
}

function payload(value: unknown, binary: number): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(value));
  const start = Math.ceil((4 + json.length) / 8) * 8;
  const out = new Uint8Array(start + binary);
  new DataView(out.buffer).setUint32(0, json.length, true);
  out.set(json, 4);
  return out;
}

/** The oracle: references in range and with no two sharing a byte. */
function acceptable(refs: Ref[], binary: number): boolean {
  const spans = refs.map((r) => [r.offset, r.offset + r.length * TYPES[r.$typed]] as const);
  if (spans.some(([, end]) => !Number.isSafeInteger(end) || end > binary)) return false;
  const used = spans.filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < used.length; i++) if (used[i][0] < used[i - 1][1]) return false;
  return true;
}

/** Bytes held by every typed array or ArrayBuffer in a decoded value (iteratively: values may nest). */
function typedBytes(value: unknown): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v instanceof ArrayBuffer) total += v.byteLength;
    else if (ArrayBuffer.isView(v)) total += v.byteLength;
    else if (Array.isArray(v)) stack.push(...v);
    else if (typeof v === 'object' && v !== null) stack.push(...Object.values(v));
  }
  return total;
}

type Verdict = { ok: true; value: unknown } | { ok: false; message: string };

function verdict(bytes: Uint8Array): Verdict {
  try {
    return { ok: true, value: decodeStructured(bytes, 'fuzz.bin') };
  } catch (e) {
    if (!(e instanceof BundleError)) throw e; // any other exception is a failure of the test
    expect(e.part).toBe('fuzz.bin');
    expect(e.message).toMatch(/^bundle: part fuzz\.bin: /);
    return { ok: false, message: e.message };
  }
}

describe('structured codec fuzzing', () => {
  it('decides 300 random reference layouts as the oracle does, within the budget', () => {
    const random = rng(20261126);
    const before = process.memoryUsage().arrayBuffers;
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 300; i++) {
      const binary = 8 * Math.floor(random() * 512);
      const refs: Ref[] = [];
      const n = 1 + Math.floor(random() * 40);
      for (let k = 0; k < n; k++) {
        const $typed = NAMES[Math.floor(random() * NAMES.length)];
        const roll = random();
        // Mostly plausible layouts, with aliasing (one region many times), overlaps and huge counts mixed in.
        const offset = roll < 0.15 ? 0 : Math.floor(random() * Math.max(1, binary));
        const length =
          roll > 0.97 ? 2 ** 50 + Math.floor(random() * 1000) : Math.floor((random() * binary) / 8);
        refs.push({ $typed, offset, length });
      }
      if (i % 3 === 0) {
        // An honest layout: consecutive, padded to 8, as the writer lays them out.
        let at = 0;
        for (const r of refs) {
          r.length = Math.min(r.length, 64);
          r.offset = at;
          at += Math.ceil((r.length * TYPES[r.$typed]) / 8) * 8;
        }
      }
      const binaryBytes =
        i % 3 === 0 ? refs.reduce((n, r) => n + Math.ceil((r.length * TYPES[r.$typed]) / 8) * 8, 0) : binary;
      // The last two references sit deeper in the value: the reviver meets them in a different order.
      const bytes = payload({ refs: refs.slice(0, -2), nested: { again: refs.slice(-2) } }, binaryBytes);
      const all = refs;
      const v = verdict(bytes);
      expect(v.ok, `case ${i}: ${JSON.stringify(all).slice(0, 200)}`).toBe(acceptable(all, binaryBytes));
      if (v.ok) {
        accepted++;
        expect(typedBytes(v.value)).toBeLessThanOrEqual(bytes.length);
      } else refused++;
    }
    // Both sides of the oracle were exercised, and nothing decoded stayed allocated beyond a few MB.
    expect(accepted).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(50);
    expect((process.memoryUsage().arrayBuffers - before) / 1024 / 1024).toBeLessThan(50);
  });

  it('refuses 8,000 references to one 1 MB region after copying it once at most', () => {
    const refs = Array.from({ length: 8000 }, () => ({ $typed: 'Float32Array', offset: 0, length: 262_144 }));
    const v = verdict(payload(refs, 1024 * 1024));
    expect(v).toEqual({
      ok: false,
      message:
        'bundle: part fuzz.bin: two typed arrays share the bytes at offset 0 of its binary section ' +
        '(each array must have bytes of its own)',
    });
  });

  it('refuses nesting past 100 levels at any depth from 101 to 100,000, and decodes 100', () => {
    for (const depth of [101, 1000, 20_000, 100_000]) {
      const json = '['.repeat(depth) + ']'.repeat(depth);
      const text = new TextEncoder().encode(json);
      const out = new Uint8Array(Math.ceil((4 + text.length) / 8) * 8);
      new DataView(out.buffer).setUint32(0, text.length, true);
      out.set(text, 4);
      const v = verdict(out);
      expect(v.ok).toBe(false);
      expect(v.ok ? '' : v.message).toContain('nests deeper than 100 levels');
    }
    const ok = payload(JSON.parse('['.repeat(100) + ']'.repeat(100)), 0);
    expect(verdict(ok).ok).toBe(true);
  });

  it('survives 100 byte flips of an honest payload with a BundleError or a value within the budget', () => {
    const random = rng(7);
    const honest = encodeStructured({
      terms: ['a', 'b'],
      offsets: new Uint32Array([0, 1, 2]),
      weights: new Float32Array([0.5, 1]),
      nested: [{ v: new Float64Array(4) }, { v: new ArrayBuffer(12) }],
    });
    for (let i = 0; i < 100; i++) {
      const bad = honest.slice();
      const pos = Math.floor(random() * bad.length);
      bad[pos] ^= 1 + Math.floor(random() * 255);
      const v = verdict(bad);
      if (v.ok) expect(typedBytes(v.value)).toBeLessThanOrEqual(bad.length);
    }
  });
});
