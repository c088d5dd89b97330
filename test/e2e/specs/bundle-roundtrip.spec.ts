// Bundle round trips in Chromium, both ways, with the same ranking:
// (a) a bundle built by the CLI code in Node, imported in the browser, answers with the same top 10 as the CLI;
// (b) the browser's export, read by the CLI code, answers with the same top 10 as the browser.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { askSnapshot } from '../../../src/cli/ask.ts';
import { readBundleFile, writeBundleFile } from '../../../src/cli/bundleIo.ts';
import { createNodeUseEmbedder } from '../../../src/cli/embedders.ts';
import { collectFiles, snapshotFromFiles } from '../../../src/cli/index.ts';
import { writeSnapshotBundle, type IndexSnapshot } from '../../../src/core/bundle/index.ts';
import { addFiles, openApp, readCounts, showAllPassages, waitIdle } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';

const QUESTION = 'Who wrote the memo about moving the library?';
const BUDGET = 3000;

async function askInBrowser(page: Page, question: string, mode: string): Promise<string[]> {
  await page.click('a[href="#ask"]');
  await page.fill('[data-testid="question"]', question);
  await page.selectOption('[data-testid="mode"]', mode);
  await page.fill('[data-testid="budget"]', String(BUDGET));
  await page.click('[data-testid="ask"]');
  await page.waitForSelector('[data-testid="evidence"]');
  // The view shows the best few passages, grouped by document, with "More passages" for the rest: open them all
  // and read the passages back in their rank order (the number on each card).
  await showAllPassages(page);
  const ranked = await page.$$eval('[data-testid="evidence"]', (cards) =>
    cards.map((c) => ({
      id: c.getAttribute('data-chunk') ?? '',
      rank: Number(c.querySelector('.rank')?.textContent ?? NaN),
    })),
  );
  return ranked
    .sort((a, b) => a.rank - b.rank)
    .map((r) => r.id)
    .slice(0, 10);
}

async function askCli(
  snapshot: IndexSnapshot,
  question: string,
  mode: string,
  vector: Float32Array,
): Promise<string[]> {
  const { output } = await askSnapshot(snapshot, question, { mode, budget: BUDGET, vector });
  return output.context.slice(0, 10).map((c) => c.chunkId);
}

test.setTimeout(400_000);

test('bundles: CLI bundle → browser import and browser export → CLI ask give the same top 10', async ({
  page,
  origin,
  dist,
  tmp,
  log,
}) => {
  const embedder = await createNodeUseEmbedder();
  try {
    // The format fixtures but the scanned page: recognising it is OCR's subject (ocr-scan), and it cost the CLI's
    // build most of its time (a language found, then the page read by Tesseract in Node).
    const files = (await collectFiles([join(process.cwd(), 'test', 'fixtures', 'docs')])).filter(
      (file) => !file.endsWith('no-text.pdf'),
    );
    const { snapshot } = await snapshotFromFiles(files, { embedder, maxChunkTokens: 1200 });
    const cliBundle = join(tmp, 'cli.bundle');
    await writeBundleFile(cliBundle, writeSnapshotBundle(snapshot, { appVersion: 'e2e' }));
    const vector = await embedder.embed([QUESTION]);

    // (a) CLI → browser: import the CLI's bundle into an empty library, ask in both, compare.
    await openApp(page, origin);
    await page.setInputFiles('[data-testid="bundle-input"]', cliBundle);
    await page.waitForSelector('text=/Imported cli\\.bundle/');
    const counts = await readCounts(page);
    const importMessage = `import stored ${JSON.stringify(counts)}, the bundle holds ${snapshot.documents.length} documents`;
    expect(counts.documents, importMessage).toBe(snapshot.documents.length);
    expect(counts.sentences, importMessage).toBe(snapshot.sentences.length);
    const fromCli = await readBundleFile(cliBundle);
    for (const mode of ['ppr', 'bm25']) {
      const browser = await askInBrowser(page, QUESTION, mode);
      const cli = await askCli(fromCli, QUESTION, mode, vector);
      log(
        `CLI bundle, ${mode}: browser ${browser.slice(0, 3).join(', ')} / cli ${cli.slice(0, 3).join(', ')}`,
      );
      const message = `${mode}: browser top 10 ${JSON.stringify(browser)} ≠ CLI ${JSON.stringify(cli)}`;
      expect(browser.length, message).toBeGreaterThan(0);
      expect(browser, message).toEqual(cli);
    }

    // (b) browser → CLI: documents indexed in the browser (the samples, added to the library), exported, asked
    // with the CLI code over the export.
    await page.click('a[href="#library"]');
    const samples = JSON.parse(await readFile(join(dist, 'samples', 'index.json'), 'utf8')) as {
      file: string;
    }[];
    await addFiles(
      page,
      samples.map((s) => join(dist, 'samples', s.file)),
    );
    await waitIdle(page);
    const sampleQuestion = 'What did Lincoln say at Gettysburg';
    const sampleVector = await embedder.embed([sampleQuestion]);
    const browserRanks: Record<string, string[]> = {};
    for (const mode of ['ppr', 'bm25']) browserRanks[mode] = await askInBrowser(page, sampleQuestion, mode);
    await page.click('a[href="#library"]');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('[data-testid="export-bundle"]'),
    ]);
    const exported = join(tmp, 'browser.bundle');
    await download.saveAs(exported);
    const fromBrowser = await readBundleFile(exported);
    for (const mode of ['ppr', 'bm25']) {
      const cli = await askCli(fromBrowser, sampleQuestion, mode, sampleVector);
      log(
        `browser export, ${mode}: browser ${browserRanks[mode].slice(0, 3).join(', ')} / cli ${cli.slice(0, 3).join(', ')}`,
      );
      const message = `${mode}: browser top 10 ${JSON.stringify(browserRanks[mode])} ≠ CLI on its export ${JSON.stringify(cli)}`;
      expect(browserRanks[mode].length, message).toBeGreaterThan(0);
      expect(browserRanks[mode], message).toEqual(cli);
    }
  } finally {
    await embedder.dispose?.();
  }
});
