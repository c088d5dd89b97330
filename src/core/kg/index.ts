// The public API of src/core/kg: what the services, the store, the CLI, the UI and other core folders use.
// Modules not listed here are this folder's own; tests may still reach them directly.
export { embedKg } from './embed.ts';
export { DEFAULT_LAMBDA, hybrid } from './hybrid.ts';
export {
  entityFromMentions,
  relationFromMentions,
  withoutChunksEntity,
  withoutChunksRelation,
} from './merge.ts';
export { KgIndex, sentencesNaming, splitSentences } from './search.ts';
export type { EntityHit, KgChunkView, RelationHit } from './search.ts';
export { DEFAULT_KAPPA, DEFAULT_OUTPUT_RATIO, rankOrder, selectCoreChunks } from './select.ts';
export { MemoryKgStore, applyOutcome } from './store.ts';
export type { ChunkOutcome, KgStore, KgVectorUpdate } from './store.ts';
export { normalizeAttributeValue, normalizeKey, normalizeName } from './normalize.ts';
export type { EntityMention, KgChunkState, KgEntity, KgRelation, RelationMention } from './types.ts';
// The extraction prompt and validator, for PIKE-RAG's one-pass distillation (src/core/atomic), which extends them
// with atomic questions so that a change to the KG extraction flows into the one-pass call too.
export { EXTRACTION_MAX_TOKENS, TEXT_BEGIN, TEXT_END, extractionMessages } from './prompt.ts';
export { validateExtraction } from './schema.ts';
export { coreCount } from './select.ts';
export type { Extraction } from './types.ts';
export { extractChunk } from './extract.ts';
