// Spec (issue 44): removal is a first-class operation. Removing one sample, then several, then all of them leaves
// the app as a person expects: the refresh of what remains is a run that ends (the app says idle), no "Stalled"
// alert, Import and Open bundle enabled, the Files list saying "removed" for the files that are gone, the Index
// counts those of what is left, and a question answered from the remaining documents only. The samples are embedded
// through the scripted endpoint on loopback (an endpoint embedder, as set in Settings): every layer is built and
// removed as with USE-lite, without loading its model in the ingest and query workers.
import type { Page } from 'playwright-core';
import { addSamples, askForEvidence, checkIntegrity, readCounts, waitIdle } from '../lib/app.ts';
import { expect, testWithEmbedder as test } from '../lib/fixtures.ts';

test.setTimeout(240_000);

/** The app at rest after a removal: idle, no stall alert, the bundle buttons enabled. */
async function expectSettled(page: Page, what: string): Promise<void> {
  await waitIdle(page);
  await expect(page.locator('[data-testid="stalled"]'), `${what}: a "Stalled" alert`).toHaveCount(0);
  await expect(page.locator('[data-testid="import-bundle"]'), `${what}: Import greyed out`).toBeEnabled();
  await expect(page.locator('[data-testid="open-bundle-file"]'), `${what}: Open greyed out`).toBeEnabled();
  await expect(page.locator('[data-testid="layers"]'), `${what}: the header still busy`).not.toContainText(
    /indexing…|updating…/,
  );
}

/** The Files list: file name → status, as shown. */
async function fileStatuses(page: Page): Promise<Record<string, string>> {
  const rows = await page.$$eval('[data-testid="outcomes"] li', (items) =>
    items.map((li) => [li.getAttribute('data-file') ?? '', li.getAttribute('data-status') ?? '']),
  );
  return Object.fromEntries(rows);
}

test('remove one, several and all documents: the app settles, no stall, controls enabled, Files list true', async ({
  page,
  log,
  appWithEmbedder: _embedder,
}) => {
  await addSamples(page);
  await waitIdle(page);
  const start = await readCounts(page);
  log(`samples: ${JSON.stringify(start)}`);
  expect(start.documents, 'the samples were not indexed').toBeGreaterThanOrEqual(4);
  const listed = await fileStatuses(page);
  expect(Object.values(listed).every((s) => s === 'indexed')).toBe(true);

  // One: the Erie Canal sample (asked about below).
  const row = page.locator('[data-testid="documents"] tbody tr', { hasText: 'The Erie Canal' });
  const source = ((await row.locator('td').nth(1).textContent()) ?? '').trim();
  await row.getByRole('button', { name: 'Remove The Erie Canal' }).click();
  await page.click('[data-testid="confirm-remove"]');
  await expectSettled(page, 'after removing one');
  const one = await readCounts(page);
  expect(one.documents).toBe(start.documents - 1);
  await expect(page.locator('[data-count="documents"]')).toHaveText(String(start.documents - 1));
  // The Files list follows the removal's own answer from the worker, which may come after the refresh's idle.
  await expect
    .poll(async () => (await fileStatuses(page))[source], { message: `the Files list for ${source}` })
    .toBe('removed');
  expect((await checkIntegrity(page)).problems).toEqual([]);
  // The question finds nothing of the removed document: its words are gone from the graph and the index.
  const cards = await askForEvidence(page, 'How long is the Erie Canal, and how tall was the lighthouse?');
  expect(
    cards.some((c) => c.includes('Erie Canal')),
    `the removed document still answers: ${cards[0]}`,
  ).toBe(false);
  await page.click('a[href="#library"]');

  // Several: two ticked, removed with one confirmation.
  const boxes = page.locator('[data-testid="select-document"]');
  await boxes.nth(0).check();
  await boxes.nth(1).check();
  await page.click('[data-testid="remove-selected"]');
  await expect(page.locator('[data-testid="confirm-many-text"]')).toContainText('Remove 2 documents');
  await page.click('[data-testid="confirm-remove-many"]');
  await expectSettled(page, 'after removing two');
  expect((await readCounts(page)).documents).toBe(start.documents - 3);

  // All, after a confirmation that Keep backs out of.
  await page.click('[data-testid="remove-all"]');
  await page.click('[data-testid="keep-many"]');
  expect((await readCounts(page)).documents, 'removed without confirmation').toBe(start.documents - 3);
  await page.click('[data-testid="remove-all"]');
  await page.click('[data-testid="confirm-remove-many"]');
  await expectSettled(page, 'after removing all');
  const none = await readCounts(page);
  expect(none).toMatchObject({ documents: 0, chunks: 0, sentences: 0, vectors: 0 });
  await expect
    .poll(async () => Object.values(await fileStatuses(page)).filter((s) => s === 'indexed'), {
      message: 'files still listed as indexed',
    })
    .toEqual([]);
  log(`Files list after removing all: ${JSON.stringify(await fileStatuses(page))}`);
  // An empty library offers the samples again, and takes them.
  await expect(page.locator('[data-testid="welcome"]')).toBeVisible();
  await addSamples(page);
  await waitIdle(page);
  expect((await readCounts(page)).documents).toBe(start.documents);
});
