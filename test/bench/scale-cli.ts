// The CLI at scale (issue 25): `cli index --embedder none` over a folder made by scale-corpus.ts, as a child process
// with its wall time and peak resident memory (GNU time -v), then the bundle's size, then --runs cold
// `cli ask` runs (a new process each, the way a person asks a shared bundle once) with their time and peak memory,
// and the medians. CPU seconds (user + system, from GNU time) go beside every wall time: on a shared machine the wall
// time grows with the load, the CPU seconds with the work. A child that runs out of memory or past --timeout-minutes is a result: the bench prints how
// and when it ended and the tail of its stderr, and stops there.
// Each ask uses the next question of <folder>.questions.jsonl (copy 0's gold files, written by scale-corpus.ts) and prints whether a gold
// paragraph's title is among the evidence headings (--top 10): a coarse check that retrieval still finds the
// source's documents among their renamed copies.
// Usage: node --import tsx test/bench/scale-cli.ts --folder /work/scale-data/mb100 [--bundle <out.bundle>]
//        [--runs 5] [--timeout-minutes 90] [--heap-mb <n>] [--skip-index] [--json <out.json>]
//   --heap-mb passes --max-old-space-size to the CLI's Node (default: Node's own limit, as `npm run cli` runs).
//   --pages / --stream pass the same flag to `cli index` (the library read by ranges; --stream builds it one file
//   at a time, src/cli/streamIndex.ts); the asks then add --stats and the bench keeps what each question read.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';
import { runMeasured, type ChildResult } from './lib/childPeak.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const USAGE =
  'usage: node --import tsx test/bench/scale-cli.ts --folder <folder> [--bundle <out.bundle>] [--runs 5] ' +
  '[--timeout-minutes 90] [--heap-mb <n>] [--pages | --stream] [--skip-index] [--json <out.json>]';
const MiB = 1024 * 1024;

function fail(message: string): never {
  process.stderr.write(`scale-cli: ${message}\n${USAGE}\n`);
  process.exit(2);
}

const { values: opts } = parseArgs({
  options: {
    folder: { type: 'string' },
    bundle: { type: 'string' },
    runs: { type: 'string', default: '5' },
    'timeout-minutes': { type: 'string', default: '90' },
    'heap-mb': { type: 'string' },
    'skip-index': { type: 'boolean', default: false },
    pages: { type: 'boolean', default: false },
    stream: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
if (!opts.folder) fail('--folder is required');
const folder = resolve(opts.folder);
if (!existsSync(folder) || !statSync(folder).isDirectory()) fail(`--folder ${folder} is not a folder`);
const bundle = resolve(opts.bundle ?? join(dirname(folder), `${basename(folder)}.bundle`));
const runs = Number(opts.runs);
const timeoutMs = Number(opts['timeout-minutes']) * 60_000;
if (!Number.isInteger(runs) || runs < 0) fail('--runs must be an integer ≥ 0');
if (!(timeoutMs > 0)) fail('--timeout-minutes must be a positive number');
const heapMb = opts['heap-mb'] === undefined ? null : Number(opts['heap-mb']);
if (heapMb !== null && !(heapMb > 0)) fail('--heap-mb must be a positive number');
const nodeArgs = [
  ...(heapMb ? [`--max-old-space-size=${heapMb}`] : []),
  '--import',
  'tsx',
  'src/cli/main.ts',
];

const indexFlags = [...(opts.pages ? ['--pages'] : []), ...(opts.stream ? ['--stream'] : [])];
const askFlags = indexFlags.length > 0 ? ['--stats'] : [];

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (x: number | null) => (x === null ? '–' : `${x.toFixed(0)} MB`);

/** Bytes and files of the folder (recursively). */
function folderSize(dir: string): { files: number; bytes: number } {
  const r = spawnSync('du', ['-sb', '--apparent-size', dir], { encoding: 'utf8' });
  const bytes = Number(r.stdout.split('\t')[0]);
  const files = Number(
    spawnSync('sh', ['-c', 'find "$1" -type f | wc -l', 'sh', dir], {
      encoding: 'utf8',
    }).stdout.trim(),
  );
  return { files, bytes };
}

function describeEnd(r: ChildResult): string {
  if (r.timedOut) return `stopped by the bench after ${r.wallSeconds.toFixed(0)} s (--timeout-minutes)`;
  if (r.code === 0) return 'exit 0';
  return r.signal ? `ended by ${r.signal}` : `exit ${r.code}`;
}

const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], {
  cwd: root,
  encoding: 'utf8',
}).stdout.trim();
const size = folderSize(folder);
const result: Record<string, unknown> = {
  folder,
  files: size.files,
  folderMB: Number((size.bytes / MiB).toFixed(1)),
  bundle,
  commit,
  date: new Date().toISOString(),
  machine: `${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
  heapMb,
  indexFlags,
  loadStart: load(),
};
console.log(
  `scale-cli: ${folder}: ${size.files} files, ${(size.bytes / MiB).toFixed(1)} MiB; commit ${commit}; ` +
    `${result.machine}; Node heap limit ${heapMb ? `${heapMb} MB (--heap-mb)` : 'default'}; load ${load()}`,
);

function finish(): void {
  result.loadEnd = load();
  if (opts.json) writeFileSync(resolve(opts.json), JSON.stringify(result, null, 2) + '\n');
  console.log(`scale-cli result ${JSON.stringify(result)}`);
}

// ---------- index ----------
if (!opts['skip-index']) {
  // --stream's progress lines (a few per minute) go to the stderr log; the in-memory build's are one per file.
  const quiet = opts.stream ? [] : ['--quiet'];
  const indexArgs = ['index', folder, '--out', bundle, '--embedder', 'none', ...indexFlags, ...quiet];
  console.log(`index: node ${nodeArgs.join(' ')} ${indexArgs.join(' ')}`);
  const r = await runMeasured(process.execPath, [...nodeArgs, ...indexArgs], {
    cwd: root,
    timeoutMs,
    keepStdout: 65536,
    stderrFile: `${bundle}.index-stderr.log`,
    onHeartbeat: (s) => console.log(`  index still running after ${s.toFixed(0)} s (load ${load()})`),
  });
  const ok = r.code === 0 && !r.timedOut;
  result.index = {
    ok,
    end: describeEnd(r),
    seconds: Number(r.wallSeconds.toFixed(1)),
    cpuSeconds: r.cpuSeconds === null ? null : Number(r.cpuSeconds.toFixed(1)),
    peakRssMB: r.peakRssMB === null ? null : Math.round(r.peakRssMB),
    bundleMB: ok ? Number((statSync(bundle).size / MiB).toFixed(1)) : null,
    summary: r.stdout.trim(),
    ...(ok ? {} : { stderrTail: r.stderrTail.slice(-3000) }),
    load: load(),
  };
  console.log(
    `index: ${describeEnd(r)} after ${r.wallSeconds.toFixed(1)} s (${r.cpuSeconds?.toFixed(0) ?? '–'} CPU s), peak RSS ${mb(r.peakRssMB)}` +
      (ok ? `, bundle ${(statSync(bundle).size / MiB).toFixed(1)} MiB` : '') +
      `; load ${load()}\n  ${r.stdout.trim()}`,
  );
  if (!ok) {
    console.log(`index failed; the end of its stderr:\n${r.stderrTail.slice(-3000)}`);
    finish();
    process.exit(1);
  }
} else if (!existsSync(bundle)) fail(`--skip-index, but there is no bundle at ${bundle}`);
else result.index = { skipped: true, bundleMB: Number((statSync(bundle).size / MiB).toFixed(1)) };

// ---------- cold asks ----------
interface Question {
  id: string;
  question: string;
  supporting_titles?: string[];
}
const questionsFile = `${folder}.questions.jsonl`;
const questions: Question[] = existsSync(questionsFile)
  ? readFileSync(questionsFile, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Question)
  : [];
// Spread over the sets (the file lists hotpotqa, then 2wiki, musique, vuedocs): every len/runs-th question.
const picked: Question[] =
  questions.length > 0
    ? Array.from({ length: runs }, (_, i) => questions[Math.floor((i * questions.length) / runs)])
    : Array.from({ length: runs }, () => ({ id: 'fixed', question: 'How do I undo the last commit?' }));
const asks: Record<string, unknown>[] = [];
for (const [i, q] of picked.entries()) {
  const r = await runMeasured(
    process.execPath,
    [...nodeArgs, 'ask', bundle, q.question, '--top', '10', '--json', ...askFlags],
    { cwd: root, timeoutMs, keepStdout: 4 * MiB },
  );
  const ok = r.code === 0 && !r.timedOut;
  let headings: string[] = [];
  if (ok) {
    try {
      const out = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as {
        context?: { docTitle?: string; heading?: string; path?: string[] }[];
      };
      headings = (out.context ?? []).flatMap((c) => [c.heading ?? '', ...(c.path ?? []), c.docTitle ?? '']);
    } catch {
      // Not JSON: counted as no evidence below.
    }
  }
  const gold = q.supporting_titles ?? [];
  const found = gold.filter((t) => t && headings.some((h) => h.includes(t)));
  asks.push({
    id: q.id,
    end: describeEnd(r),
    seconds: Number(r.wallSeconds.toFixed(2)),
    cpuSeconds: r.cpuSeconds === null ? null : Number(r.cpuSeconds.toFixed(1)),
    peakRssMB: r.peakRssMB === null ? null : Math.round(r.peakRssMB),
    goldTitles: gold.length,
    goldTitlesInTop10: found.length,
    ...(askFlags.length ? { read: /ask: read .*/.exec(r.stderrTail)?.[0] ?? null } : {}),
  });
  console.log(
    `ask ${i + 1}/${picked.length} (${q.id}): ${describeEnd(r)}, ${r.wallSeconds.toFixed(2)} s (${r.cpuSeconds?.toFixed(0) ?? '–'} CPU s), peak RSS ` +
      `${mb(r.peakRssMB)}; gold titles in the top 10: ${found.length}/${gold.length}; load ${load()}`,
  );
  if (!ok) {
    console.log(`ask failed; the end of its stderr:\n${r.stderrTail.slice(-3000)}`);
    break;
  }
}
const done = asks.filter((a) => a.end === 'exit 0');
result.asks = asks;
if (done.length > 0) {
  result.askP50 = {
    seconds: median(done.map((a) => a.seconds as number)),
    peakRssMB: median(done.map((a) => a.peakRssMB as number)),
  };
  console.log(
    `cold ask p50 of ${done.length}: ${median(done.map((a) => a.seconds as number)).toFixed(2)} s, ` +
      `${median(done.map((a) => a.peakRssMB as number))} MB peak RSS (load ${load()})`,
  );
}
finish();
