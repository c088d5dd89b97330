// Concept vectors (G2ConS eq. 1): Vector(w) = mean of the embeddings of the sentences that contain w, within the
// concept's chunks; normalized to unit length so cosine is a dot product. A concept found in no single sentence
// (e.g. a phrase split across a sentence boundary) falls back to the mean of its chunks' sentences.
import { conceptIndex, type ConceptTable } from './concepts.ts';

export interface SentenceLayout {
  /** Sentences of chunk k are sentence rows sentenceOffsets[k] .. sentenceOffsets[k+1] (chunk order). */
  sentenceOffsets: Uint32Array;
  /** Analysed terms of every sentence (same analyser as the chunks). */
  sentenceTerms: readonly (readonly string[])[];
}

export function computeConceptVectors(
  table: ConceptTable,
  layout: SentenceLayout,
  sentenceVectors: Float32Array,
  dim: number,
): Float32Array {
  const nc = table.terms.length;
  const ns = layout.sentenceTerms.length;
  if (
    layout.sentenceOffsets.length !== table.chunkCount + 1 ||
    layout.sentenceOffsets[table.chunkCount] !== ns
  ) {
    throw new Error('concept vectors: sentenceOffsets does not match the chunk count and the sentence list');
  }
  if (sentenceVectors.length !== ns * dim) {
    throw new Error(
      `concept vectors: ${sentenceVectors.length} floats for ${ns} sentences of dimension ${dim}`,
    );
  }
  const out = new Float32Array(nc * dim);
  const hits = new Uint32Array(nc);
  const { chunkConceptOffsets: kco, chunkConcepts: kc } = table;
  // One pass over the sentences: each sentence term is looked up once, instead of testing every concept of the
  // chunk against every sentence. Rows are added in the same (chunk, sentence) order as that test did, so the
  // sums are bit-for-bit the same. inChunk[c] = k + 1 marks the concepts of chunk k; lastSentence[c] = s + 1
  // counts a term repeated in one sentence once.
  const ids = conceptIndex(table);
  const inChunk = new Uint32Array(nc);
  const lastSentence = new Uint32Array(nc);
  for (let k = 0; k < table.chunkCount; k++) {
    const s0 = layout.sentenceOffsets[k];
    const s1 = layout.sentenceOffsets[k + 1];
    if (s1 === s0) continue;
    for (let j = kco[k]; j < kco[k + 1]; j++) inChunk[kc[j]] = k + 1;
    for (let s = s0; s < s1; s++) {
      for (const term of layout.sentenceTerms[s]) {
        const c = ids.get(term);
        if (c === undefined || inChunk[c] !== k + 1 || lastSentence[c] === s + 1) continue;
        lastSentence[c] = s + 1;
        addRow(out, c, sentenceVectors, s, dim);
        hits[c]++;
      }
    }
  }
  // Fallback for concepts no sentence contained.
  for (let c = 0; c < nc; c++) {
    if (hits[c] > 0) continue;
    for (let i = table.conceptChunkOffsets[c]; i < table.conceptChunkOffsets[c + 1]; i++) {
      const k = table.conceptChunks[i];
      for (let s = layout.sentenceOffsets[k]; s < layout.sentenceOffsets[k + 1]; s++)
        addRow(out, c, sentenceVectors, s, dim);
    }
  }
  for (let c = 0; c < nc; c++) {
    let norm = 0;
    const o = c * dim;
    for (let d = 0; d < dim; d++) norm += out[o + d] * out[o + d];
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let d = 0; d < dim; d++) out[o + d] *= inv;
    }
  }
  return out;
}

function addRow(out: Float32Array, row: number, src: Float32Array, srcRow: number, dim: number): void {
  const o = row * dim;
  const so = srcRow * dim;
  for (let d = 0; d < dim; d++) out[o + d] += src[so + d];
}
