// The one list of question modes, what each needs of a library, and the one reading of a mode string. The Ask and
// Evaluate views, the query protocol's types, the mode handlers (modes.ts: one handler per name here, checked by the
// compiler), the reasoning limits (src/ui/reasoningLimits.ts: one set per reasoning mode), `cli ask`, `cli bench`
// and the evaluation all read it; `answers` and `missing` are the only check of whether a library answers a mode
// and the only refusal. Plain data and the engine's own mode grammar only, so the page can import it without
// pulling worker code in.
import { DEFAULT_MODE, parseMode } from '../../core/retrieval/index.ts';

/** An engine mode a fusion fuses (ppr, concept, dense, bm25). */
type BaseMode = Extract<ReturnType<typeof parseMode>, { base: unknown }>['base'];

/**
 * What a mode searches: the RetrievalEngine (concept graph, BM25, vectors), the LLM-built KG (alone or merged with
 * the concept graph), PIKE-RAG's atomic questions (no LLM at question time), or the LLM at question time.
 */
export type ModeFamily = 'retrieval' | 'kg' | 'atomic' | 'reasoning';

/**
 * What a library can read (LibrarySource.has, src/services/source/librarySource.ts), and so what a mode may need:
 * - `walk`: the concept walk (the default mode); `bm25`: the words alone; `vectors`: sentence vectors;
 *   `concepts`: the concept table and its walk graph (`concept` ranks the chunks of the question's concepts and of
 *   those two hops out; a paged index reads them by ranges, conceptRanking.ts, the words source has neither);
 * - `fusion`: two rankings of one question fused (`rrf:a+b` needs it beside its parts' needs);
 * - `chunks`: any chunk read by its id (the KG, the atomic questions and the reasoning modes name chunks);
 * - `kg`, `atomic`: the LLM-built layers; `documents`: a whole document (the viewer).
 */
export type Capability =
  'walk' | 'bm25' | 'vectors' | 'concepts' | 'fusion' | 'chunks' | 'kg' | 'atomic' | 'documents';

interface ModeEntry {
  family: ModeFamily;
  needs: readonly Capability[];
}

/**
 * Every mode the query service answers, in the order the views and `cli ask --help` list them: the retrieval modes
 * first (the default among them), then the modes over the LLM-built layers. A new mode is one entry here, one
 * handler in modes.ts, and the search of each source that has what it needs.
 */
const MODES = {
  ppr: { family: 'retrieval', needs: ['walk'] },
  concept: { family: 'retrieval', needs: ['concepts'] },
  dense: { family: 'retrieval', needs: ['vectors'] },
  bm25: { family: 'retrieval', needs: ['bm25'] },
  'rrf:ppr+bm25': { family: 'retrieval', needs: ['fusion', 'walk', 'bm25'] },
  hybrid: { family: 'kg', needs: ['kg', 'walk', 'chunks'] },
  kg: { family: 'kg', needs: ['kg', 'chunks'] },
  atomic: { family: 'atomic', needs: ['atomic', 'chunks'] },
  decompose: { family: 'reasoning', needs: ['walk', 'chunks'] },
  logical: { family: 'reasoning', needs: ['walk', 'chunks'] },
} as const satisfies Record<string, ModeEntry>;

/** What each engine mode needs, for the fusions the registry does not name (`rrf:dense+bm25`). */
const BASE_NEEDS: Record<BaseMode, readonly Capability[]> = {
  ppr: MODES.ppr.needs,
  concept: MODES.concept.needs,
  dense: MODES.dense.needs,
  bm25: MODES.bm25.needs,
};

export type QuestionMode = keyof typeof MODES;
type ModesOf<F extends ModeFamily> = {
  [M in QuestionMode]: (typeof MODES)[M]['family'] extends F ? M : never;
}[QuestionMode];
/**
 * Modes that reason with the LLM at question time: PIKE-RAG's knowledge-aware decomposition and KAG's logical-form
 * solving. They stream a trace of their rounds, take limits, and need a configured endpoint.
 */
export type ReasoningMode = ModesOf<'reasoning'>;

/** Every mode the Ask view offers, in its order. */
export const ASK_MODES = Object.keys(MODES) as QuestionMode[];

function ofFamily<F extends ModeFamily>(family: F): ModesOf<F>[] {
  return ASK_MODES.filter((m): m is ModesOf<F> => MODES[m].family === family);
}

export const REASONING_MODES: readonly ReasoningMode[] = ofFamily('reasoning');

/** The name the CLI and the benches take for "whatever mode the app uses by default" (DEFAULT_MODE). */
export const DEFAULT_MODE_NAME = 'default';

function isQuestionMode(mode: string): mode is QuestionMode {
  return Object.hasOwn(MODES, mode);
}

/** The family of a registered mode (undefined for any other name, a fusion the engine understands included). */
export function modeFamily(mode: string): ModeFamily | undefined {
  return isQuestionMode(mode) ? MODES[mode].family : undefined;
}

/** Whether a mode calls the LLM at question time. */
export function needsLlm(mode: string): mode is ReasoningMode {
  return isQuestionMode(mode) && MODES[mode].family === 'reasoning';
}

/** A mode string read once: what it is, what it needs, and what the service and the evaluation do for it. */
export interface ParsedMode {
  /** The mode as the service takes it (`default` resolved to DEFAULT_MODE where allowed). */
  name: QuestionMode;
  family: ModeFamily;
  /** Calls the LLM at question time. */
  needsLlm: boolean;
  /** Ranks without the question vector, so lexical evidence can be sent while the vector is computed. */
  lexical: boolean;
  /** A small budget gets the best sentences of a first chunk larger than it (the engine's search). */
  excerpts: boolean;
  /** What a library must read to answer it (for a fusion, `fusion` and its parts' needs). */
  needs: readonly Capability[];
}

/**
 * Reads a mode: a registered name, or any other fusion the engine understands (`rrf:dense+bm25`, which the CLI may
 * ask for); with `allowDefault` (the CLI, the benches) also `default`. An unknown name is refused with the list.
 * A fusion the registry does not name is typed as a QuestionMode: every reader of `name` takes any engine mode.
 */
export function parseQuestionMode(text: string, options: { allowDefault?: boolean } = {}): ParsedMode {
  const name = options.allowDefault && text === DEFAULT_MODE_NAME ? DEFAULT_MODE : text;
  const entry: ModeEntry | undefined = isQuestionMode(name) ? MODES[name] : engineFusion(name);
  if (!entry) {
    const modes = options.allowDefault
      ? `${DEFAULT_MODE_NAME} (${DEFAULT_MODE}), ${ASK_MODES.join(', ')}`
      : ASK_MODES.join(', ');
    throw new Error(`ask: unknown mode "${text}"; one of ${modes} or rrf:<a>+<b>`);
  }
  const { family, needs } = entry;
  return {
    name: name as QuestionMode,
    family,
    needsLlm: family === 'reasoning',
    // Ranks without the question vector unless it needs vectors (`dense`, or a fusion with it).
    lexical: family === 'retrieval' && !needs.includes('vectors'),
    excerpts: family === 'retrieval',
    needs,
  };
}

/** The entry of a mode the engine understands that is not registered (a fusion), else undefined. */
function engineFusion(mode: string): ModeEntry | undefined {
  let parsed: ReturnType<typeof parseMode>;
  try {
    parsed = parseMode(mode);
  } catch {
    return undefined;
  }
  const parts = 'base' in parsed ? [parsed.base] : parsed.fuse;
  const needs = new Set<Capability>('base' in parsed ? [] : ['fusion']);
  for (const part of parts) for (const need of BASE_NEEDS[part]) needs.add(need);
  return { family: 'retrieval', needs: [...needs] };
}

/** What a library can read, and how it words what it cannot (each source says it of itself). */
export interface Capable {
  has: ReadonlySet<Capability>;
  /** What a mode needing `capability` needs, said of this library: "a knowledge graph, which this library has not". */
  lacking(capability: Capability): string;
  /** This library and the modes it answers: "a library read by ranges answers the default mode and bm25". */
  answering(modes: string): string;
}

function parsed(mode: string | ParsedMode): ParsedMode {
  return typeof mode === 'string' ? parseQuestionMode(mode, { allowDefault: true }) : mode;
}

/** Whether a library answers a mode: it has everything the mode needs. */
export function answers(source: Pick<Capable, 'has'>, mode: string | ParsedMode): boolean {
  return parsed(mode).needs.every((need) => source.has.has(need));
}

/**
 * Why a library does not answer a mode, in one sentence: what the mode needs that it lacks, then the modes it does
 * answer. The one refusal of a mode, in the app, the CLI, Evaluate and the bench.
 */
export function missing(source: Capable, mode: string | ParsedMode): string {
  const { name, needs } = parsed(mode);
  return lacking(source, `mode ${name}`, needs);
}

/** Why a library does not give `what` (a mode, a view, a document), which needs these capabilities. */
export function lacking(source: Capable, what: string, needs: readonly Capability[]): string {
  const lacks = needs.find((need) => !source.has.has(need)) ?? needs[0];
  return `${what} needs ${source.lacking(lacks)}; ${source.answering(modesText(source))}`;
}

/** The modes a library answers, for a sentence: "the default mode, bm25, decompose and logical". */
export function modesText(source: Pick<Capable, 'has'>): string {
  const named = answeredModes(source).map((m) => (m === DEFAULT_MODE ? 'the default mode' : m));
  return named.length > 1
    ? `${named.slice(0, -1).join(', ')} and ${named[named.length - 1]}`
    : (named[0] ?? 'no mode');
}

/** The modes a library answers, in the Ask view's order. */
export function answeredModes(source: Pick<Capable, 'has'>): QuestionMode[] {
  return ASK_MODES.filter((m) => answers(source, m));
}
