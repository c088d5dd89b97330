// Varints as the paged sections store them: written by ByteWriter, read back one by one (ByteReader.varint) and in
// bulk (readVarints, the questions' hot loop), and refused when a damaged section runs past its end or overflows.
import { describe, expect, it } from 'vitest';
import { ByteReader, ByteWriter, readVarints } from '../../../src/core/paged/bytes.ts';

/** Values of every length from one to five bytes, the largest 32-bit one included. */
const values = [
  0,
  1,
  127,
  128,
  300,
  16_383,
  16_384,
  2_097_151,
  2_097_152,
  268_435_455,
  268_435_456,
  2 ** 32 - 1,
];

function written(xs: readonly number[]): Uint8Array {
  const w = new ByteWriter();
  for (const x of xs) w.varint(x);
  return w.take();
}

describe('readVarints', () => {
  it('reads what ByteWriter wrote, to the last byte, as the one-by-one reader does', () => {
    const many = Array.from({ length: 500 }, (_, i) => values[i % values.length]);
    const bytes = written(many);
    const out = new Uint32Array(many.length);
    expect(readVarints(bytes, 0, out, many.length)).toBe(bytes.length);
    expect([...out]).toEqual(many);
    const one = new ByteReader(bytes);
    expect(many.map(() => one.varint())).toEqual(many);
  });

  it('starts where it is told and stops after n values', () => {
    const bytes = written(values);
    const out = new Uint32Array(3);
    const first = new ByteReader(bytes);
    for (let i = 0; i < 4; i++) first.varint();
    expect(readVarints(bytes, first.at, out, 3)).toBe(written(values.slice(0, 7)).length);
    expect([...out]).toEqual(values.slice(4, 7));
  });

  it('refuses a varint that runs past its bytes, or does not fit 32 bits', () => {
    const bytes = written(values);
    expect(() => readVarints(bytes, 0, new Uint32Array(values.length + 1), values.length + 1)).toThrow(
      /runs past its bytes/,
    );
    const cut = written([2 ** 32 - 1]).subarray(0, 3);
    expect(() => readVarints(cut, 0, new Uint32Array(1), 1)).toThrow(/runs past its bytes/);
    // 2^32 and a six-byte varint, each followed by enough bytes for the unchecked path.
    const padding = new Uint8Array(8);
    for (const bad of [written([2 ** 32]), Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x01)]) {
      const data = new Uint8Array([...bad, ...padding]);
      expect(() => readVarints(data, 0, new Uint32Array(1), 1)).toThrow(/too long/);
      expect(() => readVarints(bad, 0, new Uint32Array(1), 1)).toThrow(/too long/);
    }
  });
});
