// Spec (issue 25, the app knows its limits): before a drop is queued the Library view estimates the memory the
// tab will need to index it (src/ui/estimates/memoryEstimate.ts) and compares it with what this browser gives a tab.
// A drop that will not fit says so, with the numbers and the CLI command that indexes the same folder into a
// bundle; the user can stop (nothing is stored) or go on (the drop is indexed as any other). A drop that fits
// shows nothing. The tab's budget is set through the app's documented URL parameter ?heapLimitMB=, not by a
// mock: Chromium's own limit (GBs) is far above what a test can drop.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { addFiles, readCounts, waitIdle } from '../lib/app.ts';
import { dropAgainAndGoOn, expectNothingQueued, stopDrop } from '../lib/dropQuestion.ts';
import { expect, test } from '../lib/fixtures.ts';

/** A Markdown page of `paragraphs` distinct paragraphs (~200 bytes each). */
function notes(topic: string, paragraphs: number): string {
  const lines = [`# Field notes on ${topic}`, ''];
  for (let i = 0; i < paragraphs; i++) {
    lines.push(
      `On day ${i + 1} the ${topic} survey counted ${i * 7 + 3} nests along transect ${i % 12}. ` +
        `The weather was ${i % 3 ? 'dry' : 'wet'} and the observer noted ${i % 5} fledglings near marker ${i}.`,
      '',
    );
  }
  return lines.join('\n');
}

async function open(page: Page, origin: string, query: string): Promise<void> {
  await page.goto(`${origin}/${query}#library`);
  await page.waitForSelector('[data-indexing]');
}

/** Drops a folder, as the Library view's folder picker does. */
const dropFolder = (page: Page, folder: string) =>
  page.setInputFiles('input[type="file"][webkitdirectory]', folder);

test.setTimeout(240_000);

test('a drop too large for the tab says so before indexing, with the CLI command; stop stores nothing, go on indexes', async ({
  page,
  origin,
  tmp,
  log,
}) => {
  const folder = join(tmp, 'field-notes');
  await mkdir(folder);
  const topics = ['plovers', 'terns', 'oystercatchers'];
  // 20 paragraphs a file (120 sentences to embed when the user goes on, 900 with 150): the check is about the
  // model's fixed part, not the drop's size.
  for (const topic of topics) await writeFile(join(folder, `${topic}.md`), notes(topic, 20));

  // 40 MB: below what indexing even a small library needs by the model (its fixed part alone is more).
  await open(page, origin, '?heapLimitMB=40');
  await dropFolder(page, folder);
  const check = page.getByTestId('memory-check');
  await expect(check).toBeVisible();
  const message = (await page.getByTestId('memory-message').textContent()) ?? '';
  log(`shown before indexing: ${message}`);
  expect(message).toMatch(
    /^These 3 files hold about [\d.]+ KB of text\. Indexing it with sentence vectors in this tab needs about [\d.]+ MB of memory at its peak; this tab can use about 40 MB \(the heapLimitMB parameter in the address\)\. The tab will likely run out of memory/,
  );
  // The peak it names is above the limit it names.
  const peakMB = Number(/needs about ([\d.]+) MB/.exec(message)?.[1]);
  expect(peakMB).toBeGreaterThan(40);
  await expect(page.getByTestId('memory-command')).toHaveText(
    'npm run cli -- index field-notes --out library.bundle',
  );
  await expect(page.getByTestId('memory-bundle')).toContainText('Import bundle…');
  await expect(page.getByTestId('memory-bundle')).toContainText('?bundle=');
  // Even the lexical layer is over 40 MB: that choice is not offered.
  await expect(page.getByTestId('memory-lexical')).toHaveCount(0);
  await expectNothingQueued(page);
  const stopped = await stopDrop(page, check, 'memory-stop');
  await expect(stopped).toContainText('npm run cli -- index field-notes --out library.bundle');

  // The same drop again, and on anyway: indexed as any drop.
  await dropAgainAndGoOn(page, check, () => dropFolder(page, folder), 'memory-full');
  const indexed = await readCounts(page);
  log(`went on: ${JSON.stringify(indexed)}`);
  expect(indexed.documents).toBe(3);
  expect(indexed.chunks).toBeGreaterThan(0);

  // Without the parameter this browser's own limit (GBs) holds a small drop: nothing is asked, it is indexed.
  await open(page, origin, '');
  const extra = join(tmp, 'herons.md');
  await writeFile(extra, notes('herons', 20));
  await addFiles(page, [extra]);
  // Either the question shows (wrong: the test fails at once) or the file is stored.
  await expect
    .poll(async () => ((await check.count()) > 0 ? 'asked' : (await readCounts(page)).documents))
    .toBe(4);
  await waitIdle(page);
});
