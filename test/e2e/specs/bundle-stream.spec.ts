// Spec (a pages-only bundle): a bundle written by `cli index --stream` holds only the library read by ranges. Opened
// with ?bundle= it is read by ranges and answers with evidence; Import bundle… says it can only be opened read-only
// and opens it so, and nothing is stored.
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { askForEvidence } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';
import { frozenBundle } from '../../support/frozenBundles.ts';

test.setTimeout(300_000);

test('a --stream bundle: read by ranges with evidence by ?bundle=, offered read-only by Import bundle…, nothing stored', async ({
  page,
  origin,
  dist,
}) => {
  const scratch = join(dist, `e2e-stream-${process.pid}`);
  await mkdir(scratch, { recursive: true });
  try {
    const bundle = join(scratch, 'docs.bundle');
    await copyFile(frozenBundle('repo-docs.stream.bundle'), bundle);

    await page.goto(`${origin}/?bundle=/e2e-stream-${process.pid}/docs.bundle#library`);
    await expect(page.getByTestId('read-by-ranges')).toBeVisible({ timeout: 120_000 });
    const cards = await askForEvidence(page, 'How is a bundle read by ranges checked against damage?');
    expect(cards.length).toBeGreaterThan(0);

    // Import bundle… says before anything is read that it can only be opened read-only (no "Import anyway").
    await page.goto(`${origin}/#library`);
    const documents = page.locator('[data-count="documents"]');
    await expect(documents).toHaveText('0', { timeout: 60_000 });
    await page.setInputFiles('[data-testid="bundle-input"]', bundle);
    await expect(page.getByTestId('bundle-check-message')).toContainText(
      'holds only a library read by ranges',
      {
        timeout: 60_000,
      },
    );
    await expect(page.getByTestId('bundle-import')).toHaveCount(0);
    await page.click('[data-testid="bundle-read-only"]');
    await expect(page.getByTestId('read-by-ranges')).toBeVisible({ timeout: 120_000 });
    await page.reload();
    await page.click('a[href="#library"]');
    await expect(documents).toHaveText('0', { timeout: 60_000 });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
});
