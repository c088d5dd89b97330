// From page load to the library shown, in headless Chromium on the built app: the library is a bundle imported
// through the Library view (the stored form a finished drop leaves), then the page is loaded again --runs times and
// each load is timed from navigation to (a) the first paint of the "Opening your library…" state and (b) the
// Library view showing the stored document count. Until (b) the views say they are opening (issue 22, item 2):
// this is how long that lasts.
// Usage: npm run build && node --import tsx test/bench/library-open-browser.ts <x.bundle> [--runs 5] [--json out.json]
//   (make a bundle with `npm run cli -- index <folder> --out x.bundle`). E2E_DIST or ./dist; CHROMIUM_PATH.
import { access, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { importBundle, openApp } from '../e2e/lib/app.ts';
import { openHarness } from '../e2e/lib/harness.ts';
import { serveStatic } from '../e2e/lib/staticServer.ts';
import { arg, positional } from './lib/args.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const USAGE =
  'usage: node --import tsx test/bench/library-open-browser.ts <x.bundle> [--runs 5] [--json out.json]';

const load = () => loadavg().map((x) => Math.round(x * 100) / 100);

async function main(): Promise<void> {
  const bundle = positional();
  if (!bundle) throw new Error(USAGE);
  const runs = Number(arg('runs', '5'));
  const json = arg('json', '');
  const dist = resolve(process.env.E2E_DIST ?? join(root, 'dist'));
  await access(join(dist, 'index.html')).catch(() => {
    throw new Error(`no built app at ${dist}: npm run build first`);
  });
  const server = await serveStatic(dist);
  const { harness, close } = await openHarness(server.origin, dist, 'library-open');
  const { page, log } = harness;
  try {
    await openApp(page, server.origin);
    const imported = await importBundle(page, resolve(bundle), 10 * 60_000);
    log(imported);
    const documents = (await page.locator('[data-count="documents"]').textContent())?.trim() ?? '';
    // Marks from the page itself: the first time each state is on screen, ms after navigation.
    await page.context().addInitScript(() => {
      const w = window as unknown as { openMarks: Record<string, number> };
      w.openMarks = {};
      const check = () => {
        if (!w.openMarks.opening && document.querySelector('[data-testid="library-opening"]'))
          w.openMarks.opening = performance.now();
        const docs = document.querySelector('[data-count="documents"]');
        if (!w.openMarks.shown && docs && docs.textContent?.trim() !== '0')
          w.openMarks.shown = performance.now();
      };
      new MutationObserver(check).observe(document, { subtree: true, childList: true, characterData: true });
    });
    const results: { openingMs: number | null; shownMs: number; load: number[] }[] = [];
    for (let run = 0; run < runs; run++) {
      const before = load();
      await page.reload();
      await page.waitForFunction(
        (expected) => document.querySelector('[data-count="documents"]')?.textContent?.trim() === expected,
        documents,
        { timeout: 120_000, polling: 50 },
      );
      const marks = await page.evaluate(
        () => (window as unknown as { openMarks: Record<string, number> }).openMarks,
      );
      const r = {
        openingMs: marks.opening ? Math.round(marks.opening) : null,
        shownMs: Math.round(marks.shown),
        load: before,
      };
      results.push(r);
      log(
        `load ${run + 1}: "Opening your library…" at ${r.openingMs ?? '–'} ms, ${documents} documents shown at ` +
          `${r.shownMs} ms after navigation (load ${before.join(' ')})`,
      );
      // Let the page settle (the query worker's warm start) before the next load.
      await page.waitForTimeout(2000);
    }
    const shown = results.map((r) => r.shownMs).sort((a, b) => a - b);
    const median = shown[Math.floor(shown.length / 2)];
    log(
      `page load → library shown: median ${median} ms, min ${shown[0]} ms, max ${shown.at(-1)} ms over ` +
        `${runs} loads of ${documents} documents`,
    );
    harness.assertPrivate('library-open');
    if (json) await writeFile(json, JSON.stringify({ bundle, documents, results, median }, null, 2) + '\n');
  } finally {
    await close();
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
