// Spec (c): a reload in the middle of indexing leaves no half-written document (every stored document has all
// its sections, chunks and sentences, and a vector record only with every row), and indexing resumes after the
// reload until every document of the batch is stored with its vectors. Documents are stored lexical first, so the
// reload comes while their sentences are embedded.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  addFiles,
  checkIntegrity,
  openApp,
  readCounts,
  showsText,
  waitIdle,
  waitWhileIndexing,
} from '../lib/app.ts';
import { expectedCounts } from '../lib/expected.ts';
import { villagePassages } from '../lib/villages.ts';
import { expect, test } from '../lib/fixtures.ts';

test.setTimeout(240_000);

test('reload mid-indexing: no half-written document, queue resumes and completes', async ({
  page,
  origin,
  tmp,
  log,
}) => {
  const jsonl = join(tmp, 'villages.jsonl');
  // 150 passages (602 sentences with after.txt): the reload comes as the embed row shows its rate, after the
  // first batch of 128 sentences, and every sentence is embedded by the end (400 passages cost 1,602).
  await writeFile(jsonl, villagePassages(150));
  const txt = join(tmp, 'after.txt');
  await writeFile(txt, 'This file waits behind the big one. It must be indexed after the reload too.\n');
  const expected = await expectedCounts([jsonl, txt]);

  await openApp(page, origin);
  await addFiles(page, [jsonl, txt]);
  // Reload once some documents are stored and the queue is still busy.
  // Documents are stored lexical first, in seconds; the reload comes while their sentences are embedded.
  await waitWhileIndexing(page, 'the embed stage showed its rate', () =>
    showsText(page, '[data-stage="embed"]', /sentences\/s/),
  );
  await page.reload();
  await page.waitForSelector('[data-indexing]');
  const mid = await readCounts(page);
  log(`after reload: ${JSON.stringify(mid)} (expected in the end ${JSON.stringify(expected)})`);
  expect(mid.vectors, 'indexing finished before the reload; nothing to resume').toBeLessThan(
    expected.vectors,
  );
  // A document without its vector record yet is complete (its vectors follow); one with it has every row.
  const midIntegrity = await checkIntegrity(page, false);
  expect(midIntegrity.problems.slice(0, 5), 'half-written documents after reload').toEqual([]);

  await waitIdle(page);
  // Every file was stored before the reload, so the queue may be empty and the app idle for a moment before it
  // resumes embedding the stored documents from the store: wait for the vectors themselves, not only for idle.
  await expect
    .poll(async () => (await readCounts(page)).vectors, { intervals: [500] })
    .toBe(expected.vectors);
  await waitIdle(page);
  const end = await readCounts(page);
  log(`resumed and finished: ${JSON.stringify(end)}`);
  for (const key of ['documents', 'chunks', 'sentences', 'vectors'] as const) {
    expect(end[key], `${key}: ${end[key]} after resume, expected ${expected[key]}`).toBe(expected[key]);
  }
  const integrity = await checkIntegrity(page);
  expect(integrity.problems.slice(0, 5), 'integrity').toEqual([]);
});
