// The public API of src/core/retrieval: what the services, the store, the CLI, the UI and other core folders use.
// Modules not listed here are this folder's own; tests may still reach them directly.
export { cutToBudget } from './budget.ts';
export { CONCEPT_MAP_LIMITS, conceptMap } from './conceptMap.ts';
export type { ConceptMap, ConceptMapNode, ConceptMapOptions } from './conceptMap.ts';
export { layoutCorpus, reorderRows } from './corpusLayout.ts';
export type { RetrievalChunkInput } from './corpusLayout.ts';
export { DenseIndex } from './dense.ts';
export { REBUILD_PARAMS, RetrievalEngine } from './engine.ts';
export type { EngineTimings, PreparedText, RetrievalInput } from './engine.ts';
export { groupBySection } from './group.ts';
export { parseParamOverride, resolveParams } from './params.ts';
export type { RetrievalParams } from './params.ts';
export {
  PASSAGES_SHOWN_MAX,
  PASSAGES_SHOWN_MIN,
  passagesShown,
  rateEvidence,
  relevanceLabel,
} from './relevance.ts';
export type { Relevance, RelevanceLabel } from './relevance.ts';
export { cleanHeading, withSectionPaths } from './sectionPath.ts';
export { looksLikeCode } from './sentencePick.ts';
export { DEFAULT_MODE, parseMode } from './types.ts';
export type { Provenance, RetrievedChunk, SentenceHit } from './types.ts';
export { WALK_VIEW_CAPS, walkView } from './walkView.ts';
export type {
  WalkView,
  WalkViewCaps,
  WalkViewChunk,
  WalkViewConcept,
  WalkViewLink,
  WalkViewSeed,
} from './walkView.ts';
