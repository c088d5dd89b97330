// Spec (c): a reload in the middle of indexing leaves no half-written document (every stored document has all
// its sections, chunks and sentences, and a vector record only with every row), and indexing resumes after the
// reload until every document of the batch is stored with its vectors. Documents are stored lexical first, so the
// reload comes while their sentences are embedded: the app embeds through the scripted endpoint on loopback, which
// answers the first embedding call and holds the next until the test has reloaded, so the reload lands with some
// vectors stored and others not on any machine (with USE-lite in the browser a quiet machine finished first).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { addFiles, checkIntegrity, readCounts, waitIdle, waitWhileIndexing } from '../lib/app.ts';
import { waitForHeldEmbedding } from '../lib/embeddingEndpoint.ts';
import { expectedCounts } from '../lib/expected.ts';
import { villagePassages } from '../lib/villages.ts';
import { expect, testWithEmbedder as test } from '../lib/fixtures.ts';

test.setTimeout(240_000);

test('reload mid-indexing: no half-written document, queue resumes and completes', async ({
  page,
  tmp,
  log,
  appWithEmbedder: server,
}) => {
  const jsonl = join(tmp, 'villages.jsonl');
  // 40 passages (162 sentences with after.txt): two embedding calls, 128 sentences (two requests of 64) and 34.
  await writeFile(jsonl, villagePassages(40));
  const txt = join(tmp, 'after.txt');
  await writeFile(txt, 'This file waits behind the big one. It must be indexed after the reload too.\n');
  const expected = await expectedCounts([jsonl, txt]);

  // The first call is answered and the second held; so is the reloaded page's first request until the counts the
  // reload left are read (releaseEmbeddings lets it go, or drops its hold if it has not come yet).
  server.scriptEmbeddings({ kind: 'ok' }, { kind: 'ok' }, { kind: 'hold' }, { kind: 'hold' });
  await addFiles(page, [jsonl, txt]);
  // Documents are stored lexical first, in seconds; the reload comes while their sentences are embedded, once the
  // first call's vectors are stored (written beside the next call).
  await waitForHeldEmbedding(page, server);
  await waitWhileIndexing(
    page,
    'the first vectors were stored',
    async () => (await readCounts(page)).vectors > 0,
  );
  await page.reload();
  await page.waitForSelector('[data-indexing]');
  const mid = await readCounts(page);
  log(`after reload: ${JSON.stringify(mid)} (expected in the end ${JSON.stringify(expected)})`);
  expect(mid.vectors, 'indexing finished before the reload; nothing to resume').toBeLessThan(
    expected.vectors,
  );
  expect(mid.vectors, 'no vector was stored before the reload').toBeGreaterThan(0);
  // A document without its vector record yet is complete (its vectors follow); one with it has every row.
  const midIntegrity = await checkIntegrity(page, false);
  expect(midIntegrity.problems.slice(0, 5), 'half-written documents after reload').toEqual([]);
  server.releaseEmbeddings();

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
