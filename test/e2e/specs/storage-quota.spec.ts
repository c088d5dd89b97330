// Spec (issue 15, no silent stop): when the browser's storage for the site fills up during indexing, the Library
// view says so plainly within a minute, with what to do, keeps the rest of the queue listed and offers Resume;
// documents stored before the stop are complete. After room is made (here: the quota raised again), Resume
// finishes the queue and every stored sentence ends up with exactly one vector: the documents embedded before the
// stop keep their vector records as they were, and no document gets a second one.
// The quota is lowered through CDP (Storage.overrideQuotaForOrigin) to a little above what the app itself uses,
// and the drop comes once IndexedDB has had to ask for the room again (see IDB_SPACE_CACHE_MS in ../lib/quota.ts).
// The sentences are embedded through the scripted endpoint on loopback (an endpoint embedder, as a user sets one in
// Settings), 512 numbers each as USE-lite's, so a vector record weighs what the browser's model would store: what is
// checked is where the store fills and that Resume re-embeds nothing, not the model (evidence-readable and
// 04-ask-samples embed with it). With USE-lite in the browser, embedding the 542 sentences outlasted the test's
// 300 s at load 25.
import { statSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { addFiles, waitIdle } from '../lib/app.ts';
import { expectedCounts } from '../lib/expected.ts';
import { expect, testWithEmbedder as test } from '../lib/fixtures.ts';
import { layerCounts } from '../lib/layers.ts';
import { BENCH_DIR, missingSharedData } from '../../support/sharedData.ts';
import {
  estimate,
  IDB_SPACE_CACHE_MS,
  lowerQuota,
  reportQuota,
  restoreQuota,
  settledUsage,
} from '../lib/quota.ts';

/**
 * MuSiQue passages per file, and files: a queue of several files, so a stop leaves whole files waiting. Files 2–6
 * (125 passages, about 600 KB with their vectors) still need more than twice the room left to them (below); 50 a
 * file only gave more to embed. E2E_QUOTA_PER_FILE=1127 drops the whole corpus (6 × 1127 ≥ 6,761 passages), as
 * issue 14 asks.
 */
const PER_FILE = Number(process.env.E2E_QUOTA_PER_FILE ?? 25);
const FILES = 6;
/**
 * The default 300 passages are the vendored first 300 of MuSiQue (test/fixtures/musique-300); more need the whole
 * corpus in ../shared/bench next to the repo (BENCH_DIR elsewhere), as the benches read it.
 */
const CORPUS =
  PER_FILE * FILES <= 300
    ? fileURLToPath(new URL('../../fixtures/musique-300/corpus.jsonl', import.meta.url))
    : join(BENCH_DIR, 'musique', 'corpus.jsonl');
const corpusMissing = missingSharedData(CORPUS, 'the whole-corpus storage-quota run');
test.skip(corpusMissing !== null, corpusMissing ?? '');
/** Waits for indexing grow with the files (the whole corpus takes many minutes to embed on 2 cores). */
const SCALE = Math.max(1, PER_FILE / 50);
/**
 * Room left above what the app uses when the quota is lowered, beyond the bytes of files 2–6 (their queue records
 * must fit, or the drop itself is refused): far less than their documents and vectors need (about 1 MB held 200
 * MuSiQue passages with their vectors). Where the store fills depends on how IndexedDB compacts, so the spec
 * accepts a stop while files are stored (files stay queued) or while sentences are embedded (documents wait for
 * their vectors).
 */
const HEADROOM_BYTES = Number(process.env.E2E_QUOTA_HEADROOM ?? 256 * 1024);

test.setTimeout(300_000 * SCALE);
// 512 numbers a vector, as USE-lite's (see above).
test.use({ embedderOptions: { embeddingDimension: 512 } });

test('a full store stops indexing with the reason and the queue kept; Resume finishes without re-embedding', async ({
  page,
  origin,
  tmp,
  log,
  appWithEmbedder: _embedder,
}) => {
  const lines = (await readFile(CORPUS, 'utf8')).split('\n').filter(Boolean);
  const paths: string[] = [];
  for (let f = 0; f < FILES; f++) {
    const path = join(tmp, `musique-${f + 1}.jsonl`);
    await writeFile(path, lines.slice(f * PER_FILE, (f + 1) * PER_FILE).join('\n') + '\n');
    paths.push(path);
  }
  const expected = await expectedCounts(paths);

  // The first file is indexed with room to spare: its vectors are stored before the store fills up.
  await addFiles(page, [paths[0]]);
  await waitIdle(page);
  const before = await layerCounts(page);
  expect(before.vectorRows, 'the first file was not embedded').toBe(before.sentences);
  log(`first file: ${before.documents} documents, ${before.vectorRows} vector rows`);

  // The quota is lowered to a little above what the app uses plus the queue records of the other files, right
  // before they are dropped. Chromium's IndexedDB approves writes from the room the quota manager last reported,
  // for up to 30 s (IDB_SPACE_CACHE_MS): a quota lowered while the app writes was enforced only that much later,
  // after the whole drop in some runs. So the app first stays idle that long (IndexedDB's idle compaction, which
  // grows the files for a while, runs then too); the drop's first transaction then asks for room again, and the
  // documents and vectors that follow cannot fit. The page's estimate() keeps the browser's own figure until the
  // files are queued, so the drop's space check (its own spec) lets them in.
  log(`waiting ${IDB_SPACE_CACHE_MS / 1000} s with no write, so IndexedDB asks the quota manager again`);
  await page.waitForTimeout(IDB_SPACE_CACHE_MS);
  const queuedBytes = paths.slice(1).reduce((n, p) => n + statSync(p).size, 0);
  const usage = await settledUsage(page);
  const quota = usage + queuedBytes + HEADROOM_BYTES;
  const cdp = await lowerQuota(page, origin, quota, { reportToPage: false });
  log(
    `usage ${(usage / 1024 / 1024).toFixed(2)} MB; quota set to usage + ${queuedBytes} B of files + ` +
      `${HEADROOM_BYTES} B`,
  );
  await addFiles(page, paths.slice(1));
  const dropped = Date.now();
  await reportQuota(page, quota);
  log(`estimate after the drop: ${JSON.stringify(await estimate(page))}`);

  const full = page.getByTestId('storage-full');
  await expect(full).toBeVisible();
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
  await waitIdle(page);
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
  await expect(page.locator('[data-testid="layers"]')).toContainText('semantic ready');
});

/** After a stop the app is idle with files still queued (waitIdle would wait for an empty queue). */
async function waitIdleOrStopped(page: Page): Promise<void> {
  await page.waitForSelector('[data-indexing="idle"]');
}
