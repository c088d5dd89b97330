// Spec (a): one file of each supported format is indexed, and the document/chunk/sentence/vector counts read back
// from IndexedDB equal the counts that prepareFile gives in Node for the same files.
// The sentences are embedded through the scripted endpoint on loopback (an endpoint embedder, as a user sets one in
// Settings): a vector per sentence is still counted, without loading the model for six small files. USE-lite in
// the browser keeps its own checks of a vector per sentence: evidence-readable and 04-ask-samples (the worker's
// samples profile).
import { join } from 'node:path';
import { addFiles, checkIntegrity, readCounts, readOutcomes, waitIdle } from '../lib/app.ts';
import { expectedCounts } from '../lib/expected.ts';
import { expect, testWithEmbedder as test } from '../lib/fixtures.ts';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'docs');
const FILES = ['hello.txt', 'notes.md', 'report.pdf', 'memo.docx', 'page.html', 'passages.jsonl'];

test.setTimeout(180_000);

test('formats: .txt .md .pdf .docx .html .jsonl indexed with the counts prepareFile gives in Node', async ({
  page,
  log,
  appWithEmbedder: _embedder,
}) => {
  const paths = FILES.map((f) => join(FIXTURES, f));
  const expected = await expectedCounts(paths);
  await addFiles(page, paths);
  await waitIdle(page);
  const counts = await readCounts(page);
  log(`expected ${JSON.stringify(expected)}; IndexedDB ${JSON.stringify(counts)}`);
  for (const key of ['documents', 'sections', 'chunks', 'sentences', 'vectors'] as const) {
    expect(counts[key], `${key}: IndexedDB has ${counts[key]}, expected ${expected[key]}`).toBe(
      expected[key],
    );
  }
  expect(counts.pendingWaiting, 'files still waiting in the queue').toBe(0);
  expect(counts.pendingFailed, 'failed files in the queue').toBe(0);
  const integrity = await checkIntegrity(page);
  expect(integrity.problems, 'integrity').toEqual([]);
  const outcomes = await readOutcomes(page);
  for (const f of FILES) {
    const o = outcomes.find((x) => x.file === f);
    expect(o?.status, `${f}: expected "indexed" in the Library view, got ${JSON.stringify(o)}`).toBe(
      'indexed',
    );
  }
  // The counts shown in the Library view match the store.
  await page.waitForFunction(
    (docs) =>
      document.querySelector('[data-count="documents"]')?.textContent?.replace(/,/g, '') === String(docs),
    expected.documents,
  );
});
