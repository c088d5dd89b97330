// Small vector helpers shared by the embedders and the atomic search: L2 normalization of rows and dot products.
// Rows are stored row-major in one Float32Array so they cross worker boundaries as a single transferable buffer.

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

/** Dot product of `a` and `b`, optionally of rows: `a` from offset `aOff`, `b` from `bOff`, over `dim` floats. */
export function dot(a: Float32Array, b: Float32Array, dim = a.length, aOff = 0, bOff = 0): number {
  let s = 0;
  for (let i = 0; i < dim; i++) s += a[aOff + i] * b[bOff + i];
  return s;
}
