// Spec: Cancel in the middle of indexing stops the workers, drops the queue and keeps only complete documents
// (stored lexical first: every document of the file is stored before its sentences are embedded, so the cancel
// comes while they are embedded); removing a document in the Library view asks first, then removes everything
// derived from it. The app embeds through the scripted endpoint on loopback, which takes a set time for each
// request: the embed row's time left needs seconds of steady progress to show (dropProgress.ts's SettledEta), and
// with USE-lite in the browser a quiet machine had embedded every sentence by then.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { addFiles, checkIntegrity, readCounts, showsText, waitIdle, waitWhileIndexing } from '../lib/app.ts';
import { expect, testWithEmbedder as test } from '../lib/fixtures.ts';

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
  tmp,
  log,
  appWithEmbedder: server,
}) => {
  const file = join(tmp, 'stations.jsonl');
  // 400 passages (1,600 sentences) at 1 s a request of 64 sentences: a call of 128 lands every 2 s or later, so
  // embedding takes 25 s at the least on any machine. The time left shows once estimates have come for 10 s
  // without a jump, 13–16 s in by a replay of dropProgress.ts's meters over such landings (768 sentences
  // embedded): the cancel comes with about 800 sentences, 12 s of requests, still to embed however fast the machine.
  await writeFile(file, passages(400));
  server.setEmbeddingLatency(1_000);
  await addFiles(page, [file]);
  // The embed row shows its rate and the time left while it runs.
  await waitWhileIndexing(page, 'the embed stage showed its rate and time left', () =>
    showsText(page, '[data-stage="embed"]', /sentences\/s[\s\S]*left/),
  );
  const embedRow = (await page.textContent('[data-stage="embed"]'))?.replace(/\s+/g, ' ').trim() ?? '';
  log(`embed stage: ${embedRow}`);
  expect(embedRow, `no rate/ETA shown: ${embedRow}`).toMatch(/sentences\/s/);
  expect(embedRow, `no rate/ETA shown: ${embedRow}`).toMatch(/left/);

  await page.click('[data-testid="cancel"]');
  await page.waitForSelector('text=Indexing cancelled');
  await waitIdle(page);
  const afterCancel = await readCounts(page);
  log(`after cancel: ${JSON.stringify(afterCancel)}`);
  expect(afterCancel.vectors, 'cancel came too late: every sentence was embedded').toBeLessThan(
    afterCancel.sentences,
  );
  expect(afterCancel.pendingWaiting, `${afterCancel.pendingWaiting} file(s) still queued`).toBe(0);
  const integrity = await checkIntegrity(page, false);
  expect(integrity.problems.slice(0, 5), 'integrity').toEqual([]);
  // What is left is embedded after the reload at the endpoint's own pace, not the test's.
  server.setEmbeddingLatency(0);
  // Nothing resumes after a reload: the queue is really gone. Documents stored without their vectors get them
  // when the page opens again (lexical first): wait for every sentence's vector and the app idle, so a queue
  // that came back would have been indexed by then, and the removal below is counted against a library at rest.
  await page.reload();
  await page.waitForSelector('[data-indexing]');
  await expect.poll(async () => (await checkIntegrity(page)).problems.length).toBe(0);
  await waitIdle(page);
  const atRest = await readCounts(page);
  expect(atRest.documents, 'the dropped queue came back after a reload').toBe(afterCancel.documents);

  const title = (await page.textContent('[data-testid="documents"] tbody tr td'))?.trim() ?? '';
  // One click only asks (issue 9): nothing is removed until the removal is confirmed; Keep backs out.
  await page.click(`[data-testid="documents"] button[aria-label="Remove ${title}"]`);
  await page.click('[data-testid="keep-document"]');
  await page.click(`[data-testid="documents"] button[aria-label="Remove ${title}"]`);
  // The app now waits for the person (its confirmation is shown, indexing idle): nothing may be removed yet.
  await page.waitForSelector('[data-testid="confirm-remove"]');
  await expect(page.locator('[data-indexing]')).toHaveAttribute('data-indexing', 'idle');
  expect((await readCounts(page)).documents, 'a document was removed without confirmation').toBe(
    atRest.documents,
  );
  await page.click(`[data-testid="documents"] button[aria-label="Yes, remove ${title}"]`);
  await page.waitForFunction(
    (n) =>
      Number(document.querySelector('[data-count="documents"]')?.textContent?.replace(/,/g, '') ?? -1) === n,
    atRest.documents - 1,
  );
  const afterRemove = await readCounts(page);
  log(`removed "${title}": ${JSON.stringify(afterRemove)}`);
  expect(afterRemove.documents, 'the document was not removed').toBe(atRest.documents - 1);
  // Every passage here splits alike (its title and three sentences), so each document holds as many sentences.
  const perDocument = atRest.sentences / atRest.documents;
  expect(afterRemove.sentences, 'the removed document left sentences behind').toBe(
    atRest.sentences - perDocument,
  );
  expect(afterRemove.vectors, 'the removed document left vectors behind').toBe(atRest.vectors - perDocument);
  const integrity2 = await checkIntegrity(page);
  expect(integrity2.problems.slice(0, 5), 'integrity').toEqual([]);
});
