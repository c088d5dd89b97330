// The first question on a large library in headless Chromium, through the built app: after the app opens on a
// library already in IndexedDB, and after the library changed. The library is a bundle imported through the
// Library view (the same stored form a finished drop leaves: documents, int8 vectors, compact graph), so a run
// takes a minute rather than the eight of a MuSiQue drop.
// Usage: npm run build && node --import tsx test/bench/first-question-browser.ts <x.bundle>
//        [--question "<text>"] [--runs 3] [--typing-ms 3000] [--add <file>] [--json out.json]
//   Part 1, per run: the page is opened again at #ask (a new document, so the query worker starts empty) and the
//   question is asked (a) at once, as soon as the Ask button takes it, and (b) --typing-ms after the page opened,
//   the time a user takes to type a question (the warm start has begun loading the library by then). Each is
//   timed from the click to the first evidence on screen (early lexical evidence or the result) and to the
//   result (the mode with the question's vector), with the query worker's own marks for its library load.
//   Part 2 (--add): the file is added through the file input; once the app is idle the question is asked at once
//   and timed the same way: the first question after the library changed, as after a drop completes.
//   The built app is read from E2E_DIST or ./dist; Chromium from CHROMIUM_PATH or /usr/bin/chromium.
import { access, stat, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { Diagnostics } from '../../src/ui/workers.ts';
import { addFiles, importBundle, openApp, readCounts, waitIdle } from '../e2e/lib/app.ts';
import { openHarness } from '../e2e/lib/harness.ts';
import { serveStatic } from '../e2e/lib/staticServer.ts';
import { watchEvidence } from './lib/dropProbes.ts';
import { arg, positional } from './lib/args.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DEFAULT_QUESTION =
  'Who introduced a system of musical notation in the 14th century that is used in the area where most of the ' +
  'invasion of the eastern Roman Empire took place?';
const USAGE =
  'usage: node --import tsx test/bench/first-question-browser.ts <x.bundle> [--question "<text>"] [--runs 3] ' +
  '[--typing-ms 3000] [--add <file>] [--json out.json]';
const STEP_TIMEOUT_MS = 10 * 60_000;

interface Timed {
  what: string;
  /** Click on Ask → first evidence card on screen (early or settled). */
  firstEvidenceMs: number;
  firstEvidenceStage: string;
  /** Click on Ask → the result (Ask no longer searching). */
  resultMs: number;
  /** The page opened → the click (part 1). */
  askedAtMs: number;
  /** The page opened → its first contentful paint (null when the browser gives none). */
  paintMs: number | null;
  evidence: number;
  layer: string | null;
  /** The query worker's marks for its last library load (ms after the load began). */
  worker: Record<string, number> | null;
  load: number[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Clicks Ask (the question already typed) and times the evidence and the result from the click. */
async function askTimed(page: Page, what: string): Promise<Timed> {
  const load = loadavg().map((x) => Math.round(x * 100) / 100);
  await page.waitForSelector('[data-testid="ask"]:not([disabled])', { timeout: STEP_TIMEOUT_MS });
  const [clickedAt, navigatedAtEpochMs, paintMs] = await page.evaluate(() => [
    performance.now(),
    performance.timeOrigin,
    performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1,
  ]);
  await page.click('[data-testid="ask"]', { timeout: STEP_TIMEOUT_MS });
  const r = await page.evaluate(watchEvidence, STEP_TIMEOUT_MS);
  const worker = await page.evaluate(async () =>
    (globalThis as unknown as { conceptragDiagnostics: Diagnostics }).conceptragDiagnostics.loadTimings(),
  );
  // The load's start, as ms after the page's navigation.
  if (worker?.beganAtEpochMs) {
    worker.beganAfterNavigationMs = Math.round(worker.beganAtEpochMs - navigatedAtEpochMs);
    delete worker.beganAtEpochMs;
  }
  return {
    what,
    firstEvidenceMs: r.firstEvidenceMs - clickedAt,
    firstEvidenceStage: r.firstEvidenceStage,
    resultMs: r.resultMs - clickedAt,
    askedAtMs: clickedAt,
    paintMs: paintMs < 0 ? null : Math.round(paintMs),
    evidence: r.evidence,
    layer: r.layer,
    worker,
    load,
  };
}

function report(t: Timed): void {
  console.log(
    `${t.what}: first evidence ${t.firstEvidenceMs.toFixed(0)} ms (${t.firstEvidenceStage}), result ` +
      `${t.resultMs.toFixed(0)} ms (${t.evidence} passages, ${t.layer}); asked ${t.askedAtMs.toFixed(0)} ms ` +
      `after the page opened, first paint at ${t.paintMs ?? '?'} ms; worker load ${JSON.stringify(t.worker)}; load ${t.load.join(' ')}`,
  );
}

/** Opens the app anew at #ask with the question typed, then asks after `delayMs` from navigation. */
async function askAfterOpen(
  page: Page,
  origin: string,
  question: string,
  delayMs: number,
  what: string,
): Promise<Timed> {
  await page.goto(`${origin}/?open=${Date.now()}#ask`, { waitUntil: 'commit' });
  await page.fill('[data-testid="question"]', question, { timeout: STEP_TIMEOUT_MS });
  const now = await page.evaluate(() => performance.now());
  if (delayMs > now) await sleep(delayMs - now);
  return askTimed(page, what);
}

async function main(): Promise<void> {
  const given = positional();
  if (!given) throw new Error(USAGE);
  const bundle = resolve(given);
  if (!(await stat(bundle).catch(() => null))?.isFile())
    throw new Error(`first-question bench: ${bundle} is not a file`);
  const dist = resolve(process.env.E2E_DIST ?? join(root, 'dist'));
  await access(join(dist, 'index.html')).catch(() => {
    throw new Error(`first-question bench: no built app at ${dist} (run npm run build, or set E2E_DIST)`);
  });
  const runs = Number(arg('runs', '3'));
  const typingMs = Number(arg('typing-ms', '3000'));
  const question = arg('question', DEFAULT_QUESTION);
  const add = process.argv.includes('--add') ? resolve(arg('add', '')) : '';
  const server = await serveStatic(dist);
  const { harness, close } = await openHarness(server.origin, dist, 'first-question');
  const results: Timed[] = [];
  try {
    const { page } = harness;
    await openApp(page, server.origin);
    const t0 = performance.now();
    await importBundle(page, bundle, STEP_TIMEOUT_MS);
    await waitIdle(page, STEP_TIMEOUT_MS);
    console.log(
      `imported ${bundle} in ${((performance.now() - t0) / 1000).toFixed(1)} s: ` +
        JSON.stringify(await readCounts(page)),
    );

    for (let run = 1; run <= runs; run++) {
      for (const [delay, label] of [
        [0, 'asked at once'],
        [typingMs, `asked ${typingMs} ms after opening`],
      ] as const) {
        const r = await askAfterOpen(
          page,
          server.origin,
          question,
          delay,
          `run ${run}, app opened, ${label}`,
        );
        results.push(r);
        report(r);
      }
    }

    if (add) {
      await page.click('a[href="#library"]');
      await addFiles(page, [add]);
      await page.waitForFunction(
        () => document.querySelector('[data-indexing]')?.getAttribute('data-indexing') !== 'idle',
        undefined,
        { timeout: 30_000, polling: 50 },
      );
      await waitIdle(page, STEP_TIMEOUT_MS, 100);
      await page.click('a[href="#ask"]');
      await page.fill('[data-testid="question"]', question);
      const r = await askTimed(page, `after adding ${add}, asked once idle`);
      results.push(r);
      report(r);
    }
    harness.assertPrivate('first-question bench');
  } finally {
    await close();
    await server.close();
  }
  const out = process.argv.includes('--json') ? arg('json', '') : '';
  if (out) {
    await writeFile(out, JSON.stringify({ bundle, question, typingMs, results }, null, 2) + '\n');
    console.log(`first-question bench: wrote ${out}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
