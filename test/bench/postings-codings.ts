// Codings of the words' postings (issue 47, round twenty-three, wip/post23). A question reads, before its walk, the
// postings of its words (the `postings` section: a list a word and field, found by the `terms` dictionary), as varint
// pairs (chunk gap, count) today. This bench measures, on a bundle of any version, the section's size under each
// candidate coding and what the first pages of the bundle's cold questions (the Ask view's first page, each on a fresh
// library, as question-bytes.ts --first-page asks them) read of it: the lists they read are recorded (SectionReader's
// postingsOf), placed in each coding (the lists in the section's order, each its coded size) and rounded out to the
// section's blocks, distinct blocks a question. Candidates (each list self-delimiting: its count, then its postings):
// - `today`: varint pairs, the list's bytes as stored;
// - `vbyte+nibble`: varint gaps, counts as 4-bit codes (0: 16 or more, the rest as a varint), as version 12's lists;
// - `rice(df)+gamma`: gaps as Rice codes of a parameter from the list's count and the chunk count (nothing stored),
//   counts as Elias gamma codes;
// - `ef+gamma`: chunk ids in Elias–Fano (l = ⌊log2(n / df)⌋), counts as Elias gamma codes;
// - `rice+rice (stored)`: gaps and counts less 1 each as Rice codes of the parameter that makes the list shortest
//   (gaps 0–31, counts 0–7), stored in a byte after the count;
// - `rice/exp-golomb (stored)`: what postingsCoding.ts writes (version 14): the count and codes in one varint, each field's code
//   chosen among Rice and Exp-Golomb codes (gaps Rice 0–23 or Exp-Golomb 0–7, counts Rice 0–3 or Exp-Golomb 0–3).
//   Its sizes are the encoder's own on the lists the questions read (checked against codedPostingsBytes), and its
//   decode time is measured against today's there.
// Bytes and blocks do not depend on load; the decode times do (print the load beside them).
// Usage: node --import tsx test/bench/postings-codings.ts <x.bundle> <questions.jsonl> [--n 25]
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import process from 'node:process';
import { decodeJson } from '../../src/core/paged/blockStore.ts';
import { ByteReader } from '../../src/core/paged/bytes.ts';
import type { PagesDirectory, TermEntry } from '../../src/core/paged/format.ts';
import { openPagedBundle, readManifestByRanges } from '../../src/core/paged/index.ts';
import {
  codedPostingsBytes,
  decodePostings,
  encodedPostingsBytes,
} from '../../src/core/paged/postingsCoding.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { SectionReader } from '../../src/core/paged/sectionReader.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { arg } from './lib/args.ts';
import { askAsBench, questionsOf, spread } from './lib/questions.ts';

const USAGE = 'usage: node --import tsx test/bench/postings-codings.ts <x.bundle> <questions.jsonl> [--n 25]';
const [path, questionsPath] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!path || !questionsPath) {
  console.error(USAGE);
  process.exit(2);
}
const n = Number(arg('--n', '25'));

// The lists a question reads: every (offset, length) the reader asks the postings of (a bench-only patch).
let wanted: Set<number> | undefined;
const proto = SectionReader.prototype as unknown as {
  postingsOf(term: string, entry: TermEntry, heading: boolean): unknown;
};
const postingsOf = proto.postingsOf;
proto.postingsOf = function (this: unknown, term: string, entry: TermEntry, heading: boolean) {
  const length = heading ? entry[4] : entry[2];
  if (length > 0) wanted?.add(heading ? entry[3] : entry[1]);
  return postingsOf.call(this, term, entry, heading);
};

const kb = (bytes: number): string => (bytes / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 });
const quantile = (values: number[], q: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const mean = (v: number[]): number => v.reduce((a, b) => a + b, 0) / v.length;
const varintBytes = (v: number): number =>
  v < 128 ? 1 : v < 16384 ? 2 : v < 2097152 ? 3 : v < 268435456 ? 4 : 5;
const log2floor = (v: number): number => 31 - Math.clz32(v);
const gammaBits = (v: number): number => 2 * log2floor(v) + 1;

const data = new Uint8Array(await readFile(path));
const manifest = await readManifestByRanges(new MemoryRangeSource(data, path));
const pages = manifest?.parts.find((p) => p.name === 'pages.bin');
if (!pages || pages.offset === undefined) throw new Error(`${path}: no pages.bin part`);
const d = pages.meta as unknown as PagesDirectory;
const N = d.chunkCount;
const analyzer = createTermAnalyzer();
const first = await openPagedBundle(new MemoryRangeSource(data, path), analyzer);
if (!first) throw new Error(`${path}: no pages`);
const open = first.library.reader.open;
const [termsAt] = d.sections.terms;
const [postAt, postLength] = d.sections.postings;
const post = data.subarray(pages.offset + postAt, pages.offset + postAt + postLength);
const B = d.sectionBlocks?.postings ?? d.blockSize;

// Every list's offset in the section, in the section's order.
const offsets: number[] = [];
for (let g = 0; g + 1 < open.termGroups.length; g++) {
  const at = pages.offset + termsAt + open.termGroups[g];
  const entries = decodeJson(
    data.subarray(at, pages.offset + termsAt + open.termGroups[g + 1]),
  ) as TermEntry[];
  for (const e of entries) {
    if (e[2] > 0) offsets.push(e[1]);
    if (e[4] > 0) offsets.push(e[3]);
  }
}
offsets.sort((a, b) => a - b);
const lists = offsets.length;
const indexOf = new Map<number, number>();
offsets.forEach((o, i) => indexOf.set(o, i));
const endOf = (i: number): number => (i + 1 < lists ? offsets[i + 1] : postLength);

// One pass over every list: each candidate's size of it.
const names = [
  'today',
  'vbyte+nibble',
  'rice(df)+gamma',
  'ef+gamma',
  'rice+rice (stored)',
  'rice/exp-golomb (stored): version 14',
];
const sizes = names.map(() => new Float64Array(lists));
let postingsTotal = 0;
let ones = 0;
const gaps: number[] = [];
const less: number[] = [];
const riceBits = (values: number[], maxK: number): number => {
  let best = Infinity;
  for (let k = 0; k <= maxK; k++) {
    let bits = values.length * (1 + k);
    for (let i = 0; i < values.length && bits < best; i++) bits += Math.floor(values[i] / 2 ** k);
    best = Math.min(best, bits);
  }
  return best;
};
for (let i = 0; i < lists; i++) {
  const r = new ByteReader(post.subarray(offsets[i], endOf(i)));
  const end = endOf(i) - offsets[i];
  gaps.length = 0;
  less.length = 0;
  let chunk = -1;
  let nibbleEscapes = 0;
  let vbyteGaps = 0;
  let gammaTf = 0;
  while (r.at < end) {
    const g = r.varint();
    const tf = r.varint();
    const gap = chunk < 0 ? g : g - 1;
    chunk = chunk < 0 ? g : chunk + g;
    gaps.push(gap);
    less.push(tf - 1);
    vbyteGaps += varintBytes(g);
    if (tf >= 16) nibbleEscapes += varintBytes(tf - 16);
    gammaTf += gammaBits(tf);
    if (tf === 1) ones++;
  }
  const df = gaps.length;
  postingsTotal += df;
  sizes[0][i] = end;
  sizes[1][i] = varintBytes(df) + vbyteGaps + Math.ceil(df / 2) + nibbleEscapes;
  const k = Math.max(0, log2floor(Math.max(1, Math.floor((0.69 * (N - df)) / df))));
  let rb = 0;
  for (const g of gaps) rb += Math.floor(g / 2 ** k) + 1 + k;
  sizes[2][i] = varintBytes(df) + Math.ceil((rb + gammaTf) / 8);
  const l = Math.max(0, log2floor(Math.max(1, Math.floor(N / df))));
  sizes[3][i] = varintBytes(df) + Math.ceil((df * l + df + Math.ceil(N / 2 ** l) + gammaTf) / 8);
  sizes[4][i] = varintBytes(df) + 1 + Math.ceil((riceBits(gaps, 31) + riceBits(less, 7)) / 8);
  sizes[5][i] = codedPostingsBytes(Float64Array.from(gaps), Float64Array.from(less));
}

// The first pages' lists, question by question (cold: a fresh library each).
const questions = await questionsOf(questionsPath);
const picked = spread(questions, n);
const reads: number[][] = [];
for (const q of picked) {
  const opened = await openPagedBundle(new MemoryRangeSource(data, path), analyzer);
  if (!opened) throw new Error(`${path}: no pages`);
  wanted = new Set();
  await askAsBench(opened.library, q, true);
  reads.push([...wanted].map((o) => indexOf.get(o)!).sort((a, b) => a - b));
  wanted = undefined;
}

/** A list of today's postings (varint pairs: chunk delta, count), decoded as sectionReader decodes them. */
function varintPairs(bytes: Uint8Array): { chunks: number[]; freqs: number[] } {
  const rd = new ByteReader(bytes);
  const chunks: number[] = [];
  const freqs: number[] = [];
  let k = 0;
  while (rd.at < bytes.length) {
    k += rd.varint();
    chunks.push(k);
    freqs.push(rd.varint());
  }
  return { chunks, freqs };
}

// Decode time of the lists a question reads: today's varint pairs (as sectionReader decodes them) and version 14's
// (decodePostings), each list encoded once first; the sizes the encoder makes checked against the model's.
const decodeMs: number[][] = [[], []];
let postingsRead = 0;
for (const r of reads) {
  const coded = r.map((i) => {
    const bytes = post.subarray(offsets[i], endOf(i));
    const { chunks, freqs } = varintPairs(bytes);
    const enc = encodedPostingsBytes(chunks, freqs);
    if (enc.length !== sizes[5][i])
      throw new Error(`list ${i}: encoded ${enc.length} bytes, modelled ${sizes[5][i]}`);
    return [bytes, enc] as const;
  });
  for (let rep = 0; rep < 2; rep++) {
    let t = performance.now();
    for (const [bytes] of coded) {
      const { chunks, freqs } = varintPairs(bytes);
      Uint32Array.from(chunks);
      Uint16Array.from(freqs);
      if (rep === 1) postingsRead += chunks.length;
    }
    const today = performance.now() - t;
    t = performance.now();
    for (const [, enc] of coded) decodePostings(enc, N);
    const v14 = performance.now() - t;
    if (rep === 1) {
      decodeMs[0].push(today);
      decodeMs[1].push(v14);
    }
  }
}

console.log(
  `${path}: pages version ${d.version}, ${N} chunks, ${lists} posting lists, ${postingsTotal} postings ` +
    `(counts of 1: ${((100 * ones) / postingsTotal).toFixed(1)} %), postings ${kb(postLength)} KB in blocks of ${B}; ` +
    `${picked.length} cold first pages read p50 ${quantile(
      reads.map((r) => r.length),
      0.5,
    )} lists, ${Math.round(postingsRead / picked.length)} postings a question (mean)`,
);
console.log(
  `decode of a question's lists (ms, p50 / mean / max, load ${loadavg()[0].toFixed(1)}): today ` +
    `${quantile(decodeMs[0], 0.5).toFixed(1)} / ${mean(decodeMs[0]).toFixed(1)} / ${Math.max(...decodeMs[0]).toFixed(1)}, ` +
    `version 14 ${quantile(decodeMs[1], 0.5).toFixed(1)} / ${mean(decodeMs[1]).toFixed(1)} / ${Math.max(...decodeMs[1]).toFixed(1)}`,
);
console.log(
  '\n| coding | postings section KB | bits a posting | read KB a first page p50 / mean / max | Δ read KB (mean) |',
);
console.log('| --- | ---: | ---: | ---: | ---: |');
let todayMean = 0;
names.forEach((name, c) => {
  const at = new Float64Array(lists + 1);
  for (let i = 0; i < lists; i++) at[i + 1] = at[i] + sizes[c][i];
  const read = reads.map((r) => {
    const set = new Set<number>();
    for (const i of r) for (let b = Math.floor(at[i] / B); b * B < at[i + 1]; b++) set.add(b);
    return set.size * B;
  });
  if (c === 0) todayMean = mean(read);
  console.log(
    `| ${name} | ${kb(at[lists])} | ${((8 * at[lists]) / postingsTotal).toFixed(2)} | ` +
      `${kb(quantile(read, 0.5))} / ${kb(mean(read))} / ${kb(Math.max(...read))} | ${kb(mean(read) - todayMean)} |`,
  );
});
