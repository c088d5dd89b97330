// The public API of src/core/atomic (PIKE-RAG knowledge atomizing): the atomic questions of chunks — the
// resumable distillation build (KG, atomic questions, or both in one pass), its cost estimate, the
// stores' interface, and the index that finds atomic questions similar to a query.
export { buildDistilled } from './build.ts';
export type { DistillBuildOptions, DistillBuildSummary, DistillChunkInput } from './build.ts';
export type { DistillOutcome } from './distill.ts';
export { embedAtomic } from './embed.ts';
export { estimateDistillCost, TOKENS_PER_QUESTION } from './estimate.ts';
export type { DistillCostEstimate } from './estimate.ts';
export { DEFAULT_ATOMIZE_TEMPERATURE, DEFAULT_MAX_QUESTIONS } from './prompt.ts';
export { AtomicIndex, DEFAULT_DELTA, DEFAULT_TOP_K } from './search.ts';
export { MemoryAtomicStore, recordsOf } from './store.ts';
export type { AtomicStore } from './store.ts';
export type { AtomicChunkState, AtomicOutcome, AtomicQuestion } from './types.ts';
export { DEFAULT_MAX_ROUNDS, runDecomposition } from './decompose.ts';
export type { DecomposeCandidate } from './decompose.ts';
