// Which hash pages cold questions read (issue 47, round twenty-seven: the question-independent pages read while the
// library is open). For each bundle, every question is asked cold (a fresh source and openPagedBundle, the Ask view's
// first page as question-bytes.ts --first-page asks it) over a memory source that says what the link's host says
// (--gap 0, --part 120 by default: a host answering multi-range requests). Every hash page the block store reads
// (BlockStore.acceptHashPages, recorded here) is counted by level and by zone: the section its first block lies in
// (a page above the leaves by the first block it covers). Printed per zone and level: pages in the bundle and their
// KB, pages read by any question and their KB, KB of the pages read by ≥ 90 % and by ≥ 50 % of the questions, and the
// KB a mean question would no longer read if the pages read by ≥ 90 % were held before it. Then the rule of
// warmPages.ts (warmRuns, from the directory alone): its pages' KB, and the KB a question would no longer read (p50,
// mean), and what it would read of them that it did not read before (p50).
// Usage: node --import tsx test/bench/hash-page-use.ts <name>=<x.bundle>:<questions.jsonl> [...] [--n 25] [--part 120]
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import process from 'node:process';
import { BlockStore } from '../../src/core/paged/blockStore.ts';
import { sectionsOf } from '../../src/core/paged/format.ts';
import { openPagedBundle } from '../../src/core/paged/index.ts';
import type { BlockLayout } from '../../src/core/paged/blockLayout.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { warmListRuns, warmRuns, type WarmLevel } from '../../src/core/paged/warmPages.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { arg } from './lib/args.ts';
import { askAsBench, questionsOf, spread } from './lib/questions.ts';

const N = Number(arg('n', '25'));
const PART = Number(arg('part', '120'));

interface StoreInternals {
  levels: WarmLevel[];
  layout: BlockLayout;
  acceptHashPages(
    runs: ReadonlyArray<{ level: number; first: number; last: number }>,
    bytes: unknown,
  ): unknown;
}

// The pages each question reads, as "level:page" (a bench-only patch of the store's private method).
let read: Set<string> | undefined;
let store: StoreInternals | undefined;
const proto = BlockStore.prototype as unknown as StoreInternals;
const accept = proto.acceptHashPages;
proto.acceptHashPages = function (this: StoreInternals, runs, bytes) {
  for (const { level, first, last } of runs) for (let p = first; p <= last; p++) read?.add(`${level}:${p}`);
  return accept.call(this, runs, bytes);
};

function kb(n: number): string {
  return (n / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 });
}

function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
}

async function measure(spec: string): Promise<void> {
  const m = /^([^=]+)=(.+):([^:]+)$/.exec(spec);
  if (!m) throw new Error(`bad set "${spec}"`);
  const [, name, bundlePath, qaPath] = m;
  const data = new Uint8Array(await readFile(bundlePath));
  const picked = spread(await questionsOf(qaPath), N);
  const analyzer = createTermAnalyzer();
  const perQuestion: Array<Set<string>> = [];
  let sectionStarts: Array<[string, number]> = [];
  for (const q of picked) {
    const source = new MemoryRangeSource(data, bundlePath);
    Object.assign(source, { gapBytes: 0, partBytes: PART });
    read = new Set();
    const opened = await openPagedBundle(source, analyzer);
    if (!opened) throw new Error(`${bundlePath}: has no pages`);
    store = opened.library.reader.store as unknown as StoreInternals;
    // Opening's own pages (`open`'s) are opening's, not the question's.
    read = new Set();
    await askAsBench(opened.library, q, true);
    perQuestion.push(read);
    read = undefined;
    const d = opened.library.reader.directory;
    sectionStarts = sectionsOf(d.version)
      .map((s): [string, number] => [s, d.sections[s][0]])
      .sort((a, b) => a[1] - b[1]);
  }
  if (!store || perQuestion.every((set) => set.size === 0))
    throw new Error(`${name}: no hash page read (hashes held whole?)`);
  const { levels, layout } = store;
  const zoneOf = (level: number, p: number): string => {
    // The first block the page covers.
    let entry = p;
    for (let l = level; l >= 0; l--) entry *= levels[l].pageSize / levels[l].entry;
    const at = layout.startOf(Math.min(entry, layout.count - 1));
    let zone = sectionStarts[0][0];
    for (const [s, start] of sectionStarts) if (start <= at) zone = s;
    return zone;
  };
  const bytesOf = (level: number, p: number) =>
    Math.min(levels[level].pageSize, levels[level].length - p * levels[level].pageSize);
  const counts = new Map<string, number>();
  for (const set of perQuestion) for (const k of set) counts.set(k, (counts.get(k) ?? 0) + 1);
  const n = perQuestion.length;
  const rows = new Map<
    string,
    {
      pages: number;
      kb: number;
      readPages: number;
      readKb: number;
      kb90: number;
      kb50: number;
      saved: number;
    }
  >();
  for (let level = 0; level < levels.length; level++) {
    const pages = Math.ceil(levels[level].length / levels[level].pageSize);
    for (let p = 0; p < pages; p++) {
      const key = `${zoneOf(level, p)} L${level}`;
      const row = rows.get(key) ?? { pages: 0, kb: 0, readPages: 0, readKb: 0, kb90: 0, kb50: 0, saved: 0 };
      rows.set(key, row);
      const bytes = bytesOf(level, p);
      row.pages++;
      row.kb += bytes;
      const c = counts.get(`${level}:${p}`) ?? 0;
      if (c > 0) {
        row.readPages++;
        row.readKb += bytes;
      }
      if (c >= 0.9 * n) {
        row.kb90 += bytes;
        row.saved += (bytes * c) / n;
      }
      if (c >= 0.5 * n) row.kb50 += bytes;
    }
  }
  const load = loadavg()[0].toFixed(1);
  console.log(`\n${name}: ${n} cold questions (first page, gap 0, part ${PART}), load ${load}`);
  const perQ = perQuestion.map((s) =>
    [...s].reduce((t, k) => t + bytesOf(...(k.split(':').map(Number) as [number, number])), 0),
  );
  console.log(
    `hash pages a question read: p50 ${kb(quantile(perQ, 0.5))} KB, max ${kb(Math.max(...perQ))} KB`,
  );
  console.log(
    'zone level | pages | KB | read by any: pages | KB | KB read by ≥90% | ≥50% | KB a question saves (≥90% held)',
  );
  for (const [key, r] of rows)
    if (r.readPages > 0 || r.pages > 0)
      console.log(
        `${key} | ${r.pages} | ${kb(r.kb)} | ${r.readPages} | ${kb(r.readKb)} | ${kb(r.kb90)} | ${kb(r.kb50)} | ${kb(r.saved)}`,
      );
  // The rule (warmPages.ts), from the directory alone.
  const rule = new Set<string>();
  for (const { level, first, last } of [
    ...warmRuns(layout.paths && layout.rowBlocks, levels),
    ...warmListRuns(layout.blocksOf('lists'), levels),
  ])
    for (let p = first; p <= last; p++) rule.add(`${level}:${p}`);
  const ruleKb = [...rule].reduce(
    (t, k) => t + bytesOf(...(k.split(':').map(Number) as [number, number])),
    0,
  );
  const saved = perQuestion.map((s) =>
    [...s]
      .filter((k) => rule.has(k))
      .reduce((t, k) => t + bytesOf(...(k.split(':').map(Number) as [number, number])), 0),
  );
  // What a question still reads once the rule's pages are held (the link read them ahead): KB p50 by zone and level.
  const left = new Map<string, number[]>();
  perQuestion.forEach((s, q) => {
    for (const k of s) {
      if (rule.has(k)) continue;
      const [level, p] = k.split(':').map(Number) as [number, number];
      const key = `${zoneOf(level, p)} L${level}`;
      const per = left.get(key) ?? new Array<number>(n).fill(0);
      left.set(key, per);
      per[q] += bytesOf(level, p);
    }
  });
  const leftTotal = perQuestion.map((_, q) => [...left.values()].reduce((t, per) => t + per[q], 0));
  console.log(
    `a question once the rule's pages are held: p50 ${kb(quantile(leftTotal, 0.5))} KB of hash pages; by zone and ` +
      `level p50 / max KB: ${[...left]
        .sort((a, b) => quantile(b[1], 0.5) - quantile(a[1], 0.5))
        .map(([key, per]) => `${key} ${kb(quantile(per, 0.5))} / ${kb(Math.max(...per))}`)
        .join(', ')}`,
  );
  console.log(
    `rule (level 1 over the rows' blocks with paths, every page of levels ≥ 2, the lists' level 1 when few: warmListRuns): ${rule.size} pages, ${kb(ruleKb)} KB; a question no ` +
      `longer reads p50 ${kb(quantile(saved, 0.5))} KB, mean ${kb(saved.reduce((a, b) => a + b, 0) / n)} KB, min ` +
      `${kb(Math.min(...saved))}; warm pages it would not have read p50 ${kb(ruleKb - quantile(saved, 0.5))} KB`,
  );
}

async function main(): Promise<void> {
  const specs = process.argv
    .slice(2)
    .filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
  if (specs.length === 0)
    throw new Error(
      'usage: hash-page-use.ts <name>=<x.bundle>:<questions.jsonl> [...] [--n 25] [--part 120]',
    );
  console.log(`hash-page-use ${new Date().toISOString()}`);
  for (const spec of specs) await measure(spec);
}

await main();
