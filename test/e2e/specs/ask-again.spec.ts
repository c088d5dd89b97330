// Spec (issue 44): a question asked while a drop is still being made searchable is answered over the documents
// searchable then, says so, and is asked again by itself when a refresh takes in the rest: the evidence is replaced
// in place and the view says the answer is newer (src/ui/state/askAgain.ts). The app embeds through the scripted
// endpoint, which holds the first embedding request: the first file is searchable and being embedded, the second
// waits in the queue behind it, for as long as the test wants, on a fast quiet machine as on a loaded one.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { addFiles, waitIdle } from '../lib/app.ts';
import { waitForHeldEmbedding } from '../lib/embeddingEndpoint.ts';
import { expect, testWithEmbedder as test } from '../lib/fixtures.ts';
import { jsonlRecords, writeRecords } from '../lib/records.ts';

const QUESTION = 'Who logged the passing whalers in a green ledger?';

test.setTimeout(120_000);

test('a question asked while a drop waits is answered over what is searchable, then asked again in place', async ({
  page,
  tmp,
  log,
  appWithEmbedder: server,
}) => {
  // The first file: survey stations, none of the question's subject. The second: the record that answers it.
  const stations = await writeRecords(
    tmp,
    jsonlRecords(
      20,
      (i) =>
        `Station ${i} of the survey lies ${i * 3 + 7} kilometres north of the coast. Observers recorded clear nights.`,
    ),
  );
  const ledger = join(tmp, 'ledger.jsonl');
  await writeFile(
    ledger,
    jsonlRecords(
      1,
      () => 'The keeper of the Quillon lighthouse logged every passing whaler in a green ledger.',
      () => 'Lighthouse log',
    ),
  );
  server.scriptEmbeddings({ kind: 'hold' });
  await addFiles(page, [stations]);
  // The first file is searchable (its lexical graph comes before any embedding) and its embedding is held.
  await waitForHeldEmbedding(page, server);
  await page.waitForSelector('[data-testid="documents"] [data-layers~="lexical"]');
  // The second file is queued behind the held embedding: it cannot be stored until the test releases it.
  await addFiles(page, [ledger]);
  await page.getByText('1 file(s) waiting.').waitFor();

  await page.click('a[href="#ask"]');
  await page.fill('[data-testid="question"]', QUESTION);
  await page.click('[data-testid="ask"]');
  await page.waitForSelector('[data-testid="results"][data-stage="result"]');
  await expect(page.locator('[data-testid="ask"]')).toHaveText('Ask');
  // Over the stations only, and said to be so.
  const before = await page.locator('[data-testid="results"]').textContent();
  expect(before).not.toContain('green ledger');
  await expect(page.locator('[data-testid="awaiting-graph"]')).toContainText('asked again then');
  await expect(page.locator('[data-testid="asked-again"]')).toHaveCount(0);
  // Marked, so that a second question would show (the view replaces the results element on a new question).
  await page.evaluate(() =>
    document.querySelector('[data-testid="results"]')?.setAttribute('data-e2e-first', 'yes'),
  );

  // The ledger is stored and the graph refreshed: the question is asked again without a click.
  server.releaseEmbeddings();
  const top = page.locator('[data-testid="evidence"]').first();
  await expect(top).toContainText('green ledger', { timeout: 60_000 });
  await expect(page.locator('[data-testid="asked-again"]')).toBeVisible();
  await expect(page.locator('[data-testid="question"]')).toHaveValue(QUESTION);
  const inPlace = await page.locator('[data-testid="results"][data-e2e-first="yes"]').count();
  log(`first answer without the ledger; asked again in place: ${inPlace === 1}`);
  expect(inPlace, 'the evidence was replaced in place').toBe(1);
  await waitIdle(page);
});
