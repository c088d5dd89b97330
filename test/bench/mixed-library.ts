// The mixed-library bench: one folder holding the Vue docs, docs-scale's 722 documentation files and the three
// Wikipedia corpora (as a person's library is rarely one kind), and the questions of every set whose ids resolve
// there, each set reported as its own question type. With --own, each set is also run in its own library, so the
// two can be compared. Files are copied (not linked) into .cache/mixed-library, as the CLI's walker indexes only
// files inside the named folder.
// The sets are read from ../shared/bench beside the repository, or BENCH_DIR.
// Usage: node --import tsx test/bench/mixed-library.ts [--own] [--limit N] [bench options, e.g. --modes default,bm25
//        --embedder none --json out.json]
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/cli/bench.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const bench = process.env.BENCH_DIR ?? resolve(root, '..', 'shared', 'bench');
const folder = join(root, '.cache', 'mixed-library');

const args = process.argv.slice(2);
const take = (name: string): string | undefined => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const [, value] = args.splice(i, 2);
  return value;
};
const own = args.includes('--own') ? (args.splice(args.indexOf('--own'), 1), true) : false;
const limit = Number(take('--limit') ?? Infinity);

const SETS: Array<{ name: string; corpus: string; questions: string }> = [
  {
    name: 'vuedocs',
    corpus: join(bench, 'vuedocs', 'docs'),
    questions: join(bench, 'vuedocs', 'questions.jsonl'),
  },
  ...['2wikimultihopqa', 'hotpotqa', 'musique'].map((name) => ({
    name,
    corpus: join(bench, name, 'corpus.jsonl'),
    questions: join(bench, name, 'questions.jsonl'),
  })),
];

await rm(folder, { recursive: true, force: true });
await mkdir(folder, { recursive: true });
await cp(join(bench, 'vuedocs', 'docs'), join(folder, 'vuedocs'), { recursive: true });
await cp(join(bench, 'docs-scale', 'docs'), join(folder, 'docs-scale'), { recursive: true });
for (const s of SETS.slice(1)) await cp(s.corpus, join(folder, `${s.name}.jsonl`));

// One questions file, each question typed by its set (the bench reports every type apart).
const merged: string[] = [];
for (const s of SETS) {
  const lines = (await readFile(s.questions, 'utf8')).split('\n').filter((l) => l.trim());
  for (const line of lines.slice(0, limit))
    merged.push(JSON.stringify({ ...JSON.parse(line), type: s.name }));
}
const questions = join(folder, '..', 'mixed-library.questions.jsonl');
await writeFile(questions, merged.join('\n') + '\n');

process.stdout.write(`\n== mixed library: ${folder} (${merged.length} questions)\n`);
let code = await run(['--corpus', folder, '--questions', questions, ...args]);
if (code !== 0) process.exit(code);
if (own) {
  for (const s of SETS) {
    process.stdout.write(`\n== ${s.name} in its own library\n`);
    const json = args.indexOf('--json');
    const ownArgs = [...args];
    if (json >= 0) ownArgs[json + 1] = ownArgs[json + 1].replace(/\.json$/, `.${s.name}.json`);
    const lines = (await readFile(s.questions, 'utf8')).split('\n').filter((l) => l.trim());
    const subset = join(folder, '..', `mixed-library.${s.name}.questions.jsonl`);
    await writeFile(subset, lines.slice(0, limit).join('\n') + '\n');
    code = await run(['--corpus', s.corpus, '--questions', subset, ...ownArgs]);
    if (code !== 0) process.exit(code);
  }
}
