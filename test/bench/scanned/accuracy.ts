// Character accuracy and speed of text recognition on the scanned set (build.mjs): each scanned PDF is parsed as
// `cli index` parses it (ThreadParser: the parse thread, Tesseract in its own thread), its text compared with the
// text layer of the same pages in the text copy (1 − edit distance / length, whitespace collapsed, Chinese without
// spaces), and the seconds per recognised page timed from the thread's page events.
//
//   npx tsx test/bench/scanned/accuracy.ts [scanned dir] [--only en|zh|<file stem>,…]
//
// The parse thread's limits are raised to 10 minutes (the file's and each page's): on a machine at load 30 the
// app's 30 s before the first page and 60 s a page were overrun, and this bench measures the recognition, not the
// limits (their own tests are in test/unit/parse/ocrScan.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ThreadParser } from '../../../src/cli/threadParser.ts';
import { prepareFile } from '../../../src/core/prepare.ts';

const dir =
  process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 'test/fixtures/generated/scanned';
const only = process.argv.includes('--only')
  ? process.argv[process.argv.indexOf('--only') + 1].split(',')
  : undefined;
const LIMIT_MS = 600_000;

/** Levenshtein distance over code points, two rows. */
function distance(a: string[], b: string[]): number {
  let prev = new Int32Array(b.length + 1).map((_, j) => j);
  let row = new Int32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
    }
    [prev, row] = [row, prev];
  }
  return prev[b.length];
}

const normal = (text: string, zh: boolean): string[] => [
  ...(zh ? text.replace(/\s+/g, '') : text.replace(/\s+/g, ' ').trim()),
];

const files = readdirSync(join(dir, 'scan'))
  .filter((f) => f.endsWith('.pdf') && (!only || only.some((o) => f.startsWith(`${o}-`) || f === `${o}.pdf`)))
  .sort();
const pageStarts: number[] = [];
const parser = new ThreadParser({
  timeoutMs: LIMIT_MS,
  pageTimeoutMs: LIMIT_MS,
  onOcrProgress: () => pageStarts.push(performance.now()),
});
const rows: string[] = [];
const totals = { en: { chars: 0, errors: 0, pages: 0 }, zh: { chars: 0, errors: 0, pages: 0 } };
const perPage: number[] = [];
/** CPU seconds of each file over its pages (every thread of the process): what the load does not change much. */
const cpuPerPage: number[] = [];
const load = [loadavg()[0]];
const started = performance.now();
for (const file of files) {
  const zh = file.startsWith('zh-');
  const text = await prepareFile(file, new Uint8Array(readFileSync(join(dir, 'text', file))));
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  pageStarts.length = 0;
  const scan = await parser.prepare(file, new Uint8Array(readFileSync(join(dir, 'scan', file))), 1200);
  const t1 = performance.now();
  // Seconds of each recognised page: from its start to the next one's (the last to the file's end). The first
  // event of a file without text starts the language probe, which counts with the first page.
  const marks = [...pageStarts, t1];
  const pages = scan.recognised?.pages ?? 0;
  if (marks.length > 1) {
    perPage.push((t1 - marks[0]) / 1000 / Math.max(1, pages));
    const cpu = process.cpuUsage(cpu0);
    cpuPerPage.push((cpu.user + cpu.system) / 1e6 / Math.max(1, pages));
  }
  load.push(loadavg()[0]);
  const truth = normal(text.documents[0]?.doc.text ?? '', zh);
  const got = normal(scan.documents[0]?.doc.text ?? '', zh);
  const errors = distance(got, truth);
  const t = totals[zh ? 'zh' : 'en'];
  t.chars += truth.length;
  t.errors += errors;
  t.pages += pages;
  rows.push(
    `| ${file} | ${pages} | ${scan.recognised?.language ?? scan.errors.map((e) => e.reason).join('; ')} | ` +
      `${truth.length} | ${(100 * (1 - errors / Math.max(1, truth.length))).toFixed(1)} | ${((t1 - t0) / 1000).toFixed(1)} |`,
  );
  process.stderr.write(`${rows.at(-1)}\n`);
}
await parser.close();
const medianOf = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const median = medianOf(perPage);
console.log('| file | pages recognised | language | chars (text layer) | char accuracy % | seconds |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
for (const [lang, t] of Object.entries(totals)) {
  if (t.chars === 0) continue;
  console.log(
    `${lang}: ${t.pages} pages, character accuracy ${(100 * (1 - t.errors / t.chars)).toFixed(2)}% (${t.errors} edits over ${t.chars} characters)`,
  );
}
console.log(
  `seconds per page (a file's recognition time over its pages, median of files): ${median.toFixed(1)}; ` +
    `wall ${((performance.now() - started) / 1000).toFixed(0)} s; load average 1 min ${load.map((l) => l.toFixed(1)).join(' → ')} (min ${Math.min(...load).toFixed(1)}, max ${Math.max(...load).toFixed(1)}); ` +
    `peak RSS of the process (parse and recogniser threads included) ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
);
