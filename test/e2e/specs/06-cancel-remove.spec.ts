// Spec: Cancel in the middle of indexing stops the workers, drops the queue and keeps only complete documents;
// removing a document in the Library view asks first, then removes everything derived from it.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { addFiles, checkIntegrity, openApp, readCounts, waitIdle } from '../lib/app.ts';
import type { E2eSpec } from '../lib/harness.ts';

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

const spec: E2eSpec = {
  name: 'cancel mid-indexing keeps only complete documents and empties the queue; remove deletes a document',
  timeoutMs: 240_000,
  async run({ page, origin, tmp, log }) {
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
    if (!/sentences\/s/.test(embedRow) || !/left/.test(embedRow))
      throw new Error(`no rate/ETA shown: ${embedRow}`);

    await page.click('[data-testid="cancel"]');
    await page.waitForSelector('text=Indexing cancelled', { timeout: 60_000 });
    await waitIdle(page, 60_000);
    const afterCancel = await readCounts(page);
    log(`after cancel: ${JSON.stringify(afterCancel)}`);
    if (afterCancel.documents >= 600) throw new Error('cancel came too late: everything was indexed');
    if (afterCancel.pendingWaiting !== 0)
      throw new Error(`${afterCancel.pendingWaiting} file(s) still queued`);
    const integrity = await checkIntegrity(page);
    if (integrity.problems.length > 0)
      throw new Error(`integrity: ${integrity.problems.slice(0, 5).join('; ')}`);
    // Nothing resumes after a reload: the queue is really gone.
    await page.reload();
    await page.waitForSelector('[data-indexing="idle"]');
    await page.waitForTimeout(1000);
    const afterReload = await readCounts(page);
    if (afterReload.documents !== afterCancel.documents) throw new Error('indexing resumed after a cancel');

    const title = (await page.textContent('[data-testid="documents"] tbody tr td'))?.trim() ?? '';
    // One click only asks (issue 9): nothing is removed until the removal is confirmed; Keep backs out.
    await page.click(`[data-testid="documents"] button[aria-label="Remove ${title}"]`);
    await page.click('[data-testid="keep-document"]');
    await page.click(`[data-testid="documents"] button[aria-label="Remove ${title}"]`);
    await page.waitForSelector('[data-testid="confirm-remove"]');
    await page.waitForTimeout(1500);
    if ((await readCounts(page)).documents !== afterCancel.documents) {
      throw new Error('a document was removed without confirmation');
    }
    await page.click(`[data-testid="documents"] button[aria-label="Yes, remove ${title}"]`);
    await page.waitForFunction(
      (n) =>
        Number(document.querySelector('[data-count="documents"]')?.textContent?.replace(/,/g, '') ?? -1) ===
        n,
      afterCancel.documents - 1,
      { timeout: 30_000 },
    );
    const afterRemove = await readCounts(page);
    log(`removed "${title}": ${JSON.stringify(afterRemove)}`);
    if (afterRemove.documents !== afterCancel.documents - 1) throw new Error('the document was not removed');
    // Every passage here splits alike (its title and three sentences), so each document holds as many sentences.
    const perDocument = afterCancel.sentences / afterCancel.documents;
    if (
      afterRemove.sentences !== afterCancel.sentences - perDocument ||
      afterRemove.vectors !== afterCancel.vectors - perDocument
    ) {
      throw new Error('the removed document left sentences or vectors behind');
    }
    const integrity2 = await checkIntegrity(page);
    if (integrity2.problems.length > 0)
      throw new Error(`integrity: ${integrity2.problems.slice(0, 5).join('; ')}`);
  },
};

export default spec;
