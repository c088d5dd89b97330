// Small vector helpers shared by the embedders and the pipeline: L2 normalization, dot products and
// chunk vectors (the normalized mean of a chunk's sentence vectors). Rows are stored row-major in one
// Float32Array so they cross worker boundaries as a single transferable buffer.

import type { PreparedDocument } from '../types.ts';

/** Normalizes `rows` row-major vectors of length `dim` in place to unit length; zero rows stay zero. */
export function normalizeRows(data: Float32Array, dim: number): Float32Array {
  if (dim <= 0 || data.length % dim !== 0) {
    throw new Error(`vectors.normalizeRows: length ${data.length} is not a multiple of dimension ${dim}`);
  }
  for (let off = 0; off < data.length; off += dim) {
    let sum = 0;
    for (let i = off; i < off + dim; i++) sum += data[i] * data[i];
    // A zero row has no direction; leaving it zero keeps NaN out of every later dot product.
    if (sum === 0) continue;
    const inv = 1 / Math.sqrt(sum);
    for (let i = off; i < off + dim; i++) data[i] *= inv;
  }
  return data;
}

/** Normalizes one vector in place to unit length and returns it (a zero vector stays zero). */
export function normalize(v: Float32Array): Float32Array {
  return normalizeRows(v, v.length);
}

/** Dot product of `a` and `b`, optionally of rows: `a` from offset `aOff`, `b` from `bOff`, over `dim` floats. */
export function dot(a: Float32Array, b: Float32Array, dim = a.length, aOff = 0, bOff = 0): number {
  let s = 0;
  for (let i = 0; i < dim; i++) s += a[aOff + i] * b[bOff + i];
  return s;
}

/**
 * Normalized mean of rows `first` .. `first + count - 1` of a row-major matrix of dimension `dim`.
 * Written into `out` at `outOff` when given (so callers can fill one big matrix without copies).
 */
export function meanNormalized(
  rows: Float32Array,
  dim: number,
  first: number,
  count: number,
  out: Float32Array = new Float32Array(dim),
  outOff = 0,
): Float32Array {
  if (count <= 0) throw new Error(`vectors.meanNormalized: need at least one row, got count ${count}`);
  if ((first + count) * dim > rows.length) {
    throw new Error(
      `vectors.meanNormalized: rows ${first}..${first + count - 1} exceed the matrix of ${rows.length / dim} rows`,
    );
  }
  out.fill(0, outOff, outOff + dim);
  for (let r = first; r < first + count; r++) {
    const base = r * dim;
    for (let i = 0; i < dim; i++) out[outOff + i] += rows[base + i];
  }
  let sum = 0;
  for (let i = outOff; i < outOff + dim; i++) sum += out[i] * out[i];
  if (sum > 0) {
    const inv = 1 / Math.sqrt(sum);
    for (let i = outOff; i < outOff + dim; i++) out[i] *= inv;
  }
  return out;
}

/**
 * Chunk vectors of one prepared document: for each chunk (in `prepared.chunks` order) the normalized mean of
 * the vectors of its sentences (`firstSentence` .. `firstSentence + sentenceCount - 1`). Returns chunks × dim.
 */
export function chunkVectors(
  prepared: PreparedDocument,
  sentenceVectors: Float32Array,
  dim: number,
): Float32Array {
  const nSent = prepared.sentences.length;
  if (sentenceVectors.length !== nSent * dim) {
    throw new Error(
      `vectors.chunkVectors: document ${prepared.doc.id} has ${nSent} sentences × ${dim} dims but got ` +
        `${sentenceVectors.length} floats`,
    );
  }
  const out = new Float32Array(prepared.chunks.length * dim);
  prepared.chunks.forEach((chunk, c) => {
    if (chunk.sentenceCount <= 0 || chunk.firstSentence + chunk.sentenceCount > nSent) {
      throw new Error(
        `vectors.chunkVectors: chunk ${chunk.id} covers sentences ${chunk.firstSentence}+${chunk.sentenceCount} ` +
          `but document ${prepared.doc.id} has ${nSent}`,
      );
    }
    meanNormalized(sentenceVectors, dim, chunk.firstSentence, chunk.sentenceCount, out, c * dim);
  });
  return out;
}
