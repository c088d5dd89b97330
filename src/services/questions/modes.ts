// The question modes, one entry each: how a mode turns a question (its text, its vector, the budget) into ranked
// chunks over the loaded library. The retrieval modes ask the RetrievalEngine; `kg` searches the KG index; `hybrid`
// merges the concept-graph path with the KG path; `atomic` and `decompose` (PIKE-RAG) live in pikeModes.ts,
// `logical` (KAG) in kagMode.ts. A new mode is one more name in modeRegistry.ts (with what it needs) and one more
// entry here: the one ask() (src/services/source/ask.ts) checks the source has what it needs, hands the handler the
// source's searches and chunks (and the reasoning modes the LLM client and the trace), and maps the hits to
// evidence for every mode alike.
import { hybrid, DEFAULT_LAMBDA } from '../../core/kg/index.ts';
import { DEFAULT_MODE } from '../../core/retrieval/index.ts';
import { logicalMode } from './kagMode.ts';
import { atomicMode, decomposeMode } from './pikeModes.ts';
import type { ModeContext, ModeHandler } from './modeTypes.ts';
import type { QuestionMode } from './modeRegistry.ts';

function retrieval(mode: string): ModeHandler {
  return async (c) => ({ hits: await c.search({ text: c.question, vector: c.vector }, mode, c.budget) });
}

async function kgSearch(c: ModeContext) {
  const index = await c.kg();
  const question = { text: c.question, vector: c.vector };
  // A library read by ranges reads the records of the KG's chunks first: the search ranks its chunks without any
  // (a view of undefined leaves a chunk out), then reads them in that order as far as the budget goes.
  if (c.readChunks) {
    const ranked: string[] = [];
    index.search(question, (id) => void ranked.push(id), c.budget);
    await c.readChunks(ranked, c.budget);
  }
  return index.search(question, (id) => c.chunkView(id), c.budget);
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
    const concept = await c.search({ text: c.question, vector: c.vector }, DEFAULT_MODE, c.budget);
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

/** The handler of a mode read by parseQuestionMode: a registered one, or any other fusion the engine understands. */
export function modeHandler(name: QuestionMode): ModeHandler {
  return Object.hasOwn(QUESTION_MODES, name) ? QUESTION_MODES[name] : retrieval(name);
}
