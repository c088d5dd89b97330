// Spec (a): one file of each supported format is indexed, and the document/chunk/sentence/vector counts read back
// from IndexedDB equal the counts that prepareFile gives in Node for the same files.
import { join } from 'node:path';
import { addFiles, checkIntegrity, openApp, readCounts, readOutcomes, waitIdle } from '../lib/app.ts';
import { expectedCounts } from '../lib/expected.ts';
import type { E2eSpec } from '../lib/harness.ts';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'docs');
const FILES = ['hello.txt', 'notes.md', 'report.pdf', 'memo.docx', 'page.html', 'passages.jsonl'];

const spec: E2eSpec = {
  name: 'formats: .txt .md .pdf .docx .html .jsonl indexed with the counts prepareFile gives in Node',
  timeoutMs: 180_000,
  async run({ page, origin, log }) {
    const paths = FILES.map((f) => join(FIXTURES, f));
    const expected = await expectedCounts(paths);
    await openApp(page, origin);
    await addFiles(page, paths);
    await waitIdle(page, 150_000);
    const counts = await readCounts(page);
    log(`expected ${JSON.stringify(expected)}; IndexedDB ${JSON.stringify(counts)}`);
    for (const key of ['documents', 'sections', 'chunks', 'sentences', 'vectors'] as const) {
      if (counts[key] !== expected[key])
        throw new Error(`${key}: IndexedDB has ${counts[key]}, expected ${expected[key]}`);
    }
    if (counts.pendingWaiting !== 0 || counts.pendingFailed !== 0) {
      throw new Error(`queue not empty: ${counts.pendingWaiting} waiting, ${counts.pendingFailed} failed`);
    }
    const integrity = await checkIntegrity(page);
    if (integrity.problems.length > 0) throw new Error(`integrity: ${integrity.problems.join('; ')}`);
    const outcomes = await readOutcomes(page);
    for (const f of FILES) {
      const o = outcomes.find((x) => x.file === f);
      if (o?.status !== 'indexed')
        throw new Error(`${f}: expected "indexed" in the Library view, got ${JSON.stringify(o)}`);
    }
    // The counts shown in the Library view match the store.
    await page.waitForFunction(
      (docs) =>
        document.querySelector('[data-count="documents"]')?.textContent?.replace(/,/g, '') === String(docs),
      expected.documents,
      { timeout: 10_000 },
    );
  },
};

export default spec;
