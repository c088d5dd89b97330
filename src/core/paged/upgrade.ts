// Rewrites a version 1 to 7 pages part as version 8 (format.ts) without the corpus (a version 3 to 7 part is
// copied but for its directory and its `open`, re-encoded as version 8 writes it, and its block hashes, made for
// the writer's blocks (version 8's blocks by section, sectionBlocksFor: over 512-byte blocks when it does not keep
// its lists in its rows, over 1 KiB ones when it does), and, when it does not keep its lists in its rows, its rows'
// group offsets, for groups of 1; when it keeps them, its one group of rows re-coded by concept as version 6 codes it
// (recodedRows), a version 6 or 7 group copied).
// From version 1 or 2: everything version 3 holds is in
// the older ones (the degrees, list offsets, df and IDF of `open`, version 2's exact degrees in their section), the
// lists lose their shares (each checked, before it is dropped, to be what a version 3 reader computes from the list's
// counts: listShares), and every other section is copied byte for byte. The new `open` and `degrees` sections are
// made by the writers' own openSections, so an upgraded part is the one `cli index` writes for the same library today
// (test/unit/paged/openFormat.test.ts). `cli upgrade` (src/cli/upgrade.ts) copies a bundle's other parts around it.
// Version 14 (postingsCoding.ts) codes the words' postings otherwise: every upgrade writes the `terms` and `postings`
// sections again (recodedWords), and a version 12 or 13 part keeps every other section as it is (recodedPart).
// Version 15 (rowsCoding.ts) codes the rows otherwise: every upgrade of a part whose rows do not keep the lists writes
// the rows again as Rice codes (riceRows), and `open` with their groups' offsets; a version 14 part's words are copied.
import {
  concatBytes,
  decodeStructured,
  encodeStructured,
  gunzip,
  gzip,
  Sha256,
  toHex,
} from '../bundle/index.ts';
import type { BundleManifest, BundlePart, ManifestBase, PartEntry, StreamedPart } from '../bundle/index.ts';
import { BundleError } from '../bundle/index.ts';
import { resolveParams } from '../retrieval/index.ts';
import { messageOf } from '../errors.ts';
import { matchesBlockHash } from './blockDigest.ts';
import { PATH_BYTES } from './blockPaths.ts';
import type { BlockLayout } from './blockLayout.ts';
import { decodeJson, gzipSize, PagesError } from './blockStore.ts';
import { checkRecordGroup, checkTermGroup } from './groupShapes.ts';
import { decodeVarintPostings } from './postingsCoding.ts';
import { decodeRow, encodeDelimitedRow, encodeRow } from './rowsCoding.ts';
import { delimitedOpen } from './rowBlockIndex.ts';
import { decodeDictionary, decodeRecordGroup } from './recordCoding.ts';
import { ByteReader, ByteWriter } from './bytes.ts';
import { expandOpen, residualsOf, withRowGroups, withTermGroups } from './compactOpen.ts';
import { decodeCountedRows } from './listsInRows.ts';
import { ListPacker } from './listPacking.ts';
import {
  blockHashBytes,
  blockLayoutOf,
  checkDirectory,
  checkOpen,
  hashBytesOf,
  hashesPartLength,
  minListBytes,
  PAGES_HASHES_PART,
  PAGES_PART,
  PAGES_EVIDENCE_VERSION,
  writerEvidenceEntries,
  PAGES_VERSION,
  placeEvidenceBlocks,
  placeRowBlocks,
  SECTIONS,
  type PagedChunkRecord,
  type PagesDirectory,
  type PagesOpenV1,
  type PagesOpenV2,
  type PagesOpenV6,
  type SectionName,
  type ShareParams,
  type TermEntry,
} from './format.ts';
import { pagesHashes } from './openBundle.ts';
import type { RangeSource } from './rangeSource.ts';
import { listShares } from './sectionReader.ts';
import {
  BlockHasher,
  DEFAULT_GROUPS,
  defaultBlockSize,
  hashPartOf,
  blockPathsOf,
  MemorySink,
  postingsCodingFor,
  rowsCodingFor,
  rowsDelimitedFor,
  delimitsRows,
  writeTermSections,
  storedBytesAsync,
  LISTS_IN_ROWS_BYTES,
  openSections,
  pagesDirectory,
  RecordGroupWriter,
  rowsWithCounts,
  sectionBlocksFor,
  sectionTable,
  writtenBlocks,
  rowBlocksFor,
  ROW_BLOCK_BYTES,
} from './write.ts';

/** Bytes read from the source at a time while copying. */
const PIECE = 4 << 20;

interface UpgradedPages {
  directory: PagesDirectory;
  hashes: Uint8Array;
  sha256: Uint8Array;
  length: number;
  /** The part's bytes in order (read again from the source). */
  bytes(): AsyncIterable<Uint8Array>;
}

/** Pieces of [from, to) of the source, PIECE bytes at a time. */
async function* pieces(source: RangeSource, from: number, to: number): AsyncGenerator<Uint8Array> {
  for (let at = from; at < to; at += PIECE) yield await source.read(at, Math.min(PIECE, to - at));
}

/** Throws, naming the block, unless `got` (full SHA-256s, 32 bytes each) begin with the expected block hashes. */
function checkHashes(
  got: Uint8Array,
  expected: Uint8Array,
  upTo: number,
  hashBytes: number,
  name: string,
): void {
  for (let b = 0; b < upTo; b++) {
    if (!matchesBlockHash(got.subarray(b * 32, b * 32 + 32), expected, b, hashBytes))
      throw new PagesError(`${name}: corrupted (SHA-256 mismatch in block ${b} of part ${PAGES_PART})`);
  }
}

/** [from, to) of the source read in order, a given number of bytes at a time (PIECE bytes per read). */
class SequentialReader {
  private pending = new Uint8Array(0);
  constructor(
    private readonly source: RangeSource,
    private at: number,
    private readonly to: number,
  ) {}

  async take(length: number): Promise<Uint8Array> {
    while (this.pending.length < length) {
      if (this.at >= this.to) throw new PagesError(`${this.source.name}: pages.bin's lists end early`);
      const piece = await this.source.read(this.at, Math.min(PIECE, this.to - this.at));
      this.at += piece.length;
      const joined = new Uint8Array(this.pending.length + piece.length);
      joined.set(this.pending);
      joined.set(piece, this.pending.length);
      this.pending = joined;
    }
    const out = this.pending.subarray(0, length);
    this.pending = this.pending.subarray(length);
    return out;
  }
}

/**
 * The `lists` section of a version 1 or 2 part (at `from` in the source, by `offsets`) as version 3 writes it, in
 * pieces: each list's chunk gaps and counts as stored, its shares dropped once each is found to be what listShares
 * computes from the counts with `params` (else the part is refused: a version 3 reader would rank otherwise).
 * Each list's df is checked against its bytes before anything is allocated, as the reader checks it.
 */
async function* listsWithoutShares(
  source: RangeSource,
  from: number,
  offsets: Float64Array,
  df: Uint32Array,
  chunkCount: number,
  params: ShareParams,
): AsyncGenerator<Uint8Array> {
  const input = new SequentialReader(source, from + offsets[0], from + offsets[offsets.length - 1]);
  const out = new ByteWriter();
  const least = minListBytes(1);
  for (let c = 0; c < df.length; c++) {
    const bytes = await input.take(offsets[c + 1] - offsets[c]);
    const n = df[c];
    const fail = (why: string): never => {
      throw new PagesError(`${source.name}: pages.bin's chunk list of concept ${c} ${why}`);
    };
    if (n * least > bytes.length) fail(`is ${bytes.length} bytes, too few for its ${n} chunks`);
    const r = new ByteReader(bytes);
    const gaps = new Uint32Array(n);
    const counts = new Uint32Array(n);
    const tf = new Float32Array(n);
    const shares = new Float32Array(n);
    try {
      r.varints(gaps, n);
      r.varints(counts, n);
      for (let i = 0; i < n; i++) shares[i] = r.f32();
    } catch (e) {
      fail(`does not decode (${messageOf(e)})`);
    }
    if (r.at !== bytes.length) fail(`has ${bytes.length - r.at} bytes past its ${n} chunks`);
    let k = 0;
    for (let i = 0; i < n; i++) {
      if (i > 0 && gaps[i] === 0) fail('names a chunk twice');
      if ((k += gaps[i]) >= chunkCount) fail(`names chunk ${k} of ${chunkCount}`);
    }
    if (counts.includes(0)) fail('has a count of 0');
    tf.set(counts);
    const computed = new Float32Array(n);
    listShares(tf, params, computed);
    for (let i = 0; i < n; i++)
      if (!Object.is(computed[i], shares[i]))
        fail(
          `stores a share of ${shares[i]} where its counts give ${computed[i]} (tfSpread ${params.tfSpread}, ` +
            `chunkScorePower ${params.chunkScorePower}): version 3 computes the shares, so it is not upgraded`,
        );
    for (let i = 0; i < n; i++) out.varint(gaps[i]);
    for (let i = 0; i < n; i++) out.varint(counts[i]);
    if (out.length >= 1 << 20) yield out.take();
  }
  if (out.length > 0) yield out.take();
}

/** The new lists' bytes whole (a part small enough to keep its lists in its rows). */
async function listBytes(lists: () => AsyncGenerator<Uint8Array>): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  for await (const piece of lists()) pieces.push(piece);
  return concatBytes(pieces);
}

/**
 * The concept table's links of a checked part (its version 3 lists and its rows, both already checked against their
 * hashes and `open`'s counts): each concept's chunks and each chunk's concepts, for rowsWithCounts.
 */
async function linksOf(
  source: RangeSource,
  rowsFrom: number,
  rowsLength: number,
  lists: () => AsyncGenerator<Uint8Array>,
  listOffsets: Float64Array,
  df: Uint32Array,
  conceptCounts: Uint32Array,
) {
  const nc = df.length;
  const n = conceptCounts.length;
  const conceptChunkOffsets = new Uint32Array(nc + 1);
  for (let c = 0; c < nc; c++) conceptChunkOffsets[c + 1] = conceptChunkOffsets[c] + df[c];
  const conceptChunks = new Uint32Array(conceptChunkOffsets[nc]);
  const all = await listBytes(lists);
  for (let c = 0; c < nc; c++) {
    const r = new ByteReader(all.subarray(listOffsets[c], listOffsets[c + 1]));
    for (let i = conceptChunkOffsets[c], k = 0; i < conceptChunkOffsets[c + 1]; i++)
      conceptChunks[i] = k += r.varint();
  }
  const chunkConceptOffsets = new Uint32Array(n + 1);
  for (let k = 0; k < n; k++) chunkConceptOffsets[k + 1] = chunkConceptOffsets[k] + conceptCounts[k];
  const chunkConcepts = new Uint32Array(chunkConceptOffsets[n]);
  const rows = new ByteReader(await source.read(rowsFrom, rowsLength));
  for (let k = 0; k < n; k++)
    for (let j = chunkConceptOffsets[k], c = 0; j < chunkConceptOffsets[k + 1]; j++)
      chunkConcepts[j] = c += rows.varint();
  return { chunkCount: n, conceptChunkOffsets, conceptChunks, chunkConceptOffsets, chunkConcepts };
}

/**
 * Version 4's and 5's one group of rows that keep the lists, as version 6 codes it (listsInRows.ts): inflated (its
 * size bounded first), decoded and checked as a reader decodes it, each concept's list inverted from the rows and
 * checked against its df, then written by the writer's own rowsWithCounts. A part that keeps its lists in its rows
 * keeps them: the group coded by concept is 17–24 % smaller on the shared sets, so one under the writers' bound
 * (LISTS_IN_ROWS_BYTES) stays under it.
 */
async function recodedRows(
  name: string,
  stored: Uint8Array,
  df: Uint32Array,
  conceptCounts: Uint32Array,
): Promise<Uint8Array> {
  const fail = (why: string): never => {
    throw new PagesError(`${name}: pages.bin's rows ${why}`);
  };
  let raw: Uint8Array;
  try {
    raw = await gunzip(stored, gzipSize(stored));
  } catch (e) {
    return fail(`do not inflate (${messageOf(e)})`);
  }
  const n = conceptCounts.length;
  const nc = df.length;
  const rows = decodeCountedRows(raw, n, nc, conceptCounts, fail);
  const conceptChunkOffsets = new Uint32Array(nc + 1);
  for (let c = 0; c < nc; c++) conceptChunkOffsets[c + 1] = conceptChunkOffsets[c] + df[c];
  if (conceptChunkOffsets[nc] !== rows.ids.length)
    fail(`hold ${rows.ids.length} concept ids, but the concepts' df sum to ${conceptChunkOffsets[nc]}`);
  const conceptChunks = new Uint32Array(rows.ids.length);
  const tf = new Uint32Array(rows.ids.length);
  const fill = conceptChunkOffsets.slice(0, nc);
  for (let k = 0; k < n; k++)
    for (let j = rows.starts[k]; j < rows.starts[k + 1]; j++) {
      const c = rows.ids[j];
      if (fill[c] >= conceptChunkOffsets[c + 1])
        fail(`name concept ${c} in more chunks than its df ${df[c]}`);
      conceptChunks[fill[c]] = k;
      tf[fill[c]++] = rows.counts[j];
    }
  const table = {
    chunkCount: n,
    conceptChunkOffsets,
    conceptChunks,
    chunkConceptOffsets: rows.starts,
    chunkConcepts: rows.ids,
  };
  const recoded = await rowsWithCounts(table, tf, 2 ** 40, PAGES_VERSION);
  return recoded ?? fail('are empty');
}

/**
 * Version 12's lists (listPacking.ts) from version 3's (a concept's varint gaps, then its varint counts), packed as the
 * writers pack them, and where each starts (for `open`'s listStarts).
 */
async function packedLists(
  lists: () => AsyncGenerator<Uint8Array>,
  listOffsets: Float64Array,
  df: Uint32Array,
): Promise<{ bytes: Uint8Array; starts: Float64Array }> {
  const all = await listBytes(lists);
  const packer = new ListPacker(df.length);
  const out: Uint8Array[] = [];
  for (let c = 0; c < df.length; c++) {
    const r = new ByteReader(all.subarray(listOffsets[c], listOffsets[c + 1]));
    const chunks = new Uint32Array(df[c]);
    for (let i = 0, k = 0; i < df[c]; i++) chunks[i] = k += r.varint();
    const counts = new Uint32Array(df[c]);
    for (let i = 0; i < df[c]; i++) counts[i] = r.varint();
    packer.add(chunks, counts, 0, df[c]);
    if (packer.pending >= 1 << 20) out.push(packer.take());
  }
  out.push(packer.take());
  return { bytes: concatBytes(out), starts: packer.starts };
}

/** Every list entry's count, in the lists' order (version 3 lists: a concept's gaps, then its counts). */
async function countsOf(
  lists: () => AsyncGenerator<Uint8Array>,
  listOffsets: Float64Array,
  df: Uint32Array,
): Promise<Uint32Array> {
  const all = await listBytes(lists);
  const out = new Uint32Array(df.reduce((t, x) => t + x, 0));
  for (let c = 0, at = 0; c < df.length; c++) {
    const r = new ByteReader(all.subarray(listOffsets[c], listOffsets[c + 1]));
    for (let i = 0; i < df[c]; i++) r.varint();
    for (let i = 0; i < df[c]; i++) out[at++] = r.varint();
  }
  return out;
}

/**
 * Where each group of `size` chunks starts in a rows section of plain varints (versions 1–4 without listsInRows: each
 * chunk's `conceptCounts[k]` concept ids, one varint each), and where the last ends: the same bytes cut into other
 * groups. Read in pieces; the varints must be exactly as many as the counts say and end where the section does.
 */
async function regroupedRows(
  source: RangeSource,
  from: number,
  length: number,
  conceptCounts: ArrayLike<number>,
  n: number,
  size: number,
): Promise<Float64Array> {
  const fail = (why: string): never => {
    throw new PagesError(`${source.name}: pages.bin's rows ${why}`);
  };
  const starts = new Float64Array(Math.ceil(n / size) + 1);
  let k = 0;
  let left = n > 0 ? conceptCounts[0] : 0;
  let at = 0;
  // Every chunk complete at `at` is closed; a group's start is where its first chunk starts.
  const close = (): void => {
    while (k < n && left === 0) {
      k++;
      if (k % size === 0 || k === n) starts[Math.ceil(k / size)] = at;
      if (k < n) left = conceptCounts[k];
    }
  };
  close();
  for await (const piece of pieces(source, from, from + length)) {
    for (let i = 0; i < piece.length; i++) {
      at++;
      if (piece[i] & 0x80) continue;
      if (k >= n) fail(`hold bytes past their chunks' concept ids (at byte ${at - 1})`);
      left--;
      close();
    }
  }
  if (k < n) fail(`end in chunk ${k} of ${n}, before their chunks' concept ids do`);
  if (starts[starts.length - 1] !== length)
    fail(`hold ${length - starts[starts.length - 1]} bytes past their ids`);
  return starts;
}

/**
 * Version 15's rows (rowsCoding.ts) from a rows section of plain varint gaps (`pieces`: every chunk's
 * `conceptCounts[k]` concept ids, chunk after chunk), each row checked as a reader checks it (its ids ascending, below
 * `concepts`, the varints exactly as many as the counts say and ending where the section does, each refused naming
 * its chunk) and written again as the writers write it, in groups of one chunk: the section and its groups' offsets.
 */
async function riceRows(
  name: string,
  pieces: AsyncIterable<Uint8Array>,
  conceptCounts: ArrayLike<number>,
  n: number,
  concepts: number,
  /** Version 16: each row written starting with its count (rowsDelimited). */
  delimit = false,
): Promise<{ rows: MemorySink; rowGroups: Float64Array }> {
  const fail = (why: string): never => {
    throw new PagesError(`${name}: pages.bin's rows ${why}`);
  };
  const encode = delimit ? encodeDelimitedRow : encodeRow;
  const rows = new MemorySink();
  const out = new ByteWriter();
  const rowGroups = new Float64Array(n + 1);
  let row = new Uint32Array(16);
  let k = 0;
  let j = 0;
  let value = 0;
  let scale = 1;
  // Every chunk whose ids are all read is written (a chunk of no concepts at once).
  const close = (): void => {
    while (k < n && j === conceptCounts[k]) {
      encode(out, row.subarray(0, j), concepts);
      rowGroups[++k] = rows.length + out.length;
      j = 0;
      if (out.length >= PIECE) rows.write(out.take());
    }
  };
  close();
  let at = 0;
  for await (const piece of pieces) {
    for (let i = 0; i < piece.length; i++, at++) {
      const b = piece[i];
      value += (b & 0x7f) * scale;
      scale *= 128;
      if (b & 0x80) {
        if (scale > 2 ** 35) fail(`hold a varint past 5 bytes in chunk ${k}`);
        continue;
      }
      if (k >= n) fail(`hold bytes past their chunks' concept ids (at byte ${at})`);
      const id = (j > 0 ? row[j - 1] : 0) + value;
      if ((j > 0 && value === 0) || id >= concepts)
        fail(`name concept ${id} out of order or of ${concepts} in chunk ${k}`);
      if (j === row.length) {
        const grown = new Uint32Array(row.length * 2);
        grown.set(row);
        row = grown;
      }
      row[j++] = id;
      value = 0;
      scale = 1;
      close();
    }
  }
  if (k < n || scale > 1) fail(`end in chunk ${k} of ${n}, before their chunks' concept ids do`);
  if (out.length > 0) rows.write(out.take());
  return { rows, rowGroups };
}

/**
 * Version 16's rows (rowsDelimited) from version 15's (`pieces`, Rice codes without counts, rowsCoding.ts): every
 * chunk's row decoded with its count (`conceptCounts`) from its group's bytes (`rowGroups`, `rowsPerGroup` chunks a
 * group), checked as a reader checks it (refused naming its chunk), and written again starting with its count, in
 * groups of one chunk: the section and its groups' offsets.
 */
async function delimitedRows(
  name: string,
  pieces: AsyncIterable<Uint8Array>,
  rowsLength: number,
  conceptCounts: ArrayLike<number>,
  rowGroups: ArrayLike<number>,
  rowsPerGroup: number,
  concepts: number,
): Promise<{ rows: MemorySink; rowGroups: Float64Array }> {
  const n = conceptCounts.length;
  // The section whole (checkOpen held its groups to its length): at 1 GiB ~130 MB, read once.
  const bytes = new Uint8Array(rowsLength);
  let filled = 0;
  for await (const piece of pieces) {
    if (filled + piece.length > rowsLength)
      throw new PagesError(`${name}: pages.bin's rows run past their section`);
    bytes.set(piece, filled);
    filled += piece.length;
  }
  const rows = new MemorySink();
  const out = new ByteWriter();
  const offsets = new Float64Array(n + 1);
  let ids = new Uint32Array(16);
  for (let g = 0; g * rowsPerGroup < n; g++) {
    let at = rowGroups[g];
    const end = rowGroups[g + 1];
    for (let k = g * rowsPerGroup; k < Math.min(n, (g + 1) * rowsPerGroup); k++) {
      const m = conceptCounts[k];
      // checkOpen held the counts to the section's bits; decodeRow holds each to its group's.
      if (m > ids.length) ids = new Uint32Array(Math.max(m, ids.length * 2));
      try {
        at = decodeRow(bytes, at, end, m, concepts, ids, 0);
      } catch (e) {
        throw new PagesError(`${name}: pages.bin's rows: chunk ${k}'s row ${messageOf(e)}`);
      }
      encodeDelimitedRow(out, ids.subarray(0, m), concepts);
      offsets[k + 1] = rows.length + out.length;
      if (out.length >= PIECE) rows.write(out.take());
    }
    if (at !== end)
      throw new PagesError(`${name}: pages.bin's rows: row group ${g} holds ${end - at} bytes past its rows`);
  }
  if (out.length > 0) rows.write(out.take());
  return { rows, rowGroups: offsets };
}

/**
 * The records of a part (before version 10 gzip'd JSON groups of `size` at `offsets` from `from`; from version 10,
 * with `recordCoding`, coded groups and the stored dictionary of `dictionaryBytes` after the last group), each group
 * decoded and checked as a reader checks it, written again as `cli index` writes them (write.ts RecordGroupWriter,
 * coded, in DEFAULT_GROUPS' groups): its bytes, the new groups' offsets and the stored dictionary's bytes.
 */
async function recodedRecords(
  source: RangeSource,
  from: number,
  offsets: Float64Array,
  size: number,
  n: number,
  /** Version 10's `recordCoding.dictionary` (undefined: the groups are gzip'd JSON). */
  dictionaryBytes?: number,
): Promise<{ chunks: Uint8Array[]; length: number; offsets: Float64Array; dictionary: number }> {
  const sink = {
    chunks: [] as Uint8Array[],
    length: 0,
    write(bytes: Uint8Array): void {
      this.chunks.push(bytes);
      this.length += bytes.length;
    },
  };
  const writer = new RecordGroupWriter(sink, DEFAULT_GROUPS.records, true);
  let oldDictionary: Uint8Array | undefined;
  if (dictionaryBytes !== undefined && dictionaryBytes > 0) {
    const end = offsets[offsets.length - 1];
    try {
      oldDictionary = decodeDictionary(await source.read(from + end, dictionaryBytes));
    } catch (e) {
      throw new PagesError(`${source.name}: pages.bin records dictionary does not decode (${messageOf(e)})`);
    }
  }
  for (let g = 0; g + 1 < offsets.length; g++) {
    const stored = await source.read(from + offsets[g], offsets[g + 1] - offsets[g]);
    const expected = Math.min(size, n - g * size);
    let group: PagedChunkRecord[];
    try {
      group =
        dictionaryBytes === undefined
          ? checkRecordGroup(decodeJson(stored), expected)
          : decodeRecordGroup(stored, oldDictionary, expected);
    } catch (e) {
      throw new PagesError(`${source.name}: pages.bin records group ${g} does not decode (${messageOf(e)})`);
    }
    for (const record of group) await writer.add(record);
  }
  const { offsets: written, dictionary } = await writer.finish();
  return { chunks: sink.chunks, length: sink.length, offsets: written, dictionary };
}

/**
 * [from, to) of a checked part's sections (offsets without version 13's paths) read from the part as stored, each
 * path after a row block left out: a run of blocks PIECE bytes at a time, one piece a block.
 */
async function* sectionPieces(
  source: RangeSource,
  base: number,
  layout: BlockLayout,
  from: number,
  to: number,
): AsyncGenerator<Uint8Array> {
  if (!layout.paths) {
    yield* pieces(source, base + from, base + to);
    return;
  }
  let b = from < to ? layout.blockOf(from) : layout.count;
  while (b < layout.count && layout.startOf(b) < to) {
    const first = b;
    const storedFrom = layout.storedStartOf(b);
    do b++;
    while (b < layout.count && layout.startOf(b) < to && layout.storedEndOf(b) - storedFrom <= PIECE);
    const stored = await source.read(base + storedFrom, layout.storedEndOf(b - 1) - storedFrom);
    for (let c = first; c < b; c++) {
      const start = Math.max(from, layout.startOf(c));
      const end = Math.min(to, layout.endOf(c));
      const at = layout.storedStartOf(c) - storedFrom + (start - layout.startOf(c));
      yield stored.subarray(at, at + end - start);
    }
  }
}

/** The `terms` and `postings` sections written again, and the term groups' offsets in the new `terms`. */
interface RecodedWords {
  terms: MemorySink;
  postings: MemorySink;
  termGroups: Float64Array;
}

/**
 * A checked part's `terms` and `postings` sections as a writer of `version` writes them (from version 14 each list
 * Rice-coded, postingsCoding.ts): every term group read and checked as a reader checks it, its lists (which lie
 * together in the postings, a group's terms in order) read at once and decoded as a reader decodes them (each refused
 * naming the word), then the group written again by the writers' own writeTermSections, in groups of the part's size.
 */
async function recodedWords(
  source: RangeSource,
  base: number,
  d: PagesDirectory,
  termGroups: ArrayLike<number>,
  version: number,
): Promise<RecodedWords> {
  const size = d.groups.terms;
  const terms = new MemorySink();
  const postings = new MemorySink();
  const [termsAt] = d.sections.terms;
  const [postingsAt, postingsLength] = d.sections.postings;
  const offsets = new Float64Array(termGroups.length);
  for (let g = 0; g + 1 < termGroups.length; g++) {
    const stored = await source.read(base + termsAt + termGroups[g], termGroups[g + 1] - termGroups[g]);
    let entries: TermEntry[];
    try {
      entries = checkTermGroup(decodeJson(stored), Math.min(size, d.termCount - g * size), postingsLength);
    } catch (e) {
      throw new PagesError(`${source.name}: pages.bin's term group ${g} ${messageOf(e)}`);
    }
    let from = postingsLength;
    let to = 0;
    for (const [, at, length, hAt, hLength] of entries) {
      if (length > 0) [from, to] = [Math.min(from, at), Math.max(to, at + length)];
      if (hLength > 0) [from, to] = [Math.min(from, hAt), Math.max(to, hAt + hLength)];
    }
    const bytes = to > from ? await source.read(base + postingsAt + from, to - from) : new Uint8Array(0);
    const listOf = (
      term: string,
      at: number,
      length: number,
    ): ReturnType<typeof decodeVarintPostings> | undefined => {
      if (length === 0) return undefined;
      try {
        return decodeVarintPostings(bytes.subarray(at - from, at - from + length), d.chunkCount);
      } catch (e) {
        throw new PagesError(`${source.name}: pages.bin's postings of "${term}" ${messageOf(e)}`);
      }
    };
    const lists = entries.map((e) => [listOf(e[0], e[1], e[2]), listOf(e[0], e[3], e[4])] as const);
    let i = 0;
    const made = await writeTermSections(
      entries.map((e) => e[0]),
      () => {
        const [text, head] = lists[i++];
        return [text, head];
      },
      terms,
      postings,
      size,
      postingsCodingFor(version),
    );
    offsets[g + 1] = offsets[g] + made[1];
  }
  return { terms, postings, termGroups: offsets };
}

/**
 * A version 1 or 2 pages part (its payload at `base` in `source`, `length` bytes, its directory and block hashes)
 * as version 3, its shares computed with `params`. Reads the part four times: once to check every block against
 * its hash, once to size the new lists, once to hash the new part, and once when `bytes()` is read.
 */
async function upgradePages(
  source: RangeSource,
  location: { base: number; length: number; directory: unknown; hashes: Uint8Array },
  params: ShareParams,
  /** Rows with counts up to this many gzip'd bytes keep the lists (write.ts LISTS_IN_ROWS_BYTES; 0: never). */
  listsInRowsBytes = LISTS_IN_ROWS_BYTES,
  /** Block sizes by section instead of the writer's (write.ts sectionBlocksFor): benches of other layouts. */
  sectionBlocksAsked?: Partial<Record<SectionName, number>>,
  /** The most bytes of rows in a block of whole rows (write.ts ROW_BLOCK_BYTES; 0: none): benches of other sizes. */
  rowBlockBytes = ROW_BLOCK_BYTES,
  /** Version 12: chunks an evidence block (evidenceArrays.ts); 0 (the default): none, as PAGES_VERSION. */
  evidenceEntries?: number,
): Promise<UpgradedPages> {
  const d = checkDirectory(location.directory, location.length);
  const version =
    (evidenceEntries ?? 0) > 0 ? Math.max(PAGES_EVIDENCE_VERSION, PAGES_VERSION) : PAGES_VERSION;
  if (d.version >= version)
    throw new PagesError(`${source.name}: its pages are version ${d.version} already (nothing to upgrade)`);
  const { base, length } = location;
  const oldLayout = blockLayoutOf(d, length);
  const blocks = oldLayout.count;
  const hashBytes = hashBytesOf(d);
  // Version 7's levels of hash pages follow the block hashes (format.ts, hashLevels): the part (checked whole against
  // the manifest's digest) is the length they add up to, and only its block hashes are used; the tree is made anew.
  const expected = hashesPartLength(d, length);
  if (location.hashes.length !== expected)
    throw new PagesError(
      `${source.name}: ${PAGES_HASHES_PART} holds ${location.hashes.length} bytes, expected ${expected} ` +
        `(${blocks} blocks × ${hashBytes} bytes${expected > blocks * hashBytes ? ' and the levels above them' : ''})`,
    );
  const hashes = location.hashes.subarray(0, blocks * hashBytes);

  // Every block checked against its hash before anything is decoded or rewritten; but version 10's blocks of whole
  // rows (rowBlocks) are placed by `open`'s row groups, so for them `open` is decoded and checked first (as a reader
  // and the offline check do: the part was checked whole against the manifest's digest already).
  const checkBlocks = async (): Promise<void> => {
    const oldBlocks = new BlockHasher(oldLayout, 32);
    // Version 13's paths are left out (they are made anew from the hashes the blocks are checked against).
    for await (const piece of sectionPieces(source, base, oldLayout, 0, length - oldLayout.pathsLength))
      oldBlocks.update(piece);
    checkHashes(oldBlocks.finish(), hashes, blocks, hashBytes, source.name);
  };
  if (!d.rowBlocks && !d.evidenceArrays) await checkBlocks();

  const n = d.chunkCount;
  const [openAt, openLength] = d.sections.open;
  const stored = await source.read(base + openAt, openLength);
  const decoded = decodeStructured<PagesOpenV1 | PagesOpenV2 | PagesOpenV6>(
    await gunzip(stored, gzipSize(stored)),
    'pages.bin (open)',
  );
  // Checked as a library's open checks it: every count against its bytes, the IDF and degrees finite and ≥ 0, the
  // offsets byte offsets (a negative IDF looped in idfDfOf, a list offset of Infinity in a varint).
  let full: PagesOpenV1;
  if (d.version === 1) {
    full = decoded as PagesOpenV1;
    checkOpen(source.name, d, full);
  } else {
    const tables = expandOpen(decoded, d.version, n, d.listsInRows === true, residualsOf(d));
    checkOpen(source.name, d, tables);
    if (d.rowBlocks || d.evidenceArrays) {
      if (d.rowBlocks) placeRowBlocks(source.name, d, oldLayout, tables.rowGroups);
      // Version 12's evidence blocks start where `open` says (checked by expandOpen).
      placeEvidenceBlocks(d, oldLayout, tables.evidenceStarts);
      await checkBlocks();
    }
    // Version 12's, 13's and 14's sections are version 15's but the words' (the postings re-coded, postingsCoding.ts,
    // and so the term groups' offsets in `open`; version 14's copied) and the rows' (re-coded, rowsCoding.ts, and so
    // the row groups' offsets in `open` and the rows' blocks): the others copied as they are, each row block followed by its path (the
    // block hashes made anew), under a tree whose leaf pages' hashes are their roots (blockPaths.ts). As `cli index`
    // writes a library at the writers' defaults, which the options of benches would change. (The generic path below
    // cannot read version 12's packed lists or its tokens in evidence blocks; nothing of them changes.)
    if (
      d.version >= 12 &&
      // The layout the generic path would keep: lists in the rows, or rows too long to take them.
      (d.listsInRows === true || d.sections.rows[1] > listsInRowsBytes * 4) &&
      sectionBlocksAsked === undefined &&
      rowBlockBytes === ROW_BLOCK_BYTES &&
      evidenceEntries === undefined
    )
      return recodedPart(
        source,
        base,
        d,
        oldLayout,
        decoded as unknown as Record<string, unknown>,
        tables,
        params,
        version,
      );
    if (d.version >= 12)
      throw new PagesError(
        `${source.name}: its pages are version ${d.version}, whose sections but the words' and the rows' version ${version} ` +
          "keeps: upgraded at the writers' defaults only (no other block sizes, evidence blocks or lists in the rows)",
      );
    // Version 2's exact degrees, from their section (checkDirectory: 8 bytes a concept).
    const [degreesAt, degreesLength] = d.sections.degrees;
    const raw = await source.read(base + degreesAt, degreesLength);
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    const degrees = new Float64Array(d.conceptCount);
    for (let c = 0; c < degrees.length; c++) {
      degrees[c] = view.getFloat64(c * 8, true);
      if (!(degrees[c] >= 0 && degrees[c] < Infinity))
        throw new PagesError(
          `${source.name}: pages.bin (degrees) has a walk degree that is not a finite number ≥ 0`,
        );
    }
    const { degreeCodes: _codes, degrees: _none, singleCode: _single, ...rest } = tables;
    // Versions 2 to 11 (this path) keep every chunk's concept count in `open` (version 16 may not); the keys keep
    // their order (the `open` written again is the writers' byte for byte).
    const { conceptCounts } = rest;
    if (!conceptCounts) throw new PagesError(`${source.name}: pages.bin (open) has no conceptCounts`);
    full = { ...rest, conceptCounts, degrees };
  }
  const oldOffsets = full.listOffsets;
  const listsFrom = base + d.sections.lists[0];
  // Version 3's lists are version 4's (without listsInRows): copied as they are. Older ones lose their shares.
  const copied = d.version >= 3;
  const newLists = copied
    ? () => pieces(source, listsFrom, listsFrom + d.sections.lists[1])
    : () => listsWithoutShares(source, listsFrom, oldOffsets, full.df, n, params);
  // The new lists' offsets, for `open` (which comes first in the part): each list less its df shares of 4 bytes,
  // checked against what a pass over the lists writes (which checks every list and its shares first).
  const listOffsets = copied ? oldOffsets : new Float64Array(oldOffsets.length);
  if (!copied)
    for (let c = 0; c < full.df.length; c++)
      listOffsets[c + 1] = listOffsets[c] + (oldOffsets[c + 1] - oldOffsets[c]) - 4 * full.df[c];
  let listBytes = 0;
  for await (const piece of newLists()) listBytes += piece.length;
  if (listOffsets[full.df.length] !== listBytes)
    throw new PagesError(`${source.name}: pages.bin's lists do not add up once their shares are dropped`);
  const [rowsAt, rowsLength] = d.sections.rows;
  // A library small enough keeps its lists in its rows, as `cli index` writes it (write.ts, rowsWithCounts); a
  // version 4 part that keeps them already is copied as it is.
  // A version 6 group (coded by concept already) is copied as it is: version 7 changes the block size and the block
  // hashes, not the group, and a reader checks the group as it decodes it, as it checks any other.
  const inRows = d.listsInRows
    ? d.version >= 6
      ? await source.read(base + rowsAt, rowsLength)
      : await recodedRows(
          source.name,
          await source.read(base + rowsAt, rowsLength),
          full.df,
          full.conceptCounts,
        )
    : rowsLength <= listsInRowsBytes * 4
      ? await rowsWithCounts(
          await linksOf(
            source,
            base + rowsAt,
            rowsLength,
            newLists,
            listOffsets,
            full.df,
            full.conceptCounts,
          ),
          await countsOf(newLists, listOffsets, full.df),
          listsInRowsBytes,
        )
      : undefined;
  // Version 12's lists packed into blocks (listPacking.ts), as the writers pack them.
  const packed = inRows ? undefined : await packedLists(newLists, listOffsets, full.df);
  // Version 15's rows (rowsCoding.ts): every row read, checked and written again as Rice codes, in groups of one.
  // Version 16's rows start with their counts (rowsDelimited) when they are in blocks of whole rows.
  const sectionBlocks = sectionBlocksAsked ?? sectionBlocksFor(version, inRows !== undefined);
  const delimit = !inRows && delimitsRows(version, sectionBlocks, rowBlockBytes);
  const riced =
    !inRows && rowsCodingFor(version, false)
      ? await riceRows(
          source.name,
          pieces(source, base + rowsAt, base + rowsAt + rowsLength),
          full.conceptCounts,
          n,
          d.conceptCount,
          delimit,
        )
      : undefined;
  const rowGroups = inRows
    ? // No lists section, and the rows one group.
      Float64Array.from([0, inRows.length])
    : (riced?.rowGroups ??
      // Version 5's rows groups (write.ts DEFAULT_GROUPS): the rows are the same bytes, cut elsewhere.
      (await regroupedRows(source, base + rowsAt, rowsLength, full.conceptCounts, n, DEFAULT_GROUPS.rows)));
  // Version 10's records (recordCoding.ts): every group read, checked as a reader checks it, and written again as
  // `cli index` writes it (DEFAULT_GROUPS' records a group, coded, with a dictionary trained from the first groups).
  const records = await recodedRecords(
    source,
    base + d.sections.records[0],
    full.recordGroups,
    d.groups.records,
    n,
    d.recordCoding?.dictionary,
  );
  // Version 14's postings (postingsCoding.ts): the words' sections written again, and their groups' offsets.
  const words = await recodedWords(source, base, d, full.termGroups, version);
  full = { ...full, recordGroups: records.offsets, termGroups: words.termGroups };
  // Version 10's rows in blocks of whole rows, cut at the new row groups (rowBlocksFor).
  const rowBlocks = rowBlocksFor(version, inRows !== undefined, sectionBlocks, rowGroups, rowBlockBytes);
  const rowsDelimited = rowsDelimitedFor(version, rowBlocks);
  if ((rowsDelimited !== undefined) !== delimit)
    throw new Error('pages: the upgrade delimited rows it does not put in blocks, or the other way round');
  const written = await openSections(
    inRows
      ? { ...full, listOffsets: new Float64Array(listOffsets.length), rowGroups }
      : { ...full, listOffsets: packed!.starts, rowGroups },
    n,
    version,
    inRows !== undefined,
    inRows ? Math.max(1, n) : DEFAULT_GROUPS.rows,
    DEFAULT_GROUPS.records,
    evidenceEntries ?? writerEvidenceEntries(version, inRows !== undefined),
    rowsDelimited && rowBlocks?.size,
  );
  const evidenceBlocks = written.evidence?.blocks ?? [];

  const lengths = Object.fromEntries(SECTIONS.map((name) => [name, d.sections[name][1]])) as Record<
    SectionName,
    number
  >;
  lengths.open = written.open.length;
  lengths.records = records.length + (written.evidence?.field.bytes ?? 0);
  lengths.lists = packed ? packed.bytes.length : 0;
  lengths.rows = inRows ? inRows.length : riced ? riced.rows.length : rowsLength;
  lengths.degrees = written.degrees.length;
  lengths.terms = words.terms.length;
  lengths.postings = words.postings.length;
  const { sections, total } = sectionTable(lengths, version);

  // The concepts are copied as they are, then the rows (or the rows made anew with the lists in them).
  const [conceptsAt] = d.sections.concepts;
  const [listsAt] = d.sections.lists;
  const sectionBytes = async function* (): AsyncGenerator<Uint8Array> {
    yield written.open;
    yield* records.chunks;
    yield* evidenceBlocks;
    yield* words.terms.chunks;
    yield* words.postings.chunks;
    yield* pieces(source, base + conceptsAt, base + listsAt);
    if (inRows) yield inRows;
    else {
      yield packed!.bytes;
      if (riced) yield* riced.rows.chunks;
      else yield* pieces(source, base + rowsAt, base + rowsAt + rowsLength);
    }
    yield written.degrees;
  };
  // Version 3's hashes: SHA-256 cut to BLOCK_HASH_BYTES (format.ts says why that is enough).
  // The writer's block size: version 7's 1 KiB for a part that keeps its lists in its rows, version 5's 512 bytes
  // for another (write.ts, defaultBlockSize).
  // Version 8's rows in blocks of their own for a part that does not keep its lists in its rows (sectionBlocksFor).
  const blockSize = defaultBlockSize(version, inRows !== undefined);
  const newLayout = writtenBlocks(
    version,
    blockSize,
    sections,
    sectionBlocks,
    total,
    rowBlocks && { rows: rowBlocks, rowGroups },
    written.evidence,
  );
  const newBlocks = new BlockHasher(newLayout, blockHashBytes(version));
  // Version 13's paths (blockPaths.ts) follow from the block hashes: the part as stored takes a second pass.
  const paths = blockPathsOf(version, newLayout, sections.lists[1]);
  let whole = new Sha256();
  let made = 0;
  for await (const piece of sectionBytes()) {
    newBlocks.update(piece);
    if (!paths) whole.update(piece);
    made += piece.length;
  }
  if (made !== total)
    throw new PagesError(`${source.name}: the upgraded pages are not the length they add up to`);
  const leaves = newBlocks.finish();
  const bytes = (): AsyncIterable<Uint8Array> => storedBytesAsync(sectionBytes(), paths, leaves);
  if (paths) {
    whole = new Sha256();
    for await (const piece of bytes()) whole.update(piece);
  }
  const newHashes = hashPartOf(version, blockSize, leaves, paths !== undefined);
  return {
    directory: pagesDirectory(
      {
        blockSize,
        chunkCount: d.chunkCount,
        conceptCount: d.conceptCount,
        termCount: d.termCount,
        headingCopies: d.headingCopies,
        thetaCo: d.thetaCo,
        analyzer: d.analyzer,
        shares: params,
        listsInRows: inRows !== undefined,
        sections,
        // The sections are copied as they are: their groups keep the sizes they were written with (rows that keep
        // the lists are one group; other rows are cut into version 5's groups).
        groups: {
          ...d.groups,
          records: DEFAULT_GROUPS.records,
          rows: inRows ? Math.max(1, n) : DEFAULT_GROUPS.rows,
        },
        hashPages: newHashes.hashPages,
        sectionBlocks,
        openResiduals: written.openResiduals,
        openCoding: written.openCoding,
        listCoding: written.listCoding,
        rowBlocks,
        recordCoding: { dictionary: records.dictionary },
        ...(written.evidence ? { evidenceArrays: written.evidence.field } : {}),
        ...(paths ? { blockPaths: paths.field } : {}),
        postingsCoding: postingsCodingFor(version),
        rowsCoding: rowsCodingFor(version, inRows !== undefined),
        rowsDelimited,
      },
      version,
    ),
    hashes: newHashes.bytes,
    sha256: whole.digest(),
    length: total + (paths ? paths.zone.count * PATH_BYTES : 0),
    bytes,
  };
}

/**
 * A checked version 12, 13 or 14 part (its blocks placed and checked against their hashes) as `version` (15): its
 * words' sections written again (recodedWords) unless they are coded already (version 14's postingsCoding), its rows
 * written again as Rice codes (riceRows; rows that keep the lists are copied), `open` with the new groups' offsets,
 * every other section copied as it is (a version 13 or 14 part's paths left out), the rows' paths after their blocks
 * and the tree of hash pages made anew.
 */
async function recodedPart(
  source: RangeSource,
  base: number,
  d: PagesDirectory,
  oldLayout: BlockLayout,
  storedOpen: Record<string, unknown>,
  tables: {
    termGroups: Float64Array;
    rowGroups: Float64Array;
    conceptCounts?: Uint32Array;
    evidenceStarts?: Float64Array;
  },
  params: ShareParams,
  version: number,
): Promise<UpgradedPages> {
  const words = d.postingsCoding
    ? undefined
    : await recodedWords(source, base, d, tables.termGroups, version);
  const [rowsAt, rowsLength] = d.sections.rows;
  // Version 16's rows start with their counts (rowsDelimited): version 15's are decoded and written again.
  const delimit =
    d.listsInRows !== true && !d.rowsDelimited && delimitsRows(version, d.sectionBlocks, ROW_BLOCK_BYTES);
  const counts = (): Uint32Array => {
    if (!tables.conceptCounts) throw new PagesError(`${source.name}: pages.bin (open) has no conceptCounts`);
    return tables.conceptCounts;
  };
  const rowPieces = () => sectionPieces(source, base, oldLayout, rowsAt, rowsAt + rowsLength);
  const riced =
    rowsCodingFor(version, d.listsInRows === true) && !d.rowsCoding
      ? await riceRows(source.name, rowPieces(), counts(), d.chunkCount, d.conceptCount, delimit)
      : delimit
        ? await delimitedRows(
            source.name,
            rowPieces(),
            rowsLength,
            counts(),
            tables.rowGroups,
            d.groups.rows,
            d.conceptCount,
          )
        : undefined;
  let newOpen = words ? withTermGroups(storedOpen, words.termGroups) : storedOpen;
  let openCoding = d.openCoding;
  if (riced) {
    if (!openCoding)
      throw new PagesError(`${source.name}: its pages are version ${d.version} without openCoding`);
    if (delimit) {
      newOpen = delimitedOpen(newOpen, riced.rowGroups, ROW_BLOCK_BYTES, DEFAULT_GROUPS.rows);
      openCoding = { ...openCoding, countsPerLength: 0, rowBytesPerCount: 0 };
    } else
      ({ open: newOpen, openCoding } = withRowGroups(
        newOpen,
        riced.rowGroups,
        counts(),
        DEFAULT_GROUPS.rows,
        openCoding,
      ));
  }
  const open = await gzip(encodeStructured(newOpen));
  const rowGroups = riced?.rowGroups ?? tables.rowGroups;
  const rowBlocks = riced ? rowBlocksFor(version, false, d.sectionBlocks, rowGroups) : d.rowBlocks;
  const lengths = Object.fromEntries(SECTIONS.map((name) => [name, d.sections[name][1]])) as Record<
    SectionName,
    number
  >;
  lengths.open = open.length;
  if (words) {
    lengths.terms = words.terms.length;
    lengths.postings = words.postings.length;
  }
  if (riced) lengths.rows = riced.rows.length;
  const { sections, total } = sectionTable(lengths, version);
  const sectionBytes = async function* (): AsyncGenerator<Uint8Array> {
    yield open;
    yield* sectionPieces(source, base, oldLayout, d.sections.records[0], d.sections.terms[0]);
    if (words) {
      yield* words.terms.chunks;
      yield* words.postings.chunks;
    } else yield* sectionPieces(source, base, oldLayout, d.sections.terms[0], d.sections.concepts[0]);
    const end = d.sections.degrees[0] + d.sections.degrees[1];
    if (riced) {
      yield* sectionPieces(source, base, oldLayout, d.sections.concepts[0], rowsAt);
      yield* riced.rows.chunks;
      yield* sectionPieces(source, base, oldLayout, d.sections.degrees[0], end);
    } else yield* sectionPieces(source, base, oldLayout, d.sections.concepts[0], end);
  };
  const layout =
    d.sectionBlocks || rowBlocks || d.evidenceArrays
      ? blockLayoutOf(
          {
            version,
            blockSize: d.blockSize,
            sections,
            sectionBlocks: d.sectionBlocks,
            rowBlocks,
            evidenceArrays: d.evidenceArrays,
          },
          total,
          rowGroups,
          tables.evidenceStarts,
        )
      : d.blockSize;
  const blocks = new BlockHasher(layout, blockHashBytes(version));
  let made = 0;
  for await (const piece of sectionBytes()) {
    blocks.update(piece);
    made += piece.length;
  }
  if (made !== total)
    throw new PagesError(`${source.name}: the upgraded pages are not the length they add up to`);
  const leaves = blocks.finish();
  const paths = blockPathsOf(version, layout, sections.lists[1]);
  const bytes = (): AsyncIterable<Uint8Array> => storedBytesAsync(sectionBytes(), paths, leaves);
  const whole = new Sha256();
  for await (const piece of bytes()) whole.update(piece);
  const newHashes = hashPartOf(version, d.blockSize, leaves, paths !== undefined);
  const {
    format: _f,
    version: _v,
    hashBytes: _h,
    hashPages: _p,
    shares: _s,
    blockPaths: _b,
    sections: _x,
    ...fields
  } = d;
  return {
    directory: pagesDirectory(
      {
        ...fields,
        sections,
        shares: params,
        hashPages: newHashes.hashPages,
        ...(paths ? { blockPaths: paths.field } : {}),
        postingsCoding: postingsCodingFor(version),
        ...(riced
          ? {
              openCoding,
              rowBlocks,
              groups: { ...d.groups, rows: DEFAULT_GROUPS.rows },
              rowsCoding: rowsCodingFor(version, false),
              rowsDelimited: rowsDelimitedFor(version, rowBlocks),
            }
          : {}),
      },
      version,
    ),
    hashes: newHashes.bytes,
    sha256: whole.digest(),
    length: total + (paths ? paths.zone.count * PATH_BYTES : 0),
    bytes,
  };
}

/**
 * A version 3 bundle's parts with its pages upgraded to the current version: every other part copied as stored
 * (checked against its SHA-256 as it is copied), and the manifest's head (creation time, parameters, counts) kept.
 * The shares are checked against the parameters the bundle was built with (its head's, else the defaults).
 */
export async function upgradeBundleParts(
  source: RangeSource,
  manifest: BundleManifest,
  /** As the writer's (write.ts LISTS_IN_ROWS_BYTES); tests make a small library upgrade as a large one with 0. */
  listsInRowsBytes = LISTS_IN_ROWS_BYTES,
  /** Block sizes by section instead of the writer's (benches of other layouts: test/bench/section-blocks.ts). */
  sectionBlocksAsked?: Partial<Record<SectionName, number>>,
  /** The most bytes of rows in a block of whole rows instead of the writer's (write.ts ROW_BLOCK_BYTES; 0: none). */
  rowBlockBytes = ROW_BLOCK_BYTES,
  /** Version 12: chunks an evidence block (evidenceArrays.ts); absent: the writers' (writerEvidenceEntries); 0: none. */
  evidenceEntries?: number,
): Promise<{ parts: Array<BundlePart | StreamedPart>; base: ManifestBase; from: number; to: number }> {
  const pagesEntry = manifest.parts.find((p) => p.name === PAGES_PART);
  const hashesEntry = manifest.parts.find((p) => p.name === PAGES_HASHES_PART);
  if (!pagesEntry || !hashesEntry || pagesEntry.offset === undefined || hashesEntry.offset === undefined)
    throw new BundleError('invalid-content', `${source.name} has no ${PAGES_PART} to upgrade`);
  const hashes = await pagesHashes(source, hashesEntry);
  checkDisjointParts(source.name, manifest.parts, source.size);
  const from = (pagesEntry.meta as { version?: number } | undefined)?.version ?? 0;
  const built = resolveParams();
  const given = manifest.params ?? {};
  const number = (key: keyof ShareParams): number =>
    typeof given[key] === 'number' && Number.isFinite(given[key]) ? given[key] : built[key];
  const pages = await upgradePages(
    source,
    { base: pagesEntry.offset, length: pagesEntry.length, directory: pagesEntry.meta, hashes },
    { tfSpread: number('tfSpread'), chunkScorePower: number('chunkScorePower') },
    listsInRowsBytes,
    sectionBlocksAsked,
    rowBlockBytes,
    evidenceEntries,
  );
  const parts = manifest.parts.map((entry): BundlePart | StreamedPart => {
    if (entry.name === PAGES_PART)
      return {
        name: PAGES_PART,
        kind: 'binary',
        count: entry.count,
        length: pages.length,
        sha256: pages.sha256,
        meta: pages.directory as unknown as Record<string, unknown>,
        chunks: pages.bytes,
      };
    if (entry.name === PAGES_HASHES_PART)
      return {
        name: PAGES_HASHES_PART,
        kind: 'binary',
        encoding: 'identity',
        count: blockLayoutOf(pages.directory, pages.length).count,
        data: pages.hashes,
      };
    const at = entry.offset;
    if (at === undefined)
      throw new BundleError(
        'invalid-content',
        `${source.name}: part ${entry.name} has no offset`,
        entry.name,
      );
    return {
      name: entry.name,
      kind: entry.kind,
      count: entry.count,
      length: entry.length,
      sha256: fromHex(entry.sha256),
      encoding: entry.encoding,
      rawLength: entry.rawLength,
      ...(entry.meta ? { meta: entry.meta } : {}),
      chunks: async function* () {
        const digest = new Sha256();
        for await (const piece of pieces(source, at, at + entry.length)) {
          digest.update(piece);
          yield piece;
        }
        if (toHex(digest.digest()) !== entry.sha256)
          throw new BundleError(
            'corrupted',
            `corrupted (SHA-256 mismatch in part ${entry.name})`,
            entry.name,
          );
      },
    };
  });
  // The part counts are the writer's to add (the pages' hash count changes with the part's length).
  const counts = { ...manifest.counts };
  for (const entry of manifest.parts) delete counts[entry.name];
  return {
    parts,
    base: {
      appVersion: manifest.appVersion,
      createdAt: manifest.createdAt,
      embedder: manifest.embedder,
      params: manifest.params,
      counts,
    },
    from,
    to: pages.directory.version,
  };
}

/**
 * Each part once, in bytes of its own inside the file: a manifest whose entries share bytes (under other names)
 * would have each written out again (1.14 MB in, 301 MB out), so it is refused before anything is written.
 */
function checkDisjointParts(name: string, entries: readonly PartEntry[], size: number): void {
  const names = new Set<string>();
  const spans: Array<[number, number, string]> = [];
  for (const e of entries) {
    if (names.has(e.name))
      throw new BundleError('corrupted', `${name}: part ${e.name} is listed twice`, e.name);
    names.add(e.name);
    const at = e.offset;
    if (
      !Number.isSafeInteger(at) ||
      !Number.isSafeInteger(e.length) ||
      at! < 0 ||
      e.length < 0 ||
      at! + e.length > size
    )
      throw new BundleError('corrupted', `${name}: corrupted (part ${e.name} lies outside the file)`, e.name);
    spans.push([at!, at! + e.length, e.name]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < spans.length; i++) {
    const [start, , later] = spans[i];
    const [, end, earlier] = spans[i - 1];
    if (start < end)
      throw new BundleError(
        'corrupted',
        `${name}: parts ${earlier} and ${later} share bytes (each part has bytes of its own)`,
        later,
      );
  }
}

function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
