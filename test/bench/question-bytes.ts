// Where a cold question's bytes go (issue 47, build 1: measure before changing the layout). For each bundle, every
// question is asked cold — a fresh source and a fresh openPagedBundle, nothing cached, as a first question against a
// shared bundle — in the default mode (ppr) at the Ask view's default budget (12,000 tokens). Printed per set:
// - the bundle's bytes, its pages part, its block size;
// - the bytes a cold question read (opening included), p50 and max, and what opening alone read;
// - bytes asked vs bytes read: "asked" is the union of the exact byte ranges the library asked its block store for
//   (BlockStore.bytes and .group, whose calls are recorded here) plus the exact reads of the head and hashes; "read"
//   is what the source was asked for, after rounding to blocks, filling gaps between wanted blocks and re-reading.
//   asked/read estimates what reading exact ranges would save (a lower bound: an exact reader still needs the
//   checks the blocks give);
// - the split by part of the bundle, summed over the questions, read and asked: head (preamble, manifest, locator),
//   hashes (the pages' block hashes), and the sections of pages.bin (src/core/paged/format.ts): open (what every
//   question reads), terms (the word dictionary), postings, concepts (the concept dictionary), lists (each concept's
//   chunks: the walk), rows (each chunk's concepts: the walk), degrees (the walk's exact degrees), records (the chunk
//   records: the evidence's text).
// - requests p50/max: one a read and one a multi-range request (a host answering several ranges a request), and
//   ranges (the requests of a host answering one range a request).
// Bundles are read from memory (MemoryRangeSource): the bytes are the same as over HTTP or from a file (the block
// store decides what to read; http-reads.ts checks the digest of the hits is the same over HTTP) for the same gap.
// The gap (RangeSource.gapBytes: bytes between wanted ranges read rather than sent as a range of their own) is the
// source's; --gap sets the one the bench's source says, in bytes (0: a host answering multi-range requests, a file,
// memory; 32768: a host answering one range a request). Without --gap: the default gap (32 KiB), as a source that
// says nothing.
// --simulate (round thirteen) also prints what a question would read under candidate layouts of pages.bin (lists kept
// in the rows, pulsing, the shown cards' records only, the dictionary interleaved with its postings: simulateQuestion,
// test/bench/lib/layoutSim.ts), from the reads and asks logged here.
// --first-page (round fourteen): the question as the Ask view asks a paged index, its first page alone (the passages
// shown before "More passages", firstPage.ts: records of those cards only); without it, every passage of the budget
// (what `cli ask --stats`, Evaluate and a written answer read). Neither counts the Ask view's early words' evidence.
// --later (round sixteen): also the questions asked one after another on one open library, each after the first
// (a visitor's later questions): p50 / max of what each read, and of it the hashes; its ranges (round seventeen) and
// the mean a later question read of each part.
// --part <bytes> (round twenty-one): what the source says a range of its own costs in a request of several
// (RangeSource.partBytes: a multipart part's headers, ~90 bytes from nginx, ~120 from the e2e's server); without it,
// nothing (a file, memory): the data bytes a host answering multi-range requests reads with gap 0.
// --in-flight <n> --ranges-a-request <n> --request-bytes <bytes> (round twenty-three): a host answering one range a
// request over HTTP/2 or HTTP/3 (RangeSource.inFlight and rangesARequest as HttpRangeSource says them there: 64 and 1,
// with --gap 4096): the source says them to the block store, the slow-link estimate sends that many at once, and
// "wire" adds what a request costs beyond its data (its HEADERS frame and its answer's, their frames and TLS records:
// h2-request-bytes.ts measures it) to each range's bytes.
// Usage: node --import tsx test/bench/question-bytes.ts <name>=<x.bundle>:<questions.jsonl> [...] [--n 25]
//          [--gap <bytes>] [--part <bytes>] [--in-flight <n>] [--ranges-a-request <n>] [--request-bytes <bytes>]
//          [--simulate] [--first-page] [--later] [--mode <mode>] [--param key=value ...]
// --mode (round twenty-six): the ranking asked, ppr by default (concept: concept BM25, which reads each chunk's concept
// count, from version 16 in its row).
// --warm (round twenty-seven): after opening and before the question, the hash pages a link reads ahead
// (BlockStore.readUpperPages: read only where the source reads ahead, i.e. with --part > 0); printed apart (warm p50 /
// max), and counted in the cold question's total (opening + warm + question) as a visitor's link reads them.
import { readFile, stat } from 'node:fs/promises';
import { loadavg } from 'node:os';
import process from 'node:process';
import { BlockStore } from '../../src/core/paged/blockStore.ts';
import {
  blockLayoutOf,
  placeEvidenceBlocks,
  placeRowBlocks,
  sectionsOf,
} from '../../src/core/paged/format.ts';
import { openPagedBundle } from '../../src/core/paged/index.ts';
import type { PagedLibrary } from '../../src/core/paged/library.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { arg, paramOverrides } from './lib/args.ts';
import { watchStages, type Stages } from './lib/fetchStages.ts';
import { regionsOf } from './lib/bundleRegions.ts';
import { addSplit, mergeIntervals, TaggedSource, type Region, type Split } from './lib/taggedSource.ts';
import { interleavedBlocks, partFacts, type PartFacts } from './lib/layoutSim.ts';
import { askAsBench, BENCH_BUDGET_TOKENS, spread } from './lib/questions.ts';

const USAGE =
  'usage: node --import tsx test/bench/question-bytes.ts <name>=<x.bundle>:<questions.jsonl> [...] [--n 25] [--gap <bytes>] [--part <bytes>] [--in-flight <n>] [--ranges-a-request <n>] [--request-bytes <bytes>] [--simulate] [--first-page] [--later] [--mode <mode>] [--param key=value ...] [--warm]';
/** The Ask view's default budget (src/ui/state/ask.svelte.ts). */
const PART = arg('part', '') === '' ? undefined : Number(arg('part', ''));
/** --mode (round twenty-six): the ranking asked (ppr, the default, or bm25, concept, …). */
const MODE = arg('mode', 'ppr') as Parameters<typeof askAsBench>[3];
const SAYS_IN_FLIGHT = arg('in-flight', '') === '' ? undefined : Number(arg('in-flight', ''));
const RANGES_A_REQUEST = arg('ranges-a-request', '') === '' ? undefined : Number(arg('ranges-a-request', ''));
/**
 * --param key=value (round twenty-four, repeatable): a query-time parameter the library is opened with (e.g.
 * walkMaxDf=1000, the walk's hubs held: params.ts), as `cli bench --param` asks the engine in memory.
 */
const PARAMS = paramOverrides();
/** Bytes a request costs on the wire beyond its data (--request-bytes), for the "wire" line; 0 without it. */
const REQUEST_BYTES = Number(arg('request-bytes', '0'));
const ORDER = ['head', 'hashes', ...sectionsOf(2), 'evidence', 'other'];

// The exact ranges the library asks its block store for, in bundle offsets: recorded by wrapping the two methods every
// pages read goes through (a bench-only patch; `base` is the store's private offset of the part in the file).
let asked: Array<[number, number]> | undefined;
type StoreInternals = { base: number };
const proto = BlockStore.prototype as unknown as {
  bytes(offset: number, length: number): Uint8Array | undefined;
  group(key: string, offset: number, length: number, decode?: unknown): unknown;
};
const bytesOf = proto.bytes;
const groupOf = proto.group;
proto.bytes = function (this: StoreInternals, offset: number, length: number) {
  const base = this.base;
  asked?.push([base + offset, base + offset + length]);
  return bytesOf.call(this, offset, length);
};
proto.group = function (this: StoreInternals, key: string, offset: number, length: number, decode?: unknown) {
  const base = this.base;
  asked?.push([base + offset, base + offset + length]);
  return groupOf.call(this, key, offset, length, decode);
};

/** pagefind-bytes.ts's slow link: 10 Mbit/s, 100 ms a round trip, 6 requests in flight (--in-flight: that many). */
const LINK_BYTES_A_SECOND = 1.25e6;
const ROUND_TRIP_S = 0.1;
const IN_FLIGHT = SAYS_IN_FLIGHT ?? 6;

/**
 * Seconds on the slow link (pagefind-bytes.ts linkSeconds): the bytes at its rate, plus a round trip for every
 * IN_FLIGHT reads of a stage (a host answering one range a request: the source's reads are its ranges).
 */
function linkSeconds(bytes: number, stageReads: readonly number[]): number {
  return (
    bytes / LINK_BYTES_A_SECOND + stageReads.reduce((t, n) => t + Math.ceil(n / IN_FLIGHT), 0) * ROUND_TRIP_S
  );
}

/** A question as the bench asks it: the Ask view's first page with --first-page, else `cli ask`'s whole budget. */
function ask(library: PagedLibrary, q: string): ReturnType<PagedLibrary['search']> {
  return askAsBench(library, q, process.argv.includes('--first-page'), MODE);
}

function kb(n: number): string {
  return Math.round(n / 1000).toLocaleString('en-US');
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Cards the Ask view shows first (src/ui: the evidence list's first page), for the records layout (--simulate). */
const SHOWN_CARDS = 8;
/** Posting lists up to this many bytes are inlined in their dictionary entry in the pulsing layout (--simulate). */
const PULSE_BYTES = 16;

/** Blocks of `block` bytes covering [s, e) (relative to the part), as block numbers. */
function blocksOf(s: number, e: number, block: number): number[] {
  const out: number[] = [];
  for (let b = Math.floor(s / block); b * block < e; b++) out.push(b);
  return out;
}

async function measure(spec: string, n: number, gap: number | undefined, simulate: boolean): Promise<void> {
  const m = /^([^=]+)=(.+):([^:]+)$/.exec(spec);
  if (!m) throw new Error(`bad set "${spec}"\n${USAGE}`);
  const [, setName, bundlePath, qaPath] = m;
  const data = new Uint8Array(await readFile(bundlePath)); // throws on a wrong path
  const questions = (await readFile(qaPath, 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => String((JSON.parse(l) as { question: unknown }).question))
    .filter((q) => q.trim());
  if (questions.length === 0) throw new Error(`${qaPath}: no questions`);
  const { regions, d } = await regionsOf(data, bundlePath);
  const pagesBytes = Object.values(d.sections).reduce((s, [, l]) => s + l, 0);
  const layout = blockLayoutOf(d, pagesBytes);
  const picked = spread(questions, n);
  const analyzer = createTermAnalyzer();
  const totals: number[] = [];
  const askedTotals: number[] = [];
  const requests: number[] = [];
  const ranges: number[] = [];
  const seconds: number[] = [];
  /** What a question sent on the wire one range a request: its data and --request-bytes a range. */
  const wires: number[] = [];
  const rounds: number[] = [];
  const laterRounds: number[] = [];
  let openBytes = 0;
  const warmed: number[] = [];
  let hitCount = 0;
  let roundedTotal = 0;
  let distinctTotal = 0;
  const readSplit: Split = new Map();
  const askedSplit: Split = new Map();
  /** Ranges read by the part each starts in (a host answering one range a request: its requests by part). */
  const rangeSplit: Split = new Map();
  const pagesAt = regions.find((r) => r.name === 'open')!.start;
  const facts: PartFacts | undefined = simulate
    ? partFacts(data.subarray(pagesAt, pagesAt + pagesBytes), d, PULSE_BYTES)
    : undefined;
  const sim = {
    rowsOnly: [] as number[],
    shown: [] as number[],
    pulsing: [] as number[],
    pulsedTerms: 0,
    interleaved: [] as number[],
    wordsToday: 0,
    wordsInterleaved: 0,
  };
  for (const q of picked) {
    const source = new TaggedSource(new MemoryRangeSource(data, bundlePath));
    source.regions = regions;
    source.gapBytes = gap;
    source.partBytes = PART;
    source.inFlight = SAYS_IN_FLIGHT;
    source.rangesARequest = RANGES_A_REQUEST;
    asked = [];
    const stages: Stages = { source, reads: [] };
    watchStages(stages);
    const opened = await openPagedBundle(source, analyzer, PARAMS);
    // Opening reads one thing after another (tail, manifest, hashes or `open`): a stage each.
    stages.reads.unshift(
      ...source.reads.map(() => 1).slice(0, source.reads.length - stages.reads.reduce((a, b) => a + b, 0)),
    );
    if (!opened) throw new Error(`${bundlePath}: has no pages`);
    openBytes = source.bytesRead;
    const library = opened.library;
    // Version 10's blocks of whole rows start where `open`'s row groups say (format.ts, placeRowBlocks).
    if (!layout.placed) {
      placeRowBlocks(bundlePath, d, layout, library.reader.open.rowGroups);
      placeEvidenceBlocks(d, layout, library.reader.open.evidenceStarts);
    }
    if (process.argv.includes('--warm')) {
      const before = source.bytesRead;
      await library.reader.store.readUpperPages();
      warmed.push(source.bytesRead - before);
    }
    const answer = await ask(library, q);
    hitCount += answer.hits.length;
    rounds.push(answer.rounds);
    if (gap !== 0) seconds.push(linkSeconds(source.bytesRead + source.ranges * REQUEST_BYTES, stages.reads));
    wires.push(source.bytesRead + source.ranges * REQUEST_BYTES);
    watchStages(undefined);
    // Asked: the store's exact ranges, and the source's own reads outside pages.bin (the head's and the hashes' reads
    // are exact already: nothing rounds them).
    const pagesStart = regions.find((r) => r.name === 'open')!.start;
    const outside = source.reads
      .map(([o, l]) => [o, o + l] as [number, number])
      .filter(([s, e]) => e <= pagesStart || s >= pagesStart + pagesBytes);
    const exact = mergeIntervals([...asked, ...outside]);
    const askedRaw = asked;
    asked = undefined;
    let askedBytes = 0;
    for (const [s, e] of exact) {
      askedBytes += e - s;
      addSplit(askedSplit, regions, s, e);
    }
    for (const [k, v] of source.split) readSplit.set(k, (readSplit.get(k) ?? 0) + v);
    for (const [offset] of source.reads) {
      const k = regions.find((r) => offset >= r.start && offset < r.end)?.name ?? 'other';
      rangeSplit.set(k, (rangeSplit.get(k) ?? 0) + 1);
    }
    if (facts) simulateQuestion(facts, source, askedRaw, regions, pagesAt, opened.library, answer.hits, sim);
    totals.push(source.bytesRead);
    askedTotals.push(askedBytes);
    requests.push(source.requests);
    ranges.push(source.ranges);
    // Between asked and read: the asked ranges rounded out to whole blocks, then the distinct bytes read (rounding
    // plus the gaps filled between wanted blocks); read minus distinct is re-reads.
    // By the part's blocks (from version 8 a section may have blocks of its own size: blockLayoutOf).
    const rounded = mergeIntervals(
      exact.map(([s, e]) =>
        s >= pagesStart && e <= pagesStart + pagesBytes && e > s
          ? [
              pagesStart + layout.startOf(layout.blockOf(s - pagesStart)),
              pagesStart + layout.endOf(layout.blockOf(e - 1 - pagesStart)),
            ]
          : [s, e],
      ),
    );
    roundedTotal += rounded.reduce((t, [s, e]) => t + e - s, 0);
    distinctTotal += mergeIntervals(source.reads.map(([o, l]) => [o, o + l])).reduce(
      (t, [s, e]) => t + e - s,
      0,
    );
  }
  if (hitCount === 0)
    throw new Error(`${setName}: no question found any passage (a wrong bundle for its questions?)`);
  // --later (round sixteen): the same questions one after another on one open library (a visitor's second and later
  // questions): what each after the first read, in all and of the hashes part.
  const later: number[] = [];
  const laterHashes: number[] = [];
  const laterSplit: Split = new Map();
  let laterReread = 0;
  const laterRanges: number[] = [];
  if (process.argv.includes('--later')) {
    const source = new TaggedSource(new MemoryRangeSource(data, bundlePath));
    source.regions = regions;
    source.gapBytes = gap;
    source.partBytes = PART;
    source.inFlight = SAYS_IN_FLIGHT;
    source.rangesARequest = RANGES_A_REQUEST;
    const library = (await openPagedBundle(source, analyzer, PARAMS))!.library;
    let firstRead = 0;
    for (const [i, q] of picked.entries()) {
      if (i === 1) firstRead = source.reads.length;
      const before = source.bytesRead;
      const hashesBefore = source.split.get('hashes') ?? 0;
      const splitBefore = new Map(source.split);
      const rangesBefore = source.ranges;
      const asked = await ask(library, q);
      if (i === 0) continue;
      laterRounds.push(asked.rounds);
      later.push(source.bytesRead - before);
      laterHashes.push((source.split.get('hashes') ?? 0) - hashesBefore);
      laterRanges.push(source.ranges - rangesBefore);
      for (const [k, v] of source.split)
        laterSplit.set(k, (laterSplit.get(k) ?? 0) + v - (splitBefore.get(k) ?? 0));
    }
    // Bytes the later questions read again (read before, by them or the first question): what a store that kept
    // everything would not have read.
    const seen = new Uint8Array(Math.ceil(data.length / 8));
    source.reads.forEach(([o, l], r) => {
      for (let x = o; x < o + l; x++) {
        const bit = 1 << (x & 7);
        if (seen[x >> 3] & bit) {
          if (r >= firstRead) laterReread++;
        } else seen[x >> 3] |= bit;
      }
    });
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const read = sum(totals);
  const askedAll = sum(askedTotals);
  console.log(
    `\n## ${setName}: bundle ${kb(data.length)} KB (pages ${kb(pagesBytes)} KB, ${d.chunkCount} chunks, ` +
      `${d.conceptCount} concepts, ${d.blockSize}-byte blocks${d.sectionBlocks ? ` (${JSON.stringify(d.sectionBlocks)})` : ''}${d.rowBlocks ? `, rows in blocks of whole rows ≤ ${d.rowBlocks.size} B (${d.rowBlocks.count})` : ''}, hashes ${kb(layout.count * (d.hashBytes ?? 32))} KB of ${d.hashBytes ?? 32} B); ` +
      `gap ${gapName(gap)}; ${picked.length} cold questions, ${MODE}, ` +
      `budget ${BENCH_BUDGET_TOKENS}; load ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
  );
  console.log(
    `cold question read: p50 ${kb(quantile(totals, 0.5))} KB, max ${kb(Math.max(...totals))} KB ` +
      `(opening alone ${kb(openBytes)} KB${warmed.length > 0 ? `, then warm p50 ${kb(quantile(warmed, 0.5))} max ${kb(Math.max(...warmed))} KB` : ''}); asked p50 ${kb(quantile(askedTotals, 0.5))} KB, max ` +
      `${kb(Math.max(...askedTotals))} KB; asked/read ${((100 * askedAll) / read).toFixed(0)} % ` +
      `(exact ranges would read ${((100 * (askedAll - read)) / read).toFixed(0)} %)`,
  );
  if (later.length > 0)
    console.log(
      `later questions on one open library (${later.length}): p50 ${kb(quantile(later, 0.5))} KB, max ` +
        `${kb(Math.max(...later))} KB; of the hashes p50 ${kb(quantile(laterHashes, 0.5))} KB; ranges p50 ` +
        `${quantile(laterRanges, 0.5)}, max ${Math.max(...laterRanges)}; read again ${kb(laterReread / later.length)} ` +
        `KB a later question (mean); rounds p50 ${quantile(laterRounds, 0.5)}, mean ` +
        `${(laterRounds.reduce((a, b) => a + b, 0) / laterRounds.length).toFixed(2)}; mean KB a later question by part: ` +
        ORDER.filter((k) => laterSplit.get(k))
          .map((k) => `${k} ${kb(laterSplit.get(k)! / later.length)}`)
          .join(', '),
    );
  console.log(
    `rounds p50 ${quantile(rounds, 0.5)}, mean ${(rounds.reduce((a, b) => a + b, 0) / rounds.length).toFixed(2)}; ` +
      `requests p50 ${quantile(requests, 0.5)}, max ${Math.max(...requests)} (multi-range host); ranges p50 ` +
      `${quantile(ranges, 0.5)}, max ${Math.max(...ranges)} (a host answering one range a request)` +
      (seconds.length > 0
        ? `; its estimate on 10 Mbit/s + 100 ms (linkSeconds): p50 ${quantile(seconds, 0.5).toFixed(2)} s, max ` +
          `${Math.max(...seconds).toFixed(2)} s`
        : ''),
  );
  if (REQUEST_BYTES > 0)
    console.log(
      `one range a request, ${REQUEST_BYTES} B a request beyond its data, ${IN_FLIGHT} in flight: wire p50 ` +
        `${kb(quantile(wires, 0.5))} KB, max ${kb(Math.max(...wires))} KB; requests p50 ${quantile(ranges, 0.5)}, ` +
        `max ${Math.max(...ranges)}`,
    );
  if (RANGES_A_REQUEST !== undefined)
    console.log(
      `ranges by the part each starts in (mean a question): ` +
        ORDER.filter((k) => rangeSplit.has(k))
          .map((k) => `${k} ${(rangeSplit.get(k)! / picked.length).toFixed(0)}`)
          .join(', '),
    );
  const per = (x: number) => `${kb(x / picked.length)} KB`;
  console.log(
    `mean a question: asked ${per(askedAll)}; rounded to blocks ${per(roundedTotal)}; distinct bytes read ` +
      `${per(distinctTotal)} (gap fill ${per(distinctTotal - roundedTotal)}); read ${per(read)} (re-reads ` +
      `${per(read - distinctTotal)})`,
  );
  console.log('| part | part KB | read KB/question | share of read | asked KB/question | asked/read |');
  console.log('|---|---:|---:|---:|---:|---:|');
  const sizes: Split = new Map();
  for (const r of regions) sizes.set(r.name, (sizes.get(r.name) ?? 0) + r.end - r.start);
  for (const k of ORDER) {
    const r = readSplit.get(k) ?? 0;
    const a = askedSplit.get(k) ?? 0;
    if (r === 0 && a === 0) continue;
    console.log(
      `| ${k} | ${kb(sizes.get(k) ?? 0)} | ${kb(r / picked.length)} | ${((100 * r) / read).toFixed(1)} % | ${kb(a / picked.length)} | ` +
        `${r ? ((100 * a) / r).toFixed(0) + ' %' : '–'} |`,
    );
  }
  if (facts) printSimulation(facts, totals, sim);
}

interface Simulated {
  rowsOnly: number[];
  shown: number[];
  pulsing: number[];
  pulsedTerms: number;
  interleaved: number[];
  wordsToday: number;
  wordsInterleaved: number;
}

/**
 * The question's bytes under four candidate layouts (round thirteen), from what it read and asked:
 * - rowsOnly: no `lists` section; the rows carry each chunk's count of each concept and are read whole, gzip'd, as one
 *   group (the walk reads every row on a documentation-sized set anyway); `open` loses its listSizes;
 * - shown: the records of the first SHOWN_CARDS hits only (what the Ask view shows before "more");
 * - pulsing: posting lists of ≤ PULSE_BYTES inlined in their dictionary entry (the term groups read grow by the
 *   inlined bytes of all their terms, raw: an upper bound, gzip shrinks them; the postings blocks that held only
 *   inlined lists are not read);
 * - interleaved: each term group followed by its terms' postings (one region a group, where the two sections were), so
 *   that a word's dictionary block and its postings often share blocks.
 */
function simulateQuestion(
  facts: PartFacts,
  source: TaggedSource,
  exact: Array<[number, number]>,
  regions: Region[],
  pagesAt: number,
  library: { reader: { chunkIndex: Map<string, number> } },
  hits: ReadonlyArray<{ chunkId: string }>,
  out: Simulated,
): void {
  const { d, open } = facts;
  const B = d.blockSize;
  const split = source.split;
  const read = source.bytesRead;
  const part = (name: string) => split.get(name) ?? 0;
  const rowsBlocks = (Math.ceil(facts.rowsWithCountsGz / B) + 1) * B;
  out.rowsOnly.push(read - part('lists') - part('rows') - facts.openGz + facts.openGzNoLists + rowsBlocks);
  // The shown cards' record groups, rounded to blocks.
  const recAt = d.sections.records[0];
  const shownBlocks = new Set<number>();
  for (const h of hits.slice(0, SHOWN_CARDS)) {
    const k = library.reader.chunkIndex.get(h.chunkId);
    if (k === undefined) continue;
    const g = Math.floor(k / d.groups.records);
    for (const b of blocksOf(recAt + open.recordGroups[g], recAt + open.recordGroups[g + 1], B))
      shownBlocks.add(b);
  }
  out.shown.push(read - part('records') + shownBlocks.size * B);
  // Pulsing: postings blocks read that hold some asked list that stays in the postings section.
  const postAt = pagesAt + d.sections.postings[0];
  const postEnd = postAt + d.sections.postings[1];
  const pulsed = new Set(facts.pulsed.map(([s]) => s));
  const kept = new Set<number>();
  const readBlocks = new Set<number>();
  for (const [o, l] of source.reads)
    for (const b of blocksOf(Math.max(o, postAt) - pagesAt, Math.min(o + l, postEnd) - pagesAt, B))
      readBlocks.add(b);
  for (const [s, e] of exact) {
    if (e <= postAt || s >= postEnd) continue;
    // Each asked range is one list (postingsOf asks a list at a time).
    const rel = s - postAt;
    if (pulsed.has(rel) && e - s <= PULSE_BYTES) continue;
    for (const b of blocksOf(s - pagesAt, e - pagesAt, B)) kept.add(b);
  }
  let saved = 0;
  for (const b of readBlocks) if (!kept.has(b)) saved += B;
  // Term groups the question asked for grow by their inlined bytes.
  const termAt = pagesAt + d.sections.terms[0];
  let grown = 0;
  for (let g = 0; g + 1 < open.termGroups.length; g++) {
    const s = termAt + open.termGroups[g];
    const e = termAt + open.termGroups[g + 1];
    if (exact.some(([a, b]) => a < e && b > s)) grown += facts.pulsedPerTermGroup[g];
  }
  out.pulsedTerms += grown;
  out.pulsing.push(read - saved + grown);
  // (d) Term groups each followed by their postings.
  const today = part('terms') + part('postings');
  const interleaved = interleavedBlocks(facts, exact, pagesAt);
  out.wordsToday += today;
  out.wordsInterleaved += interleaved;
  out.interleaved.push(read - today + interleaved);
  void regions;
}

function printSimulation(facts: PartFacts, totals: number[], sim: Simulated): void {
  const { d } = facts;
  const inlined = facts.pulsedPerTermGroup.reduce((a, b) => a + b, 0);
  console.log(
    `simulated layouts (p50 / max KB, today ${kb(quantile(totals, 0.5))} / ${kb(Math.max(...totals))}):\n` +
      `- (a) rows carry counts, no lists section: ${kb(quantile(sim.rowsOnly, 0.5))} / ${kb(Math.max(...sim.rowsOnly))}` +
      ` (rows ${kb(d.sections.rows[1])} KB → ${kb(facts.rowsWithCounts)} KB with counts, ${kb(facts.rowsWithCountsGz)} gzip'd;` +
      ` lists ${kb(d.sections.lists[1])} KB dropped; open ${kb(facts.openGz)} → ${kb(facts.openGzNoLists)} KB;` +
      ` bundle ${d.sections.lists[1] + d.sections.rows[1] > facts.rowsWithCountsGz ? '−' : '+'}` +
      `${kb(Math.abs(d.sections.lists[1] + d.sections.rows[1] - facts.rowsWithCountsGz + facts.openGz - facts.openGzNoLists))} KB)\n` +
      `- (b) pulsing, posting lists ≤ ${PULSE_BYTES} B in their dictionary entry: ${kb(quantile(sim.pulsing, 0.5))} / ` +
      `${kb(Math.max(...sim.pulsing))} (${facts.pulsed.length} lists, ${kb(inlined)} KB inlined; term groups read grow ` +
      `${kb(sim.pulsedTerms / totals.length)} KB a question, raw)\n` +
      `- (c) records of the first ${SHOWN_CARDS} cards only: ${kb(quantile(sim.shown, 0.5))} / ${kb(Math.max(...sim.shown))}\n` +
      `- (d) term groups each followed by their postings: ${kb(quantile(sim.interleaved, 0.5))} / ` +
      `${kb(Math.max(...sim.interleaved))} (terms + postings read ${kb(sim.wordsToday / totals.length)} → ` +
      `${kb(sim.wordsInterleaved / totals.length)} KB a question)`,
  );
}

function gapName(gap: number | undefined): string {
  return gap === undefined ? 'default (32 KiB)' : `${gap} bytes`;
}

async function main(): Promise<void> {
  const sets = process.argv
    .slice(2)
    .filter(
      (a, i, all) =>
        !a.startsWith('--') &&
        !(all[i - 1]?.startsWith('--') && !['--simulate', '--first-page', '--later'].includes(all[i - 1])),
    );
  if (sets.length === 0) throw new Error(USAGE);
  const n = Number(arg('n', '25'));
  if (!Number.isInteger(n) || n < 1) throw new Error(`--n must be a positive integer\n${USAGE}`);
  const gapArg = arg('gap', '');
  const gap = gapArg === '' ? undefined : Number(gapArg);
  if (gap !== undefined && !(Number.isInteger(gap) && gap >= 0))
    throw new Error(`--gap must be a byte count\n${USAGE}`);
  for (const spec of sets) {
    const path = /=(.+):[^:]+$/.exec(spec)?.[1];
    if (path) await stat(path); // a wrong path fails before anything is measured
    await measure(spec, n, gap, process.argv.includes('--simulate'));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
