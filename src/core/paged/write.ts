// Writes an engine's lexical layer as a library read by ranges (format.ts): the part `pages.bin` and the SHA-256 of
// each of its blocks (`pages.sha256`). Every number a question reads is stored as the engine holds it (Float32
// lengths and shares, Float64 degrees, the table's Float32 IDF, or what gives it exactly: compactOpen.ts), so the
// paged library ranks exactly as the engine.
// The sections are written by pieces that take their input item by item and put their bytes into a sink: the
// in-memory writer (writePagedIndex) keeps them in arrays, the streaming build of `cli index --stream`
// (src/cli/streamIndex.ts) in temporary files, so both write the same bytes.
import { encodeStructured } from '../bundle/index.ts';
import type { BundlePart } from '../bundle/index.ts';
import { gzip } from '../bundle/index.ts';
import { encodeRiceLists } from './listsInRows.ts';
import {
  codeRecords,
  deflateWithLength,
  dictionarySize,
  TRAIN_GROUPS,
  trainDictionary,
} from './recordCoding.ts';
import { Sha256 } from '../bundle/index.ts';
import type { ConceptTable } from '../graph/index.ts';
import type { LexicalParts } from '../retrieval/index.ts';
import { conceptChunkTf, titleGroupSizes } from '../retrieval/index.ts';
import type { RetrievalChunkInput } from '../retrieval/index.ts';
import { TOP_HASH_BYTES } from './blockStore.ts';
import { ByteWriter } from './bytes.ts';
import { encodePostings } from './postingsCoding.ts';
import { encodeDelimitedRow, encodeRow, ROW_COUNT_ORDER } from './rowsCoding.ts';
import { delimitedOpen } from './rowBlockIndex.ts';
import { LIST_BLOCK_BYTES, ListPacker } from './listPacking.ts';
import { compactOpen } from './compactOpen.ts';
import { evidenceBlocksOf } from './evidenceArrays.ts';
import { rowBlockStarts, type BlockLayout } from './blockLayout.ts';
import {
  BLOCK_PATHS_VERSION,
  leafRootsOf,
  PATH_BYTES,
  storedPieces,
  storedPiecesAsync,
  type BlockPaths,
} from './blockPaths.ts';
import {
  blockHashBytes,
  blockLayoutOf,
  decodeTop,
  encodeTop,
  HASH_LEAF_BYTES,
  HASH_PAGE_BYTES,
  hashLevels,
  hashLevelsFor,
  hashPageBytes,
  type HashPages,
  PAGES_FORMAT,
  PAGES_HASHES_PART,
  PAGES_PART,
  LIST_CODING_VERSION,
  POSTINGS_CODING_VERSION,
  type PostingsCoding,
  ROWS_CODING_VERSION,
  type RowsCoding,
  ROWS_DELIMITED_VERSION,
  LIST_PATHS_VERSION,
  type RowsDelimited,
  PAGES_EVIDENCE_VERSION,
  writerEvidenceEntries,
  PAGES_SCRIPT_VERSION,
  PAGES_VERSION,
  SECTIONS,
  sectionsOf,
  type EvidenceArrays,
  type GroupSizes,
  type PagedChunkRecord,
  type ListCoding,
  type OpenCoding,
  type OpenResiduals,
  type PagesDirectory,
  type PagesOpenV1,
  type PagesOpenV2,
  type PagesOpenV6,
  type RowBlocks,
  type SectionName,
  type ShareParams,
  type TermEntry,
} from './format.ts';

/**
 * 2 KiB: a question reads many small scattered pieces (concept lists, rows), and with no gap read between them (a
 * file, memory, a host answering several ranges a request) smaller blocks read less: a cold question reads 7–18 %
 * fewer bytes than at 4 KiB on the four documentation-sized sets (1 KiB: 12–31 %). Each block costs a hash read
 * whole at opening; at 16 bytes a hash (pages version 3) 2 KiB costs what 4 KiB cost at 32, so the bundle and the
 * opening at 100 MiB are no larger than before, where 1 KiB would open with twice the hashes (docs/results/
 * question-bytes.md, round twelve, second part). With 16 KiB blocks the first question of a 41 MB mixed library read
 * 5.7 MB instead of 3.1 MB.
 */
export const DEFAULT_BLOCK_SIZE = 2 * 1024;

/**
 * 512 B: the block size of a library that does not keep its lists in its rows (version 5), when the writer is not
 * told one. At 100 MiB a cold question reads the rows of ~4,700 chunks scattered over the rows section (463 KB of
 * rows), each in a block of its own: 5.9 MB of the rows' 2 KiB blocks, 2.4 MB of 512-byte ones with rows in groups of
 * 2; the other sections' scattered reads shrink too, and the hash pages a question reads grow (264 → 646 KB). A cold
 * question reads ~41 % less for a bundle ~2.5 % larger (docs/results/question-bytes.md, round fourteen). A library
 * that keeps its lists in its rows reads its rows whole, so it keeps DEFAULT_BLOCK_SIZE (and its bundle size).
 */
export const LARGE_BLOCK_SIZE = 512;

/**
 * 1 KiB: the block size of a library that keeps its lists in its rows (version 7), when the writer is not told one.
 * Such a library reads its rows and `open` whole; the rest of a question is scattered pieces of a few hundred bytes
 * (a dictionary group of 128 concepts is ~700 bytes gzip'd, a posting list tens), each costing a block: a cold
 * question's first page reads 11–13 % less on 2Wiki and docs-scale (305 → 271 KB, 393 → 359 KB, after the first page
 * named only its read cards' concepts) for a bundle 0.4–0.5 % larger (twice the block hashes; a question reads the
 * hash pages of its blocks: 8 → 16 KB on 2Wiki). docs/results/question-bytes.md, round sixteen.
 */
const SMALL_BLOCK_SIZE = 1024;

/** The block size a writer of `version` uses when not told one (LARGE_BLOCK_SIZE, SMALL_BLOCK_SIZE, above). */
export function defaultBlockSize(version: number, listsInRows: boolean): number {
  if (version >= 5 && !listsInRows) return LARGE_BLOCK_SIZE;
  return version >= 7 ? SMALL_BLOCK_SIZE : DEFAULT_BLOCK_SIZE;
}

/**
 * Items per group of the grouped sections when a writer is not told (`cli index --group-sizes`): the directory holds
 * the sizes a part was written with, so a reader reads any, and older parts keep theirs (an upgrade copies them).
 * Measured in round twelve (docs/results/question-bytes.md): records 4 (8 before) — the shown chunks' records are
 * scattered, so each drags in its whole group: a cold question read 2–8 % fewer bytes on four sets, for a bundle
 * 1.5–2.2 % larger; rows 8 (32 before) — the walk reads the rows of scattered chunks at 100 MiB: 2.4 % fewer bytes
 * there, for a few KB more of group offsets in `open`; rows 2 from round fourteen (version 5), with 512-byte blocks
 * (LARGE_BLOCK_SIZE): 2,445 KB of rows blocks a cold question at 100 MiB against 3,565 at 8, for 84 KB more of
 * group offsets in `open` (groups of 1: 2,228 KB, 185 KB more). Rows 1 from round seventeen (version 8), in blocks of
 * their own (ROWS_BLOCK_SIZE): a chunk's row alone is read with no neighbour. A library that keeps its lists in its
 * rows has one group of rows whatever this says. The dictionaries' sizes moved nothing past block noise.
 */
export const DEFAULT_GROUPS: Readonly<GroupSizes> = { records: 4, terms: 128, concepts: 128, rows: 1 };

/** The group sizes a writer of `version` uses when not told (rows in groups of 2 in versions 5 to 7). */
function defaultGroups(version: number): Readonly<GroupSizes> {
  return version >= 5 && version < 8 ? { ...DEFAULT_GROUPS, rows: 2 } : DEFAULT_GROUPS;
}

/**
 * Version 8: the block sizes by section (the directory's `sectionBlocks`) of a library that does not keep its lists in
 * its rows, when the writer is not told a block size; the other sections keep LARGE_BLOCK_SIZE. Measured at 100 MiB
 * (25 cold questions, the Ask view's first page; docs/results/question-bytes.md, round seventeen):
 * - `rows` 128: a cold question computes ~481 concept rows from the rows of ~4,700 chunks (~98 bytes each) scattered
 *   over the section, each alone in a 512-byte block before. Rows in blocks of 256: first page p50 4,731 → 3,938 KB
 *   for a bundle +323 KB; of 128: 3,654 KB for +888 KB (the rows' blocks read 2,521 → 1,498 → 1,029 KB, their leaf
 *   pages of hashes grow: 439 → 585 → 770 KB a question);
 * - `open` 64 KiB: read whole at every opening, so its 2,875 hashes of 512-byte blocks were 46 KB of the opening for
 *   nothing; in 24 blocks 0.4 KB;
 * - `records` and `postings` 1 KiB: a group of 4 records is ~2.4 KB gzip'd and a word's postings are read whole, so a
 *   block of 1 KiB reads little more of them (+20 KB a first page) and halves their hashes (−1.55 MB of bundle), and
 *   the leaf pages a question reads for them (−61 KB); in 2 KiB blocks (round eighteen) the bundle is 0.9 MB smaller
 *   but a later question reads 65 KB more (p50 547 → 612 KB);
 * - `lists` 128 (round eighteen): a question reads ~35 KB of concept lists of tens of bytes each, scattered: in
 *   512-byte blocks 224 KB of them, in 128-byte ones 84 KB (+75 KB of their hashes' leaf pages): first page p50
 *   3,613 → 3,502 KB, a later question 622 → 547 KB (lists 156 → 69 KB), for +1,173 KB of bundle; in 256-byte blocks
 *   3,527 and 572 KB for +391 KB. The dictionaries (`terms`, `concepts`) in 128-byte blocks too: −8 KB a first page,
 *   −6 KB a later question, for +0.74 MB of bundle: not kept;
 * - `degrees` 4 KiB: no question reads them (the Graph view does, 8 bytes a concept): −146 KB of hashes.
 */
const SECTION_BLOCKS: Readonly<Partial<Record<SectionName, number>>> = {
  open: 64 * 1024,
  records: 1024,
  postings: 1024,
  lists: LIST_BLOCK_BYTES,
  rows: 128,
  degrees: 4096,
};

/**
 * Version 8 (round eighteen): the block sizes by section of a library that keeps its lists in its rows, when the writer
 * is not told a block size; `records` keeps SMALL_BLOCK_SIZE. Such a library reads `open` and its one group of rows
 * whole, and of its dictionaries and postings a few scattered pieces of tens to hundreds of bytes, each a 1 KiB block
 * before (a question on Vue's docs read 26 KB of postings for 5 it asked). Measured on the six small sets (the Ask
 * view's first page, 10–25 cold questions each; docs/results/question-bytes.md, round eighteen):
 * - `terms`, `postings`, `concepts` 256: first page p50 −7 to −17 % (Vue 190 → 163 KB, Rust 196 → 163, 2Wiki 266 →
 *   242), bundles +5 to +58 KB (0.8–1.1 %); in 128-byte blocks 1–2 KB less again for twice the bundle's growth;
 * - `open` and `rows` 64 KiB, read whole: their hashes a few blocks' instead of one a KiB;
 * - `degrees` 4 KiB: no question reads them (the Graph view does, 8 bytes a concept).
 */
const SMALL_SECTION_BLOCKS: Readonly<Partial<Record<SectionName, number>>> = {
  open: 64 * 1024,
  terms: 256,
  postings: 256,
  concepts: 256,
  rows: 64 * 1024,
  degrees: 4096,
};

/**
 * The sections a writer of `version` gives a block size of their own when not told a block size (SECTION_BLOCKS, or
 * SMALL_SECTION_BLOCKS for a library that keeps its lists in its rows). From version 10 a library that does not keep
 * its lists in its rows has its rows in blocks of whole rows instead (rowBlocksFor), so no block size of theirs.
 */
export function sectionBlocksFor(
  version: number,
  listsInRows: boolean,
): Partial<Record<SectionName, number>> | undefined {
  if (version < 8) return undefined;
  if (listsInRows) return { ...SMALL_SECTION_BLOCKS };
  const { rows, ...others } = SECTION_BLOCKS;
  return version >= 10 ? others : { ...others, rows };
}

/**
 * Version 10: the most bytes of rows in a block of whole rows (the directory's `rowBlocks.size`). At 100 MiB a cold
 * question reads the rows of ~4,700 chunks (~98 bytes each, 502 KB) scattered over the section: in version 8's
 * 128-byte blocks a row straddled two blocks about half the time (1,028 KB of rows read). The Ask view's first page,
 * p50 (docs/results/question-bytes.md, round nineteen): main 3,115 KB; whole rows of at most 128 bytes 2,697 (rows
 * 559, hashes 779 → 811) for +250 KB of bundle; 192: 2,791 (−164 KB of bundle); 256: 2,920 (−406 KB).
 */
export const ROW_BLOCK_BYTES = 128;

/**
 * Version 10: the rows' blocks of whole rows a writer gives a library that does not keep its lists in its rows, when
 * it gives its sections block sizes (sectionBlocksFor) but none to the rows: the directory's `rowBlocks` and where
 * each block starts in the rows section (blockLayout.ts rowBlockStarts, from the row groups' byte offsets).
 */
export function rowBlocksFor(
  version: number,
  listsInRows: boolean,
  sectionBlocks: Partial<Record<SectionName, number>> | undefined,
  rowGroups: ArrayLike<number>,
  size = ROW_BLOCK_BYTES,
): RowBlocks | undefined {
  if (version < 10 || listsInRows || !sectionBlocks || sectionBlocks.rows !== undefined || size === 0)
    return undefined;
  return { size, count: rowBlockStarts(rowGroups, size).length };
}

/**
 * Version 16's `rowsDelimited` for a part of `version` whose rows are in blocks of whole rows (`rowBlocks`, which a
 * part that keeps its lists in its rows has not): every such writer's from 16.
 */
export function rowsDelimitedFor(
  version: number,
  rowBlocks: RowBlocks | undefined,
): RowsDelimited | undefined {
  return version >= ROWS_DELIMITED_VERSION && rowBlocks ? { countOrder: ROW_COUNT_ORDER } : undefined;
}

/**
 * Whether a writer of `version` delimits the rows it writes before it knows their groups (writeConceptSections):
 * when rows that do not keep the lists would be in blocks of whole rows (rowBlocksFor, rowsDelimitedFor).
 */
export function delimitsRows(
  version: number,
  sectionBlocks: Partial<Record<SectionName, number>> | undefined,
  size = ROW_BLOCK_BYTES,
): boolean {
  return rowsDelimitedFor(version, rowBlocksFor(version, false, sectionBlocks, [0], size)) !== undefined;
}

/**
 * The blocks a writer hashes: every `blockSize` bytes, or from version 8 by section, from version 10 the rows in
 * blocks of whole rows cut at `rowGroups` (blockLayout.ts).
 */
export function writtenBlocks(
  version: number,
  blockSize: number,
  sections: Record<SectionName, [number, number]>,
  sectionBlocks: Partial<Record<SectionName, number>> | undefined,
  length: number,
  rowBlocks?: { rows: RowBlocks; rowGroups: ArrayLike<number> },
  /** Version 12: the evidence's blocks (evidenceArrays.ts), each one block of the part. */
  evidence?: { blocks: readonly Uint8Array[]; field: EvidenceArrays },
): number | BlockLayout {
  if (!sectionBlocks && !rowBlocks && !evidence) return blockSize;
  const starts: number[] = [];
  let at = 0;
  for (const block of evidence?.blocks ?? []) {
    starts.push(at);
    at += block.length;
  }
  return blockLayoutOf(
    {
      version,
      blockSize,
      sections,
      sectionBlocks,
      rowBlocks: rowBlocks?.rows,
      ...(evidence ? { evidenceArrays: evidence.field } : {}),
    },
    length,
    rowBlocks?.rowGroups,
    starts,
  );
}

/**
 * The most gzip'd bytes of rows with counts that a writer keeps the concept lists in (version 4's listsInRows,
 * format.ts): every question then reads the rows whole. On the documentation-sized sets the walk read every row
 * anyway and most of the lists' blocks for a few kilobytes of them: a cold question reads 5–26 % less and the bundle
 * is 12–240 KB smaller (docs-scale's rows are 190 KB gzip'd). At 100 MiB a question reads half the rows, which are
 * megabytes: the lists keep their own section there. Between the two it was not measured.
 */
export const LISTS_IN_ROWS_BYTES = 512 * 1024;

export interface PagedDocument {
  title: string;
  pageStarts?: number[];
}

export interface WrittenPages {
  data: Uint8Array;
  /** The bytes of `pages.sha256`: the block hashes, and from version 7 the levels of hash pages above them. */
  hashes: Uint8Array;
  directory: PagesDirectory;
}

/** Where a section's bytes go, in order; `length` is what was written so far (offsets are relative to it). */
export interface SectionSink {
  readonly length: number;
  write(bytes: Uint8Array): Promise<void> | void;
}

/** A sink that keeps the bytes in memory. */
export class MemorySink implements SectionSink {
  readonly chunks: Uint8Array[] = [];
  length = 0;
  write(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.length += bytes.length;
  }
}

const encoder = new TextEncoder();
const json = (value: unknown): Promise<Uint8Array> => gzip(encoder.encode(JSON.stringify(value)));

/** A chunk's record as the evidence reads it, from the layout's chunk, its document and its sentences' offsets. */
export function pagedRecord(
  c: RetrievalChunkInput,
  doc: PagedDocument,
  sentences: number[],
): PagedChunkRecord {
  return {
    id: c.id,
    docId: c.docId,
    title: doc.title,
    ...(doc.pageStarts ? { pageStarts: doc.pageStarts } : {}),
    text: c.text,
    tokens: c.tokens,
    start: c.start,
    ...(c.path ? { path: [...c.path] } : {}),
    ...(c.pageStart !== undefined ? { pageStart: c.pageStart, pageEnd: c.pageEnd } : {}),
    sentences,
  };
}

/**
 * The `records` section: records in chunk order, `size` to a group. Before version 10 each group is gzip'd JSON; from
 * version 10 (`coded`) positional JSON deflated raw with a dictionary (recordCoding.ts) trained from the first
 * TRAIN_GROUPS groups, which are held back until it is made, and written after the last group.
 */
export class RecordGroupWriter {
  private pending: PagedChunkRecord[] = [];
  private readonly offsets: number[] = [0];
  /** Version 10: the coded groups held back until the dictionary is trained from them. */
  private held: Uint8Array[] | undefined;
  private dictionary: Uint8Array | undefined;

  constructor(
    private readonly sink: SectionSink,
    private readonly size = DEFAULT_GROUPS.records,
    private readonly coded = false,
  ) {
    if (coded) this.held = [];
  }

  async add(record: PagedChunkRecord): Promise<void> {
    this.pending.push(record);
    if (this.pending.length === this.size) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const group = this.pending;
    this.pending = [];
    if (!this.coded) {
      await this.write(await json(group));
      return;
    }
    const coded = codeRecords(group);
    if (this.held) {
      this.held.push(coded);
      if (this.held.length === TRAIN_GROUPS) await this.train();
      return;
    }
    await this.write(deflateWithLength(coded, this.dictionary));
  }

  private async write(bytes: Uint8Array): Promise<void> {
    await this.sink.write(bytes);
    this.offsets.push(this.sink.length);
  }

  /** The dictionary from the groups held back, then those groups deflated with it. */
  private async train(): Promise<void> {
    const held = this.held!;
    this.held = undefined;
    let bytes = 0;
    for (const g of held) bytes += g.length;
    this.dictionary = trainDictionary(held, dictionarySize(bytes));
    for (const g of held) await this.write(deflateWithLength(g, this.dictionary));
  }

  /**
   * Each group's start in the section, plus the end of the last group; from version 10 `dictionary`, the stored
   * dictionary's bytes written after the last group (0: none).
   */
  async finish(): Promise<{ offsets: Float64Array; dictionary: number }> {
    await this.flush();
    if (this.held) await this.train();
    const offsets = Float64Array.from(this.offsets);
    if (!this.coded || !this.dictionary || this.dictionary.length === 0) return { offsets, dictionary: 0 };
    const stored = deflateWithLength(this.dictionary);
    await this.sink.write(stored);
    return { offsets, dictionary: stored.length };
  }
}

/** A term's postings as the word indexes hold them: ascending chunk numbers and the term's count in each. */
export interface PostingList {
  chunks: Uint32Array;
  freqs: Uint16Array;
}

/** Version 14's `postingsCoding` for a part of `version` (every writer's from 14), else undefined. */
export function postingsCodingFor(version: number): PostingsCoding | undefined {
  return version >= POSTINGS_CODING_VERSION ? { lists: 'rice' } : undefined;
}

/** Version 15's `rowsCoding` for a part of `version` whose rows do not keep the lists (every such writer's from 15). */
export function rowsCodingFor(version: number, listsInRows: boolean): RowsCoding | undefined {
  return version >= ROWS_CODING_VERSION && !listsInRows ? { ids: 'rice' } : undefined;
}

/**
 * The `terms` and `postings` sections: a sorted dictionary over the text's and the headings' terms, postings as
 * varint (chunk delta, tf), or from version 14 (`coding`) as Rice codes (postingsCoding.ts). `postingsOf` gives a
 * term's text and heading lists. Returns the term groups' offsets.
 */
export async function writeTermSections(
  terms: readonly string[],
  postingsOf: (term: string) => [PostingList | undefined, PostingList | undefined],
  termSink: SectionSink,
  postingSink: SectionSink,
  size = DEFAULT_GROUPS.terms,
  coding?: PostingsCoding,
): Promise<Float64Array> {
  const postings = new ByteWriter();
  let flushed = postingSink.length;
  const writeList = (list: PostingList | undefined): [number, number] => {
    // An empty list is written as none (the upgrade of an old part may meet one; the indexes give none).
    if (!list || list.chunks.length === 0) return [0, 0];
    const from = flushed + postings.length;
    if (coding) encodePostings(postings, list.chunks, list.freqs);
    else {
      let previous = 0;
      for (let i = 0; i < list.chunks.length; i++) {
        postings.varint(list.chunks[i] - previous);
        previous = list.chunks[i];
        postings.varint(list.freqs[i]);
      }
    }
    return [from, flushed + postings.length - from];
  };
  const offsets = new Float64Array(Math.ceil(terms.length / size) + 1);
  const base = termSink.length;
  for (let g = 0; g * size < terms.length; g++) {
    const entries: TermEntry[] = [];
    for (let i = g * size; i < Math.min(terms.length, (g + 1) * size); i++) {
      const [text, head] = postingsOf(terms[i]);
      const [textAt, textBytes] = writeList(text);
      const [headAt, headBytes] = writeList(head);
      entries.push([terms[i], textAt, textBytes, headAt, headBytes]);
    }
    await termSink.write(await json(entries));
    offsets[g + 1] = termSink.length - base;
    // Postings leave memory a group at a time (a gigabyte of text has hundreds of MB of them).
    flushed += postings.length;
    await postingSink.write(postings.take());
  }
  return offsets;
}

/**
 * The `concepts`, `lists` and `rows` sections from a concept table and its shares: the dictionary (ids are the
 * sorted order), each concept's chunks with tf and (up to version 2, when `shares` are given) shares, each chunk's
 * row. Version 3 lists hold no shares: the reader computes them from the tf (format.ts).
 */
export async function writeConceptSections(
  table: ConceptTable,
  shares: Float32Array | undefined,
  conceptSink: SectionSink,
  listSink: SectionSink,
  rowSink: SectionSink,
  groups: Pick<GroupSizes, 'concepts' | 'rows'> = DEFAULT_GROUPS,
  /** Rows with counts up to this many gzip'd bytes keep the lists (version 4; 0: never, as version 3 writes). */
  listsInRowsBytes = LISTS_IN_ROWS_BYTES,
  /** The pages' version: how lists kept in the rows are coded (rowsWithCounts). */
  version = PAGES_VERSION,
  /** Version 16: rows that do not keep the lists start with their counts (delimitsRows, rowsCoding.ts). */
  delimit = false,
): Promise<{
  conceptGroups: Float64Array;
  listOffsets: Float64Array;
  df: Uint32Array;
  rowGroups: Float64Array;
  /** Whether the lists are kept in the rows (then the rows are one group of this many chunks: `rows`). */
  listsInRows: boolean;
  rows: number;
}> {
  const nc = table.terms.length;
  const n = table.chunkCount;
  const conceptGroups = new Float64Array(Math.ceil(nc / groups.concepts) + 1);
  for (let g = 0; g * groups.concepts < nc; g++) {
    await conceptSink.write(
      await json(table.terms.slice(g * groups.concepts, Math.min(nc, (g + 1) * groups.concepts))),
    );
    conceptGroups[g + 1] = conceptSink.length;
  }
  const tf = conceptChunkTf(table);
  const df = new Uint32Array(nc);
  for (let c = 0; c < nc; c++) df[c] = table.conceptChunkOffsets[c + 1] - table.conceptChunkOffsets[c];
  const inRows =
    listsInRowsBytes > 0 ? await rowsWithCounts(table, tf, listsInRowsBytes, version) : undefined;
  if (inRows) {
    await rowSink.write(inRows);
    return {
      conceptGroups,
      listOffsets: new Float64Array(nc + 1),
      df,
      rowGroups: Float64Array.from(n > 0 ? [0, inRows.length] : [0]),
      listsInRows: true,
      rows: Math.max(1, n),
    };
  }
  if (version >= LIST_CODING_VERSION) {
    // Version 12: the lists packed into blocks, their counts in 4 bits (listPacking.ts); listOffsets are where each
    // starts (the blocks' gaps between), from which `open` keeps how many start in each block.
    const packer = new ListPacker(nc);
    for (let c = 0; c < nc; c++) {
      packer.add(table.conceptChunks, tf, table.conceptChunkOffsets[c], table.conceptChunkOffsets[c + 1]);
      if (packer.pending >= 1 << 20) await listSink.write(packer.take());
    }
    if (packer.pending > 0) await listSink.write(packer.take());
    return {
      ...(await writeRows(table, rowSink, groups, rowsCodingFor(version, false), delimit)),
      conceptGroups,
      listOffsets: packer.starts,
      df,
    };
  }
  const lists = new ByteWriter();
  const listOffsets = new Float64Array(nc + 1);
  let flushed = 0;
  for (let c = 0; c < nc; c++) {
    const a = table.conceptChunkOffsets[c];
    const b = table.conceptChunkOffsets[c + 1];
    let previous = 0;
    for (let i = a; i < b; i++) {
      lists.varint(table.conceptChunks[i] - previous);
      previous = table.conceptChunks[i];
    }
    for (let i = a; i < b; i++) lists.varint(tf[i]);
    if (shares) for (let i = a; i < b; i++) lists.f32(shares[i]);
    listOffsets[c + 1] = flushed + lists.length;
    if (lists.length >= 1 << 20) {
      flushed += lists.length;
      await listSink.write(lists.take());
    }
  }
  if (lists.length > 0) await listSink.write(lists.take());
  return {
    ...(await writeRows(table, rowSink, groups, rowsCodingFor(version, false), delimit)),
    conceptGroups,
    listOffsets,
    df,
  };
}

/**
 * The rows section of lists that have their own section: each chunk's concept ids as varint gaps, or from version 15
 * (`coding`) as Rice codes (rowsCoding.ts), in groups.
 */
async function writeRows(
  table: ConceptTable,
  rowSink: SectionSink,
  groups: Pick<GroupSizes, 'rows'>,
  coding: RowsCoding | undefined,
  /** Version 16: each row starts with its count (encodeDelimitedRow). */
  delimit = false,
): Promise<{ rowGroups: Float64Array; listsInRows: false; rows: number }> {
  const n = table.chunkCount;
  const nc = table.terms.length;
  const rowWriter = new ByteWriter();
  const rowGroups = new Float64Array(Math.ceil(n / groups.rows) + 1);
  for (let g = 0; g * groups.rows < n; g++) {
    for (let k = g * groups.rows; k < Math.min(n, (g + 1) * groups.rows); k++) {
      const [from, to] = [table.chunkConceptOffsets[k], table.chunkConceptOffsets[k + 1]];
      if (coding) {
        (delimit ? encodeDelimitedRow : encodeRow)(rowWriter, table.chunkConcepts.subarray(from, to), nc);
        continue;
      }
      let previous = 0;
      for (let j = table.chunkConceptOffsets[k]; j < table.chunkConceptOffsets[k + 1]; j++) {
        rowWriter.varint(table.chunkConcepts[j] - previous);
        previous = table.chunkConcepts[j];
      }
    }
    await rowSink.write(rowWriter.take());
    rowGroups[g + 1] = rowSink.length;
  }
  return { rowGroups, listsInRows: false, rows: groups.rows };
}

/**
 * The rows with each chunk's count of each concept (version 4's listsInRows, format.ts), gzip'd as one group, or
 * undefined when that is more than `most` bytes (or the library has no chunks). A row's ids ascend: each is stored
 * as its gap doubled, plus 1 when the chunk holds the concept more than once, then that count less 2.
 */
export async function rowsWithCounts(
  table: Pick<
    ConceptTable,
    'chunkCount' | 'chunkConcepts' | 'chunkConceptOffsets' | 'conceptChunks' | 'conceptChunkOffsets'
  >,
  tf: ArrayLike<number>,
  most: number,
  /** From version 6 the lists coded by concept (listsInRows.ts); before, version 4's rows with counts (below). */
  version = PAGES_VERSION,
): Promise<Uint8Array | undefined> {
  const n = table.chunkCount;
  if (n === 0) return undefined;
  if (version >= 6) {
    // The coded lists are near their information bound: gzip takes ~1.3× off only their counts, so four times the
    // bound cannot fit (as below).
    const raw = encodeRiceLists(n, table.conceptChunkOffsets, table.conceptChunks, tf, most * 4);
    if (!raw) return undefined;
    const gz = await gzip(raw);
    return gz.length <= most ? gz : undefined;
  }
  // Each row entry's count, from the lists' (a row holds the concepts whose lists hold the chunk).
  const counts = new Uint32Array(table.chunkConcepts.length);
  const cursor = Uint32Array.from({ length: n }, (_, k) => table.chunkConceptOffsets[k]);
  for (let c = 0; c + 1 < table.conceptChunkOffsets.length; c++) {
    for (let i = table.conceptChunkOffsets[c]; i < table.conceptChunkOffsets[c + 1]; i++) {
      const k = table.conceptChunks[i];
      const at = cursor[k]++;
      if (table.chunkConcepts[at] !== c)
        throw new Error(`pages: chunk ${k}'s row does not hold concept ${c}, whose list holds the chunk`);
      counts[at] = tf[i];
    }
  }
  const out = new ByteWriter();
  for (let k = 0; k < n; k++) {
    let previous = 0;
    for (let j = table.chunkConceptOffsets[k]; j < table.chunkConceptOffsets[k + 1]; j++) {
      const count = counts[j];
      out.varint((table.chunkConcepts[j] - previous) * 2 + (count > 1 ? 1 : 0));
      if (count > 1) out.varint(count - 2);
      previous = table.chunkConcepts[j];
    }
    // gzip makes 1.2–1.4× less of these varints on the shared sets: four times the bound cannot fit.
    if (out.length > most * 4) return undefined;
  }
  const gz = await gzip(out.take());
  return gz.length <= most ? gz : undefined;
}

/** First key of every dictionary group. */
function groupFirsts(keys: readonly string[], size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < keys.length; i += size) out.push(keys[i]);
  return out;
}

/** What the `open` section is made of (see pagesOpen). */
export interface OpenInput {
  /** Per chunk: BM25 length of its text and of its heading path, its tokens, its document's chunk count. */
  textLengths: Float32Array;
  headingLengths: Float32Array;
  tokens: Uint32Array;
  documentChunks: Uint32Array;
  /** Per chunk: its document's or its title's chunk count, whichever is more (titleGroupSizes). */
  titleChunks: Uint32Array;
  table: ConceptTable;
  degrees: ArrayLike<number>;
  concepts: Awaited<ReturnType<typeof writeConceptSections>>;
  recordGroups: Float64Array;
  termGroups: Float64Array;
  /** The word dictionary, sorted. */
  terms: readonly string[];
  /** The sizes the sections were written with (default DEFAULT_GROUPS). */
  groups?: GroupSizes;
}

/** The `open` section's value as version 1 holds it (version 2 is made from it: openSections). */
export function pagesOpen(input: OpenInput): PagesOpenV1 {
  const { table, concepts } = input;
  const n = table.chunkCount;
  return {
    textLengths: input.textLengths,
    headingLengths: input.headingLengths,
    conceptCounts: Uint32Array.from(
      { length: n },
      (_, k) => table.chunkConceptOffsets[k + 1] - table.chunkConceptOffsets[k],
    ),
    tokens: input.tokens,
    documentChunks: input.documentChunks,
    titleChunks: input.titleChunks,
    df: concepts.df,
    idf: Float32Array.from(table.idf),
    degrees: Float64Array.from(input.degrees),
    listOffsets: concepts.listOffsets,
    recordGroups: input.recordGroups,
    termGroups: input.termGroups,
    conceptGroups: concepts.conceptGroups,
    rowGroups: concepts.rowGroups,
    termFirst: groupFirsts(input.terms, (input.groups ?? DEFAULT_GROUPS).terms),
    conceptFirst: groupFirsts(table.terms, (input.groups ?? DEFAULT_GROUPS).concepts),
  };
}

/** The `open` section's bytes. */
function encodeOpen(open: PagesOpenV1 | PagesOpenV2 | PagesOpenV6): Promise<Uint8Array> {
  return gzip(encodeStructured(open));
}

/**
 * The bytes of the `open` section and, from version 2, of the `degrees` section, from version 1's `open` value of
 * n chunks (the writers and the upgrade of a version 1 part all go through here).
 */
export async function openSections(
  full: PagesOpenV1,
  n: number,
  version = PAGES_VERSION,
  listsInRows = false,
  /** The chunks a row group holds (groups.rows): version 10 codes each group's size less their concept counts. */
  rowsPerGroup = 1,
  /** The chunks a record group holds (groups.records): version 11 codes each group's size over their lengths. */
  recordsPerGroup = 1,
  /** Version 12: chunks an evidence block (evidenceArrays.ts); 0: the tokens stay in `open`. */
  evidenceEntries = 0,
  /**
   * Version 16's rowsDelimited: the rows' blocks' size (`rowBlocks.size`); `open` then holds their index
   * (rowBlockIndex.ts) in place of the concept counts and row groups, and `openCoding` no slopes for them.
   */
  delimitedBlockSize?: number,
): Promise<{
  open: Uint8Array;
  degrees: Uint8Array;
  openResiduals?: OpenResiduals;
  openCoding?: OpenCoding;
  listCoding?: ListCoding;
  evidence?: { blocks: Uint8Array[]; field: EvidenceArrays };
}> {
  if (version === 1) return { open: await encodeOpen(full), degrees: new Uint8Array(0) };
  const compact = compactOpen(
    full,
    n,
    version,
    listsInRows,
    rowsPerGroup,
    recordsPerGroup,
    // Version 12's lists are packed (writeConceptSections, upgrade): full.listOffsets are where each starts.
    version >= LIST_CODING_VERSION ? LIST_BLOCK_BYTES : undefined,
  );
  const delimited = delimitedBlockSize !== undefined;
  if (delimited && !compact.openCoding)
    throw new Error(`pages: version ${version} cannot delimit its rows (version 16 does)`);
  const coded = {
    degrees: compact.degrees,
    ...(compact.openResiduals ? { openResiduals: compact.openResiduals } : {}),
    ...(compact.openCoding
      ? {
          openCoding: delimited
            ? { ...compact.openCoding, countsPerLength: 0, rowBytesPerCount: 0 }
            : compact.openCoding,
        }
      : {}),
    ...(compact.listCoding ? { listCoding: compact.listCoding } : {}),
  };
  // Version 16: the row blocks' index after every other key, as `cli upgrade` puts it (rowBlockIndex.ts).
  const stored = (open: object): Promise<Uint8Array> =>
    encodeOpen(
      (delimited
        ? delimitedOpen(open, full.rowGroups, delimitedBlockSize, rowsPerGroup)
        : open) as unknown as PagesOpenV6,
    );
  if (!(evidenceEntries > 0)) return { open: await stored(compact.open), ...coded };
  if (version < PAGES_EVIDENCE_VERSION || !compact.openResiduals)
    throw new Error(`pages: version ${version} cannot keep the tokens out of open (version 12 does)`);
  const evidence = evidenceBlocksOf(full.tokens, {
    entries: evidenceEntries,
    textLengths: full.textLengths,
    tokensPerLength: compact.openResiduals.tokensPerLength,
  });
  const { tokens: _tokens, ...kept } = compact.open;
  const sizes = new ByteWriter();
  for (const block of evidence.blocks) sizes.varint(block.length);
  return { open: await stored({ ...kept, evidenceBlocks: sizes.take() }), ...coded, evidence };
}

/** Section bytes laid out in file order: each section's [offset, length] and the part's total length. */
export function sectionTable(
  lengths: Record<SectionName, number>,
  version = PAGES_VERSION,
): {
  sections: Record<SectionName, [number, number]>;
  total: number;
} {
  const sections = {} as Record<SectionName, [number, number]>;
  let total = 0;
  for (const name of sectionsOf(version)) {
    sections[name] = [total, lengths[name]];
    total += lengths[name];
  }
  return { sections, total };
}

/** The parameters a version 3 reader computes the shares with: those the engine computed them with. */
export function shareParams(params: ShareParams): ShareParams {
  return { tfSpread: params.tfSpread, chunkScorePower: params.chunkScorePower };
}

/**
 * The top list of a part's block hashes read by pages (format.ts, HashPages): the first TOP_HASH_BYTES of the
 * SHA-256 of every `size` bytes of `pages.sha256`.
 */
export function hashPagesOf(hashes: Uint8Array, size = HASH_PAGE_BYTES): HashPages {
  const top = new Uint8Array(Math.ceil(hashes.length / size) * TOP_HASH_BYTES);
  for (let p = 0; p * size < hashes.length; p++)
    top.set(
      new Sha256()
        .update(hashes.subarray(p * size, (p + 1) * size))
        .digest()
        .subarray(0, TOP_HASH_BYTES),
      p * TOP_HASH_BYTES,
    );
  return { size, top: encodeTop(top) };
}

/**
 * Version 7's tree of hash pages over a part's block hashes (format.ts, hashLevels): the bytes of `pages.sha256`
 * (the block hashes, then each level above: the first TOP_HASH_BYTES of the SHA-256 of every page of the level
 * below) and the directory's field, whose top list holds the hashes of the last level's pages.
 */
export function hashTreeOf(
  leaves: Uint8Array,
  levels: number[] = hashLevelsFor(leaves.length),
  size = HASH_LEAF_BYTES,
  /** Version 13's `blockPaths`: a leaf page's hash is the Merkle root of its block hashes (blockPaths.ts). */
  roots = false,
): { hashPages: HashPages; bytes: Uint8Array } {
  const layout = hashLevels(leaves.length, { size, levels });
  const last = layout[layout.length - 1];
  const bytes = new Uint8Array(last.at + last.length);
  bytes.set(leaves);
  const hashesOf = (level: number): Uint8Array => {
    const { at, length, pageSize } = layout[level];
    const below = bytes.subarray(at, at + length);
    return level === 0 && roots ? leafRootsOf(below, pageSize) : decodeTop(hashPagesOf(below, pageSize).top)!;
  };
  for (let i = 1; i < layout.length; i++) bytes.set(hashesOf(i - 1), layout[i].at);
  const top = encodeTop(hashesOf(layout.length - 1));
  return { hashPages: { size, top, levels }, bytes };
}

/**
 * Version 13's paths (blockPaths.ts): the directory's field and the blocks that carry them, for a part of `version`
 * whose rows are in blocks of whole rows (`rowBlocks`); none for another (a small library keeps its lists in its
 * rows, one group read whole: nothing to gain). From version 17 the lists' blocks too, when there are lists (a
 * question reads ~500 of them scattered over the section, each needing its leaf page of hashes without a path).
 */
export function blockPathsOf(
  version: number,
  layout: number | BlockLayout,
  /** The lists section's bytes (version 17: its blocks carry paths when it has any). */
  listsLength: number,
): { field: BlockPaths; zone: { first: number; count: number; endOf: (b: number) => number } } | undefined {
  if (version < BLOCK_PATHS_VERSION || typeof layout === 'number') return undefined;
  const zones: BlockPaths['zones'] =
    version >= LIST_PATHS_VERSION && listsLength > 0 ? ['lists', 'rows'] : ['rows'];
  const zone = layout.withPaths(zones, PATH_BYTES).paths;
  if (!zone) return undefined;
  return { field: { zones }, zone: { ...zone, endOf: (b) => layout.endOf(b) } };
}

/** The part's stored bytes: its sections' pieces with each path after its block (version 13), or as they are. */
export function storedBytes(
  pieces: Iterable<Uint8Array>,
  paths: ReturnType<typeof blockPathsOf>,
  leaves: Uint8Array,
): Iterable<Uint8Array> {
  return paths ? storedPieces(pieces, paths.zone, leaves) : pieces;
}

/** storedBytes over pieces that come asynchronously (a spool, an old part). */
export function storedBytesAsync(
  pieces: AsyncIterable<Uint8Array>,
  paths: ReturnType<typeof blockPathsOf>,
  leaves: Uint8Array,
): AsyncIterable<Uint8Array> {
  return paths ? storedPiecesAsync(pieces, paths.zone, leaves) : pieces;
}

/**
 * What a writer of pages of `version` puts in `pages.sha256` and the directory's `hashPages` for these block
 * hashes: version 7's tree (hashTreeOf), or one level of pages covering 32 KiB of the part each (hashPageBytes).
 */
export function hashPartOf(
  version: number,
  blockSize: number,
  leaves: Uint8Array,
  /** Version 13's `blockPaths`: leaf pages' hashes are their roots (hashTreeOf). */
  roots = false,
): { hashPages: HashPages; bytes: Uint8Array } {
  if (version >= 7) return hashTreeOf(leaves, undefined, undefined, roots);
  return { hashPages: hashPagesOf(leaves, hashPageBytes(blockSize)), bytes: leaves };
}

/** The directory (the part's meta) of a written library. */
export function pagesDirectory(
  fields: Omit<PagesDirectory, 'format' | 'version' | 'groups' | 'hashBytes'> & { groups?: GroupSizes },
  version = PAGES_VERSION,
): PagesDirectory {
  return {
    format: PAGES_FORMAT,
    version,
    blockSize: fields.blockSize,
    ...(version >= 3 ? { hashBytes: blockHashBytes(version) } : {}),
    chunkCount: fields.chunkCount,
    conceptCount: fields.conceptCount,
    termCount: fields.termCount,
    headingCopies: fields.headingCopies,
    thetaCo: fields.thetaCo,
    ...(fields.analyzer !== undefined ? { analyzer: fields.analyzer } : {}),
    groups: { ...(fields.groups ?? DEFAULT_GROUPS) },
    ...(version >= 3 && fields.shares ? { shares: fields.shares } : {}),
    ...(version >= 4 && fields.listsInRows ? { listsInRows: true } : {}),
    ...(version >= 3 && fields.hashPages ? { hashPages: fields.hashPages } : {}),
    ...(version >= 8 && fields.sectionBlocks ? { sectionBlocks: { ...fields.sectionBlocks } } : {}),
    ...(version >= 10 && fields.openResiduals ? { openResiduals: { ...fields.openResiduals } } : {}),
    ...(version >= 11 && fields.openCoding ? { openCoding: { ...fields.openCoding } } : {}),
    ...(version >= 10 && fields.rowBlocks ? { rowBlocks: { ...fields.rowBlocks } } : {}),
    ...(version >= 10 && fields.recordCoding
      ? { recordCoding: { dictionary: fields.recordCoding.dictionary } }
      : {}),
    ...(version >= PAGES_EVIDENCE_VERSION && fields.evidenceArrays
      ? { evidenceArrays: { ...fields.evidenceArrays } }
      : {}),
    ...(version >= PAGES_SCRIPT_VERSION && fields.scriptChunks
      ? { scriptChunks: { other: fields.scriptChunks.other, cjk: fields.scriptChunks.cjk } }
      : {}),
    ...(version >= LIST_CODING_VERSION && fields.listCoding
      ? { listCoding: { blockBytes: fields.listCoding.blockBytes } }
      : {}),
    ...(version >= BLOCK_PATHS_VERSION && fields.blockPaths
      ? { blockPaths: { zones: [...fields.blockPaths.zones] } }
      : {}),
    ...(version >= POSTINGS_CODING_VERSION && fields.postingsCoding
      ? { postingsCoding: { lists: fields.postingsCoding.lists } }
      : {}),
    ...(version >= ROWS_CODING_VERSION && fields.rowsCoding
      ? { rowsCoding: { ids: fields.rowsCoding.ids } }
      : {}),
    ...(version >= ROWS_DELIMITED_VERSION && fields.rowsDelimited
      ? { rowsDelimited: { countOrder: fields.rowsDelimited.countOrder } }
      : {}),
    sections: fields.sections,
  };
}

/**
 * The SHA-256 of every `blockSize` bytes, fed in pieces of any size (the last block may be short), each kept to its
 * first `hashBytes` bytes (format.ts, BLOCK_HASH_BYTES: 16 from version 3).
 */
export class BlockHasher {
  private current = new Sha256();
  private filled = 0;
  /** The bytes of the block being hashed: `blockSize`, or from version 8 the layout's next (blockLayout.ts). */
  private size: number;
  private readonly sizes?: Iterator<number>;
  // The hashes packed as they are made, 4,096 to a piece: a digest's view kept per block cost ~300 bytes of heap and
  // buffer for its 16 (at 1 GiB of text in 512-byte blocks, 2.5 M of them: some 700 MB held until the bundle is written).
  private readonly pieces: Uint8Array[] = [];
  private piece = new Uint8Array(0);
  private pieceUsed = 0;
  private count = 0;

  constructor(
    blockSize: number | BlockLayout,
    private readonly hashBytes: number,
  ) {
    if (typeof blockSize === 'number') this.size = blockSize;
    else {
      this.sizes = blockSize.lengths();
      this.size = this.nextSize();
    }
  }

  /** The layout's next block length (past its last block: no end, the bytes are more than the layout's part). */
  private nextSize(): number {
    const next = this.sizes!.next();
    return next.done ? Infinity : next.value;
  }

  update(bytes: Uint8Array): void {
    let at = 0;
    while (at < bytes.length) {
      const take = Math.min(this.size - this.filled, bytes.length - at);
      this.current.update(bytes.subarray(at, at + take));
      this.filled += take;
      at += take;
      if (this.filled === this.size) {
        this.keep(this.current.digest());
        this.current = new Sha256();
        this.filled = 0;
        if (this.sizes) this.size = this.nextSize();
      }
    }
  }

  private keep(digest: Uint8Array): void {
    if (this.pieceUsed === this.piece.length) {
      this.piece = new Uint8Array(4096 * this.hashBytes);
      this.pieces.push(this.piece);
      this.pieceUsed = 0;
    }
    this.piece.set(digest.subarray(0, this.hashBytes), this.pieceUsed);
    this.pieceUsed += this.hashBytes;
    this.count++;
  }

  /** Every block's hash, `hashBytes` each. */
  finish(): Uint8Array {
    if (this.filled > 0) this.keep(this.current.digest());
    this.filled = 0;
    const hashes = new Uint8Array(this.count * this.hashBytes);
    let at = 0;
    for (const piece of this.pieces) {
      const take = Math.min(piece.length, hashes.length - at);
      hashes.set(piece.subarray(0, take), at);
      at += take;
    }
    return hashes;
  }
}

/**
 * Writes the pages of an engine's lexical layer. `version` 1 or 2 writes an old format (tests of the reader and of
 * the upgrade of old parts).
 */
export async function writePagedIndex(
  parts: LexicalParts,
  documentOf: (docId: string) => PagedDocument,
  /** Undefined: defaultBlockSize (512 B for a library that does not keep its lists in its rows). */
  blockSizeAsked?: number,
  versionAsked = PAGES_VERSION,
  groups: GroupSizes = defaultGroups(versionAsked),
  /** Version 4: rows with counts up to this many gzip'd bytes keep the lists (LISTS_IN_ROWS_BYTES; 0: never). */
  listsInRowsBytes = LISTS_IN_ROWS_BYTES,
  /** Version 8: block sizes by section; undefined: sectionBlocksFor's unless told a block size. */
  sectionBlocksAsked?: Partial<Record<SectionName, number>>,
  /** Version 10: the most bytes of rows in a block of whole rows (ROW_BLOCK_BYTES; 0: none, rowBlocksFor). */
  rowBlockBytes = ROW_BLOCK_BYTES,
  /** Version 12: chunks an evidence block (evidenceArrays.ts); absent: writerEvidenceEntries's; 0: none. */
  evidenceEntries?: number,
): Promise<WrittenPages> {
  const { layout, bm25, headings, table, shares, degrees, params, analyzer } = parts;
  // Per-script word statistics are stored from version 11 (the directory's scriptChunks): no older version can hold
  // a library built with them as it answers.
  const { scriptChunks } = bm25;
  const version = (evidenceEntries ?? 0) > 0 ? Math.max(PAGES_EVIDENCE_VERSION, versionAsked) : versionAsked;
  if (scriptChunks && version < PAGES_SCRIPT_VERSION)
    throw new Error(`pages: version ${version} cannot store per-script word statistics (version 11 does)`);
  const n = layout.chunks.length;
  const nc = table.terms.length;
  const sinks = Object.fromEntries(SECTIONS.map((name) => [name, new MemorySink()])) as Record<
    SectionName,
    MemorySink
  >;

  // Records: what evidence shows and the Ask view maps back to its document.
  const records = new RecordGroupWriter(sinks.records, groups.records, version >= 10);
  for (let k = 0; k < n; k++) {
    const c = layout.chunks[k];
    const sentences: number[] = [];
    for (let s = layout.sentenceOffsets[k]; s < layout.sentenceOffsets[k + 1]; s++)
      sentences.push(layout.sentences[s].start, layout.sentences[s].end);
    await records.add(pagedRecord(c, documentOf(c.docId), sentences));
  }
  const { offsets: recordGroups, dictionary } = await records.finish();

  // Words: a sorted dictionary over the text's and the headings' terms.
  const headingIndex = headings?.headings;
  const vocabulary = new Set(bm25.terms());
  if (headingIndex) for (const t of headingIndex.terms()) vocabulary.add(t);
  const terms = [...vocabulary].sort();
  const termGroups = await writeTermSections(
    terms,
    (t) => [bm25.postingsOf(t), headingIndex?.postingsOf(t)],
    sinks.terms,
    sinks.postings,
    groups.terms,
    postingsCodingFor(version),
  );

  // Concepts: the dictionary, each concept's chunks with tf and shares, each chunk's row.
  const concepts = await writeConceptSections(
    table,
    version >= 3 ? undefined : shares,
    sinks.concepts,
    sinks.lists,
    sinks.rows,
    groups,
    version >= 4 ? listsInRowsBytes : 0,
    version,
    delimitsRows(
      version,
      sectionBlocksAsked ?? (blockSizeAsked === undefined ? sectionBlocksFor(version, false) : undefined),
      rowBlockBytes,
    ),
  );
  const writtenGroups = { ...groups, rows: concepts.rows };
  const blockSize = blockSizeAsked ?? defaultBlockSize(version, concepts.listsInRows);
  const sectionBlocks =
    sectionBlocksAsked ??
    (blockSizeAsked === undefined ? sectionBlocksFor(version, concepts.listsInRows) : undefined);
  const rowBlocks = rowBlocksFor(
    version,
    concepts.listsInRows,
    sectionBlocks,
    concepts.rowGroups,
    rowBlockBytes,
  );
  const rowsDelimited = rowsDelimitedFor(version, rowBlocks);

  const docChunks = new Map<string, number>();
  for (const c of layout.chunks) docChunks.set(c.docId, (docChunks.get(c.docId) ?? 0) + 1);
  const full = pagesOpen({
    textLengths: Float32Array.from({ length: n }, (_, k) => bm25.lengthOf(k)),
    headingLengths: Float32Array.from({ length: n }, (_, k) => headingIndex?.lengthOf(k) ?? 0),
    tokens: Uint32Array.from(layout.chunks, (c) => c.tokens),
    documentChunks: Uint32Array.from(layout.chunks, (c) => docChunks.get(c.docId)!),
    titleChunks: titleGroupSizes(layout.chunks),
    table,
    degrees,
    concepts,
    recordGroups,
    termGroups,
    terms,
    groups: writtenGroups,
  });
  const written = await openSections(
    full,
    n,
    version,
    concepts.listsInRows,
    writtenGroups.rows,
    writtenGroups.records,
    evidenceEntries ?? writerEvidenceEntries(version, concepts.listsInRows),
    rowsDelimited && rowBlocks?.size,
  );
  sinks.open.write(written.open);
  sinks.degrees.write(written.degrees);
  // Version 12: the evidence's blocks after the records and their dictionary (evidenceArrays.ts).
  for (const block of written.evidence?.blocks ?? []) sinks.records.write(block);

  const lengths = Object.fromEntries(SECTIONS.map((name) => [name, sinks[name].length])) as Record<
    SectionName,
    number
  >;
  const { sections, total } = sectionTable(lengths, version);
  const blocks = writtenBlocks(
    version,
    blockSize,
    sections,
    sectionBlocks,
    total,
    rowBlocks && {
      rows: rowBlocks,
      rowGroups: concepts.rowGroups,
    },
    written.evidence,
  );
  const hasher = new BlockHasher(blocks, blockHashBytes(version));
  const pieces = sectionsOf(version).flatMap((name) => sinks[name].chunks);
  for (const b of pieces) hasher.update(b);
  const leaves = hasher.finish();
  // Version 13: each row block followed by its path (blockPaths.ts), made from the block hashes.
  const paths = blockPathsOf(version, blocks, sections.lists[1]);
  const data = new Uint8Array(total + (paths ? paths.zone.count * PATH_BYTES : 0));
  let at = 0;
  for (const b of storedBytes(pieces, paths, leaves)) {
    data.set(b, at);
    at += b.length;
  }
  const hashPart = version >= 3 ? hashPartOf(version, blockSize, leaves, paths !== undefined) : undefined;
  return {
    data,
    hashes: hashPart?.bytes ?? leaves,
    directory: pagesDirectory(
      {
        blockSize,
        chunkCount: n,
        conceptCount: nc,
        termCount: terms.length,
        headingCopies: headings ? headings.copies : 0,
        thetaCo: params.thetaCo,
        analyzer,
        shares: shareParams(params),
        listsInRows: concepts.listsInRows,
        sections,
        groups: writtenGroups,
        ...(hashPart ? { hashPages: hashPart.hashPages } : {}),
        sectionBlocks,
        openResiduals: written.openResiduals,
        openCoding: written.openCoding,
        listCoding: written.listCoding,
        rowBlocks,
        recordCoding: { dictionary },
        ...(scriptChunks ? { scriptChunks } : {}),
        ...(written.evidence ? { evidenceArrays: written.evidence.field } : {}),
        ...(paths ? { blockPaths: paths.field } : {}),
        postingsCoding: postingsCodingFor(version),
        rowsCoding: rowsCodingFor(version, concepts.listsInRows),
        rowsDelimited,
      },
      version,
    ),
  };
}
/** The two bundle parts of a written library: the pages (stored as is, to be read by ranges) and their hashes. */
export function pagesParts(written: WrittenPages): BundlePart[] {
  return [
    {
      name: PAGES_PART,
      kind: 'binary',
      encoding: 'identity',
      count: written.directory.chunkCount,
      data: written.data,
      meta: written.directory as unknown as Record<string, unknown>,
    },
    {
      name: PAGES_HASHES_PART,
      kind: 'binary',
      encoding: 'identity',
      // One a block (from version 7 the levels above the block hashes follow them).
      count: blockLayoutOf(written.directory, written.data.length).count,
      data: written.hashes,
    },
  ];
}
