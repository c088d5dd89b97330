// Plain data types of questions and answers as they cross the query worker's boundary: a question, its ranked
// evidence, a written answer with citations (the modes are listed in modeRegistry.ts). Types only, so the page can
// import them without pulling worker code into its bundle.
import type { EntityHit, RelationHit } from '../../core/kg/index.ts';
import type { StepUsage, TraceEvent } from '../../core/llm/index.ts';
import type { Provenance, Relevance, RetrievedChunk } from '../../core/retrieval/index.ts';
import type { ThemesOverview } from '../themes/themesProtocol.ts';
import type { QuestionMode } from './modeRegistry.ts';

/** One ranked piece of evidence, as the Ask view shows it. */
export interface Evidence extends Pick<
  RetrievedChunk,
  'chunkId' | 'docId' | 'score' | 'text' | 'tokens' | 'heading' | 'pageStart' | 'pageEnd'
> {
  docTitle: string;
  /** Offset of `text` in its document's text (the chunk's start, or its excerpt's when over the budget). */
  chunkStart: number;
  /** Heading path document › heading › subheading (empty where the source has no headings). */
  path: string[];
  /** True when `text` is the best run of sentences of a chunk larger than the whole budget. */
  excerpt: boolean;
  provenance: Provenance & {
    /** KG modes: the matched entities this chunk supports. */
    entities?: string[];
    /** `hybrid`: which paths (concept, kg) found the chunk, and at which ranks. */
    paths?: string[];
  };
  /** Best sentences, offsets into the document text (not the chunk). */
  bestSentences: { start: number; end: number; score: number }[];
  /**
   * The one relevance scale of every mode (src/core/retrieval/relevance.ts): 0–100 and its label, from the
   * question's words the passage holds and its score relative to the best passage of the answer.
   */
  relevance?: Relevance;
}

export interface PagedReads {
  bytes: number;
  rounds: number;
  waitMs: number;
}

export interface AskResult {
  question: string;
  mode: QuestionMode;
  budget: number;
  evidence: Evidence[];
  /**
   * The evidence is the Ask view's first page only (a paged index read for it alone: ask()'s `firstPage`): the
   * passages after it, not read yet, and their tokens.
   */
  more?: { passages: number; tokens: number };
  /** The library's layers: the semantic one is missing until vectors exist. */
  layers: { lexical: boolean; semantic: boolean };
  /** No passage holds any of the question's words: the library has no good match (the passages are shown anyway). */
  noGoodMatch?: boolean;
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
  /**
   * `pages`: answered by ranges from the library's stored pages (a large library), not from memory. `words`: a large
   * library whose pages are not written yet, answered by words (BM25) over its stored chunks read a batch at a time
   * (src/services/source/wordsSource.ts); the concept walk and the reasoning modes answer once the pages are written.
   */
  from?: 'pages' | 'words';
  /**
   * A library read by ranges (its stored pages, or a bundle opened by its address): what the question read, in how
   * many rounds, and how long it waited on those reads (the rest of `milliseconds` is ranking and evidence).
   */
  reads?: PagedReads;
  /** KG modes: the entities and relations that matched (relations become facts for the written answer). */
  kg?: { entities: EntityHit[]; relations: RelationHit[] };
  /** Reasoning modes: every event of the run, in order (also streamed to `onTrace` as it happens). */
  trace?: TraceEvent[];
  /**
   * Reasoning modes: statements the run established (a computed difference, a comparison, a sub-answer), given to
   * the written answer beside the evidence.
   */
  facts?: string[];
  /** Reasoning modes: the LLM calls the run made, in total (the written answer's are counted separately). */
  usage?: StepUsage;
  /** A corpus-wide question ("What is this about?") answered by the library's themes: the evidence is their passages. */
  themes?: ThemesOverview;
  /**
   * Asked while a drop was ahead of the concept graph: answered over the documents the graph covers (what the app
   * calls searchable); `documents` more were stored and wait for the next refresh, after which the page asks again.
   */
  awaitingGraph?: { documents: number };
  milliseconds: number;
}

/** Called with each trace event of a reasoning mode as it happens. */
export type TraceListener = (event: TraceEvent) => void;

/** A question for the query service; `lambda` is the KG share of the budget in `hybrid`. */
export interface AskRequest {
  question: string;
  mode: QuestionMode;
  budget: number;
  lambda?: number;
  /** Reasoning modes: their limits (rounds N or R, top K, similarity threshold δ); defaults per mode. */
  reasoning?: ReasoningOptions;
  /**
   * The Ask view's first page alone where the library is read by ranges (AskResult.more); the rest is read by
   * QueryService.restOfAnswer ("More passages", a written answer).
   */
  firstPage?: boolean;
}

export interface ReasoningOptions {
  /** Rounds at most (decompose N, default 5; logical R, default 3). */
  maxRounds?: number;
  /** Candidates per sub-query (decompose K). */
  topK?: number;
  /** Similarity a candidate must reach (decompose δ, the atomic path's threshold). */
  delta?: number;
}

/** A citation of a written answer: offsets of the best supporting sentence in the DOCUMENT text (the viewer's). */
interface CitationOut {
  n: number;
  chunkId: string;
  docId: string;
  start: number;
  end: number;
  sentence: string;
  /** Pages of the cited sentence (1-based), where the source has pages (PDF). */
  pageStart?: number;
  pageEnd?: number;
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
  evidence: Array<
    Pick<
      Evidence,
      'chunkId' | 'docId' | 'docTitle' | 'heading' | 'text' | 'chunkStart' | 'pageStart' | 'pageEnd'
    >
  >;
  facts?: string[];
}
