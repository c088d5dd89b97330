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

  f32(): number {
    if (this.at + 4 > this.data.length) throw new Error('paged library: a number runs past its bytes');
    const v = this.view.getFloat32(this.at, true);
    this.at += 4;
    return v;
  }
}
