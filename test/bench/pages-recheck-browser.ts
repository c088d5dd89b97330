// What the query worker's per-question pages re-check costs, in headless Chromium on the built app (real IndexedDB):
// every question of a library answered in memory first asks the store whether it is now answered from its pages
// (QueryService.pagesState → openStoredPages, src/services/library/storedPages.ts). Per library (a bundle imported
// through the Library view into a fresh profile, sentence vectors off with --lexical so it stays lexical): --questions
// questions are asked one after another in the Ask view and each is timed from the click to the result (ask p50/p95);
// then the store reads the re-check makes are timed from the page (the same IndexedDB, on the browser's IndexedDB
// thread either way): the pages record, the index record, the threshold setting and the chunks' count().
// Compare builds (E2E_DIST): one with the re-check, one without (the verdict cached), one with the change.
// Usage: npm run build && E2E_DIST=dist node --import tsx test/bench/pages-recheck-browser.ts <x.bundle>
//          --questions questions.jsonl [--count 40] [--lexical] [--reads 60] [--json out.json]
//   questions.jsonl: one {"question": …} a line (the shared sets' questions.jsonl). Worker marks, when the build
//   logs "[recheck] <ms>" lines from the query worker (a diagnostic build), are summarised too.
import { access, readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { importBundle, openApp, readCounts, waitIdle } from '../e2e/lib/app.ts';
import { openHarness } from '../e2e/lib/harness.ts';
import { serveStatic } from '../e2e/lib/staticServer.ts';
import { arg, positional } from './lib/args.ts';
import { putSetting, timedAsk } from './lib/dropProbes.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const USAGE =
  'usage: node --import tsx test/bench/pages-recheck-browser.ts <x.bundle> --questions questions.jsonl ' +
  '[--count 40] [--lexical] [--reads 60] [--json out.json]';
const STEP_TIMEOUT_MS = 10 * 60_000;

const load = () => loadavg().map((x) => Math.round(x * 100) / 100);

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const summary = (values: readonly number[]) =>
  `p50 ${percentile(values, 50).toFixed(1)} ms, p95 ${percentile(values, 95).toFixed(1)} ms (n ${values.length})`;

/**
 * Asks one question in the Ask view (the mode the page has) and returns click → result, the query worker's own time
 * for it (its `milliseconds`, which starts after the re-check), and where it was answered from.
 */
async function askTimed(
  page: Page,
  question: string,
): Promise<{ ms: number; workerMs: number; from: string }> {
  await page.fill('[data-testid="question"]', question);
  await page.waitForSelector('[data-testid="ask"]:not([disabled])', { timeout: STEP_TIMEOUT_MS });
  const r = await page.evaluate(timedAsk, STEP_TIMEOUT_MS);
  if (r.error || r.empty) throw new Error(`pages-recheck bench: no result (${r.error ?? 'empty library'})`);
  const from = await page.locator('[data-testid="results"]').getAttribute('data-from');
  return { ms: r.ms, workerMs: r.worker?.ms ?? Number.NaN, from: from ?? 'memory' };
}

/**
 * The store reads of one re-check, timed in the page `reads` times each: every read alone, then as openStoredPages
 * and pagesLibrary ask them, counting the chunks (the pages record and the index record, then the setting, the
 * index record again and count()) or reading them from the index record's tally (the three records at once).
 */
async function timeReads(page: Page, reads: number): Promise<Record<string, number[]>> {
  return page.evaluate(async (n) => {
    const db = await new Promise<IDBDatabase>((ok, ko) => {
      const r = indexedDB.open('conceptrag');
      r.onsuccess = () => ok(r.result);
      r.onerror = () => ko(r.error);
    });
    const req = <T>(store: string, make: (s: IDBObjectStore) => IDBRequest<T>) =>
      new Promise<T>((ok, ko) => {
        const r = make(db.transaction(store).objectStore(store));
        r.onsuccess = () => ok(r.result);
        r.onerror = () => ko(r.error);
      });
    const steps: Record<string, () => Promise<unknown>> = {
      'pages record': () => req('pages', (s) => s.get('library')),
      'index record': () => req('meta', (s) => s.get('index')),
      'threshold setting': () => req('settings', (s) => s.get('pagesMinChunks')),
      'chunks count()': () => req('chunks', (s) => s.count()),
      // As at c34b0c8: the chunks counted at every question.
      'the re-check, counted': async () => {
        await Promise.all([req('pages', (s) => s.get('library')), req('meta', (s) => s.get('index'))]);
        await Promise.all([
          req('settings', (s) => s.get('pagesMinChunks')),
          req('chunks', (s) => s.count()),
          req('meta', (s) => s.get('index')),
        ]);
      },
      // With the index record's tally of chunks: three small records, read at once.
      'the re-check, tallied': () =>
        Promise.all([
          req('pages', (s) => s.get('library')),
          req('meta', (s) => s.get('index')),
          req('settings', (s) => s.get('pagesMinChunks')),
        ]),
    };
    const out: Record<string, number[]> = {};
    try {
      for (const [name, step] of Object.entries(steps)) {
        out[name] = [];
        for (let i = 0; i < n; i++) {
          const t = performance.now();
          await step();
          out[name].push(performance.now() - t);
        }
      }
    } finally {
      db.close();
    }
    return out;
  }, reads);
}

async function main(): Promise<void> {
  const given = positional();
  const questionsFile = arg('questions', '');
  if (!given || !questionsFile) throw new Error(USAGE);
  const bundle = resolve(given);
  const count = Number(arg('count', '40'));
  const reads = Number(arg('reads', '60'));
  const lexical = process.argv.includes('--lexical');
  const json = process.argv.includes('--json') ? arg('json', '') : '';
  const questions = (await readFile(questionsFile, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { question: string }).question)
    .slice(0, count + 1);
  if (questions.length < count + 1) throw new Error(`${questionsFile}: fewer than ${count + 1} questions`);
  const dist = resolve(process.env.E2E_DIST ?? join(root, 'dist'));
  await access(join(dist, 'index.html')).catch(() => {
    throw new Error(`pages-recheck bench: no built app at ${dist} (npm run build, or set E2E_DIST)`);
  });
  const server = await serveStatic(dist);
  const { harness, close } = await openHarness(server.origin, dist, 'pages-recheck');
  const { page } = harness;
  const workerMarks: number[] = [];
  page.on('console', (msg) => {
    const m = /^\[recheck\] ([\d.]+)/.exec(msg.text());
    if (m) workerMarks.push(Number(m[1]));
  });
  try {
    await openApp(page, server.origin);
    if (lexical && !(await page.evaluate(putSetting, { key: 'sentenceVectors', value: false })))
      throw new Error('pages-recheck bench: the settings store is not there yet');
    await importBundle(page, bundle, STEP_TIMEOUT_MS);
    await waitIdle(page, STEP_TIMEOUT_MS);
    const counts = await readCounts(page);
    console.log(`${bundle} in ${dist}: ${JSON.stringify(counts)}; load ${load().join(' ')}`);
    await openApp(page, server.origin, 'ask');
    // The first question loads the library (and the question model): not what is measured.
    const first = await askTimed(page, questions[0]);
    console.log(`first question (loads the library): ${first.ms.toFixed(0)} ms, from ${first.from}`);
    workerMarks.length = 0;
    const before = load();
    const times: number[] = [];
    const outside: number[] = [];
    const from = new Set<string>();
    for (const question of questions.slice(1)) {
      const r = await askTimed(page, question);
      times.push(r.ms);
      // What the worker's own time leaves out: the re-check, the messages and the page's rendering.
      outside.push(r.ms - r.workerMs);
      from.add(r.from);
    }
    const after = load();
    console.log(
      `ask, click → result: ${summary(times)}, answered from ${[...from].join('+')}; load ${before.join(' ')} → ${after.join(' ')}`,
    );
    console.log(`click → result less the worker's own time: ${summary(outside)}`);
    if (workerMarks.length > 0) console.log(`worker [recheck] marks: ${summary(workerMarks)}`);
    const readsBefore = load();
    const timed = await timeReads(page, reads);
    for (const [name, values] of Object.entries(timed)) console.log(`  ${name}: ${summary(values)}`);
    console.log(`  (reads timed in the page; load ${readsBefore.join(' ')} → ${load().join(' ')})`);
    harness.assertPrivate('pages-recheck bench');
    if (json) {
      await writeFile(
        json,
        JSON.stringify(
          {
            bundle,
            dist,
            counts,
            times,
            outside,
            from: [...from],
            workerMarks,
            reads: timed,
            load: [before, after],
          },
          null,
          2,
        ) + '\n',
      );
    }
  } finally {
    await close();
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
