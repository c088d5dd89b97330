// A library read by ranges (format.ts): written by `cli index --pages`, opened from a file, a dropped File or a URL.
export { PAGES_HASHES_PART, PAGES_PART } from './format.ts';
export type { PagedChunkRecord, PagesDirectory } from './format.ts';
export { PagedLibrary, type PagedAnswer } from './library.ts';
export { openPagedBundle, readManifestByRanges, type PagedBundle } from './openBundle.ts';
export { MemoryRangeSource, type RangeSource } from './rangeSource.ts';
export { pagesParts, writePagedIndex, type PagedDocument } from './write.ts';
