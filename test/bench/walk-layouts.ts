// What a cold question would read of the walk's rows under other layouts, at 100 MiB and 1 GiB of text (issue 47,
// round sixteen). The walk computes each pushed concept's row from the rows of every chunk in its list
// (sectionReader.ts walkRow); at 100 MiB those chunks' rows lie scattered, so a question reads ~2.5 MB of 512-byte
// row blocks for ~0.46 MB of rows it needs. This script asks each question cold once (ppr, budget 12,000, gap 0,
// as question-bytes.ts does), records which concepts' rows the walk computed and which chunks' rows the ranking read
// itself, caches that trace (--trace-dir, so a layout can be tried again without asking again), and then replays the
// trace against layouts:
// - today's: rows in groups of G chunks in chunk order, in B-byte blocks (the whole part's block size);
// - the rows section alone in smaller blocks (its hashes of 16 bytes a block counted, read by hash pages covering
//   32 KiB of the part as the writers' are);
// - the rows of frequent (hub) concepts stored precomputed, for every concept of df ≥ T, in a section of their own
//   in concept order (so a walk that pushes a hub reads its stored row instead of its df chunks' rows), coded as a
//   version 6 list is (Rice gaps by the row's own density, a bit a link for a count over 1, varints of those counts
//   less 2): the bytes it adds to the bundle and what a question then reads;
// - chunk rows ordered by document copy (the chunks of the same source paragraph side by side).
// Every figure is bytes of blocks (and hash pages) read, which do not depend on load. The bundles' rows and lists
// are decoded here from the pages part's bytes (as sectionReader.ts decodes them, without its checks: the bundles
// are our own), so every concept's row can be computed.
// Usage: node --import tsx test/bench/walk-layouts.ts <name>=<x.bundle>:<questions.jsonl> [...] [--n 25]
//          [--trace-dir /tmp/walk16] [--hubs 256,512,1024,2048,4096]
// (at 1 GiB give --hubs 16384: every stored row of df ≥ T is computed, which at T = 1024 takes tens of minutes there).
// Round sixteen's runs: docs/results/question-bytes.md, "Round sixteen (wip/walk16)".
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { decodeStructured, encodeStructured, gunzip, gzip } from '../../src/core/bundle/index.ts';
import { PersonalizedPageRank } from '../../src/core/graph/index.ts';
import { gzipSize } from '../../src/core/paged/blockStore.ts';
import { readVarints } from '../../src/core/paged/bytes.ts';
import { expandOpen, residualsOf } from '../../src/core/paged/compactOpen.ts';
import { hashPageBytes, type PagesDirectory } from '../../src/core/paged/format.ts';
import { openPagedBundle, readManifestByRanges } from '../../src/core/paged/index.ts';
import type { RangeSource } from '../../src/core/paged/rangeSource.ts';
import { SectionReader } from '../../src/core/paged/sectionReader.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { arg } from './lib/args.ts';
import { coListed, rareConceptOrder } from './lib/rowsOrder.ts';
import { TaggedSource } from './lib/taggedSource.ts';
import { spread } from './lib/questions.ts';

const USAGE =
  'usage: node --import tsx test/bench/walk-layouts.ts <name>=<x.bundle>:<questions.jsonl> [...] [--n 25] ' +
  '[--trace-dir /tmp/walk16] [--hubs 256,512,…]';
const BUDGET_TOKENS = 12_000;
const HASH_BYTES = 16;

// ---- the trace: the concepts whose row the walk computed, the chunks whose rows the ranking read itself

let walked: Set<number> | undefined;
let chunksOutside: Set<number> | undefined;
// The rows the complete run of each read (the last, which read nothing missing) asked: to push along, and only for
// an exact degree (the walk's bracket could not decide); the runs before it may ask rows the complete one does not.
let inExact = 0;
let runPushed = new Set<number>();
let runExact = new Set<number>();
let finalPushed: Set<number> | undefined;
let finalExact: Set<number> | undefined;
const proto = SectionReader.prototype as unknown as {
  walkRow(u: number): unknown;
  walkDegrees(): { exact(u: number): number | undefined };
  conceptAccess(): { conceptsOf(k: number): unknown };
};
const degreesOf = proto.walkDegrees;
proto.walkDegrees = function (this: SectionReader) {
  const degrees = degreesOf.call(this);
  const exact = degrees.exact;
  degrees.exact = (u: number) => {
    inExact++;
    try {
      return exact(u);
    } finally {
      inExact--;
    }
  };
  return degrees;
};
// Each walk (PersonalizedPageRank.run) with the rows it asked; a walk during which the block store noted no miss is
// complete: the ranking kept is that walk's (library.ts search keeps the first ranking that read nothing missing).
let lastStore: { misses: number } | undefined;
const pprRun = PersonalizedPageRank.prototype.run;
PersonalizedPageRank.prototype.run = function (
  this: PersonalizedPageRank,
  ...args: Parameters<typeof pprRun>
) {
  runPushed = new Set();
  runExact = new Set();
  const misses = lastStore?.misses;
  const out = pprRun.apply(this, args);
  if (lastStore && lastStore.misses === misses) {
    for (const u of runPushed) finalPushed?.add(u);
    for (const u of runExact) finalExact?.add(u);
  }
  return out;
};
const walkRowOf = proto.walkRow;
proto.walkRow = function (this: SectionReader, u: number) {
  lastStore = this.store;
  const row = walkRowOf.call(this, u);
  if (row) walked?.add(u);
  (inExact > 0 ? runExact : runPushed).add(u);
  return row;
};

/** A bundle file read by ranges from disk (the 1 GiB bundle is not read into memory to be asked). */
class FileSource implements RangeSource {
  bytesRead = 0;
  constructor(
    readonly name: string,
    readonly size: number,
    private readonly handle: Awaited<ReturnType<typeof openFile>>,
  ) {}
  async read(offset: number, length: number): Promise<Uint8Array> {
    const out = new Uint8Array(length);
    const { bytesRead } = await this.handle.read(out, 0, length, offset);
    if (bytesRead !== length) throw new Error(`${this.name}: short read at ${offset}`);
    this.bytesRead += length;
    return out;
  }
}

interface QuestionTrace {
  walked: number[];
  /** The rows the complete runs pushed along, and those they asked only for an exact degree. */
  pushed: number[];
  exactOnly: number[];
  outside: number[];
  /** pages.bin blocks read outside the rows section. */
  otherBlocks: number[];
  /** Everything read (head, hashes, blocks). */
  read: number;
  hashes: number;
  rows: number;
}

const kb = (n: number): string => Math.round(n / 1000).toLocaleString('en-US');
const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const p50 = (v: number[]) => quantile(v, 0.5);
const load = () =>
  loadavg()
    .map((v) => v.toFixed(2))
    .join(' ');

async function trace(
  bundlePath: string,
  questions: string[],
  n: number,
  file: string,
): Promise<{ d: PagesDirectory; pagesAt: number; traces: QuestionTrace[] }> {
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as never;
  const handle = await openFile(bundlePath);
  const size = (await handle.stat()).size;
  const manifest = await readManifestByRanges(new FileSource(bundlePath, size, handle));
  const pages = manifest?.parts.find((p) => p.name === 'pages.bin');
  const hashPart = manifest?.parts.find((p) => p.name === 'pages.sha256');
  if (!pages?.offset || !hashPart?.offset) throw new Error(`${bundlePath}: no pages part`);
  const d = pages.meta as unknown as PagesDirectory;
  const pagesAt = pages.offset;
  const [rowsAt, rowsLength] = d.sections.rows;
  // What the split counts: the hashes and the rows (the rest is "other").
  const regions = [
    { name: 'hashes', start: hashPart.offset, end: hashPart.offset + hashPart.length },
    { name: 'rows', start: pagesAt + rowsAt, end: pagesAt + rowsAt + rowsLength },
  ];
  const block = d.blockSize;
  const picked = spread(questions, n);
  const analyzer = createTermAnalyzer();
  const traces: QuestionTrace[] = [];
  const t0 = performance.now();
  for (const q of picked) {
    const source = new TaggedSource(new FileSource(bundlePath, size, handle));
    source.gapBytes = 0;
    source.regions = regions;
    walked = new Set();
    chunksOutside = new Set();
    finalPushed = new Set();
    finalExact = new Set();
    lastStore = undefined;
    const opened = await openPagedBundle(source, analyzer);
    await opened!.library.search(q, 'ppr', BUDGET_TOKENS);
    const other = new Set<number>();
    for (const [o, l] of source.reads) {
      const s = Math.max(o, pagesAt) - pagesAt;
      const e = Math.min(o + l, pagesAt + pages.length) - pagesAt;
      for (let b = Math.floor(s / block); b * block < e; b++)
        if (!(b * block < rowsAt + rowsLength && (b + 1) * block > rowsAt)) other.add(b);
    }
    traces.push({
      walked: [...walked],
      pushed: [...finalPushed],
      exactOnly: [...finalExact].filter((u) => !finalPushed!.has(u)),
      outside: [...chunksOutside],
      otherBlocks: [...other],
      read: source.bytesRead,
      hashes: source.split.get('hashes') ?? 0,
      rows: source.split.get('rows') ?? 0,
    });
    walked = undefined;
    chunksOutside = undefined;
  }
  await handle.close();
  console.log(
    `${picked.length} cold questions asked in ${((performance.now() - t0) / 1000).toFixed(0)} s (load ${load()})`,
  );
  const out = { d, pagesAt, traces };
  writeFileSync(file, JSON.stringify(out));
  return out;
}

// ---- the bundle's rows and lists, decoded

interface Decoded {
  d: PagesDirectory;
  df: Uint32Array;
  documentChunks: Uint32Array;
  /** Chunk k's concepts: ids[starts[k]..starts[k + 1]). */
  starts: Uint32Array;
  ids: Uint32Array;
  /** Each chunk's row as stored (varint gaps), bytes. */
  rowBytes: Uint32Array;
  /** Concept c's chunks: chunks[listStarts[c]..listStarts[c + 1]). */
  listStarts: Float64Array;
  chunks: Uint32Array;
}

async function readSection(
  handle: Awaited<ReturnType<typeof openFile>>,
  at: number,
  [offset, length]: [number, number],
): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  await handle.read(out, 0, length, at + offset);
  return out;
}

async function decode(bundlePath: string, d: PagesDirectory, pagesAt: number): Promise<Decoded> {
  if (d.listsInRows)
    throw new Error(`${bundlePath}: its lists are kept in its rows (read whole): not simulated here`);
  const handle = await openFile(bundlePath);
  const openBytes = await readSection(handle, pagesAt, d.sections.open);
  const stored = decodeStructured<Record<string, unknown>>(
    await gunzip(openBytes, gzipSize(openBytes)),
    'open',
  );
  const open = expandOpen(stored as never, d.version, d.chunkCount, false, residualsOf(d));
  const n = d.chunkCount;
  const nc = d.conceptCount;
  const starts = new Uint32Array(n + 1);
  for (let k = 0; k < n; k++) starts[k + 1] = starts[k] + open.conceptCounts![k];
  const ids = new Uint32Array(starts[n]);
  const rows = await readSection(handle, pagesAt, d.sections.rows);
  readVarints(rows, 0, ids, starts[n]);
  const rowBytes = new Uint32Array(n);
  for (let k = 0; k < n; k++) {
    let b = 0;
    for (let j = starts[k]; j < starts[k + 1]; j++) b += varintBytes(ids[j]);
    rowBytes[k] = b;
    for (let j = starts[k] + 1; j < starts[k + 1]; j++) ids[j] += ids[j - 1];
  }
  const listStarts = new Float64Array(nc + 1);
  for (let c = 0; c < nc; c++) listStarts[c + 1] = listStarts[c] + open.df[c];
  // The lists from the rows (inverted: each chunk ascending), not from the lists section: the same lists.
  const chunks = new Uint32Array(listStarts[nc]);
  const fill = listStarts.slice(0, nc);
  for (let k = 0; k < n; k++) for (let j = starts[k]; j < starts[k + 1]; j++) chunks[fill[ids[j]]++] = k;
  await handle.close();
  return { d, df: open.df, documentChunks: open.documentChunks, starts, ids, rowBytes, listStarts, chunks };
}

const varintBytes = (v: number): number =>
  v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;

/**
 * Concept u's walk row (θco 1: every concept sharing a chunk), as the bytes of a stored row coded as a version 6
 * list is: the target gaps Rice-coded with k = ⌊log2(concepts / targets)⌋, a bit a target for a count over 1, the
 * counts less 2 as varints; plus a varint of the target count.
 */
function storedRowBytes(x: Decoded, u: number, counts: Uint32Array, found: number[]): number {
  coListed(x, u, counts, found);
  const m = found.length;
  const nc = x.d.conceptCount;
  let kRice = 0;
  while (m > 0 && m * 2 ** (kRice + 1) <= nc) kRice++;
  let bits = 0;
  let countBytes = 0;
  let previous = -1;
  for (const v of found) {
    const gap = v - previous - 1;
    bits += Math.floor(gap / 2 ** kRice) + 1 + kRice + 1;
    if (counts[v] > 1) countBytes += varintBytes(counts[v] - 2);
    previous = v;
    counts[v] = 0;
  }
  return Math.ceil(bits / 8) + countBytes + varintBytes(m);
}

/**
 * A chunk order that keeps the chunks of mid-frequency concepts together: each chunk's key is its concepts of df in
 * [lo, hi], most frequent first (ties by id), and chunks are sorted by key (then by index). position[k] is chunk k's
 * place.
 */
function bandOrder(x: Decoded, lo: number, hi: number): Uint32Array {
  const n = x.d.chunkCount;
  const keys: number[][] = [];
  for (let k = 0; k < n; k++) {
    const key = Array.from(x.ids.subarray(x.starts[k], x.starts[k + 1])).filter(
      (c) => x.df[c] >= lo && x.df[c] <= hi,
    );
    key.sort((a, b) => x.df[b] - x.df[a] || a - b);
    keys.push(key);
  }
  const order = Array.from({ length: n }, (_, k) => k);
  order.sort((a, b) => {
    const ka = keys[a];
    const kb2 = keys[b];
    for (let i = 0; i < Math.min(ka.length, kb2.length); i++) if (ka[i] !== kb2[i]) return ka[i] - kb2[i];
    return ka.length - kb2.length || a - b;
  });
  const position = new Uint32Array(n);
  for (let i = 0; i < n; i++) position[order[i]] = i;
  return position;
}

/** The blocks of size B that [s, e) covers, added to `into`. */
function addBlocks(into: Set<number>, s: number, e: number, B: number): void {
  for (let b = Math.floor(s / B); b * B < e; b++) into.add(b);
}

async function simulate(spec: string, n: number, traceDir: string, hubs: number[]): Promise<void> {
  const m = /^([^=]+)=(.+):([^:]+)$/.exec(spec);
  if (!m) throw new Error(`bad set "${spec}"\n${USAGE}`);
  const [, setName, bundlePath, qaPath] = m;
  const questions = readFileSync(qaPath, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => String((JSON.parse(l) as { question: unknown }).question));
  const file = join(traceDir, `${setName.replace(/[^\w.-]+/g, '_')}.trace.json`);
  const { d, pagesAt, traces } = await trace(bundlePath, questions, n, file);
  const t0 = performance.now();
  const x = await decode(bundlePath, d, pagesAt);
  const B0 = d.blockSize;
  const [rowsAt, rowsLength] = d.sections.rows;
  const nChunks = d.chunkCount;
  const bundleBytes = statSync(bundlePath).size;
  console.log(
    `\n## ${setName}: ${nChunks} chunks, ${d.conceptCount} concepts, rows section ${kb(rowsLength)} KB in groups of ` +
      `${d.groups.rows}, ${B0}-byte blocks, bundle ${kb(bundleBytes)} KB; decoded in ` +
      `${((performance.now() - t0) / 1000).toFixed(0)} s; load ${load()}`,
  );
  const dfs = traces.flatMap((t) => t.walked.map((u) => x.df[u]));
  const need = traces.map((t) => {
    const s = new Set<number>(t.outside);
    for (const u of t.walked) for (let i = x.listStarts[u]; i < x.listStarts[u + 1]; i++) s.add(x.chunks[i]);
    return s;
  });
  const needBytes = need.map((s) => {
    let b = 0;
    for (const k of s) b += x.rowBytes[k];
    return b;
  });
  console.log(
    `measured (the trace): a cold question read p50 ${kb(p50(traces.map((t) => t.read)))} KB, rows ${kb(
      p50(traces.map((t) => t.rows)),
    )} KB, hashes ${kb(p50(traces.map((t) => t.hashes)))} KB. Rows computed a question p50 ${p50(
      traces.map((t) => t.walked.length),
    )}, their df p50 ${quantile(dfs, 0.5)}, p90 ${quantile(dfs, 0.9)}, p99 ${quantile(dfs, 0.99)}, max ${Math.max(
      ...dfs,
    )}; chunk rows needed p50 ${p50(need.map((s) => s.size))} (${kb(p50(needBytes))} KB exact); of the rows computed, ` +
      `the complete runs pushed along p50 ${p50(traces.map((t) => t.pushed.length))} and asked only for an exact degree ` +
      `${p50(traces.map((t) => t.exactOnly.length))} (df of those: max ${Math.max(0, ...traces.flatMap((t) => t.exactOnly.map((u) => x.df[u])))})`,
  );
  // Where the needed chunks come from: the chunks of walked concepts of df under T only.
  const shares: string[] = [];
  for (const T of [4, 16, 64, 256, 1024]) {
    const sizes = traces.map((t) => {
      const s = new Set<number>(t.outside);
      for (const u of t.walked)
        if (x.df[u] < T) for (let i = x.listStarts[u]; i < x.listStarts[u + 1]; i++) s.add(x.chunks[i]);
      return s.size;
    });
    shares.push(`df < ${T}: ${p50(sizes)}`);
  }
  console.log(
    `chunk rows needed p50 when only the walked concepts of (and the ranking's own): ${shares.join(', ')}`,
  );

  // ---- the layouts
  // Each question's rows cost: the blocks of size B its needed chunks' groups cover (in `order`), and the hash pages
  // of those blocks (16-byte hashes, a page covering 32 KiB of the part) when the rows have blocks of their own
  // size; hub rows stored apart add their blocks. The rest of the question (other sections' blocks and their hash
  // pages, the head, `open`) is today's.
  const otherHashPages = traces.map((t) => {
    const pages = new Set<number>();
    const per = hashPageBytes(B0) / HASH_BYTES;
    for (const b of t.otherBlocks) pages.add(Math.floor(b / per));
    return pages;
  });
  interface Layout {
    name: string;
    G: number;
    B: number;
    /** Place of chunk k's row, and the chunk at each place (undefined: chunk order). */
    position?: Uint32Array;
    order?: Uint32Array;
    /** The chunk → place map's bytes gzip'd (were it read at opening). */
    mapBytes?: number;
    /** Concepts of df ≥ hubT have their rows stored. */
    hubT?: number;
    /**
     * Whose rows are read: every row the question's runs computed (today), only those its complete runs asked
     * ('final'), or only those they pushed along, the exact degrees of the others read from the `degrees` section
     * ('pushed').
     */
    rows?: 'final' | 'pushed';
  }
  const counts = new Uint32Array(d.conceptCount);
  const found: number[] = [];
  const hubBytes = new Map<number, number>();
  const tMin = Math.min(...hubs);
  const t1 = performance.now();
  for (let c = 0; c < d.conceptCount; c++)
    if (x.df[c] >= tMin) hubBytes.set(c, storedRowBytes(x, c, counts, found));
  console.log(
    `stored rows of the ${hubBytes.size} concepts of df ≥ ${tMin} computed in ${((performance.now() - t1) / 1000).toFixed(0)} s`,
  );
  // Chunks of the same source paragraph in another copy of the library: the scale corpus's copies hold the same
  // documents in the same order, so chunk k of copy c sits beside chunk k of the other copies in this order.
  const ordered = async (name: string, position: Uint32Array, G: number, B: number): Promise<Layout> => {
    const order = new Uint32Array(nChunks);
    for (let k = 0; k < nChunks; k++) order[position[k]] = k;
    const mapBytes = (await gzip(encodeStructured({ place: position }))).length;
    return {
      name: `${name}, groups of ${G}, ${B}-byte blocks (map ${kb(mapBytes)} KB in open)`,
      G,
      B,
      position,
      order,
      mapBytes,
    };
  };
  const orders: Layout[] = [];
  for (const [name, position] of [
    ['chunks by their concepts of df 64–1024, most frequent first', bandOrder(x, 64, 1024)],
    ['chunks by their concepts of df 16–4096, most frequent first', bandOrder(x, 16, 4096)],
    ['chunks sharing rare concepts (df ≤ 64) side by side', rareConceptOrder(x, 64)],
  ] as const) {
    orders.push(await ordered(name, position, d.groups.rows, B0));
    orders.push(await ordered(name, position, 1, 256));
  }
  const layoutsToTry: Layout[] = [
    { name: `today: groups of ${d.groups.rows}, ${B0}-byte blocks`, G: d.groups.rows, B: B0 },
    { name: `groups of 1, ${B0}-byte blocks`, G: 1, B: B0 },
    { name: 'rows alone in 256-byte blocks, groups of 2', G: 2, B: 256 },
    { name: 'rows alone in 256-byte blocks, groups of 1', G: 1, B: 256 },
    { name: 'rows alone in 128-byte blocks, groups of 1', G: 1, B: 128 },
    { name: 'rows alone in 64-byte blocks, groups of 1', G: 1, B: 64 },
    { name: 'only the complete runs’ rows', G: d.groups.rows, B: B0, rows: 'final' },
    {
      name: 'only the rows pushed along (exact degrees from `degrees`)',
      G: d.groups.rows,
      B: B0,
      rows: 'pushed',
    },
    { name: 'rows pushed along, rows alone in 256-byte blocks, groups of 1', G: 1, B: 256, rows: 'pushed' },
    ...orders,
    ...hubs.map((T) => ({ name: `hub rows stored, df ≥ ${T}`, G: d.groups.rows, B: B0, hubT: T })),
    ...hubs.map((T) => ({
      name: `hub rows stored, df ≥ ${T}, rows in 256-byte blocks, groups of 1`,
      G: 1,
      B: 256,
      hubT: T,
    })),
  ];
  console.log(
    '\n| layout | bundle Δ KB (%) | rows (and hub rows) blocks read KB p50 / max | their hash pages KB p50 | rows + hashes KB p50 | cold question KB p50 / max (est.) | rows + hashes with two-level hashes KB p50 |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  const todayRowsPlusHashes: number[] = [];
  for (const L of layoutsToTry) {
    const groups = Math.ceil(nChunks / L.G);
    const gStart = new Float64Array(groups + 1);
    for (let g = 0; g < groups; g++) {
      let b = 0;
      for (let i = g * L.G; i < Math.min(nChunks, (g + 1) * L.G); i++)
        b += x.rowBytes[L.order ? L.order[i] : i];
      gStart[g + 1] = gStart[g] + b;
    }
    // Stored hub rows, in concept order, after the rows (their own blocks of B0 bytes).
    const hubAt = new Map<number, [number, number]>();
    let hubTotal = 0;
    if (L.hubT !== undefined)
      for (const [c, bytes] of hubBytes)
        if (x.df[c] >= L.hubT) {
          hubAt.set(c, [hubTotal, bytes]);
          hubTotal += bytes;
        }
    const rowsRead: number[] = [];
    const hashRead: number[] = [];
    const twoRead: number[] = [];
    const sum: number[] = [];
    const total: number[] = [];
    for (const [qi, t] of traces.entries()) {
      const s = new Set<number>(t.outside);
      const hubBlocks = new Set<number>();
      const rowsOf =
        L.rows === 'final' ? [...t.pushed, ...t.exactOnly] : L.rows === 'pushed' ? t.pushed : t.walked;
      // The `degrees` section's blocks of the exact degrees read there (numbered in the part, as the other blocks).
      const degreeBlocks = new Set<number>();
      if (L.rows === 'pushed')
        for (const u of t.exactOnly)
          if (!t.pushed.includes(u))
            addBlocks(degreeBlocks, d.sections.degrees[0] + 8 * u, d.sections.degrees[0] + 8 * u + 8, B0);
      for (const u of rowsOf) {
        const at = hubAt.get(u);
        if (at) {
          addBlocks(hubBlocks, at[0], at[0] + at[1], B0);
          continue;
        }
        for (let i = x.listStarts[u]; i < x.listStarts[u + 1]; i++) s.add(x.chunks[i]);
      }
      const gs = new Set<number>();
      for (const k of s) gs.add(Math.floor((L.position ? L.position[k] : k) / L.G));
      const rb = new Set<number>();
      // The rows section's blocks: at B0 they are numbered in the part as today; at another size in its own.
      for (const g of gs)
        addBlocks(rb, (L.B === B0 ? rowsAt : 0) + gStart[g], (L.B === B0 ? rowsAt : 0) + gStart[g + 1], L.B);
      const rowsBytes = rb.size * L.B + hubBlocks.size * B0 + degreeBlocks.size * B0;
      // Two-level hashes (wip/hash16's proposal, round fifteen's simulation): leaves of 8 hashes (128 B), mid pages
      // of 32 leaf hashes (512 B), each block space (the part's; the rows' own; the hub rows') apart.
      const twoLevel = (blocks: Iterable<number>): number => {
        const leaves = new Set<number>();
        for (const b of blocks) leaves.add(Math.floor(b / 8));
        const mids = new Set<number>();
        for (const l of leaves) mids.add(Math.floor(l / 32));
        return leaves.size * 128 + mids.size * 512;
      };
      const partBlocks = new Set<number>([...t.otherBlocks, ...degreeBlocks, ...(L.B === B0 ? rb : [])]);
      const two =
        twoLevel(partBlocks) +
        (L.B === B0 ? 0 : twoLevel(rb)) +
        twoLevel(hubBlocks) -
        twoLevel(t.otherBlocks);
      twoRead.push(rowsBytes + two);
      // Hash pages: today's pages of the other blocks, plus the rows' (and hub rows') pages.
      const pages = new Set(otherHashPages[qi]);
      for (const b of degreeBlocks) pages.add(Math.floor(b / (hashPageBytes(B0) / HASH_BYTES)));
      let ownPages = 0;
      if (L.B === B0) {
        const per = hashPageBytes(B0) / HASH_BYTES;
        for (const b of rb) pages.add(Math.floor(b / per));
      } else {
        const rowPages = new Set<number>();
        const per = hashPageBytes(L.B) / HASH_BYTES;
        for (const b of rb) rowPages.add(Math.floor(b / per));
        ownPages = rowPages.size * hashPageBytes(L.B);
      }
      const hubPages = new Set<number>();
      for (const b of hubBlocks) hubPages.add(Math.floor(b / (hashPageBytes(B0) / HASH_BYTES)));
      const hashes = pages.size * hashPageBytes(B0) + ownPages + hubPages.size * hashPageBytes(B0);
      const rowsHashesToday = otherHashPages[qi].size * hashPageBytes(B0);
      rowsRead.push(rowsBytes);
      hashRead.push(hashes - rowsHashesToday);
      sum.push(rowsBytes + hashes - rowsHashesToday);
      // Today's measured read, less today's rows and hashes, plus these.
      total.push(t.read - t.rows - t.hashes + rowsBytes + hashes + (L.mapBytes ?? 0));
    }
    if (todayRowsPlusHashes.length === 0) todayRowsPlusHashes.push(...sum);
    // The bundle's growth: the rows' hashes at their own block size, the hub rows and their hashes, the group
    // sizes in `open` (a varint a group: about one byte more for each group more).
    const rowHashes =
      (L.B === B0 ? 0 : Math.ceil(rowsLength / L.B) - Math.ceil(rowsLength / B0)) * HASH_BYTES;
    const hubGrowth = hubTotal + Math.ceil(hubTotal / B0) * HASH_BYTES;
    const openGrowth = groups - Math.ceil(nChunks / d.groups.rows) + (L.mapBytes ?? 0);
    const grow = rowHashes + hubGrowth + openGrowth;
    console.log(
      `| ${L.name} | ${kb(grow)} (${((100 * grow) / bundleBytes).toFixed(1)} %) | ${kb(p50(rowsRead))} / ${kb(Math.max(...rowsRead))} | ` +
        `${kb(p50(hashRead))} | ${kb(p50(sum))} | ${kb(p50(total))} / ${kb(Math.max(...total))} | ${kb(p50(twoRead))} |`,
    );
  }
  const hubSizes: string[] = [];
  for (const T of hubs) {
    let c = 0;
    let b = 0;
    for (const [u, bytes] of hubBytes)
      if (x.df[u] >= T) {
        c++;
        b += bytes;
      }
    hubSizes.push(`df ≥ ${T}: ${c} concepts, ${kb(b)} KB`);
  }
  console.log(`hub rows stored: ${hubSizes.join('; ')}`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const sets = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
  if (sets.length === 0) throw new Error(USAGE);
  const n = Number(arg('n', '25'));
  const traceDir = arg('trace-dir', '/tmp/walk16');
  mkdirSync(traceDir, { recursive: true });
  const hubs = arg('hubs', '256,512,1024,2048,4096').split(',').map(Number);
  if (!hubs.every((t) => Number.isInteger(t) && t >= 1)) throw new Error(`bad --hubs\n${USAGE}`);
  for (const spec of sets) await simulate(spec, n, traceDir, hubs);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
