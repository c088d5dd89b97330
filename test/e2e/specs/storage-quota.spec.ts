// Spec (issue 15, no silent stop): when the browser's storage for the site fills up during indexing, the Library
// view says so plainly within a minute, with what to do, keeps the rest of the queue listed and offers Resume;
// documents stored before the stop are complete. After room is made (here: the quota raised again), Resume
// finishes the queue and every stored sentence ends up with exactly one vector: the documents embedded before the
// stop keep their vector records as they were, and no document gets a second one.
// The quota is lowered through CDP (Storage.overrideQuotaForOrigin) to a little above what the app itself uses.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { addFiles, openApp, waitIdle } from '../lib/app.ts';
import { expectedCounts } from '../lib/expected.ts';
import { expect, test } from '../lib/fixtures.ts';
import { layerCounts } from '../lib/layers.ts';
import { estimate, lowerQuota, restoreQuota } from '../lib/quota.ts';

/** MuSiQue's corpus in ../shared/bench next to the repo (BENCH_DIR elsewhere), as the benches read it. */
const CORPUS = join(
  process.env.BENCH_DIR ?? fileURLToPath(new URL('../../../../shared/bench', import.meta.url)),
  'musique',
  'corpus.jsonl',
);
/** MuSiQue passages per file, and files: a queue of several files, so a stop leaves whole files waiting. */
const PER_FILE = 50;
const FILES = 6;
/**
 * Room left above what the app uses when the quota is lowered, once files 2–6 are queued: far less than their
 * documents and vectors need (about 1 MB held 200 MuSiQue passages with their vectors). Where the store fills
 * depends on how IndexedDB compacts, so the spec accepts a stop while files are stored (files stay queued) or
 * while sentences are embedded (documents wait for their vectors).
 */
const HEADROOM_BYTES = Number(process.env.E2E_QUOTA_HEADROOM ?? 64 * 1024);

test.setTimeout(240_000);

// Skipped unless E2E_QUOTA=1: in the last three runs on this machine (a clean CI clone and two single runs) the
// lowered quota was not enforced and the whole drop was stored, although earlier runs stopped with "storage is
// full" about 16 s after the drop. Until the override is made reliable (or the quota error is provoked another
// way), a green suite must not depend on it. The stop itself is covered in Node (test/unit/services: quota and
// hanging writes stop the pipeline with the queue kept, then resume).
test.skip(process.env.E2E_QUOTA !== '1', 'the CDP quota override was not enforced reliably here (see above)');

test('a full store stops indexing with the reason and the queue kept; Resume finishes without re-embedding', async ({
  page,
  origin,
  tmp,
  log,
}) => {
  const lines = (await readFile(CORPUS, 'utf8')).split('\n').filter(Boolean);
  const paths: string[] = [];
  for (let f = 0; f < FILES; f++) {
    const path = join(tmp, `musique-${f + 1}.jsonl`);
    await writeFile(path, lines.slice(f * PER_FILE, (f + 1) * PER_FILE).join('\n') + '\n');
    paths.push(path);
  }
  const expected = await expectedCounts(paths);

  await openApp(page, origin);
  // The first file is indexed with room to spare: its vectors are stored before the store fills up.
  await addFiles(page, [paths[0]]);
  await waitIdle(page, 120_000);
  const before = await layerCounts(page);
  expect(before.vectorRows, 'the first file was not embedded').toBe(before.sentences);
  log(`first file: ${before.documents} documents, ${before.vectorRows} vector rows`);

  // The other files are queued with room to spare (the drop fits, so no space check is shown; that check has its own
  // spec), then the quota is lowered to a little above what the app uses once they are queued: what is left to
  // store (their documents and vectors) cannot fit. Lowering it before the drop was flaky: IndexedDB compaction
  // and the queued bytes freed as files are read sometimes gave back enough room for the whole drop.
  await addFiles(page, paths.slice(1));
  await page.waitForSelector('[data-indexing="running"]', { timeout: 60_000 });
  const usage = (await estimate(page)).usage;
  const cdp = await lowerQuota(page, origin, usage + HEADROOM_BYTES);
  const dropped = Date.now();
  log(`estimate after the override: ${JSON.stringify(await estimate(page))}`);
  log(
    `usage when the files were queued ${(usage / 1024 / 1024).toFixed(1)} MB; quota set to usage + ${HEADROOM_BYTES} B`,
  );

  const full = page.getByTestId('storage-full');
  await expect(full).toBeVisible({ timeout: 60_000 });
  const stoppedAfter = (Date.now() - dropped) / 1000;
  log(`"storage is full" shown ${stoppedAfter.toFixed(1)} s after the drop`);
  await expect(full).toContainText('storage is full');
  await expect(full).toContainText(
    /Free space, remove documents, or open the app in a normal window [\s\S]*the queue is kept and resumes/,
  );
  await expect(page.getByTestId('resume')).toBeVisible();
  await waitIdleOrStopped(page);

  const stopped = await layerCounts(page);
  log(
    `at the stop: ${stopped.documents} documents, ${stopped.sentences} sentences, ${stopped.vectorRows} vector ` +
      `rows; queued ${JSON.stringify(stopped.queued)}`,
  );
  expect(stopped.problems.slice(0, 5), 'a half-written document').toEqual([]);
  expect(stopped.failed, 'a file was failed for the store being full').toEqual([]);
  const awaiting = stopped.documents - stopped.vectorRecords;
  expect(
    stopped.queued.length + awaiting,
    'everything was stored with its vectors: the quota was not hit',
  ).toBeGreaterThan(0);
  if (stopped.queued.length > 0) {
    log(`stopped while storing files: ${stopped.queued.length} file(s) queued`);
    // The queued files are listed where the user reads the stop.
    const listed = (await page.getByTestId('queued').locator('li').allTextContents()).map((s) => s.trim());
    expect(listed.sort()).toEqual([...stopped.queued].sort());
  } else {
    log(`stopped while embedding: ${awaiting} document(s) without vectors`);
    await expect(page.getByTestId('awaiting-vectors')).toContainText(
      `${awaiting.toLocaleString('en-US')} stored document`,
    );
  }

  // Room again: the override is lifted, Resume goes on from the queue.
  await restoreQuota(page, cdp, origin);
  await page.getByTestId('resume').click();
  await expect(full).toBeHidden();
  await waitIdle(page, 150_000);
  const done = await layerCounts(page);
  log(
    `after Resume: ${done.documents} documents, ${done.sentences} sentences, ${done.vectorRecords} vector ` +
      `records, ${done.vectorRows} rows`,
  );
  expect(done.problems.slice(0, 5)).toEqual([]);
  expect(done.queued).toEqual([]);
  expect(done.documents).toBe(expected.documents);
  expect(done.sentences).toBe(expected.sentences);
  // One vector per stored sentence: a sentence embedded twice would be a second record or more rows.
  expect(done.vectorRecords).toBe(done.documents);
  expect(done.vectorRows).toBe(done.sentences);
  // The vectors stored before the stop were not embedded again (their records are the same bytes).
  const rewritten = Object.entries(stopped.records).filter(([id, f]) => done.records[id] !== f);
  expect(rewritten, 'vector records rewritten after Resume').toEqual([]);
  expect(Object.keys(stopped.records).length).toBeGreaterThanOrEqual(before.documents);
  await expect(page.getByTestId('storage-full')).toHaveCount(0);
  await expect(page.locator('[data-testid="layers"]')).toContainText('semantic ready', { timeout: 30_000 });
});

/** After a stop the app is idle with files still queued (waitIdle would wait for an empty queue). */
async function waitIdleOrStopped(page: Page): Promise<void> {
  await page.waitForSelector('[data-indexing="idle"]', { timeout: 60_000 });
}
