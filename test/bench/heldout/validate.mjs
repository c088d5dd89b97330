// Checks a held-out question set against its built docs/ folder before any retrieval is run on it: the fields of
// every line, unique ids, that every supporting id names a file of the folder (its name without the extension, as
// the bench resolves it), that single/multi match the number of gold pages, and that every answer string occurs in
// a gold page. "Occurs" is the bench's own test (contextRecall in src/core/metrics.ts): SQuAD-normalized, as whole
// words (a run of characters in Chinese), so Markdown markup (`code`, _emphasis_) around an answer does not matter
// and an answer that normalizes to nothing ("{:#?}") or to a word most pages hold is an error, as it would count
// any context as a hit. A PDF is read through pdf.js, as the app reads it. Multi questions must have an answer on
// each gold page. Prints, per question, in how many files of the folder its rarest answer occurs.
// Usage: node --import tsx test/bench/heldout/validate.mjs <questions.jsonl> <docs folder>
import { readFileSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { contextRecall, normalizeAnswer } from '../../../src/core/metrics.ts';

const [questionsFile, docsDir] = process.argv.slice(2);
if (!questionsFile || !docsDir) {
  process.stderr.write('usage: node test/bench/heldout/validate.mjs <questions.jsonl> <docs folder>\n');
  process.exit(2);
}

async function pdfText(file) {
  const doc = await getDocument({ data: new Uint8Array(readFileSync(file)), verbosity: 0 }).promise;
  const pages = [];
  for (let i = 1; i <= doc.numPages; i++) {
    const content = await (await doc.getPage(i)).getTextContent();
    pages.push(
      content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''),
    );
  }
  await doc.destroy();
  return pages.join('\n');
}

const texts = new Map();
for (const name of readdirSync(docsDir)) {
  const file = join(docsDir, name);
  const text = extname(name) === '.pdf' ? await pdfText(file) : readFileSync(file, 'utf8');
  texts.set(name.slice(0, name.length - extname(name).length), text);
}

const errors = [];
const seen = new Set();
const lines = readFileSync(questionsFile, 'utf8')
  .split('\n')
  .filter((l) => l.trim());
const types = {};
for (const [n, line] of lines.entries()) {
  const where = `${questionsFile}:${n + 1}`;
  let q;
  try {
    q = JSON.parse(line);
  } catch (error) {
    errors.push(`${where}: not JSON (${error.message})`);
    continue;
  }
  for (const field of ['id', 'question', 'type'])
    if (typeof q[field] !== 'string' || !q[field])
      errors.push(`${where}: "${field}" must be a non-empty string`);
  for (const field of ['answers', 'supporting', 'supporting_titles'])
    if (!Array.isArray(q[field]) || q[field].length === 0)
      errors.push(`${where}: "${field}" must be a non-empty list`);
  if (errors.length && errors.at(-1).startsWith(where)) continue;
  if (seen.has(q.id)) errors.push(`${where}: id ${q.id} is used twice`);
  seen.add(q.id);
  types[q.type] = (types[q.type] ?? 0) + 1;
  if (q.supporting.length !== q.supporting_titles.length)
    errors.push(`${where}: supporting and supporting_titles differ in length`);
  if ((q.type === 'single') !== (q.supporting.length === 1))
    errors.push(`${where}: type ${q.type} with ${q.supporting.length} supporting page(s)`);
  const gold = q.supporting.map((id) => {
    if (!texts.has(id)) errors.push(`${where}: supporting id ${id} names no file in ${docsDir}`);
    return texts.get(id) ?? '';
  });
  const occurs = (text, answer) => contextRecall(text, [answer]) === 1;
  const spreads = [];
  for (const answer of q.answers) {
    if (normalizeAnswer(answer) === '')
      errors.push(`${where}: answer ${JSON.stringify(answer)} normalizes to nothing`);
    else if (!gold.some((t) => occurs(t, answer)))
      errors.push(`${where}: answer ${JSON.stringify(answer)} occurs in no gold page`);
    const spread = [...texts.values()].filter((t) => occurs(t, answer)).length;
    if (spread > texts.size / 2)
      errors.push(`${where}: answer ${JSON.stringify(answer)} occurs in ${spread} of ${texts.size} files`);
    spreads.push(spread);
  }
  for (const [i, t] of gold.entries()) {
    if (q.supporting.length > 1 && !q.answers.some((a) => occurs(t, a)))
      errors.push(`${where}: gold page ${q.supporting[i]} holds none of the answers`);
  }
  const spread = Math.min(...spreads.filter((c) => c > 0));
  process.stdout.write(`${q.id}: rarest answer in ${spread} file(s)\n`);
}
process.stdout.write(`${lines.length} questions ${JSON.stringify(types)}, ${texts.size} files\n`);
if (errors.length) {
  process.stdout.write(errors.join('\n') + '\nFAILED\n');
  process.exit(1);
}
process.stdout.write('OK\n');
