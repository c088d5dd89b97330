// Codings of the concept lists whose offsets need no `listSizes` in `open` (issue 47, round twenty-one, wip/lists21).
// `open` is read whole when a link's library opens; in the large layout it holds `listSizes` (one varint a concept),
// prefix-summed into every list's offset. This bench measures, on a bundle of the large layout, codings of the `lists`
// section whose lists can be found from what `open` holds without a size a concept:
// - `today`: the lists as stored (varint gaps, varint counts) at the offsets `listSizes` gives;
// - `ef+tf<w>`: chunk ids in Elias–Fano (df × l + df + ⌈n / 2^l⌉ bits, l = ⌊log2(n / df)⌋: a size fixed by df and
//   n) and each count in w bits (0: an escape to an area elsewhere, which a list read must find: another round);
// - `checkpoints K`: one offset every K concepts in `open`, the lists as today (self-delimiting given df): a read
//   takes the K lists' bytes from its checkpoint to the next;
// - `block starts B`: lists as today packed into blocks of B bytes so that a list of at most B bytes never crosses a
//   block's end (the rest of the block left as zero bytes) and a longer one starts a block; `open` holds, for every
//   block, how many lists start in it (as varints, or as residuals of the count that the lists' predicted sizes,
//   2·df + listBytesPerBit × gap bits as version 11 predicts them, would fit from the block's first list); a read
//   takes the blocks from its list's block to the block before the next list's (one block for most lists).
// For each: the `lists` section's bytes, `open`'s bytes (the stored value with `listSizes` replaced by what the
// coding keeps there, gzip'd by node's zlib at its default level as CompressionStream writes `open`), and what the
// first pages of the bundle's cold questions (the Ask view's first page, each on a fresh library, as
// question-bytes.ts --first-page asks them) read of the lists: the lists they read are recorded (SectionReader's
// chunksOf), then placed in each coding and rounded out to the section's blocks (128 bytes at 100 MiB), distinct
// blocks a question. Bytes and blocks do not depend on load.
// Usage: node --import tsx test/bench/list-codings.ts <x.bundle> <questions.jsonl> [--n 25]
import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { gzipSync } from 'node:zlib';
import { decodeStructured, encodeStructured, gunzip } from '../../src/core/bundle/index.ts';
import { gzipSize } from '../../src/core/paged/blockStore.ts';
import { expandOpen, residualsOf } from '../../src/core/paged/compactOpen.ts';
import { blockLayoutOf, placeRowBlocks, type PagesDirectory } from '../../src/core/paged/format.ts';
import { openPagedBundle, readManifestByRanges } from '../../src/core/paged/index.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { SectionReader } from '../../src/core/paged/sectionReader.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { arg } from './lib/args.ts';
import { varints, zigzag } from './lib/openCandidates.ts';
import { askAsBench, questionsOf, spread } from './lib/questions.ts';

const USAGE = 'usage: node --import tsx test/bench/list-codings.ts <x.bundle> <questions.jsonl> [--n 25]';
const [path, questionsPath] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!path || !questionsPath) {
  console.error(USAGE);
  process.exit(2);
}
const n = Number(arg('--n', '25'));

// The lists a question reads: every concept whose list the reader is asked for (a bench-only patch).
let wanted: Set<number> | undefined;
const proto = SectionReader.prototype as unknown as { chunksOf(c: number): unknown };
const chunksOf = proto.chunksOf;
proto.chunksOf = function (this: unknown, c: number) {
  wanted?.add(c);
  return chunksOf.call(this, c);
};

const kb = (bytes: number): string => (bytes / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 });
const quantile = (values: number[], q: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];

const data = new Uint8Array(await readFile(path));
const manifest = await readManifestByRanges(new MemoryRangeSource(data, path));
const pages = manifest?.parts.find((p) => p.name === 'pages.bin');
if (!pages || pages.offset === undefined) throw new Error(`${path}: no pages.bin part`);
const d = pages.meta as unknown as PagesDirectory;
if (d.listsInRows) throw new Error(`${path}: keeps its lists in its rows (no lists section, no listSizes)`);
if (d.listCoding)
  throw new Error(`${path}: its lists are packed already (version 12): measure a version 11 bundle`);
const [openAt, openLength] = d.sections.open;
const openSection = data.subarray(pages.offset + openAt, pages.offset + openAt + openLength);
const stored = decodeStructured(await gunzip(openSection, gzipSize(openSection)), 'open') as Record<
  string,
  unknown
>;
const open = expandOpen(stored as never, d.version, d.chunkCount, false, residualsOf(d));
const { df, listOffsets } = open;
const nc = df.length;
const chunks = d.chunkCount;
const [listsAt, listsLength] = d.sections.lists;
const lists = data.subarray(pages.offset + listsAt, pages.offset + listsAt + listsLength);
const pagesBytes = Object.values(d.sections).reduce((s, [, l]) => s + l, 0);
const layout = blockLayoutOf(d, pagesBytes);
const B = d.sectionBlocks?.lists ?? d.blockSize;
const size = (c: number): number => listOffsets[c + 1] - listOffsets[c];

// Each list's counts (tf), read back from the section as the reader does: df varint gaps, then df varint counts.
function countsOf(c: number): number[] {
  const bytes = lists.subarray(listOffsets[c], listOffsets[c + 1]);
  let at = 0;
  const next = (): number => {
    let v = 0;
    let scale = 1;
    for (;;) {
      const byte = bytes[at++];
      v += (byte & 127) * scale;
      if (byte < 128) return v;
      scale *= 128;
    }
  };
  for (let i = 0; i < df[c]; i++) next();
  const out: number[] = [];
  for (let i = 0; i < df[c]; i++) out.push(next());
  if (at !== bytes.length) throw new Error(`concept ${c}: list of ${bytes.length} bytes, read ${at}`);
  return out;
}

// The first pages' lists, question by question (cold: a fresh library each).
const questions = await questionsOf(questionsPath);
const picked = spread(questions, n);
const analyzer = createTermAnalyzer();
const reads: number[][] = [];
for (const q of picked) {
  const opened = await openPagedBundle(new MemoryRangeSource(data, path), analyzer);
  if (!opened) throw new Error(`${path}: no pages`);
  const library = opened.library;
  if (!layout.placed) placeRowBlocks(path, d, layout, library.reader.open.rowGroups);
  wanted = new Set();
  await askAsBench(library, q, true);
  reads.push([...wanted].sort((a, b) => a - b));
  wanted = undefined;
}
const listsRead = reads.map((r) => r.length);
console.log(
  `${path}: pages version ${d.version}, ${chunks} chunks, ${nc} concepts, lists ${listsLength} bytes in blocks of ${B}; ` +
    `${picked.length} cold first pages read p50 ${quantile(listsRead, 0.5)} / max ${Math.max(...listsRead)} lists`,
);

/** `open` gzip'd with `listSizes` replaced by `extra` (undefined: dropped). */
function openBytes(extra: Record<string, unknown>): number {
  const { listSizes: _sizes, ...rest } = stored;
  return gzipSync(encodeStructured({ ...rest, ...extra })).length;
}

interface Row {
  name: string;
  section: number;
  open: number;
  /** Per question: the distinct blocks its lists take, and how many of its lists need another read first. */
  blocks: number[];
  rounds: number[];
}
const rows: Row[] = [];
const blocksRead = (ranges: (c: number) => [number, number][], block = B): number[] =>
  reads.map((r) => {
    const set = new Set<number>();
    for (const c of r)
      for (const [s, e] of ranges(c)) for (let b = Math.floor(s / block); b * block < e; b++) set.add(b);
    return set.size;
  });

// Today.
rows.push({
  name: 'today (listSizes in open)',
  section: listsLength,
  open: openLength,
  blocks: blocksRead((c) => [[listOffsets[c], listOffsets[c + 1]]]),
  rounds: reads.map(() => 0),
});
rows.push({
  name: '(open without listSizes: the floor)',
  section: listsLength,
  open: openBytes({}),
  blocks: reads.map(() => 0),
  rounds: reads.map(() => 0),
});

// Elias–Fano chunk ids and counts in w bits with an escape.
const tfHistogram = new Map<number, number>();
const tfs: number[][] = [];
for (let c = 0; c < nc; c++) {
  const t = countsOf(c);
  tfs.push(t);
  for (const v of t) tfHistogram.set(v, (tfHistogram.get(v) ?? 0) + 1);
}
const tfTotal = [...tfHistogram.values()].reduce((a, b) => a + b, 0);
console.log(
  `counts (tf): ${tfTotal} entries; ` +
    [1, 2, 3, 4, 7, 15]
      .map((v) => {
        let below = 0;
        for (const [k, m] of tfHistogram) if (k <= v) below += m;
        return `≤ ${v} ${((100 * below) / tfTotal).toFixed(2)} %`;
      })
      .join(', ') +
    `, max ${Math.max(...tfHistogram.keys())}`,
);
const efBits = (f: number): number => {
  const l = Math.max(0, Math.floor(Math.log2(chunks / f)));
  return f * l + f + Math.ceil(chunks / 2 ** l);
};
for (const w of [1, 2, 3, 4]) {
  const limit = 2 ** w - 1; // counts 1 .. limit kept; above: the escape (0) and the count elsewhere
  const offsets = new Float64Array(nc + 1);
  let escapedLists = 0;
  let overflow = 0;
  const escaped = new Uint8Array(nc);
  for (let c = 0; c < nc; c++) {
    offsets[c + 1] = offsets[c] + Math.ceil((efBits(df[c]) + w * df[c]) / 8);
    const big = tfs[c].filter((v) => v > limit);
    if (big.length > 0) {
      escaped[c] = 1;
      escapedLists++;
      overflow += varints(big).length;
    }
  }
  rows.push({
    name: `ef+tf${w} (${escapedLists} lists escape, +${kb(overflow)} KB overflow)`,
    section: offsets[nc] + overflow,
    open: openBytes({}),
    blocks: blocksRead((c) => [[offsets[c], offsets[c + 1]]]),
    rounds: reads.map((r) => r.filter((c) => escaped[c]).length),
  });
}

// Checkpoints: an offset every K concepts; a read takes its checkpoint's K lists.
for (const K of [2, 4, 8, 16, 64]) {
  const groups = Math.ceil(nc / K);
  const sizes = new Float64Array(groups);
  for (let g = 0; g < groups; g++) sizes[g] = listOffsets[Math.min(nc, (g + 1) * K)] - listOffsets[g * K];
  rows.push({
    name: `checkpoints ${K}`,
    section: listsLength,
    open: openBytes({ listCheckpoints: varints(sizes) }),
    blocks: blocksRead((c) => {
      const g = Math.floor(c / K);
      return [[listOffsets[g * K], listOffsets[Math.min(nc, (g + 1) * K)]]];
    }),
    rounds: reads.map(() => 0),
  });
}

// Block starts: lists packed so that a block's first byte starts a list (a list that does not fit in what is left
// of a block starts the next; a list longer than a block starts one and the list after it starts the block after its
// end). `sizeOf` gives each list's bytes in the coding packed: today's, or with its counts as 4-bit codes (0: an
// escape, the count less 16 as a varint after the codes).
const slope = (d as unknown as { openCoding?: { listBytesPerBit: number } }).openCoding?.listBytesPerBit ?? 0;
const gapBits = (f: number): number => f * Math.max(0, Math.clz32(f) - Math.clz32(chunks));
const nibbleSize = (c: number): number => {
  let escapes = 0;
  for (const v of tfs[c]) if (v > 15) escapes += varints([v - 16]).length;
  return size(c) - df[c] + Math.ceil(df[c] / 2) + escapes;
};
for (const [label, sizeOf, block] of [
  ['today', size, B],
  ['today', size, 2 * B],
  ['counts in 4 bits', nibbleSize, B],
  ['counts in 4 bits', nibbleSize, 2 * B],
] as const) {
  const start = new Float64Array(nc + 1);
  let at = 0;
  let padding = 0;
  const pad = (): void => {
    if (at % block) {
      padding += block - (at % block);
      at += block - (at % block);
    }
  };
  for (let c = 0; c < nc; c++) {
    const s = sizeOf(c);
    if ((at % block) + s > block) pad();
    start[c] = at;
    at += s;
    if (s > block) pad();
  }
  pad();
  start[nc] = at;
  const blockCount = at / block;
  const counts = new Float64Array(blockCount);
  for (let c = 0; c < nc; c++) counts[Math.floor(start[c] / block)]++;
  // The count the predicted sizes (version 11's, of today's lists) would fit from the block's first list.
  const residuals = new Float64Array(blockCount);
  let first = 0;
  const predictedSize = (c: number): number =>
    (sizeOf === size ? 2 * df[c] : df[c] + Math.ceil(df[c] / 2)) +
    Math.floor((gapBits(df[c]) * slope) / 65536);
  for (let b = 0; b < blockCount; b++) {
    let fit = 0;
    let used = 0;
    while (first + fit < nc && counts[b] > 0) {
      const p = predictedSize(first + fit);
      if (fit > 0 && used + p > block) break;
      used += p;
      fit++;
      if (p > block) break;
    }
    residuals[b] = zigzag(counts[b] - fit);
    first += counts[b];
  }
  const ranges = (c: number): [number, number][] => {
    const b = Math.floor(start[c] / block);
    const after = c + 1 < nc ? Math.floor(start[c + 1] / block) : blockCount;
    return [[b * block, Math.max(b + 1, after) * block]];
  };
  const name = `block starts ${block}, ${label} (section +padding ${kb(padding)} KB; ${blockCount} blocks, hashes ${kb(16 * (blockCount - Math.ceil(listsLength / B)))} KB more)`;
  rows.push({
    name: `${name}, counts`,
    section: at,
    open: openBytes({ listBlockStarts: varints(counts) }),
    blocks: blocksRead(ranges, B),
    rounds: reads.map(() => 0),
  });
  rows.push({
    name: `${name}, residuals`,
    section: at,
    open: openBytes({ listBlockStarts: varints(residuals) }),
    blocks: blocksRead(ranges, B),
    rounds: reads.map(() => 0),
  });
}

const today = rows[0];
const mean = (v: number[]): number => v.reduce((a, b) => a + b, 0) / v.length;
console.log(
  '\n| coding | lists section KB | open B | open Δ KB | lists read KB a first page p50 / mean / max | Δ read KB (mean) | Δ open + read KB (mean) | lists needing another round (mean) |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  const read = r.blocks.map((b) => b * B);
  const dOpen = r.open - today.open;
  const dRead = mean(read) - mean(today.blocks.map((b) => b * B));
  console.log(
    `| ${r.name} | ${kb(r.section)} | ${r.open.toLocaleString('en-US')} | ${kb(dOpen)} | ` +
      `${kb(quantile(read, 0.5))} / ${kb(mean(read))} / ${kb(Math.max(...read))} | ${kb(dRead)} | ` +
      `${kb(dOpen + dRead)} | ${mean(r.rounds).toFixed(1)} |`,
  );
}
