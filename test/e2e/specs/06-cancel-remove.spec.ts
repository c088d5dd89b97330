// Spec: Cancel in the middle of indexing stops the workers, drops the queue and keeps only complete documents;
// removing a document in the Library view asks first, then removes everything derived from it.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { addFiles, checkIntegrity, openApp, readCounts, waitIdle } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';

function passages(n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const text =
      `Station ${i} of the survey lies ${i * 3 + 7} kilometres north of the coast. ` +
      `Its instruments were replaced in ${1950 + (i % 70)} after a storm. ` +
      `Observers recorded ${100 + ((i * 53) % 400)} clear nights there.`;
    lines.push(JSON.stringify({ title: `Survey station ${i}`, text }));
  }
  return lines.join('\n') + '\n';
}

test.setTimeout(240_000);

test('cancel mid-indexing keeps only complete documents and empties the queue; remove deletes a document', async ({
  page,
  origin,
  tmp,
  log,
}) => {
  const file = join(tmp, 'stations.jsonl');
  await writeFile(file, passages(600));
  await openApp(page, origin);
  await addFiles(page, [file]);
  await page.waitForFunction(
    () =>
      Number(document.querySelector('[data-count="documents"]')?.textContent?.replace(/,/g, '') ?? 0) >= 10,
    undefined,
    { timeout: 120_000, polling: 100 },
  );
  // The embed stage shows its rate and the time left while it runs.
  const embedRow = (await page.textContent('[data-stage="embed"]'))?.replace(/\s+/g, ' ').trim() ?? '';
  log(`embed stage: ${embedRow}`);
  expect(embedRow, `no rate/ETA shown: ${embedRow}`).toMatch(/sentences\/s/);
  expect(embedRow, `no rate/ETA shown: ${embedRow}`).toMatch(/left/);

  await page.click('[data-testid="cancel"]');
  await page.waitForSelector('text=Indexing cancelled', { timeout: 60_000 });
  await waitIdle(page, 60_000);
  const afterCancel = await readCounts(page);
  log(`after cancel: ${JSON.stringify(afterCancel)}`);
  expect(afterCancel.documents, 'cancel came too late: everything was indexed').toBeLessThan(600);
  expect(afterCancel.pendingWaiting, `${afterCancel.pendingWaiting} file(s) still queued`).toBe(0);
  const integrity = await checkIntegrity(page);
  expect(integrity.problems.slice(0, 5), 'integrity').toEqual([]);
  // Nothing resumes after a reload: the queue is really gone.
  await page.reload();
  await page.waitForSelector('[data-indexing="idle"]');
  await page.waitForTimeout(1000);
  const afterReload = await readCounts(page);
  expect(afterReload.documents, 'indexing resumed after a cancel').toBe(afterCancel.documents);

  const title = (await page.textContent('[data-testid="documents"] tbody tr td'))?.trim() ?? '';
  // One click only asks (issue 9): nothing is removed until the removal is confirmed; Keep backs out.
  await page.click(`[data-testid="documents"] button[aria-label="Remove ${title}"]`);
  await page.click('[data-testid="keep-document"]');
  await page.click(`[data-testid="documents"] button[aria-label="Remove ${title}"]`);
  await page.waitForSelector('[data-testid="confirm-remove"]');
  await page.waitForTimeout(1500);
  expect((await readCounts(page)).documents, 'a document was removed without confirmation').toBe(
    afterCancel.documents,
  );
  await page.click(`[data-testid="documents"] button[aria-label="Yes, remove ${title}"]`);
  await page.waitForFunction(
    (n) =>
      Number(document.querySelector('[data-count="documents"]')?.textContent?.replace(/,/g, '') ?? -1) === n,
    afterCancel.documents - 1,
    { timeout: 30_000 },
  );
  const afterRemove = await readCounts(page);
  log(`removed "${title}": ${JSON.stringify(afterRemove)}`);
  expect(afterRemove.documents, 'the document was not removed').toBe(afterCancel.documents - 1);
  // Every passage here splits alike (its title and three sentences), so each document holds as many sentences.
  const perDocument = afterCancel.sentences / afterCancel.documents;
  expect(afterRemove.sentences, 'the removed document left sentences behind').toBe(
    afterCancel.sentences - perDocument,
  );
  expect(afterRemove.vectors, 'the removed document left vectors behind').toBe(
    afterCancel.vectors - perDocument,
  );
  const integrity2 = await checkIntegrity(page);
  expect(integrity2.problems.slice(0, 5), 'integrity').toEqual([]);
});
