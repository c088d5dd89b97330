// The two small libraries a first-time user meets at once, benchmarked like the shared sets: five Rust by Example
// chapters from ../shared/bench/docs-scale (Arc, Rc, Box, threads, channels) and the three seed papers (two in
// Chinese) from ../shared/papers as .txt files, each with its question set in test/bench/sets/ (written for this
// check, gold = file names). The files are copied into a temporary folder and indexed through the app's parsers.
// Usage: node --import tsx test/bench/small-libraries.ts [bench options, e.g. --modes default,bm25 --json-dir d]
import { copyFile, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/cli/bench.ts';

const here = dirname(fileURLToPath(import.meta.url));
const shared = resolve(here, '..', '..', '..', 'shared');
const FIVE = ['std__arc', 'std__rc', 'std__box', 'std_misc__threads', 'std_misc__channels'].map((name) =>
  join(shared, 'bench', 'docs-scale', 'docs', `rust-by-example__${name}.md`),
);

async function folderOf(files: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'small-library-'));
  // Copies: the CLI's walker reads only files inside the named folder, never a link out of it.
  for (const f of files) await copyFile(f, join(dir, f.split('/').pop()!));
  return dir;
}

const papers = (await readdir(join(shared, 'papers')))
  .filter((f) => f.endsWith('.txt'))
  .map((f) => join(shared, 'papers', f));
const args = process.argv.slice(2);
const jsonDir = args.includes('--json-dir') ? args.splice(args.indexOf('--json-dir'), 2)[1] : undefined;
for (const [name, files] of [
  ['five-files', FIVE],
  ['zh-papers', papers],
] as const) {
  process.stdout.write(`\n== ${name} (${files.length} files)\n`);
  const code = await run([
    '--corpus',
    await folderOf([...files]),
    '--questions',
    join(here, 'sets', `${name}.questions.jsonl`),
    ...(jsonDir ? ['--json', join(jsonDir, `${name}.json`)] : []),
    ...args,
  ]);
  if (code !== 0) process.exit(code);
}
