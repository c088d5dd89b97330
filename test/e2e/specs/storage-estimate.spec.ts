// Spec (issue 14, know before you index): when a drop will not fit in what the browser offers the site, the
// Library view says so before anything is queued — the space needed, the space offered — and lets the user stop
// (nothing is stored) or go on with the lexical layer only (documents stored and searchable, no sentence vectors),
// whose vectors can be added later once there is room. The quota is lowered through CDP (test/e2e/lib/quota.ts).
// The vectors added at the end come from the scripted embedding endpoint on loopback (set as a user sets an endpoint
// embedder): what is checked is that each document gets them once there is room, not the model that makes them
// (the space the app estimates is per byte of text, whatever the embedder).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { addFiles, readCounts, waitIdle } from '../lib/app.ts';
import { dropAgainAndGoOn, expectNothingQueued, stopDrop } from '../lib/dropQuestion.ts';
import { expect, testWithEmbedder as test } from '../lib/fixtures.ts';
import { layerCounts, listedLayers } from '../lib/layers.ts';
import { lowerQuota, restoreQuota, settledUsage } from '../lib/quota.ts';

/** Short passages, different from each other, three sentences each. */
function passages(n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const text =
      `Lighthouse ${i} stands on the ${i % 2 ? 'northern' : 'southern'} cape, ${i * 5 + 3} metres above the sea. ` +
      `Its lamp was first lit in ${1820 + (i % 150)} by a keeper named Ansel ${i}. ` +
      `Ships sighted it from ${10 + (i % 30)} nautical miles away.`;
    lines.push(JSON.stringify({ title: `Lighthouse ${i}`, text }));
  }
  return lines.join('\n') + '\n';
}

test.setTimeout(180_000);

test('a drop that will not fit is announced before indexing; stop, or index the lexical layer only', async ({
  page,
  origin,
  tmp,
  log,
  appWithEmbedder: _embedder,
}) => {
  const file = join(tmp, 'lighthouses.jsonl');
  await writeFile(file, passages(150));
  const usage = await settledUsage(page);
  // 560 KB above what the app uses: the file's full index (estimated 614 KB) does not fit, its lexical layer (276 KB)
  // does, with as much again for what IndexedDB counts beyond the records (its log, deletions not yet compacted).
  // Two clean-clone CIs at load 6–10 ran out at 400 and 450 KB with nothing stored, and so did 2 of 4 runs alone at
  // load 9 (at load 2 it passed); the cause was not found.
  const cdp = await lowerQuota(page, origin, usage + 560 * 1024);

  await addFiles(page, [file]);
  const check = page.getByTestId('space-check');
  await expect(check).toBeVisible();
  const message = (await page.getByTestId('space-message').textContent()) ?? '';
  log(`shown before indexing: ${message}`);
  expect(message).toMatch(
    /^This file needs about [\d.]+ KB of storage to index; this browser offers 560 KB here \(a private window gives less\)\./,
  );
  expect(message).toMatch(/Without sentence vectors .* it needs about [\d.]+ KB, which fits\./);
  await expectNothingQueued(page);
  await stopDrop(page, check, 'space-stop');

  // The same drop again, indexed without sentence vectors.
  await dropAgainAndGoOn(page, check, () => addFiles(page, [file]), 'space-lexical');
  const lexical = await readCounts(page);
  log(`lexical only: ${JSON.stringify(lexical)}`);
  expect(lexical.documents).toBe(150);
  expect(lexical.vectors, 'sentence vectors were stored although the user chose the lexical layer only').toBe(
    0,
  );
  await expect(page.getByTestId('layers')).toContainText('lexical layer only (sentence vectors off)');
  await expect(page.getByTestId('vectors-off')).toBeVisible();
  // Each document shows its layers: lexical, no vectors.
  await expect.poll(() => listedLayers(page)).toEqual(['lexical']);

  // Room again: the vectors are added from the Library view.
  await restoreQuota(page, cdp, origin);
  await page.getByTestId('embed-sentences').click();
  await expect(page.getByTestId('vectors-off')).toBeHidden();
  await waitIdle(page);
  await expect
    .poll(async () => {
      const c = await layerCounts(page);
      return c.problems.length === 0 && c.vectorRows === c.sentences && c.vectorRecords === c.documents;
    })
    .toBe(true);
  await expect(page.getByTestId('layers')).toContainText('semantic ready');
  await expect.poll(() => listedLayers(page)).toEqual(['lexical vectors']);
});
