// A library read by ranges: the lexical layer of an index laid out so that a question reads only the bytes it needs
// (the bundle part `pages.bin`, described in src/core/bundle/FORMAT.md, "Pages"). The part is a run of sections; a
// reader first fetches `open` (what every question reads: per-chunk lengths, per-concept degrees, where each group
// starts), then, per question, the dictionary groups of its words, their postings, the chunk lists of the concepts
// its walk reaches, the chunk rows those lists name, and the records of the chunks it shows. Every byte is read in
// blocks of `blockSize`, each checked against its SHA-256 in the part `pages.sha256` before it is used.
//
// Version 2 keeps `open` small (compactOpen.ts): a one-byte bound of each concept's walk degree instead of the f64
// (the exact degrees move to a section of their own, read for the few concepts whose bound cannot decide a step of
// the walk), list sizes as varints instead of f64 offsets, and no IDF (it follows from a df stored beside it).
// Version 1 pages are still read (PAGES_VERSIONS_READ).

export const PAGES_FORMAT = 'conceptrag-pages';
export const PAGES_VERSION = 2;
/** The versions this app reads. */
export const PAGES_VERSIONS_READ: readonly number[] = [1, 2];
export const PAGES_PART = 'pages.bin';
export const PAGES_HASHES_PART = 'pages.sha256';

/** The sections of pages.bin (version 2), in file order. */
export const SECTIONS = [
  'open',
  'records',
  'terms',
  'postings',
  'concepts',
  'lists',
  'rows',
  'degrees',
] as const;
export type SectionName = (typeof SECTIONS)[number];
/** The sections of a version 1 pages.bin (no `degrees`: they were in `open`). */
const SECTIONS_V1: readonly SectionName[] = SECTIONS.slice(0, 7);

/** The sections of a pages part of the given version, in file order. */
export function sectionsOf(version: number): readonly SectionName[] {
  return version === 1 ? SECTIONS_V1 : SECTIONS;
}

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
  /**
   * The text analyser version the word index was built with (src/core/text/analyzer.ts); a question is analysed
   * the same way. Absent in parts written before stemming: version 1.
   */
  analyzer?: number;
  groups: GroupSizes;
  /** [offset, length] of each section inside the part. */
  sections: Record<SectionName, [number, number]>;
}

/** What a version 1 `open` holds: a structured value (src/core/bundle/codecs.ts), gzip'd. */
export interface PagesOpenV1 {
  /** Per chunk: BM25 length of its text, of its heading path, its concept count, cl100k tokens, its document's chunks. */
  textLengths: Float32Array;
  headingLengths: Float32Array;
  conceptCounts: Uint32Array;
  tokens: Uint32Array;
  documentChunks: Uint32Array;
  /**
   * Per chunk: the chunks of its document or of the documents sharing its title, if more (the question blend's
   * unit, retrieval/questionBlend.ts). Absent in parts written before it: the blend reads documentChunks then.
   */
  titleChunks?: Uint32Array;
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

/**
 * What a version 2 `open` holds (gzip'd structured value): version 1's per-chunk arrays, df, group offsets and
 * first keys, and in place of its idf, degrees and listOffsets (compactOpen.ts):
 */
export interface PagesOpenV2 extends Omit<PagesOpenV1, 'idf' | 'degrees' | 'listOffsets'> {
  /** Per concept, varints: the df its IDF was computed with (over the chunks it is a candidate in) minus df. */
  idfDf?: Uint8Array;
  /** Per concept, the IDF itself (f32), only when idfDf cannot give it exactly. */
  idf?: Float32Array;
  /** Per concept, one byte: 0 for no edge, else the bracket of its walk degree (compactOpen.ts, degreeBounds). */
  degreeCodes: Uint8Array;
  /** Per concept, varints: its chunk list's bytes minus 6·df (each chunk takes at least 1 + 1 + 4 bytes). */
  listSizes: Uint8Array;
}

/** The `open` arrays a library reads, whatever the version (compactOpen.ts, expandOpen). */
export interface OpenTables extends Omit<PagesOpenV1, 'degrees'> {
  /** Version 1: the exact degrees; version 2: undefined (degreeCodes, and the `degrees` section). */
  degrees?: Float64Array;
  degreeCodes?: Uint8Array;
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
