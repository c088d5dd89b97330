// Round twenty-one (issue 47 at 100 MiB, the walk's rows): what storing some concepts' walk rows would save a cold
// question, measured on the real reader rather than simulated block by block. The walk computes concept u's row of
// the co-occurrence graph from u's chunk list and every one of those chunks' rows (SectionReader.walkRow); each chunk
// row read brings its block of whole rows (≤ 128 B, `rowBlocks`) and the pages of block hashes above it.
// Each question is asked cold (a fresh source and openPagedBundle, ppr, budget 12,000, gap 0; the Ask view's first
// page with --first-page, as question-bytes.ts asks it), once as today and once for every threshold D with walkRow
// answered, for each concept of df ≥ D, by its exact row computed here from the whole decoded library (an oracle: the
// row a `conceptRows` section would store, read for free), so the block store reads only what is still needed: the
// chunk rows of concepts under D, the ranking's own, and the one-chunk concepts' rows whose degree the walk then asks
// (SectionReader.singleDegree knows it only from a decoded chunk row). Printed per D:
// - the whole library's cost of storing the rows of every concept of df ≥ D (a varint target count, the targets as
//   delta varints, their co-occurrence counts as varints: exact, the Dice weight and the degree follow bit for bit),
//   their block hashes and upper hash levels, and `open`'s growth (each stored row's size, varints gzip'd);
// - per question (p50 / mean): what the real reader then read of rows, hashes and in all; the stored rows it would
//   read (their bytes, their blocks of whole stored rows ≤ S bytes for S in STORED_BLOCKS, laid out in concept
//   order, and those blocks' hash leaves and upper pages: a zone of its own); the estimate = read + stored reads.
// Today's run also prints which rows the walk computes (their df) and which chunk rows only the walk asks (not the
// ranking's conceptsOf, nor the evidence); the run with D = 1 is every chunk row the walk alone brings.
// The oracle's rows are checked against the rows today's run computed (targets, weights and degree bit for bit), and
// every question's ranking against today's.
// Usage: node --import tsx test/bench/stored-walk-rows.ts <name>=<x.bundle>:<questions.jsonl> [--n 25]
//          [--thresholds 1,2,4,16,64,256,1024,4096,2-4] [--first-page] [--split]   (D: df ≥ D; a-b: df a to b;
//          --split: the mean a question read of each part, today and under each rule)  [--later] (round
//          twenty-five: also the questions one after another on one open library, as question-bytes.ts --later)
//          [--later-detail] (each later question's bytes and the stored rows served so far, on stderr)
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import process from 'node:process';
import { gzipSync } from 'fflate';
import { PATH_BYTES } from '../../src/core/paged/blockPaths.ts';
import { BlockStore } from '../../src/core/paged/blockStore.ts';
import { readVarints } from '../../src/core/paged/bytes.ts';
import {
  blockLayoutOf,
  hashBytesOf,
  hashLevels,
  placeRowBlocks,
  type PagesDirectory,
} from '../../src/core/paged/format.ts';
import { openPagedBundle, readManifestByRanges } from '../../src/core/paged/index.ts';
import type { PagedLibrary } from '../../src/core/paged/library.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { decodeRow } from '../../src/core/paged/rowsCoding.ts';
import { SectionReader } from '../../src/core/paged/sectionReader.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { arg } from './lib/args.ts';
import { regionsOf } from './lib/bundleRegions.ts';
import { TaggedSource, type Region } from './lib/taggedSource.ts';
import { askAsBench, questionsOf, spread } from './lib/questions.ts';

const USAGE =
  'usage: node --import tsx test/bench/stored-walk-rows.ts <name>=<x.bundle>:<questions.jsonl> [--n 25] [--thresholds 1,2,…] [--first-page] [--split] [--later]';
/** Block sizes of whole stored rows simulated for the stored rows' own zone. */
const STORED_BLOCKS = [128, 512];
/** The hash tree a version 7+ writer gives (format.ts): 16-byte hashes, leaves of 128 B, upper pages of 512 B. */
const HASH = 16;
const LEAF = 128;
const UPPER = 512;

type Row = { targets: Uint32Array; weights: Float32Array; degree: number };

// ---- bench-only patches of the reader: the rows the walk computes, who asks each chunk row, the oracle

/** Concepts whose walk row the reader computed (today) or the oracle gave (a threshold's run). */
let computed: Map<number, Row> | undefined;
let served: Set<number> | undefined;
/** The oracle: the row of a concept of df ≥ threshold, read for free. */
let oracle: ((u: number) => Row | undefined) | undefined;
/** Chunk rows asked inside the walk (walkRow and its follow-up) and outside it. */
let rowsInWalk: Set<number> | undefined;
let rowsOutside: Set<number> | undefined;
let inWalk = 0;

const readerProto = SectionReader.prototype as unknown as {
  walkRow(u: number): Row | undefined;
  rowGroup(g: number): unknown;
};
const storeProto = BlockStore.prototype as unknown as { after(then: () => void): void };
const walkRowOf = readerProto.walkRow;
const rowGroupOf = readerProto.rowGroup;
const afterOf = storeProto.after;
readerProto.walkRow = function (this: SectionReader, u: number) {
  const stored = oracle?.(u);
  if (stored) {
    served?.add(u);
    return stored;
  }
  inWalk++;
  try {
    const row = walkRowOf.call(this, u);
    if (row) computed?.set(u, row);
    return row;
  } finally {
    inWalk--;
  }
};
readerProto.rowGroup = function (this: SectionReader, g: number) {
  (inWalk > 0 ? rowsInWalk : rowsOutside)?.add(g);
  return rowGroupOf.call(this, g);
};
// walkRow leaves a follow-up reading its list's chunk rows once the list arrives: those are the walk's too.
storeProto.after = function (this: BlockStore, then: () => void) {
  if (inWalk === 0) return afterOf.call(this, then);
  return afterOf.call(this, () => {
    inWalk++;
    try {
      then();
    } finally {
      inWalk--;
    }
  });
};

// ---- helpers

const kb = (n: number): string => Math.round(n / 1000).toLocaleString('en-US');
const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};
const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const varintBytes = (v: number): number =>
  v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
const pushVarint = (out: number[], v: number): void => {
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
};

/** The library's chunk rows and concept lists, decoded whole from its rows section's logical bytes (our own bundle). */
interface Library {
  d: PagesDirectory;
  df: Uint32Array;
  /** Chunk k's concepts: ids[starts[k]..starts[k + 1]). */
  starts: Float64Array;
  ids: Uint32Array;
  /** Concept c's chunks: chunks[listStarts[c]..listStarts[c + 1]). */
  listStarts: Float64Array;
  chunks: Uint32Array;
}

function decodeLibrary(rows: Uint8Array, library: PagedLibrary): Library {
  const { directory: d, open } = library.reader;
  const n = d.chunkCount;
  const nc = d.conceptCount;
  const starts = new Float64Array(n + 1);
  for (let k = 0; k < n; k++) starts[k + 1] = starts[k] + open.conceptCounts![k];
  const ids = new Uint32Array(starts[n]);
  if (d.groups.rows !== 1) throw new Error('rows in groups of more than one chunk: not the large layout');
  for (let k = 0; k < n; k++) {
    if (d.rowsCoding) {
      // Version 15: Rice-coded rows (rowsCoding.ts), ids whole.
      decodeRow(
        rows,
        open.rowGroups[k],
        open.rowGroups[k + 1],
        starts[k + 1] - starts[k],
        nc,
        ids,
        starts[k],
      );
      continue;
    }
    const row = ids.subarray(starts[k], starts[k + 1]);
    readVarints(rows, open.rowGroups[k], row, row.length);
    for (let j = 1; j < row.length; j++) row[j] += row[j - 1];
  }
  const listStarts = new Float64Array(nc + 1);
  for (let c = 0; c < nc; c++) listStarts[c + 1] = listStarts[c] + open.df[c];
  const chunks = new Uint32Array(listStarts[nc]);
  const fill = listStarts.slice(0, nc);
  for (let k = 0; k < n; k++) for (let j = starts[k]; j < starts[k + 1]; j++) chunks[fill[ids[j]]++] = k;
  return { d, df: open.df, starts, ids, listStarts, chunks };
}

/** Concept u's co-occurrences (ascending targets, their counts), as walkRow counts them; `counts` is scratch. */
function coOccurrences(x: Library, u: number, counts: Uint32Array): { targets: number[]; co: number[] } {
  const found: number[] = [];
  for (let i = x.listStarts[u]; i < x.listStarts[u + 1]; i++) {
    const k = x.chunks[i];
    for (let j = x.starts[k]; j < x.starts[k + 1]; j++) {
      const v = x.ids[j];
      if (v !== u && counts[v]++ === 0) found.push(v);
    }
  }
  found.sort((a, b) => a - b);
  const targets: number[] = [];
  const co: number[] = [];
  for (const v of found) {
    if (counts[v] >= x.d.thetaCo) {
      targets.push(v);
      co.push(counts[v]);
    }
    counts[v] = 0;
  }
  return { targets, co };
}

/** The walk row a stored row gives: the Dice weight 2·Co / (df(u) + df(v)) as a float32, the degree their f64 sum. */
function rowOf(x: Library, u: number, counts: Uint32Array): Row {
  const { targets, co } = coOccurrences(x, u, counts);
  const weights = new Float32Array(targets.length);
  for (let i = 0; i < targets.length; i++) weights[i] = (2 * co[i]) / (x.df[u] + x.df[targets[i]]);
  let degree = 0;
  for (let i = 0; i < weights.length; i++) degree += weights[i];
  return { targets: Uint32Array.from(targets), weights, degree };
}

/** Bytes of concept u's stored row: its target count, the targets as delta varints, the counts as varints. */
function storedBytes(x: Library, u: number, counts: Uint32Array): number {
  const { targets, co } = coOccurrences(x, u, counts);
  let bytes = varintBytes(targets.length);
  for (let i = 0; i < targets.length; i++)
    bytes += varintBytes(targets[i] - (i > 0 ? targets[i - 1] : 0)) + varintBytes(co[i]);
  return bytes;
}

/** The stored rows' zone for one threshold: each stored concept's block of whole rows ≤ size (greedy, in order). */
function packBlocks(sizes: number[], size: number): { blockOf: Uint32Array; lengths: number[] } {
  const blockOf = new Uint32Array(sizes.length);
  const lengths: number[] = [];
  let fill = 0;
  for (let i = 0; i < sizes.length; i++) {
    if (lengths.length === 0 || (fill > 0 && fill + sizes[i] > size)) {
      lengths.push(0);
      fill = 0;
    }
    lengths[lengths.length - 1] += sizes[i];
    fill += sizes[i];
    blockOf[i] = lengths.length - 1;
  }
  return { blockOf, lengths };
}

/** Bytes of the hash pages (leaves and the levels above) covering these blocks of a zone of their own. */
function hashPagesBytes(blocks: Iterable<number>): number {
  let leaves = new Set<number>();
  for (const b of blocks) leaves.add(Math.floor((b * HASH) / LEAF));
  let bytes = leaves.size * LEAF;
  while (leaves.size > 1) {
    const up = new Set<number>();
    for (const p of leaves) up.add(Math.floor((p * HASH) / UPPER));
    bytes += up.size * UPPER;
    if (up.size === leaves.size) break;
    leaves = up;
  }
  return bytes;
}

/** The hash tree's bytes for `blocks` blocks: their 16-byte hashes, then 16 B a page of the level below. */
function hashTreeBytes(blocks: number): number {
  let total = blocks * HASH;
  let level = Math.ceil(total / LEAF) * HASH;
  while (level > 0) {
    total += level;
    if (level <= UPPER) break;
    level = Math.ceil(level / UPPER) * HASH;
  }
  return total;
}

interface Asked {
  bytes: number;
  rows: number;
  hashes: number;
  /** Of the hashes: the leaves of the rows' blocks, the other leaves, the levels above. */
  rowLeaves: number;
  upper: number;
  rounds: number;
  ranking: string;
  /** Bytes read by part of the bundle (taggedSource.ts regions). */
  split: Map<string, number>;
}

/** The mean bytes a question read of each part, for --split. */
function meanSplit(runs: readonly Asked[]): string {
  const sums = new Map<string, number>();
  for (const r of runs) for (const [k, v] of r.split) sums.set(k, (sums.get(k) ?? 0) + v);
  return [...sums].map(([k, v]) => `${k} ${kb(v / runs.length)}`).join(', ');
}

async function askCold(
  data: Uint8Array,
  name: string,
  regions: Region[],
  q: string,
): Promise<Asked & { library: PagedLibrary }> {
  const source = new TaggedSource(new MemoryRangeSource(data, name));
  source.regions = regions;
  source.gapBytes = 0;
  const opened = await openPagedBundle(source, createTermAnalyzer());
  if (!opened) throw new Error(`${name}: has no pages`);
  const library = opened.library;
  const answer = await askAsBench(library, q, process.argv.includes('--first-page'));
  return {
    library,
    bytes: source.bytesRead,
    rows: source.split.get('rows') ?? 0,
    hashes:
      (source.split.get('hashes') ?? 0) +
      (source.split.get('row leaves') ?? 0) +
      (source.split.get('upper hashes') ?? 0),
    rowLeaves: source.split.get('row leaves') ?? 0,
    upper: source.split.get('upper hashes') ?? 0,
    rounds: answer.rounds,
    ranking: answer.hits.map((h) => `${h.chunkId}:${h.score}`).join(','),
    split: source.split,
  };
}

/** An answer's figures without its library (at 1 GiB each library holds its decoded `open`: ~100 MB a question). */
function withoutLibrary(asked: Asked & { library: PagedLibrary }): Asked {
  const { library: _, ...figures } = asked;
  return figures;
}

/**
 * --later: the questions one after another on one open library (a visitor's later questions, as question-bytes.ts
 * --later asks them), with the oracle's rows (or none: today). For each question after the first: what the real
 * reader read, and what the stored rows' zone (blocks ≤ 128 B and their hash pages) adds that no earlier question
 * read; `zoneBytes` gives the zone's bytes (blocks + hash pages) for the concepts served so far.
 */
async function askLater(
  data: Uint8Array,
  name: string,
  regions: Region[],
  questions: readonly string[],
  zoneBytes: ((servedSoFar: ReadonlySet<number>) => number) | undefined,
): Promise<{ later: number[]; rankings: string[] }> {
  const source = new TaggedSource(new MemoryRangeSource(data, name));
  source.regions = regions;
  source.gapBytes = 0;
  const library = (await openPagedBundle(source, createTermAnalyzer()))!.library;
  const later: number[] = [];
  const rankings: string[] = [];
  served = new Set();
  computed = new Map();
  let zoneBefore = 0;
  for (const [i, q] of questions.entries()) {
    const before = source.bytesRead;
    const answer = await askAsBench(library, q, process.argv.includes('--first-page'));
    rankings.push(answer.hits.map((h) => `${h.chunkId}:${h.score}`).join(','));
    const zone = zoneBytes ? zoneBytes(served) : 0;
    // --later-detail: each question's read bytes, the zone's bytes so far and the concepts served so far (stderr).
    if (process.argv.includes('--later-detail'))
      console.error(
        `later ${i}: read ${source.bytesRead - before}, zone so far ${zone}, served ${[...served].join(',')}; ` +
          `rows computed so far ${computed.size}, their df max ` +
          `${Math.max(0, ...[...computed.keys()].map((u) => library.reader.open.df[u]))}`,
      );
    if (i > 0) later.push(source.bytesRead - before + zone - zoneBefore);
    zoneBefore = zone;
  }
  served = undefined;
  computed = undefined;
  return { later, rankings };
}

async function main(): Promise<void> {
  const spec = process.argv.slice(2).find((a) => a.includes('='));
  const m = spec && /^([^=]+)=(.+):([^:]+)$/.exec(spec);
  if (!m) throw new Error(USAGE);
  const [, setName, bundlePath, qaPath] = m;
  const n = Number(arg('n', '25'));
  const laterToo = process.argv.includes('--later');
  // A rule is `D` (every concept of df ≥ D) or `a-b` (df a to b).
  const rules = arg('thresholds', '1,2,4,16,64,256,1024,4096')
    .split(',')
    .map((r) => {
      const [lo, hi] = r.split('-').map(Number);
      return { name: r, lo, hi: hi ?? Infinity };
    });
  const data = new Uint8Array(await readFile(bundlePath));
  const questions = await questionsOf(qaPath);
  const picked = spread(questions, n);
  const manifest = await readManifestByRanges(new MemoryRangeSource(data, bundlePath));
  const pagesPart = manifest?.parts.find((p) => p.name === 'pages.bin');
  const hashesPart = manifest?.parts.find((p) => p.name === 'pages.sha256');
  if (!pagesPart?.offset || !hashesPart?.offset) throw new Error(`${bundlePath}: no pages part`);
  const d = pagesPart.meta as unknown as PagesDirectory;
  // The regions as question-bytes.ts splits them (bundleRegions.ts: version 13's paths inside the rows' region).
  const { regions: partRegions } = await regionsOf(data, bundlePath);
  const regions = partRegions.filter((r) => r.name !== 'hashes');
  let rowsLogical: Uint8Array;
  {
    // The hashes split: the leaves of the rows' own blocks (their zone), the other leaves, the levels above them.
    const probe = await openPagedBundle(new MemoryRangeSource(data, bundlePath), createTermAnalyzer());
    const layout = blockLayoutOf(d, pagesPart.length);
    if (d.blockPaths) layout.withPaths(d.blockPaths.zones, PATH_BYTES);
    if (!layout.placed) placeRowBlocks(bundlePath, d, layout, probe!.library.reader.open.rowGroups);
    const first = layout.blockOf(d.sections.rows[0]);
    const last = layout.blockOf(d.sections.rows[0] + d.sections.rows[1] - 1);
    const hb = hashBytesOf(d);
    const leaves = layout.count * hb;
    const at = hashesPart.offset;
    const upper = d.hashPages ? hashLevels(leaves, d.hashPages).slice(1) : [];
    regions.push({ name: 'hashes', start: at, end: at + first * hb });
    regions.push({ name: 'row leaves', start: at + first * hb, end: at + (last + 1) * hb });
    regions.push({ name: 'hashes', start: at + (last + 1) * hb, end: at + leaves });
    for (const level of upper)
      regions.push({ name: 'upper hashes', start: at + level.at, end: at + level.at + level.length });
    // The rows section's logical bytes: version 13's row blocks are stored each followed by its path (blockPaths.ts).
    const pages = data.subarray(pagesPart.offset, pagesPart.offset + pagesPart.length);
    const [rowsAt, rowsLength] = d.sections.rows;
    rowsLogical = new Uint8Array(rowsLength);
    for (let b = first; b <= last; b++)
      rowsLogical.set(
        pages.subarray(
          layout.storedStartOf(b),
          layout.storedStartOf(b) + layout.endOf(b) - layout.startOf(b),
        ),
        layout.startOf(b) - rowsAt,
      );
  }
  const load = () =>
    loadavg()
      .map((v) => v.toFixed(1))
      .join(' ');
  console.log(
    `## ${setName}: bundle ${kb(data.length)} KB, ${d.chunkCount} chunks, ${d.conceptCount} concepts, θco ` +
      `${d.thetaCo}, rows section ${kb(d.sections.rows[1])} KB; ${picked.length} cold questions, ` +
      `${process.argv.includes('--first-page') ? 'the Ask view’s first page' : 'the whole budget'}; ` +
      `${new Date().toISOString()}, load ${load()}`,
  );

  // ---- today: the rows the walk computes, who asks each chunk row
  const today: Asked[] = [];
  const walkedDf: number[] = [];
  const walkedCount: number[] = [];
  const walkOnly: number[] = [];
  const walkOnlyBytes: number[] = [];
  const rankingRows: number[] = [];
  const reference = new Map<number, Row>();
  let x: Library | undefined;
  for (const q of picked) {
    computed = new Map();
    rowsInWalk = new Set();
    rowsOutside = new Set();
    const asked = await askCold(data, bundlePath, regions, q);
    x ??= decodeLibrary(rowsLogical, asked.library);
    today.push(withoutLibrary(asked));
    walkedCount.push(computed.size);
    for (const [u, row] of computed) {
      walkedDf.push(x.df[u]);
      reference.set(u, row);
    }
    const rowGroups = asked.library.reader.open.rowGroups;
    let only = 0;
    let onlyBytes = 0;
    for (const k of rowsInWalk)
      if (!rowsOutside.has(k)) {
        only++;
        onlyBytes += rowGroups[k + 1] - rowGroups[k];
      }
    walkOnly.push(only);
    walkOnlyBytes.push(onlyBytes);
    rankingRows.push(rowsOutside.size);
  }
  computed = rowsInWalk = rowsOutside = undefined;
  const splits = [`today: ${meanSplit(today)}`];
  const lib = x!;
  console.log(
    `today: read p50 ${kb(
      quantile(
        today.map((a) => a.bytes),
        0.5,
      ),
    )} KB, max ${kb(Math.max(...today.map((a) => a.bytes)))}; ` +
      `rows ${kb(mean(today.map((a) => a.rows)))}, hashes ${kb(mean(today.map((a) => a.hashes)))} KB (mean; the ` +
      `rows' leaves ${kb(mean(today.map((a) => a.rowLeaves)))}, the levels above the leaves ` +
      `${kb(mean(today.map((a) => a.upper)))}); rounds p50 ${quantile(
        today.map((a) => a.rounds),
        0.5,
      )}, mean ${mean(today.map((a) => a.rounds)).toFixed(2)}`,
  );
  console.log(
    `walk rows computed a question p50 ${quantile(walkedCount, 0.5)} (max ${Math.max(...walkedCount)}); their df p50 ` +
      `${quantile(walkedDf, 0.5)}, p90 ${quantile(walkedDf, 0.9)}, p99 ${quantile(walkedDf, 0.99)}, max ` +
      `${Math.max(...walkedDf)}; chunk rows the ranking and evidence ask p50 ${quantile(rankingRows, 0.5)}; ` +
      `chunk rows only the walk asks p50 ${quantile(walkOnly, 0.5)} (${kb(quantile(walkOnlyBytes, 0.5))} KB of rows ` +
      `exact), mean ${Math.round(mean(walkOnly))} (${kb(mean(walkOnlyBytes))} KB); ${reference.size} distinct concepts ` +
      `walked over the ${picked.length} questions, of ${walkedCount.reduce((a, b) => a + b, 0)} walked in all`,
  );

  // ---- the stored rows' sizes, for the lowest threshold and up
  const counts = new Uint32Array(lib.d.conceptCount);
  const tMin = Math.min(...rules.map((r) => r.lo));
  const sizeOf = new Map<number, number>();
  let t0 = performance.now();
  for (let c = 0; c < lib.d.conceptCount; c++)
    if (lib.df[c] >= tMin && lib.df[c] > 0) sizeOf.set(c, storedBytes(lib, c, counts));
  console.log(
    `stored rows sized for ${sizeOf.size.toLocaleString('en-US')} concepts of df ≥ ${tMin} in ` +
      `${((performance.now() - t0) / 1000).toFixed(1)} s; the oracle's rows checked against today's ` +
      `${reference.size} computed rows:`,
  );
  // The whole library's stored rows by df band (bytes of rows alone), against the ceiling.
  const bands: string[] = [];
  for (let lo = 1, top = lib.df.reduce((a, b) => Math.max(a, b), 0); lo <= top; lo *= 2) {
    let bytes = 0;
    let concepts = 0;
    for (const [c, b] of sizeOf)
      if (lib.df[c] >= lo && lib.df[c] < lo * 2) {
        bytes += b;
        concepts++;
      }
    if (concepts > 0)
      bands.push(`df ${lo}–${lo * 2 - 1}: ${concepts.toLocaleString('en-US')} concepts ${kb(bytes)} KB`);
  }
  console.log(`  stored rows by df band: ${bands.join('; ')}`);
  let differ = 0;
  for (const [u, row] of reference) {
    const o = rowOf(lib, u, counts);
    const same =
      o.degree === row.degree &&
      o.targets.length === row.targets.length &&
      o.targets.every((v, i) => v === row.targets[i]) &&
      o.weights.every((w, i) => Object.is(w, row.weights[i]));
    if (!same) differ++;
  }
  console.log(`  ${differ} differ`);

  // ---- each threshold
  console.log(
    '\n| stored: df ≥ D or a–b | concepts | stored rows KB | + hashes KB | + open KB (sizes gzip’d) | bundle KB | ' +
      'read p50 / mean KB (rows, hashes, rows’ leaves, upper hashes mean) | stored rows read KB mean | ' +
      STORED_BLOCKS.map((s) => `≤ ${s} B blocks + hash pages KB mean`).join(' | ') +
      ' | estimate p50 / max KB (≤ 128 B) | rankings differ |' +
      (laterToo ? ' later questions p50 / max KB (estimate) |' : ''),
  );
  console.log(`|${'---:|'.repeat(9 + STORED_BLOCKS.length + (laterToo ? 1 : 0))}`);
  const laterCell = ({ later, rankings }: { later: number[]; rankings: string[] }): string => {
    if (!laterToo) return '';
    const differ = rankings.filter((r, i) => r !== laterToday.rankings[i]).length;
    return ` ${kb(quantile(later, 0.5))} / ${kb(Math.max(...later))} (rankings differ: ${differ}) |`;
  };
  const laterToday = laterToo
    ? await askLater(data, bundlePath, regions, picked, undefined)
    : { later: [], rankings: [] };
  const bundleKb = data.length;
  const todayP50 = quantile(
    today.map((a) => a.bytes),
    0.5,
  );
  console.log(
    `| – (today) | 0 | 0 | 0 | 0 | ${kb(bundleKb)} | ${kb(todayP50)} / ${kb(mean(today.map((a) => a.bytes)))} ` +
      `(${kb(mean(today.map((a) => a.rows)))}, ${kb(mean(today.map((a) => a.hashes)))}, ` +
      `${kb(mean(today.map((a) => a.rowLeaves)))}, ${kb(mean(today.map((a) => a.upper)))}) | 0 | ${STORED_BLOCKS.map(() => '0').join(' | ')} | ` +
      `${kb(todayP50)} / ${kb(Math.max(...today.map((a) => a.bytes)))} | – |${laterCell(laterToday)}`,
  );
  for (const rule of rules) {
    t0 = performance.now();
    const picks = (c: number) => lib.df[c] >= rule.lo && lib.df[c] <= rule.hi;
    const stored = [...sizeOf.keys()].filter(picks).sort((a, b) => a - b);
    const place = new Map(stored.map((c, i) => [c, i]));
    const sizes = stored.map((c) => sizeOf.get(c)!);
    const total = sizes.reduce((a, b) => a + b, 0);
    const sizeVarints: number[] = [];
    for (const s of sizes) pushVarint(sizeVarints, s);
    const openGrowth = gzipSync(Uint8Array.from(sizeVarints)).length;
    const packed = STORED_BLOCKS.map((s) => packBlocks(sizes, s));
    const hashes = hashTreeBytes(packed[0].lengths.length);
    const scratch = new Uint32Array(lib.d.conceptCount);
    const rowsCache = new Map<number, Row>();
    oracle = (u) => {
      if (!picks(u)) return undefined;
      let row = rowsCache.get(u);
      if (!row) rowsCache.set(u, (row = rowOf(lib, u, scratch)));
      return row;
    };
    const runs: Asked[] = [];
    const storedRead: number[] = [];
    const zoneRead = STORED_BLOCKS.map(() => [] as number[]);
    const estimate: number[] = [];
    let rankingsDiffer = 0;
    for (const [i, q] of picked.entries()) {
      served = new Set();
      const asked = withoutLibrary(await askCold(data, bundlePath, regions, q));
      runs.push(asked);
      if (asked.ranking !== today[i].ranking) rankingsDiffer++;
      let bytes = 0;
      for (const u of served) bytes += sizeOf.get(u)!;
      storedRead.push(bytes);
      for (const [z, { blockOf, lengths }] of packed.entries()) {
        const blocks = new Set<number>();
        for (const u of served) blocks.add(blockOf[place.get(u)!]);
        let read = hashPagesBytes(blocks);
        for (const b of blocks) read += lengths[b];
        zoneRead[z].push(read);
        if (z === 0) estimate.push(asked.bytes + read + openGrowth);
      }
    }
    served = undefined;
    // Later questions: the zone's blocks (≤ 128 B) and hash pages every question so far read, the growth counted.
    const { blockOf, lengths } = packed[0];
    const later = laterToo
      ? await askLater(data, bundlePath, regions, picked, (sofar) => {
          const blocks = new Set<number>();
          for (const u of sofar) blocks.add(blockOf[place.get(u)!]);
          let read = hashPagesBytes(blocks);
          for (const b of blocks) read += lengths[b];
          return read;
        })
      : { later: [], rankings: [] };
    oracle = undefined;
    console.log(
      `| ${rule.name} | ${stored.length.toLocaleString('en-US')} | ${kb(total)} | ${kb(hashes)} | ${kb(openGrowth)} | ` +
        `${kb(bundleKb + total + hashes + openGrowth)} | ${kb(
          quantile(
            runs.map((a) => a.bytes),
            0.5,
          ),
        )} / ` +
        `${kb(mean(runs.map((a) => a.bytes)))} (${kb(mean(runs.map((a) => a.rows)))}, ${kb(mean(runs.map((a) => a.hashes)))}, ` +
        `${kb(mean(runs.map((a) => a.rowLeaves)))}, ${kb(mean(runs.map((a) => a.upper)))}) | ` +
        `${kb(mean(storedRead))} | ${zoneRead.map((z) => kb(mean(z))).join(' | ')} | ${kb(quantile(estimate, 0.5))} / ` +
        `${kb(Math.max(...estimate))} | ${rankingsDiffer} |${laterCell(later)}`,
    );
    console.error(`${rule.name}: ${((performance.now() - t0) / 1000).toFixed(0)} s, load ${load()}`);
    if (process.argv.includes('--split')) splits.push(`${rule.name}: ${meanSplit(runs)}`);
  }
  if (process.argv.includes('--split')) console.log(`\nmean KB a question by part:\n${splits.join('\n')}`);
  console.log(`\ndone ${new Date().toISOString()}, load ${load()}`);
}

await main();
