// Parse time of a folder of PDFs through the app's parser (parseFile, pdf.js in this thread), for before/after
// pairs of a PDF reader change: run it from two checkouts, alternately, at the same load.
//
//   node --import tsx test/bench/pdf-parse-time.ts <folder> [--repeat N]
// Prints the total milliseconds of each pass, the PDFs, pages and headings read.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: { repeat: { type: 'string', default: '1' } },
});
if (positionals.length !== 1) throw new Error('pdf-parse-time: one folder of PDFs');
// The checkout the script runs from is the one measured.
const { parseFile } = await import(join(process.cwd(), 'src/core/parse/index.ts'));
const folder = positionals[0];
const files = (await readdir(folder)).filter((f) => f.endsWith('.pdf')).sort();
const inputs = await Promise.all(
  files.map(async (f) => [f, new Uint8Array(await readFile(join(folder, f)))] as const),
);
for (let pass = 0; pass < Number(opts.repeat); pass++) {
  let pages = 0;
  let headings = 0;
  const started = performance.now();
  for (const [name, bytes] of inputs) {
    const { documents } = await parseFile(name, bytes);
    for (const doc of documents) {
      pages += doc.pageStarts?.length ?? 0;
      headings += doc.sections.filter((s: { level: number }) => s.level > 0).length;
    }
  }
  const ms = performance.now() - started;
  console.log(`${folder}: ${inputs.length} PDFs, ${pages} pages, ${headings} headings, ${ms.toFixed(0)} ms`);
}
