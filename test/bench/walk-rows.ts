// Which rows of the walk graph a cold question computes, and what storing them would cost and save (issue 47 at
// 100 MiB: the walk computes concept u's row from the chunk rows of every chunk in u's list, so a hub pulls in
// thousands of chunk rows scattered over the `rows` section). For each bundle, every question is asked cold (a fresh
// source and openPagedBundle, ppr, budget 12,000, as question-bytes.ts), recording:
// - the concepts whose row the walk computed (SectionReader.walkRow, wrapped here), their df, and the row groups
//   each pulled in; the row groups asked outside the walk (the chunks' concepts the ranking reads: conceptsOf);
// - for thresholds T: the bytes of stored concept rows (a varint target count, the targets as delta varints, their
//   co-occurrence counts as varints: the Dice weight follows from a count and the two df) of every concept with
//   df ≥ T, i.e. the bundle's growth, and per question the rows section's asked bytes and 2 KiB blocks read when
//   the walk reads a concept's stored row instead of computing it (the chunk rows of concepts under T and of
//   the ranking still read), with the stored rows laid out in concept order in a section of their own;
// - what `open` holds, field by field (each field's gzip'd structured encoding alone), and what a two-level hash
//   list would read (a top list of the hashes of hash pages, read at opening, and the hash pages of the blocks a
//   question reads) against the whole hash list read at opening today.
// The chunk rows and lists are decoded here from the pages part's bytes (as sectionReader.ts decodes them, without
// its checks: the bundles are our own), so every concept's row can be computed once.
// --layouts (round fourteen) prints instead, from the chunks whose rows each cold question needs (the walk's and the
// ranking's) and every range it asks of the block store: what the rows section and its hash pages would cost under
// other row group sizes, block sizes (the rows' alone, or the whole part's), a chunk order keeping chunks that share
// rare concepts together, and rare concepts' walk rows beside their lists; and what later questions on one open
// library read.
// Usage: node --import tsx test/bench/walk-rows.ts <name>=<x.bundle>:<questions.jsonl> [...] [--n 25]
//          [--thresholds 8,16,32,64,128,256,512,1024] [--layouts]
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import process from 'node:process';
import { decodeStructured, encodeStructured, gunzip, gzip } from '../../src/core/bundle/index.ts';
import { BlockStore, gzipSize } from '../../src/core/paged/blockStore.ts';
import { readVarints } from '../../src/core/paged/bytes.ts';
import type { PagesDirectory } from '../../src/core/paged/format.ts';
import { openPagedBundle, readManifestByRanges } from '../../src/core/paged/index.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { SectionReader } from '../../src/core/paged/sectionReader.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { arg } from './lib/args.ts';
import { coListed, rareConceptOrder } from './lib/rowsOrder.ts';
import { TaggedSource } from './lib/taggedSource.ts';
import { spread, questionsOf } from './lib/questions.ts';

const USAGE =
  'usage: node --import tsx test/bench/walk-rows.ts <name>=<x.bundle>:<questions.jsonl> [...] [--n 25] [--thresholds 8,16,…] [--layouts]';
const BUDGET_TOKENS = 12_000;
/** Hash page sizes of a two-level hash list simulated. */
const HASH_PAGES = [512, 1024, 2048, 4096];

// The concepts whose row the walk asked for, and the row groups asked inside and outside walkRow.
let walked: Set<number> | undefined;
let groupsOutside: Set<number> | undefined;
/** The chunks whose rows the ranking asked itself (conceptsOf), for --layouts. */
let chunksOutside: Set<number> | undefined;
let inRanking = 0;
const proto = SectionReader.prototype as unknown as {
  walkRow(u: number): unknown;
  rowGroup(g: number): unknown;
  conceptAccess(): { conceptsOf(k: number): unknown };
};
// The ranking's own reads of chunk rows go through conceptAccess().conceptsOf; the walk's through walkRow and the
// follow-up it leaves for the rows of a list that has not arrived (which calls conceptsOf directly).
const accessOf = proto.conceptAccess;
proto.conceptAccess = function (this: SectionReader) {
  const access = accessOf.call(this);
  const conceptsOf = access.conceptsOf;
  access.conceptsOf = (k: number) => {
    chunksOutside?.add(k);
    inRanking++;
    try {
      return conceptsOf(k);
    } finally {
      inRanking--;
    }
  };
  return access;
};
// Every range the library asks its block store for (pages.bin offsets), for --layouts' block sizes.
let askedRanges: Array<[number, number]> | undefined;
const storeProto = BlockStore.prototype as unknown as {
  bytes(offset: number, length: number): unknown;
  group(key: string, offset: number, length: number, decode?: unknown): unknown;
};
const storeBytes = storeProto.bytes;
const storeGroup = storeProto.group;
storeProto.bytes = function (this: unknown, offset: number, length: number) {
  askedRanges?.push([offset, offset + length]);
  return storeBytes.call(this, offset, length);
};
storeProto.group = function (this: unknown, key: string, offset: number, length: number, decode?: unknown) {
  askedRanges?.push([offset, offset + length]);
  return storeGroup.call(this, key, offset, length, decode);
};
const walkRowOf = proto.walkRow;
const rowGroupOf = proto.rowGroup;
proto.walkRow = function (this: SectionReader, u: number) {
  const row = walkRowOf.call(this, u);
  if (row) walked?.add(u);
  return row;
};
proto.rowGroup = function (this: SectionReader, g: number) {
  if (inRanking > 0) groupsOutside?.add(g);
  return rowGroupOf.call(this, g);
};

const kb = (n: number): string => Math.round(n / 1000).toLocaleString('en-US');
const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const varintBytes = (v: number): number =>
  v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;

interface Decoded {
  d: PagesDirectory;
  pagesAt: number;
  open: Record<string, unknown>;
  conceptCounts: Uint32Array;
  df: Uint32Array;
  rowGroups: Float64Array;
  /** Chunk k's concepts: ids[starts[k]..starts[k + 1]). */
  starts: Uint32Array;
  ids: Uint32Array;
  /** Concept c's chunks: chunks[listStarts[c]..listStarts[c + 1]). */
  listStarts: Uint32Array;
  chunks: Uint32Array;
  /** Each link's count (rows that keep the lists only; 1 elsewhere). */
  tf: Uint32Array;
  hashesLength: number;
}

async function decode(data: Uint8Array, name: string): Promise<Decoded> {
  const manifest = await readManifestByRanges(new MemoryRangeSource(data, name));
  const pages = manifest?.parts.find((p) => p.name === 'pages.bin');
  const hashes = manifest?.parts.find((p) => p.name === 'pages.sha256');
  if (!pages?.offset || !hashes) throw new Error(`${name}: no pages part`);
  const d = pages.meta as unknown as PagesDirectory;
  const at = pages.offset;
  const section = (s: keyof PagesDirectory['sections']) =>
    data.subarray(at + d.sections[s][0], at + d.sections[s][0] + d.sections[s][1]);
  const openBytes = section('open');
  const { expandOpen, residualsOf } = await import('../../src/core/paged/compactOpen.ts');
  const stored = decodeStructured<Record<string, unknown>>(
    await gunzip(openBytes, gzipSize(openBytes)),
    'open',
  );
  const inRows = d.listsInRows === true;
  const open = expandOpen(stored as never, d.version, d.chunkCount, inRows, residualsOf(d));
  const n = d.chunkCount;
  const nc = d.conceptCount;
  const starts = new Uint32Array(n + 1);
  for (let k = 0; k < n; k++) starts[k + 1] = starts[k] + open.conceptCounts![k];
  const ids = new Uint32Array(starts[n]);
  /** Rows that keep the lists (listsInRows, round fifteen): each link's count of the concept in the chunk. */
  const tf = new Uint32Array(starts[n]);
  const listStarts = new Uint32Array(nc + 1);
  for (let c = 0; c < nc; c++) listStarts[c + 1] = listStarts[c] + open.df[c];
  const chunks = new Uint32Array(listStarts[nc]);
  if (inRows) {
    // One gzip'd group of every chunk: each id's delta doubled, plus 1 when a count (less 2) follows.
    const rows = await gunzip(section('rows'), gzipSize(section('rows')));
    let at = 0;
    const next = () => {
      let v = 0;
      for (let shift = 1; ; shift *= 128) {
        const b = rows[at++];
        v += (b & 127) * shift;
        if (b < 128) return v;
      }
    };
    const fill = listStarts.slice(0, nc);
    for (let k = 0; k < n; k++) {
      let c = 0;
      for (let j = starts[k]; j < starts[k + 1]; j++) {
        const coded = next();
        ids[j] = c += Math.floor(coded / 2);
        tf[j] = coded % 2 === 1 ? next() + 2 : 1;
        chunks[fill[c]++] = k;
      }
    }
  } else {
    readVarints(section('rows'), 0, ids, starts[n]);
    for (let k = 0; k < n; k++) for (let j = starts[k] + 1; j < starts[k + 1]; j++) ids[j] += ids[j - 1];
    const lists = section('lists');
    for (let c = 0; c < nc; c++) {
      const out = chunks.subarray(listStarts[c], listStarts[c + 1]);
      readVarints(lists, open.listOffsets[c], out, out.length);
      for (let i = 1; i < out.length; i++) out[i] += out[i - 1];
    }
  }
  return {
    d,
    pagesAt: at,
    open: stored,
    conceptCounts: open.conceptCounts!,
    df: open.df,
    rowGroups: open.rowGroups,
    starts,
    ids,
    listStarts,
    chunks,
    tf,
    hashesLength: hashes.length,
  };
}

/** Bytes of concept u's stored row: varint target count, delta varint targets, varint co-occurrence counts. */
function storedRowBytes(x: Decoded, u: number, counts: Uint32Array): { bytes: number; targets: number } {
  const found: number[] = [];
  coListed(x, u, counts, found);
  let bytes = 0;
  let kept = 0;
  let previous = 0;
  for (const v of found) {
    if (counts[v] >= x.d.thetaCo) {
      bytes += varintBytes(v - previous) + varintBytes(counts[v]);
      previous = v;
      kept++;
    }
    counts[v] = 0;
  }
  return { bytes: bytes + varintBytes(kept), targets: kept };
}

/** A set given as `<name>=<bundle>:<questions.jsonl>`: its bundle decoded and its questions. */
async function readSet(spec: string) {
  const m = /^([^=]+)=(.+):([^:]+)$/.exec(spec);
  if (!m) throw new Error(`bad set "${spec}"\n${USAGE}`);
  const [, setName, bundlePath, qaPath] = m;
  const data = new Uint8Array(await readFile(bundlePath));
  const questions = await questionsOf(qaPath);
  return { setName, bundlePath, data, questions, x: await decode(data, bundlePath) };
}

async function measure(spec: string, n: number, thresholds: number[]): Promise<void> {
  const { setName, bundlePath, data, questions, x } = await readSet(spec);
  const { d } = x;
  const block = d.blockSize;
  const pagesLength = Object.values(d.sections).reduce((s, [, l]) => s + l, 0);
  console.log(
    `\n## ${setName}: ${d.chunkCount} chunks, ${d.conceptCount} concepts, θco ${d.thetaCo}, rows section ` +
      `${kb(d.sections.rows[1])} KB, pages ${kb(pagesLength)} KB, ${block}-byte blocks; load ${loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}`,
  );

  // ---- every concept's stored row at the lowest threshold (sizes by concept)
  const tMin = Math.min(...thresholds);
  const counts = new Uint32Array(d.conceptCount);
  const rowBytes = new Map<number, number>();
  let t0 = performance.now();
  for (let c = 0; c < d.conceptCount; c++)
    if (x.df[c] >= tMin) rowBytes.set(c, storedRowBytes(x, c, counts).bytes);
  console.log(
    `stored rows computed for ${rowBytes.size} concepts of df ≥ ${tMin} in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  // ---- the questions, cold
  const picked = spread(questions, n);
  const analyzer = createTermAnalyzer();
  const perQuestion: Array<{ walked: number[]; outside: Set<number>; blocks: Set<number> }> = [];
  t0 = performance.now();
  for (const q of picked) {
    const source = new TaggedSource(new MemoryRangeSource(data, bundlePath));
    source.gapBytes = 0;
    walked = new Set();
    groupsOutside = new Set();
    const opened = await openPagedBundle(source, analyzer);
    await opened!.library.search(q, 'ppr', BUDGET_TOKENS);
    const blocks = new Set<number>();
    for (const [o, l] of source.reads) {
      const s = Math.max(o, x.pagesAt) - x.pagesAt;
      const e = Math.min(o + l, x.pagesAt + pagesLength) - x.pagesAt;
      for (let b = Math.floor(s / block); b * block < e; b++) blocks.add(b);
    }
    perQuestion.push({ walked: [...walked], outside: groupsOutside, blocks });
  }
  walked = undefined;
  groupsOutside = undefined;
  console.log(`${picked.length} cold questions in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  // ---- what the walk computes
  const size = d.groups.rows;
  const dfs = perQuestion.flatMap((p) => p.walked.map((u) => x.df[u]));
  console.log(
    `rows computed a question: p50 ${quantile(
      perQuestion.map((p) => p.walked.length),
      0.5,
    )}; their df p50 ` +
      `${quantile(dfs, 0.5)}, p90 ${quantile(dfs, 0.9)}, p99 ${quantile(dfs, 0.99)}, max ${Math.max(...dfs)}`,
  );
  const groupBytes = (g: number) => x.rowGroups[g + 1] - x.rowGroups[g];
  const rowsAt = d.sections.rows[0];
  const blocksOfGroups = (groups: Iterable<number>, into: Set<number>) => {
    for (const g of groups) {
      const s = rowsAt + x.rowGroups[g];
      const e = rowsAt + x.rowGroups[g + 1];
      for (let b = Math.floor(s / block); b * block < e; b++) into.add(b);
    }
  };
  const rowBlock = (b: number) => b * block < rowsAt + d.sections.rows[1] && (b + 1) * block > rowsAt;
  console.log(
    '| df ≥ T | stored concepts | stored rows KB (bundle +) | of the rows section | rows asked KB p50 | stored rows read KB p50 | ' +
      'rows + stored blocks read KB p50 / max | question read KB p50 (est.) | hash pages read KB p50 (pages of ' +
      HASH_PAGES.join(', ') +
      ' B) |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const hashBytes = d.hashBytes ?? 32;
  for (const T of [Infinity, ...thresholds]) {
    // The stored rows in concept order, in a section after the others (offsets for blocks).
    const storedAt = new Map<number, [number, number]>();
    let storedTotal = 0;
    let stored = 0;
    for (const [c, bytes] of [...rowBytes].sort((a, b) => a[0] - b[0])) {
      if (x.df[c] < T) continue;
      storedAt.set(c, [pagesLength + storedTotal, bytes]);
      storedTotal += bytes;
      stored++;
    }
    const asked: number[] = [];
    const storedRead: number[] = [];
    const rowsRead: number[] = [];
    const totalRead: number[] = [];
    const hashRead: number[][] = [];
    for (const p of perQuestion) {
      const groups = new Set(p.outside);
      let storedBytes = 0;
      const storedBlocks = new Set<number>();
      for (const u of p.walked) {
        const at = storedAt.get(u);
        if (at) {
          storedBytes += at[1];
          for (let b = Math.floor(at[0] / block); b * block < at[0] + at[1]; b++) storedBlocks.add(b);
          continue;
        }
        for (let i = x.listStarts[u]; i < x.listStarts[u + 1]; i++)
          groups.add(Math.floor(x.chunks[i] / size));
      }
      let a = 0;
      for (const g of groups) a += groupBytes(g);
      asked.push(a);
      storedRead.push(storedBytes);
      const rb = new Set<number>();
      blocksOfGroups(groups, rb);
      rowsRead.push((rb.size + storedBlocks.size) * block);
      // The question's other blocks as read today, with the rows' replaced by these.
      const all = new Set<number>([...rb, ...storedBlocks]);
      for (const b of p.blocks) if (!rowBlock(b)) all.add(b);
      totalRead.push(all.size * block);
      for (const [i, size] of HASH_PAGES.entries()) {
        const pages = new Set<number>();
        for (const b of all) pages.add(Math.floor(b / (size / hashBytes)));
        (hashRead[i] ??= []).push(pages.size * size);
      }
    }
    const openAndHead = d.sections.open[1];
    console.log(
      `| ${T === Infinity ? '– (today)' : T} | ${stored} | ${kb(storedTotal)} | ${((100 * storedTotal) / d.sections.rows[1]).toFixed(0)} % | ` +
        `${kb(quantile(asked, 0.5))} | ${kb(quantile(storedRead, 0.5))} | ${kb(quantile(rowsRead, 0.5))} / ` +
        `${kb(Math.max(...rowsRead))} | ${kb(quantile(totalRead, 0.5) + x.hashesLength)} (open ${kb(openAndHead)} + hashes ` +
        `${kb(x.hashesLength)} included) | ${hashRead.map((h) => kb(quantile(h, 0.5))).join(' / ')} |`,
    );
  }
  console.log(
    `two-level hashes: a top list of ${HASH_PAGES.map((size) => kb(Math.ceil(x.hashesLength / size) * 16)).join(' / ')} KB ` +
      `(16 B a hash page of ${HASH_PAGES.join(', ')} B) read at opening instead of the ${kb(x.hashesLength)} KB hash ` +
      `list; the hash pages a question then reads are the last column`,
  );

  // ---- open, field by field
  console.log(`open: ${kb(d.sections.open[1])} KB gzip'd; each field alone (gzip'd structured encoding):`);
  const fields: Array<[string, number]> = [];
  for (const [key, value] of Object.entries(x.open))
    fields.push([key, (await gzip(encodeStructured({ [key]: value }))).length]);
  fields.sort((a, b) => b[1] - a[1]);
  console.log(fields.map(([k, v]) => `${k} ${kb(v)} KB`).join(', '));
}

/** Per chunk, the bytes of its row as stored (varint gaps of its ascending concept ids). */
function chunkRowBytes(x: Decoded): Uint32Array {
  const n = x.d.chunkCount;
  const out = new Uint32Array(n);
  for (let k = 0; k < n; k++) {
    let b = 0;
    for (let j = x.starts[k]; j < x.starts[k + 1]; j++)
      b += varintBytes(j > x.starts[k] ? x.ids[j] - x.ids[j - 1] : x.ids[j]);
    out[k] = b;
  }
  return out;
}

/**
 * --layouts (round fourteen): what a cold question would read of the rows section (and its hash pages) under other
 * layouts of it — rows groups of G chunks, the rows section hashed in blocks of its own size B, chunk rows in another
 * order, the rare concepts' walk rows beside their lists — and what a second and later question reads today.
 */
async function layouts(spec: string, n: number): Promise<void> {
  const { setName, bundlePath, data, questions, x } = await readSet(spec);
  const { d } = x;
  const block = d.blockSize;
  const hashBytes = d.hashBytes ?? 32;
  const perPage = 1024 / hashBytes;
  const pagesLength = Object.values(d.sections).reduce((s, [, l]) => s + l, 0);
  const [rowsAt, rowsLength] = d.sections.rows;
  const nChunks = d.chunkCount;
  const rowBytes = chunkRowBytes(x);
  let links = 0;
  for (let k = 0; k < nChunks; k++) links += x.starts[k + 1] - x.starts[k];
  // The information in a chunk's concept set, log2 C(nc, m): what no coding of a row can go under.
  let bound = 0;
  const lg = (v: number) => Math.log2(v);
  for (let k = 0; k < nChunks; k++) {
    const mk = x.starts[k + 1] - x.starts[k];
    for (let i = 0; i < mk; i++) bound += lg(d.conceptCount - i) - lg(i + 1);
  }
  console.log(
    `\n## ${setName}: ${nChunks} chunks, ${d.conceptCount} concepts, ${links} chunk–concept links ` +
      `(${(links / nChunks).toFixed(1)} a chunk), rows section ${kb(rowsLength)} KB (${(rowsLength / links).toFixed(2)} B a link; ` +
      `the sets' information ${kb(bound / 8)} KB = ${(bound / 8 / links).toFixed(2)} B a link), groups of ` +
      `${d.groups.rows}, ${block}-byte blocks; load ${loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}`,
  );

  const picked = spread(questions, n);
  const analyzer = createTermAnalyzer();
  const perQuestion: Array<{
    need: Set<number>;
    walkedCount: number;
    blocks: Set<number>;
    asked: Array<[number, number]>;
  }> = [];
  const blocksOf = (reads: Array<[number, number]>): Set<number> => {
    const blocks = new Set<number>();
    for (const [o, l] of reads) {
      const s = Math.max(o, x.pagesAt) - x.pagesAt;
      const e = Math.min(o + l, x.pagesAt + pagesLength) - x.pagesAt;
      for (let b = Math.floor(s / block); b * block < e; b++) blocks.add(b);
    }
    return blocks;
  };
  for (const q of picked) {
    const source = new TaggedSource(new MemoryRangeSource(data, bundlePath));
    source.gapBytes = 0;
    walked = new Set();
    chunksOutside = new Set();
    askedRanges = [];
    const opened = await openPagedBundle(source, analyzer);
    await opened!.library.search(q, 'ppr', BUDGET_TOKENS);
    const asked = askedRanges;
    askedRanges = undefined;
    const need = new Set<number>(chunksOutside);
    for (const u of walked) {
      for (let i = x.listStarts[u]; i < x.listStarts[u + 1]; i++) need.add(x.chunks[i]);
    }
    perQuestion.push({ need, walkedCount: walked.size, blocks: blocksOf(source.reads), asked });
  }
  walked = undefined;
  chunksOutside = undefined;

  const rowBlock = (b: number) => b * block < rowsAt + rowsLength && (b + 1) * block > rowsAt;
  const p50 = (v: number[]) => quantile(v, 0.5);
  const needBytes = perQuestion.map((p) => {
    let b = 0;
    for (const k of p.need) b += rowBytes[k];
    return b;
  });
  const todayTotal = perQuestion.map((p) => p.blocks.size * block);
  const todayRows = perQuestion.map((p) => [...p.blocks].filter(rowBlock).length * block);
  const pagesOf = (blocks: Iterable<number>) => {
    const pages = new Set<number>();
    for (const b of blocks) pages.add(Math.floor(b / perPage));
    return pages.size * 1024;
  };
  const todayHashes = perQuestion.map((p) => pagesOf(p.blocks));
  console.log(
    `chunk rows a question needs (walk + ranking): p50 ${p50(perQuestion.map((p) => p.need.size))}, ` +
      `${kb(p50(needBytes))} KB exact; concepts walked p50 ${p50(perQuestion.map((p) => p.walkedCount))}. ` +
      `Today: pages blocks read p50 ${kb(p50(todayTotal))} KB, of them rows ${kb(p50(todayRows))} KB, ` +
      `hash pages ${kb(p50(todayHashes))} KB`,
  );

  // rowGroups as `open` stores it (a Float64Array in the gzip'd structured value), alone, for a group size.
  const rowGroupsGz = async (starts: Float64Array) =>
    (await gzip(encodeStructured({ rowGroups: starts }))).length;
  const groupStarts = (order: Uint32Array | undefined, G: number) => {
    // order[i] = the chunk at place i.
    const groups = Math.ceil(nChunks / G);
    const starts = new Float64Array(groups + 1);
    for (let g = 0; g < groups; g++) {
      let b = 0;
      for (let i = g * G; i < Math.min(nChunks, (g + 1) * G); i++) b += rowBytes[order ? order[i] : i];
      starts[g + 1] = starts[g] + b;
    }
    return starts;
  };
  const openToday = await rowGroupsGz(x.rowGroups);
  console.log(
    '\n| rows layout | bundle Δ KB (hashes + open + map) | open Δ KB (read at opening) | rows asked KB p50 | rows blocks read KB p50 / max | ' +
      'hash pages KB p50 | cold question KB p50 / max (est.) |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  const orders: Array<[string, Uint32Array | undefined, number]> = [['chunk order (today)', undefined, 0]];
  for (const T of [4, 16, 64]) {
    const position = rareConceptOrder(x, T);
    const order = new Uint32Array(nChunks);
    for (let k = 0; k < nChunks; k++) order[position[k]] = k;
    // The map chunk → place, were it in `open`: varint gaps from the chunk's own index would not be small, so u32.
    const mapGz = (await gzip(encodeStructured({ place: position }))).length;
    orders.push([`rare-concept order (df ≤ ${T})`, order, mapGz]);
  }
  for (const [orderName, order, mapGz] of orders) {
    const position = new Uint32Array(nChunks);
    if (order) for (let i = 0; i < nChunks; i++) position[order[i]] = i;
    else for (let i = 0; i < nChunks; i++) position[i] = i;
    for (const G of [8, 4, 2, 1]) {
      const starts = groupStarts(order, G);
      const openDelta = (await rowGroupsGz(starts)) - openToday + mapGz;
      for (const B of [2048, 1024, 512, 256]) {
        if (order && G === 8 && B !== 2048) continue;
        const asked: number[] = [];
        const rowsRead: number[] = [];
        const hashes: number[] = [];
        const total: number[] = [];
        for (const p of perQuestion) {
          const groups = new Set<number>();
          for (const k of p.need) groups.add(Math.floor(position[k] / G));
          let a = 0;
          const rb = new Set<number>();
          for (const g of groups) {
            a += starts[g + 1] - starts[g];
            const s = rowsAt + starts[g];
            const e = rowsAt + starts[g + 1];
            for (let b = Math.floor(s / B); b * B < e; b++) rb.add(b);
          }
          asked.push(a);
          rowsRead.push(rb.size * B);
          // Other sections' blocks as today; the rows' hash pages counted apart (blocks of B, 1 KiB pages).
          const others = [...p.blocks].filter((b) => !rowBlock(b));
          const rowPages = new Set<number>();
          for (const b of rb) rowPages.add(Math.floor(b / (1024 / hashBytes)));
          const h = pagesOf(others) + rowPages.size * 1024;
          hashes.push(h);
          total.push(others.length * block + rb.size * B + h + openDelta);
        }
        const hashGrowth = Math.ceil(rowsLength / B) * hashBytes - Math.ceil(rowsLength / block) * hashBytes;
        const twice = (d.hashPages ? 1 : 0) * 2 * 16 * Math.ceil((hashGrowth > 0 ? hashGrowth : 0) / 1024);
        console.log(
          `| ${orderName}, groups of ${G}, ${B}-byte blocks | ${kb(hashGrowth + twice + openDelta)} | ${kb(openDelta)} | ` +
            `${kb(p50(asked))} | ${kb(p50(rowsRead))} / ${kb(Math.max(...rowsRead))} | ${kb(p50(hashes))} | ` +
            `${kb(p50(total))} / ${kb(Math.max(...total))} |`,
        );
      }
    }
  }

  // The whole part in blocks of B (hashes 16 B a block, read by 1 KiB pages), rows in groups of G: each question's
  // asked ranges outside the rows, and its rows' groups, rounded to blocks of B (gap 0).
  console.log(
    '\n| whole part in B-byte blocks, rows groups of G | bundle Δ KB | open Δ KB | pages blocks read KB p50 | of them rows | hash pages KB p50 | cold question KB p50 / max (est.) |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  const todayGlobal = perQuestion.map((p) => p.blocks.size * block + pagesOf(p.blocks));
  for (const G of [8, 4, 2, 1]) {
    const starts = groupStarts(undefined, G);
    const openDelta = (await rowGroupsGz(starts)) - openToday;
    for (const B of [2048, 1024, 512]) {
      const per = B / hashBytes;
      const rowsKb: number[] = [];
      const readKb: number[] = [];
      const hashKb: number[] = [];
      const total: number[] = [];
      for (const [qi, p] of perQuestion.entries()) {
        const blocks = new Set<number>();
        for (const [s, e] of p.asked) {
          if (s >= rowsAt && e <= rowsAt + rowsLength) continue;
          for (let b = Math.floor(s / B); b * B < e; b++) blocks.add(b);
        }
        const groups = new Set<number>();
        for (const k of p.need) groups.add(Math.floor(k / G));
        const rows = new Set<number>();
        for (const g of groups)
          for (let b = Math.floor((rowsAt + starts[g]) / B); b * B < rowsAt + starts[g + 1]; b++) rows.add(b);
        for (const b of rows) blocks.add(b);
        const pages = new Set<number>();
        for (const b of blocks) pages.add(Math.floor(b / (1024 / hashBytes)));
        void per;
        rowsKb.push(rows.size * B);
        readKb.push(blocks.size * B);
        hashKb.push(pages.size * 1024);
        // Today's figure minus today's blocks and hash pages, plus these (the head and anything outside pages.bin).
        total.push(
          todayTotal[qi] +
            todayHashes[qi] -
            todayGlobal[qi] +
            blocks.size * B +
            pages.size * 1024 +
            openDelta,
        );
      }
      const hashGrowth = (Math.ceil(pagesLength / B) - Math.ceil(pagesLength / block)) * hashBytes;
      const topGrowth =
        2 *
        16 *
        (Math.ceil((Math.ceil(pagesLength / B) * hashBytes) / 1024) -
          Math.ceil((Math.ceil(pagesLength / block) * hashBytes) / 1024));
      console.log(
        `| B ${B}, G ${G} | ${kb(hashGrowth + topGrowth + openDelta)} | ${kb(openDelta)} | ${kb(p50(readKb))} | ${kb(p50(rowsKb))} | ` +
          `${kb(p50(hashKb))} | ${kb(p50(total))} / ${kb(Math.max(...total))} |`,
      );
    }
  }

  // (c) the rows of rare concepts' walks beside their lists: the stored row (targets, counts) of every concept of
  // df ≤ T right after its list, so that reading a walked rare concept's list reads its row with it.
  const counts = new Uint32Array(d.conceptCount);
  for (const T of [1, 2, 4]) {
    let grow = 0;
    const inline = new Float64Array(d.conceptCount);
    for (let c = 0; c < d.conceptCount; c++)
      if (x.df[c] <= T) grow += inline[c] = storedRowBytes(x, c, counts).bytes;
    console.log(
      `(c) walk rows of concepts of df ≤ ${T} beside their lists: lists section +${kb(grow)} KB ` +
        `(${((100 * grow) / pagesLength).toFixed(0)} % of pages.bin)`,
    );
  }

  // Second and later questions: one library, the questions one after another; bytes each reads after the first.
  const source = new TaggedSource(new MemoryRangeSource(data, bundlePath));
  source.gapBytes = 0;
  const opened = await openPagedBundle(source, analyzer);
  const later: number[] = [];
  for (const [i, q] of picked.entries()) {
    const before = source.bytesRead;
    await opened!.library.search(q, 'ppr', BUDGET_TOKENS);
    if (i > 0) later.push(source.bytesRead - before);
  }
  console.log(
    `later questions on one open library (${later.length}): p50 ${kb(p50(later))} KB, max ${kb(Math.max(...later))} KB`,
  );
}

async function main(): Promise<void> {
  const sets = process.argv
    .slice(2)
    .filter(
      (a, i, all) => !a.startsWith('--') && (all[i - 1] === '--layouts' || !all[i - 1]?.startsWith('--')),
    );
  if (sets.length === 0) throw new Error(USAGE);
  const n = Number(arg('n', '25'));
  const thresholds = arg('thresholds', '8,16,32,64,128,256,512,1024').split(',').map(Number);
  if (!thresholds.every((t) => Number.isInteger(t) && t >= 1)) throw new Error(`bad --thresholds\n${USAGE}`);
  for (const spec of sets)
    await (process.argv.includes('--layouts') ? layouts(spec, n) : measure(spec, n, thresholds));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
