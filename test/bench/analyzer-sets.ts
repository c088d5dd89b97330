// Every retrieval set the analyzer is judged on, one after another, each in its own `cli bench` process (lexical
// layer, default and bm25): the shared sets (/work/shared/bench), the two small libraries (small-libraries.ts) and
// the held-out sets (test/bench/heldout, built under --heldout). Writes <out>/<set>.json and prints one line per set
// and mode with R@2 / R@5 / CR@1000 / CR@3000, so a change is measured before and after with one command.
// Usage: node --import tsx test/bench/analyzer-sets.ts --out /work/baseline-stem [--heldout /work/heldout]
//          [--sets vuedocs,zhprose,...] [--modes default,bm25] [--grid key=v1,v2]
// --grid (cli bench's) asks every set under each value of a query-time parameter on one build: before and after in
// one process per set, one line per value.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const shared = resolve(repo, '..', 'shared', 'bench');

const { values: opts } = parseArgs({
  options: {
    out: { type: 'string' },
    heldout: { type: 'string', default: '/work/heldout' },
    sets: { type: 'string' },
    modes: { type: 'string', default: 'default,bm25' },
    grid: { type: 'string', multiple: true, default: [] },
  },
});
if (!opts.out) throw new Error('analyzer-sets: --out <folder> is required');
mkdirSync(opts.out, { recursive: true });

type Set = { name: string; args: string[]; script?: string };
const wiki = (name: string, dir: string): Set => ({
  name,
  args: ['--corpus', join(shared, dir, 'corpus.jsonl'), '--questions', join(shared, dir, 'questions.jsonl')],
});
const heldout = (name: string): Set => ({
  name,
  args: [
    '--corpus',
    join(opts.heldout, name, 'docs'),
    '--questions',
    join(here, 'heldout', name, 'questions.jsonl'),
  ],
});
const SETS: Set[] = [
  wiki('2wiki', '2wikimultihopqa'),
  wiki('hotpotqa', 'hotpotqa'),
  wiki('musique', 'musique'),
  {
    name: 'vuedocs',
    args: [
      '--corpus',
      join(shared, 'vuedocs', 'docs'),
      '--questions',
      join(shared, 'vuedocs', 'questions.jsonl'),
    ],
  },
  { name: 'small', args: [], script: join(here, 'small-libraries.ts') },
  {
    name: 'zhprose',
    args: [
      '--corpus',
      join(opts.heldout, 'zhprose', 'corpus.jsonl'),
      '--questions',
      join(here, 'heldout', 'zhprose', 'questions.jsonl'),
    ],
  },
  heldout('electronapi'),
  heldout('zhdocs'),
  heldout('pdfdocs'),
  heldout('rustbook'),
];

const wanted = opts.sets?.split(',') ?? SETS.map((s) => s.name);
const pct = (x: number | null | undefined) => (x == null ? '   -' : (100 * x).toFixed(1).padStart(5));
const lines: string[] = [];
for (const set of SETS.filter((s) => wanted.includes(s.name))) {
  const common = [
    ...['--modes', opts.modes, '--embedder', 'none', '--budgets', '1000,3000,12000'],
    // A loaded machine parses a Wikipedia .jsonl past the browser's 30 s: without this the corpus is skipped.
    ...['--parse-timeout', '600'],
    ...opts.grid.flatMap((g) => ['--grid', g]),
  ];
  const argv = set.script
    ? ['--import', 'tsx', set.script, ...common, '--json-dir', opts.out]
    : [
        '--import',
        'tsx',
        join(repo, 'src', 'cli', 'main.ts'),
        'bench',
        ...set.args,
        ...common,
        '--json',
        join(opts.out, `${set.name}.json`),
      ];
  process.stderr.write(`\n== ${set.name}\n`);
  const t = performance.now();
  const r = spawnSync(process.execPath, argv, { stdio: ['ignore', 'inherit', 'inherit'], cwd: repo });
  if (r.status !== 0) throw new Error(`analyzer-sets: ${set.name} failed (${r.status})`);
  process.stderr.write(`== ${set.name} done in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
  for (const name of set.script ? ['five-files', 'zh-papers'] : [set.name]) {
    const file = join(opts.out, `${name}.json`);
    if (!existsSync(file)) continue;
    type Result = {
      modes: Record<string, { cr: Record<string, number>; recall: Record<string, number | null> }>;
    };
    const json = JSON.parse(readFileSync(file, 'utf8')) as Result & {
      grid?: Array<Result & { params: Record<string, unknown> }>;
    };
    const runs = json.grid ?? [{ ...json, params: {} }];
    for (const run of runs) {
      const label = Object.entries(run.params)
        .map(([k, v]) => ` ${k}=${String(v)}`)
        .join('');
      for (const [mode, m] of Object.entries(run.modes)) {
        if (mode !== 'default' && mode !== 'bm25') continue;
        lines.push(
          `${name.padEnd(12)} ${mode.padEnd(8)} R@2 ${pct(m.recall['2'])} R@5 ${pct(m.recall['5'])} ` +
            `CR@1000 ${pct(m.cr['1000'])} CR@3000 ${pct(m.cr['3000'])}${label}`,
        );
      }
    }
  }
}
process.stdout.write(`\n${lines.join('\n')}\n`);
