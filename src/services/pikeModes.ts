// PIKE-RAG's question modes: `atomic` (hierarchical retrieval through the atomic questions of the distilled layer)
// and `decompose` (knowledge-aware task decomposition, the paper's Algorithm 1). Being built (issue 11): until then
// both refuse with that reason rather than answer with something else.
import type { ModeHandler } from './queryModes.ts';

export const atomicMode: ModeHandler = () =>
  Promise.reject(new Error('mode atomic is not available yet (PIKE-RAG atomizing is being built)'));

export const decomposeMode: ModeHandler = () =>
  Promise.reject(new Error('mode decompose is not available yet (PIKE-RAG decomposition is being built)'));
