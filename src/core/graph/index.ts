// The public API of src/core/graph: what the services, the store, the CLI, the UI and other core folders use.
// Modules not listed here are this folder's own; tests may still reach them directly.
export { conceptTerms, questionTerms, STEM_PREFIX } from './analyzer.ts';
export type { TermAnalyzer } from './analyzer.ts';
export { chunkConceptLists } from './keyphrases.ts';
export {
  compactGraph,
  compactGraphFromMask,
  compactGraphMismatch,
  compactGraphProblem,
  isCompactGraph,
  maskedGraphIndex,
  prebuildMaskedGraph,
  storedConceptTable,
} from './compactGraph.ts';
export type { CompactGraph, PrebuiltMaskedGraph } from './compactGraph.ts';
export {
  conceptTableGraph,
  conceptTableGraphProblem,
  graphFromConceptTable,
  isConceptTableGraph,
  prebuildTableGraph,
  sameGraphOptions,
} from './conceptTableGraph.ts';
export type { ConceptTableGraph } from './conceptTableGraph.ts';
export {
  addSemanticLayer,
  buildLexicalGraph,
  deserializeGraph,
  lexicalLayers,
  lexicalLayersFromTable,
  serializeGraph,
  withRanks,
  withThetaSem,
} from './conceptGraph.ts';
export type { ConceptGraphIndex, GraphOptions, SerializedGraph } from './conceptGraph.ts';
export type { ConceptGraph } from './cooccurrence.ts';
export { keepMaskFromVectors } from './semanticEdges.ts';
export {
  conceptIndex,
  selectChunkConcepts,
  checkConceptOptions,
  conceptIdf,
  conceptTableFromChunks,
  dfCap,
  sameItems,
  scriptStatistics,
} from './concepts.ts';
export { diceWeight, weightedDegreesFromTable } from './cooccurrence.ts';
export { ConceptVectorBuilder } from './conceptVectors.ts';
export { IncrementalConceptGraph } from './incremental.ts';
export type { IncrementalChunk, IncrementalGraphState } from './incremental.ts';
export type { ConceptTable } from './concepts.ts';
export { pagerank, PersonalizedPageRank, weightedDegrees } from './pagerank.ts';
export type { RowSource, WalkDegrees } from './pagerank.ts';
export { exactDegrees } from './pagerank.ts';
