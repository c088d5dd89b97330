// A library read by ranges: the lexical layer of an index laid out so that a question reads only the bytes it needs
// (the bundle part `pages.bin`, described in src/core/bundle/FORMAT.md, "Pages"). The part is a run of sections; a
// reader first fetches `open` (what every question reads: per-chunk lengths, per-concept degrees, where each group
// starts), then, per question, the dictionary groups of its words, their postings, the chunk lists of the concepts
// its walk reaches, the chunk rows those lists name, and the records of the chunks it shows. Every byte is read in
// blocks of `blockSize`, each checked against its SHA-256 in the part `pages.sha256` before it is used.

export const PAGES_FORMAT = 'conceptrag-pages';
export const PAGES_VERSION = 1;
export const PAGES_PART = 'pages.bin';
export const PAGES_HASHES_PART = 'pages.sha256';

/** The sections of pages.bin, in file order. */
export const SECTIONS = ['open', 'records', 'terms', 'postings', 'concepts', 'lists', 'rows'] as const;
export type SectionName = (typeof SECTIONS)[number];

/** Items per group of the grouped sections. */
export interface GroupSizes {
  /** Chunk records per gzip'd JSON group. */
  records: number;
  /** Word dictionary entries per group. */
  terms: number;
  /** Concept dictionary entries per group. */
  concepts: number;
  /** Chunk rows (a chunk's concept ids) per group. */
  rows: number;
}

/** The part's meta in the bundle manifest. */
export interface PagesDirectory {
  format: typeof PAGES_FORMAT;
  version: number;
  /** Bytes per checked block (the last one may be shorter). */
  blockSize: number;
  chunkCount: number;
  conceptCount: number;
  termCount: number;
  /** BM25F's heading copies (0: the default mode's words are BM25 over the text alone). */
  headingCopies: number;
  /** θco the walk graph was built with (its rows are recomputed from the concept table with it). */
  thetaCo: number;
  groups: GroupSizes;
  /** [offset, length] of each section inside the part. */
  sections: Record<SectionName, [number, number]>;
}

/** What `open` holds: a structured value (src/core/bundle/codecs.ts), gzip'd. */
export interface PagesOpen {
  /** Per chunk: BM25 length of its text, of its heading path, its concept count, cl100k tokens, its document's chunks. */
  textLengths: Float32Array;
  headingLengths: Float32Array;
  conceptCounts: Uint32Array;
  tokens: Uint32Array;
  documentChunks: Uint32Array;
  /** Per concept: chunks holding it, IDF, weighted degree in the walk graph, where its chunk list starts in `lists`. */
  df: Uint32Array;
  idf: Float32Array;
  degrees: Float64Array;
  listOffsets: Float64Array;
  /** Byte offset (in its section) of every group, plus the section's end. */
  recordGroups: Float64Array;
  termGroups: Float64Array;
  conceptGroups: Float64Array;
  rowGroups: Float64Array;
  /** First key of every dictionary group (binary search picks the group a word is in). */
  termFirst: string[];
  conceptFirst: string[];
}

/** A chunk as the evidence and the Ask view read it. */
export interface PagedChunkRecord {
  id: string;
  docId: string;
  /** Its document's title, and the document's page starts (PDFs). */
  title: string;
  pageStarts?: number[];
  text: string;
  tokens: number;
  /** Character offset of the chunk in its document. */
  start: number;
  path?: string[];
  pageStart?: number;
  pageEnd?: number;
  /** Its sentences as [start, end] pairs of document offsets, flattened. */
  sentences: number[];
}

/** A word dictionary entry: [term, text postings offset, bytes, heading postings offset, bytes]. */
export type TermEntry = [string, number, number, number, number];
