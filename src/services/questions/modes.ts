// The question modes, one entry each: how a mode turns a question (its text, its vector, the budget) into ranked
// chunks over the loaded library. The retrieval modes ask the RetrievalEngine; `kg` searches the KG index; `hybrid`
// merges the concept-graph path with the KG path; `atomic` and `decompose` (PIKE-RAG) live in pikeModes.ts,
// `logical` (KAG) in kagMode.ts. A new mode is one more entry in QUESTION_MODES and one more name in QuestionMode
// (src/services/questions/queryProtocol.ts): the query service loads the library, embeds the question, hands the reasoning
// modes the LLM client and the trace, and maps the hits to evidence for every mode alike.
import { hybrid, DEFAULT_LAMBDA } from '../../core/kg/index.ts';
import { DEFAULT_MODE, parseMode } from '../../core/retrieval/index.ts';
import { logicalMode } from './kagMode.ts';
import { atomicMode, decomposeMode } from './pikeModes.ts';
import type { ModeContext, ModeHandler } from './modeTypes.ts';
import type { QuestionMode } from './queryProtocol.ts';

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
