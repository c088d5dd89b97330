// The mixed-library bench: one folder holding the Vue docs, docs-scale's 722 documentation files and the three
// Wikipedia corpora (as a person's library is rarely one kind), and the questions of every set whose ids resolve
// there, each set reported as its own question type. With --own, each set is also run in its own library, so the
// two can be compared. Files are copied (not linked) into .cache/mixed-library (or --folder), as the CLI's walker
// indexes only files inside the named folder.
// --extra <docs folder>:<questions.jsonl> (repeatable) adds a documentation set, e.g. a held-out set of
// test/bench/heldout, copied into its own subfolder and asked as its own type; --sets a,b asks only those sets'
// questions (every corpus stays in the library); --wikipedia-only leaves the Vue docs and docs-scale out, so the
// library is the three Wikipedia corpora and the --extra sets (issue 45's "inside one folder that also holds the
// three Wikipedia corpora"). As recall counts a file by its name without the extension, two
// files of the same name anywhere in the library, or a supporting id that names no file or passage, stop the run.
// The sets are read from ../shared/bench beside the repository, or BENCH_DIR.
// Usage: node --import tsx test/bench/mixed-library.ts [--own] [--limit N] [--folder DIR] [--extra DIR:FILE]...
//        [--sets vuedocs,rustbook] [--wikipedia-only] [bench options, e.g. --modes default,bm25 --embedder none --json out.json]
import { cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/cli/bench.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const bench = process.env.BENCH_DIR ?? resolve(root, '..', 'shared', 'bench');

const args = process.argv.slice(2);
const take = (name: string): string | undefined => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const [, value] = args.splice(i, 2);
  return value;
};
const takeAll = (name: string): string[] => {
  const values: string[] = [];
  for (let v = take(name); v !== undefined; v = take(name)) values.push(v);
  return values;
};
const folder = resolve(take('--folder') ?? join(root, '.cache', 'mixed-library'));
const extras = takeAll('--extra').map((spec) => {
  const cut = spec.lastIndexOf(':');
  if (cut <= 0)
    throw new Error(`mixed-library: --extra wants <docs folder>:<questions.jsonl>, got "${spec}"`);
  const corpus = resolve(spec.slice(0, cut));
  // A built set's folder is <set>/docs: the set is named by the folder above docs/.
  const name = basename(corpus) === 'docs' ? basename(dirname(corpus)) : basename(corpus);
  return { name, corpus, questions: resolve(spec.slice(cut + 1)) };
});
const only = take('--sets')?.split(',');
const flag = (name: string): boolean =>
  args.includes(name) ? (args.splice(args.indexOf(name), 1), true) : false;
const own = flag('--own');
const wikipediaOnly = flag('--wikipedia-only');
const limit = Number(take('--limit') ?? Infinity);

const VUE = {
  name: 'vuedocs',
  corpus: join(bench, 'vuedocs', 'docs'),
  questions: join(bench, 'vuedocs', 'questions.jsonl'),
};
const WIKIPEDIA = ['2wikimultihopqa', 'hotpotqa', 'musique'].map((name) => ({
  name,
  corpus: join(bench, name, 'corpus.jsonl'),
  questions: join(bench, name, 'questions.jsonl'),
}));
const SETS: Array<{ name: string; corpus: string; questions: string }> = [
  ...(wikipediaOnly ? [] : [VUE]),
  ...WIKIPEDIA,
  ...extras,
];
const names = SETS.map((s) => s.name);
if (new Set(names).size !== names.length)
  throw new Error(`mixed-library: two sets share a name: ${names.join(', ')}`);
const unknown = only?.filter((n) => !names.includes(n)) ?? [];
if (unknown.length)
  throw new Error(`mixed-library: --sets names no set ${unknown.join(', ')} (sets: ${names.join(', ')})`);
const ASKED = SETS.filter((s) => !only || only.includes(s.name));

await rm(folder, { recursive: true, force: true });
await mkdir(folder, { recursive: true });
if (!wikipediaOnly) {
  await cp(VUE.corpus, join(folder, 'vuedocs'), { recursive: true });
  await cp(join(bench, 'docs-scale', 'docs'), join(folder, 'docs-scale'), { recursive: true });
}
for (const s of WIKIPEDIA) await cp(s.corpus, join(folder, `${s.name}.jsonl`));
for (const s of extras) await cp(s.corpus, join(folder, s.name), { recursive: true });

// The ids a question can name in this folder, as the bench resolves them: a file's name without its extension, or
// a .jsonl passage's "id". A name held twice would credit either file, so it stops the run.
async function resolvableIds(dir: string): Promise<Set<string>> {
  const ids = new Map<string, string>();
  const add = (id: string, where: string) => {
    const before = ids.get(id);
    if (before !== undefined) throw new Error(`mixed-library: "${id}" names both ${before} and ${where}`);
    ids.set(id, where);
  };
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    if (extname(file) === '.jsonl') {
      for (const line of (await readFile(file, 'utf8')).split('\n'))
        if (line.trim()) add(String((JSON.parse(line) as { id: unknown }).id), file);
    } else add(basename(file, extname(file)), file);
  }
  return new Set(ids.keys());
}
const ids = await resolvableIds(folder);

// One questions file, each question typed by its set (the bench reports every type apart).
const merged: string[] = [];
for (const s of ASKED) {
  const lines = (await readFile(s.questions, 'utf8')).split('\n').filter((l) => l.trim());
  for (const line of lines.slice(0, limit)) {
    const q = JSON.parse(line) as { id: string; supporting?: string[] };
    const missing = (q.supporting ?? []).filter((id) => !ids.has(id));
    if (missing.length)
      throw new Error(`mixed-library: ${s.name} ${q.id} names ${missing.join(', ')}, not in ${folder}`);
    merged.push(JSON.stringify({ ...q, type: s.name }));
  }
}
const questions = join(folder, '..', `${basename(folder)}.questions.jsonl`);
await writeFile(questions, merged.join('\n') + '\n');

process.stdout.write(`\n== mixed library: ${folder} (${merged.length} questions)\n`);
let code = await run(['--corpus', folder, '--questions', questions, ...args]);
if (code !== 0) process.exit(code);
if (own) {
  for (const s of ASKED) {
    process.stdout.write(`\n== ${s.name} in its own library\n`);
    const json = args.indexOf('--json');
    const ownArgs = [...args];
    if (json >= 0) ownArgs[json + 1] = ownArgs[json + 1].replace(/\.json$/, `.${s.name}.json`);
    const lines = (await readFile(s.questions, 'utf8')).split('\n').filter((l) => l.trim());
    const subset = join(folder, '..', `${basename(folder)}.${s.name}.questions.jsonl`);
    await writeFile(subset, lines.slice(0, limit).join('\n') + '\n');
    code = await run(['--corpus', s.corpus, '--questions', subset, ...ownArgs]);
    if (code !== 0) process.exit(code);
  }
}
