// The public API of src/core/retrieval: what the services, the store, the CLI, the UI and other core folders use.
// Modules not listed here are this folder's own; tests may still reach them directly.
export { cutToBudget } from './budget.ts';
export { conceptMap } from './conceptMap.ts';
export type { ConceptMapOptions } from './conceptMap.ts';
export { layoutCorpus } from './corpusLayout.ts';
export type { RetrievalChunkInput } from './corpusLayout.ts';
export { DenseIndex } from './dense.ts';
export { REBUILD_PARAMS, RetrievalEngine } from './engine.ts';
export type { EngineTimings, PreparedText, RetrievalInput } from './engine.ts';
export { parseParamOverride, resolveParams } from './params.ts';
export type { RetrievalParams } from './params.ts';
export { passagesShown, rateEvidence } from './relevance.ts';
export type { Relevance } from './relevance.ts';
export { cleanHeading, withSectionPaths } from './sectionPath.ts';
export { semanticCompactGraph } from './semanticMask.ts';
export { looksLikeCode } from './sentencePick.ts';
export { DEFAULT_MODE, parseMode } from './types.ts';
export type { Provenance, RetrievedChunk, SentenceHit } from './types.ts';
export { walkView } from './walkView.ts';
export type { WalkViewCaps } from './walkView.ts';
