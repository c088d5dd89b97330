// Checks a held-out question set against its built docs/ folder before any retrieval is run on it: the fields of
// every line, unique ids, that every supporting id names a file of the folder (its name without the extension, as
// the bench resolves it), that single/multi match the number of gold pages, and that every answer string occurs in
// a gold page (case-insensitive, whitespace runs folded to one space; a PDF is read through pdf.js, as the app
// reads it). Multi questions must have an answer on each gold page. Prints, per question, in how many files of the
// folder its rarest found answer occurs.
// Usage: node test/bench/heldout/validate.mjs <questions.jsonl> <docs folder>
import { readFileSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

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
    pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''));
  }
  await doc.destroy();
  return pages.join('\n');
}

const fold = (s) => s.toLowerCase().replace(/\s+/g, ' ');
const texts = new Map();
for (const name of readdirSync(docsDir)) {
  const file = join(docsDir, name);
  const text = extname(name) === '.pdf' ? await pdfText(file) : readFileSync(file, 'utf8');
  texts.set(name.slice(0, name.length - extname(name).length), fold(text));
}

const errors = [];
const seen = new Set();
const lines = readFileSync(questionsFile, 'utf8').split('\n').filter((l) => l.trim());
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
    if (typeof q[field] !== 'string' || !q[field]) errors.push(`${where}: "${field}" must be a non-empty string`);
  for (const field of ['answers', 'supporting', 'supporting_titles'])
    if (!Array.isArray(q[field]) || q[field].length === 0) errors.push(`${where}: "${field}" must be a non-empty list`);
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
  for (const answer of q.answers) {
    if (!gold.some((t) => t.includes(fold(answer))))
      errors.push(`${where}: answer ${JSON.stringify(answer)} occurs in no gold page`);
  }
  for (const [i, t] of gold.entries()) {
    if (q.supporting.length > 1 && !q.answers.some((a) => t.includes(fold(a))))
      errors.push(`${where}: gold page ${q.supporting[i]} holds none of the answers`);
  }
  const spread = Math.min(
    ...q.answers.map((a) => [...texts.values()].filter((t) => t.includes(fold(a))).length).filter((c) => c > 0),
  );
  process.stdout.write(`${q.id}: rarest answer in ${spread} file(s)\n`);
}
process.stdout.write(`${lines.length} questions ${JSON.stringify(types)}, ${texts.size} files\n`);
if (errors.length) {
  process.stdout.write(errors.join('\n') + '\nFAILED\n');
  process.exit(1);
}
process.stdout.write('OK\n');
