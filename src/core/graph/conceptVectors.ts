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
  const offsets = layout.sentenceOffsets;
  if (offsets.length === table.chunkCount + 1 && offsets[table.chunkCount] !== layout.sentenceTerms.length) {
    throw new Error('concept vectors: sentenceOffsets does not match the chunk count and the sentence list');
  }
  const builder = new ConceptVectorBuilder(
    table,
    layout.sentenceOffsets,
    (s) => layout.sentenceTerms[s],
    sentenceVectors,
    dim,
  );
  return builder.finish();
}

/**
 * computeConceptVectors in steps: the vectors are filled in place, chunk by chunk, so a caller can answer
 * questions that need no concept vector (the lexical walk, a keep-mask's walk graph) while they are computed,
 * and finish them at once when a question needs them. The sentence terms are asked for chunk by chunk, so they
 * are analysed only when their chunk's turn comes. Same rows added in the same order: the same floats.
 */
export class ConceptVectorBuilder {
  /** nodeCount × dim; complete once `done`. */
  readonly vectors: Float32Array;
  private readonly hits: Uint32Array;
  private readonly inChunk: Uint32Array;
  private readonly lastSentence: Uint32Array;
  private readonly ids: Map<string, number>;
  /** Concepts computed alone (ensure): the pass leaves their rows as they are. */
  private readonly ready: Uint8Array;
  /** Term sets of the sentences ensure() looked into. */
  private readonly termSets = new Map<number, Set<string>>();
  /** Next chunk of the one pass over the sentences. */
  private chunk = 0;
  private complete = false;

  constructor(
    private readonly table: ConceptTable,
    private readonly sentenceOffsets: Uint32Array,
    private readonly sentenceTerms: (s: number) => readonly string[],
    private readonly sentenceVectors: Float32Array,
    private readonly dim: number,
    /**
     * The row of `sentenceVectors` that holds sentence s (layout order), when they are not in that order: the
     * ingest worker reads the vectors as the store lists them instead of copying them into the layout's order.
     */
    private readonly rows?: Uint32Array,
  ) {
    const nc = table.terms.length;
    if (sentenceOffsets.length !== table.chunkCount + 1) {
      throw new Error(
        'concept vectors: sentenceOffsets does not match the chunk count and the sentence list',
      );
    }
    const ns = sentenceOffsets[table.chunkCount];
    if (sentenceVectors.length !== ns * dim) {
      throw new Error(
        `concept vectors: ${sentenceVectors.length} floats for ${ns} sentences of dimension ${dim}`,
      );
    }
    if (rows && rows.length !== ns) {
      throw new Error(`concept vectors: a row map of ${rows.length} entries for ${ns} sentences`);
    }
    this.vectors = new Float32Array(nc * dim);
    this.hits = new Uint32Array(nc);
    // inChunk[c] = k + 1 marks the concepts of chunk k; lastSentence[c] = s + 1 counts a term repeated in one
    // sentence once.
    this.inChunk = new Uint32Array(nc);
    this.lastSentence = new Uint32Array(nc);
    this.ids = conceptIndex(table);
    this.ready = new Uint8Array(nc);
  }

  get done(): boolean {
    return this.complete;
  }

  /** Runs until done, or until `deadline` (performance.now()) has passed after a chunk; returns done. */
  step(deadline = Infinity): boolean {
    if (this.complete) return true;
    const { table, dim, sentenceVectors: src, vectors: out, hits, inChunk, lastSentence, ids } = this;
    const { chunkConceptOffsets: kco, chunkConcepts: kc } = table;
    // One pass over the sentences: each sentence term is looked up once, instead of testing every concept of the
    // chunk against every sentence. Rows are added in the same (chunk, sentence) order as that test did, so the
    // sums are bit-for-bit the same.
    while (this.chunk < table.chunkCount) {
      const k = this.chunk++;
      const s0 = this.sentenceOffsets[k];
      const s1 = this.sentenceOffsets[k + 1];
      if (s1 > s0) {
        for (let j = kco[k]; j < kco[k + 1]; j++) inChunk[kc[j]] = k + 1;
        for (let s = s0; s < s1; s++) {
          for (const term of this.sentenceTerms(s)) {
            const c = ids.get(term);
            if (c === undefined || inChunk[c] !== k + 1 || lastSentence[c] === s + 1 || this.ready[c])
              continue;
            lastSentence[c] = s + 1;
            addRow(out, c, src, this.row(s), dim);
            hits[c]++;
          }
        }
      }
      if ((k & 63) === 63 && performance.now() >= deadline) return false;
    }
    const nc = table.terms.length;
    // Fallback for concepts no sentence contained.
    for (let c = 0; c < nc; c++) {
      if (hits[c] > 0 || this.ready[c]) continue;
      for (let i = table.conceptChunkOffsets[c]; i < table.conceptChunkOffsets[c + 1]; i++) {
        const k = table.conceptChunks[i];
        for (let s = this.sentenceOffsets[k]; s < this.sentenceOffsets[k + 1]; s++)
          addRow(out, c, src, this.row(s), dim);
      }
    }
    for (let c = 0; c < nc; c++) {
      if (!this.ready[c]) normalizeRow(out, c, dim);
    }
    this.complete = true;
    return true;
  }

  /**
   * Computes the vectors of these concepts now, each on its own: the rows of the sentences of its chunks that
   * contain it (or of all their sentences when none does), in the same chunk and sentence order as the pass, so
   * the same floats. A question's embedding seeds need only the concepts of its nearest chunks.
   */
  ensure(concepts: Iterable<number>): void {
    if (this.complete) return;
    const { table, dim, sentenceVectors: src, vectors: out, sentenceOffsets: offsets } = this;
    for (const c of concepts) {
      if (this.ready[c]) continue;
      out.fill(0, c * dim, (c + 1) * dim);
      const term = table.terms[c];
      const chunks = table.conceptChunks.subarray(
        table.conceptChunkOffsets[c],
        table.conceptChunkOffsets[c + 1],
      );
      let rows = 0;
      for (const k of chunks) {
        for (let s = offsets[k]; s < offsets[k + 1]; s++) {
          if (!this.termsOf(s).has(term)) continue;
          addRow(out, c, src, this.row(s), dim);
          rows++;
        }
      }
      if (rows === 0) {
        for (const k of chunks)
          for (let s = offsets[k]; s < offsets[k + 1]; s++) addRow(out, c, src, this.row(s), dim);
      }
      normalizeRow(out, c, dim);
      this.ready[c] = 1;
    }
  }

  /** The row of sentence s in sentenceVectors. */
  private row(s: number): number {
    return this.rows ? this.rows[s] : s;
  }

  private termsOf(s: number): Set<string> {
    let set = this.termSets.get(s);
    if (!set) {
      set = new Set(this.sentenceTerms(s));
      this.termSets.set(s, set);
    }
    return set;
  }

  /** Computes whatever is left. */
  finish(): Float32Array {
    this.step();
    return this.vectors;
  }
}

/** Scales row c to unit length (a zero row stays zero). */
function normalizeRow(out: Float32Array, c: number, dim: number): void {
  let norm = 0;
  const o = c * dim;
  for (let d = 0; d < dim; d++) norm += out[o + d] * out[o + d];
  if (norm > 0) {
    const inv = 1 / Math.sqrt(norm);
    for (let d = 0; d < dim; d++) out[o + d] *= inv;
  }
}

function addRow(out: Float32Array, row: number, src: Float32Array, srcRow: number, dim: number): void {
  const o = row * dim;
  const so = srcRow * dim;
  for (let d = 0; d < dim; d++) out[o + d] += src[so + d];
}
