// The checks a write of sentence vectors passes before anything is stored, whether the vectors come with their
// documents (documentsRepo.ts) or after them (vectorsRepo.ts): one library holds the vectors of one embedder, of
// one dimension, and each document's vectors are exactly one row per sentence.
import type { IndexMeta } from './records.ts';

/** Thrown when a write would mix two embedders in one store. */
export class EmbedderMismatchError extends Error {
  constructor(
    readonly stored: string,
    readonly offered: string,
  ) {
    super(
      `store: refusing vectors from embedder "${offered}": this library was built with "${stored}"; ` +
        'remove all documents (or start a new library) to switch embedders',
    );
    this.name = 'EmbedderMismatchError';
  }
}

/** Checks a document's vector set against its sentence count; returns its dimension (0 without sentences). */
function vectorDimension(name: string, rows: number, vectors: Float32Array): number {
  if (rows === 0) {
    if (vectors.length !== 0) {
      throw new Error(`store: document "${name}" has no sentences but ${vectors.length} floats`);
    }
    return 0;
  }
  if (vectors.length === 0 || vectors.length % rows !== 0) {
    throw new Error(
      `store: document "${name}": ${vectors.length} floats do not split into ${rows} sentence vectors`,
    );
  }
  return vectors.length / rows;
}

/** The one dimension of a batch of vector sets (0 when none has rows); throws when two disagree. */
export function batchDimension(sets: { name: string; rows: number; vectors: Float32Array }[]): number {
  const dims = sets.map((v) => vectorDimension(v.name, v.rows, v.vectors));
  const dimension = dims.find((d) => d > 0) ?? 0;
  const odd = dims.findIndex((d) => d !== 0 && d !== dimension);
  if (odd >= 0) {
    throw new Error(
      `store: document "${sets[odd].name}": vectors of dimension ${dims[odd]}, ` +
        `the others of the batch have ${dimension}`,
    );
  }
  return dimension;
}

/** Refuses vectors the library cannot hold beside its own (another embedder, another dimension). */
export function checkEmbedder(meta: IndexMeta, embedderId: string, dimension: number, name: string): void {
  if (meta.embedderId !== null && meta.embedderId !== embedderId) {
    throw new EmbedderMismatchError(meta.embedderId, embedderId);
  }
  if (dimension !== 0 && meta.dimension !== 0 && meta.dimension !== dimension) {
    throw new Error(
      `store: document "${name}": vectors of dimension ${dimension}, library holds ${meta.dimension}`,
    );
  }
}
