// Which entries of `open`'s arrays a question uses, and when (issue 47, round nineteen: what must `open` hold?).
// Each question is asked cold, as question-bytes.ts asks it (a fresh openPagedBundle, ppr, budget 12,000; the Ask
// view's first page with --first-page, else `cli ask`'s whole budget). After opening, every per-chunk and
// per-concept array of the library's `open` (and the BM25 lengths the library keeps from it) is replaced by a
// counting view of it: each index read is noted with the phase it was first read in:
// - `rank`: a ranking run outside the walk (the words' BM25, the seeds, scoring the chunks of the walked concepts);
// - `walk`: the walk itself (PersonalizedPageRank.run: its rows and degrees);
// - `evidence`: the evidence and cards of a ranking (PagedLibrary cardsOf / answerOf).
// Printed per array, mean a question: the entries used (and of them first in each phase), for per-chunk arrays how
// many are chunks of the answer's hits, the blocks of 256 / 1,024 / 4,096 entries those entries fall in (what a
// section read by ranges in blocks of that many entries would read), and whether anything iterated the array
// whole (a sum, a copy). `open` is read whole at opening, so these counts are what a question needs of it; the
// opening's own whole-array passes (checkOpen, the BM25 means) are before the counting starts.
// Usage: node --import tsx test/bench/open-usage.ts <x.bundle> <questions.jsonl> [--n 25] [--first-page]
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import process from 'node:process';
import { PersonalizedPageRank } from '../../src/core/graph/pagerank.ts';
import { openPagedBundle } from '../../src/core/paged/index.ts';
import { PagedLibrary } from '../../src/core/paged/library.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { arg, positional } from './lib/args.ts';
import { askAsBench, questionsOf, spread } from './lib/questions.ts';

const USAGE =
  'usage: node --import tsx test/bench/open-usage.ts <x.bundle> <questions.jsonl> [--n 25] [--first-page]';
const PHASES = ['rank', 'walk', 'evidence'] as const;
type Phase = (typeof PHASES)[number];
const BLOCKS = [256, 1024, 4096];

/** The phase the running code is in (a stack: the walk runs inside a ranking). */
const phases: Phase[] = ['rank'];
function during<A extends unknown[], R>(phase: Phase, f: (...a: A) => R): (...a: A) => R {
  return function (this: unknown, ...a: A): R {
    phases.push(phase);
    try {
      return f.apply(this, a);
    } finally {
      phases.pop();
    }
  };
}
type Patchable = Record<string, (...a: unknown[]) => unknown>;
const lib = PagedLibrary.prototype as unknown as Patchable;
lib.rank = during('rank', lib.rank);
lib.cardsOf = during('evidence', lib.cardsOf);
lib.answerOf = during('evidence', lib.answerOf);
const walk = PersonalizedPageRank.prototype as unknown as Patchable;
walk.run = during('walk', walk.run);

interface Use {
  /** Per index: 0 unread, else 1 + the phase it was first read in. */
  first: Uint8Array;
  whole: boolean;
}

/** A view of `array` noting each index read (and a pass over it whole). */
function counting<T extends object>(array: T, use: Use): T {
  return new Proxy(array, {
    get(target, prop) {
      if (typeof prop === 'string' && prop.charCodeAt(0) >= 48 && prop.charCodeAt(0) <= 57) {
        const i = Number(prop);
        if (use.first[i] === 0) use.first[i] = 1 + PHASES.indexOf(phases[phases.length - 1]);
      } else if (prop === Symbol.iterator) use.whole = true;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const PER_CHUNK = [
  'textLengths',
  'headingLengths',
  'conceptCounts',
  'tokens',
  'documentChunks',
  'titleChunks',
];
const PER_CONCEPT = ['df', 'idf', 'degreeCodes', 'listOffsets'];
const PER_GROUP = ['recordGroups', 'rowGroups', 'termGroups', 'conceptGroups', 'termFirst', 'conceptFirst'];

interface Row {
  used: number[];
  byPhase: Record<Phase, number[]>;
  hits: number[];
  blocks: number[][];
  whole: number;
  length: number;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}
const mean = (v: number[]) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : 0);
const fmt = (x: number) => Math.round(x).toLocaleString('en-US');

async function main(): Promise<void> {
  const bundlePath = positional();
  const qaPath = process.argv.slice(2).filter((a) => !a.startsWith('--'))[1];
  if (!bundlePath || !qaPath) throw new Error(USAGE);
  const n = Number(arg('n', '25'));
  const firstPage = process.argv.includes('--first-page');
  const data = new Uint8Array(await readFile(bundlePath));
  const questions = await questionsOf(qaPath);
  const picked = spread(questions, n);
  const analyzer = createTermAnalyzer();
  const rows = new Map<string, Row>();
  let chunkCount = 0;
  let conceptCount = 0;
  for (const q of picked) {
    const opened = await openPagedBundle(new MemoryRangeSource(data, bundlePath), analyzer);
    if (!opened) throw new Error(`${bundlePath}: has no pages`);
    const library = opened.library;
    const open = library.reader.open as unknown as Record<string, object | undefined>;
    chunkCount = library.reader.directory.chunkCount;
    conceptCount = library.reader.directory.conceptCount;
    const uses = new Map<string, Use>();
    for (const name of [...PER_CHUNK, ...PER_CONCEPT, ...PER_GROUP]) {
      const array = open[name];
      if (!array) continue;
      const use: Use = { first: new Uint8Array((array as { length: number }).length), whole: false };
      uses.set(name, use);
      open[name] = counting(array, use);
    }
    // The BM25 lengths the library keeps from `open` at opening (textLengths, and with the headings' copies).
    const scoring = (library as unknown as { scoring: Record<string, { lengths: Float32Array }> }).scoring;
    for (const key of Object.keys(scoring)) {
      const use: Use = { first: new Uint8Array(scoring[key].lengths.length), whole: false };
      uses.set(`bm25 ${key} lengths`, use);
      scoring[key].lengths = counting(scoring[key].lengths, use);
    }
    phases.length = 1;
    const answer = await askAsBench(library, q, firstPage);
    const hitPlaces = new Set<number>();
    for (const h of answer.hits) {
      const k = library.reader.chunkIndex.get(h.chunkId) ?? Number(/(\d+)$/.exec(h.chunkId)?.[1] ?? -1);
      if (k >= 0) hitPlaces.add(k);
    }
    for (const [name, use] of uses) {
      let row = rows.get(name);
      if (!row) {
        row = {
          used: [],
          byPhase: { rank: [], walk: [], evidence: [] },
          hits: [],
          blocks: BLOCKS.map(() => []),
          whole: 0,
          length: (open[name] as { length?: number } | undefined)?.length ?? chunkCount,
        };
        rows.set(name, row);
      }
      const used: number[] = [];
      use.first.forEach((x, i) => {
        if (x) used.push(i);
      });
      row.used.push(used.length);
      PHASES.forEach((p, j) => row.byPhase[p].push(used.filter((i) => use.first[i] === j + 1).length));
      row.hits.push(used.filter((k) => hitPlaces.has(k)).length);
      BLOCKS.forEach((b, i) => row.blocks[i].push(new Set(used.map((k) => Math.floor(k / b))).size));
      if (use.whole) row.whole++;
    }
    process.stderr.write('.');
  }
  process.stderr.write('\n');
  console.log(
    `## ${bundlePath}: ${fmt(chunkCount)} chunks, ${fmt(conceptCount)} concepts; ${picked.length} cold questions, ppr, ` +
      `${firstPage ? 'the Ask view’s first page' : '`cli ask` (whole budget)'}; load ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
  );
  console.log(
    `| array | entries | used p50 / max (mean) | first in rank / walk / evidence (mean) | of the hits (mean) | ` +
      `blocks of ${BLOCKS.join(' / ')} used (mean, of all) | iterated whole |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [name, row] of rows) {
    const perChunk = PER_CHUNK.includes(name) || name.startsWith('bm25');
    console.log(
      `| ${name} | ${fmt(row.length)} | ${fmt(quantile(row.used, 0.5))} / ${fmt(Math.max(...row.used))} ` +
        `(${fmt(mean(row.used))}, ${((100 * mean(row.used)) / Math.max(1, row.length)).toFixed(2)} %) | ` +
        `${PHASES.map((p) => fmt(mean(row.byPhase[p]))).join(' / ')} | ${perChunk ? fmt(mean(row.hits)) : '–'} | ` +
        `${BLOCKS.map((b, i) => `${fmt(mean(row.blocks[i]))} of ${fmt(Math.ceil(row.length / b))}`).join(' / ')} | ` +
        `${row.whole} of ${row.used.length} |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
