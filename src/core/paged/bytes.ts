// Unsigned LEB128 varints and little-endian numbers for the binary sections of a paged library. Hand-written: a few
// lines, on the hot path of every question (a library would add a dependency for what DataView and a loop do).

/** Appends bytes into a growing buffer. */
export class ByteWriter {
  private buf = new Uint8Array(1 << 16);
  private view = new DataView(this.buf.buffer);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  varint(value: number): void {
    // A value that is not a count would never shift down to one byte (Infinity) or write garbage (−1, 0.5).
    if (!Number.isSafeInteger(value) || value < 0)
      throw new Error(`paged library: ${value} is not a count to write`);
    this.room(10);
    let v = value;
    while (v >= 0x80) {
      this.buf[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.length++] = v;
  }

  f32(value: number): void {
    this.room(4);
    this.view.setFloat32(this.length, value, true);
    this.length += 4;
  }

  bytes(data: Uint8Array): void {
    this.room(data.length);
    this.buf.set(data, this.length);
    this.length += data.length;
  }

  /** The bytes written (a copy: the writer may be reused). */
  take(): Uint8Array {
    const out = this.buf.slice(0, this.length);
    this.length = 0;
    return out;
  }
}

/** Reads what ByteWriter wrote. Throws on a varint or number that runs past the end (a damaged section). */
export class ByteReader {
  private readonly view: DataView;
  at = 0;

  constructor(private readonly data: Uint8Array) {
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (this.at >= this.data.length) throw new Error('paged library: a varint runs past its bytes');
      const b = this.data[this.at++];
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 0x80;
      if (scale > 2 ** 53) throw new Error('paged library: a varint is too long');
    }
  }

  /** The next n varints, into out[0..n). */
  varints(out: Uint32Array, n: number): void {
    this.at = readVarints(this.data, this.at, out, n);
  }

  /** The byte at `at`, without moving; throws past the end (a list's codes, listPacking.ts). */
  byteAt(at: number): number {
    if (at >= this.data.length) throw new Error('paged library: a list runs past its bytes');
    return this.data[at];
  }

  f32(): number {
    if (this.at + 4 > this.data.length) throw new Error('paged library: a number runs past its bytes');
    const v = this.view.getFloat32(this.at, true);
    this.at += 4;
    return v;
  }
}

/**
 * Decodes n varints of at most 32 bits from data at `at` into out[0..n) and returns the position after them. The
 * hot loop of a question's reads (the first question on the 1 GiB bundle decodes tens of millions of concept ids
 * from the rows it reads), so it is written out in int32 steps, without a bounds check per byte where five bytes
 * remain, rather than a method call per value (46 ns a value that way under a profiler, docs/results/ranges.md).
 * Throws, as ByteReader does, on a varint that runs past the end or does not fit 32 bits (a damaged section).
 */
export function readVarints(data: Uint8Array, at: number, out: Uint32Array, n: number): number {
  const end = data.length;
  for (let i = 0; i < n; i++) {
    if (at + 5 > end) {
      at = readVarintChecked(data, at, out, i);
      continue;
    }
    let b = data[at++];
    let value = b & 0x7f;
    if (b >= 0x80) {
      b = data[at++];
      value |= (b & 0x7f) << 7;
      if (b >= 0x80) {
        b = data[at++];
        value |= (b & 0x7f) << 14;
        if (b >= 0x80) {
          b = data[at++];
          value |= (b & 0x7f) << 21;
          if (b >= 0x80) {
            b = data[at++];
            if (b > 0x0f) throw new Error('paged library: a varint is too long');
            value = (value >>> 0) + b * 0x10000000;
          }
        }
      }
    }
    out[i] = value;
  }
  return at;
}

/** One varint near the end of its bytes, checked byte by byte. */
function readVarintChecked(data: Uint8Array, at: number, out: Uint32Array, i: number): number {
  let value = 0;
  let scale = 1;
  for (;;) {
    if (at >= data.length) throw new Error('paged library: a varint runs past its bytes');
    const b = data[at++];
    value += (b & 0x7f) * scale;
    if (b < 0x80) break;
    scale *= 0x80;
    if (scale > 2 ** 28) throw new Error('paged library: a varint is too long');
  }
  if (value > 0xffffffff) throw new Error('paged library: a varint is too long');
  out[i] = value;
  return at;
}
