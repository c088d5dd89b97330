// Round twenty-four (issue 47, wip/hub24): what holding the walk's hubs (walkMaxDf, params.ts) costs in recall on a big
// library itself, not only on the shared sets (3–7 k chunks, where a df cap of 300 or 1,000 holds few concepts). For
// each cap, a library read by ranges from the bundle (in memory: bytes do not matter here) is asked n questions of a
// set whose lines name their `supporting_titles` (the 100 MiB and 1 GiB libraries' questions: /tmp/qb/mb100.questions.jsonl):
// R@2 / R@5 = the share of supporting passages among the first 2 / 5 passages of the hits (`ppr`, 12,000 tokens, each
// passage once, by its title: those libraries' files hold 8 passages each, one a `##` section named as the passage's
// title, so a hit's heading path's second entry), and how many questions' first 5 hits differ from the cap off.
// Round twenty-five (wip/gib25): the library is read as question-bytes.ts reads it (a TaggedSource over memory: gap 0
// unless --gap says another, ranges sent 100 a request). A bare MemoryRangeSource sends each range as a request of its
// own, and the block store re-checks every group of a load after each response (BlockStore.arrived): at 100 MiB a
// question took 1–34 s, 80 % of it in arrived(), and 30 questions at 1 GiB did not end in round twenty-four.
// Each cap's seconds a question and the load are printed, and which questions' first 5 hits differ from off (the n
// questions are spread over the set: the same n every run).
// Usage: node --import tsx test/bench/hub-recall.ts <x.bundle> <questions.jsonl> [--n 100] [--caps 0,1000,300,100]
//          [--gap <bytes>] [--show]
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import process from 'node:process';
import { openPagedBundle } from '../../src/core/paged/index.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { arg } from './lib/args.ts';
import { BENCH_BUDGET_TOKENS } from './lib/questions.ts';
import { TaggedSource } from './lib/taggedSource.ts';

interface Question {
  question: string;
  supporting_titles?: string[];
}

const [bundlePath, questionsPath] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!bundlePath || !questionsPath)
  throw new Error('usage: hub-recall.ts <x.bundle> <questions.jsonl> [--n 100] [--caps 0,1000,300,100]');
const n = Number(arg('n', '100'));
const caps = arg('caps', '0,1000,300,100').split(',').map(Number);
const gap = Number(arg('gap', '0'));
if (!(Number.isInteger(gap) && gap >= 0)) throw new Error('--gap must be a byte count');
const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

const all = (await readFile(questionsPath, 'utf8'))
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Question)
  .filter((q) => (q.supporting_titles ?? []).length > 0);
const picked = Array.from(
  { length: Math.min(n, all.length) },
  (_, i) => all[Math.floor((i * all.length) / n)],
);
const data = new Uint8Array(await readFile(bundlePath));
const analyzer = createTermAnalyzer();

let offTop: string[][] | undefined;
console.log(
  `${bundlePath}: ${picked.length} questions; load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
console.log('| walkMaxDf | R@2 | R@5 | first 5 hits differ from off |');
console.log('|---:|---:|---:|---:|');
for (const cap of caps) {
  const source = new TaggedSource(new MemoryRangeSource(data, bundlePath));
  source.gapBytes = gap;
  const { library } = (await openPagedBundle(source, analyzer, { walkMaxDf: cap }))!;
  const seconds: string[] = [];
  const changed: string[] = [];
  let r2 = 0;
  let r5 = 0;
  let differ = 0;
  const tops: string[][] = [];
  for (const [i, q] of picked.entries()) {
    const t0 = performance.now();
    const { hits } = await library.search(q.question, 'ppr', BENCH_BUDGET_TOKENS);
    seconds.push(((performance.now() - t0) / 1000).toFixed(1));
    const titles: string[] = [];
    for (const h of hits) {
      const t = h.path?.[1] ?? h.path?.[0] ?? '';
      if (!titles.includes(t)) titles.push(t);
    }
    const gold = q.supporting_titles!;
    const found = (k: number) => gold.filter((g) => titles.slice(0, k).includes(g)).length / gold.length;
    if (process.argv.includes('--show') && cap === caps[0]) console.log(titles.slice(0, 5), gold);
    r2 += found(2);
    r5 += found(5);
    const top = hits.slice(0, 5).map((h) => h.chunkId);
    tops.push(top);
    if (offTop && offTop[i].join() !== top.join()) {
      differ++;
      changed.push(`q${i}: ${offTop[i].join(',')} → ${top.join(',')}`);
    }
  }
  console.error(`walkMaxDf ${cap}: seconds a question ${seconds.join(' ')}; load ${load()}`);
  for (const c of changed) console.error(`  ${c}`);
  if (cap === 0) offTop = tops;
  const pct = (x: number) => ((100 * x) / picked.length).toFixed(1);
  console.log(`| ${cap} | ${pct(r2)} | ${pct(r5)} | ${offTop && cap !== 0 ? differ : '–'} |`);
}
console.log(
  `load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
