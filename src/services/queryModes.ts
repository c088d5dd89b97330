// The question modes, one entry each: how a mode turns a question (its text, its vector, the budget) into ranked
// chunks over the loaded library. The retrieval modes ask the RetrievalEngine; `kg` searches the KG index; `hybrid`
// merges the concept-graph path with the KG path; `atomic` and `decompose` (PIKE-RAG) live in pikeModes.ts,
// `logical` (KAG) in kagMode.ts. A new mode is one more entry in QUESTION_MODES and one more name in QuestionMode
// (src/services/queryProtocol.ts): the query service loads the library, embeds the question, hands the reasoning
// modes the LLM client and the trace, and maps the hits to evidence for every mode alike.
import type { AtomicIndex } from '../core/atomic/index.ts';
import { hybrid, DEFAULT_LAMBDA } from '../core/kg/index.ts';
import type { EntityHit, KgChunkView, KgIndex, RelationHit } from '../core/kg/index.ts';
import type { LlmClient, StepUsage, TraceEvent } from '../core/llm/index.ts';
import type { RetrievalEngine } from '../core/retrieval/index.ts';
import { DEFAULT_MODE, parseMode, type RetrievedChunk } from '../core/retrieval/index.ts';
import { logicalMode } from './kagMode.ts';
import { atomicMode, decomposeMode } from './pikeModes.ts';
import type { QuestionMode, ReasoningOptions } from './queryProtocol.ts';

/** What every mode may use: the question, the library's engine and chunks, and the KG index on demand. */
export interface ModeContext {
  question: string;
  /** The question embedded by the library's embedder; absent when the library has no semantic layer. */
  vector: Float32Array | undefined;
  budget: number;
  /** Share of the budget given to the KG path in `hybrid`. */
  lambda: number;
  engine: RetrievalEngine;
  /** A chunk as the KG search reads it (sentence offsets into its text). */
  chunkView(chunkId: string): KgChunkView | undefined;
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

function retrieval(mode: string): ModeHandler {
  return async (c) => ({ hits: c.engine.search({ text: c.question, vector: c.vector }, mode, c.budget) });
}

async function kgSearch(c: ModeContext) {
  const index = await c.kg();
  return index.search({ text: c.question, vector: c.vector }, (id) => c.chunkView(id), c.budget);
}

export const QUESTION_MODES: Record<QuestionMode, ModeHandler> = {
  ppr: retrieval('ppr'),
  concept: retrieval('concept'),
  dense: retrieval('dense'),
  bm25: retrieval('bm25'),
  'rrf:ppr+bm25': retrieval('rrf:ppr+bm25'),
  kg: async (c) => {
    const found = await kgSearch(c);
    return { hits: found.chunks, kg: { entities: found.entities, relations: found.relations } };
  },
  hybrid: async (c) => {
    const found = await kgSearch(c);
    const concept = c.engine.search({ text: c.question, vector: c.vector }, DEFAULT_MODE, c.budget);
    return {
      hits: hybrid(concept, found.chunks, c.budget, c.lambda),
      kg: { entities: found.entities, relations: found.relations },
    };
  },
  atomic: atomicMode,
  decompose: decomposeMode,
  logical: logicalMode,
};

export { DEFAULT_LAMBDA };

/**
 * The handler of a mode: a registered one, or any other fusion the engine understands (`rrf:dense+bm25`, which
 * the CLI may ask for); an unknown name is refused with the list of modes.
 */
export function modeHandler(mode: string): ModeHandler {
  if (Object.hasOwn(QUESTION_MODES, mode)) return QUESTION_MODES[mode as QuestionMode];
  try {
    parseMode(mode);
  } catch {
    throw new Error(
      `ask: unknown mode "${mode}"; one of ${Object.keys(QUESTION_MODES).join(', ')} or rrf:<a>+<b>`,
    );
  }
  return retrieval(mode);
}
