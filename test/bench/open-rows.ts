// Issue 47, round twenty-five: what taking the rows' locating arrays out of `open` would save a cold question's first
// page. `open` is read whole at every opening (755 KB at 100 MiB), and two of its arrays exist only for the rows:
// `conceptCounts` (each chunk's concept count m: the Rice parameter of its row, the row group checks, the BM25 length
// over concepts and the walk's chunk length) and `rowGroups` (each row's bytes, from which the row blocks are cut).
// This bench measures, on a bundle and its questions asked cold as question-bytes.ts asks them (a fresh
// openPagedBundle over a memory source, ppr, budget 12,000, `--first-page` for the Ask view's first page):
// - who reads `conceptCounts` during a question (counting views, as read-bound.ts's), and for which chunks: the chunks
//   whose rows the question reads anyway, and the others (whose rows a layout without the array would read more);
// - candidate A: each row carries its own Rice parameter (a header: the difference to the directory's most common
//   parameter, zigzag in unary) and pads its last byte with ones, so m is the number of codes in the row's bytes:
//   `conceptCounts` leaves `open`, `rowGroups` stays (re-coded: its version 11 residual predicts a row's bytes from m);
// - candidate B: rows that delimit themselves (m as an Exp-Golomb code before the Rice gaps): `conceptCounts` and
//   `rowGroups` leave `open`, which keeps per row block its first chunk and its bytes instead;
// and for each the `open` section (the stored value with the arrays replaced, encodeStructured then gzip as the
// writers do, beside today's through the same gzip), the rows section's growth, and per question the row blocks read
// (128-byte blocks of whole rows, each with its 48-byte path, as version 13–15 read them) for the rows the question
// reads plus the extra rows. Nothing here is a format: an estimate to decide whether to build one.
// Usage: node --import tsx test/bench/open-rows.ts <x.bundle> <questions.jsonl> [--n 25] [--first-page]
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import process from 'node:process';
import { gzipSync } from 'node:zlib';
import { decodeStructured, encodeStructured, gunzip } from '../../src/core/bundle/index.ts';
import { BlockStore, gzipSize } from '../../src/core/paged/blockStore.ts';
import { rowBlockStarts } from '../../src/core/paged/blockLayout.ts';
import { PATH_BYTES } from '../../src/core/paged/blockPaths.ts';
import { openPagedBundle } from '../../src/core/paged/index.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { rowRiceParameter } from '../../src/core/paged/rowsCoding.ts';
import type { TermEntry } from '../../src/core/paged/format.ts';
import { SectionReader } from '../../src/core/paged/sectionReader.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { arg } from './lib/args.ts';
import { regionsOf } from './lib/bundleRegions.ts';
import { residualsOver, slopeOf, varints, zigzag } from './lib/openCandidates.ts';
import { askAsBench, questionsOf, spread } from './lib/questions.ts';

const USAGE =
  'usage: node --import tsx test/bench/open-rows.ts <x.bundle> <questions.jsonl> [--n 25] [--first-page]';
const kb = (bytes: number): string => (bytes / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 });

// ---- what a question reads: rows (chunk ids of the row groups asked) and conceptCounts entries

interface Use {
  rows: Set<number>;
  /** Posting entries decoded (text and heading lists), and their chunks' lengths' bits (C's model, once it is set). */
  postings: number;
  lengthBits: number;
  counts: Uint8Array;
  reader?: SectionReader;
}
let use: Use | undefined;

const store = BlockStore.prototype as unknown as {
  group(key: string, offset: number, length: number, decode?: unknown): unknown;
};
const groupOf = store.group;
store.group = function (this: unknown, key: string, offset: number, length: number, decode?: unknown) {
  const value = groupOf.call(this, key, offset, length, decode);
  // A row group (one chunk a group from 100 MiB on) read by the question: its chunk's row is read anyway.
  if (use && key[0] === 'r' && value) use.rows.add(Number(key.slice(1)));
  return value;
};
type ReaderPatch = Record<string, (...a: unknown[]) => unknown>;
const readerProto = SectionReader.prototype as unknown as ReaderPatch;
const decodePostingList = readerProto.decodePostingList;
readerProto.decodePostingList = function (this: SectionReader, ...a: unknown[]) {
  const list = decodePostingList.apply(this, a) as { chunks: Uint32Array };
  if (use) {
    use.postings += list.chunks.length;
    if (entryBits) for (const k of list.chunks) use.lengthBits += entryBits[k];
  }
  if (tally) for (const k of list.chunks) tally[k]++;
  return list;
};
/** While set, each chunk's posting entries are counted (the whole bundle's, before the questions). */
let tally: Uint32Array | undefined;
/** C's bits a posting entry naming chunk k carries (its lengths' code), once the model is set. */
let entryBits: Float64Array | undefined;
const walkDegrees = readerProto.walkDegrees;
// The library takes its arrays when it is built (the walk's degree arrays): the counting view goes in first.
readerProto.walkDegrees = function (this: SectionReader, ...a: unknown[]) {
  if (use && !use.reader) {
    use.reader = this;
    const open = this.open as unknown as { conceptCounts: Uint32Array };
    const counts = use.counts;
    open.conceptCounts = new Proxy(open.conceptCounts, {
      get(target, prop) {
        if (use && typeof prop === 'string' && prop.charCodeAt(0) >= 48 && prop.charCodeAt(0) <= 57)
          counts[Number(prop)] = 1;
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...x: unknown[]) => unknown).bind(target) : value;
      },
    });
  }
  return walkDegrees.apply(this, a);
};

// ---- codes' lengths

/** Bits of a Rice code of `gap` with parameter k. */
const riceBits = (gap: number, k: number): number => Math.floor(gap / 2 ** k) + 1 + k;
/** Bits of an Exp-Golomb code of order k of v ≥ 0. */
function expGolombBits(v: number, k: number): number {
  const x = Math.floor(v / 2 ** k) + 1;
  return 2 * (31 - Math.clz32(x)) + 1 + k;
}
const gz = (bytes: Uint8Array): number => gzipSync(bytes).length;

function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : 0;
}
const mean = (values: number[]): number =>
  values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
const stats = (values: number[]): string =>
  `${kb(quantile(values, 0.5))} / ${kb(Math.max(...values))} / ${kb(mean(values))}`;

/** A layout of rows: each chunk's row bytes, the blocks cut from them, and each chunk's block. */
interface Layout {
  name: string;
  sizes: Float64Array;
  blockOf: Uint32Array;
  blockBytes: number[];
}
function layoutOf(name: string, sizes: Float64Array, blockSize: number): Layout {
  const offsets = new Float64Array(sizes.length + 1);
  for (let k = 0; k < sizes.length; k++) offsets[k + 1] = offsets[k] + sizes[k];
  const starts = rowBlockStarts(offsets, blockSize);
  const end = offsets[sizes.length];
  const blockBytes = starts.map((s, b) => (b + 1 < starts.length ? starts[b + 1] : end) - s);
  const blockOf = new Uint32Array(sizes.length);
  let b = 0;
  for (let k = 0; k < sizes.length; k++) {
    while (b + 1 < starts.length && starts[b + 1] <= offsets[k] && sizes[k] > 0) b++;
    blockOf[k] = b;
  }
  return { name, sizes, blockOf, blockBytes };
}
/** Bytes of the row blocks (with their paths) holding `chunks`. */
function blocksRead(layout: Layout, chunks: Iterable<number>): { blocks: number; bytes: number } {
  const seen = new Set<number>();
  for (const k of chunks) if (layout.sizes[k] > 0) seen.add(layout.blockOf[k]);
  let bytes = 0;
  for (const b of seen) bytes += layout.blockBytes[b] + PATH_BYTES;
  return { blocks: seen.size, bytes };
}

/** Every word's text and heading posting entries: its dictionary groups read whole, then each list decoded. */
async function postingEntries(reader: SectionReader): Promise<Uint32Array> {
  const first = reader.open.termFirst;
  const entriesOf = (g: number) => reader.termEntry(first[g]);
  await reader.readUntilComplete(() => {
    let complete = true;
    for (let g = 0; g < first.length; g++) if (!entriesOf(g)) complete = false;
    return complete;
  });
  // The groups are in the store now: each read again by its key, as termEntry reads it.
  const store = (reader as unknown as { store: { group(key: string): unknown } }).store;
  const perChunk = new Uint32Array(reader.chunkCount);
  await reader.readUntilComplete(() => {
    tally = perChunk.fill(0);
    let complete = true;
    for (let g = 0; g < first.length; g++) {
      const group = store.group(`t${g}`) as TermEntry[] | undefined;
      if (!group) throw new Error(`term group ${g} not kept`);
      for (const e of group)
        for (const heading of [false, true]) {
          // Decoded here, not taken from the reader's cache, so that each list is tallied once a run.
          (reader as unknown as { postings: Map<string, unknown> }).postings.clear();
          const list = reader.postingsOf(e[0], e, heading);
          if (!list && (heading ? e[4] : e[2]) > 0) complete = false;
        }
    }
    return complete;
  });
  tally = undefined;
  return perChunk;
}

async function main(): Promise<void> {
  const args = process.argv
    .slice(2)
    .filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--n'));
  const [bundlePath, qaPath] = args;
  if (!bundlePath || !qaPath) throw new Error(USAGE);
  const n = Number(arg('n', '25'));
  const firstPage = process.argv.includes('--first-page');
  const data = new Uint8Array(await readFile(bundlePath));
  const { regions, d } = await regionsOf(data, bundlePath);
  if (d.groups.rows !== 1 || !d.rowsCoding || !d.rowBlocks)
    throw new Error(`${bundlePath}: measures version 15 rows of one chunk a group in row blocks`);
  const pagesAt = regions.find((r) => r.name === 'open')!.start;
  const analyzer = createTermAnalyzer();
  const started = new Date().toISOString().slice(11, 16);

  // Every row, read whole once (as degreeRanks.ts buildOrder reads them).
  const whole = await openPagedBundle(new MemoryRangeSource(data, bundlePath), analyzer);
  const reader = (whole?.library as unknown as { reader?: SectionReader } | undefined)?.reader;
  if (!reader) throw new Error(`${bundlePath}: no section reader`);
  const nChunks = d.chunkCount;
  const nc = d.conceptCount;
  const rows: Uint32Array[] = new Array<Uint32Array>(nChunks);
  await reader.readUntilComplete(() => {
    let complete = true;
    for (let k = 0; k < nChunks; k++) {
      const ids = reader.conceptsOf(k);
      if (ids) rows[k] = ids.slice();
      else complete = false;
    }
    return complete;
  });
  const open = reader.open;
  const todaySizes = new Float64Array(nChunks);
  for (let k = 0; k < nChunks; k++) todaySizes[k] = open.rowGroups[k + 1] - open.rowGroups[k];

  // Each row's Rice bits with today's parameter (from m).
  const riceOf = new Float64Array(nChunks);
  const kOf = new Uint8Array(nChunks);
  const kHistogram = new Map<number, number>();
  for (let k = 0; k < nChunks; k++) {
    const ids = rows[k];
    const p = rowRiceParameter(ids.length, nc);
    kOf[k] = p;
    if (ids.length) kHistogram.set(p, (kHistogram.get(p) ?? 0) + 1);
    let bits = 0;
    let previous = -1;
    for (const id of ids) {
      bits += riceBits(id - previous - 1, p);
      previous = id;
    }
    riceOf[k] = bits;
    if (Math.ceil(bits / 8) !== todaySizes[k])
      throw new Error(
        `chunk ${k}: today's row is ${todaySizes[k]} bytes, the Rice bits make ${Math.ceil(bits / 8)}`,
      );
  }
  const k0 = [...kHistogram].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
  // A: a header of zigzag(k − k0) in unary (ones ended by a zero), then the codes; m is the codes the bytes hold.
  const sizesA = new Float64Array(nChunks);
  for (let k = 0; k < nChunks; k++)
    sizesA[k] = rows[k].length ? Math.ceil((zigzag(kOf[k] - k0) + 1 + riceOf[k]) / 8) : 0;
  // B: m as Exp-Golomb of order eg (the best over the rows), then the codes; a row of no concepts is its header.
  let bestEg = 0;
  let bestBits = Infinity;
  for (let eg = 0; eg < 8; eg++) {
    let bits = 0;
    for (let k = 0; k < nChunks; k++) bits += expGolombBits(rows[k].length, eg);
    if (bits < bestBits) [bestBits, bestEg] = [bits, eg];
  }
  const sizesB = new Float64Array(nChunks);
  for (let k = 0; k < nChunks; k++)
    sizesB[k] = Math.ceil((expGolombBits(rows[k].length, bestEg) + riceOf[k]) / 8);
  const blockSize = d.rowBlocks.size;
  const today = layoutOf('today', todaySizes, blockSize);
  const layoutA = layoutOf('A', sizesA, blockSize);
  const layoutB = layoutOf('B', sizesB, blockSize);
  if (today.blockBytes.length !== d.rowBlocks.count)
    throw new Error(
      `today's layout makes ${today.blockBytes.length} row blocks, the directory says ${d.rowBlocks.count}`,
    );

  // `open` as stored, and the candidates' values (encodeStructured then gzip, beside today's through the same gzip).
  const [at, length] = d.sections.open;
  const section = data.subarray(pagesAt + at, pagesAt + at + length);
  const stored = decodeStructured(await gunzip(section, gzipSize(section)), 'open') as Record<
    string,
    unknown
  >;
  const openBytes = (value: Record<string, unknown>) => gz(encodeStructured(value));
  const baseline = openBytes(stored);
  const withoutCounts = { ...stored };
  delete withoutCounts.conceptCounts;
  // A's rowGroups: the best of a row's bytes as varints and as a residual over its text length (no m to predict it).
  const text = open.textLengths;
  const rowGroupCodings: Array<[string, Uint8Array]> = [
    ['varints', varints(sizesA)],
    ['− slope × textLength', varints(residualsOver(text, sizesA, slopeOf(text, sizesA)))],
  ];
  const codingsA = rowGroupCodings.map(([name, bytes]) => ({
    name,
    bytes: openBytes({ ...withoutCounts, rowGroups: bytes }),
  }));
  const bestA = codingsA.sort((x, y) => x.bytes - y.bytes)[0];
  // B: per row block its first chunk (the difference to the block before's) and its bytes (128 − bytes).
  const firstChunks: number[] = [];
  let previousBlock = -1;
  for (let k = 0; k < nChunks; k++)
    if (layoutB.blockOf[k] !== previousBlock && sizesB[k] > 0) {
      firstChunks.push(k);
      previousBlock = layoutB.blockOf[k];
    }
  const withoutBoth = { ...withoutCounts };
  delete withoutBoth.rowGroups;
  const openB = openBytes({
    ...withoutBoth,
    rowBlockFirst: varints(firstChunks.map((k, b) => k - (b ? firstChunks[b - 1] : 0))),
    rowBlockSpare: varints(layoutB.blockBytes.map((x) => Math.max(0, blockSize - x))),
  });
  // C: each posting entry carries its chunk's BM25 lengths (text and heading: the fields' BM25 sums both), at their
  // order-0 entropy (a floor: no code reaches it); `open` loses textLengths and headingLengths, and the arrays coded
  // over the text length are coded without it (conceptCounts as varints, recordGroups' sizes as varints). The tokens'
  // prediction from the text length (the evidence blocks) and the BM25 means (scalars then) are not counted.
  // The lengths a posting entry carries are its chunk's (text, heading) pair, coded by their order-0 entropy over the
  // bundle's posting entries (a chunk named by more lists weighs more): a floor for a static code (a Huffman table in
  // the directory would be within a bit of it).
  const perChunk = await postingEntries(reader);
  const pairOf = (k: number) => `${open.textLengths[k]}:${d.headingCopies > 0 ? open.headingLengths[k] : 0}`;
  const weight = new Map<string, number>();
  let entriesTotal = 0;
  for (let k = 0; k < nChunks; k++) {
    weight.set(pairOf(k), (weight.get(pairOf(k)) ?? 0) + perChunk[k]);
    entriesTotal += perChunk[k];
  }
  entryBits = new Float64Array(nChunks);
  let bundleBits = 0;
  for (let k = 0; k < nChunks; k++) {
    entryBits[k] = perChunk[k] ? -Math.log2(weight.get(pairOf(k))! / entriesTotal) : 0;
    bundleBits += perChunk[k] * entryBits[k];
  }
  const withoutLengths = { ...stored };
  delete withoutLengths.textLengths;
  delete withoutLengths.headingLengths;
  const recordSizes = Array.from(
    { length: open.recordGroups.length - 1 },
    (_, g) => open.recordGroups[g + 1] - open.recordGroups[g],
  );
  const openC = openBytes({
    ...withoutLengths,
    conceptCounts: varints(open.conceptCounts!),
    recordGroups: varints(recordSizes),
  });
  // B and C together: rows that delimit themselves and postings that carry the lengths (no conceptCounts to code).
  const rowBlockArrays = {
    rowBlockFirst: varints(firstChunks.map((k, b) => k - (b ? firstChunks[b - 1] : 0))),
    rowBlockSpare: varints(layoutB.blockBytes.map((x) => Math.max(0, blockSize - x))),
  };
  const withoutAll = { ...withoutBoth };
  delete withoutAll.textLengths;
  delete withoutAll.headingLengths;
  const openBC = openBytes({ ...withoutAll, ...rowBlockArrays, recordGroups: varints(recordSizes) });
  const rowsBytes = (l: Layout) => l.blockBytes.reduce((s, x) => s + x + PATH_BYTES, 0);

  // The questions, cold.
  const picked = spread(await questionsOf(qaPath), n);
  const perQuestion: Array<{
    rows: number;
    postings: number;
    lengthBytes: number;
    extra: number;
    used: number;
    today: number;
    a: number;
    b: number;
  }> = [];
  const todayCheck: number[] = [];
  for (const q of picked) {
    const current: Use = { rows: new Set(), counts: new Uint8Array(nChunks), postings: 0, lengthBits: 0 };
    use = current;
    const opened = await openPagedBundle(new MemoryRangeSource(data, bundlePath), analyzer);
    if (!opened) throw new Error(`${bundlePath}: has no pages`);
    // The opening's own passes over conceptCounts (its sum, its checks) are not a question's.
    current.counts.fill(0);
    await askAsBench(opened.library, q, firstPage);
    use = undefined;
    const extra: number[] = [];
    let used = 0;
    current.counts.forEach((x, k) => {
      if (!x) return;
      used++;
      if (!current.rows.has(k)) extra.push(k);
    });
    const both = [...current.rows, ...extra];
    const t = blocksRead(today, current.rows);
    todayCheck.push(t.blocks);
    perQuestion.push({
      rows: current.rows.size,
      postings: current.postings,
      lengthBytes: current.lengthBits / 8,
      extra: extra.length,
      used,
      today: t.bytes,
      a: blocksRead(layoutA, both).bytes,
      b: blocksRead(layoutB, both).bytes,
    });
    process.stderr.write('.');
  }
  process.stderr.write('\n');

  console.log(
    `## ${bundlePath}: ${nChunks.toLocaleString('en-US')} chunks, ${nc.toLocaleString('en-US')} concepts, ` +
      `pages version ${d.version}; ${picked.length} cold questions, ppr, ` +
      `${firstPage ? 'the Ask view’s first page' : '`cli ask` (whole budget)'}; ${started}–` +
      `${new Date().toISOString().slice(11, 16)} UTC, load ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
  );
  console.log(
    `\nMost common row Rice parameter k0 = ${k0}; B's count code Exp-Golomb order ${bestEg}; A's rowGroups coded as ` +
      `${codingsA.map((c) => `${c.name} ${kb(c.bytes)} KB of \`open\``).join(', ')}.`,
  );
  console.log(
    '\n### `open` and the rows section (KB; `open` re-encoded, gzipped by node at its default level)',
  );
  console.log('| layout | `open` | rows section (blocks + paths) | row blocks |');
  console.log('|---|---:|---:|---:|');
  console.log(
    `| today | ${kb(baseline)} | ${kb(rowsBytes(today))} | ${today.blockBytes.length.toLocaleString('en-US')} |`,
  );
  console.log(
    `| A (rows carry k; conceptCounts out) | ${kb(bestA.bytes)} | ${kb(rowsBytes(layoutA))} | ${layoutA.blockBytes.length.toLocaleString('en-US')} |`,
  );
  console.log(
    `| B (rows carry m; conceptCounts, rowGroups out) | ${kb(openB)} | ${kb(rowsBytes(layoutB))} | ${layoutB.blockBytes.length.toLocaleString('en-US')} |`,
  );
  const col = (f: (x: (typeof perQuestion)[number]) => number) => perQuestion.map(f);
  console.log('\n### A cold question (p50 / max / mean)');
  console.log(
    `- chunks whose rows it reads: ${quantile(
      col((x) => x.rows),
      0.5,
    )} / ${Math.max(...col((x) => x.rows))}; ` +
      `conceptCounts entries it reads: ${quantile(
        col((x) => x.used),
        0.5,
      )} / ${Math.max(...col((x) => x.used))}, ` +
      `of them not among its rows: ${quantile(
        col((x) => x.extra),
        0.5,
      )} / ${Math.max(...col((x) => x.extra))} ` +
      `(mean ${Math.round(mean(col((x) => x.extra)))})`,
  );
  console.log(`- row blocks it reads today: ${quantile(todayCheck, 0.5)} / ${Math.max(...todayCheck)}`);
  console.log('| layout | rows KB (blocks + paths) | `open` KB | rows + `open` KB | Δ against today KB |');
  console.log('|---|---:|---:|---:|---:|');
  const line = (name: string, rowsOf: (x: (typeof perQuestion)[number]) => number, openKb: number) => {
    const total = col((x) => rowsOf(x) + openKb);
    const delta = col((x) => rowsOf(x) + openKb - x.today - baseline);
    console.log(`| ${name} | ${stats(col(rowsOf))} | ${kb(openKb)} | ${stats(total)} | ${stats(delta)} |`);
  };
  line('today', (x) => x.today, baseline);
  line('A', (x) => x.a, bestA.bytes);
  line('B', (x) => x.b, openB);
  console.log(
    `\n### C: BM25 lengths in the postings (${(bundleBits / entriesTotal).toFixed(2)} bits an entry at their ` +
      `order-0 entropy over the bundle's entries)\n` +
      `- posting entries a question decodes: ${stats(col((x) => x.postings))} (thousands: p50 / max / mean)\n` +
      `- \`open\` ${kb(baseline)} → ${kb(openC)} KB; the postings a question reads grow by ` +
      `${stats(col((x) => x.lengthBytes))} KB; Δ against today ` +
      `${stats(col((x) => openC - baseline + x.lengthBytes))} KB\n` +
      `- the bundle's ${entriesTotal.toLocaleString('en-US')} posting entries grow the postings by ` +
      `${kb(bundleBits / 8)} KB\n` +
      `- B and C together: \`open\` ${kb(baseline)} → ${kb(openBC)} KB; Δ against today ` +
      `${stats(col((x) => x.b - x.today + openBC - baseline + x.lengthBytes))} KB`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
