// Embeds each distinct text once per call: repeated sentences (boilerplate, list items) cost nothing extra, and
// the same text always gets bit-identical rows (a model's float results can differ in the last bit with the
// row's position in a batch).

/** Distinct texts in first-seen order, and for every input text the index of its distinct text. */
export function uniqueTexts(texts: string[]): { unique: string[]; index: Int32Array } {
  const seen = new Map<string, number>();
  const unique: string[] = [];
  const index = new Int32Array(texts.length);
  texts.forEach((t, i) => {
    let u = seen.get(t);
    if (u === undefined) {
      u = unique.length;
      seen.set(t, u);
      unique.push(t);
    }
    index[i] = u;
  });
  return { unique, index };
}

/** Rows for every input text from the rows of the distinct texts (a no-op copy when nothing repeats). */
export function expandRows(uniqueRows: Float32Array, index: Int32Array, dim: number): Float32Array {
  if (uniqueRows.length === index.length * dim) return uniqueRows;
  const out = new Float32Array(index.length * dim);
  for (let i = 0; i < index.length; i++) {
    out.set(uniqueRows.subarray(index[i] * dim, (index[i] + 1) * dim), i * dim);
  }
  return out;
}
