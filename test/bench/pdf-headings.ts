// Headings a PDF reader finds against the same pages' Markdown headings (issue 45): for every Markdown page of a
// folder and its PDF of the same name (printed by test/bench/pdf-vs-markdown.ts), the headings of both as the app's
// parsers read them (parseFile), matched by their words. Counts per Markdown level the headings the PDF has as a
// heading, and what a missed one became in the PDF's text: a paragraph of its own (the line kept as body text), the
// start of a longer paragraph (run into the text after it), or not found. Also counts the PDF's headings the
// Markdown does not have, and the parse time of the PDFs.
//
//   node --import tsx test/bench/pdf-headings.ts --pdf <folder of PDFs> [--docs /work/shared/bench/vuedocs/docs]
//     [--show N] [--json out.json]
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseFile } from '../../src/core/parse/index.ts';

const { values: opts } = parseArgs({
  options: {
    docs: { type: 'string', default: '/work/shared/bench/vuedocs/docs' },
    pdf: { type: 'string' },
    show: { type: 'string', default: '0' },
    json: { type: 'string' },
  },
});
if (!opts.pdf) throw new Error('pdf-headings: --pdf <folder> is required');

const words = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

interface Heading {
  heading: string;
  level: number;
}

const headingsOf = (sections: Array<{ heading: string; level: number }>): Heading[] =>
  sections.filter((s) => s.level > 0).map(({ heading, level }) => ({ heading, level }));

const found = new Map<number, number>();
const missed = new Map<number, number>();
const became = { ownParagraph: 0, paragraphStart: 0, inside: 0, absent: 0 };
const levelAgrees = { same: 0, differs: 0 };
let extra = 0;
const examples: string[] = [];
const extras: string[] = [];
let parseMs = 0;
let pdfs = 0;
const add = (m: Map<number, number>, k: number): void => void m.set(k, (m.get(k) ?? 0) + 1);

const files = (await readdir(opts.docs!)).filter((f) => f.endsWith('.md')).sort();
for (const file of files) {
  const name = basename(file, '.md');
  let pdfBytes: Uint8Array;
  try {
    pdfBytes = new Uint8Array(await readFile(join(opts.pdf, `${name}.pdf`)));
  } catch {
    continue;
  }
  const md = (await parseFile(file, new Uint8Array(await readFile(join(opts.docs!, file))))).documents[0];
  const started = performance.now();
  const pdf = (await parseFile(`${name}.pdf`, pdfBytes)).documents[0];
  parseMs += performance.now() - started;
  pdfs++;
  const pdfHeadings = headingsOf(pdf.sections);
  const unmatched = [...pdfHeadings];
  const paragraphs = pdf.text.split(/\n\n/).map(words);
  for (const h of headingsOf(md.sections)) {
    const key = words(h.heading);
    const at = unmatched.findIndex((p) => words(p.heading) === key);
    if (at >= 0) {
      add(found, h.level);
      if (unmatched[at].level === h.level) levelAgrees.same++;
      else levelAgrees.differs++;
      unmatched.splice(at, 1);
      continue;
    }
    add(missed, h.level);
    let kind: keyof typeof became = 'absent';
    if (paragraphs.includes(key)) kind = 'ownParagraph';
    else if (paragraphs.some((p) => p.startsWith(`${key} `))) kind = 'paragraphStart';
    else if (paragraphs.some((p) => p.includes(` ${key} `))) kind = 'inside';
    became[kind]++;
    examples.push(`${name}: h${h.level} "${h.heading}" → ${kind}`);
  }
  extra += unmatched.length;
  for (const u of unmatched) extras.push(`${name}: pdf h${u.level} "${u.heading}"`);
}

const levels = [...new Set([...found.keys(), ...missed.keys()])].sort();
console.log(`${pdfs} PDFs from ${opts.pdf}, parsed in ${(parseMs / 1000).toFixed(1)} s`);
console.log('| Markdown level | headings | found in the PDF | missed |');
console.log('| --- | --- | --- | --- |');
for (const l of levels) {
  const f = found.get(l) ?? 0;
  const m = missed.get(l) ?? 0;
  console.log(`| h${l} | ${f + m} | ${f} | ${m} |`);
}
console.log(`found at the Markdown's level: ${levelAgrees.same}, at another level: ${levelAgrees.differs}`);
console.log(
  `missed headings became: own paragraph ${became.ownParagraph}, start of a paragraph ${became.paragraphStart}, inside a paragraph ${became.inside}, not found ${became.absent}`,
);
console.log(`PDF headings the Markdown does not have: ${extra}`);
const show = Number(opts.show);
if (show > 0) {
  console.log(examples.slice(0, show).join('\n'));
  console.log(extras.slice(0, show).join('\n'));
}
if (opts.json) {
  await writeFile(
    opts.json,
    JSON.stringify(
      { pdfs, parseMs, found: [...found], missed: [...missed], became, levelAgrees, extra, examples, extras },
      null,
      1,
    ),
  );
}
