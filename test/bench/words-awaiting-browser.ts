// Answers by words in Chromium, and their replacement once the pages are written (issue 25): a large library whose
// pages are not written yet is answered by words over its stored passages (src/services/questions/askByWords.ts),
// and the Ask view asks again when the pages come (src/ui/state/ask.svelte.ts, replaceWords). The library is a
// profile kept by `scale-browser.ts --profile <dir>` (a drop with its pages); the bench works on a copy of it,
// deletes the copy's pages record, and holds the library's ingest lock from a second tab of the same origin (as a
// tab in the middle of a drop holds it), so that the app's own start cannot write the pages and the window stays
// open while the questions are asked. It prints each question's time to its result, the query worker's own
// milliseconds, the evidence shown, and the peak JS heap; then it lets the lock go and prints the time until the
// app has written the pages and the last answer by words is replaced by the walk's (data-from="pages").
// Usage: node --import tsx test/bench/words-awaiting-browser.ts --profile /work/scale-data/profile-mb100
//        [--port 41731] [--questions <qa.jsonl>] [--count 5] [--dist dist] [--mode ppr|bm25]
//   The port must be the one the profile was made on (its IndexedDB belongs to that origin). CHROMIUM_PATH
//   (default /usr/bin/chromium); the app must be built into --dist (npx vite build).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { serveStatic } from '../e2e/lib/staticServer.ts';
import { timedAsk, type AskProbe } from './lib/dropProbes.ts';
import { startHeapSampler } from './lib/heapSampler.ts';
import { loadText as load, quantile } from './lib/report.ts';

const { values: opts } = parseArgs({
  options: {
    profile: { type: 'string' },
    port: { type: 'string', default: '41731' },
    questions: { type: 'string' },
    count: { type: 'string', default: '5' },
    dist: { type: 'string', default: 'dist' },
    mode: { type: 'string', default: 'ppr' },
  },
});
if (!opts.profile || !existsSync(opts.profile)) {
  process.stderr.write(
    'usage: node --import tsx test/bench/words-awaiting-browser.ts --profile <dir kept by scale-browser.ts> ' +
      '[--port 41731] [--questions qa.jsonl] [--count 5] [--dist dist] [--mode ppr|bm25]\n',
  );
  process.exit(2);
}
const dist = resolve(opts.dist);
if (!existsSync(join(dist, 'index.html')))
  throw new Error(`no built app in ${dist} (npx vite build --outDir ${dist})`);
const questions = (
  opts.questions
    ? readFileSync(opts.questions, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { question: string }).question)
    : ['What is the capital of the region?']
).slice(0, Number(opts.count));

// The kept profile is never changed: its pages are deleted in a copy.
const copy = await mkdtemp(join(tmpdir(), 'conceptrag-words-profile-'));
const copied = spawnSync('cp', ['-a', `${resolve(opts.profile)}/.`, copy]);
if (copied.status !== 0) throw new Error(`copying the profile failed: ${copied.stderr.toString()}`);
console.log(
  `words-awaiting-browser: profile ${opts.profile} (copied), ${questions.length} questions, mode ${opts.mode}; ` +
    `${cpus().length} cores, load ${load()}`,
);

const server = await serveStatic(dist, { port: Number(opts.port) });
const origin = `http://127.0.0.1:${opts.port}`;
const context = await chromium.launchPersistentContext(copy, {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--enable-blink-features=ForceEagerMeasureMemory'],
  viewport: { width: 1200, height: 900 },
});
await context.addInitScript({ content: 'globalThis.__name ??= (fn) => fn;' });
try {
  // A page of the same origin that is not the app (the static server's 404): it deletes the pages and holds the
  // ingest lock, before any app page starts.
  const holder = context.pages()[0] ?? (await context.newPage());
  await holder.goto(`${origin}/holds-the-ingest-lock`);
  const deleted = await holder.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((ok, fail) => {
      const r = indexedDB.open('conceptrag');
      r.onsuccess = () => ok(r.result);
      r.onerror = () => fail(r.error);
    });
    try {
      const tx = db.transaction('pages', 'readwrite');
      const store = tx.objectStore('pages');
      const had = await new Promise<number>((ok) => {
        const r = store.count();
        r.onsuccess = () => ok(r.result);
      });
      store.clear();
      await new Promise<void>((ok, fail) => {
        tx.oncomplete = () => ok();
        tx.onerror = () => fail(tx.error);
      });
      return had;
    } finally {
      db.close();
    }
  });
  if (deleted === 0) throw new Error('the profile has no pages record: keep a drop past the threshold');
  await holder.evaluate(() => {
    const w = window as unknown as { releaseLock: () => void };
    return new Promise<void>((held) => {
      void navigator.locks.request(
        'conceptrag:ingest',
        () =>
          new Promise<void>((release) => {
            w.releaseLock = release;
            held();
          }),
      );
    });
  });

  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await page.goto(`${origin}/#ask`);
  await page.waitForSelector('[data-indexing]');
  const heap = startHeapSampler(page, cdp, 2000);
  await page.selectOption('[data-testid="mode"]', opts.mode);
  const asked: Array<AskProbe & { from: string | null }> = [];
  for (const question of questions) {
    await page.fill('[data-testid="question"]', question);
    const r = await page.evaluate(timedAsk, 30 * 60_000);
    const from = await page.getAttribute('[data-testid="results"]', 'data-from').catch(() => null);
    asked.push({ ...r, from });
    console.log(
      `  ${(r.ms / 1000).toFixed(1)} s to the result (worker ${((r.worker?.ms ?? NaN) / 1000).toFixed(1)} s), ` +
        `${r.evidence} evidence, from ${from ?? r.error ?? '?'}; load ${load()} — ${question.slice(0, 70)}`,
    );
  }
  const byWords = asked.filter((a) => a.from === 'words').map((a) => a.ms / 1000);
  console.log(
    `by words: ${byWords.length} of ${asked.length} answered by words; p50 ${quantile(byWords, 0.5).toFixed(1)} s, ` +
      `max ${Math.max(...byWords).toFixed(1)} s; load ${load()}`,
  );

  // The lock let go: the app's ingest worker writes the pages, and the answer by words on screen is replaced.
  const t = performance.now();
  await holder.evaluate(() => (window as unknown as { releaseLock: () => void }).releaseLock());
  await page.waitForSelector('[data-testid="results"][data-from="pages"] [data-testid="replaced-words"]', {
    timeout: 60 * 60_000,
  });
  const replaced = (performance.now() - t) / 1000;
  await heap.stop();
  const peaks = heap.peaks();
  console.log(
    `the lock let go: pages written and the last answer replaced by the walk's in ${replaced.toFixed(1)} s; ` +
      `evidence ${await page.locator('[data-testid="results"] [data-testid="evidence"]').count()}; ` +
      `peak JS heap ${peaks.peakJsMB ?? '?'} MiB (${peaks.atPeak.map((r) => `${r.realm} ${r.MB}`).join(', ')}); ` +
      `load ${load()}`,
  );
} finally {
  await context.close().catch(() => undefined);
  await server.close();
  await rm(copy, { recursive: true, force: true });
}
