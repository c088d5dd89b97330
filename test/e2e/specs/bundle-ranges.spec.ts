// Spec (a library read by ranges): a bundle written by `cli index --pages` and opened with ?bundle= from a host that
// honours HTTP Range requests (the app's own server does) is never downloaded whole: the page says it is read by
// ranges, a question gets its evidence, and every request for the bundle is a range, together less than the file.
import { copyFile, mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { askForEvidence } from '../lib/app.ts';
import { serveStatic } from '../lib/staticServer.ts';
import { expect, test } from '../lib/fixtures.ts';
import { frozenBundle } from '../../support/frozenBundles.ts';

test.setTimeout(300_000);

test('a bundle with pages, by ?bundle= and picked from disk: read by ranges, evidence, less than the file fetched, nothing imported', async ({
  page,
  origin,
  dist,
  log,
}) => {
  const scratch = join(dist, `e2e-ranges-${process.pid}`);
  await mkdir(scratch, { recursive: true });
  try {
    // A frozen copy of this repository's documentation: Markdown with headings.
    const bundle = join(scratch, 'docs.bundle');
    await copyFile(frozenBundle('repo-docs.pages.bundle'), bundle);
    const size = (await stat(bundle)).size;
    const path = `/e2e-ranges-${process.pid}/docs.bundle`;
    const fetched: Array<{ status: number; bytes: number }> = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname !== path) return;
      void response.body().then(
        (body) => fetched.push({ status: response.status(), bytes: body.length }),
        () => fetched.push({ status: response.status(), bytes: -1 }),
      );
    });

    await page.goto(`${origin}/?bundle=${path}#library`);
    await expect(page.getByTestId('read-by-ranges')).toBeVisible({ timeout: 120_000 });
    const cards = await askForEvidence(page, 'How is a bundle read by ranges checked against damage?');
    expect(cards.length).toBeGreaterThan(0);

    // The worker's requests reach the page's response events; wait for their bodies to be counted.
    await expect.poll(() => fetched.length, { timeout: 30_000 }).toBeGreaterThan(0);
    const total = fetched.reduce((a, f) => a + Math.max(0, f.bytes), 0);
    log(`bundle ${size} bytes; ${fetched.length} requests, ${total} bytes fetched`);
    expect(fetched.every((f) => f.status === 206)).toBe(true);
    // Never the whole file (on a library this small one question reads half of it; see the bench for a large one).
    expect(total).toBeLessThan(size);
    // The results say what the question itself read: part of what was fetched (the opening read the rest).
    const reads = page.getByTestId('reads');
    await expect(reads).toContainText('read');
    const readBytes = Number(await reads.getAttribute('data-bytes'));
    expect(readBytes).toBeGreaterThan(0);
    expect(readBytes).toBeLessThanOrEqual(total);
    expect(Number(await reads.getAttribute('data-rounds'))).toBeGreaterThanOrEqual(1);

    // The question read the records of its first page only: "More passages" reads the others now (the question's
    // reads grow), shows the next cards, and the count of passages it said were left is the one it shows.
    const more = page.getByTestId('more');
    const left = Number(/\((\d+) left\)/.exec((await more.textContent()) ?? '')?.[1]);
    expect(left).toBeGreaterThan(0);
    const first = await page.getByTestId('evidence').count();
    await more.click();
    await expect.poll(async () => Number(await reads.getAttribute('data-bytes'))).toBeGreaterThan(readBytes);
    await expect(page.getByTestId('evidence')).toHaveCount(first + Math.min(8, left));

    // The same file picked from disk ("Open bundle read-only…"): read by slices of the File, nothing imported.
    await page.goto(`${origin}/#library`);
    const documents = page.locator('[data-count="documents"]');
    await expect(documents).toHaveText('0', { timeout: 60_000 });
    await page.setInputFiles('[data-testid="open-bundle-input"]', bundle);
    await expect(page.getByTestId('read-by-ranges')).toBeVisible({ timeout: 120_000 });
    await page.click('a[href="#ask"]');
    await page.fill('[data-testid="question"]', 'Which parts of a bundle are stored as is?');
    await page.click('[data-testid="ask"]');
    await page.waitForSelector('[data-testid="evidence"]', { timeout: 120_000 });
    // Nothing was imported: the library in this browser is as it was after a reload.
    await page.reload();
    await page.click('a[href="#library"]');
    await expect(documents).toHaveText('0', { timeout: 60_000 });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
});

test('a bundle too large for the tab: Import bundle… says so before anything is imported, and opens it read-only by ranges', async ({
  page,
  origin,
  dist,
}) => {
  const scratch = join(dist, `e2e-fit-${process.pid}`);
  await mkdir(scratch, { recursive: true });
  try {
    // One results page (60 KB): any library is too large for the tab below, so a small one costs the CLI least.
    const bundle = join(scratch, 'results.bundle');
    await copyFile(frozenBundle('ranges.pages.bundle'), bundle);
    // A tab of 1 MB: any library is too large for it.
    await page.goto(`${origin}/?heapLimitMB=1#library`);
    const documents = page.locator('[data-count="documents"]');
    await expect(documents).toHaveText('0', { timeout: 60_000 });

    await page.setInputFiles('[data-testid="bundle-input"]', bundle);
    await expect(page.getByTestId('bundle-check')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('bundle-check-message')).toContainText('results.bundle holds about');
    await expect(page.getByTestId('bundle-check-message')).toContainText('the heapLimitMB parameter');
    await page.click('[data-testid="bundle-stop"]');
    await expect(page.getByText('results.bundle was not imported')).toBeVisible();
    await expect(documents).toHaveText('0');

    await page.setInputFiles('[data-testid="bundle-input"]', bundle);
    await page.click('[data-testid="bundle-read-only"]');
    await expect(page.getByTestId('read-by-ranges')).toBeVisible({ timeout: 120_000 });
    await page.click('a[href="#ask"]');
    await page.fill('[data-testid="question"]', 'How many bytes does the first question read?');
    await page.click('[data-testid="ask"]');
    await page.waitForSelector('[data-testid="evidence"]', { timeout: 120_000 });
    // Read-only: after a reload the library in this browser is still empty.
    await page.reload();
    await page.click('a[href="#library"]');
    await expect(documents).toHaveText('0', { timeout: 60_000 });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
});

test('a shared index read whole that the tab cannot hold: ?bundle= stops at its documents header and says why', async ({
  page,
  origin,
  dist,
  log,
}) => {
  const scratch = join(dist, `e2e-whole-fit-${process.pid}`);
  await mkdir(scratch, { recursive: true });
  try {
    // No pages: a ?bundle= of it is downloaded and read whole.
    // One short results page (12 KB): no library fits the tab below, so the smallest will do.
    const bundle = join(scratch, 'whole.bundle');
    await copyFile(frozenBundle('bundles.bundle'), bundle);
    const size = (await stat(bundle)).size;
    const path = `/e2e-whole-fit-${process.pid}/whole.bundle`;
    // A tab of 1 MB: no library fits it.
    await page.goto(`${origin}/?bundle=${path}&heapLimitMB=1#library`);
    const error = page.getByTestId('bundle-error');
    await expect(error).toBeVisible({ timeout: 120_000 });
    const message = (await error.textContent()) ?? '';
    log(`bundle ${size} bytes: ${message}`);
    expect(message).toContain(`${path} holds about`);
    expect(message).toContain('is read whole here');
    expect(message).toContain('the heapLimitMB parameter');
    expect(message).toContain('so it was not opened');
    expect(message).toContain('--pages');
    // Nothing was opened or stored: the browser's own library is still empty.
    await page.getByRole('button', { name: 'Open your own library instead' }).click();
    await expect(page.locator('[data-count="documents"]')).toHaveText('0', { timeout: 60_000 });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
});

// The app served by a host that sends whole files only (our static server with ranges off, as `python3 -m
// http.server`): its own origin for this test, so that the privacy guard allows it and nothing else.
const wholeFilesHost = test.extend({
  origin: async ({ dist }, use) => {
    const server = await serveStatic(dist, { ranges: false });
    await use(server.origin);
    await server.close();
  },
});

wholeFilesHost(
  'a pages-only bundle from a host without ranges: downloaded once, read from that copy, evidence',
  async ({ page, origin, dist, log }) => {
    const scratch = join(dist, `e2e-no-ranges-${process.pid}`);
    await mkdir(scratch, { recursive: true });
    try {
      // Pages only (the CLI's streaming build): before, this host could not open it at all.
      // The results page on ranges (60 KB), which the question below is about.
      const bundle = join(scratch, 'stream.bundle');
      await copyFile(frozenBundle('ranges.stream.bundle'), bundle);
      const size = (await stat(bundle)).size;
      const path = `/e2e-no-ranges-${process.pid}/stream.bundle`;
      const statuses: number[] = [];
      page.on('response', (response) => {
        if (new URL(response.url()).pathname === path) statuses.push(response.status());
      });
      await page.goto(`${origin}/?bundle=${path}#library`);
      const note = page.getByTestId('read-by-ranges');
      await expect(note).toBeVisible({ timeout: 120_000 });
      await expect(note).toContainText('Read from one download');
      const cards = await askForEvidence(page, 'How is a bundle read by ranges checked against damage?');
      expect(cards.length).toBeGreaterThan(0);
      log(`bundle ${size} bytes from a host without ranges: responses ${statuses.join(', ')}`);
      // The probe for a range and the one download, both answered whole; the question fetched nothing more.
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(statuses.length).toBeLessThanOrEqual(2);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  },
);
