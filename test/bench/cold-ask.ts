// A cold question from the command line: `cli ask <bundle> "<question>"` as a fresh process, as a person runs it
// once against a shared bundle. Prints the wall time and the peak resident memory of each run (the process's own
// resourceUsage().maxRSS, measured at its exit) and their median. The bundle is made first when a folder is given
// (lexical layer, `cli index --embedder none`), e.g. the mixed library of test/bench/mixed-library.ts.
// Usage: node --import tsx test/bench/cold-ask.ts <x.bundle | folder> [--question "<text>"] [--runs 3]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const DEFAULT_QUESTION = 'How do I read a file line by line in Node without loading it into memory?';

async function child(args: string[]): Promise<void> {
  const { run } = await import('../../src/cli/ask.ts');
  const started = performance.now();
  const code = await run(args);
  const ms = performance.now() - started;
  // One line the parent reads; the answer itself went to stdout before it.
  process.stderr.write(
    `\ncold-ask ${JSON.stringify({ code, askMs: ms, maxRssMB: process.resourceUsage().maxRSS / 1024 })}\n`,
  );
  process.exit(code);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return child(args.slice(1));
  const take = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i < 0 ? undefined : args.splice(i, 2)[1];
  };
  const question = take('--question') ?? DEFAULT_QUESTION;
  const runs = Number(take('--runs') ?? 3);
  const input = args[0];
  if (!input || !existsSync(input)) {
    process.stderr.write(
      'usage: node --import tsx test/bench/cold-ask.ts <x.bundle | folder> [--question q] [--runs n]\n',
    );
    process.exit(2);
  }
  let bundle = input;
  if (statSync(input).isDirectory()) {
    bundle = join(root, '.cache', 'cold-ask.bundle');
    mkdirSync(dirname(bundle), { recursive: true });
    const made = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'index', input, '--out', bundle, '--embedder', 'none'],
      { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    if (made.status !== 0) process.exit(made.status ?? 1);
  }
  console.log(
    `bundle ${bundle}: ${(statSync(bundle).size / 1048576).toFixed(2)} MB; question "${question}"; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const walls: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', bundle, question, '--top', '3'],
      { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 },
    );
    const wall = (performance.now() - started) / 1000;
    const line = /cold-ask (\{.*\})/.exec(r.stderr ?? '');
    if (r.status !== 0 || !line) {
      process.stderr.write(r.stderr ?? '');
      process.exit(r.status ?? 1);
    }
    const m = JSON.parse(line[1]) as { askMs: number; maxRssMB: number };
    walls.push(wall);
    rss.push(m.maxRssMB);
    console.log(
      `run ${i + 1}: ${wall.toFixed(2)} s wall (process start to exit), ${(m.askMs / 1000).toFixed(2)} s in ask, ` +
        `peak RSS ${m.maxRssMB.toFixed(0)} MB`,
    );
  }
  console.log(
    `median of ${runs}: ${median(walls).toFixed(2)} s, ${median(rss).toFixed(0)} MB peak RSS (load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
}

await main();
