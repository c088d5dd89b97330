// Spec (issue 14, one progress for the whole drop): while a drop indexes, the Library view shows the drop as a
// whole — files read, sentences stored, documents searchable, documents with vectors, each with done/total — and
// the header says that answers use the lexical graph while sentences are still being embedded, with how many.
// Each document in the list shows the layers it has: lexical first, vectors once its sentences are embedded. Once
// only embedding is left, the query worker loads the lexical library before any question (issue 15).
// What is checked "while sentences are embedded" needs embedding still running when it is looked at: the app embeds
// through the scripted endpoint on loopback, which holds the first embedding request until those checks are done,
// so they hold on any machine (with USE-lite in the browser, how long embedding lasted was the machine's speed).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addFiles, showsText, waitIdle, waitWhileIndexing } from '../lib/app.ts';
import { expect, testWithEmbedder as test } from '../lib/fixtures.ts';
import { layerCounts, listedLayers } from '../lib/layers.ts';
import type { Diagnostics } from '../../../src/ui/workers.ts';

/** The first 300 MuSiQue passages, vendored from ../shared/bench (test/fixtures/musique-300). */
const CORPUS = fileURLToPath(new URL('../../fixtures/musique-300/corpus.jsonl', import.meta.url));
/** Passages a file. */
const PER_FILE = 75;

test.setTimeout(240_000);

test('one progress for the drop; the header says what answers use while sentences are embedded', async ({
  page,
  tmp,
  log,
  appWithEmbedder: server,
}) => {
  const lines = (await readFile(CORPUS, 'utf8')).split('\n').filter(Boolean);
  const paths = [join(tmp, 'first.jsonl'), join(tmp, 'second.jsonl')];
  await writeFile(paths[0], lines.slice(0, PER_FILE).join('\n') + '\n');
  await writeFile(paths[1], lines.slice(PER_FILE, 2 * PER_FILE).join('\n') + '\n');
  // Every sentence waits for its vector until the checks made while embedding are done.
  server.scriptEmbeddings({ kind: 'hold' });
  await addFiles(page, paths);

  const progress = page.getByTestId('drop-progress');
  const row = (key: string) => progress.locator(`[data-row="${key}"]`);
  // Both files are read and every document is searchable before the sentences are all embedded.
  // Each is shown only while the drop indexes: a wait that ends with an error once indexing has ended without it.
  const drop = '[data-testid="drop-progress"]';
  await waitWhileIndexing(page, 'the drop showed 2 / 2 files read', () =>
    showsText(page, `${drop} [data-row="files"]`, '2 / 2'),
  );
  await waitWhileIndexing(page, 'every document was shown searchable', () =>
    showsText(page, `${drop} [data-row="searchable"]`, `${2 * PER_FILE} / ${2 * PER_FILE}`),
  );
  const note = page.getByTestId('embedding-note');
  await waitWhileIndexing(page, 'the header said that sentences are still being embedded', () =>
    showsText(
      page,
      '[data-testid="embedding-note"]',
      /answers use the lexical graph; [\d,]+ of [\d,]+ sentences still being embedded/,
    ),
  );
  const noteText = (await note.textContent())?.replace(/\s+/g, ' ').trim() ?? '';
  log(`header while embedding: ${noteText}`);
  const [, left, total] = /; ([\d,]+) of ([\d,]+) sentences/.exec(noteText) ?? [];
  const counts = await layerCounts(page);
  expect(Number(total.replace(/,/g, '')), 'the header counts the stored sentences').toBe(counts.sentences);
  expect(Number(left.replace(/,/g, ''))).toBeGreaterThan(0);
  const vectorsRow = (await row('embedded').textContent())?.replace(/\s+/g, ' ').trim() ?? '';
  log(`vectors row: ${vectorsRow}`);
  expect(vectorsRow).toMatch(new RegExp(`Documents with vectors [\\d,]+ / ${2 * PER_FILE}`));
  // Documents are listed with the lexical layer while some still wait for their vectors.
  await waitWhileIndexing(
    page,
    'a document was listed with the lexical layer only',
    async () =>
      (await page
        .locator('[data-testid="documents"] td[data-layers]')
        .evaluateAll((cells) => cells.filter((c) => c.getAttribute('data-layers') === 'lexical').length)) > 0,
  );
  // With only embedding left, the lexical library stays as it is until the semantic layer is built: the Ask
  // view's warm start loads it in the query worker without a question, while the sentences are still embedded.
  // Polled from Node: an async predicate in page.waitForFunction would pass at once (a promise is truthy).
  const openedMs = () =>
    page.evaluate(async () => {
      const d = (globalThis as unknown as { conceptragDiagnostics: Diagnostics }).conceptragDiagnostics;
      return (await d.loadTimings())?.opened ?? null;
    });
  await expect.poll(openedMs, { intervals: [250] }).not.toBeNull();
  const stillEmbedding = await note.count();
  log(
    `lexical library loaded by the warm start in ${await openedMs()} ms; embedding ` +
      (stillEmbedding ? 'still running' : 'done'),
  );
  expect(stillEmbedding, 'the warm load came while sentences were still being embedded').toBe(1);
  server.releaseEmbeddings();

  await waitIdle(page);
  await expect(note).toHaveCount(0);
  await expect(page.getByTestId('layers')).toContainText('semantic ready');
  await expect.poll(() => listedLayers(page)).toEqual(['lexical vectors']);
  await expect(row('embedded')).toContainText(`${2 * PER_FILE} / ${2 * PER_FILE}`);
});
