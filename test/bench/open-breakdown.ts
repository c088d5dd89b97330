// What each array of a pages part's `open` section costs (issue 47, round twenty): every question reads `open` whole
// at opening, so its bytes are the first page's floor. For each bundle it prints the `open` section's bytes, then per
// array of the stored value (as the bundle holds it: varints, residuals, codes) its stored bytes and its bytes gzip'd
// alone (node's zlib at its default level, as CompressionStream writes `open`). The arrays gzip'd alone sum to more
// than the section (one gzip stream shares its window and header), but the split says where `open`'s bytes go.
// With --candidates it also prints, gzip'd alone, codings of the same values that `open` could store instead
// (value for value: each one gives back the array exactly), beside the array as stored.
// With more than one bundle it ends with one table of every array gzip'd alone (KB), a column a bundle.
// Usage: node --import tsx test/bench/open-breakdown.ts <x.bundle> [...] [--candidates]
import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { gzipSync } from 'node:zlib';
import { decodeStructured, gunzip } from '../../src/core/bundle/index.ts';
import { gzipSize } from '../../src/core/paged/blockStore.ts';
import { expandOpen, residualsOf } from '../../src/core/paged/compactOpen.ts';
import type { OpenTables, PagesDirectory } from '../../src/core/paged/format.ts';
import { readManifestByRanges } from '../../src/core/paged/index.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { residualsOver, slopeOf, varints, zigzag } from './lib/openCandidates.ts';

const USAGE = 'usage: node --import tsx test/bench/open-breakdown.ts <x.bundle> [...] [--candidates]';
const paths = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const candidates = process.argv.includes('--candidates');
if (paths.length === 0) {
  console.error(USAGE);
  process.exit(2);
}

const gz = (bytes: Uint8Array): number => gzipSync(bytes).length;
const kb = (bytes: number): string => (bytes / 1000).toFixed(1);

/** The bytes of one stored array: a typed array's own bytes, else its JSON (the dictionaries' first keys). */
function storedBytes(value: unknown): Uint8Array {
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return new TextEncoder().encode(JSON.stringify(value));
}

/** Least-squares slope through 0 of y over x, in 65,536ths (as version 10's tokensPerLength). */

/** Codings of the same values `open` could store instead, each gzip'd alone (KB), beside the array as stored. */
function candidateRows(open: OpenTables, d: PagesDirectory): [string, number][] {
  const n = d.chunkCount;
  const rows: [string, number][] = [];
  // conceptCounts: a slope over text length (round nineteen measured it), and over tokens.
  const cc = open.conceptCounts;
  // Version 16's rowsDelimited: no counts in `open` to re-code.
  if (!cc) return rows;
  rows.push(['conceptCounts as varints', gz(varints(cc))]);
  rows.push([
    'conceptCounts − slope × textLength',
    gz(varints(residualsOver(open.textLengths, cc, slopeOf(open.textLengths, cc)))),
  ]);
  rows.push([
    'conceptCounts − slope × tokens',
    gz(varints(residualsOver(open.tokens, cc, slopeOf(open.tokens, cc)))),
  ]);
  // documentChunks: one size a run of chunks of one document (a document's chunks are consecutive).
  const dc = open.documentChunks;
  const runs: number[] = [];
  let runsExact = true;
  for (let k = 0; k < n;) {
    const size = dc[k];
    if (size < 1 || k + size > n) {
      runsExact = false;
      break;
    }
    for (let j = k; j < k + size; j++) if (dc[j] !== size) runsExact = false;
    runs.push(size);
    k += size;
  }
  rows.push(['documentChunks as varints', gz(varints(dc))]);
  rows.push([`documentChunks one a document${runsExact ? '' : ' (NOT runs)'}`, gz(varints(runs))]);
  if (open.titleChunks) {
    const tc = open.titleChunks;
    rows.push(['titleChunks as varints', gz(varints(tc))]);
    rows.push(['titleChunks − documentChunks', gz(varints(Array.from(tc, (v, k) => zigzag(v - dc[k]))))]);
    // One a document: the title's chunks at the document's first chunk (each run's chunks share the value).
    let tcRunsExact = runsExact;
    const tcRuns: number[] = [];
    for (let k = 0, r = 0; runsExact && r < runs.length; k += runs[r++]) {
      for (let j = k; j < k + runs[r]; j++) if (tc[j] !== tc[k]) tcRunsExact = false;
      tcRuns.push(zigzag(tc[k] - runs[r]));
    }
    if (runsExact)
      rows.push([
        `titleChunks − document's, one a document${tcRunsExact ? '' : ' (NOT runs)'}`,
        gz(varints(tcRuns)),
      ]);
  }
  // headingLengths: the chunks of one section share a heading path.
  const hl = open.headingLengths;
  rows.push(['headingLengths as varints', gz(varints(hl))]);
  rows.push([
    'headingLengths − the chunk before',
    gz(varints(Array.from(hl, (v, k) => zigzag(v - (k ? hl[k - 1] : 0))))),
  ]);
  rows.push(['textLengths as varints', gz(varints(open.textLengths))]);
  // Per concept: df, degree codes, list sizes, the IDF's df.
  const df = open.df;
  const nc = df.length;
  const codes = open.degreeCodes!;
  const multi: number[] = [];
  for (let c = 0; c < nc; c++) if (df[c] !== 1) multi.push(c);
  rows.push(['df as varints', gz(varints(df))]);
  rows.push(['df − 1', gz(varints(Array.from(df, (v) => v - 1)))]);
  const storedCodes = Uint8Array.from(multi, (c) => codes[c]);
  rows.push(['degreeCodes (df ≠ 1) as stored', gz(storedCodes)]);
  // A code predicted from the df: the median code of the concepts of each df (a table by df, up to 64, then by octave).
  const bucket = (v: number): number => (v <= 64 ? v : 64 + Math.floor(Math.log2(v)));
  const byBucket = new Map<number, number[]>();
  for (const c of multi) {
    const b = bucket(df[c]);
    if (!byBucket.has(b)) byBucket.set(b, []);
    byBucket.get(b)!.push(codes[c]);
  }
  const median = new Map<number, number>();
  for (const [b, list] of byBucket) median.set(b, list.sort((x, y) => x - y)[list.length >> 1]);
  const codeRes = Uint8Array.from(multi, (c) => (codes[c] - median.get(bucket(df[c]))! + 256) & 255);
  rows.push([`degreeCodes − median code of its df (table ${median.size} codes)`, gz(codeRes)]);
  rows.push(['degreeCodes then df (2 streams, one gzip)', gz(concat(storedCodes, varints(df)))]);
  // Concepts numbered by df (descending; ties in today's order, which is the terms' order) instead of by name (round
  // twenty-three, measured, not built): df becomes runs of one value, dfOnes a count, the degree codes follow df's
  // order; the concept dictionary would then hold each term's id (its cost below, outside `open`), and the lists and
  // rows would be renumbered (not measured here).
  const byDf = Array.from({ length: nc }, (_, c) => c).sort((a, b) => df[b] - df[a] || a - b);
  const dfRuns: number[] = [];
  for (let i = 0; i < nc;) {
    let j = i;
    while (j < nc && df[byDf[j]] === df[byDf[i]]) j++;
    dfRuns.push(df[byDf[i]], j - i);
    i = j;
  }
  rows.push([`df, concepts numbered by df: ${dfRuns.length / 2} runs (value, count)`, gz(varints(dfRuns))]);
  rows.push([
    'degreeCodes (df ≠ 1), concepts numbered by df',
    gz(
      Uint8Array.from(
        byDf.filter((c) => df[c] !== 1),
        (c) => codes[c],
      ),
    ),
  ]);
  const newId = new Uint32Array(nc);
  byDf.forEach((c, i) => (newId[c] = i));
  rows.push(["(the dictionary) every term's id by df, in name order, as varints", gz(varints(newId))]);
  // listSizes: each list's bytes beyond least·df, in version 9's order, against a slope over df.
  const least = d.version >= 3 ? 2 : 6;
  if (!d.listsInRows) {
    const extra = Array.from(
      { length: nc },
      (_, c) => open.listOffsets[c + 1] - open.listOffsets[c] - least * df[c],
    );
    const order = [...multi, ...Array.from({ length: nc }, (_, c) => c).filter((c) => df[c] === 1)];
    const ordered = order.map((c) => extra[c]);
    const dfOrdered = order.map((c) => df[c]);
    rows.push(['listSizes as stored (v9 order)', gz(varints(ordered))]);
    const slope = slopeOf(dfOrdered, ordered);
    rows.push([
      `listSizes − slope × df (${(slope / 65536).toFixed(3)})`,
      gz(varints(residualsOver(dfOrdered, ordered, slope))),
    ]);
    const lslope = slopeOf(
      dfOrdered.map((v) => v * Math.log2(n / v)),
      ordered,
    );
    rows.push([
      `listSizes − slope × df·log2(n/df) (${(lslope / 65536).toFixed(3)})`,
      gz(
        varints(
          residualsOver(
            dfOrdered.map((v) => Math.round(v * Math.log2(n / v))),
            ordered,
            lslope,
          ),
        ),
      ),
    ]);
    const singles = order.filter((c) => df[c] === 1).map((c) => extra[c]);
    rows.push(['listSizes of df-1 concepts alone', gz(varints(singles))]);
    rows.push(['listSizes of the others alone', gz(varints(multi.map((c) => extra[c])))]);
  }
  // Group sizes: records against their chunks' tokens, rows as stored.
  const rg = open.recordGroups;
  const per = d.groups.records;
  const recordSizes = Array.from({ length: rg.length - 1 }, (_, g) => rg[g + 1] - rg[g]);
  const groupTokens = recordSizes.map((_, g) => {
    let s = 0;
    for (let k = g * per; k < Math.min(n, (g + 1) * per); k++) s += open.tokens[k];
    return s;
  });
  const groupText = recordSizes.map((_, g) => {
    let s = 0;
    for (let k = g * per; k < Math.min(n, (g + 1) * per); k++) s += open.textLengths[k];
    return s;
  });
  rows.push(['recordGroups sizes as varints', gz(varints(recordSizes))]);
  const rs = slopeOf(groupTokens, recordSizes);
  rows.push([
    `recordGroups − slope × tokens (${(rs / 65536).toFixed(3)})`,
    gz(varints(residualsOver(groupTokens, recordSizes, rs))),
  ]);
  const rt = slopeOf(groupText, recordSizes);
  rows.push([
    `recordGroups − slope × textLengths (${(rt / 65536).toFixed(3)})`,
    gz(varints(residualsOver(groupText, recordSizes, rt))),
  ]);
  return rows;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Per bundle: each array's bytes gzip'd alone, and the section's. */
const columns: { path: string; alone: Map<string, number>; open: number }[] = [];
for (const path of paths) {
  const data = new Uint8Array(await readFile(path));
  const manifest = await readManifestByRanges(new MemoryRangeSource(data, path));
  const pages = manifest?.parts.find((p) => p.name === 'pages.bin');
  if (!pages || pages.offset === undefined) throw new Error(`${path}: no pages.bin part`);
  const d = pages.meta as unknown as PagesDirectory;
  const [at, length] = d.sections.open;
  const section = data.subarray(pages.offset + at, pages.offset + at + length);
  const stored = decodeStructured(await gunzip(section, gzipSize(section)), 'open') as Record<
    string,
    unknown
  >;
  console.log(
    `\n${path}: pages version ${d.version}, ${d.chunkCount} chunks, ${d.conceptCount} concepts, ` +
      `${d.listsInRows ? 'lists in rows' : 'lists section'}; open ${length} bytes gzip'd`,
  );
  console.log('| array | entries | stored KB | gzip alone KB |');
  console.log('| --- | ---: | ---: | ---: |');
  let sum = 0;
  const fields = Object.entries(stored).map(([key, value]) => {
    const bytes = storedBytes(value);
    const alone = typeof value === 'number' ? 0 : gz(bytes);
    return { key, value, bytes, alone };
  });
  fields.sort((a, b) => b.alone - a.alone);
  columns.push({ path, alone: new Map(fields.map((f) => [f.key, f.alone])), open: length });
  for (const { key, value, bytes, alone } of fields) {
    sum += alone;
    const entries = typeof value === 'number' ? String(value) : Array.isArray(value) ? value.length : '–';
    console.log(`| ${key} | ${entries} | ${kb(bytes.length)} | ${kb(alone)} |`);
  }
  console.log(`| (sum gzip'd alone) | | | ${kb(sum)} |`);
  console.log(`| **open as stored** | | | **${kb(length)}** |`);
  if (candidates) {
    const open = expandOpen(stored as never, d.version, d.chunkCount, d.listsInRows === true, residualsOf(d));
    console.log('\n| candidate coding | gzip alone KB |');
    console.log('| --- | ---: |');
    for (const [name, bytes] of candidateRows(open, d)) console.log(`| ${name} | ${kb(bytes)} |`);
  }
}
if (columns.length > 1) {
  const keys = [...new Set(columns.flatMap((c) => [...c.alone.keys()]))].filter((k) => k !== 'singleCode');
  const first = columns[0].alone;
  keys.sort((a, b) => (first.get(b) ?? 0) - (first.get(a) ?? 0));
  const name = (path: string) => path.split('/').slice(-2).join('/');
  console.log(`\n| array (KB gzip'd alone) | ${columns.map((c) => name(c.path)).join(' | ')} |`);
  console.log(`| --- | ${columns.map(() => '---:').join(' | ')} |`);
  for (const key of keys)
    console.log(
      `| ${key} | ${columns.map((c) => (c.alone.has(key) ? kb(c.alone.get(key)!) : '–')).join(' | ')} |`,
    );
  console.log(`| **open as stored** | ${columns.map((c) => `**${kb(c.open)}**`).join(' | ')} |`);
}
