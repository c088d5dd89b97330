// Hostile paged indexes made on the fly (issue 43): an honest library's pages (written by the app's own writer from
// a frozen fixture) taken apart into their sections and `open` value, changed, and put back together with every
// offset, section table and block hash recomputed, so that the digest chain holds and only the reader's checks can
// refuse what was changed. Used by test/unit/paged/hostilePages.test.ts, the fuzzer (test/unit/paged/fuzz*.ts),
// test/bench/hostile-bundles.ts and the e2e spec hostile-bundles.spec.ts.
import { gunzipSync, gzipSync } from 'node:zlib';
import { prepareCorpus } from '../../src/cli/benchData.ts';
import {
  bundleBytes,
  concatBytes,
  decodeStructured,
  encodeStructured,
  writeBundle,
} from '../../src/core/bundle/index.ts';
import {
  blockLayoutOf,
  HASH_LEAF_BYTES,
  LIST_PATHS_VERSION,
  HASH_PAGE_BYTES,
  sectionsOf,
  type PagedChunkRecord,
  type PagesDirectory,
  type PagesOpenV1,
  type PagesOpenV2,
  type SectionName,
} from '../../src/core/paged/format.ts';
import { ByteReader, ByteWriter } from '../../src/core/paged/bytes.ts';
import { rowBlockStarts } from '../../src/core/paged/blockLayout.ts';
import {
  decodeDictionary,
  decodeRecords,
  deflateWithLength,
  inflateWithLength,
} from '../../src/core/paged/recordCoding.ts';
import {
  BlockHasher,
  blockPathsOf,
  hashPagesOf,
  hashTreeOf,
  pagesParts,
  storedBytes,
  writePagedIndex,
} from '../../src/core/paged/write.ts';
import { BLOCK_PATHS_VERSION, PATH_BYTES } from '../../src/core/paged/blockPaths.ts';
import { RetrievalEngine } from '../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';

/** The frozen corpus the honest pages are written from (20 Wikipedia-like passages, 32 KB). */
export const PAGES_CORPUS = 'test/fixtures/2wiki-comparison-20/corpus.jsonl';

export interface WrittenPagesLike {
  data: Uint8Array;
  hashes: Uint8Array;
  directory: PagesDirectory;
}

/** A pages part taken apart: its directory, each section's bytes, and the decoded `open` value. */
export interface PagesPieces {
  directory: PagesDirectory;
  sections: Record<SectionName, Uint8Array>;
  open: PagesOpenV1 & PagesOpenV2;
}

const honest = new Map<string, Promise<WrittenPagesLike>>();

/**
 * The honest pages of the fixture corpus (version 1 to 6, blocks of `blockSize`), written once per process;
 * `listsInRowsBytes` 0 writes the layout of a library too large to keep its lists in its rows (version 5 and 6: with
 * `blockSize` 512 and rows in groups of 2, what `cli index` writes for one).
 */
export function honestPages(
  version = 2,
  blockSize = 4096,
  listsInRowsBytes?: number,
  /** Version 8: block sizes by section (the large layout's rows in blocks of their own). */
  sectionBlocks?: Partial<Record<SectionName, number>>,
  /** Version 12: chunks an evidence block (evidenceArrays); 0: none. */
  evidenceEntries = 0,
): Promise<WrittenPagesLike> {
  const key = `${version}/${blockSize}/${listsInRowsBytes}/${JSON.stringify(sectionBlocks)}/${evidenceEntries}`;
  let made = honest.get(key);
  if (!made) {
    made = (async () => {
      const corpus = await prepareCorpus(PAGES_CORPUS, 1200);
      const engine = RetrievalEngine.build(
        { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
        createTermAnalyzer(),
      );
      return writePagedIndex(
        engine.lexicalParts(),
        (docId) => ({ title: `title of ${docId}` }),
        blockSize,
        version,
        undefined,
        listsInRowsBytes,
        sectionBlocks,
        undefined,
        evidenceEntries,
      );
    })();
    honest.set(key, made);
  }
  return made;
}

/** Takes written pages apart (copies: changing the pieces changes nothing else). */
export function piecesOf(written: WrittenPagesLike): PagesPieces {
  const d = written.directory;
  const sections = {} as Record<SectionName, Uint8Array>;
  // Version 13's paths (honest pages: the rows' blocks each followed by one) lie after the rows' blocks: the rows
  // are taken without them, and the sections after them from where they lie. Version 17's lists' blocks carry
  // theirs too: the lists taken block by block without them, and the rows and the degrees after them.
  const layout = d.blockPaths ? blockLayoutOf(d, written.data.length) : undefined;
  const paths = layout?.pathsLength ?? 0;
  const rowsPaths = d.blockPaths ? d.rowBlocks!.count * PATH_BYTES : 0;
  const listsPaths = paths - rowsPaths;
  for (const name of sectionsOf(d.version)) {
    const [at, length] = d.sections[name];
    const shift = name === 'degrees' ? paths : 0;
    sections[name] = written.data.slice(at + shift, at + shift + length);
  }
  if (layout && listsPaths > 0) {
    const [at, length] = d.sections.lists;
    const lists = new Uint8Array(length);
    for (let b = layout.blockOf(at); b <= layout.blockOf(at + length - 1); b++) {
      const [from, to] = [Math.max(at, layout.startOf(b)), Math.min(at + length, layout.endOf(b))];
      const stored = layout.storedStartOf(b) + (from - layout.startOf(b));
      lists.set(written.data.subarray(stored, stored + (to - from)), from - at);
    }
    sections.lists = lists;
  }
  if (d.version === 1) sections.degrees = new Uint8Array(0);
  // A copy into a plain Uint8Array: a Buffer's slice() is a view, and decodeStructured copies arrays by slice().
  const open = decodeStructured<PagesOpenV1 & PagesOpenV2>(new Uint8Array(gunzipSync(sections.open)), 'open');
  const pieces = { directory: structuredClone(d), sections, open };
  if (paths) {
    const [at, length] = d.sections.rows;
    const stored = written.data.subarray(at + listsPaths, at + listsPaths + length + rowsPaths);
    const starts = rowBlockStarts(rowOffsets(pieces)!, d.rowBlocks!.size);
    const rows = new Uint8Array(length);
    starts.forEach((start, i) => {
      const end = i + 1 < starts.length ? starts[i + 1] : length;
      rows.set(stored.subarray(start + i * PATH_BYTES, end + i * PATH_BYTES), start);
    });
    pieces.sections.rows = rows;
  }
  return pieces;
}

/**
 * The pages of these pieces: `open` encoded again (unless `rawOpen` gives its bytes), sections laid out in order,
 * the directory's section table and the block hashes recomputed (unless `keepSections` keeps the table as it is),
 * and their hash pages' top list (unless `keepHashPages`).
 */
export function assemble(
  p: PagesPieces,
  options: {
    rawOpen?: Uint8Array;
    keepSections?: boolean;
    keepHashPages?: boolean;
    /** Version 10: keep the directory's rowBlocks.count as the case set it (else the count the rows' groups make). */
    keepRowBlocks?: boolean;
    /** Version 10: hash the rows' blocks as these row groups cut them (a case whose `open` lies about its groups). */
    rowGroupsHashed?: ArrayLike<number>;
  } = {},
): WrittenPagesLike {
  const sections = {
    ...p.sections,
    open: options.rawOpen ?? new Uint8Array(gzipSync(encodeStructured(p.open))),
  };
  const names = sectionsOf(p.directory.version);
  const total = names.reduce((n, name) => n + sections[name].length, 0);
  const data = new Uint8Array(total);
  const table = {} as Record<SectionName, [number, number]>;
  let at = 0;
  for (const name of names) {
    data.set(sections[name], at);
    table[name] = [at, sections[name].length];
    at += sections[name].length;
  }
  // Hashed in the directory's blocks when they are a size at all (a fuzzed blockSize of 1e-300 would never end).
  const blockSize = p.directory.blockSize;
  // In the directory's hash length when it is one a reader takes (a fuzzed hashBytes is refused before use).
  const hashBytes = p.directory.hashBytes === 16 ? 16 : 32;
  const directory: PagesDirectory = options.keepSections
    ? { ...p.directory }
    : { ...p.directory, sections: { ...p.directory.sections, ...table } };
  const size = Number.isSafeInteger(blockSize) && blockSize >= 512 ? blockSize : 4096;
  // Version 8's blocks by section when the directory's are sizes a reader takes (a fuzzed one is refused before use).
  const own = directory.sectionBlocks as unknown;
  const byLayout =
    directory.version >= 8 &&
    own !== null &&
    typeof own === 'object' &&
    !Array.isArray(own) &&
    Object.entries(own).every(
      ([name, x]) =>
        (names as readonly string[]).includes(name) && Number.isSafeInteger(x) && (x as number) >= 128,
    );
  // Version 10's blocks of whole rows when the directory's size is one a reader takes: cut where the pieces' row
  // groups say (rowBlockStarts), or the rows one block when those are not byte offsets covering the section (a case
  // that changed them: checkOpen refuses them before a block is placed).
  const rows = directory.rowBlocks as unknown;
  const rowSize = rows !== null && typeof rows === 'object' ? (rows as { size?: unknown }).size : undefined;
  const byRows =
    directory.version >= 10 &&
    Number.isSafeInteger(rowSize) &&
    (rowSize as number) >= 64 &&
    (rowSize as number) <= 1 << 20;
  let rowStarts: number[] = [];
  let rowGroups: ArrayLike<number> = [0];
  if (byRows) {
    const offsets = rowOffsets(p);
    const length = sections.rows.length;
    const covering =
      offsets !== undefined &&
      offsets[0] === 0 &&
      offsets[offsets.length - 1] === length &&
      offsets.every((x, i) => Number.isSafeInteger(x) && (i === 0 || x >= offsets[i - 1]));
    rowGroups = options.rowGroupsHashed ?? (covering ? offsets : [0, length]);
    rowStarts = rowBlockStarts(rowGroups, rowSize as number);
    if (!options.keepRowBlocks && covering)
      directory.rowBlocks = { size: rowSize as number, count: rowStarts.length };
  }
  // Version 12's evidence blocks, each a block of its own, placed where the pieces' `evidenceBlocks` say when they cut
  // the field's bytes in its count of blocks (else hashed as version 11 hashes: a reader refuses the part first).
  const evidence = evidenceStartsOf(p, directory);
  const blocksOf =
    byLayout || byRows || evidence
      ? blockLayoutOf(
          {
            ...directory,
            blockSize: size,
            sectionBlocks: byLayout ? directory.sectionBlocks : undefined,
            rowBlocks: byRows ? { size: rowSize as number, count: rowStarts.length } : undefined,
            evidenceArrays: evidence ? directory.evidenceArrays : undefined,
            sections: { ...directory.sections, ...table },
          },
          total,
          byRows ? rowGroups : undefined,
          evidence,
        )
      : size;
  const hasher = new BlockHasher(blocksOf, hashBytes);
  hasher.update(data);
  const hashes = hasher.finish();
  // Hash pages as the writer gives them, for these hashes (unless `keepHashPages`: a case that changed the field).
  const hp = p.directory.hashPages;
  if (!options.keepHashPages && hp && typeof hp === 'object' && hp.size === HASH_PAGE_BYTES)
    directory.hashPages = hashPagesOf(hashes, hp.size);
  // Version 7's tree (write.ts, hashTreeOf): the levels the writer gives these hashes follow them in the part, and the
  // directory gets their top list (unless `keepHashPages`: then the tree is honest and the field as the case made it).
  let part = hashes;
  // Version 13's paths when the directory has the field (whatever it says: the reader checks it) and the pieces make
  // a zone of whole rows to write them after, under 16-byte hashes in leaf pages of 8.
  const layoutOf = blocksOf;
  const zones: unknown = (directory.blockPaths as { zones?: unknown } | undefined)?.zones;
  const listPaths = Array.isArray(zones) && zones.includes('lists');
  const paths =
    directory.blockPaths !== undefined &&
    byRows &&
    hashBytes === 16 &&
    typeof layoutOf !== 'number' &&
    hp?.size === HASH_LEAF_BYTES
      ? // Version 17's lists too when the field names them (as blockLayoutOf lays a reader's part out).
        blockPathsOf(
          listPaths ? LIST_PATHS_VERSION : BLOCK_PATHS_VERSION,
          layoutOf,
          listPaths ? sections.lists.length : 0,
        )
      : undefined;
  if (hp && typeof hp === 'object' && Array.isArray(hp.levels) && hp.size === HASH_LEAF_BYTES) {
    // The levels the pieces give (a case may ask for more than the writer gives), else the writer's.
    const asked = hp.levels as unknown[];
    const honestLevels =
      !options.keepHashPages &&
      asked.length <= 4 &&
      asked.every((x) => Number.isSafeInteger(x) && (x as number) >= 128 && (x as number) % 16 === 0);
    const tree = honestLevels
      ? hashTreeOf(hashes, asked as number[], undefined, paths !== undefined)
      : hashTreeOf(hashes, undefined, undefined, paths !== undefined);
    part = tree.bytes;
    if (!options.keepHashPages) directory.hashPages = tree.hashPages;
  }
  if (directory.version === 1 && !options.keepSections) {
    const { degrees: _degrees, ...v1 } = directory.sections;
    directory.sections = v1 as PagesDirectory['sections'];
  }
  if (paths) return { data: concatBytes([...storedBytes([data], paths, hashes)]), hashes: part, directory };
  return { data, hashes: part, directory };
}

/**
 * Version 12: where the pieces' evidence blocks start, when `open.evidenceBlocks` are varints of the directory's
 * count of sizes ≥ 1 summing to its bytes, within the records section; else undefined.
 */
function evidenceStartsOf(p: PagesPieces, d: PagesDirectory): number[] | undefined {
  const field = d.evidenceArrays as unknown as Record<string, unknown> | undefined;
  const sizes = (p.open as unknown as Record<string, unknown>).evidenceBlocks;
  if (d.version < 12 || !field || typeof field !== 'object' || !(sizes instanceof Uint8Array))
    return undefined;
  const { count, bytes } = field;
  if (!Number.isSafeInteger(count) || !Number.isSafeInteger(bytes)) return undefined;
  const starts: number[] = [];
  let at = 0;
  const r = new ByteReader(sizes);
  try {
    while (r.at < sizes.length) {
      const size = r.varint();
      if (size < 1) return undefined;
      starts.push(at);
      at += size;
    }
  } catch {
    return undefined;
  }
  const fits = starts.length === count && at === bytes && at <= p.sections.records.length;
  return fits ? starts : undefined;
}

/** A grouped section's groups (by the `open` offsets that cut it). */
function groupsOf(section: Uint8Array, offsets: ArrayLike<number>): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let g = 0; g + 1 < offsets.length; g++) out.push(section.slice(offsets[g], offsets[g + 1]));
  return out;
}

function joinGroups(groups: Uint8Array[]): { section: Uint8Array; offsets: Float64Array } {
  const offsets = new Float64Array(groups.length + 1);
  groups.forEach((g, i) => (offsets[i + 1] = offsets[i] + g.length));
  const section = new Uint8Array(offsets[groups.length]);
  groups.forEach((g, i) => section.set(g, offsets[i]));
  return { section, offsets };
}

/** Where each row group starts (as recordOffsets), or undefined when the pieces' rowGroups are not a kind it reads. */
export function rowOffsets(p: PagesPieces): number[] | undefined {
  const stored = p.open.rowGroups as unknown;
  // Version 16 (rowsDelimited): the row blocks' bytes from their index (rowBlockIndex.ts), which cut the rows into
  // the same blocks again (each block was as full as the next row let it be).
  const spare = (p.open as unknown as Record<string, unknown>).rowBlockSpare;
  if (stored === undefined && spare instanceof Uint8Array) {
    const size = (p.directory.rowBlocks as { size?: unknown } | undefined)?.size;
    const values = varintsOf(spare);
    if (values === undefined || typeof size !== 'number') return undefined;
    const offsets = [0];
    values.forEach((v, b) => offsets.push(offsets[b] + (v < size ? size - v : v)));
    return offsets;
  }
  if (p.directory.version < 6) return stored instanceof Float64Array ? [...stored] : undefined;
  if (!(stored instanceof Uint8Array)) return undefined;
  const sizes = varintsOf(stored);
  const counts = groupConceptCounts(p);
  if (sizes === undefined || counts === undefined) return undefined;
  const coding = p.directory.openCoding;
  const offsets = [0];
  sizes.forEach((x, g) =>
    offsets.push(
      offsets[g] +
        (coding && counts
          ? predicted(counts[g], coding.rowBytesPerCount) + unzigzag(x)
          : counts
            ? counts[g] + (p.directory.listsInRows ? unzigzag(x) : x)
            : x),
    ),
  );
  return offsets;
}

/** Version 11 (openCoding): what a slope (in 65,536ths) predicts for x, as compactOpen.ts predicts it. */
const predicted = (x: number, slope: number): number => Math.floor((x * slope) / 65536);

/** The chunks' BM25 text lengths as the pieces' `open` stores them (varints from version 6, else float32). */
function textLengthsOf(p: PagesPieces): number[] | undefined {
  const stored = p.open.textLengths as unknown;
  if (stored instanceof Float32Array) return [...stored];
  return stored instanceof Uint8Array ? varintsOf(stored) : undefined;
}

/** Each group's sum of `values` (`per` chunks a group). */
function groupSums(values: number[], per: number): number[] {
  const out: number[] = [];
  for (let k = 0; k < values.length; k++) {
    const g = Math.floor(k / per);
    out[g] = (out[g] ?? 0) + values[k];
  }
  return out;
}

/** `open.recordGroups` stored for these group sizes as the directory codes them (version 11: residuals). */
function storeRecordSizes(p: PagesPieces, groups: Uint8Array[]): void {
  const coding = p.directory.openCoding;
  const lengths = coding && groupSums(textLengthsOf(p) ?? [], p.directory.groups.records);
  const sizes = new ByteWriter();
  groups.forEach((group, g) =>
    sizes.varint(
      coding ? zigzag(group.length - predicted(lengths![g] ?? 0, coding.recordBytesPerLength)) : group.length,
    ),
  );
  (p.open as unknown as { recordGroups: Uint8Array }).recordGroups = sizes.take();
}

/**
 * `open.rowGroups` stored for these offsets as the directory codes them (residuals from version 10's openResiduals).
 * False, and `open` left as it was, when they cannot be: a group smaller than its chunks' concept counts in a layout
 * that stores the residual as a plain varint (each concept id takes a byte at least).
 */
export function storeRowOffsets(p: PagesPieces, offsets: number[]): boolean {
  const counts = groupConceptCounts(p);
  const coding = p.directory.openCoding;
  const values: number[] = [];
  for (let g = 0; g + 1 < offsets.length; g++) {
    const size = offsets[g + 1] - offsets[g];
    if (!counts) values.push(size);
    else if (coding) values.push(zigzag(size - predicted(counts[g] ?? 0, coding.rowBytesPerCount)));
    else if (p.directory.listsInRows) values.push(zigzag(size - (counts[g] ?? 0)));
    else values.push(size - (counts[g] ?? 0));
  }
  if (values.some((x) => x < 0)) return false;
  const sizes = new ByteWriter();
  for (const x of values) sizes.varint(x);
  (p.open as unknown as { rowGroups: Uint8Array }).rowGroups = sizes.take();
  return true;
}

const zigzag = (x: number): number => (x >= 0 ? 2 * x : -2 * x - 1);
const unzigzag = (z: number): number => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);

function varintsOf(bytes: Uint8Array): number[] | undefined {
  const r = new ByteReader(bytes);
  const out: number[] = [];
  try {
    while (r.at < bytes.length) out.push(r.varint());
  } catch {
    return undefined;
  }
  return out;
}

/**
 * Each row group's concept count (its chunks' `conceptCounts` summed) when `open` codes the row groups' sizes as
 * residuals of them (version 10's openResiduals); null when it does not; undefined when the counts do not decode.
 */
function groupConceptCounts(p: PagesPieces): number[] | null | undefined {
  if (p.directory.openResiduals === undefined) return null;
  const stored = p.open.conceptCounts as unknown;
  if (!(stored instanceof Uint8Array)) return undefined;
  let counts = varintsOf(stored);
  if (counts === undefined) return undefined;
  // Version 11: each chunk's count is a residual of a slope over its text length.
  const coding = p.directory.openCoding;
  if (coding) {
    const lengths = textLengthsOf(p);
    if (lengths === undefined) return undefined;
    counts = counts.map((x, k) => predicted(lengths[k] ?? 0, coding.countsPerLength) + unzigzag(x));
  }
  return groupSums(counts, p.directory.groups.rows);
}

/** Where each record group starts: version 6 keeps the groups' sizes as varints (compactOpen.ts), summed here. */
function recordOffsets(p: PagesPieces): ArrayLike<number> {
  const stored = p.open.recordGroups as unknown;
  if (p.directory.version < 6 || !(stored instanceof Uint8Array)) return p.open.recordGroups;
  const coding = p.directory.openCoding;
  const lengths = coding && groupSums(textLengthsOf(p) ?? [], p.directory.groups.records);
  const r = new ByteReader(stored);
  const offsets = [0];
  for (let g = 0; r.at < stored.length; g++) {
    const x = r.varint();
    const size = coding ? predicted(lengths![g] ?? 0, coding.recordBytesPerLength) + unzigzag(x) : x;
    offsets.push(offsets[offsets.length - 1] + size);
  }
  return offsets;
}

/** Version 10: the stored dictionary at the end of the records section (recordCoding.ts), and the groups before it. */
function codedRecords(
  p: PagesPieces,
): { groups: Uint8Array; stored: Uint8Array; evidence: Uint8Array } | undefined {
  const bytes = p.directory.recordCoding?.dictionary;
  if (bytes === undefined) return undefined;
  const section = p.sections.records;
  // Version 12's evidence blocks follow the dictionary (evidenceArrays): kept as they are.
  const tail = p.directory.evidenceArrays?.bytes;
  const end = section.length - (Number.isSafeInteger(tail) ? Math.min(tail!, section.length) : 0);
  return {
    groups: section.subarray(0, Math.max(0, end - bytes)),
    stored: section.slice(Math.max(0, end - bytes), end),
    evidence: section.slice(end),
  };
}

/** Version 10: the stored dictionary's bytes (the records section's last `recordCoding.dictionary`). */
export function storedDictionary(p: PagesPieces): Uint8Array {
  return codedRecords(p)!.stored;
}

/** Version 10: the records' dictionary, inflated (empty when the part has none). */
export function recordDictionary(p: PagesPieces): Uint8Array {
  const coded = codedRecords(p);
  return coded && coded.stored.length > 0 ? decodeDictionary(coded.stored) : new Uint8Array(0);
}

/**
 * Record group g as decoded JSON values (records, as stored: any shape; from version 10 positional, recordCoding.ts
 * codeRecords).
 */
export function recordGroup(p: PagesPieces, g: number): unknown[] {
  const coded = codedRecords(p);
  const bytes = groupsOf(coded?.groups ?? p.sections.records, recordOffsets(p))[g];
  if (coded)
    return JSON.parse(new TextDecoder().decode(inflateWithLength(bytes, recordDictionary(p)))) as unknown[];
  return JSON.parse(gunzipSync(bytes).toString('utf8')) as unknown[];
}

/**
 * Replaces record group g by these values (gzip'd JSON; from version 10 JSON deflated with the part's dictionary),
 * moving the groups after it.
 */
export function setRecordGroup(p: PagesPieces, g: number, records: unknown[]): void {
  const coded = codedRecords(p);
  const groups = groupsOf(coded?.groups ?? p.sections.records, recordOffsets(p));
  const json = new TextEncoder().encode(JSON.stringify(records));
  groups[g] = coded ? deflateWithLength(json, recordDictionary(p)) : new Uint8Array(gzipSync(json));
  const joined = joinGroups(groups);
  p.sections.records = coded ? concat(concat(joined.section, coded.stored), coded.evidence) : joined.section;
  if (p.directory.version < 6) p.open.recordGroups = joined.offsets;
  else storeRecordSizes(p, groups);
}

/** Version 10: replaces the stored bytes of record group g (as they are: no deflating), moving the groups after it. */
export function replaceRecordGroupBytes(p: PagesPieces, g: number, bytes: Uint8Array): void {
  const coded = codedRecords(p)!;
  const groups = groupsOf(coded.groups, recordOffsets(p));
  groups[g] = bytes;
  const joined = joinGroups(groups);
  p.sections.records = concat(concat(joined.section, coded.stored), coded.evidence);
  storeRecordSizes(p, groups);
}

/** Version 10: replaces the stored dictionary at the end of the records section (and its length in the directory). */
export function setStoredDictionary(p: PagesPieces, stored: Uint8Array): void {
  const coded = codedRecords(p)!;
  p.sections.records = concat(concat(coded.groups.slice(), stored), coded.evidence);
  p.directory.recordCoding = { dictionary: stored.length };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * A record as version 10 stores it, field for field whatever their kinds (a hostile record stays hostile): the id
 * whole, the document and title spelled out, the sentence offsets as gaps when they are a list of numbers.
 */
function positional(r: Record<string, unknown>): unknown[] {
  const s = r.sentences;
  const start = r.start;
  const gaps =
    Array.isArray(s) && s.every((x) => typeof x === 'number') && typeof start === 'number'
      ? s.map((x: number, i) => x - (i === 0 ? start : (s[i - 1] as number)))
      : s;
  return [
    [r.id],
    r.docId,
    r.title,
    r.text,
    r.tokens,
    start,
    gaps,
    r.path ?? 0,
    r.pageStarts ?? 0,
    r.pageStart ?? -1,
    r.pageEnd ?? -1,
  ];
}

/** Changes record `i` of group 0 (the first chunk's record by default). */
export function changeRecord(
  p: PagesPieces,
  change: (r: PagedChunkRecord & Record<string, unknown>) => unknown,
  i = 0,
): void {
  const stored = recordGroup(p, 0);
  const records = (codedRecords(p) ? decodeRecords(stored, stored.length) : stored) as Array<
    PagedChunkRecord & Record<string, unknown>
  >;
  records[i] = change(records[i]) as PagedChunkRecord & Record<string, unknown>;
  setRecordGroup(
    p,
    0,
    codedRecords(p) ? records.map((r) => positional(r as Record<string, unknown>)) : records,
  );
}

/**
 * Version 4 pages (or `version` 6's, the lists coded by concept) whose rows keep the lists (listsInRows), their one
 * gzip'd row group changed by `change` on the inflated bytes (or `gz` on the stored ones), or their directory or
 * `open` by `pieces`.
 */
export async function listsInRowsPages(
  how: {
    change?: (raw: Uint8Array) => Uint8Array;
    gz?: (stored: Uint8Array) => Uint8Array;
    pieces?: (p: PagesPieces) => void;
  } = {},
  version = 4,
): Promise<WrittenPagesLike> {
  const p = piecesOf(await honestPages(version));
  if (!p.directory.listsInRows) throw new Error('the fixture pages do not keep their lists in their rows');
  if (how.change)
    p.sections.rows = new Uint8Array(gzipSync(how.change(new Uint8Array(gunzipSync(p.sections.rows)))));
  if (how.gz) p.sections.rows = how.gz(p.sections.rows);
  // The one group's size: an offset pair before version 6, a varint from it (compactOpen.ts).
  if (p.directory.version < 6) p.open.rowGroups = Float64Array.from([0, p.sections.rows.length]);
  else storeRowOffsets(p, [0, p.sections.rows.length]);
  how.pieces?.(p);
  return assemble(p);
}

/** The pages as a version 3 bundle (the pages part and its hashes, written by the app's bundle writer). */
export async function pagesBundle(written: WrittenPagesLike): Promise<Uint8Array> {
  return bundleBytes(
    writeBundle(pagesParts({ ...written, directory: written.directory }), {
      appVersion: 'hostile',
      embedder: null,
    }),
  );
}

/** Honest pieces of the fixture's pages (a fresh copy each call). */
export async function honestPieces(version = 2): Promise<PagesPieces> {
  return piecesOf(await honestPages(version));
}

/**
 * The HIGH finding on the walk: every concept's stored walk degree made tiny (version 2: the exact degrees in the
 * `degrees` section, each code the top bracket, inside which the walk asks for the exact degree; version 1: the f64
 * degrees in `open`). A push divides a residual by the degree, so before the fix the residuals reached Infinity and
 * the walk never ended. Since round twelve the walk sums a version 2 exact degree from the concept's row, and only
 * the Graph view and the KG build's order read the section.
 */
export async function tinyDegreePages(
  version = 2,
  degree = 1e-300,
  { keepCodes = false } = {},
): Promise<WrittenPagesLike> {
  const p = await honestPieces(version);
  if (version === 1) {
    p.open.degrees = p.open.degrees.map((d) => (d > 0 ? degree : 0));
  } else {
    const view = new DataView(p.sections.degrees.buffer);
    for (let c = 0; c < p.open.degreeCodes.length; c++) {
      if (p.open.degreeCodes[c] === 0) continue;
      // The top bracket (above 2^15.9): a seed's residual lies inside it, so the walk asks for the exact degree.
      // Kept (keepCodes), the brackets are honest and only the `degrees` section lies.
      if (!keepCodes) p.open.degreeCodes[c] = 255;
      view.setFloat64(c * 8, degree, true);
    }
  }
  return assemble(p);
}

/**
 * Version 3 lists hold no shares: a reader computes them from the counts, and a count of 0 would make them 0/0.
 * The first count of every list set to 0 (one-byte varints in the fixture, so each list keeps its length); a
 * version 3 list is its df chunk gaps then its df counts, all varints.
 */
export async function zeroCountPages(): Promise<WrittenPagesLike> {
  const p = await honestPieces(3);
  const list = p.sections.lists;
  let at = 0;
  const skip = (count: number) => {
    for (let i = 0; i < count; i++) while (list[at++] & 0x80);
  };
  for (let c = 0; c < p.open.df.length; c++) {
    skip(p.open.df[c]);
    if (list[at] & 0x80) throw new Error('the fixture changed: a first count takes more than one byte');
    list[at] = 0;
    skip(p.open.df[c]);
  }
  if (at !== list.length) throw new Error('the fixture changed: its lists are not gaps then counts');
  return assemble(p);
}

/** Version 3 pages whose directory's share parameters are `shares` (absent when undefined). */
export async function shareParamPages(shares: unknown): Promise<WrittenPagesLike> {
  const p = await honestPieces(3);
  const d = p.directory as unknown as Record<string, unknown>;
  if (shares === undefined) delete d.shares;
  else d.shares = shares;
  return assemble(p);
}

/**
 * Version 2 brackets that lie: every concept's code says its degree is in (0, 1], the exact degrees left as they
 * are. The bracket alone decides a push there, so only the row pushed along can tell.
 */
export async function bracketedDegreePages(): Promise<WrittenPagesLike> {
  const p = await honestPieces(2);
  for (let c = 0; c < p.open.degreeCodes.length; c++)
    if (p.open.degreeCodes[c] > 1) p.open.degreeCodes[c] = 1;
  return assemble(p);
}

/** The HIGH finding on the rows: the first chunk's concept count 2^32−1 (and its group's others as stored). */
export async function hugeCountPages(count = 2 ** 32 - 1): Promise<WrittenPagesLike> {
  const p = await honestPieces();
  p.open.conceptCounts[0] = count;
  return assemble(p);
}

/** The HIGH finding on the records: the first chunk's "sentences" an object claiming 2e9 entries. */
export async function hugeSentencesPages(length = 2e9): Promise<WrittenPagesLike> {
  const p = await honestPieces();
  changeRecord(p, (r) => ({ ...r, sentences: { length } }));
  return assemble(p);
}

/**
 * The scale fuzzer's finding (seed 4343, "pages v2 postings[2079] = 255"): a postings byte whose continuation bit
 * carries a varint past its list. Here every byte of the section is a continuation, so every term's list fails so.
 */
export async function unendingPostingsPages(): Promise<WrittenPagesLike> {
  const p = await honestPieces();
  p.sections.postings.fill(0x80);
  return assemble(p);
}

/** A question every fixture passage's library answers from its walk (words the corpus holds). */
export const PAGES_QUESTION = 'Which film came out first, and who directed it?';

/** A version 1 bundle whose `open` was changed by `change` (for `cli upgrade`). */
export async function changedV1Bundle(change: (p: PagesPieces) => void): Promise<Uint8Array> {
  const p = await honestPieces(1);
  change(p);
  return pagesBundle(assemble(p));
}

/** The MED findings on `cli upgrade`: a negative IDF (idfDfOf looped) and a list offset of Infinity (varint looped). */
export const negativeIdfBundle = (): Promise<Uint8Array> =>
  changedV1Bundle((p) => {
    p.open.idf[0] = -1000;
  });
export const infiniteOffsetBundle = (): Promise<Uint8Array> =>
  changedV1Bundle((p) => {
    p.open.listOffsets[1] = Infinity;
  });

/**
 * A version 2 bundle whose first list's first share is doubled (its hashes made again): version 3 computes the
 * shares from the counts, so `cli upgrade` must refuse a part whose stored shares are not those.
 */
export async function forgedShareBundle(): Promise<Uint8Array> {
  const p = await honestPieces(2);
  const list = p.sections.lists;
  let at = 0;
  // Past concept 0's df chunk gaps and df counts (varints) to its first share (f32).
  for (let i = 0; i < 2 * p.open.df[0]; i++) while (list[at++] & 0x80);
  const view = new DataView(list.buffer, list.byteOffset, list.byteLength);
  view.setFloat32(at, view.getFloat32(at, true) * 2, true);
  return pagesBundle(assemble(p));
}

const utf8 = new TextEncoder();

/**
 * Version 3 rows that do not hold what `open`'s concept counts say, every digest and the rows' group offsets right:
 * one byte more than the ids (`past`), or the last id's byte gone (`short`). `cli upgrade` of a library that does not
 * keep its lists in its rows cuts the rows into version 5's groups by those counts (upgrade.ts, regroupedRows).
 */
export async function rowsMiscountedBundle(how: 'past' | 'short'): Promise<Uint8Array> {
  const p = await honestPieces(3);
  const rows = p.sections.rows;
  const changed = how === 'past' ? Uint8Array.from([...rows, 1]) : rows.slice(0, rows.length - 1);
  p.sections.rows = changed;
  const groups = p.open.rowGroups;
  groups[groups.length - 1] = changed.length;
  return pagesBundle(assemble(p));
}

/**
 * A bundle whose manifest (found by the locator) lists `copies` more entries that all point at the pages part's
 * bytes under other names, every entry's digest right. Before the fix `cli upgrade` wrote each of them out: 1.14 MB
 * in, 301 MB out.
 */
export async function aliasedManifestBundle(copies = 200): Promise<Uint8Array> {
  const bytes = await pagesBundle(await honestPages(1));
  const tail = new DataView(bytes.buffer, bytes.byteOffset + bytes.length - 12, 12);
  const at = tail.getUint32(0, true) + tail.getUint32(4, true) * 2 ** 32;
  const length = new DataView(bytes.buffer, bytes.byteOffset + at + 4, 4).getUint32(0, true);
  const manifest = JSON.parse(new TextDecoder().decode(bytes.subarray(at + 12, at + 12 + length))) as {
    parts: Array<Record<string, unknown>>;
    counts: Record<string, number>;
  };
  const pages = manifest.parts.find((e) => e.name === 'pages.bin')!;
  for (let i = 0; i < copies; i++) {
    const name = `table.alias${i}.bin`;
    manifest.parts.push({ ...pages, name, kind: 'binary', meta: undefined });
    manifest.counts[name] = 1;
  }
  const body = utf8.encode(JSON.stringify(manifest));
  const frame = new Uint8Array(12 + body.length + 32);
  frame.set(utf8.encode('MNFT'), 0);
  const fv = new DataView(frame.buffer);
  fv.setUint32(4, body.length, true);
  fv.setUint32(8, ~body.length >>> 0, true);
  frame.set(body, 12);
  const { Sha256 } = await import('../../src/core/bundle/sha256.ts');
  frame.set(new Sha256().update(body).digest(), 12 + body.length);
  const start = bytes.length - 12;
  const out = new Uint8Array(start + frame.length + 12);
  out.set(bytes.subarray(0, start), 0);
  out.set(frame, start);
  const ov = new DataView(out.buffer, start + frame.length, 12);
  ov.setUint32(0, start % 2 ** 32, true);
  ov.setUint32(4, Math.floor(start / 2 ** 32), true);
  out.set(utf8.encode('END.'), start + frame.length + 8);
  return out;
}
