// Two bundles with pages (e.g. a version 1 bundle and its `cli upgrade`), opened by ranges from files and asked the
// same questions in the default mode: the bytes each reads to open (its `open` section, the block hashes and the
// manifest), then per question its hits (identical or not), bytes, rounds and time. Prints how many questions had
// identical hits, the figure open-format.md quotes.
// Usage: node --import tsx test/bench/pages-versions.ts <a.bundle> <b.bundle> --questions <qa.jsonl> [--count 6]
//        [--budget 2000]
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { FileRangeSource } from '../../src/cli/fileRangeSource.ts';
import { openPagedBundle, type PagedLibrary } from '../../src/core/paged/index.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';

const USAGE =
  'usage: node --import tsx test/bench/pages-versions.ts <a.bundle> <b.bundle> --questions <qa.jsonl> [--count 6] [--budget 2000]';
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    questions: { type: 'string' },
    count: { type: 'string', default: '6' },
    budget: { type: 'string', default: '2000' },
  },
});
const count = Number(values.count);
const budget = Number(values.budget);
if (positionals.length !== 2 || !values.questions || !(count >= 1) || !(budget >= 1)) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}
const questions = readFileSync(values.questions, 'utf8')
  .trim()
  .split('\n')
  .slice(0, count)
  .map((line) => (JSON.parse(line) as { question: string }).question);
const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

const libraries: PagedLibrary[] = [];
for (const path of positionals) {
  const source = await FileRangeSource.open(path);
  const started = performance.now();
  const opened = await openPagedBundle(source, createTermAnalyzer());
  if (!opened) throw new Error(`${path} has no pages`);
  const d = opened.library.directory;
  console.log(
    `${path}: pages version ${d.version}, open section ${d.sections.open[1]} bytes, read to open ${source.bytesRead} ` +
      `bytes (${((100 * source.bytesRead) / source.size).toFixed(2)}% of ${source.size}) in ` +
      `${Math.round(performance.now() - started)} ms; load ${load()}`,
  );
  libraries.push(opened.library);
}
let identical = 0;
for (const q of questions) {
  const runs: Array<{ hits: string; line: string }> = [];
  for (const library of libraries) {
    const started = performance.now();
    const answer = await library.search(q, 'ppr', budget);
    runs.push({
      hits: JSON.stringify(answer.hits),
      line: `${answer.bytes} B, ${answer.rounds} rounds, ${Math.round(performance.now() - started)} ms`,
    });
  }
  const same = runs[0].hits === runs[1].hits;
  if (same) identical++;
  console.log(
    `${same ? 'same     ' : 'DIFFERENT'} ${runs.map((r) => r.line).join(' | ')}  ${q.slice(0, 60)}`,
  );
}
console.log(`${identical}/${questions.length} questions with identical hits; load ${load()}`);
