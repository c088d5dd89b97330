// Spec (the KG modes by ranges): a bundle built by `cli index --pages --kg` (its KG extracted by the scripted server on
// loopback; frozen, test/support/frozenBundles.ts) opened with ?bundle= answers `kg` and `hybrid` in the Ask view from its pages and its KG read on the
// first KG question, with the same ranked passages as the same bundle read whole by `cli ask --whole`'s code, and
// every request for the bundle a range.
import { copyFile, mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { askSnapshot } from '../../../src/cli/ask.ts';
import { readBundleFile } from '../../../src/cli/bundleIo.ts';
import { showAllPassages } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';
import { frozenBundle } from '../../support/frozenBundles.ts';

const BUDGET = 3000;
// Questions naming things the scripted extractor makes entities of (capitalized runs) in the frozen copy of this repository's docs
// (test/fixtures/repo-docs).
const QUESTIONS = ['What does the KG hold for MuSiQue?', 'How does Chromium read a bundle by ranges?'];

/** The ranked chunk ids of the Ask view's answer to a question in a mode (every passage, in rank order). */
async function askInBrowser(page: Page, question: string, mode: string): Promise<string[]> {
  await page.fill('[data-testid="question"]', question);
  await page.selectOption('[data-testid="mode"]', mode);
  await page.fill('[data-testid="budget"]', String(BUDGET));
  await page.click('[data-testid="ask"]');
  // The answer to this question in this mode, not the one before it (the results name both), or the error.
  const answered = `[data-question="${question}"][data-mode="${mode}"][data-stage="result"]`;
  await expect(
    page.getByTestId('results').and(page.locator(answered)).or(page.getByTestId('ask-error')),
  ).toBeVisible({ timeout: 120_000 });
  const error = page.getByTestId('ask-error');
  if ((await error.count()) > 0) throw new Error(`${mode} "${question}": ${await error.textContent()}`);
  await showAllPassages(page);
  const ranked = await page.$$eval('[data-testid="evidence"]', (cards) =>
    cards.map((c) => ({
      id: c.getAttribute('data-chunk') ?? '',
      rank: Number(c.querySelector('.rank')?.textContent ?? NaN),
    })),
  );
  return ranked.sort((a, b) => a.rank - b.rank).map((r) => r.id);
}

test.setTimeout(400_000);

test('a bundle with pages and a KG by ?bundle=: kg and hybrid answer by ranges as the bundle read whole does', async ({
  page,
  origin,
  dist,
  log,
}) => {
  const scratch = join(dist, `e2e-ranges-kg-${process.pid}`);
  await mkdir(scratch, { recursive: true });
  try {
    const bundle = join(scratch, 'results.bundle');
    await copyFile(frozenBundle('results.kg.pages.bundle'), bundle);
    const size = (await stat(bundle)).size;
    const whole = await readBundleFile(bundle);
    expect((whole.tables.kgEntities ?? []).length).toBeGreaterThan(0);

    const path = `/e2e-ranges-kg-${process.pid}/results.bundle`;
    const statuses: number[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === path) statuses.push(response.status());
    });
    await page.goto(`${origin}/?bundle=${path}#library`);
    await expect(page.getByTestId('read-by-ranges')).toBeVisible({ timeout: 120_000 });
    await page.click('a[href="#ask"]');
    for (const mode of ['kg', 'hybrid']) {
      for (const question of QUESTIONS) {
        const expected = (await askSnapshot(whole, question, { mode, budget: BUDGET })).output.context.map(
          (c) => c.chunkId,
        );
        expect(expected.length, `${mode}: "${question}" finds nothing read whole`).toBeGreaterThan(0);
        const shown = await askInBrowser(page, question, mode);
        log(`${mode} "${question}": ${shown.length} passages by ranges, ${expected.length} read whole`);
        expect(shown).toEqual(expected);
      }
    }
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 206)).toBe(true);
    log(`bundle ${size} bytes, ${statuses.length} range requests`);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
});
