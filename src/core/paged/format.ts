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
// Version 3 drops each chunk's share from the concept lists (60–67 % of the `lists` section, which a question reads
// nearly whole): a share is tf^α / (Σ tf^α · df^(power − 1)), computed from the list's own counts with the two
// parameters the directory keeps (`shares`), as the engine computes it (conceptChunkShares), bit for bit.
// Version 4 lets a library whose rows are small keep its concept lists in its rows (`listsInRows`): each chunk's row
// holds its count of each concept beside the concept's id, the rows are one gzip'd group, and there is no `lists`
// section: a reader inverts the rows into the lists. On a documentation-sized library the walk read every row and
// nearly every block of the lists for a few kilobytes of them (issue 47, docs/results/question-bytes.md, round
// thirteen); a larger library keeps the version 3 layout under version 4 (listsInRows absent).
// From round thirteen a directory of version 3 or later may say its block hashes are read by pages (`hashPages`, HashPages): a
// question reads the pages of `pages.sha256` that hold its blocks' hashes, each checked against a top list in the
// directory, instead of the whole part at opening (941 KB at 100 MiB).
// Version 5 (round fourteen) changes no field: a library that does not keep its lists in its rows (a large one) is
// written in 512-byte blocks with its rows in groups of 2 chunks (write.ts, LARGE_BLOCK_SIZE, DEFAULT_GROUPS), both
// recorded as before in `blockSize` and `groups.rows`: a cold question at 100 MiB read the rows of ~4,700 scattered
// chunks (463 KB) in 5.9 MB of 2 KiB blocks. The number changed so that `cli upgrade` rewrites version 4 parts so.
// Version 6 (round fifteen) adds no field either; two encodings change. `open` keeps its counts, BM25 lengths and
// group sizes as varints (compactOpen.ts, PagesOpenV6): 16 % less of what every visitor reads first at 100 MiB. And the
// one group of rows that keep the lists (listsInRows) holds the lists coded by concept, Rice-coded gaps whose
// parameter follows from `open`'s df, then the counts (listsInRows.ts); the reader inverts them into the rows. A
// documentation-sized library reads that group whole on every question, and it is 17–24 % smaller than version 5's.
// Version 7 (round sixteen) changes no field of `open` and no section of `pages.bin` but its block size, and the
// block hashes. A library that keeps its lists in its rows is written in 1 KiB blocks (write.ts, SMALL_BLOCK_SIZE)
// rather than 2 KiB: a question reads that group and `open` whole and the rest (the dictionaries, postings and
// records) in scattered pieces a few hundred bytes long, each one a block. And `pages.sha256` is a tree of hash pages
// (`hashPages.levels`, hashLevels): pages of 128 bytes of block hashes, then the 16-byte hashes of those pages in
// pages of 512 bytes, a level more while the top list would hold more than MAX_TOP_HASHES, and the top list in the
// directory holds the last level's. At 100 MiB a cold question read 583 KB of 1024-byte hash pages and a 78 KB top
// list; the tree reads ~436 KB.
// Version 8 (round seventeen) lets a section have a block size of its own (`sectionBlocks`, blockLayout.ts): a library
// that does not keep its lists in its rows writes its rows one chunk a group in blocks of their own, small ones: a
// cold question at 100 MiB computes ~481 concept rows from ~4,700 chunk rows (~98 bytes each) scattered over the
// section, each alone in its 512-byte block before. No field of `open` changes. From round eighteen the writers give
// both layouts blocks by section (write.ts sectionBlocksFor); a version 8 part without `sectionBlocks` still reads.
// Version 9 (round eighteen) leaves out of `open` the degree code of every concept in one chunk (df 1: 67 % of the
// concepts at 100 MiB, 74 % on 2Wiki), which a reader computes exactly from that chunk's row, and keeps one bound on
// all of them instead (`singleCode`, PagesOpenV9): the walk reaches such a concept only along a row computed from its
// chunk, whose row it has then (sectionReader.ts, singleDegree). `open` at 100 MiB: 1,511 → ~1,200 KB.
// Version 10 (round nineteen) is shared by changes each gated on a directory field of its own (FORMAT.md "Version
// 10"): `openResiduals`, `open`'s tokens coded as residuals of a slope over the chunks' text lengths and its row group
// sizes less their chunks' concept counts (compactOpen.ts; `open` at 100 MiB: 1,129 → 1,069 KB); `rowBlocks`, the
// rows cut into blocks of whole rows (blockLayout.ts rowBlockStarts): each row's bytes one block, never two, whose
// starts follow from `open`'s row groups.
// Version 11 (round twenty) is shared the same way (FORMAT.md "Version 11"): `openCoding`, six more of `open`'s
// arrays coded from what `open` already holds: four as residuals of a slope, the document sizes one a document, the
// df split into a bitmap of the concepts in one chunk and the others' (compactOpen.ts; `open` at 100 MiB: 1,068 →
// 983 KB).
// Version 12 (round twenty-one) is shared the same way (FORMAT.md "Version 12"): `listCoding`, the concept lists
// packed into blocks with their counts in 4 bits (listPacking.ts), so that `open` holds how many lists start in each
// block (`listStarts`) in place of a size a concept (`listSizes`); `evidenceArrays`, each chunk's tokens out of `open`
// into blocks read by ranges at the end of the records section (evidenceArrays.ts), for a library that does not keep
// its lists in its rows (writerEvidenceEntries). `open` at 100 MiB: 983 → 863 KB (lists) → less again (tokens).
// Version 13 (round twenty-two) is shared the same way (FORMAT.md "Version 13"): `blockPaths`, each block of the rows'
// zone stored followed by the path from its hash to its leaf page's hash (blockPaths.ts), every leaf page's hash the
// Merkle root of its block hashes: a row block is checked with the level-1 page alone, in one range with its bytes
// (at 100 MiB a first page −241 KB of data and −3,300 ranges p50, test/bench/block-paths.ts). The directory's
// sections give where the sections lie without the paths (what every reader asks for); the part is longer by them.
// Version 14 (round twenty-three) is shared the same way (FORMAT.md "Version 14"): `postingsCoding`, each word's
// postings as Rice codes of its gaps and counts (postingsCoding.ts) rather than varint pairs.
// Version 15 (round twenty-four) is shared the same way (FORMAT.md "Version 15"): `rowsCoding`, each chunk's concept
// ids in the rows as Rice codes of their gaps with a parameter computed from the chunk's concept count (rowsCoding.ts)
// rather than varints.
// Version 16 (round twenty-six) is shared the same way (FORMAT.md "Version 16"): `rowsDelimited`, each row starting
// with its concept count (rowsCoding.ts), so `open` keeps per block of rows its first chunk and its bytes in place of
// every chunk's concept count and row size (conceptCounts, rowGroups). A version 16 directory without the field reads
// as version 15 does.
// Version 17 (round twenty-nine) is shared the same way (FORMAT.md "Version 17"): `blockPaths` zones ["lists",
// "rows"], the lists' blocks (128 bytes, ~500 read by a question scattered over 85,931 at 100 MiB) stored followed
// by their paths as the rows' are, so that a question reads no leaf page of the lists' hashes (each a range of its
// own): at 100 MiB −55 KB of hash pages and −390 ranges a question p50 (test/bench/block-paths.ts) for +4.1 MB of
// bundle. A version 17 directory whose blockPaths gives the rows only reads as version 16 does.
// Versions 1 to 17 are read (PAGES_VERSIONS_READ). A directory and an `open` section are checked against each
// other and against the bytes that hold what they count before anything reads by them (checkDirectory, checkOpen).
import { BlockLayout, rowBlockStarts, type ExplicitBlocks } from './blockLayout.ts';
import { PagesError, TOP_HASH_BYTES } from './blockStore.ts';
import { BLOCK_PATHS_VERSION, PATH_BYTES, type BlockPaths } from './blockPaths.ts';
import { leastListBytes } from './listPacking.ts';
import { MAX_STORED_DICTIONARY_BYTES } from './recordCoding.ts';
import type { ScriptChunks } from '../text/index.ts';

export const PAGES_FORMAT = 'conceptrag-pages';
export const PAGES_VERSION = 17;
/**
 * The version the directory's `scriptChunks` came with (word statistics per script, retrieval params
 * scriptStatistics): version 11, beside `openCoding`. Written only by a library built with them.
 */
export const PAGES_SCRIPT_VERSION = 11;
/** The version the directory's `listCoding` came with (the lists packed, listPacking.ts): every writer's from 12. */
export const LIST_CODING_VERSION = 12;
/** The version the directory's `postingsCoding` came with (postingsCoding.ts): every writer's from 14. */
export const POSTINGS_CODING_VERSION = 14;
/** The version the directory's `rowsCoding` came with (rowsCoding.ts): every writer's from 15 (rows without lists). */
export const ROWS_CODING_VERSION = 15;
/** The version the directory's `rowsDelimited` came with (rowsCoding.ts): every writer's from 16 (rows in blocks). */
export const ROWS_DELIMITED_VERSION = 16;
/** The version the lists' paths came with (blockPaths zones ["lists", "rows"]): every writer's from 17. */
export const LIST_PATHS_VERSION = 17;
/** The versions this app reads. */
const PAGES_VERSIONS_READ: readonly number[] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17];
export const PAGES_PART = 'pages.bin';
export const PAGES_HASHES_PART = 'pages.sha256';

/**
 * Bytes of each block's hash in `pages.sha256`: version 3 keeps SHA-256's first 16, versions 1 and 2 all 32.
 * What a block hash guards against is a host or a copy that changed the block after the bundle's head was read: the
 * manifest is checked against the SHA-256 written after it, and `pages.sha256` as a whole against the full SHA-256
 * the manifest gives it (openBundle.ts, pagesHashes), so a changed block must match a hash already fixed. That takes
 * a second preimage, which SHA-256 cut to 128 bits still costs 2^128. A collision (2^64 at 128 bits) needs two
 * blocks chosen together, i.e. the bundle's author, who writes the hashes anyway and could write any block. Half
 * the bytes make a 2048-byte block cost in hashes what a 4096-byte one cost at 32 (docs/results/question-bytes.md).
 */
const BLOCK_HASH_BYTES = 16;
/**
 * Bytes of `pages.sha256` per hash page when the block hashes are read by pages (`hashPages`): 16 hashes of 16 bytes,
 * one page for every 32 KiB of 2 KiB blocks. A question then reads the hash pages of the blocks it reads instead of
 * the whole list at opening (941 KB at 100 MiB, read by every cold question). The blocks of its evidence's records lie
 * scattered over the largest section, most in a page of their own: at 100 MiB, 10 questions, the hashes read before
 * the words' early evidence are 62, 115, 204 and 346 KB p50 for pages of 256, 512, 1024 and 2048 bytes, and 191,
 * 264, 366 and 500 KB for the whole question, for a top list (in the manifest, read at opening) of 59, 29, 15 and 7 KB
 * (docs/results/question-bytes.md, round fourteen). 256 is the least the directory's check lets a page be; before round
 * fourteen pages were 1024 bytes, which every reader still reads.
 */
export const HASH_PAGE_BYTES = 256;
/**
 * The hash page a writer uses for blocks of `blockSize`: one page for every 32 KiB of the part, as HASH_PAGE_BYTES
 * is for 2 KiB blocks. A large library's 512-byte blocks (write.ts, LARGE_BLOCK_SIZE) have four times the hashes: in
 * 256-byte pages their top list, read at every opening, would be four times as long (~316 KB of base64 at 100 MiB).
 */
export function hashPageBytes(blockSize: number): number {
  return Math.max(HASH_PAGE_BYTES, (BLOCK_HASH_BYTES * HASH_PAGE_SPAN) / blockSize);
}
const HASH_PAGE_SPAN = 32 * 1024;
/**
 * Version 7's tree of hash pages (FORMAT.md, "Version 7"): leaf pages of 128 bytes (8 block hashes of 16 bytes), then
 * levels of 512-byte pages (32 hashes of the pages below), a level more while the top list in the directory would
 * hold more than MAX_TOP_HASHES. A question reads the leaf page of each block it reads and the pages above it up to
 * the top list, in the same requests as the blocks. At 100 MiB of text (235,000 blocks of 512 bytes, 25 questions,
 * round sixteen's simulation in docs/results/question-bytes.md) the top list, the opening's hash pages and a cold
 * question's come to ~482 KB with two levels above the leaves (a top list of 29 hashes), 488 with one (918 hashes,
 * 20 KB of base64 in the manifest), against 707 for version 6's one level of 1024-byte pages (a top list of 78 KB);
 * at 1 GiB 2,714 against 4,762, for 2 % of a bundle's bytes more (the levels above the leaves: 485 KB at 100 MiB).
 * Leaves of 256 bytes read 4–19 % more for half the growth; pages of 1024 bytes above them 5 % more.
 */
export const HASH_LEAF_BYTES = 128;
const HASH_UPPER_BYTES = 512;
const MAX_TOP_HASHES = 64;
/** Levels above the leaves a directory may give (each at most 1/8 of the one below: 4 cover 2^50 blocks). */
const MAX_UPPER_LEVELS = 4;
/** The hash page sizes a directory may give: whole hashes, at most 1 MiB (a page is read and hashed whole). */
const HASH_PAGE_MIN = 256;
/** From version 7: leaf pages of 128 bytes (HASH_LEAF_BYTES). */
const HASH_PAGE_MIN_V7 = 128;
const HASH_PAGE_MAX = 1 << 20;

/** Version 12's `evidenceArrays` (evidenceArrays.ts): chunks a block, blocks, and their bytes at the records' end. */
export interface EvidenceArrays {
  entries: number;
  count: number;
  bytes: number;
}
/** The most chunks an evidence block may hold (a block is decoded whole: 2^16 chunks is ~100 KB of varints). */
export const MAX_EVIDENCE_ENTRIES = 1 << 16;
/** The version `evidenceArrays` came with. */
export const PAGES_EVIDENCE_VERSION = 12;
/**
 * The writers' chunks an evidence block: 64 read least at 100 MiB once their hash pages are counted (a first page
 * p50 2,507 KB with 64 or 128, 2,529 with 256, 2,578 with 1,024; docs/results/question-bytes.md, round twenty-one).
 */
const EVIDENCE_ENTRIES = 64;

/**
 * The chunks an evidence block a writer gives a part of `version` when not told: EVIDENCE_ENTRIES for a library that
 * does not keep its lists in its rows; none for one that does, whose whole `open` is 4–33 KB on the small sets and
 * whose first page read more rounds with the blocks (five of six sets: docs-scale 4.00 → 4.40 a question).
 */
export function writerEvidenceEntries(version: number, listsInRows: boolean): number {
  return version >= PAGES_EVIDENCE_VERSION && !listsInRows ? EVIDENCE_ENTRIES : 0;
}

/** Version 10: the least `rowBlocks.size` a directory may give (a row is ~98 bytes at 100 MiB). */
const ROW_BLOCK_MIN = 64;
/** Version 8: the block sizes a directory may give a section (`sectionBlocks`): whole bytes, 128 B to 1 MiB. */
const SECTION_BLOCK_MIN = 128;
const SECTION_BLOCK_MAX = 1 << 20;

/** The hash lengths a directory may give (`hashBytes`): anything else is refused before a hash is read. */
const HASH_BYTES_READ: readonly number[] = [16, 32];

/** The block hash length a writer of pages of this version writes. */
export function blockHashBytes(version: number): number {
  return version >= 3 ? BLOCK_HASH_BYTES : 32;
}

/** The block hash length of a checked directory (absent: 32, as every part before version 3 and the first ones of it). */
export function hashBytesOf(d: Pick<PagesDirectory, 'hashBytes'>): number {
  return d.hashBytes ?? 32;
}

/** The sections of pages.bin (versions 2 and 3), in file order. */
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

/**
 * Bytes a chunk takes in a concept's list at least: a varint chunk gap and a varint tf, and up to version 2 an f32
 * share.
 */
export function minListBytes(version: number): number {
  return version >= 3 ? 2 : 6;
}

/** Version 3: the parameters each concept's shares of its chunks are computed with (RetrievalParams'). */
export interface ShareParams {
  tfSpread: number;
  chunkScorePower: number;
}

/** Where a directory says its block hashes are read by pages (PagesDirectory.hashPages). */
export interface HashPages {
  size: number;
  top: string;
  /**
   * Version 7: the page size of each level above the leaves, lowest first (hashLevels). Each level holds the 16-byte
   * hashes (TOP_HASH_BYTES) of the pages of the one below and follows it in `pages.sha256`; `top` holds the hashes of
   * the last level's pages. Absent or empty: one level, `top` the leaf pages' hashes (versions 3 to 6).
   */
  levels?: number[];
}

/** One level of the tree of hash pages: where it lies in `pages.sha256`, its bytes and its page size. */
export interface HashLevel {
  at: number;
  length: number;
  pageSize: number;
}

/**
 * The levels of `pages.sha256` (leaves first: the block hashes, `leafLength` bytes) for checked hash pages. Each
 * level above holds one 16-byte hash a page of the level below, so it is at most 1/8 of it (pages of 128 bytes at
 * least).
 */
export function hashLevels(leafLength: number, hp: Pick<HashPages, 'size' | 'levels'>): HashLevel[] {
  const levels: HashLevel[] = [{ at: 0, length: leafLength, pageSize: hp.size }];
  let at = leafLength;
  for (const pageSize of hp.levels ?? []) {
    const below = levels[levels.length - 1];
    const length = Math.ceil(below.length / below.pageSize) * TOP_HASH_BYTES;
    levels.push({ at, length, pageSize });
    at += length;
  }
  return levels;
}

/** The bytes of `pages.sha256` a checked directory gives a part of `partLength` bytes (every level of its tree). */
export function hashesPartLength(d: PagesDirectory, partLength: number): number {
  const leaves = blockLayoutOf(d, partLength).count * hashBytesOf(d);
  if (!d.hashPages) return leaves;
  const levels = hashLevels(leaves, d.hashPages);
  const last = levels[levels.length - 1];
  return last.at + last.length;
}

/** The upper levels' page sizes a version 7 writer gives `leafLength` bytes of block hashes (HASH_LEAF_BYTES). */
export function hashLevelsFor(leafLength: number): number[] {
  const levels: number[] = [];
  let pages = Math.ceil(leafLength / HASH_LEAF_BYTES);
  while (pages > MAX_TOP_HASHES && levels.length < MAX_UPPER_LEVELS) {
    levels.push(HASH_UPPER_BYTES);
    pages = Math.ceil((pages * TOP_HASH_BYTES) / HASH_UPPER_BYTES);
  }
  return levels;
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

/**
 * The highest `openResiduals.tokensPerLength`: a BM25 length is below 2^24 as varints (and a float32 holds it
 * exactly), so length × slope stays below 2^48, a whole f64, in every engine.
 */
export const MAX_TOKENS_PER_LENGTH = 2 ** 24;

/** Version 10's directory field `openResiduals` (PagesDirectory). */
export interface OpenResiduals {
  /** The slope of a chunk's tokens over its BM25 text length, in 65,536ths: a whole number 0 to 2^24. */
  tokensPerLength: number;
}

/** The highest slope of version 11's `openCoding` (in 65,536ths, as `openResiduals.tokensPerLength`). */
export const MAX_OPEN_SLOPE = 2 ** 24;

/**
 * Version 11's directory field `openCoding` (PagesDirectory): the slopes, in 65,536ths, of three more of `open`'s
 * arrays over what `open` already holds; each stored as the zigzag varint of its value less floor(x × slope / 65536).
 */
export interface OpenCoding {
  /** A chunk's concept count over its BM25 text length. */
  countsPerLength: number;
  /** A row group's bytes over its chunks' concept counts (in place of version 10's slope of 1). */
  rowBytesPerCount: number;
  /** A record group's bytes over its chunks' BM25 text lengths. */
  recordBytesPerLength: number;
  /**
   * A chunk list's bytes beyond minListBytes·df over df × (bits of the chunk count − bits of df), a bound on its
   * gaps' bits (compactOpen.ts, listBits); 0 when the lists are kept in the rows (there are no list sizes).
   */
  listBytesPerBit: number;
  /**
   * (No slope: with openCoding `open.df` is always split into `dfOnes` and the others' df, PagesOpenV11.)
   * 1 when every document's chunks are consecutive: `documentChunks` is then one size a document (each repeated as
   * many times as it says) and `titleChunks` one zigzag difference to it a document; 0: as version 10.
   */
  documentRuns: number;
}
/** `openCoding`'s keys, in the order the writers give them. */
const OPEN_CODING_KEYS = [
  'countsPerLength',
  'rowBytesPerCount',
  'recordBytesPerLength',
  'listBytesPerBit',
  'documentRuns',
] as const;

/** Version 10's `recordCoding` (PagesDirectory). */
interface RecordCoding {
  dictionary: number;
}

/** The bytes of a directory's `records` section that its groups fill (from version 10 the dictionary follows them). */
export function recordGroupBytes(
  d: Pick<PagesDirectory, 'sections' | 'recordCoding' | 'evidenceArrays'>,
): number {
  // Version 12: the evidence's blocks follow the dictionary (evidenceArrays.ts).
  return d.sections.records[1] - (d.recordCoding?.dictionary ?? 0) - (d.evidenceArrays?.bytes ?? 0);
}

/** The part's meta in the bundle manifest. */
export interface PagesDirectory {
  format: typeof PAGES_FORMAT;
  version: number;
  /** Bytes per checked block (the last one may be shorter). */
  blockSize: number;
  /** Version 3: bytes of each block's hash in `pages.sha256`, SHA-256's first 16 (BLOCK_HASH_BYTES); absent: 32. */
  hashBytes?: number;
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
  /** Version 3: the parameters of the shares, which the lists no longer hold (absent before). */
  shares?: ShareParams;
  /**
   * Version 4: true when the concept lists are kept in the rows (format.ts, top): the rows are one group (groups.rows
   * ≥ chunkCount) of gzip'd varints, each concept id's gap doubled plus 1 when the chunk holds the concept more than
   * once, that count less 2 after it; the `lists` section is empty and `open` has no listSizes. Absent: the lists
   * have their own section and the rows hold the ids alone.
   */
  listsInRows?: boolean;
  /**
   * Version 3, from round thirteen: the block hashes are read by pages of `size` bytes of `pages.sha256`, each checked
   * against its hash in `top` (base64, TOP_HASH_BYTES a page, SHA-256's first 16 bytes), rather than whole at
   * opening. The top list is in the manifest, which is checked whole against its SHA-256. Absent: read whole (a
   * reader that does not know the field reads the same part whole, and it holds the same bytes).
   */
  hashPages?: HashPages;
  /**
   * Version 8: the block size of the sections that have one of their own (blockLayout.ts); the others' is
   * `blockSize`. Absent: every block is `blockSize` from the part's start, as before.
   */
  sectionBlocks?: Partial<Record<SectionName, number>>;
  /**
   * Version 10: `open.tokens` and `open.rowGroups` are coded as residuals (compactOpen.ts): each chunk's tokens less
   * floor(its text length × tokensPerLength / 65536), each row group's size less its chunks' concept counts, as
   * zigzag varints. Absent: as version 9.
   */
  openResiduals?: OpenResiduals;
  /**
   * Version 11: `open.conceptCounts`, `open.rowGroups` and `open.recordGroups` coded as residuals of a slope each
   * (compactOpen.ts, OpenCoding); only beside `openResiduals`, whose tokens it keeps. Absent: as version 10.
   */
  openCoding?: OpenCoding;
  /**
   * Version 10: the rows in blocks of whole rows (blockLayout.ts rowBlockStarts): consecutive row groups packed into
   * blocks of at most `size` bytes (a group longer is a block of its own), `count` of them. Absent: the rows' blocks
   * are their section's block size (`sectionBlocks`, else `blockSize`).
   */
  rowBlocks?: RowBlocks;
  /**
   * Version 10: the records are positional JSON deflated raw with a dictionary (recordCoding.ts); `dictionary` is the
   * stored dictionary's bytes at the end of the `records` section, after the last group (0: none). Absent: gzip'd
   * JSON groups, as before.
   */
  recordCoding?: RecordCoding;
  /**
   * Version 11: the chunks holding a term of each script (src/core/text/scripts.ts), the N of every word's BM25 IDF
   * by its script; the concept table's IDFs were computed the same way when it was built. Absent: one N, the
   * chunkCount, for every word (a library of one script, or built without scriptStatistics).
   */
  scriptChunks?: ScriptChunks;
  /**
   * Version 12: the concept lists packed into blocks of `blockBytes` with their counts in 4 bits (listPacking.ts), and
   * `open.listStarts` (how many lists start in each block) in place of `open.listSizes`; only beside `openCoding`
   * (whose listBytesPerBit is then 0) and without listsInRows. Absent: as version 11.
   */
  listCoding?: ListCoding;
  /**
   * Version 12: each chunk's tokens in blocks read by ranges at the end of the records section (evidenceArrays.ts),
   * not in `open`. Absent: in `open`, as version 11.
   */
  evidenceArrays?: EvidenceArrays;
  /**
   * Version 13: each block of the rows' zone (`rowBlocks`) stored followed by its path (blockPaths.ts), and every
   * leaf page's hash the Merkle root of its block hashes. The sections' offsets are without the paths. Absent: as
   * version 12. Version 17: the blocks holding the lists' bytes too (zones ["lists", "rows"]).
   */
  blockPaths?: BlockPaths;
  /**
   * Version 14: each word's postings as Rice codes (postingsCoding.ts) rather than varint pairs. Absent: as version
   * 13.
   */
  postingsCoding?: PostingsCoding;
  /**
   * Version 15: each chunk's concept ids in the rows as Rice codes of their gaps (rowsCoding.ts) rather than varints;
   * only for rows that do not keep the lists. Absent: as version 14.
   */
  rowsCoding?: RowsCoding;
  /**
   * Version 16: each row starts with its concept count (rowsCoding.ts encodeDelimitedRow), and `open` holds per block
   * of rows (`rowBlocks`) its first chunk and its bytes (`rowBlockFirst`, `rowBlockSpare`) in place of `conceptCounts`
   * and `rowGroups`; only beside `rowsCoding` and `rowBlocks`. Absent: as version 15.
   */
  rowsDelimited?: RowsDelimited;
  /** [offset, length] of each section inside the part. */
  sections: Record<SectionName, [number, number]>;
}

/**
 * Version 11's `scriptChunks`: only from version 11, an object of exactly `other` and `cjk`, each a whole number of
 * chunks 1 to chunkCount (a script with statistics of its own is the main one of some chunks).
 */
function checkScriptChunks(d: PagesDirectory, fail: (why: string) => never): void {
  const s = d.scriptChunks as unknown;
  if (d.version < PAGES_SCRIPT_VERSION) fail(`has scriptChunks, which version ${d.version} does not have`);
  if (!s || typeof s !== 'object' || Array.isArray(s) || Object.keys(s).sort().join() !== 'cjk,other')
    fail('has scriptChunks that are not { other, cjk }');
  for (const key of ['other', 'cjk'] as const) {
    const x = (s as Record<string, unknown>)[key];
    if (!(Number.isSafeInteger(x) && (x as number) >= 1 && (x as number) <= d.chunkCount))
      fail(`has scriptChunks.${key} ${JSON.stringify(x)} (a whole number of chunks, 1 to ${d.chunkCount})`);
  }
}

/** Version 15's `rowsCoding` (the directory's): how a chunk's concept ids are coded in the rows (rowsCoding.ts). */
export interface RowsCoding {
  ids: 'rice';
}

/** Version 15's `rowsCoding`: only from version 15, exactly { ids: "rice" }, for rows that do not keep the lists. */
function checkRowsCoding(d: PagesDirectory, fail: (why: string) => never): void {
  const field = d.rowsCoding as unknown;
  const shown = JSON.stringify(field);
  if (d.version < ROWS_CODING_VERSION) fail(`has rowsCoding, which version ${d.version} does not have`);
  if (
    !field ||
    typeof field !== 'object' ||
    Array.isArray(field) ||
    Object.keys(field).join() !== 'ids' ||
    (field as RowsCoding).ids !== 'rice'
  )
    fail(`has rowsCoding ${shown} (version 15 gives { ids: "rice" })`);
  if (d.listsInRows) fail('has rowsCoding but keeps its lists in its rows (one group coded by concept)');
}

/** Version 16's `rowsDelimited` (the directory's): the order of the Exp-Golomb code of a row's count. */
export interface RowsDelimited {
  countOrder: 5;
}

/**
 * Version 16's `rowsDelimited`: only from version 16, exactly { countOrder: 5 }, beside `rowsCoding` and `rowBlocks`
 * (a reader finds a row from its block's first chunk) and an `openCoding` whose count slopes are 0 (no counts to
 * predict).
 */
function checkRowsDelimited(d: PagesDirectory, fail: (why: string) => never): void {
  const field = d.rowsDelimited as unknown;
  if (d.version < ROWS_DELIMITED_VERSION) fail(`has rowsDelimited, which version ${d.version} does not have`);
  if (
    !field ||
    typeof field !== 'object' ||
    Array.isArray(field) ||
    Object.keys(field).join() !== 'countOrder' ||
    (field as RowsDelimited).countOrder !== 5
  )
    fail(`has rowsDelimited ${JSON.stringify(field)} (version 16 gives { countOrder: 5 })`);
  if (!d.rowsCoding || !d.rowBlocks) fail('has rowsDelimited without rowsCoding and rowBlocks');
  if (!d.openCoding || d.openCoding.countsPerLength !== 0 || d.openCoding.rowBytesPerCount !== 0)
    fail('has rowsDelimited without an openCoding whose countsPerLength and rowBytesPerCount are 0');
}

/** Version 14's `postingsCoding` (the directory's): how a word's postings are coded (postingsCoding.ts). */
export interface PostingsCoding {
  lists: 'rice';
}

/** Version 14's `postingsCoding`: only from version 14, exactly { lists: "rice" }. */
function checkPostingsCoding(d: PagesDirectory, fail: (why: string) => never): void {
  const field = d.postingsCoding as unknown;
  const shown = JSON.stringify(field);
  if (d.version < POSTINGS_CODING_VERSION)
    fail(`has postingsCoding, which version ${d.version} does not have`);
  if (
    !field ||
    typeof field !== 'object' ||
    Array.isArray(field) ||
    Object.keys(field).join() !== 'lists' ||
    (field as PostingsCoding).lists !== 'rice'
  )
    fail(`has postingsCoding ${shown} (version 14 gives { lists: "rice" })`);
}

/** Version 12's `listCoding` (the directory's): the bytes of the blocks the lists are packed into. */
export interface ListCoding {
  blockBytes: number;
}
/** The blocks a directory's `listCoding` may pack the lists into: whole bytes, 16 B to 64 KiB. */
const LIST_BLOCK_MIN = 16;
const LIST_BLOCK_MAX = 65536;

/**
 * Version 12's `listCoding`: only from version 12, beside `openCoding` (listBytesPerBit 0: there are no list sizes)
 * and with a lists section (not listsInRows), an object of exactly `blockBytes`, a whole number 16 to 65,536.
 * Checked before `open` is read: the block count `open.listStarts` must have follows from it.
 */
function checkListCoding(d: PagesDirectory, fail: (why: string) => never): void {
  const coding = d.listCoding as unknown;
  if (d.version < 12) fail(`has listCoding, which version ${d.version} does not have`);
  if (
    !coding ||
    typeof coding !== 'object' ||
    Array.isArray(coding) ||
    Object.keys(coding).join() !== 'blockBytes'
  )
    fail('has listCoding that is not { blockBytes }');
  const bytes = (coding as ListCoding).blockBytes;
  if (!(Number.isSafeInteger(bytes) && bytes >= LIST_BLOCK_MIN && bytes <= LIST_BLOCK_MAX))
    fail(
      `has listCoding.blockBytes ${String(bytes)} (a whole number ${LIST_BLOCK_MIN} to ${LIST_BLOCK_MAX})`,
    );
  if (d.listsInRows) fail('has listCoding but keeps its lists in its rows');
  if (d.openCoding === undefined) fail('has listCoding without openCoding');
  if (d.openCoding.listBytesPerBit !== 0)
    fail('has openCoding.listBytesPerBit beside listCoding (0: its lists have no sizes in open)');
}

/** Version 10's `openResiduals`: only from version 10, an object with one key, a slope 0 to 2^24. */
function checkOpenResiduals(d: PagesDirectory, fail: (why: string) => never): void {
  const r = d.openResiduals as unknown;
  if (d.version < 10) fail(`has openResiduals, which version ${d.version} does not have`);
  if (!r || typeof r !== 'object' || Array.isArray(r) || Object.keys(r).join() !== 'tokensPerLength')
    fail('has openResiduals that are not { tokensPerLength }');
  const slope = (r as OpenResiduals).tokensPerLength;
  if (!(Number.isSafeInteger(slope) && slope >= 0 && slope <= MAX_TOKENS_PER_LENGTH))
    fail(`has openResiduals.tokensPerLength ${String(slope)} (a whole number 0 to 2^24)`);
}

/**
 * Version 11's `openCoding`: only from version 11 and beside `openResiduals`, an object of exactly OPEN_CODING_KEYS,
 * each a whole number 0 to 2^24. Checked before `open` is read, so no slope of another kind reaches a product.
 */
function checkOpenCoding(d: PagesDirectory, fail: (why: string) => never): void {
  const coding = d.openCoding as unknown;
  if (d.version < 11) fail(`has openCoding, which version ${d.version} does not have`);
  if (
    !coding ||
    typeof coding !== 'object' ||
    Array.isArray(coding) ||
    Object.keys(coding).sort().join() !== [...OPEN_CODING_KEYS].sort().join()
  )
    fail(`has openCoding that is not { ${OPEN_CODING_KEYS.join(', ')} }`);
  if (d.openResiduals === undefined) fail('has openCoding without openResiduals');
  for (const key of OPEN_CODING_KEYS) {
    const slope = (coding as Record<string, unknown>)[key];
    if (!(Number.isSafeInteger(slope) && (slope as number) >= 0 && (slope as number) <= MAX_OPEN_SLOPE))
      fail(`has openCoding.${key} ${String(slope)} (a whole number 0 to 2^24)`);
  }
  const runs = (coding as OpenCoding).documentRuns;
  if (runs !== 0 && runs !== 1) fail(`has openCoding.documentRuns ${String(runs)} (0 or 1)`);
  if (d.listsInRows && (coding as OpenCoding).listBytesPerBit !== 0)
    fail('has openCoding.listBytesPerBit but keeps its lists in its rows (0 or nothing)');
}

/** Version 10's blocks of whole rows (the directory's `rowBlocks`). */
export interface RowBlocks {
  /** The most bytes of rows a block holds, unless it holds one group alone (ROW_BLOCK_MIN to SECTION_BLOCK_MAX). */
  size: number;
  /** The blocks the rows section is cut into (what rowBlockStarts gives for `open`'s rowGroups). */
  count: number;
}

/**
 * Where the blocks of a checked directory's part of `partLength` bytes lie: every `blockSize` bytes from the part's
 * start, or from version 8 zone by zone, a section with a block size of its own (`sectionBlocks`) in blocks of that.
 * From version 10 the rows may be blocks of whole rows (`rowBlocks`): their starts follow from `rowGroups` (checked
 * by checkOpen), given by a writer; a reader gives them once `open` is read (placeRowBlocks), and until then the
 * layout counts the rows' blocks (the directory's count) without placing them.
 */
export function blockLayoutOf(
  d: Pick<
    PagesDirectory,
    'version' | 'blockSize' | 'sectionBlocks' | 'sections' | 'rowBlocks' | 'evidenceArrays' | 'blockPaths'
  >,
  partLength: number,
  rowGroups?: ArrayLike<number>,
  /** Version 12: where each evidence block starts (a writer's; a reader places them once `open` is read). */
  evidenceStarts?: ArrayLike<number>,
): BlockLayout {
  const own = d.sectionBlocks;
  const rows = d.rowBlocks;
  const evidence = d.evidenceArrays;
  if (!own && !rows && !evidence) return BlockLayout.uniform(partLength, d.blockSize);
  const layout = new BlockLayout(
    sectionsOf(d.version).flatMap((name): Array<readonly [number, number | ExplicitBlocks, string?]> =>
      name === 'rows' && rows
        ? [
            [
              d.sections.rows[1],
              { count: rows.count, starts: rowGroups && rowStartsOf('the writer', rows, rowGroups) },
            ] as const,
          ]
        : name === 'records' && evidence
          ? // Version 12: each evidence block one checked block of its own, after the records and their dictionary.
            [
              [d.sections.records[1] - evidence.bytes, own?.records ?? d.blockSize] as const,
              [
                evidence.bytes,
                {
                  count: evidence.count,
                  key: 'evidence',
                  starts: evidenceStarts && Array.from(evidenceStarts).slice(0, evidence.count),
                },
              ] as const,
            ]
          : [[d.sections[name][1], own?.[name] ?? d.blockSize, name] as const],
    ),
    d.blockSize,
  );
  // Version 13: the rows' blocks each followed by its path in the part (blockPaths.ts); version 17's lists' too.
  // (A directory not checked yet, as a bench's or a test's hostile case builds one: any field but the lists' is the rows'.)
  const zones: unknown = d.blockPaths?.zones;
  const lists = Array.isArray(zones) && zones.includes('lists');
  return d.blockPaths ? layout.withPaths(lists ? ['lists', 'rows'] : ['rows'], PATH_BYTES) : layout;
}

/** Version 12: places the evidence's blocks where `open`'s evidenceStarts say (checked by expandOpen). */
export function placeEvidenceBlocks(
  d: PagesDirectory,
  layout: BlockLayout,
  starts: ArrayLike<number> | undefined,
): void {
  if (d.evidenceArrays && starts)
    layout.place(Array.from(starts).slice(0, d.evidenceArrays.count), 'evidence');
}

/** The starts of the rows' blocks for checked row groups, refused naming `rowBlocks` when their count is not its. */
function rowStartsOf(name: string, rows: RowBlocks, rowGroups: ArrayLike<number>): number[] {
  const starts = rowBlockStarts(rowGroups, rows.size);
  if (starts.length !== rows.count)
    throw new PagesError(
      `${name}: the pages part's directory has rowBlocks.count ${rows.count}, but open's row groups make ` +
        `${starts.length} blocks of at most ${rows.size} bytes`,
    );
  return starts;
}

/**
 * Places a reader's blocks of whole rows (version 10's `rowBlocks`) once `open` is read and checked (checkOpen: its
 * row groups ascend from 0 to the rows section's length): refused, naming `rowBlocks`, when they make another count
 * of blocks than the directory's, which the hashes part and its tree were checked against.
 */
export function placeRowBlocks(
  name: string,
  d: PagesDirectory,
  layout: BlockLayout,
  rowGroups: ArrayLike<number>,
): void {
  if (d.rowBlocks) layout.place(rowStartsOf(name, d.rowBlocks, rowGroups));
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
  /**
   * Per concept, varints: its chunk list's bytes minus minListBytes·df (each chunk takes at least 1 + 1 + 4 bytes,
   * from version 3 1 + 1). Absent when version 4 keeps the lists in the rows (listsInRows).
   */
  listSizes?: Uint8Array;
}

/**
 * What a version 6 `open` holds: version 2's value with the per-chunk and per-concept counts (conceptCounts, tokens,
 * documentChunks, titleChunks, df) as varints, the BM25 lengths as varints when each is a whole number up to 2^24
 * (else f32 as before), and each group's size in bytes (varints) in place of the groups' offsets.
 */
export interface PagesOpenV6 extends Omit<
  PagesOpenV2,
  | 'conceptCounts'
  | 'tokens'
  | 'documentChunks'
  | 'titleChunks'
  | 'df'
  | 'textLengths'
  | 'headingLengths'
  | 'recordGroups'
  | 'termGroups'
  | 'conceptGroups'
  | 'rowGroups'
> {
  conceptCounts: Uint8Array;
  tokens: Uint8Array;
  documentChunks: Uint8Array;
  titleChunks?: Uint8Array;
  df: Uint8Array;
  textLengths: Uint8Array | Float32Array;
  headingLengths: Uint8Array | Float32Array;
  recordGroups: Uint8Array;
  termGroups: Uint8Array;
  conceptGroups: Uint8Array;
  rowGroups: Uint8Array;
}

/**
 * What a version 9 `open` holds: version 6's value, but `degreeCodes` only for the concepts whose df is not 1, in
 * concept order, and one code above every left-out one's.
 */
export interface PagesOpenV9 extends PagesOpenV6 {
  /**
   * The highest degree code (compactOpen.ts, degreeCode) of a concept in one chunk (df 1), 0 when there is none: such
   * a concept's walk degree is at most degreeUpper(singleCode). A reader computes the degree itself from the chunk's
   * row (SectionReader, singleDegree); until that row is read the bound is all it has.
   */
  singleCode: number;
}

/**
 * What a version 11 `open` with `openCoding` holds: version 9's value, five arrays coded smaller (OpenCoding), and
 * `df` split in two: `dfOnes`, one bit a concept (bit c % 8 of byte ⌊c / 8⌋) set when the concept is in one chunk,
 * and `df` the varints of the others' df alone, in concept order.
 */
export interface PagesOpenV11 extends PagesOpenV9 {
  dfOnes: Uint8Array;
}

/** The `open` arrays a library reads, whatever the version (compactOpen.ts, expandOpen). */
export interface OpenTables extends Omit<PagesOpenV1, 'degrees' | 'conceptCounts'> {
  /** Per chunk: its concept count; absent from version 16's `rowsDelimited` (each row holds its own). */
  conceptCounts?: Uint32Array;
  /**
   * Version 16's `rowsDelimited`: each row block's first chunk, the chunk count at [blocks]; `rowGroups` are then the
   * row blocks' byte offsets (one more than the blocks), not the row groups'.
   */
  rowBlockFirsts?: Uint32Array;
  /** Version 1: the exact degrees; version 2: undefined (degreeCodes, and the `degrees` section). */
  degrees?: Float64Array;
  /** Version 2 on, one a concept; from version 9 0 for a concept in one chunk (df 1), whose code is not stored. */
  degreeCodes?: Uint8Array;
  /** Version 9: the bound on the walk degree of a concept in one chunk (PagesOpenV9); absent before. */
  singleCode?: number;
  /**
   * Version 12's listCoding: every block's first concept (listPacking.ts listFirstsOf), the concept count at [blocks];
   * `listOffsets` is then empty (a list's offset is read from its block, not summed at open).
   */
  listFirsts?: Uint32Array;
  /**
   * Version 12's `evidenceArrays`: where each evidence block starts in them (one more than the blocks); `tokens` is
   * then empty (SectionReader reads it by block).
   */
  evidenceStarts?: Float64Array;
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

/**
 * Checks a directory read from a bundle's manifest before anything is read by it. A version 1 directory comes back
 * with an empty `degrees` section at the part's end (its degrees are in `open`).
 */
export function checkDirectory(value: unknown, partLength: number): PagesDirectory {
  const d = value as PagesDirectory;
  const fail = (why: string): never => {
    throw new PagesError(`the pages part's directory ${why}`);
  };
  if (!d || typeof d !== 'object' || d.format !== PAGES_FORMAT) fail('is missing or of another format');
  if (!PAGES_VERSIONS_READ.includes(d.version))
    fail(
      `has version ${String(d.version)} (this app reads ${PAGES_VERSIONS_READ.slice(0, -1).join(', ')} and ` +
        `${PAGES_VERSIONS_READ[PAGES_VERSIONS_READ.length - 1]})`,
    );
  const counts = [d.blockSize, d.chunkCount, d.conceptCount, d.termCount, d.headingCopies, d.thetaCo];
  if (!counts.every((x) => Number.isSafeInteger(x) && x >= 0) || d.blockSize < 512) fail('has a bad count');
  if (d.hashBytes !== undefined && !HASH_BYTES_READ.includes(d.hashBytes))
    fail(
      `has block hashes of ${String(d.hashBytes)} bytes in ${PAGES_HASHES_PART} (this app reads 16 and 32)`,
    );
  if (d.analyzer !== undefined && !(Number.isSafeInteger(d.analyzer) && d.analyzer >= 1))
    fail(`has a bad analyzer version ${String(d.analyzer)}`);
  const g = d.groups;
  if (!g || ![g.records, g.terms, g.concepts, g.rows].every((x) => Number.isSafeInteger(x) && x > 0))
    fail('has bad group sizes');
  let end = 0;
  for (const name of sectionsOf(d.version)) {
    const s = d.sections?.[name];
    if (!Array.isArray(s) || s[0] !== end || !(Number.isSafeInteger(s[1]) && s[1] >= 0))
      fail(`has a bad section ${name}`);
    end += s[1];
  }
  if (d.sectionBlocks !== undefined) checkSectionBlocks(d, fail);
  if (d.rowBlocks !== undefined) checkRowBlocks(d, fail);
  // Before the hash pages: their check counts the blocks, which the evidence's field says the number of.
  if (d.evidenceArrays !== undefined) checkEvidenceArrays(d, fail);
  // Version 13's paths lie in the part after their blocks, outside the sections' offsets.
  if (d.blockPaths !== undefined) checkBlockPaths(d, fail);
  // The blocks with paths counted as a reader lays them out (version 17's lists' by their block size).
  const paths = d.blockPaths ? blockLayoutOf(d, partLength).pathsLength : 0;
  if (end + paths !== partLength)
    fail(`covers ${end} bytes${paths ? ` and ${paths} of paths` : ''} of a ${partLength}-byte part`);
  if (d.hashPages !== undefined) checkHashPages(d, partLength, fail);
  if (d.openResiduals !== undefined) checkOpenResiduals(d, fail);
  if (d.openCoding !== undefined) checkOpenCoding(d, fail);
  if (d.recordCoding !== undefined) checkRecordCoding(d, fail);
  if (d.scriptChunks !== undefined) checkScriptChunks(d, fail);
  if (d.listCoding !== undefined) checkListCoding(d, fail);
  if (d.postingsCoding !== undefined) checkPostingsCoding(d, fail);
  if (d.rowsCoding !== undefined) checkRowsCoding(d, fail);
  if (d.rowsDelimited !== undefined) checkRowsDelimited(d, fail);
  if (d.version === 1) return { ...d, sections: { ...d.sections, degrees: [end, 0] } };
  if (d.version >= 3) {
    const sp = d.shares;
    if (
      !sp ||
      typeof sp !== 'object' ||
      !Number.isFinite(sp.tfSpread) ||
      !Number.isFinite(sp.chunkScorePower)
    )
      fail('has bad share parameters (version 3 computes the shares with them)');
  }
  if (d.sections.degrees[1] !== d.conceptCount * 8) fail('has a degrees section of the wrong length');
  if (d.listsInRows !== undefined) {
    if (d.listsInRows !== true || d.version < 4)
      fail(`has listsInRows ${String(d.listsInRows)} (version 4 writes true or nothing)`);
    if (d.sections.lists[1] !== 0)
      fail(`keeps its lists in its rows but has a ${d.sections.lists[1]}-byte lists section`);
    if (d.groups.rows < d.chunkCount)
      fail(
        `keeps its lists in its rows but groups them ${d.groups.rows} chunks a group, not all ${d.chunkCount} in one`,
      );
  }
  return d;
}

/**
 * Version 10's `recordCoding`: an object (only from version 10) whose `dictionary` is a whole number of bytes, at most
 * MAX_STORED_DICTIONARY_BYTES and at most the `records` section.
 */
function checkRecordCoding(d: PagesDirectory, fail: (why: string) => never): void {
  const coding = d.recordCoding as unknown;
  if (d.version < 10 || typeof coding !== 'object' || coding === null || Array.isArray(coding))
    fail(`has recordCoding ${JSON.stringify(coding)} (version 10 gives an object { dictionary })`);
  const bytes = (coding as { dictionary?: unknown }).dictionary;
  if (
    !Number.isSafeInteger(bytes) ||
    (bytes as number) < 0 ||
    (bytes as number) > MAX_STORED_DICTIONARY_BYTES ||
    (bytes as number) > d.sections.records[1]
  )
    fail(
      `has recordCoding.dictionary ${JSON.stringify(bytes)} (a whole number of bytes up to ` +
        `${MAX_STORED_DICTIONARY_BYTES} and the records section's ${d.sections.records[1]})`,
    );
}

/**
 * The directory's field against the part: only from version 12, with `openCoding` (its residuals are coded over its
 * slopes); exactly { entries, count, bytes }; `entries` a multiple of the chunks a record group holds, up to
 * MAX_EVIDENCE_ENTRIES; `count` the blocks the chunks make; `bytes` at least a byte a block and within the records
 * section after its dictionary. Checked before the layout counts blocks by it.
 */
function checkEvidenceArrays(d: PagesDirectory, fail: (why: string) => never): void {
  const field = d.evidenceArrays as unknown;
  const shown = JSON.stringify(field);
  if (d.version < PAGES_EVIDENCE_VERSION || !field || typeof field !== 'object' || Array.isArray(field))
    fail(`has evidenceArrays ${shown} (version 12 gives an object { entries, count, bytes })`);
  if (d.openResiduals === undefined)
    fail('has evidenceArrays without openResiduals (its tokens are coded over their slope)');
  const { entries, count, bytes, ...rest } = field as Record<string, unknown>;
  if (Object.keys(rest).length > 0)
    fail(`has evidenceArrays ${shown} (version 12 gives only entries, count, bytes)`);
  if (!(
    Number.isSafeInteger(entries) &&
    (entries as number) >= 1 &&
    (entries as number) <= MAX_EVIDENCE_ENTRIES
  ))
    fail(`has evidenceArrays.entries ${String(entries)} (1 to ${MAX_EVIDENCE_ENTRIES} chunks a block)`);
  const blocks = Math.ceil(d.chunkCount / (entries as number));
  if (count !== blocks)
    fail(
      `has evidenceArrays.count ${String(count)} for ${d.chunkCount} chunks of ${String(entries)} a block`,
    );
  const room = d.sections.records[1] - (d.recordCoding?.dictionary ?? 0);
  if (!(Number.isSafeInteger(bytes) && (bytes as number) >= blocks && (bytes as number) <= room))
    fail(
      `has evidenceArrays.bytes ${String(bytes)} (a byte a block at least, at most the records section's ${room} ` +
        'after its dictionary)',
    );
}

/**
 * Version 13's `blockPaths`: only from version 13, exactly { zones: ['rows'] }, or from version 17 { zones: ['lists',
 * 'rows'] } over a lists section of at least a byte (the lists' blocks lie just before the rows', one run of blocks
 * with paths), beside `rowBlocks` (the zone whose blocks carry paths) and hash pages of 16-byte hashes in leaf pages
 * of HASH_LEAF_BYTES (a path is the 3 siblings of a leaf page of 8). Checked before the part's length is counted with
 * the paths.
 */
function checkBlockPaths(d: PagesDirectory, fail: (why: string) => never): void {
  const field = d.blockPaths as unknown;
  const shown = JSON.stringify(field);
  if (d.version < BLOCK_PATHS_VERSION || !field || typeof field !== 'object' || Array.isArray(field))
    fail(`has blockPaths ${shown} (version 13 gives an object { zones: ["rows"] })`);
  const { zones, ...rest } = field as Record<string, unknown>;
  const rowsOnly = Array.isArray(zones) && zones.length === 1 && zones[0] === 'rows';
  const withLists =
    d.version >= LIST_PATHS_VERSION &&
    Array.isArray(zones) &&
    zones.length === 2 &&
    zones[0] === 'lists' &&
    zones[1] === 'rows';
  if (Object.keys(rest).length > 0 || !(rowsOnly || withLists))
    fail(
      `has blockPaths ${shown} (version 13 gives only zones: ["rows"]` +
        `${d.version >= LIST_PATHS_VERSION ? ', version 17 also ["lists", "rows"]' : ''})`,
    );
  if (d.rowBlocks === undefined) fail('has blockPaths but no rowBlocks (the rows carry the paths)');
  if (withLists && !(d.sections.lists[1] > 0))
    fail('has blockPaths zones ["lists", "rows"] but an empty lists section (no list block to carry a path)');
  if (hashBytesOf(d) !== TOP_HASH_BYTES || d.hashPages?.size !== HASH_LEAF_BYTES)
    fail(
      `has blockPaths with hashes of ${String(d.hashBytes)} bytes in pages of ${String(d.hashPages?.size)} ` +
        `(a path is 3 siblings of 16 bytes: ${TOP_HASH_BYTES}-byte hashes in pages of ${HASH_LEAF_BYTES})`,
    );
}

/**
 * Version 8's block sizes by section: an object of own keys that name sections, each a whole number of bytes from
 * SECTION_BLOCK_MIN to SECTION_BLOCK_MAX (checked before blockLayoutOf cuts the part by them).
 */
function checkSectionBlocks(d: PagesDirectory, fail: (why: string) => never): void {
  const own = d.sectionBlocks as unknown;
  if (d.version < 8 || !own || typeof own !== 'object' || Array.isArray(own))
    fail(`has sectionBlocks ${JSON.stringify(own)} (version 8 gives an object of block sizes by section)`);
  const names: readonly string[] = sectionsOf(d.version);
  for (const [name, size] of Object.entries(own as Record<string, unknown>)) {
    if (!names.includes(name)) fail(`has sectionBlocks for ${JSON.stringify(name)}, which is no section`);
    if (!(
      Number.isSafeInteger(size) &&
      (size as number) >= SECTION_BLOCK_MIN &&
      (size as number) <= SECTION_BLOCK_MAX
    ))
      fail(
        `has sectionBlocks.${name} ${String(size)} (a block size of ${SECTION_BLOCK_MIN} B to ${SECTION_BLOCK_MAX} B)`,
      );
  }
}

/**
 * Version 10's blocks of whole rows: an object of exactly `size` (ROW_BLOCK_MIN to SECTION_BLOCK_MAX bytes) and
 * `count` (at most one block a byte of the rows section, none for an empty one, one at least for another), only from
 * version 10, for rows that do not keep the lists (listsInRows) and have no block size of their own in
 * `sectionBlocks`. Checked before blockLayoutOf counts blocks by it (the hashes part and its tree are checked against
 * that count); `open`'s row groups are checked against it once read (placeRowBlocks).
 */
function checkRowBlocks(d: PagesDirectory, fail: (why: string) => never): void {
  const rows = d.rowBlocks as unknown;
  const shown = JSON.stringify(rows);
  if (d.version < 10 || !rows || typeof rows !== 'object' || Array.isArray(rows))
    fail(`has rowBlocks ${shown} (version 10 gives an object { size, count })`);
  if (d.listsInRows) fail('has rowBlocks but keeps its lists in its rows (one group, read whole)');
  const { size, count, ...rest } = rows as Record<string, unknown>;
  if (Object.keys(rest).length > 0) fail(`has rowBlocks ${shown} (version 10 gives only size and count)`);
  if (!(
    Number.isSafeInteger(size) &&
    (size as number) >= ROW_BLOCK_MIN &&
    (size as number) <= SECTION_BLOCK_MAX
  ))
    fail(
      `has rowBlocks.size ${String(size)} (blocks of whole rows of ${ROW_BLOCK_MIN} B to ${SECTION_BLOCK_MAX} B)`,
    );
  const length = d.sections.rows[1];
  if (!(Number.isSafeInteger(count) && (count as number) >= 0 && (count as number) <= length))
    fail(
      `has rowBlocks.count ${String(count)} for a ${length}-byte rows section (a block holds a byte at least)`,
    );
  if ((count === 0) !== (length === 0))
    fail(`has rowBlocks.count ${String(count)} for a ${length}-byte rows section`);
  if (d.sectionBlocks?.rows !== undefined)
    fail(
      `has rowBlocks and sectionBlocks.rows ${String(d.sectionBlocks.rows)} (the rows' blocks are one or the other)`,
    );
}

/**
 * A directory's hash pages against the part: only from version 3; a page size of whole hashes within bounds; a top
 * list in base64 of exactly TOP_HASH_BYTES for each page of the part's hashes.
 */
function checkHashPages(d: PagesDirectory, partLength: number, fail: (why: string) => never): void {
  const hp = d.hashPages;
  if (d.version < 3 || !hp || typeof hp !== 'object') fail('has hash pages it cannot have');
  const hashBytes = hashBytesOf(d);
  const min = d.version >= 7 ? HASH_PAGE_MIN_V7 : HASH_PAGE_MIN;
  const pageSizeOk = (size: unknown, of: number): boolean =>
    Number.isSafeInteger(size) &&
    (size as number) >= min &&
    (size as number) <= HASH_PAGE_MAX &&
    (size as number) % of === 0;
  if (!pageSizeOk(hp!.size, hashBytes))
    fail(`has hash pages of ${String(hp!.size)} bytes (whole ${hashBytes}-byte hashes, ${min} B to 1 MiB)`);
  // Version 7's levels above the leaves: few, each of whole 16-byte hashes, checked before hashLevels loops on them.
  if (hp!.levels !== undefined) {
    const levels = hp!.levels as unknown;
    if (d.version < 7 || !Array.isArray(levels) || levels.length > MAX_UPPER_LEVELS)
      fail(`has hash page levels ${JSON.stringify(levels)} (version 7 gives at most ${MAX_UPPER_LEVELS})`);
    for (const size of levels as unknown[])
      if (!pageSizeOk(size, TOP_HASH_BYTES))
        fail(`has a level of hash pages of ${String(size)} bytes (whole 16-byte hashes, ${min} B to 1 MiB)`);
  }
  const levels = hashLevels(blockLayoutOf(d, partLength).count * hashBytes, hp!);
  const last = levels[levels.length - 1];
  const pages = Math.ceil(last.length / last.pageSize);
  const expected = Math.ceil((pages * TOP_HASH_BYTES) / 3) * 4;
  if (
    typeof hp!.top !== 'string' ||
    hp!.top.length !== expected ||
    decodeTop(hp!.top)?.length !== pages * TOP_HASH_BYTES
  )
    fail(`has a top list of hash pages that is not ${pages} hashes in base64`);
}

/** The top list's bytes (base64), or undefined when it is not base64. */
export function decodeTop(top: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(top) || top.length % 4 !== 0) return undefined;
  const binary = atob(top);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Bytes as base64 (the top list of hash pages in a directory). */
export function encodeTop(bytes: Uint8Array): string {
  let binary = '';
  // In pieces: String.fromCharCode takes its arguments on the stack (a 1 GiB library's top list is ~150 KB).
  for (let i = 0; i < bytes.length; i += 8192) binary += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return btoa(binary);
}

/** No concept counts (version 16's rowsDelimited: each row holds its own). */
const EMPTY_COUNTS = new Uint32Array(0);

/**
 * The `open` arrays of a pages part checked against its directory before anything reads by them (a library's
 * open, and `cli upgrade`): each array's length, the counts against the bytes that hold what they count, the group
 * and list offsets as byte offsets that ascend and cover their sections, the degrees finite. `name` names the source.
 */
export function checkOpen(name: string, d: PagesDirectory, open: OpenTables): void {
  const n = d.chunkCount;
  const nc = d.conceptCount;
  // Version 12's evidenceArrays: no tokens in `open` (each block is checked as it is decoded).
  const evidence = d.evidenceArrays !== undefined;
  // Version 16's rowsDelimited: no concept counts, and `rowGroups` the row blocks' offsets (expandOpen).
  const delimited = d.rowsDelimited !== undefined;
  const sized: Array<[string, { length: number } | undefined, number]> = [
    ['textLengths', open.textLengths, n],
    ['headingLengths', open.headingLengths, n],
    ['conceptCounts', delimited ? (open.conceptCounts ?? []) : open.conceptCounts, delimited ? 0 : n],
    ['tokens', open.tokens, evidence ? 0 : n],
    ['documentChunks', open.documentChunks, n],
    ['df', open.df, nc],
    ['idf', open.idf, nc],
    [d.version === 1 ? 'degrees' : 'degreeCodes', open.degrees ?? open.degreeCodes, nc],
    ...(d.listCoding ? [] : [['listOffsets', open.listOffsets, nc + 1] as [string, Float64Array, number]]),
    ['recordGroups', open.recordGroups, Math.ceil(n / d.groups.records) + 1],
    ['evidenceStarts', open.evidenceStarts ?? [], evidence ? d.evidenceArrays!.count + 1 : 0],
    ['termGroups', open.termGroups, Math.ceil(d.termCount / d.groups.terms) + 1],
    ['conceptGroups', open.conceptGroups, Math.ceil(nc / d.groups.concepts) + 1],
    ['rowGroups', open.rowGroups, delimited ? d.rowBlocks!.count + 1 : Math.ceil(n / d.groups.rows) + 1],
    ['rowBlockFirsts', open.rowBlockFirsts ?? [], delimited ? d.rowBlocks!.count + 1 : 0],
    ['termFirst', open.termFirst, Math.ceil(d.termCount / d.groups.terms)],
    ['conceptFirst', open.conceptFirst, Math.ceil(nc / d.groups.concepts)],
  ];
  for (const [array, value, expected] of sized) {
    if (!value || value.length !== expected)
      throw new PagesError(
        `${name}: pages.bin (open) has ${value?.length ?? 'no'} ${array}, expected ${expected}`,
      );
  }
  checkOpenCounts(name, d, open);
  if (open.degrees && !open.degrees.every((x) => x >= 0 && x < Infinity))
    throw new PagesError(`${name}: pages.bin (open) has a walk degree that is not a finite number ≥ 0`);
  const ends: Array<[string, Float64Array, number]> = [
    ['recordGroups', open.recordGroups, recordGroupBytes(d)],
    ['termGroups', open.termGroups, d.sections.terms[1]],
    ['conceptGroups', open.conceptGroups, d.sections.concepts[1]],
    ['rowGroups', open.rowGroups, d.sections.rows[1]],
    ...(d.listCoding
      ? []
      : [['listOffsets', open.listOffsets, d.sections.lists[1]] as [string, Float64Array, number]]),
  ];
  for (const [array, offsets, end] of ends) {
    for (let i = 0; i < offsets.length; i++)
      if (!Number.isSafeInteger(offsets[i]) || (i > 0 && !(offsets[i] >= offsets[i - 1])))
        throw new PagesError(`${name}: pages.bin ${array} go backwards or are not byte offsets`);
    if (offsets[0] !== 0 || offsets[offsets.length - 1] !== end)
      throw new PagesError(`${name}: pages.bin ${array} do not cover their section`);
  }
}

/**
 * The per-chunk and per-concept counts of `open` against the bytes that hold what they count, before any of them
 * drives a loop or an allocation: every concept id a chunk row names is a varint of at least one byte (a bit from
 * version 15), every chunk of
 * a concept's list at least minListBytes; a chunk names at most every concept once.
 */
function checkOpenCounts(name: string, d: PagesDirectory, open: OpenTables): void {
  const fail = (why: string): never => {
    throw new PagesError(`${name}: pages.bin (open) ${why}`);
  };
  let ids = 0;
  const counts = open.conceptCounts ?? EMPTY_COUNTS;
  for (let k = 0; k < counts.length; k++) {
    const count = counts[k];
    if (count > d.conceptCount) fail(`gives chunk ${k} ${count} concepts of ${d.conceptCount}`);
    ids += count;
  }
  // Each id is a varint of at least one byte, from version 15 (rowsCoding) a Rice code of one bit at least; gzip'd rows
  // (listsInRows) hold at most what gzipSize lets them inflate to.
  const rows = d.sections.rows[1];
  const rowBytes = d.listsInRows ? rows * 64 + (1 << 20) : d.rowsCoding ? rows * 8 : rows;
  if (ids > rowBytes)
    fail(`gives the chunks ${ids} concepts, more than the ${d.sections.rows[1]}-byte rows section holds`);
  let listed = 0;
  for (let c = 0; c < open.df.length; c++) {
    if (open.df[c] > d.chunkCount) fail(`gives concept ${c} ${open.df[c]} chunks of ${d.chunkCount}`);
    listed += open.df[c];
  }
  // Lists kept in the rows: every chunk of a concept's list is one id of a row, so both count the same links.
  if (d.listsInRows) {
    if (listed !== ids) fail(`gives the concepts ${listed} chunks but the chunks ${ids} concepts`);
  } else if (d.listCoding) {
    let least = 0;
    for (let c = 0; c < open.df.length; c++) least += leastListBytes(open.df[c]);
    if (least > d.sections.lists[1])
      fail(
        `gives the concepts ${listed} chunks, more than the ${d.sections.lists[1]}-byte lists section holds`,
      );
  } else if (listed * minListBytes(d.version) > d.sections.lists[1])
    fail(
      `gives the concepts ${listed} chunks, more than the ${d.sections.lists[1]}-byte lists section holds`,
    );
  for (const key of ['termFirst', 'conceptFirst'] as const)
    if (!open[key].every((t) => typeof t === 'string')) fail(`has a ${key} that is not a string`);
  for (const key of ['textLengths', 'headingLengths', 'idf'] as const)
    if (!open[key].every((x) => Number.isFinite(x) && x >= 0)) fail(`has ${key} that are not numbers ≥ 0`);
  for (let k = 0; k < open.documentChunks.length; k++)
    if (open.documentChunks[k] > d.chunkCount || open.documentChunks[k] < 1)
      fail(`gives chunk ${k} a document of ${open.documentChunks[k]} chunks`);
  if (open.titleChunks) {
    if (open.titleChunks.length !== d.chunkCount)
      fail(`has ${open.titleChunks.length} titleChunks, expected ${d.chunkCount}`);
    for (let k = 0; k < open.titleChunks.length; k++)
      if (open.titleChunks[k] > d.chunkCount || open.titleChunks[k] < open.documentChunks[k])
        fail(`gives chunk ${k} a title of ${open.titleChunks[k]} chunks`);
  }
}
