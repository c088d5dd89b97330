// A library read by ranges (format.ts): written by `cli index --pages`, opened from a file, a dropped File or a URL.
export { PagedLibrary } from './library.ts';
export { openPagedBundle, readManifestByRanges, type PagedBundle } from './openBundle.ts';
export { type RangeSource } from './rangeSource.ts';
export { PAGES_PART } from './format.ts';
export { pagesParts, writePagedIndex } from './write.ts';
