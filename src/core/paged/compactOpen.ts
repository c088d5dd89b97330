// The version 2 `open` section (format.ts, PagesOpenV2): what every question reads before its first block, made
// small. On the 1 GiB scale bundle version 1's `open` was 48.5 MB gzip'd, 31.0 MB of it the walk degrees (f64 sums of
// float32 Dice weights: incompressible), 8.1 MB the f64 list offsets and 1.9 MB the IDF. Version 2 keeps:
// - a one-byte bracket of each degree (degreeCode): the walk's tests `r(u) ≥ ε·max(deg(u), 1)` are decided by the
//   bracket unless r(u) falls inside it, and only then is the exact degree read from the `degrees` section
//   (PersonalizedPageRank, WalkDegrees);
// - each chunk list's size beyond its 6 bytes a chunk (varints), from which the offsets are summed at open;
// - the df the IDF was computed with, as its difference to the list's df (varints), from which the IDF is
//   recomputed exactly as the engine computes it (Math.fround(conceptIdf(n, df))). That df counts the chunks a
//   keyphrase is a candidate in, before each chunk keeps its best few, so it is not the list's df; it is found from
//   the stored IDF (idfDfOf), and a table where that fails keeps its IDF as is.
// The writers (write.ts, build.ts) and the upgrade of a version 1 part (upgrade.ts) make version 2 from the same
// version 1 value with compactOpen, so an upgraded part is byte for byte the one built directly. Later versions
// (6, 9, 10) code the same values smaller here too; version 10's `openResiduals` (applyResiduals) keeps each chunk's
// tokens as its difference to a slope over its text length and each row group's size less its chunks' concept counts;
// version 11's `openCoding` codes three more arrays so (a chunk's concept count over its text length, a row group's
// bytes over its concept counts, a record group's bytes over its text lengths).
import { conceptIdf } from '../graph/index.ts';
import { PagesError } from './blockStore.ts';
import { ByteReader, ByteWriter } from './bytes.ts';
import { listFirstsOf, listStartsOf } from './listPacking.ts';
import { expandRowBlocks } from './rowBlockIndex.ts';
import {
  MAX_OPEN_SLOPE,
  MAX_TOKENS_PER_LENGTH,
  minListBytes,
  type ListCoding,
  type OpenCoding,
  type OpenResiduals,
  type OpenTables,
  type PagesDirectory,
  type PagesOpenV1,
  type PagesOpenV2,
  type PagesOpenV6,
  type PagesOpenV9,
  type PagesOpenV11,
} from './format.ts';

/**
 * Upper ends of the degree brackets: code 0 is a degree of exactly 0 (no edge), code 1 is (0, 1] (the walk's test
 * takes max(degree, 1), so below 1 nothing needs telling apart), codes 2–254 split every octave from 1 to 2^15.9 in
 * 16 (a bracket is at most 6.25% wide), and code 255 is everything above. The bounds are exact dyadic numbers (no
 * Math.pow), the same in every engine. A concept's degree is at most twice the concepts a chunk keeps (each Dice
 * weight 2·co/(|T(u)|+|T(v)|) ≤ 2·co/|T(u)|), far below the top bracket.
 */
const DEGREE_UPPER = (() => {
  const upper = new Float64Array(256);
  upper[1] = 1;
  for (let code = 2; code < 255; code++) {
    const j = code - 1;
    upper[code] = ((16 + (j & 15)) / 16) * 2 ** (j >> 4);
  }
  upper[255] = Infinity;
  return upper;
})();

/** The bracket of a degree: the smallest code whose upper end is ≥ it (0 only for 0). */
export function degreeCode(degree: number): number {
  if (!(degree >= 0)) throw new Error(`pages: a walk degree must be ≥ 0, got ${degree}`);
  if (degree === 0) return 0;
  let lo = 1;
  let hi = 255;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (DEGREE_UPPER[mid] >= degree) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** lower ≤ degree ≤ upper for a degree of this code (0, 0 for code 0). */
export function degreeLower(code: number): number {
  return code === 0 ? 0 : DEGREE_UPPER[code - 1];
}
export function degreeUpper(code: number): number {
  return DEGREE_UPPER[code];
}

function varints(count: number, value: (i: number) => number): Uint8Array {
  const out = new ByteWriter();
  for (let i = 0; i < count; i++) out.varint(value(i));
  return out.take();
}

/**
 * A stored `open` value (version 6 on: group offsets kept as each group's size, varints) with its term groups'
 * offsets replaced: version 14's upgrade re-codes the postings, which changes the `terms` groups' offsets and nothing
 * else of `open` (upgrade.ts). The keys keep their order, so the value encodes as a writer's does.
 */
export function withTermGroups(
  stored: Record<string, unknown>,
  termGroups: ArrayLike<number>,
): Record<string, unknown> {
  if (!(stored.termGroups instanceof Uint8Array))
    throw new PagesError('pages.bin (open) has no termGroups varints');
  return { ...stored, termGroups: varints(termGroups.length - 1, (i) => termGroups[i + 1] - termGroups[i]) };
}

/**
 * A stored version 11+ `open` value with its row groups' sizes replaced (`rowGroups`: the new offsets, groups of
 * `rowsPerGroup` chunks of `conceptCounts`), and the directory's `openCoding.rowBytesPerCount` the writers fit to
 * them (compactOpen: the same slope, the same residuals): version 15's upgrade re-codes the rows (rowsCoding.ts),
 * which changes their groups' sizes and nothing else of `open` (upgrade.ts). The keys keep their order.
 */
export function withRowGroups(
  stored: Record<string, unknown>,
  rowGroups: ArrayLike<number>,
  conceptCounts: ArrayLike<number>,
  rowsPerGroup: number,
  openCoding: OpenCoding,
): { open: Record<string, unknown>; openCoding: OpenCoding } {
  if (!(stored.rowGroups instanceof Uint8Array))
    throw new PagesError('pages.bin (open) has no rowGroups varints');
  const rowSizes = groupSizes(rowGroups);
  const rowCounts = groupSums(conceptCounts, rowsPerGroup, rowSizes.length);
  const rowBytesPerCount = slopeOf(rowCounts, rowSizes, MAX_OPEN_SLOPE);
  return {
    open: {
      ...stored,
      rowGroups: varints(rowSizes.length, (g) =>
        zigzag(rowSizes[g] - predicted(rowCounts[g], rowBytesPerCount)),
      ),
    },
    openCoding: { ...openCoding, rowBytesPerCount },
  };
}

/** The varints of `value` of each of `order`, in that order. */
function varintsOfAll(values: ArrayLike<number>): Uint8Array {
  return varints(values.length, (i) => values[i]);
}

function varintsOf(order: Uint32Array, value: (i: number) => number): Uint8Array {
  const out = new ByteWriter();
  for (const i of order) out.varint(value(i));
  return out.take();
}

/**
 * Version 9's order of the list sizes: the concepts whose df is not 1, then those in one chunk, each in concept
 * order. A one-chunk concept's list is its chunk's gap from 0 and its count, so its size beyond 2 bytes is 0 to 2
 * (at 100 MiB 83 % are 2): apart from the others' they gzip to 43 KB where they cost ~110 KB among them
 * (229 → 160 KB of `open`, docs/results/question-bytes.md, round eighteen).
 */
function listOrder(df: ArrayLike<number>): Uint32Array {
  const order = new Uint32Array(df.length);
  let i = 0;
  for (let c = 0; c < df.length; c++) if (df[c] !== 1) order[i++] = c;
  for (let c = 0; c < df.length; c++) if (df[c] === 1) order[i++] = c;
  return order;
}

function readVarints(bytes: Uint8Array, count: number, name: string): Float64Array {
  const out = new Float64Array(count);
  const r = new ByteReader(bytes);
  try {
    for (let i = 0; i < count; i++) out[i] = r.varint();
  } catch {
    throw new PagesError(`pages.bin (open) ${name} hold fewer than ${count} values`);
  }
  if (r.at !== bytes.length) throw new PagesError(`pages.bin (open) ${name} hold more than ${count} values`);
  return out;
}

/** The IDF as the engine computes it from a df over n chunks (a float32). */
function idfOf(n: number, df: number): number {
  return Math.fround(conceptIdf(n, df));
}

/**
 * The smallest df ≥ listDf from which the engine's IDF is exactly `idf`, or undefined. IDF = ln(n / df), so df is
 * about n / e^IDF; the few integers around that are tried.
 */
export function idfDfOf(n: number, idf: number, listDf: number): number | undefined {
  // A df is a count of at most n chunks: an IDF below 0 (or not a number) has none, and the few integers tried
  // stay within 1..n (an IDF of −1000 made the guess Infinity, and the loop never ended).
  if (!(idf >= 0 && idf < Infinity) || !Number.isSafeInteger(n) || listDf > n) return undefined;
  const guess = Math.round(n / Math.exp(idf));
  for (let d = Math.max(1, listDf, guess - 3); d <= Math.min(n, Math.max(guess + 3, listDf)); d++)
    if (idfOf(n, d) === idf) return d;
  return undefined;
}

/**
 * Version 2's (and 3's) `open` value and `degrees` section from version 1's `open` (n chunks); `version` sets the
 * bytes a list's chunk takes at least (minListBytes), which its size is stored beyond.
 */
export function compactOpen(
  full: PagesOpenV1,
  n: number,
  version: number,
  /** Version 4's lists kept in the rows: there is no lists section, so `open` holds no list sizes. */
  listsInRows = false,
  /** The chunks a row group holds (the directory's groups.rows): version 10's row group sizes less their counts. */
  rowsPerGroup = 1,
  /** The chunks a record group holds (the directory's groups.records): version 11's record group sizes. */
  recordsPerGroup = 1,
  /**
   * Version 12's listCoding: the lists are packed into blocks of this many bytes (listPacking.ts, full.listOffsets
   * where each starts), so `open` holds how many start in each block (`listStarts`) and no list sizes.
   */
  listBlockBytes?: number,
): {
  open: PagesOpenV2 | PagesOpenV6 | PagesOpenV9 | PagesOpenV11;
  degrees: Uint8Array;
  /** Version 10: the directory's `openResiduals`, which says how `open.tokens` and `open.rowGroups` are coded. */
  openResiduals?: OpenResiduals;
  /** Version 11: the directory's `openCoding`, which says how `conceptCounts`, `rowGroups`, `recordGroups` are. */
  openCoding?: OpenCoding;
  /** Version 12: the directory's `listCoding`, when the lists are packed (listBlockBytes). */
  listCoding?: ListCoding;
} {
  const least = minListBytes(version);
  const { idf, degrees, listOffsets, ...rest } = full;
  const nc = full.df.length;
  const idfDf = new Float64Array(nc);
  let exact = true;
  for (let c = 0; c < nc && exact; c++) {
    const d = idfDfOf(n, idf[c], full.df[c]);
    if (d === undefined) exact = false;
    else idfDf[c] = d - full.df[c];
  }
  const extraOf = (c: number): number => {
    const extra = listOffsets[c + 1] - listOffsets[c] - least * full.df[c];
    if (!(extra >= 0)) throw new Error(`pages: concept ${c}'s list is shorter than its ${full.df[c]} chunks`);
    return extra;
  };
  const listSizes =
    listsInRows || listBlockBytes !== undefined
      ? undefined
      : version >= 9
        ? varintsOf(listOrder(full.df), extraOf)
        : varints(nc, extraOf);
  const codes = Uint8Array.from(degrees, degreeCode);
  const open: PagesOpenV2 = {
    ...rest,
    ...(exact ? { idfDf: varints(nc, (c) => idfDf[c]) } : { idf }),
    degreeCodes: version >= 9 ? storedCodes(codes, full.df) : codes,
    ...(listSizes ? { listSizes } : {}),
  };
  const section = new Uint8Array(nc * 8);
  const view = new DataView(section.buffer);
  for (let c = 0; c < nc; c++) view.setFloat64(c * 8, degrees[c], true);
  if (version < 6) return { open, degrees: section };
  const v6 = varintOpen(open);
  if (version < 9) return { open: v6, degrees: section };
  let singleCode = 0;
  for (let c = 0; c < nc; c++) if (full.df[c] === 1 && codes[c] > singleCode) singleCode = codes[c];
  if (version < 10) return { open: { ...v6, singleCode }, degrees: section };
  const tokensPerLength = slopeOf(full.textLengths, full.tokens, MAX_TOKENS_PER_LENGTH);
  const tokens = varints(full.tokens.length, (k) =>
    zigzag(full.tokens[k] - predicted(full.textLengths[k], tokensPerLength)),
  );
  const rowSizes = groupSizes(full.rowGroups);
  const rowCounts = groupSums(full.conceptCounts, rowsPerGroup, rowSizes.length);
  if (version < 11)
    return {
      open: {
        ...v6,
        singleCode,
        tokens,
        // Rows that do not keep the lists hold a varint of at least a byte for each concept id of their chunks, so a
        // group's size less its counts is ≥ 0 (decodeRowGroup refuses less); one gzip'd group may be smaller.
        rowGroups: varints(rowSizes.length, (g) => {
          const extra = rowSizes[g] - rowCounts[g];
          if (!listsInRows && extra < 0)
            throw new Error(`pages: row group ${g} is shorter than its chunks' concept ids`);
          return listsInRows ? zigzag(extra) : extra;
        }),
      },
      degrees: section,
      openResiduals: { tokensPerLength },
    };
  // Version 11: each a slope fitted to this library (least squares through 0, in chunk order, so `--pages`,
  // `--stream` and `cli upgrade` fit the same) and the residuals of it.
  const recordSizes = groupSizes(full.recordGroups);
  const recordLengths = groupSums(full.textLengths, recordsPerGroup, recordSizes.length);
  const order = listOrder(full.df);
  // Packed lists (version 12) have no sizes in `open`: their slope is 0, as for lists kept in the rows.
  const sized = !listsInRows && listBlockBytes === undefined;
  const listExtras = !sized ? new Float64Array(0) : Float64Array.from(order, extraOf);
  const gapBits = !sized ? new Float64Array(0) : Float64Array.from(order, (c) => listBits(full.df[c], n));
  const runs = documentRunsOf(full.documentChunks, full.titleChunks);
  const openCoding: OpenCoding = {
    countsPerLength: slopeOf(full.textLengths, full.conceptCounts, MAX_OPEN_SLOPE),
    rowBytesPerCount: slopeOf(rowCounts, rowSizes, MAX_OPEN_SLOPE),
    recordBytesPerLength: slopeOf(recordLengths, recordSizes, MAX_OPEN_SLOPE),
    listBytesPerBit: slopeOf(gapBits, listExtras, MAX_OPEN_SLOPE),
    documentRuns: runs ? 1 : 0,
  };
  const residuals = (values: ArrayLike<number>, x: ArrayLike<number>, slope: number): Uint8Array =>
    varints(values.length, (i) => zigzag(values[i] - predicted(x[i], slope)));
  // The concepts in one chunk (67 % at 100 MiB) as a bitmap, the others' df apart: one gzip stream coded them together
  // in 206 KB, where a run of ones drew matches that cost more than the ones (at 100 MiB `open` 1,003,154 → 982,554
  // bytes).
  const dfOnes = new Uint8Array(Math.ceil(nc / 8));
  for (let c = 0; c < nc; c++) if (full.df[c] === 1) dfOnes[c >> 3] |= 1 << (c & 7);
  return {
    open: {
      ...v6,
      df: varintsOf(Uint32Array.from(order.slice(0, nc - countOnes(full.df))), (c) => full.df[c]),
      dfOnes,
      singleCode,
      tokens,
      conceptCounts: residuals(full.conceptCounts, full.textLengths, openCoding.countsPerLength),
      rowGroups: residuals(rowSizes, rowCounts, openCoding.rowBytesPerCount),
      recordGroups: residuals(recordSizes, recordLengths, openCoding.recordBytesPerLength),
      ...(sized ? { listSizes: residuals(listExtras, gapBits, openCoding.listBytesPerBit) } : {}),
      ...(listBlockBytes !== undefined && !listsInRows
        ? { listStarts: varintsOfAll(listStartsOf(listOffsets, listBlockBytes)) }
        : {}),
      ...(runs
        ? {
            documentChunks: varints(runs.sizes.length, (i) => runs.sizes[i]),
            ...(runs.titles
              ? { titleChunks: varints(runs.titles.length, (i) => zigzag(runs.titles![i] - runs.sizes[i])) }
              : {}),
          }
        : {}),
    },
    degrees: section,
    openResiduals: { tokensPerLength },
    openCoding,
    ...(listBlockBytes !== undefined && !listsInRows ? { listCoding: { blockBytes: listBlockBytes } } : {}),
  };
}

/**
 * Version 11's bound on a chunk list's gap bits: df gaps that sum to at most n take about log2(n / df) bits each, so
 * df × (bits of n − bits of df), whole numbers (Math.clz32) where a log2 would differ between engines.
 */
function listBits(df: number, n: number): number {
  return df * Math.max(0, Math.clz32(df) - Math.clz32(n));
}

/**
 * The documents' sizes in chunk order when every document's chunks are consecutive (each chunk's `documentChunks`
 * is then its run's length), and each document's `titleChunks` when all its chunks have the same; else undefined.
 */
function documentRunsOf(
  documentChunks: ArrayLike<number>,
  titleChunks: ArrayLike<number> | undefined,
): { sizes: number[]; titles?: number[] } | undefined {
  const sizes: number[] = [];
  const titles: number[] = [];
  for (let k = 0; k < documentChunks.length;) {
    const size = documentChunks[k];
    if (!(size >= 1) || k + size > documentChunks.length) return undefined;
    for (let j = k; j < k + size; j++) {
      if (documentChunks[j] !== size) return undefined;
      if (titleChunks && titleChunks[j] !== titleChunks[k]) return undefined;
    }
    sizes.push(size);
    if (titleChunks) titles.push(titleChunks[k]);
    k += size;
  }
  return titleChunks ? { sizes, titles } : { sizes };
}

/** The concepts in one chunk (df 1). */
function countOnes(df: ArrayLike<number>): number {
  let ones = 0;
  for (let c = 0; c < df.length; c++) if (df[c] === 1) ones++;
  return ones;
}

/**
 * Version 11's `df` from its two parts (PagesOpenV11): the bitmap of the concepts in one chunk, `concepts` bits
 * (ceil(concepts / 8) bytes, nothing set past the last), and the others' df as varints, as many as its unset bits,
 * none of them 1, each below 2^32; checked before any is kept.
 */
function expandDf(out: Record<string, unknown>, concepts: number): void {
  const ones = out.dfOnes;
  if (!(ones instanceof Uint8Array) || ones.length !== Math.ceil(concepts / 8))
    throw new PagesError(
      `pages.bin (open) has dfOnes of ${ones instanceof Uint8Array ? ones.length : 'no'} bytes, expected ${Math.ceil(concepts / 8)} (a bit a concept)`,
    );
  if (concepts % 8 !== 0 && ones[ones.length - 1] >> (concepts % 8) !== 0)
    throw new PagesError(`pages.bin (open) has dfOnes set past its ${concepts} concepts`);
  const others = allVarints(out.df, 'df');
  let set = 0;
  for (let c = 0; c < concepts; c++) set += (ones[c >> 3] >> (c & 7)) & 1;
  if (others.length !== concepts - set)
    throw new PagesError(
      `pages.bin (open) has ${others.length} df, expected ${concepts - set} (one a concept not in dfOnes)`,
    );
  const df = new Uint32Array(concepts);
  for (let c = 0, i = 0; c < concepts; c++) {
    if ((ones[c >> 3] >> (c & 7)) & 1) df[c] = 1;
    else {
      const value = others[i++];
      if (value === 1 || value > 0xffffffff)
        throw new PagesError(`pages.bin (open) gives concept ${c} a df of ${value} beside dfOnes`);
      df[c] = value;
    }
  }
  out.df = df;
  delete out.dfOnes;
}

/** Each group's size from the offsets of its start (and the section's end). */
function groupSizes(offsets: ArrayLike<number>): Float64Array {
  const sizes = new Float64Array(Math.max(0, offsets.length - 1));
  for (let g = 0; g < sizes.length; g++) sizes[g] = offsets[g + 1] - offsets[g];
  return sizes;
}

/** The sums of `values` over `groups` groups of `per` entries each (the last one may hold fewer). */
function groupSums(values: ArrayLike<number>, per: number, groups: number): Float64Array {
  const sums = new Float64Array(groups);
  for (let g = 0; g < groups; g++) sums[g] = sumOf(values, g * per, Math.min(values.length, (g + 1) * per));
  return sums;
}

/** Version 10's and 11's slopes are in 65,536ths (SLOPE_SCALE). */
const SLOPE_SCALE = 65536;

/**
 * The slope of y over x through 0 (least squares, in 65,536ths, 0 to `max`), from the arrays in their order: the
 * writers and `cli upgrade` compute it from the same arrays in the same order, so it is the same number. Version
 * 10's tokens over text length; version 11's (openCoding) concept counts, row and record group sizes.
 */
function slopeOf(x: ArrayLike<number>, y: ArrayLike<number>, max: number): number {
  let xy = 0;
  let xx = 0;
  for (let i = 0; i < x.length; i++) {
    xy += x[i] * y[i];
    xx += x[i] * x[i];
  }
  const slope = xx > 0 ? Math.round((SLOPE_SCALE * xy) / xx) : 0;
  return Math.min(max, Math.max(0, slope));
}

/**
 * What a slope predicts for x: floor(x × slope / 65536). The same number in every engine: a product of two f64s and
 * a division by a power of two, each rounded as IEEE 754 rounds it (exact for a BM25 length below 2^24).
 */
export function predicted(x: number, slope: number): number {
  return Math.floor((x * slope) / SLOPE_SCALE);
}

export function zigzag(x: number): number {
  return x >= 0 ? 2 * x : -2 * x - 1;
}
export function unzigzag(z: number): number {
  return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
}
function sumOf(values: ArrayLike<number>, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += values[i];
  return sum;
}

/** What expandOpen needs to read version 10's residuals and version 11's `openCoding` (from the directory). */
interface Residuals {
  openResiduals: OpenResiduals;
  openCoding?: OpenCoding;
  rowsPerGroup: number;
  recordsPerGroup: number;
  /** The directory's conceptCount: the bits of version 11's `dfOnes`. */
  concepts: number;
  /** Version 12: the directory's `listCoding` and its lists section's bytes (the blocks `listStarts` counts). */
  listCoding?: ListCoding;
  listsBytes?: number;
  /**
   * Version 12's `evidenceArrays` (evidenceArrays.ts): `open` holds no tokens, but each evidence block's size
   * (`evidenceBlocks`).
   */
  evidence?: { count: number; bytes: number };
  /**
   * Version 16's `rowsDelimited`: `open` holds no concept counts and no row groups, but the index of the directory's
   * `rowBlocks` (rowBlockIndex.ts).
   */
  rowBlocks?: { count: number; size: number };
}

/**
 * `count` values of a field stored as zigzag residuals of floor(x × slope / 65536), each checked to be a whole
 * number from 0 to `max` before it is kept; the count is checked against the varints the field holds first.
 */
function unpredict(
  stored: unknown,
  name: string,
  x: ArrayLike<number>,
  slope: number,
  max: number,
  what: (i: number, value: number) => string,
): Float64Array {
  const residuals = allVarints(stored, name);
  if (residuals.length !== x.length)
    throw new PagesError(`pages.bin (open) has ${residuals.length} ${name}, expected ${x.length}`);
  const values = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const value = predicted(x[i], slope) + unzigzag(residuals[i]);
    if (!(value >= 0 && value <= max)) throw new PagesError(`pages.bin (open) gives ${what(i, value)}`);
    values[i] = value;
  }
  return values;
}

/**
 * Version 11's `documentChunks` and `titleChunks` from one size a document (openCoding.documentRuns): each size at
 * least 1 and the sizes summing to n exactly, checked before a chunk's value is written.
 */
function expandRuns(out: Record<string, unknown>, n: number): void {
  const sizes = allVarints(out.documentChunks, 'documentChunks');
  const titles = out.titleChunks === undefined ? undefined : allVarints(out.titleChunks, 'titleChunks');
  if (titles && titles.length !== sizes.length)
    throw new PagesError(
      `pages.bin (open) has ${titles.length} titleChunks, expected ${sizes.length} (one a document)`,
    );
  const documentChunks = new Uint32Array(n);
  const titleChunks = titles && new Uint32Array(n);
  let k = 0;
  for (let i = 0; i < sizes.length; i++) {
    const size = sizes[i];
    if (!(size >= 1 && k + size <= n))
      throw new PagesError(
        `pages.bin (open) has documentChunks that do not cover its ${n} chunks (document ${i})`,
      );
    const title = titles ? size + unzigzag(titles[i]) : 0;
    if (titles && !(title >= 0 && title <= 0xffffffff))
      throw new PagesError(`pages.bin (open) gives document ${i} ${title} titleChunks`);
    documentChunks.fill(size, k, k + size);
    titleChunks?.fill(title, k, k + size);
    k += size;
  }
  if (k !== n) throw new PagesError(`pages.bin (open) has documentChunks that cover ${k} of its ${n} chunks`);
  out.documentChunks = documentChunks;
  if (titleChunks) out.titleChunks = titleChunks;
}

/**
 * Version 12's `evidenceBlocks`: one size a block of the chunks' tokens, exactly `count` of them, each a byte at
 * least, summing to `bytes` (checked before the layout places the blocks by them); `open` has no `tokens` then (the
 * array a library keeps is empty: the reader reads it by block, SectionReader).
 */
function expandEvidence(out: Record<string, unknown>, evidence: { count: number; bytes: number }): void {
  if (out.tokens !== undefined) throw new PagesError('pages.bin (open) has tokens beside evidenceArrays');
  const sizes = allVarints(out.evidenceBlocks, 'evidenceBlocks');
  if (sizes.length !== evidence.count)
    throw new PagesError(`pages.bin (open) has ${sizes.length} evidenceBlocks, expected ${evidence.count}`);
  const starts = offsetsOf(sizes);
  if (!sizes.every((x) => x >= 1) || starts[sizes.length] !== evidence.bytes)
    throw new PagesError(
      `pages.bin (open) has evidenceBlocks that do not cut the ${evidence.bytes} bytes of evidenceArrays in blocks`,
    );
  out.evidenceStarts = starts;
  delete out.evidenceBlocks;
  out.tokens = new Uint32Array(0);
}

/** Offsets from 0 summed from group sizes. */
function offsetsOf(sizes: Float64Array): Float64Array {
  const offsets = new Float64Array(sizes.length + 1);
  for (let g = 0; g < sizes.length; g++) offsets[g + 1] = offsets[g] + sizes[g];
  return offsets;
}

/**
 * Version 10's `tokens` and `rowGroups` from their residuals (openResiduals), and with version 11's `openCoding`
 * also `conceptCounts` and `recordGroups`, into `out` (decoded from varints but for those): each chunk's tokens its
 * prediction from its text length plus its residual; each row group's size its chunks' concept counts (version 11:
 * times a slope) plus its residual. Every count is checked before a loop uses it.
 */
function applyResiduals(
  out: Record<string, unknown>,
  residuals: Residuals,
  n: number,
  listsInRows: boolean,
): void {
  const lengths = out.textLengths as Float32Array;
  if (lengths.length !== n)
    throw new PagesError(`pages.bin (open) has ${lengths.length} textLengths, expected ${n}`);
  const coding = residuals.openCoding;
  if (coding) expandDf(out, residuals.concepts);
  if (coding?.documentRuns === 1) expandRuns(out, n);
  if (residuals.rowBlocks) {
    applyRowBlocks(out, residuals, coding, n);
    return;
  }
  if (coding) {
    const counts = unpredict(
      out.conceptCounts,
      'conceptCounts',
      lengths,
      coding.countsPerLength,
      0xffffffff,
      (k, v) => `chunk ${k} ${v} concepts (openCoding.countsPerLength)`,
    );
    out.conceptCounts = Uint32Array.from(counts);
  }
  const counts = out.conceptCounts as Uint32Array;
  if (counts.length !== n)
    throw new PagesError(`pages.bin (open) has ${counts.length} conceptCounts, expected ${n}`);
  expandTokens(out, residuals, lengths);
  const { rowsPerGroup, recordsPerGroup } = residuals;
  const rowCounts = groupSums(counts, rowsPerGroup, Math.ceil(n / rowsPerGroup));
  if (coding) {
    out.rowGroups = offsetsOf(
      unpredict(
        out.rowGroups,
        'rowGroups',
        rowCounts,
        coding.rowBytesPerCount,
        Number.MAX_SAFE_INTEGER,
        (g, v) => `row group ${g} ${v} bytes (rowGroups)`,
      ),
    );
    expandRecordGroups(out, lengths, recordsPerGroup, n, coding);
    return;
  }
  // Version 10: a plain varint of the size less the counts (≥ 0) but for the rows that keep the lists (zigzag).
  const sizeResiduals = allVarints(out.rowGroups, 'rowGroups');
  if (sizeResiduals.length !== rowCounts.length)
    throw new PagesError(
      `pages.bin (open) has ${sizeResiduals.length} rowGroups, expected ${rowCounts.length}`,
    );
  const sizes = new Float64Array(rowCounts.length);
  for (let g = 0; g < sizes.length; g++) {
    sizes[g] = rowCounts[g] + (listsInRows ? unzigzag(sizeResiduals[g]) : sizeResiduals[g]);
    if (!(sizes[g] >= 0))
      throw new PagesError(`pages.bin (open) gives row group ${g} ${sizes[g]} bytes (rowGroups)`);
  }
  out.rowGroups = offsetsOf(sizes);
}

/** Version 11's record groups: each group's bytes a residual over its chunks' text lengths, as offsets. */
function expandRecordGroups(
  out: Record<string, unknown>,
  lengths: Float32Array,
  recordsPerGroup: number,
  n: number,
  coding: OpenCoding,
): void {
  const recordLengths = groupSums(lengths, recordsPerGroup, Math.ceil(n / recordsPerGroup));
  out.recordGroups = offsetsOf(
    unpredict(
      out.recordGroups,
      'recordGroups',
      recordLengths,
      coding.recordBytesPerLength,
      Number.MAX_SAFE_INTEGER,
      (g, v) => `record group ${g} ${v} bytes (recordGroups)`,
    ),
  );
}

/** Version 12's evidence blocks, or the tokens a chunk as residuals over its text length (version 11's). */
function expandTokens(out: Record<string, unknown>, residuals: Residuals, lengths: Float32Array): void {
  if (residuals.evidence) expandEvidence(out, residuals.evidence);
  else
    out.tokens = Uint32Array.from(
      unpredict(
        out.tokens,
        'tokens',
        lengths,
        residuals.openResiduals.tokensPerLength,
        0xffffffff,
        (k, v) => `chunk ${k} ${v} tokens (openResiduals)`,
      ),
    );
}

/**
 * Version 16's rest of applyResiduals (rowsDelimited, beside openCoding): the tokens or the evidence blocks and the
 * record groups as version 11's, the row blocks' index (rowBlockIndex.ts) in place of the concept counts and the row
 * groups, which a stored `open` must not hold then.
 */
function applyRowBlocks(
  out: Record<string, unknown>,
  residuals: Residuals,
  coding: OpenCoding | undefined,
  n: number,
): void {
  const { count, size } = residuals.rowBlocks!;
  if (!coding) throw new PagesError('pages.bin has rowsDelimited without openCoding');
  for (const key of ['conceptCounts', 'rowGroups'] as const)
    if (out[key] !== undefined) throw new PagesError(`pages.bin (open) has ${key} beside rowsDelimited`);
  const lengths = out.textLengths as Float32Array;
  expandTokens(out, residuals, lengths);
  const { recordsPerGroup } = residuals;
  expandRecordGroups(out, lengths, recordsPerGroup, n, coding);
  const { firsts, offsets } = expandRowBlocks(out, count, size, n);
  delete out.rowBlockFirst;
  delete out.rowBlockSpare;
  out.rowBlockFirsts = firsts;
  out.rowGroups = offsets;
}

/**
 * Version 9's degree codes: those of the concepts whose df is not 1, in concept order. A concept in one chunk is
 * linked to exactly the other concepts of that chunk (co-occurrence 1 each, kept at θco ≤ 1), each with the Dice
 * weight 2 / (1 + df(v)), so its degree follows from the chunk's row and `open`'s df; at 100 MiB these are 396 K of
 * the 591 K codes (315 of `open`'s 1,511 KB gzip'd, docs/results/question-bytes.md, round eighteen).
 */
function storedCodes(codes: Uint8Array, df: ArrayLike<number>): Uint8Array {
  let kept = 0;
  for (let c = 0; c < codes.length; c++) if (df[c] !== 1) kept++;
  const out = new Uint8Array(kept);
  for (let c = 0, i = 0; c < codes.length; c++) if (df[c] !== 1) out[i++] = codes[c];
  return out;
}

/**
 * Version 9's codes for every concept from the stored ones (those whose df is not 1), 0 in place of each left out,
 * the count checked against the df first and the bound `singleCode` checked a code.
 */
function expandCodes(v9: PagesOpenV2 & { singleCode?: unknown }): { codes: Uint8Array; singleCode: number } {
  const { singleCode, degreeCodes: stored, df } = v9;
  if (!(Number.isSafeInteger(singleCode) && (singleCode as number) >= 0 && (singleCode as number) <= 255))
    throw new PagesError(`pages.bin (open) has singleCode ${String(singleCode)} (a degree code, 0 to 255)`);
  if (!(stored instanceof Uint8Array)) throw new PagesError('pages.bin (open) has no degreeCodes');
  const nc = df.length;
  let kept = 0;
  for (let c = 0; c < nc; c++) if (df[c] !== 1) kept++;
  if (stored.length !== kept)
    throw new PagesError(
      `pages.bin (open) has ${stored.length} degreeCodes, expected ${kept} (one a concept not in one chunk)`,
    );
  const codes = new Uint8Array(nc);
  for (let c = 0, i = 0; c < nc; c++) if (df[c] !== 1) codes[c] = stored[i++];
  return { codes, singleCode: singleCode as number };
}

/** The per-chunk and per-concept counts version 6 keeps as varints (each a whole number below 2^32). */
const COUNT_FIELDS = ['conceptCounts', 'tokens', 'documentChunks', 'titleChunks', 'df'] as const;
/** The BM25 lengths: varints when every one is a whole number a float32 holds exactly (they count words). */
const LENGTH_FIELDS = ['textLengths', 'headingLengths'] as const;
/** The group offsets: version 6 keeps each group's size (varints), summed back at open from 0. */
const GROUP_FIELDS = ['recordGroups', 'termGroups', 'conceptGroups', 'rowGroups'] as const;
/** Above this a float32 no longer holds every whole number: such a length stays a float32. */
const F32_EXACT = 2 ** 24;

/**
 * Version 6's `open` from version 2's value: the counts, BM25 lengths and group sizes as varints. At 100 MiB of text
 * (102,310 chunks, 591,013 concepts) `open` was 1,769 KB gzip'd, every visitor's first read: the u32 counts and f32
 * lengths (mostly one- or two-byte values in four bytes) and the f64 group offsets (growing, so every byte differs)
 * gzip poorly; as varints (sizes for the offsets) the same values take ~280 KB less (docs/results/question-bytes.md,
 * round fifteen).
 */
function varintOpen(open: PagesOpenV2): PagesOpenV6 {
  const out: Record<string, unknown> = { ...open };
  for (const key of COUNT_FIELDS) {
    const values = open[key];
    if (values) out[key] = varints(values.length, (i) => values[i]);
  }
  for (const key of LENGTH_FIELDS) {
    const values = open[key];
    if (values.every((x) => Number.isInteger(x) && x >= 0 && x <= F32_EXACT))
      out[key] = varints(values.length, (i) => values[i]);
  }
  for (const key of GROUP_FIELDS) {
    const offsets = open[key];
    out[key] = varints(offsets.length - 1, (i) => offsets[i + 1] - offsets[i]);
  }
  return out as unknown as PagesOpenV6;
}

/** Every varint of a version 6 field (as many as its bytes hold: checkOpen then holds the count to the directory's). */
function allVarints(bytes: unknown, name: string): Float64Array {
  if (!(bytes instanceof Uint8Array)) throw new PagesError(`pages.bin (open) has no ${name} varints`);
  const values: number[] = [];
  const r = new ByteReader(bytes);
  try {
    while (r.at < bytes.length) values.push(r.varint());
  } catch {
    throw new PagesError(`pages.bin (open) ${name} end inside a varint`);
  }
  return Float64Array.from(values);
}

/**
 * Version 2's value from version 6's, every value checked before it is kept: a count must fit the u32 it becomes
 * (a wrapped one would pass the checks against the directory), a length be a float32 exactly; the group offsets are
 * the sums of the sizes from 0 (checkOpen then checks that they cover their sections).
 */
function openOfVarints(
  open: PagesOpenV6,
  residuals?: Residuals & { n: number; listsInRows: boolean },
): PagesOpenV2 {
  const out: Record<string, unknown> = { ...open };
  const coded = residuals?.openCoding !== undefined;
  for (const key of COUNT_FIELDS) {
    if (open[key] === undefined && key === 'titleChunks') continue;
    if (residuals && key === 'tokens') continue;
    if (coded && (key === 'conceptCounts' || key === 'df')) continue;
    if (residuals?.openCoding?.documentRuns === 1 && (key === 'documentChunks' || key === 'titleChunks'))
      continue;
    const values = allVarints(open[key], key);
    if (!values.every((x) => x <= 0xffffffff))
      throw new PagesError(`pages.bin (open) has ${key} that do not fit 32 bits`);
    out[key] = Uint32Array.from(values);
  }
  for (const key of LENGTH_FIELDS) {
    if (open[key] instanceof Float32Array) continue;
    const values = allVarints(open[key], key);
    if (!values.every((x) => x <= F32_EXACT))
      throw new PagesError(`pages.bin (open) has ${key} above 2^24 as varints`);
    out[key] = Float32Array.from(values);
  }
  for (const key of GROUP_FIELDS) {
    if (residuals && key === 'rowGroups') continue;
    if (coded && key === 'recordGroups') continue;
    const sizes = allVarints(open[key], key);
    const offsets = new Float64Array(sizes.length + 1);
    for (let i = 0; i < sizes.length; i++) offsets[i + 1] = offsets[i] + sizes[i];
    out[key] = offsets;
  }
  if (residuals) applyResiduals(out, residuals, residuals.n, residuals.listsInRows);
  return out as unknown as PagesOpenV2;
}

/** What expandOpen needs of a checked directory to read version 10's and 11's residuals (undefined: none). */
export function residualsOf(
  d: Pick<
    PagesDirectory,
    | 'openResiduals'
    | 'openCoding'
    | 'groups'
    | 'conceptCount'
    | 'listCoding'
    | 'sections'
    | 'evidenceArrays'
    | 'rowsDelimited'
    | 'rowBlocks'
  >,
): Residuals | undefined {
  return (
    d.openResiduals && {
      openResiduals: d.openResiduals,
      ...(d.openCoding ? { openCoding: d.openCoding } : {}),
      rowsPerGroup: d.groups.rows,
      recordsPerGroup: d.groups.records,
      concepts: d.conceptCount,
      ...(d.listCoding ? { listCoding: d.listCoding, listsBytes: d.sections.lists[1] } : {}),
      ...(d.evidenceArrays
        ? { evidence: { count: d.evidenceArrays.count, bytes: d.evidenceArrays.bytes } }
        : {}),
      ...(d.rowsDelimited && d.rowBlocks
        ? { rowBlocks: { count: d.rowBlocks.count, size: d.rowBlocks.size } }
        : {}),
    }
  );
}

/**
 * The arrays a library reads from either version's `open` (n chunks, nc concepts). With the lists kept in the rows
 * (version 4's listsInRows) there are no list sizes, and every list offset is 0 (the lists section is empty).
 */
export function expandOpen(
  open: PagesOpenV1 | PagesOpenV2 | PagesOpenV6 | PagesOpenV9,
  version: number,
  n: number,
  listsInRows = false,
  /** Version 10: the directory's `openResiduals` (11: and `openCoding`) and group sizes, when it has them. */
  residuals?: Residuals,
): OpenTables {
  if (version === 1) return open as PagesOpenV1;
  if (residuals && version < 10)
    throw new PagesError(`pages.bin has openResiduals, which version ${version} does not have`);
  if (residuals?.openCoding && version < 11)
    throw new PagesError(`pages.bin has openCoding, which version ${version} does not have`);
  const v2: PagesOpenV2 & { singleCode?: number } =
    version >= 6
      ? openOfVarints(open as PagesOpenV6, residuals && { ...residuals, n, listsInRows })
      : (open as PagesOpenV2);
  const nc = v2.df?.length ?? 0;
  let singleCode: number | undefined;
  if (version >= 9) ({ codes: v2.degreeCodes, singleCode } = expandCodes(v2));
  else if (v2.singleCode !== undefined)
    throw new PagesError(`pages.bin (open) has singleCode, which version ${version} does not have`);
  const check = (name: string, value: { length: number } | undefined, expected: number): void => {
    if (!value || value.length !== expected)
      throw new PagesError(`pages.bin (open) has ${value?.length ?? 'no'} ${name}, expected ${expected}`);
  };
  check('degreeCodes', v2.degreeCodes, nc);
  const packed = residuals?.listCoding;
  let listFirsts: Uint32Array | undefined;
  const listOffsets = new Float64Array(packed ? 0 : nc + 1);
  if (packed) {
    // Version 12: how many lists start in each block of the section, checked before a read goes by them.
    if (v2.listSizes !== undefined) throw new PagesError('pages.bin (open) has listSizes beside listCoding');
    const blocks = Math.ceil((residuals.listsBytes ?? 0) / packed.blockBytes);
    const stored = (v2 as { listStarts?: unknown }).listStarts;
    // A varint a block, each at least a byte: the count is checked against the bytes before anything is allocated.
    if (!(stored instanceof Uint8Array))
      throw new PagesError(`pages.bin (open) has no listStarts for the lists' ${blocks} blocks`);
    if (stored.length < blocks)
      throw new PagesError(
        `pages.bin (open) has listStarts of ${stored.length} bytes for the lists' ${blocks} blocks (a varint each)`,
      );
    const counts = readVarints(stored, blocks, 'listStarts');
    listFirsts = listFirstsOf(counts, v2.df, packed.blockBytes, (why) => {
      throw new PagesError(`pages.bin (open) ${why}`);
    });
  } else if (listsInRows) {
    if (v2.listSizes !== undefined)
      throw new PagesError('pages.bin (open) has listSizes but keeps its lists in its rows');
  } else {
    if (!(v2.listSizes instanceof Uint8Array)) throw new PagesError('pages.bin (open) has no listSizes');
    const read = readVarints(v2.listSizes, nc, 'listSizes');
    // Version 9 holds them in listOrder (the concepts not in one chunk first); version 11 as residuals of a slope
    // over each list's gap bits (openCoding.listBytesPerBit).
    let sizes = read;
    if (version >= 9) {
      sizes = new Float64Array(nc);
      const order = listOrder(v2.df);
      const slope = residuals?.openCoding?.listBytesPerBit;
      for (let i = 0; i < nc; i++) {
        const c = order[i];
        sizes[c] =
          slope === undefined ? read[i] : predicted(listBits(v2.df[c], n), slope) + unzigzag(read[i]);
        if (!(sizes[c] >= 0))
          throw new PagesError(
            `pages.bin (open) gives concept ${c}'s list ${sizes[c]} bytes more (listSizes)`,
          );
      }
    }
    const least = minListBytes(version);
    for (let c = 0; c < nc; c++) listOffsets[c + 1] = listOffsets[c] + sizes[c] + least * v2.df[c];
  }
  let idf: Float32Array;
  if (v2.idf) idf = v2.idf;
  else {
    if (!(v2.idfDf instanceof Uint8Array)) throw new PagesError('pages.bin (open) has neither idf nor idfDf');
    const extra = readVarints(v2.idfDf, nc, 'idfDf');
    idf = new Float32Array(nc);
    for (let c = 0; c < nc; c++) {
      const d = v2.df[c] + extra[c];
      if (!(d >= 1 && d <= n)) throw new PagesError(`pages.bin (open) gives concept ${c} a df of ${d}`);
      idf[c] = idfOf(n, d);
    }
  }
  const {
    idfDf: _idfDf,
    listSizes: _listSizes,
    listStarts: _listStarts,
    singleCode: _single,
    ...rest
  } = v2 as typeof v2 & { listStarts?: unknown };
  return {
    ...rest,
    idf,
    listOffsets,
    ...(listFirsts ? { listFirsts } : {}),
    degreeCodes: v2.degreeCodes,
    ...(singleCode === undefined ? {} : { singleCode }),
  };
}
