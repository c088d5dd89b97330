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
