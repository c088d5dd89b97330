// Part codecs: JSON Lines, int8 vectors with a per-vector scale, and JSON with typed arrays.
import { describe, expect, it } from 'vitest';
import {
  decodeJsonl,
  decodeStructured,
  decodeVectors,
  dequantizeInt8,
  encodeJsonl,
  encodeStructured,
  quantizeInt8,
} from '../../../src/core/bundle/codecs.ts';
import { vectorsPart } from './fixtures.ts';

describe('jsonl codec', () => {
  it('round-trips records with newlines and unicode in strings', () => {
    const records = [{ a: 'line\nbreak' }, { b: '漢字 “quotes”' }, { c: [1, 2] }];
    expect(decodeJsonl(encodeJsonl(records))).toEqual(records);
    expect(decodeJsonl(encodeJsonl([]))).toEqual([]);
  });

  it('names the part and line of a bad line', () => {
    const bytes = new TextEncoder().encode('{"a":1}\n{oops');
    expect(() => decodeJsonl(bytes, 'chunks.jsonl')).toThrow(
      'bundle: part chunks.jsonl line 2 is not valid JSON',
    );
  });
});

describe('int8 vectors', () => {
  it('stores a scale per vector and codes in [-127, 127], computed by hand', () => {
    // Row 0: max |x| = 0.5 → scale 0.5/127; -0.3 → round(-0.3 × 254) = round(-76.2) = -76. Row 1: all zero → scale 0, codes 0.
    const bytes = quantizeInt8(new Float32Array([0.5, -0.3, 0, 0, 0, 0]), 3);
    expect(bytes.length).toBe(2 * 4 + 6);
    const scales = new Float32Array(bytes.slice(0, 8).buffer);
    expect(scales[0]).toBeCloseTo(0.5 / 127, 7);
    expect(scales[1]).toBe(0);
    expect(Array.from(new Int8Array(bytes.slice(8).buffer))).toEqual([127, -76, 0, 0, 0, 0]);
  });

  it('dequantizes to unit rows whose cosine with the original is above 0.9999 (512-d)', () => {
    const dim = 512;
    const rows = 50;
    const v = new Float32Array(rows * dim);
    let x = 7;
    for (let i = 0; i < v.length; i++) {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      v[i] = x / 0x7fffffff - 0.5;
    }
    for (let r = 0; r < rows; r++) {
      let n = 0;
      for (let i = 0; i < dim; i++) n += v[r * dim + i] ** 2;
      for (let i = 0; i < dim; i++) v[r * dim + i] /= Math.sqrt(n);
    }
    const back = dequantizeInt8(quantizeInt8(v, dim), dim, rows);
    for (let r = 0; r < rows; r++) {
      let dot = 0;
      let norm = 0;
      for (let i = 0; i < dim; i++) {
        dot += v[r * dim + i] * back[r * dim + i];
        norm += back[r * dim + i] ** 2;
      }
      expect(norm).toBeCloseTo(1, 5);
      expect(dot).toBeGreaterThan(0.9999);
    }
  });

  it('keeps Float32 exactly when asked and checks sizes', () => {
    const v = new Float32Array([0.1, 0.2, 0.3, 0.4]);
    const part = vectorsPart('vectors.f32', v, 2, 'f32');
    expect(part.count).toBe(2);
    expect(decodeVectors(part.kind, part.data, 2, 2)).toEqual(v);
    expect(() => decodeVectors('vectors-f32', part.data, 2, 3)).toThrow(/do not hold 3 × 2/);
    expect(() => quantizeInt8(new Float32Array(5), 2)).toThrow(/not a multiple/);
  });
});

describe('structured codec', () => {
  it('round-trips nested JSON with every typed array kind, at any byte offset', () => {
    const value = {
      name: 'graph',
      nested: { f32: new Float32Array([1.5, -2]), f64: new Float64Array([Math.PI]) },
      list: [
        new Int8Array([-1, 2, 3]),
        new Uint8Array([255]),
        new Int16Array([-300]),
        new Uint16Array([60000]),
      ],
      i32: new Int32Array([-5, 6]),
      u32: new Uint32Array([4_000_000_000]),
      plain: [1, 'two', null, true],
      buffer: new Float32Array([0.25, 0.5]).buffer,
    };
    const bytes = encodeStructured(value);
    // Decoding from an unaligned view of a larger buffer must still work (parts arrive as subarrays).
    const shifted = new Uint8Array(bytes.length + 3);
    shifted.set(bytes, 3);
    expect(decodeStructured(shifted.subarray(3))).toEqual(value);
  });

  it('reads a typed array reference spelled with \\u escapes, as with "$typed" (and none without either)', () => {
    /** A part of this JSON and binary section, laid out as encodeStructured lays it out. */
    const part = (json: string, binary: Uint8Array): Uint8Array => {
      const text = new TextEncoder().encode(json);
      const start = Math.ceil((4 + text.length) / 8) * 8;
      const out = new Uint8Array(start + binary.length);
      new DataView(out.buffer).setUint32(0, text.length, true);
      out.set(text, 4);
      out.set(binary, start);
      return out;
    };
    const floats = new Uint8Array(new Float32Array([1.5, -2]).buffer);
    const escaped = '{"a":{"\\u0024typed":"Float32Array","offset":0,"length":2}}';
    expect(decodeStructured(part(escaped, floats))).toEqual({ a: new Float32Array([1.5, -2]) });
    const spelled = '{"a":{"$t\\u0079ped":"Float32Array","offset":0,"length":2}}';
    expect(decodeStructured(part(spelled, floats))).toEqual({ a: new Float32Array([1.5, -2]) });
    // Without typed arrays, the plain records, escapes of other characters and all.
    const plain = '{"a":[1,"x\\ny",{"b":null}],"c":"é"}';
    expect(decodeStructured(part(plain, new Uint8Array(0)))).toEqual({ a: [1, 'x\ny', { b: null }], c: 'é' });
    expect(() => decodeStructured(part('{"a":', new Uint8Array(0)), 'g.bin')).toThrow(
      'bundle: part g.bin: JSON section is not valid',
    );
  });

  it('refuses a typed array reference beyond the part', () => {
    const bytes = encodeStructured({ a: new Float32Array(4) });
    expect(() => decodeStructured(bytes.subarray(0, bytes.length - 4), 'graph.bin')).toThrow(
      'bundle: part graph.bin: typed array beyond the part',
    );
  });
});
