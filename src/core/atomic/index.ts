// The public API of src/core/atomic (PIKE-RAG knowledge atomizing): the atomic questions of chunks — prompts and
// validation, the resumable distillation build (KG, atomic questions, or both in one pass), its cost estimate, the
// stores' interface, and the index that finds atomic questions similar to a query.
export { buildDistilled } from './build.ts';
export type { DistillBuildOptions, DistillBuildSummary, DistillChunkInput } from './build.ts';
export { atomizeChunk, distillChunk } from './distill.ts';
export type { AtomizeOptions, DistillKinds, DistillOutcome } from './distill.ts';
export { embedAtomic } from './embed.ts';
export { estimateDistillCost, TOKENS_PER_QUESTION } from './estimate.ts';
export type { DistillCostEstimate, DistillCostOptions } from './estimate.ts';
export {
  ATOMIZE_TAG,
  atomizeMessages,
  DEFAULT_ATOMIZE_TEMPERATURE,
  DEFAULT_MAX_QUESTIONS,
  ONE_PASS_TAG,
  onePassMessages,
} from './prompt.ts';
export { validateOnePass, validateQuestions } from './schema.ts';
export { AtomicIndex, DEFAULT_DELTA, DEFAULT_TOP_K } from './search.ts';
export type { AtomicSearchOptions } from './search.ts';
export { MemoryAtomicStore, recordsOf } from './store.ts';
export type { AtomicStore } from './store.ts';
export { chunkOfQuestionId, questionId } from './types.ts';
export type { AtomicChunkState, AtomicHit, AtomicOutcome, AtomicQuestion } from './types.ts';
export {
  DEFAULT_MAX_ROUNDS,
  MAX_PROPOSALS,
  PROPOSE_TAG,
  proposeMessages,
  runDecomposition,
  SELECT_TAG,
  selectMessages,
  validateProposals,
  validateSelection,
} from './decompose.ts';
export type {
  DecomposeCandidate,
  DecomposeEvent,
  DecomposeOptions,
  DecomposeResult,
  DecomposeStep,
  DecomposeStop,
  Selection,
} from './decompose.ts';
