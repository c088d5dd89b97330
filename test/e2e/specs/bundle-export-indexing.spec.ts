// Spec (issue 9, item 4): a bundle exported WHILE indexing runs (the stored concept graph is for fewer chunks than
// the library has) imports into an empty profile, and so does one exported after Cancel; the importing app
// rebuilds the concept graph and answers. Before the fix the app refused its own backup ("the concept graph does
// not cover exactly the chunks of the bundle").
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { readBundle } from '../../../src/core/bundle/index.ts';
import { addFiles, checkIntegrity, openApp, readCounts, waitIdle } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';

function passages(n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const text =
      `Beacon ${i} of the northern coast stands ${i * 3 + 11} metres above the tide. ` +
      `Its lamp was rebuilt in ${1900 + (i % 100)} after a winter gale. ` +
      `Keepers logged ${200 + ((i * 37) % 500)} ships passing in its first year.`;
    lines.push(JSON.stringify({ title: `Beacon ${i}`, text }));
  }
  return lines.join('\n') + '\n';
}

function documentCount(page: Page): Promise<number> {
  return page.evaluate(() =>
    Number(document.querySelector('[data-count="documents"]')?.textContent?.replace(/,/g, '') ?? 0),
  );
}

/** Exports the library now; the bundle's counts (documents, sentences, vector rows). */
async function exportNow(page: Page, path: string): Promise<Record<string, number>> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.click('[data-testid="export-bundle"]'),
  ]);
  await download.saveAs(path);
  return (await readBundle(new Uint8Array(await readFile(path)))).manifest.counts;
}

test.setTimeout(420_000);

test('bundle exported during indexing and after Cancel imports into an empty profile (stale graph left out)', async ({
  page,
  origin,
  tmp,
  openProfile,
  privacy,
  log,
}) => {
  // A first file, indexed completely: the library then has a concept graph for its chunks.
  const first = join(tmp, 'harbour.txt');
  await writeFile(first, 'The harbour light of Dunmore was lit in 1832. It guided fishing boats home.\n');
  const big = join(tmp, 'beacons.jsonl');
  await writeFile(big, passages(500));
  await openApp(page, origin);
  await addFiles(page, [first]);
  await waitIdle(page);
  const base = await readCounts(page);

  // Then a large file; export while its documents are being stored (the graph covers the first file only).
  await addFiles(page, [big]);
  await page.waitForFunction(
    (n) =>
      Number(document.querySelector('[data-count="documents"]')?.textContent?.replace(/,/g, '') ?? 0) >= n,
    base.documents + 10,
    { polling: 100 },
  );
  const indexing = await page.getAttribute('[data-indexing]', 'data-indexing');
  expect(indexing, 'indexing finished before the export: use a larger file').toBe('running');
  const during = join(tmp, 'during.bundle');
  const duringCounts = await exportNow(page, during);
  const duringDocs = duringCounts.documents;
  log(
    `exported during indexing: ${duringDocs} documents, ${duringCounts.vectors} of ` +
      `${duringCounts.sentences} sentences with vectors (page showed ${await documentCount(page)})`,
  );
  // Documents are stored before their sentences are embedded (lexical first): an export that did not wait for
  // indexing lacks documents or vectors.
  expect(
    duringDocs < base.documents + 500 || duringCounts.vectors < duringCounts.sentences,
    'the export waited until indexing had finished',
  ).toBe(true);
  const parts = (await readBundle(new Uint8Array(await readFile(during)))).manifest.parts.map((p) => p.name);
  // The stored graph then covers fewer chunks: left out (a graph for exactly these chunks would be kept).
  log(`parts of the export during indexing: ${parts.join(', ')}`);

  await page.click('[data-testid="cancel"]');
  await page.waitForSelector('text=Indexing cancelled');
  await waitIdle(page);
  const afterCancel = join(tmp, 'after-cancel.bundle');
  const cancelDocs = (await exportNow(page, afterCancel)).documents;
  const cancelCounts = await readCounts(page);
  log(`exported after Cancel: ${cancelDocs} documents of ${cancelCounts.documents}`);
  expect(cancelDocs, 'the export after Cancel lost documents').toBe(cancelCounts.documents);

  // An empty profile (a fresh browser profile on the same app) imports both. Its service worker blocked: a first
  // visit's precache of the app's files (~84 MB) would run beside the imports, which do not need it.
  {
    const { page: p2 } = await openProfile({ serviceWorkers: 'block' });
    await openApp(p2, origin);
    await p2.setInputFiles('[data-testid="bundle-input"]', during);
    await p2.waitForSelector(`text=/Imported during\\.bundle: ${duringDocs} document\\(s\\) added/`);
    await waitIdle(p2);
    await p2.setInputFiles('[data-testid="bundle-input"]', afterCancel);
    await p2.waitForSelector(
      `text=/Imported after-cancel\\.bundle: ${cancelDocs - duringDocs} document\\(s\\) added, ${duringDocs} already/`,
    );
    const imported = await readCounts(p2);
    const importMessage = `imported ${JSON.stringify(imported)}, the source had ${JSON.stringify(cancelCounts)}`;
    expect(imported.documents, importMessage).toBe(cancelCounts.documents);
    expect(imported.vectors, importMessage).toBe(cancelCounts.vectors);
    // Cancel left some documents without vectors (lexical first); they are complete as they are.
    const integrity = await checkIntegrity(p2, false);
    expect(integrity.problems.slice(0, 3), 'integrity').toEqual([]);
    // The graph was rebuilt for the imported chunks: concepts are counted and a question is answered.
    await p2.waitForFunction(
      () =>
        Number(document.querySelector('[data-count="concepts"]')?.textContent?.replace(/,/g, '') ?? 0) > 0,
      undefined,
    );
    await p2.click('a[href="#ask"]');
    await p2.fill('[data-testid="question"]', 'When was the harbour light of Dunmore lit?');
    await p2.click('[data-testid="ask"]');
    await p2.waitForSelector('[data-testid="evidence"]');
    const top = (await p2.textContent('[data-testid="evidence"]')) ?? '';
    expect(top, `the imported library answers with "${top.slice(0, 120)}"`).toContain('Dunmore');
    // Both profiles, checked here as well as when the test ends.
    privacy.check();
  }
});
