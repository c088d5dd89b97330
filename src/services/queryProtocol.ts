// Plain data types of questions and answers as they cross the query worker's boundary: the modes, a question,
// its ranked evidence, a written answer with citations. Types only (and the mode list), so the page can import
// them without pulling worker code into its bundle.
import type { EntityHit, RelationHit } from '../core/kg/index.ts';

export type RetrievalMode = 'ppr' | 'concept' | 'dense' | 'bm25' | 'rrf:ppr+bm25';

export const RETRIEVAL_MODES: readonly RetrievalMode[] = ['ppr', 'concept', 'dense', 'bm25', 'rrf:ppr+bm25'];

/** Modes that search the LLM-built knowledge graph (the KG alone, or merged with the concept graph). */
export type KgMode = 'kg' | 'hybrid';

/** Every mode the query service answers (src/services/queryModes.ts has one entry per mode). */
export type QuestionMode = RetrievalMode | KgMode;

/** One ranked piece of evidence, as the Ask view shows it. */
export interface Evidence {
  chunkId: string;
  docId: string;
  docTitle: string;
  score: number;
  text: string;
  tokens: number;
  /** Offset of `text` in its document's text (the chunk's start, or its excerpt's when over the budget). */
  chunkStart: number;
  /** Heading path document › heading › subheading (empty where the source has no headings). */
  path: string[];
  /** True when `text` is the best run of sentences of a chunk larger than the whole budget. */
  excerpt: boolean;
  provenance: {
    mode: string;
    concepts?: string[];
    hop?: number;
    /** KG modes: the matched entities this chunk supports. */
    entities?: string[];
    /** `hybrid`: which paths (concept, kg) found the chunk, and at which ranks. */
    paths?: string[];
    via?: string;
  };
  /** Best sentences, offsets into the document text (not the chunk). */
  bestSentences: { start: number; end: number; score: number }[];
}

export interface AskResult {
  question: string;
  mode: QuestionMode;
  budget: number;
  evidence: Evidence[];
  /** The library's layers: the semantic one is missing until vectors exist. */
  layers: { lexical: boolean; semantic: boolean };
  /** Which layer ranked this result: `semantic` when the question's vector was used, `lexical` otherwise. */
  layer: 'lexical' | 'semantic';
  /**
   * `early`: lexical evidence sent while the question was still being embedded or the library reloaded; the
   * result of the same question replaces it. Absent on the result itself.
   */
  stage?: 'early';
  /** Early evidence from the library as it was before its latest change (the new one was still loading). */
  stale?: boolean;
  /** On a result that followed early evidence: whether it ranks other chunks, or in another order. */
  rankingChanged?: boolean;
  /** KG modes: the entities and relations that matched (relations become facts for the written answer). */
  kg?: { entities: EntityHit[]; relations: RelationHit[] };
  milliseconds: number;
}

/** A question for the query service; `lambda` is the KG share of the budget in `hybrid`. */
export interface AskRequest {
  question: string;
  mode: QuestionMode;
  budget: number;
  lambda?: number;
}

/** A citation of a written answer: offsets of the best supporting sentence in the DOCUMENT text (the viewer's). */
export interface CitationOut {
  n: number;
  chunkId: string;
  docId: string;
  start: number;
  end: number;
  sentence: string;
}

/** A written answer over the evidence, with its citations and what it cost. */
export interface AnswerOut {
  text: string;
  noAnswer: boolean;
  citations: CitationOut[];
  inputTokens: number;
  outputTokens: number;
  cost: number;
}

/** What the written answer is given: the question, the evidence shown, and KG facts as hints. */
export interface AnswerRequest {
  question: string;
  evidence: Array<Pick<Evidence, 'chunkId' | 'docId' | 'docTitle' | 'text' | 'chunkStart'>>;
  facts?: string[];
}
