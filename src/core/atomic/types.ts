// The atomic layer (PIKE-RAG knowledge atomizing): the questions a chunk answers, written by the model, stored with
// their chunk id. They are the distilled layer's third kind of item, beside the KG's entities and relations.
import type { StepSpend } from '../llm/index.ts';

/** One atomic question of a chunk. `id` is `${chunkId}?${n}` (n from 0 in the order the model wrote them). */
export interface AtomicQuestion {
  id: string;
  chunkId: string;
  docId: string;
  text: string;
  /** Embedded with the library's embedder (unit length); absent on a library without vectors. */
  vector?: Float32Array;
}

/** Where a chunk's atomizing stands: done (its questions are stored, maybe none) or failed with the reason. */
export interface AtomicChunkState extends StepSpend {
  chunkId: string;
  docId: string;
  status: 'done' | 'failed';
  reason?: string;
  questions: number;
  updatedAt: number;
}

/** What atomizing one chunk commits: its questions (done) or the reason it failed, and what its calls cost. */
export type AtomicOutcome = ({ status: 'done'; questions: string[] } | { status: 'failed'; reason: string }) &
  StepSpend;

/** An atomic question found for a query, with the similarity that let it through (≥ δ). */
export interface AtomicHit {
  question: AtomicQuestion;
  /** max(dense, lexical): the similarity compared with δ. */
  score: number;
  /** Cosine of the query and question vectors, when both exist. */
  dense?: number;
  /** IDF-weighted share of the query's terms the question contains (0…1). */
  lexical: number;
}

export function questionId(chunkId: string, n: number): string {
  return `${chunkId}?${n}`;
}
