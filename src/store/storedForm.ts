// The stored form of a document's records (schema v2) and back: what the store writes is what cannot be derived.
// Chunk and sentence text are the document text between their offsets, so they are dropped on write and sliced
// back on read (kept only in the unexpected case where a parser's chunk text is not such a slice); sentence vectors
// are int8 with a per-row scale, the codec bundles use, so a bundle exported from the store quantizes back to the
// very same codes.
import { dequantizeInt8, quantizeInt8 } from '../core/bundle/index.ts';
import type { VectorRecord } from './records.ts';

/** A stored chunk or sentence with its text (sliced from the document text when the store left it out). */
export function withText<T extends { start: number; end: number; text?: string }>(
  record: T,
  docText: string | undefined,
): T & { text: string } {
  if (record.text !== undefined) return record as T & { text: string };
  return { ...record, text: docText?.slice(record.start, record.end) ?? '' };
}

/** A document's sentence vectors (rows × dimension Float32, row-major) as the store keeps them. */
export function vectorRecord(
  docId: string,
  embedderId: string,
  dimension: number,
  vectors: Float32Array,
): VectorRecord {
  const count = dimension > 0 ? vectors.length / dimension : 0;
  const data = count > 0 ? quantizeInt8(vectors, dimension).buffer : new ArrayBuffer(0);
  return { docId, embedderId, dimension, count, encoding: 'i8', data: data as ArrayBuffer };
}

/**
 * A stored vector record back as Float32 rows, each of unit length (int8 rows are re-normalized after decoding,
 * as a bundle import does, so dot product stays cosine).
 */
export function loadedVectors(record: VectorRecord): Float32Array {
  if (record.count === 0 || record.dimension === 0) return new Float32Array(0);
  if (record.encoding === 'i8') {
    return dequantizeInt8(new Uint8Array(record.data), record.dimension, record.count);
  }
  return new Float32Array(record.data);
}
