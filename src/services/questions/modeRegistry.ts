// The one list of question modes, and the one reading of a mode string. The Ask and Evaluate views, the query
// protocol's types, the mode handlers (modes.ts: one handler per name here, checked by the compiler), the reasoning
// limits (src/ui/reasoningLimits.ts: one set per reasoning mode), `cli ask` and the evaluation all read it. Plain
// data and the engine's own mode grammar only, so the page can import it without pulling worker code in.
import { DEFAULT_MODE, parseMode } from '../../core/retrieval/index.ts';

/**
 * What a mode searches: the RetrievalEngine (concept graph, BM25, vectors), the LLM-built KG (alone or merged with
 * the concept graph), PIKE-RAG's atomic questions (no LLM at question time), or the LLM at question time.
 */
export type ModeFamily = 'retrieval' | 'kg' | 'atomic' | 'reasoning';

/**
 * Every mode the query service answers, in the order the views and `cli ask --help` list them: the retrieval modes
 * first (the default among them), then the modes over the LLM-built layers. A new mode is one entry here and one
 * handler in modes.ts.
 */
const MODES = {
  ppr: 'retrieval',
  concept: 'retrieval',
  dense: 'retrieval',
  bm25: 'retrieval',
  'rrf:ppr+bm25': 'retrieval',
  hybrid: 'kg',
  kg: 'kg',
  atomic: 'atomic',
  decompose: 'reasoning',
  logical: 'reasoning',
} as const satisfies Record<string, ModeFamily>;

export type QuestionMode = keyof typeof MODES;
type ModesOf<F extends ModeFamily> = {
  [M in QuestionMode]: (typeof MODES)[M] extends F ? M : never;
}[QuestionMode];
export type RetrievalMode = ModesOf<'retrieval'>;
/** Modes that search the LLM-built knowledge graph (the KG alone, or merged with the concept graph). */
export type KgMode = ModesOf<'kg'>;
/**
 * Modes that reason with the LLM at question time: PIKE-RAG's knowledge-aware decomposition and KAG's logical-form
 * solving. They stream a trace of their rounds, take limits, and need a configured endpoint.
 */
export type ReasoningMode = ModesOf<'reasoning'>;

/** Every mode the Ask view offers, in its order. */
export const ASK_MODES = Object.keys(MODES) as QuestionMode[];

function ofFamily<F extends ModeFamily>(family: F): ModesOf<F>[] {
  return ASK_MODES.filter((m): m is ModesOf<F> => MODES[m] === family);
}

export const RETRIEVAL_MODES: readonly RetrievalMode[] = ofFamily('retrieval');
export const KG_MODES: readonly KgMode[] = ofFamily('kg');
export const REASONING_MODES: readonly ReasoningMode[] = ofFamily('reasoning');

/** The name the CLI and the benches take for "whatever mode the app uses by default" (DEFAULT_MODE). */
export const DEFAULT_MODE_NAME = 'default';

function isQuestionMode(mode: string): mode is QuestionMode {
  return Object.hasOwn(MODES, mode);
}

/** The family of a registered mode (undefined for any other name, a fusion the engine understands included). */
export function modeFamily(mode: string): ModeFamily | undefined {
  return isQuestionMode(mode) ? MODES[mode] : undefined;
}

/** Whether a mode calls the LLM at question time. */
export function needsLlm(mode: string): mode is ReasoningMode {
  return isQuestionMode(mode) && MODES[mode] === 'reasoning';
}

/** A mode string read once: what it is, and what the service and the evaluation do differently for it. */
export interface ParsedMode {
  /** The mode as the service takes it (`default` resolved to DEFAULT_MODE where allowed). */
  name: string;
  family: ModeFamily;
  /** Calls the LLM at question time. */
  needsLlm: boolean;
  /** Ranks without the question vector, so lexical evidence can be sent while the vector is computed. */
  lexical: boolean;
  /** A small budget gets the best sentences of a first chunk larger than it (the engine's search). */
  excerpts: boolean;
}

/**
 * Reads a mode: a registered name, or any other fusion the engine understands (`rrf:dense+bm25`, which the CLI may
 * ask for); with `allowDefault` (the CLI, the benches) also `default`. An unknown name is refused with the list.
 */
export function parseQuestionMode(text: string, options: { allowDefault?: boolean } = {}): ParsedMode {
  const name = options.allowDefault && text === DEFAULT_MODE_NAME ? DEFAULT_MODE : text;
  const family: ModeFamily | undefined = isQuestionMode(name) ? MODES[name] : engineFusion(name);
  if (!family) {
    const modes = options.allowDefault
      ? `${DEFAULT_MODE_NAME} (${DEFAULT_MODE}), ${ASK_MODES.join(', ')}`
      : ASK_MODES.join(', ');
    throw new Error(`ask: unknown mode "${text}"; one of ${modes} or rrf:<a>+<b>`);
  }
  return {
    name,
    family,
    needsLlm: family === 'reasoning',
    lexical: family === 'retrieval' && !usesVector(name),
    excerpts: family === 'retrieval',
  };
}

/** 'retrieval' for a mode the engine understands that is not registered (a fusion), else undefined. */
function engineFusion(mode: string): ModeFamily | undefined {
  try {
    parseMode(mode);
    return 'retrieval';
  } catch {
    return undefined;
  }
}

/** Whether a retrieval mode needs the question vector to rank (`dense`, or a fusion with it). */
function usesVector(mode: string): boolean {
  const parsed = parseMode(mode);
  return 'base' in parsed ? parsed.base === 'dense' : parsed.fuse.includes('dense');
}
