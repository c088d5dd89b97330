// Puts chunks, sentences and sentence vectors in the one order every index uses: chunks sorted by id, each
// chunk's sentences by their index in the document. Same records in any order → same layout.
import type { ChunkRecord, SentenceRecord } from '../types.ts';

export type RetrievalChunkInput = Pick<
  ChunkRecord,
  'id' | 'docId' | 'text' | 'tokens' | 'start' | 'pageStart' | 'pageEnd'
> & {
  /** Heading path document › heading › subheading (see sectionPath.ts); ranked as a field and shown to the reader. */
  path?: readonly string[];
  /** The path's first part is the document's .jsonl line label, no heading words (sectionPath.ts headingField). */
  pathLabel?: boolean;
};
export type RetrievalSentenceInput = Pick<SentenceRecord, 'chunkId' | 'index' | 'start' | 'end' | 'text'>;

export interface CorpusLayout {
  chunks: RetrievalChunkInput[];
  sentences: RetrievalSentenceInput[];
  /** Sentences of chunk k: sentences[sentenceOffsets[k] .. sentenceOffsets[k+1]). */
  sentenceOffsets: Uint32Array;
  /** Position in the caller's sentence array of each laid-out sentence (to reorder its vectors). */
  sentenceSource: Uint32Array;
}

export function layoutCorpus(
  chunks: readonly RetrievalChunkInput[],
  sentences: readonly RetrievalSentenceInput[],
): CorpusLayout {
  const sorted = [...chunks].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].id === sorted[i - 1].id)
      throw new Error(`retrieval input: duplicate chunk id "${sorted[i].id}"`);
  }
  const position = new Map<string, number>();
  sorted.forEach((c, i) => position.set(c.id, i));
  const order = sentences.map((s, i) => {
    const k = position.get(s.chunkId);
    if (k === undefined)
      throw new Error(`retrieval input: sentence ${s.index} names unknown chunk "${s.chunkId}"`);
    return { k, index: s.index, i };
  });
  order.sort((a, b) => a.k - b.k || a.index - b.index || a.i - b.i);
  const sentenceOffsets = new Uint32Array(sorted.length + 1);
  for (const o of order) sentenceOffsets[o.k + 1]++;
  for (let k = 0; k < sorted.length; k++) sentenceOffsets[k + 1] += sentenceOffsets[k];
  return {
    chunks: sorted,
    sentences: order.map((o) => sentences[o.i]),
    sentenceOffsets,
    sentenceSource: Uint32Array.from(order, (o) => o.i),
  };
}

/**
 * Reorders row-major vectors of the caller's sentences into layout order. Vectors already in that order (the
 * store's: sentence ids are the document's id and the sentence's index, chunk ids the document's id and the
 * chunk's place) are returned as they are, not copied: the copy was a second array of every sentence's vector
 * (48 MB on MuSiQue) while a library opened. The caller must not change them afterwards.
 */
export function reorderRows(vectors: Float32Array, dim: number, source: Uint32Array): Float32Array {
  if (vectors.length !== source.length * dim) {
    throw new Error(
      `retrieval input: ${vectors.length} floats for ${source.length} sentences of dimension ${dim}`,
    );
  }
  let identity = true;
  for (let i = 0; i < source.length && identity; i++) identity = source[i] === i;
  if (identity) return vectors;
  const out = new Float32Array(vectors.length);
  for (let i = 0; i < source.length; i++)
    out.set(vectors.subarray(source[i] * dim, source[i] * dim + dim), i * dim);
  return out;
}

/** Chunk vector = normalized mean of its sentence vectors (zero row for a chunk without sentences). */
export function meanChunkVectors(
  sentenceVectors: Float32Array,
  dim: number,
  offsets: Uint32Array,
): Float32Array {
  const n = offsets.length - 1;
  const out = new Float32Array(n * dim);
  for (let k = 0; k < n; k++) {
    const o = k * dim;
    for (let s = offsets[k]; s < offsets[k + 1]; s++) {
      for (let d = 0; d < dim; d++) out[o + d] += sentenceVectors[s * dim + d];
    }
    let norm = 0;
    for (let d = 0; d < dim; d++) norm += out[o + d] * out[o + d];
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let d = 0; d < dim; d++) out[o + d] *= inv;
    }
  }
  return out;
}
