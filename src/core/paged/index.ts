// A library read by ranges (format.ts): written by `cli index --pages`, opened from a file, a dropped File or a URL.
export { PagedLibrary, type CardsWanted, type PagedAnswer, type PagesLocation } from './library.ts';
export { buildOrder, conceptNeighbourhood } from './degreeRanks.ts';
export {
  buildPages,
  ConceptCandidates,
  duration,
  labelledRecords,
  pagesDocument,
  pagesRecords,
  type PagesDocument,
  type PagesSourceInput,
  type SectionSpool,
  type SpoolSink,
} from './build.ts';
export { PhaseClock } from './phaseClock.ts';
export { recordChunk, recordSentences } from './recordEvidence.ts';
export { openPagedBundle, readManifestByRanges, type PagedBundle } from './openBundle.ts';
export { verifyBundleCopy } from './verifyCopy.ts';
export { MemoryRangeSource, ROUND_TRIP_GAP, type RangeSource } from './rangeSource.ts';
export {
  DEFAULT_BLOCK_SIZE,
  DEFAULT_GROUPS,
  LARGE_BLOCK_SIZE,
  pagesParts,
  writePagedIndex,
} from './write.ts';
export { upgradeBundleParts } from './upgrade.ts';
export {
  blockLayoutOf,
  PAGES_HASHES_PART,
  PAGES_PART,
  SECTIONS,
  type GroupSizes,
  type PagedChunkRecord,
  type PagesDirectory,
  type SectionName,
} from './format.ts';
// Chunk records stored elsewhere (the themes record's passages, graphRepo.ts) are checked as a pages group is.
export { checkRecordGroup } from './groupShapes.ts';
