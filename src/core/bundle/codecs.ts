// Payload codecs for bundle parts: JSON Lines records, int8/Float32 vectors, and "structured" values (JSON with
// typed arrays stored as raw little-endian bytes, for the concept graph and any future layer).
import { MAX_JSON_DEPTH, lineNestedBeyond } from './depth.ts';
import { BundleError, type BundlePart } from './format.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// ---------- JSON Lines ----------

export function encodeJsonl(records: readonly unknown[]): Uint8Array {
  // One string per line then one encode: JSON.stringify never emits a raw newline, so lines stay whole.
  return encoder.encode(records.map((r) => JSON.stringify(r)).join('\n'));
}

export function decodeJsonl<T>(bytes: Uint8Array, partName = 'jsonl'): T[] {
  if (bytes.length === 0) return [];
  const deep = lineNestedBeyond(bytes);
  if (deep > 0) {
    throw new BundleError(
      'invalid-content',
      `part ${partName} line ${deep} nests deeper than ${MAX_JSON_DEPTH} levels, which no record of this app does`,
      partName,
    );
  }
  const text = decoder.decode(bytes);
  const out: T[] = [];
  let start = 0;
  let line = 1;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    try {
      out.push(JSON.parse(text.slice(start, end)) as T);
    } catch {
      throw new BundleError('invalid-content', `part ${partName} line ${line} is not valid JSON`, partName);
    }
    start = end + 1;
    line++;
  }
  return out;
}

export function jsonlPart(name: string, records: readonly unknown[]): BundlePart {
  return { name, kind: 'jsonl', count: records.length, data: encodeJsonl(records) };
}

// ---------- vectors ----------

export type VectorEncoding = 'i8' | 'f32';

/**
 * int8 with one Float32 scale per vector: q = round(x / s) with s = max|x| / 127, so every row keeps its own
 * range. Layout: rows × f32 scales, then rows × dim int8 codes.
 */
export function quantizeInt8(vectors: Float32Array, dim: number): Uint8Array {
  if (dim <= 0 || vectors.length % dim !== 0) {
    throw new Error(`bundle vectors: ${vectors.length} floats is not a multiple of dimension ${dim}`);
  }
  const rows = vectors.length / dim;
  const out = new Uint8Array(rows * 4 + rows * dim);
  const scales = new Float32Array(out.buffer, 0, rows);
  const codes = new Int8Array(out.buffer, rows * 4, rows * dim);
  for (let r = 0; r < rows; r++) {
    let max = 0;
    const base = r * dim;
    for (let i = 0; i < dim; i++) max = Math.max(max, Math.abs(vectors[base + i]));
    const scale = max / 127;
    scales[r] = scale;
    if (scale === 0) continue;
    const inv = 1 / scale;
    for (let i = 0; i < dim; i++) codes[base + i] = Math.round(vectors[base + i] * inv);
  }
  return out;
}

/**
 * Back to Float32, each row re-normalized to unit length (the Embedder contract), so dot = cosine. The browser
 * import and the CLI both decode with this function and therefore rank over identical vectors.
 */
export function dequantizeInt8(bytes: Uint8Array, dim: number, rows: number): Float32Array {
  if (bytes.length !== rows * (4 + dim)) {
    throw new BundleError(
      'invalid-content',
      `int8 vectors: ${bytes.length} bytes do not hold ${rows} × ${dim}`,
    );
  }
  const copy = bytes.slice(); // aligned copy: a subarray of a larger buffer may start at an odd offset
  const scales = new Float32Array(copy.buffer, 0, rows);
  const codes = new Int8Array(copy.buffer, rows * 4, rows * dim);
  const out = new Float32Array(rows * dim);
  for (let r = 0; r < rows; r++) {
    const base = r * dim;
    let norm = 0;
    for (let i = 0; i < dim; i++) {
      const v = codes[base + i] * scales[r];
      out[base + i] = v;
      norm += v * v;
    }
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let i = 0; i < dim; i++) out[base + i] *= inv;
    }
  }
  return out;
}

/** Decodes either vector kind to Float32 rows; `rows` and `dim` come from the validated manifest entry. */
export function decodeVectors(kind: string, bytes: Uint8Array, dim: number, rows: number): Float32Array {
  if (kind === 'vectors-i8') return dequantizeInt8(bytes, dim, rows);
  if (kind === 'vectors-f32') {
    if (bytes.length !== rows * dim * 4) {
      throw new BundleError(
        'invalid-content',
        `f32 vectors: ${bytes.length} bytes do not hold ${rows} × ${dim}`,
      );
    }
    return new Float32Array(bytes.slice().buffer);
  }
  throw new BundleError('invalid-content', `part kind ${kind} does not hold vectors`);
}

// ---------- structured values (JSON + typed arrays) ----------

type TypedArray =
  Float32Array | Float64Array | Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array;

const TYPED: Record<string, { new (buffer: ArrayBuffer): TypedArray; BYTES_PER_ELEMENT: number }> = {
  Float32Array,
  Float64Array,
  Int8Array,
  Uint8Array,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
};

function typedName(v: unknown): string | null {
  if (v instanceof ArrayBuffer) return 'ArrayBuffer';
  if (!ArrayBuffer.isView(v) || v instanceof DataView) return null;
  const name = v.constructor.name;
  return Object.hasOwn(TYPED, name) ? name : null;
}

/**
 * Encodes a JSON-like value whose leaves may be typed arrays: u32 JSON length | JSON | padding to 8 | binary.
 * Typed arrays become { "$typed": name, "offset", "length" } in the JSON, their bytes go to the binary section
 * (little-endian, as every platform this app runs on).
 */
export function encodeStructured(value: unknown): Uint8Array {
  const blobs: Uint8Array[] = [];
  let binaryLength = 0;
  const json = JSON.stringify(value, (_key, v: unknown) => {
    const name = typedName(v);
    if (!name) return v;
    // IndexedDB records keep vectors as bare ArrayBuffers (e.g. KG entity vectors): stored as bytes.
    const t = v instanceof ArrayBuffer ? new Uint8Array(v) : (v as TypedArray);
    const offset = binaryLength;
    const bytes = new Uint8Array(t.buffer, t.byteOffset, t.byteLength);
    blobs.push(bytes);
    const padded = Math.ceil(bytes.length / 8) * 8;
    if (padded > bytes.length) blobs.push(new Uint8Array(padded - bytes.length));
    binaryLength += padded;
    return { $typed: name, offset, length: t.length };
  });
  const jsonBytes = encoder.encode(json ?? 'null');
  const head = 4 + jsonBytes.length;
  const binaryStart = Math.ceil(head / 8) * 8;
  const out = new Uint8Array(binaryStart + binaryLength);
  new DataView(out.buffer).setUint32(0, jsonBytes.length, true);
  out.set(jsonBytes, 4);
  let offset = binaryStart;
  for (const b of blobs) {
    out.set(b, offset);
    offset += b.length;
  }
  return out;
}

/**
 * The byte ranges of the binary section that typed-array references claim. Each reference gets its own copy of
 * its bytes, so two references to one region would make a small part allocate many times its size (8,000
 * references to one 1 MB region: 8 GB from a 9 KB bundle). Ranges may not overlap, which bounds everything a
 * part's typed arrays allocate by the part's own length.
 */
class ClaimedRanges {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private claimedBytes = 0;

  /** `capacity`: the bytes of the binary section, which disjoint ranges together cannot exceed. */
  constructor(private readonly capacity: number) {}

  /**
   * Records [start, end); false when the ranges claimed so far add up to more than the section holds (then two of
   * them overlap). The overlaps themselves are found by disjoint() once every range is claimed: checked here one
   * by one against a sorted list, ranges named in descending order cost O(n²) (a 1 MB bundle: 63 s); the running
   * total alone already bounds the copies made before then by the part's own length.
   */
  claim(start: number, end: number): boolean {
    if (end === start) return true; // an empty array claims nothing
    this.claimedBytes += end - start;
    if (this.claimedBytes > this.capacity) return false;
    this.starts.push(start);
    this.ends.push(end);
    return true;
  }

  /** The start of a range that overlaps another, or undefined when none does. O(n log n). */
  overlap(): number | undefined {
    const n = this.starts.length;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    const starts = Float64Array.from(this.starts);
    // Writers emit references in offset order: sorted already, nothing to sort.
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) if (starts[i] < starts[i - 1]) sorted = false;
    if (!sorted) order.sort((a, b) => starts[a] - starts[b]);
    for (let i = 1; i < n; i++) {
      if (starts[order[i]] < this.ends[order[i - 1]]) return starts[order[i]];
    }
    return undefined;
  }
}

export function decodeStructured<T = unknown>(bytes: Uint8Array, partName = 'structured'): T {
  const fail = (why: string): never => {
    throw new BundleError('invalid-content', `part ${partName}: ${why}`, partName);
  };
  if (bytes.length < 4) fail('too short');
  const jsonLength = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
  if (4 + jsonLength > bytes.length) fail('JSON length beyond the part');
  const binaryStart = Math.ceil((4 + jsonLength) / 8) * 8;
  const jsonBytes = bytes.subarray(4, 4 + jsonLength);
  if (lineNestedBeyond(jsonBytes) > 0) {
    fail(`its JSON nests deeper than ${MAX_JSON_DEPTH} levels, which no record of this app does`);
  }
  const claimed = new ClaimedRanges(bytes.length - binaryStart);
  const text = decoder.decode(jsonBytes);
  let value: unknown;
  try {
    // A part without typed arrays is parsed without the reviver, which V8 calls for every value: MuSiQue's KG at
    // κ 0.8 (36.6 MB of entities' JSON) parses in 270 ms without it, 483 ms with it. No key can read "$typed" unless
    // the text holds it, or a \u escape that could spell it.
    if (!text.includes('$typed') && !text.includes('\\u')) return JSON.parse(text) as T;
    value = JSON.parse(text, (_key, v: unknown) => {
      if (typeof v !== 'object' || v === null || !('$typed' in v)) return v;
      const ref = v as { $typed: unknown; offset: unknown; length: unknown };
      // Own keys only: "$typed": "constructor" must not find Object through the prototype.
      const key = ref.$typed === 'ArrayBuffer' ? 'Uint8Array' : ref.$typed;
      const Ctor = typeof key === 'string' && Object.hasOwn(TYPED, key) ? TYPED[key] : undefined;
      if (!Ctor) return fail(`unknown typed array ${String(ref.$typed)}`);
      const isCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
      if (!isCount(ref.offset) || !isCount(ref.length))
        return fail('typed array offset or length is not a count');
      const start = binaryStart + ref.offset;
      const end = start + ref.length * Ctor.BYTES_PER_ELEMENT;
      if (!Number.isSafeInteger(end) || end > bytes.length) fail('typed array beyond the part');
      if (!claimed.claim(start, end)) {
        fail(
          `two typed arrays share the bytes at offset ${ref.offset} of its binary section ` +
            '(each array must have bytes of its own)',
        );
      }
      // slice() copies into a fresh, aligned buffer the caller owns.
      const buffer = bytes.slice(start, end).buffer;
      return ref.$typed === 'ArrayBuffer' ? buffer : new Ctor(buffer);
    });
    const overlap = claimed.overlap();
    if (overlap !== undefined)
      fail(
        `two typed arrays share the bytes at offset ${overlap - binaryStart} of its binary section ` +
          '(each array must have bytes of its own)',
      );
  } catch (e) {
    if (e instanceof BundleError) throw e;
    fail('JSON section is not valid');
  }
  return value as T;
}

export function structuredPart(name: string, value: unknown, count = 1): BundlePart {
  return { name, kind: 'structured', count, data: encodeStructured(value) };
}
