// Spec (bundles in the UI): export the library as a bundle download, open that bundle read-only with ?bundle=
// (same answers as the library it came from, nothing written), re-import it (merge: everything already present),
// and refuse a truncated copy with a message while the library stays as it was.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { askForChunks, openApp, readCounts, waitIdle } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';

const QUESTION = 'How tall was the lighthouse of Alexandria?';

test.setTimeout(240_000);
test.use({ startWith: 'samples' });

test('bundle: export download, ?bundle= read-only with the same answers, re-import merges, truncated refused', async ({
  page,
  origin,
  dist,
  tmp,
  log,
}) => {
  // A copy of the samples indexed once for the worker (fixtures.ts, startWith): open it and wait until it is idle.
  await openApp(page, origin);
  await waitIdle(page);
  const before = await readCounts(page);
  const ranked = await askForChunks(page, QUESTION);
  // The counts the Library view shows for the library: the read-only view of its bundle shows the same.
  const shownCounts = async () => {
    await page.click('a[href="#library"]');
    const cells = page.locator('[data-count]');
    await expect(cells.first()).toBeVisible();
    return Object.fromEntries(
      await cells.evaluateAll((dds) =>
        dds.map((dd) => [dd.getAttribute('data-count'), dd.textContent?.trim()]),
      ),
    ) as Record<string, string>;
  };
  const libraryShows = await shownCounts();
  log(`the library shows ${JSON.stringify(libraryShows)}`);

  await page.click('a[href="#library"]');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.click('[data-testid="export-bundle"]'),
  ]);
  const bundlePath = join(tmp, download.suggestedFilename());
  await download.saveAs(bundlePath);
  const bytes = await readFile(bundlePath);
  log(`exported ${download.suggestedFilename()}: ${bytes.length} bytes`);
  expect(download.suggestedFilename(), 'no bundle exported').toMatch(/\.bundle$/);
  expect(bytes.length, 'no bundle exported').toBeGreaterThanOrEqual(1000);

  // Served from the app's own origin for ?bundle= (a scratch folder inside dist/, removed afterwards).
  const scratch = join(dist, `e2e-scratch-${process.pid}`);
  await mkdir(scratch, { recursive: true });
  try {
    await writeFile(join(scratch, 'library.bundle'), bytes);
    await page.goto(`${origin}/?bundle=/e2e-scratch-${process.pid}/library.bundle#library`);
    await page.waitForSelector('[data-testid="read-only"]');
    const readOnlyRanked = await askForChunks(page, QUESTION);
    log(
      `library top: ${ranked.slice(0, 3).join(', ')}; read-only bundle top: ${readOnlyRanked.slice(0, 3).join(', ')}`,
    );
    expect(
      readOnlyRanked,
      `read-only bundle ranks ${JSON.stringify(readOnlyRanked)}, the library ${JSON.stringify(ranked)}`,
    ).toEqual(ranked);
    // Its view lists its documents and counts what the library counted (issue 44: edges 468,708 against 414,406).
    const bundleShows = await shownCounts();
    log(`the read-only bundle shows ${JSON.stringify(bundleShows)}`);
    for (const name of ['documents', 'chunks', 'sentences', 'concepts', 'edges'])
      expect(bundleShows[name], `${name} in the read-only view`).toBe(libraryShows[name]);
    await expect(page.locator('[data-testid="read-only-documents"] li')).toHaveCount(before.documents);
    await expect(page.locator('[data-storage="library"]')).toHaveText('nothing (read-only)');
    // The read-only bundle leaves the stored library as it was.
    const afterOpen = await readCounts(page);
    expect(afterOpen.documents, 'opening a bundle read-only changed the store').toBe(before.documents);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }

  await openApp(page, origin);
  await page.setInputFiles('[data-testid="bundle-input"]', bundlePath);
  await page.waitForSelector('text=/Imported .*0 document\\(s\\) added, \\d+ already in the library/');

  const truncated = join(tmp, 'truncated.bundle');
  await writeFile(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
  await page.setInputFiles('[data-testid="bundle-input"]', truncated);
  const refusal = await page.waitForSelector('text=/Bundle truncated.bundle refused: /');
  log(`truncated: ${(await refusal.textContent())?.trim()}`);
  const after = await readCounts(page);
  for (const key of ['documents', 'chunks', 'sentences', 'vectors'] as const) {
    expect(after[key], `${key}: ${after[key]} after imports, ${before[key]} before`).toBe(before[key]);
  }
});
