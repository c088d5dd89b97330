// Round twenty-four (issue 47: a first page ≤ 1.5 MB at 100 MiB, ≤ 2 MB at 1 GiB): what the walk's rows (each chunk's
// concept ids, in version 10's blocks of whole rows with version 13's 48-byte paths) would cost a first page and the
// bundle under other codings of a row. For each bundle (version 13 or 14, rows in blocks of whole rows) it decodes
// every row, asks the first pages of n questions cold (askAsBench, as question-bytes.ts --first-page) recording the
// row groups (chunks) each asks for, and prints for each coding and block size:
// - the rows section's bytes and its blocks (each block + its 48-byte path: the part's growth over the section);
// - per question p50 / mean / max: the bytes of the rows' blocks read (every block holding an asked row, its path
//   included: what the block store reads with gap 0) and the level-1 hash pages above them (128-byte pages of 8 leaf
//   page hashes, i.e. 64 blocks; counted over the rows' zone alone, from the zone's first block);
// - the rows' information bound (Σ log2 C(concepts, m) over the rows) beside.
// Codings of a row of m ascending ids (m from `open`, so no count is stored): varint gaps (today); one code of 5 bits
// then m gaps (the first id, then each id less the one before less 1) in Rice (code < 24) or Exp-Golomb (code − 24)
// as postingsCoding.ts codes a list's gaps, the code the one that writes the row shortest ("rice+eg/5"); Rice alone
// with its parameter in 5 bits ("rice/5"); Rice with the parameter ⌊log2(concepts / (m + 1))⌋ computed, none stored
// ("rice/derived"). Each row ends on a byte (a block holds whole rows and a row is read alone).
// Usage: node --import tsx test/bench/row-block-codings.ts <name>=<x.bundle>:<questions.jsonl> [...] [--n 25]
//          [--sizes 96,128,192,256]
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import process from 'node:process';
import { BlockStore } from '../../src/core/paged/blockStore.ts';
import { rowBlockStarts, type BlockLayout } from '../../src/core/paged/blockLayout.ts';
import { readVarints } from '../../src/core/paged/bytes.ts';
import type { OpenTables, PagesDirectory } from '../../src/core/paged/format.ts';
import { openPagedBundle } from '../../src/core/paged/index.ts';

import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { arg } from './lib/args.ts';
import { askAsBench, questionsOf, spread } from './lib/questions.ts';

const PATH = 48;
const SIZES = arg('sizes', '96,128,192,256').split(',').map(Number);
const N = Number(arg('n', '25'));

// The row groups a question asks for: recorded by wrapping the block store's group reads (bench-only patch).
let askedRows: Set<number> | undefined;
const proto = BlockStore.prototype as unknown as {
  group(key: string, offset: number, length: number, decode?: unknown): unknown;
};
const groupOf = proto.group;
proto.group = function (this: unknown, key: string, offset: number, length: number, decode?: unknown) {
  if (askedRows && key.startsWith('r')) askedRows.add(Number(key.slice(1)));
  return groupOf.call(this, key, offset, length, decode);
};

function log2floor(v: number): number {
  return 31 - Math.clz32(v);
}

/** Bits of v in code c (c < 24 Rice of c, else Exp-Golomb of c − 24), as postingsCoding.ts counts them. */
function bitsOf(v: number, c: number): number {
  if (c < 24) return Math.floor(v / 2 ** c) + 1 + c;
  const k = c - 24;
  return 2 * (log2floor(v + 2 ** k) - k) + k + 1;
}

function codeBits(gaps: number[], codes: number[]): number {
  let best = Infinity;
  for (const c of codes) {
    let bits = 0;
    for (const g of gaps) bits += bitsOf(g, c);
    best = Math.min(best, bits);
  }
  return best;
}

const ALL = Array.from({ length: 32 }, (_, c) => c);
const RICE = ALL.slice(0, 24);

const CODINGS: Record<string, (ids: Uint32Array, nc: number) => number> = {
  varint: (ids) => {
    let bytes = 0;
    let prev = 0;
    for (const c of ids) {
      const g = c - prev;
      prev = c;
      bytes += g < 128 ? 1 : g < 16384 ? 2 : g < 2097152 ? 3 : 4;
    }
    return bytes;
  },
  'rice+eg/5': (ids) => (ids.length ? Math.ceil((5 + codeBits(gapsOf(ids), ALL)) / 8) : 0),
  'rice/5': (ids) => (ids.length ? Math.ceil((5 + codeBits(gapsOf(ids), RICE)) / 8) : 0),
  'rice/derived': (ids, nc) =>
    ids.length
      ? Math.ceil(
          codeBits(gapsOf(ids), [Math.max(0, log2floor(Math.max(1, Math.floor(nc / (ids.length + 1)))))]) / 8,
        )
      : 0,
};

function gapsOf(ids: Uint32Array): number[] {
  const gaps: number[] = [];
  for (let i = 0; i < ids.length; i++) gaps.push(i === 0 ? ids[0] : ids[i] - ids[i - 1] - 1);
  return gaps;
}

function q(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

const kb = (n: number) => (n / 1000).toFixed(1);

async function measure(spec: string): Promise<void> {
  const m = /^([^=]+)=(.+):([^:]+)$/.exec(spec);
  if (!m) throw new Error(`bad set "${spec}"`);
  const [, name, bundlePath, qaPath] = m;
  const data = new Uint8Array(await readFile(bundlePath));
  const analyzer = createTermAnalyzer();
  const opened = await openPagedBundle(new MemoryRangeSource(data, bundlePath), analyzer);
  if (!opened) throw new Error(`${bundlePath}: has no pages`);
  const reader = opened.library.reader;
  const d: PagesDirectory = reader.directory;
  if (!d.rowBlocks || d.groups.rows !== 1) throw new Error(`${bundlePath}: rows not in blocks of whole rows`);
  const open: OpenTables = reader.open;
  const { layout, base } = reader.store as unknown as { layout: BlockLayout; base: number };
  const [rowsAt, rowsLength] = d.sections.rows;
  // The rows section without the paths (each block's bytes where the layout stores them).
  const rows = new Uint8Array(rowsLength);
  const firstBlock = layout.blockOf(rowsAt);
  const lastBlock = layout.blockOf(rowsAt + rowsLength - 1);
  for (let b = firstBlock; b <= lastBlock; b++) {
    const s = layout.startOf(b);
    const from = base + layout.storedStartOf(b);
    rows.set(data.subarray(from, from + layout.endOf(b) - s), s - rowsAt);
  }
  const n = d.chunkCount;
  const nc = d.conceptCount;
  const rowIds: Uint32Array[] = [];
  for (let k = 0; k < n; k++) {
    const bytes = rows.subarray(open.rowGroups[k], open.rowGroups[k + 1]);
    const ids = new Uint32Array(open.conceptCounts![k]);
    readVarints(bytes, 0, ids, ids.length);
    for (let j = 1; j < ids.length; j++) ids[j] += ids[j - 1];
    rowIds.push(ids);
  }
  let bound = 0;
  const lg = Math.log2;
  for (const ids of rowIds) for (let i = 0; i < ids.length; i++) bound += lg(nc - i) - lg(i + 1);

  const questions = spread(await questionsOf(qaPath), N);
  const asked: number[][] = [];
  for (const question of questions) {
    const fresh = await openPagedBundle(new MemoryRangeSource(data, bundlePath), analyzer);
    askedRows = new Set();
    await askAsBench(fresh!.library, question, true);
    asked.push([...askedRows]);
    askedRows = undefined;
  }
  const load = loadavg()[0].toFixed(1);
  console.log(
    `${name}: ${n} chunks, ${nc} concepts, rows ${rowsLength} B today, bound ${kb(bound / 8)} KB; ` +
      `${questions.length} first pages, rows asked p50 ${q(
        asked.map((a) => a.length),
        0.5,
      )} (load ${load})`,
  );
  console.log(
    '| coding | block | rows KB | blocks | part growth KB (section + paths − today) | rows read KB p50 / mean / max | level-1 hash pages KB p50 / mean |',
  );
  console.log('|---|---|---|---|---|---|---|');
  const todayPart = rowsLength + PATH * d.rowBlocks.count;
  for (const [coding, bytesOf] of Object.entries(CODINGS)) {
    const sizes = rowIds.map((ids) => bytesOf(ids, nc));
    const offsets = new Float64Array(n + 1);
    for (let k = 0; k < n; k++) offsets[k + 1] = offsets[k] + sizes[k];
    for (const size of SIZES) {
      const starts = rowBlockStarts(offsets, size);
      const ends = [...starts.slice(1), offsets[n]];
      const blockOfRow = new Uint32Array(n);
      for (let k = 0, b = 0; k < n; k++) {
        while (b + 1 < starts.length && starts[b + 1] <= offsets[k]) b++;
        blockOfRow[k] = b;
      }
      const read: number[] = [];
      const level1: number[] = [];
      for (const rowsAsked of asked) {
        const blocks = new Set<number>();
        for (const k of rowsAsked) if (sizes[k] > 0) blocks.add(blockOfRow[k]);
        let bytes = 0;
        const pages = new Set<number>();
        for (const b of blocks) {
          bytes += ends[b] - starts[b] + PATH;
          pages.add(Math.floor(b / 64));
        }
        read.push(bytes);
        level1.push(pages.size * 128);
      }
      const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
      console.log(
        `| ${coding} | ${size} | ${kb(offsets[n])} | ${starts.length} | ${kb(offsets[n] + PATH * starts.length - todayPart)} | ` +
          `${kb(q(read, 0.5))} / ${kb(mean(read))} / ${kb(Math.max(...read))} | ${kb(q(level1, 0.5))} / ${kb(mean(level1))} |`,
      );
    }
  }
}

for (const spec of process.argv
  .slice(2)
  .filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--')))
  await measure(spec);
