// Seconds per recognised page in headless Chromium, through the built app: the scanned set's PDFs (build.mjs) are
// dropped into the Library view as a person would, and each "recognising page n of N" line the Library shows is
// timed. A file's seconds per page is its time from its first such line to its next file's (or the end of
// indexing) over its pages — the language probe of a file without text counts with its first page, as in
// accuracy.ts for the CLI. Also the peak resident memory of the browser's processes (sampled from /proc every
// 250 ms: every Chromium process of the bench's profile, summed) and the recogniser files the first use fetched.
//
//   npm run build && node --import tsx test/bench/scanned/browser.ts [scanned dir] [--only en|zh|<file stem>,…] [--files N]
//   The built app is read from E2E_DIST or ./dist; Chromium from CHROMIUM_PATH or /usr/bin/chromium.
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { addFiles, openApp, readOutcomes, waitIdle } from '../../e2e/lib/app.ts';
import { openHarness } from '../../e2e/lib/harness.ts';
import { serveStatic } from '../../e2e/lib/staticServer.ts';
import { arg, positional } from '../lib/args.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const dir = resolve(positional() ?? join(root, 'test/fixtures/generated/scanned'));
const only = arg('only', '');
const limit = Number(arg('files', 'Infinity'));
const dist = process.env.E2E_DIST ?? join(root, 'dist');

/** Resident memory (MiB) of every process whose command line names `marker` (the bench's Chromium profile). */
function rssOf(marker: string): number {
  let kb = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(marker)) continue;
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1] ?? 0);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return kb / 1024;
}

const files = readdirSync(join(dir, 'scan'))
  .filter(
    (f) =>
      f.endsWith('.pdf') && (!only || only.split(',').some((o) => f.startsWith(`${o}-`) || f === `${o}.pdf`)),
  )
  .sort()
  .slice(0, limit)
  .map((f) => join(dir, 'scan', f));
const server = await serveStatic(dist);
const { harness, close } = await openHarness(server.origin, dist, 'ocr-browser');
const { page } = harness;
const fetched = new Map<string, number>();
page.context().on('requestfinished', (request) => {
  const path = new URL(request.url()).pathname;
  if (!path.includes('/tesseract/')) return;
  void request.sizes().then((s) => fetched.set(path, s.responseBodySize));
});
const load = [loadavg()[0]];
let peakMB = 0;
const sampler = setInterval(() => {
  peakMB = Math.max(peakMB, rssOf('conceptrag-e2e-profile-'));
  load.push(loadavg()[0]);
}, 250);
try {
  await openApp(page, server.origin);
  await page.evaluate(() => {
    const seen: { at: number; text: string }[] = [];
    (window as unknown as { ocrLines: typeof seen }).ocrLines = seen;
    new MutationObserver(() => {
      const text = (document.querySelector('[data-testid="activity"]')?.textContent ?? '')
        .replace(/\s+/g, ' ')
        .trim();
      if (text && seen.at(-1)?.text !== text) seen.push({ at: performance.now(), text });
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  const started = Date.now();
  await addFiles(page, files);
  await waitIdle(page);
  const wall = (Date.now() - started) / 1000;
  const lines = await page.evaluate(
    () => (window as unknown as { ocrLines: { at: number; text: string }[] }).ocrLines,
  );
  const end = await page.evaluate(() => performance.now());
  // Per file: the first and last "recognising" line, and how many pages it has.
  const byFile = new Map<string, { first: number; pages: number; language: string }>();
  const order: string[] = [];
  for (const { at, text } of lines) {
    const m = /([\w.-]+\.pdf): recognising page (\d+) of (\d+) \(([^)]+)\)/.exec(text);
    if (!m) continue;
    if (!byFile.has(m[1])) {
      byFile.set(m[1], { first: at, pages: Number(m[3]), language: m[4] });
      order.push(m[1]);
    }
    if (m[4] !== 'telling the language') byFile.get(m[1])!.language = m[4];
  }
  const perPage: number[] = [];
  console.log('| file | pages | language | seconds | s per page |');
  console.log('|---|---|---|---|---|');
  order.forEach((file, i) => {
    const f = byFile.get(file)!;
    const next = i + 1 < order.length ? byFile.get(order[i + 1])!.first : end;
    const seconds = (next - f.first) / 1000;
    perPage.push(seconds / f.pages);
    console.log(
      `| ${file} | ${f.pages} | ${f.language} | ${seconds.toFixed(1)} | ${(seconds / f.pages).toFixed(1)} |`,
    );
  });
  const sorted = [...perPage].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const outcomes = await readOutcomes(page);
  const indexed = outcomes.filter((o) => o.status === 'indexed').length;
  console.log(
    `${files.length} files, ${indexed} indexed; seconds per page (a file's recognition time over its pages, median ` +
      `of files): ${median.toFixed(1)}; wall ${wall.toFixed(0)} s; load average 1 min ` +
      `${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)}; peak RSS of Chromium's processes ` +
      `${peakMB.toFixed(0)} MB`,
  );
  const total = [...fetched.values()].reduce((a, b) => a + b, 0);
  console.log(
    `recogniser files fetched (bytes on the wire): ${[...fetched].map(([p, b]) => `${p} ${b}`).join(', ')}; ` +
      `total ${(total / 1e6).toFixed(2)} MB`,
  );
  harness.assertPrivate('ocr-browser');
} finally {
  clearInterval(sampler);
  await close();
  await server.close();
}
