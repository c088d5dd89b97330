// Spec (issue 13, evaluation in the app): a 20-question slice of ../shared/bench/2wikimultihopqa is evaluated in
// the Evaluate view over a library holding the same pooled corpus the CLI bench indexes for that slice (the whole
// corpus.jsonl: `cli bench` indexes --corpus whole, --limit only slices the questions), and the view shows the
// same recall@5 — and the same CR@budget and recall@2/10 — for `ppr` and `bm25` as `npm run cli -- bench` on the
// same slice, run here through the CLI's own exported `run`. Both sides are lexical: the CLI with --embedder none,
// the app with sentence vectors off (the setting the app's "index the lexical layer only" choice writes), so
// neither has a semantic layer. Then a ranked document opens in the viewer, the CSV export downloads, a screenshot
// of the view is saved for the README, and a run over the whole set is cancelled midway.
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { run as runBench } from '../../../src/cli/bench.ts';
import { addFiles, openApp, readCounts, waitIdle } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';
import { BENCH_DIR, missingSharedData } from '../../support/sharedData.ts';
import { keepScreenshot, publicScreenshot } from '../lib/screenshots.ts';

/** 2Wiki in ../shared/bench next to the repo (BENCH_DIR elsewhere), as the benches read it. */
const BENCH = join(BENCH_DIR, '2wikimultihopqa');
const benchMissing = missingSharedData(BENCH, 'the in-app evaluation against the CLI bench');
test.skip(benchMissing !== null, benchMissing ?? '');
const SLICE = 20;
const MODES = ['ppr', 'bm25'];
const BUDGETS = [1000, 3000, 12000];
/** The README's screenshot, refreshed with SCREENSHOTS=1 (test/e2e/lib/screenshots.ts). */
const SCREENSHOT = publicScreenshot('evaluate.png');

test.setTimeout(900_000);

test('evaluate: a 20-question 2Wiki slice in ppr and bm25 gives the CLI bench’s recall@5 (and CR, R@2, R@10)', async ({
  page,
  origin,
  tmp,
  log,
}) => {
  // The CLI's figures, computed now from the same files (not copied from an earlier run).
  const benchJson = join(tmp, 'bench.json');
  const code = await runBench([
    '--corpus',
    join(BENCH, 'corpus.jsonl'),
    '--questions',
    join(BENCH, 'questions.jsonl'),
    '--limit',
    String(SLICE),
    '--embedder',
    'none',
    '--modes',
    MODES.join(','),
    '--budgets',
    BUDGETS.join(','),
    '--json',
    benchJson,
  ]);
  expect(code, 'cli bench failed').toBe(0);
  const bench = JSON.parse(await readFile(benchJson, 'utf8')) as {
    questions: number;
    modes: Record<string, { cr: Record<string, number>; recall: Record<string, number | null> }>;
  };
  expect(bench.questions).toBe(SLICE);
  log(`cli bench: ${JSON.stringify(Object.fromEntries(MODES.map((m) => [m, bench.modes[m]])))}`);

  // The app: sentence vectors off before anything is indexed, then the pooled corpus as one .jsonl file.
  await openApp(page, origin);
  await waitIdle(page); // the app has created its stores
  await page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open('conceptrag');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    await new Promise<void>((resolve, reject) => {
      const tx = db.transaction('settings', 'readwrite');
      tx.objectStore('settings').put({ key: 'sentenceVectors', value: false });
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
    });
    db.close();
  });
  await page.reload();
  await page.waitForSelector('[data-indexing]');
  const corpus = join(tmp, '2wikimultihopqa-corpus.jsonl');
  await copyFile(join(BENCH, 'corpus.jsonl'), corpus);
  const corpusLines = (await readFile(corpus, 'utf8')).split('\n').filter((l) => l.trim()).length;
  const t0 = Date.now();
  // addFiles waits until the app has taken the file (a kept signal): a wait here for "not idle" could miss a run
  // that ends between two looks.
  await addFiles(page, [corpus]);
  await waitIdle(page, Infinity, 1000);
  const counts = await readCounts(page);
  log(
    `indexed ${counts.documents} documents, ${counts.chunks} chunks in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  expect(counts.documents, 'every passage of the pooled corpus is a document').toBe(corpusLines);
  expect(counts.vectors, 'sentence vectors were stored although they were turned off').toBe(0);

  // The evaluation, in the Evaluate view.
  await page.goto(`${origin}/#evaluate`);
  // A malformed set is refused with its file, line and field.
  const bad = join(tmp, 'bad-set.csv');
  await writeFile(bad, 'question,answer,supporting\nWho?,Ada,p1\nWhen?,,p2\n');
  await page.setInputFiles('[data-testid="eval-file"]', bad);
  await expect(page.getByTestId('eval-load-error')).toHaveText('QA set bad-set.csv line 3: empty "answer"');
  await page.setInputFiles('[data-testid="eval-file"]', join(BENCH, 'questions.jsonl'));
  await expect(page.getByTestId('eval-set')).toHaveAttribute('data-questions', '500');
  await page.fill('[name="eval-limit"]', String(SLICE));
  await page.fill('[name="eval-budgets"]', BUDGETS.join(','));
  for (const mode of MODES) await page.getByTestId(`eval-mode-${mode}`).check();
  const t1 = Date.now();
  await page.getByTestId('eval-run').click();
  await expect(page.getByTestId('eval-progress')).toBeVisible();
  await page.waitForSelector('[data-testid="eval-result"][data-cancelled="false"]');
  log(`evaluated ${SLICE} questions × ${MODES.length} modes in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  await expect(page.getByTestId('eval-progress')).toHaveAttribute('data-done', String(SLICE * MODES.length));

  for (const mode of MODES) {
    const row = page.locator(`[data-testid="eval-summary"] tr[data-mode="${mode}"]`);
    await expect(row).toHaveAttribute('data-questions', String(SLICE));
    const shown = {
      recall: Object.fromEntries(
        await Promise.all(
          ['2', '5', '10'].map(async (k) => [k, Number(await row.getAttribute(`data-recall-${k}`))] as const),
        ),
      ),
      cells: await row.locator('td').allTextContents(),
    };
    const cli = bench.modes[mode];
    log(
      `${mode}: app recall ${JSON.stringify(shown.recall)}, cells ${JSON.stringify(shown.cells)}; cli ${JSON.stringify(cli)}`,
    );
    expect(shown.recall['5'], `${mode} recall@5: app ${shown.recall['5']}, cli ${cli.recall['5']}`).toBe(
      cli.recall['5'],
    );
    expect(shown.recall, `${mode} recall@k`).toEqual(cli.recall);
    // The CR cells (percent, one decimal) in budget order, as the CLI's table prints them.
    expect(shown.cells.slice(0, BUDGETS.length), `${mode} CR@budget`).toEqual(
      BUDGETS.map((b) => (100 * cli.cr[String(b)]).toFixed(1)),
    );
  }
  await expect(page.getByTestId('eval-plot-cr').locator('canvas')).toHaveCount(1);
  await expect(page.getByTestId('eval-plot-recall').locator('canvas')).toHaveCount(1);

  // The per-question table: one row per question, a ranked document opens in the viewer.
  await expect(page.locator('[data-testid="eval-questions"] tbody tr')).toHaveCount(SLICE);
  // The README's screenshot: the results (table and plots) at the top of the window.
  await page.evaluate(() => document.querySelector('[data-testid="eval-result"]')?.scrollIntoView());
  await keepScreenshot(page, SCREENSHOT);
  const supporting = page.locator('[data-testid="eval-doc"][data-supporting="true"]').first();
  const title = (await supporting.textContent())?.replace('✓', '').trim() ?? '';
  await supporting.click();
  await expect(page.getByTestId('viewer')).toBeVisible();
  await expect(page.getByTestId('viewer')).toContainText(title);
  await page.keyboard.press('Escape');

  // CSV export: one row per question and mode.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('eval-export-csv').click(),
  ]);
  const csv = await readFile((await download.path())!, 'utf8');
  const lines = csv.trim().split(/\r?\n/);
  expect(lines[0]).toContain('recall@5');
  expect(lines).toHaveLength(1 + SLICE * MODES.length);

  // Cancel: all 500 questions, stopped a few questions in; what was scored is shown, marked cancelled.
  await page.fill('[name="eval-limit"]', '0');
  await page.getByTestId('eval-run').click();
  await expect
    .poll(async () => Number(await page.getByTestId('eval-progress').getAttribute('data-done')))
    .toBeGreaterThanOrEqual(3);
  await page.getByTestId('eval-cancel').click();
  await page.waitForSelector('[data-testid="eval-result"][data-cancelled="true"]');
  const ran = Number(
    await page.locator('[data-testid="eval-summary"] tr[data-mode="ppr"]').getAttribute('data-questions'),
  );
  log(`cancelled after ${ran} of 500 questions in ppr`);
  expect(ran).toBeGreaterThanOrEqual(3);
  expect(ran).toBeLessThan(500);
  await expect(page.locator('[data-testid="eval-questions"] tbody tr')).toHaveCount(ran);
});
