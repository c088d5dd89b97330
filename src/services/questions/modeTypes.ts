// What a question mode is given and what it returns: the contract between the query service (which loads the
// library, embeds the question and hands the reasoning modes the LLM client and the trace) and each mode's handler
// (modes.ts, pikeModes.ts, kagMode.ts). Types only, below every mode, so the modes and their table do not
// import each other.
import type { AtomicIndex } from '../../core/atomic/index.ts';
import type { EntityHit, KgChunkView, KgIndex, RelationHit } from '../../core/kg/index.ts';
import type { LlmClient, StepUsage, TraceEvent } from '../../core/llm/index.ts';
import type { RetrievedChunk } from '../../core/retrieval/index.ts';
import type { ReasoningOptions } from './queryProtocol.ts';

/** What every mode may use: the question, the library's search and chunks, and the KG index on demand. */
export interface ModeContext {
  question: string;
  /** The question embedded by the library's embedder; absent when the library has no semantic layer. */
  vector: Float32Array | undefined;
  budget: number;
  /** Share of the budget given to the KG path in `hybrid`. */
  lambda: number;
  /**
   * Ranked chunks for a text in a retrieval mode: the engine of a library in memory, or a library read by ranges
   * (reading only the blocks they need: src/services/source/pagedSource.ts).
   */
  search(
    query: { text: string; vector?: Float32Array },
    mode: string,
    budget: number,
  ): Promise<RetrievedChunk[]>;
  /** A chunk as the KG search reads it (sentence offsets into its text). */
  chunkView(chunkId: string): KgChunkView | undefined;
  /**
   * A library read by ranges only: reads the records of these chunks so that chunkView answers for them (a library
   * in memory has every chunk at hand and leaves this out). With `budget`, the ids are in rank order and only as
   * many are read as a budget cut over them takes (the KG search's: skip a chunk it lacks, stop at the first that
   * does not fit).
   */
  readChunks?(chunkIds: readonly string[], budget?: number): Promise<void>;
  /** The KG index, loaded on first use (only the KG modes pay for it). */
  kg(): Promise<KgIndex>;
  /** The atomic-question index (PIKE-RAG's atomic layer), loaded on first use; null when the library has none. */
  atomic(): Promise<AtomicIndex | null>;
  /** Reasoning modes: the limits asked for (each mode has its defaults). */
  reasoning: ReasoningOptions;
  /**
   * The client of the endpoint the user configured, for the modes that reason at question time; rejects with a
   * message naming the mode when none is configured.
   */
  llm(): Promise<LlmClient>;
  /** Another text (a sub-question) embedded by the library's embedder; undefined when the library has no vectors. */
  embed(text: string): Promise<Float32Array | undefined>;
  /** Records an event of the run: streamed to the page as it happens and kept in the result. */
  trace(event: Omit<TraceEvent, 'mode' | 'at'>): void;
  /** Aborted when the person cancels the question. */
  signal: AbortSignal;
}

export interface ModeResult {
  hits: RetrievedChunk[];
  /** The entities and relations that matched, for the modes that search the KG. */
  kg?: { entities: EntityHit[]; relations: RelationHit[] };
  /** Reasoning modes: statements the run established, for the written answer (see AskResult.facts). */
  facts?: string[];
  /** Reasoning modes: the LLM calls of the run. */
  usage?: StepUsage;
}

export type ModeHandler = (context: ModeContext) => Promise<ModeResult>;
