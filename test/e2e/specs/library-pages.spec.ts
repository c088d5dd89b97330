// A large library is answered from its pages (issue 25: reopen ≤ 5 s, ≤ 2 GB of heap over a drop in the tab): the
// ingest worker writes the library's pages into IndexedDB during and at the end of the drop (in place of the
// incremental concept graph), and the query worker answers the default mode, concept, bm25 and the reasoning modes
// (decompose, logical) by ranges over them instead of loading the corpus, before and after a reload; with the KG and
// atomic questions built in the tab, kg, hybrid and atomic too. The threshold
// (10,000 chunks) is lowered by the pagesMinChunks setting so a small folder gets pages; vectors are off (the pages
// hold the lexical index). Every wait is on the app's state. The drop that the reading tests share is made once per
// worker (builtLibrary) and each of them opens a copy of its profile; the tests of what a drop itself does make
// their own (two: the drop past the threshold, read in its own tab and then by the reasoning modes and the KG built
// there; and the drop under it that waits for its pages). PASSAGES passages are enough for every check: the
// threshold, not the library's size, sends a library to its pages.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { Diagnostics } from '../../../src/ui/workers.ts';
import { startScriptedLlmServer } from '../../support/scriptedLlmServer.ts';
import { scriptedPike } from '../../support/scriptedPike.ts';
import { addFiles, openApp, readCounts, waitIdle } from '../lib/app.ts';
import { expect, test as base } from '../lib/fixtures.ts';
import { confirmBuild, estimateBuild, saveEndpoint } from '../lib/llmPanels.ts';
import { putSettings } from '../lib/settings.ts';

/** The first 300 MuSiQue passages, vendored from ../shared/bench (test/fixtures/musique-300). */
const CORPUS = fileURLToPath(new URL('../../fixtures/musique-300/corpus.jsonl', import.meta.url));

const TIMEOUT_MS = 300_000;

/** Passages dropped: 60 of the corpus's 300 (each drop, and the KG build's one call a chunk, costs in proportion). */
const PASSAGES = 60;

/** The first PASSAGES passages as a .jsonl file to drop, with the corpus's lines and its first passage. */
async function passagesFile(
  tmp: string,
): Promise<{ path: string; lines: string[]; first: { title: string; text: string } }> {
  const lines = (await readFile(CORPUS, 'utf8')).split('\n').filter(Boolean);
  const path = join(tmp, 'passages.jsonl');
  await writeFile(path, lines.slice(0, PASSAGES).join('\n') + '\n');
  return { path, lines, first: JSON.parse(lines[0]) as { title: string; text: string } };
}

/** The stored pages' stamp, documents, chunks, concepts and size (null when there are none). */
async function storedPages(
  page: Page,
): Promise<{ stamp: string; documents: number; chunks: number; concepts: number; bytes: number } | null> {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open('conceptrag');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    try {
      if (!db.objectStoreNames.contains('pages')) return null;
      const record = await new Promise<
        | {
            stamp: string;
            documents: number;
            chunks: number;
            directory: { conceptCount: number };
            data: Blob;
          }
        | undefined
      >((resolve, reject) => {
        const r = db.transaction('pages').objectStore('pages').get('library');
        r.onsuccess = () => resolve(r.result as never);
        r.onerror = () => reject(r.error);
      });
      return record
        ? {
            stamp: record.stamp,
            documents: record.documents,
            chunks: record.chunks,
            concepts: record.directory.conceptCount,
            bytes: record.data.size,
          }
        : null;
    } finally {
      db.close();
    }
  });
}

/** Whether the concept graph is stored (the ingest worker's graph refresh writes it). */
async function graphStored(page: Page): Promise<boolean> {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open('conceptrag');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    try {
      const count = await new Promise<number>((resolve, reject) => {
        const r = db.transaction('graph').objectStore('graph').count();
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      return count > 0;
    } finally {
      db.close();
    }
  });
}

/** When the query worker last began loading the library into memory (epoch ms), or null if it never did. */
async function lastLibraryLoad(page: Page): Promise<number | null> {
  return page.evaluate(async () => {
    const d = (globalThis as unknown as { conceptragDiagnostics: Diagnostics }).conceptragDiagnostics;
    return (await d.loadTimings())?.beganAtEpochMs ?? null;
  });
}

/** Asks in the Ask view and waits for the result (not the early evidence). */
async function ask(page: Page, question: string, mode: string): Promise<void> {
  await page.fill('[data-testid="question"]', question);
  await page.selectOption('[data-testid="mode"]', mode);
  await page.click('[data-testid="ask"]');
}

/** The library the reading tests share: the passages dropped with pages on, in a closed browser profile. */
interface BuiltLibrary {
  /** The closed profile's folder; a test opens a copy (openProfile({ copyOf })), so it may change the library. */
  profile: string;
  /** The documents and chunks IndexedDB holds after the drop. */
  counts: { documents: number; chunks: number };
  /** The stored pages' record (storedPages). */
  pages: NonNullable<Awaited<ReturnType<typeof storedPages>>>;
  /** The corpus's lines and its first passage (passagesFile). */
  lines: string[];
  first: { title: string; text: string };
}

const test = base.extend<{ builtLibrary: BuiltLibrary }>({
  // Built once per worker (fixtures.ts, libraryOnce: a test-scoped fixture here, so this spec runs in the suite's
  // one worker), as a test's own drop would be (the same Chromium, profile on disk and privacy guard); the drop's
  // own checks are made there, and fail every test that uses it. The test that pays for the build (the first to ask,
  // or the next after one whose browser wrote into the library's files: fixtures.ts, rebuildOnNextUse) gets the
  // build's time on top of its own.
  builtLibrary: async ({ libraryOnce }, use, testInfo) => {
    const files = await mkdtemp(join(tmpdir(), 'conceptrag-e2e-files-'));
    try {
      const { profile, built } = await libraryOnce('library-pages', async (page, origin) => {
        testInfo.setTimeout(testInfo.timeout + TIMEOUT_MS * Number(process.env.E2E_TIMEOUT_SCALE ?? 1));
        const { path, lines, first } = await passagesFile(files);
        await openApp(page, origin);
        await putSettings(page, { pagesMinChunks: 1, sentenceVectors: false });
        await addFiles(page, [path]);
        await waitIdle(page);
        const counts = await readCounts(page);
        expect(counts.documents).toBe(PASSAGES);
        const pages = await storedPages(page);
        console.log(`    [library-pages] the shared drop's pages: ${JSON.stringify(pages)}`);
        expect(pages, 'the drop wrote the library pages').not.toBeNull();
        expect(pages).toMatchObject({ documents: counts.documents, chunks: counts.chunks });
        expect(pages!.bytes).toBeGreaterThan(0);
        return { counts, pages: pages!, lines, first };
      });
      await use({ profile, ...built });
    } finally {
      await rm(files, { recursive: true, force: true });
    }
  },
});

test.setTimeout(TIMEOUT_MS);

test('a library with pages is answered from them after a reload, and the Library view lists its documents', async ({
  builtLibrary,
  openProfile,
  origin,
}) => {
  const { counts, pages, first } = builtLibrary;
  const { page } = await openProfile({ copyOf: builtLibrary.profile });
  await openApp(page, origin);
  expect(await readCounts(page)).toMatchObject(counts);

  // Reopened: the question is answered from the pages (the results say so), with the passage it asks about.
  await page.reload();
  await openApp(page, origin, 'ask');
  const question = first.text.split(/\s+/).slice(0, 12).join(' ');
  await ask(page, question, 'ppr');
  const results = page.locator('[data-testid="results"][data-stage="result"]');
  await expect(results).toHaveAttribute('data-from', 'pages');
  await expect(page.getByTestId('evidence').first()).toBeVisible();
  // The first question after the reload read its blocks from the stored pages, and says so.
  expect(Number(await page.getByTestId('reads').getAttribute('data-bytes'))).toBeGreaterThan(0);
  await expect(page.getByTestId('evidence-doc').filter({ hasText: first.title })).not.toHaveCount(0);
  // bm25 and concept too; a mode that needs the library in memory says why not.
  for (const mode of ['bm25', 'concept'] as const) {
    await ask(page, question, mode);
    await expect(results).toHaveAttribute('data-from', 'pages');
    await expect(page.getByTestId('evidence-doc').filter({ hasText: first.title })).not.toHaveCount(0);
  }
  await ask(page, question, 'dense');
  await expect(page.getByTestId('ask-error')).toContainText('needs the library in memory');

  // The evidence's document opens from IndexedDB (the viewer reads the one document).
  await ask(page, question, 'ppr');
  await expect(results).toHaveAttribute('data-from', 'pages');
  await page.getByTestId('evidence-doc').filter({ hasText: first.title }).first().click();
  await expect(page.getByTestId('viewer')).toContainText(first.title);

  // The Library view lists the documents, and counts the concepts of the pages that answer (the drop built no
  // concept graph, so the index record's counts are not this library's), with no edge count (never stored).
  await openApp(page, origin, 'library');
  await expect(page.locator('[data-testid="documents"] tbody tr')).toHaveCount(counts.documents);
  expect(pages.concepts).toBeGreaterThan(0);
  await expect(page.locator('[data-count="concepts"]')).toHaveText(pages.concepts.toLocaleString('en-US'));
  await expect(page.locator('[data-count="edges"]')).toHaveText('per question');
});

test('Evaluate runs over the pages in the modes they answer, naming the documents as the QA set does', async ({
  builtLibrary,
  openProfile,
  origin,
  tmp,
  log,
}) => {
  const { lines } = builtLibrary;
  // A QA set asking with each of six passages' own first words, its id the supporting document: the words find it.
  const passages = lines.slice(0, 6).map((l) => JSON.parse(l) as { id: string; text: string });
  const set = join(tmp, 'set.jsonl');
  await writeFile(
    set,
    passages
      .map((p) =>
        JSON.stringify({
          id: p.id,
          question: p.text.split(/\s+/).slice(0, 12).join(' '),
          answers: [p.text.split(/\s+/).slice(0, 3).join(' ')],
          supporting: [p.id],
        }),
      )
      .join('\n') + '\n',
  );

  const { page } = await openProfile({ copyOf: builtLibrary.profile });
  await openApp(page, origin, 'evaluate');
  // Only the modes the pages answer are offered, with the reason in one line.
  await expect(page.getByTestId('eval-modes-reason')).toContainText('answered from its paged index');
  // The default mode, concept, bm25, their fusion, decompose and logical.
  await expect(page.locator('[name="eval-mode"]')).toHaveCount(6);
  await expect(page.getByTestId('eval-mode-rrf:ppr+bm25')).toHaveCount(1);
  await expect(page.getByTestId('eval-mode-decompose')).toHaveCount(1);
  await expect(page.getByTestId('eval-mode-dense')).toHaveCount(0);
  await page.setInputFiles('[data-testid="eval-file"]', set);
  await expect(page.getByTestId('eval-set')).toHaveAttribute('data-questions', String(passages.length));
  await page.fill('[name="eval-budgets"]', '1000');
  for (const mode of ['ppr', 'bm25']) await page.getByTestId(`eval-mode-${mode}`).check();
  await page.getByTestId('eval-run').click();
  await page.waitForSelector('[data-testid="eval-result"][data-cancelled="false"]');
  await expect(page.getByTestId('eval-progress')).toHaveAttribute('data-done', String(2 * passages.length));
  for (const mode of ['ppr', 'bm25']) {
    const row = page.locator(`[data-testid="eval-summary"] tr[data-mode="${mode}"]`);
    await expect(row).toHaveAttribute('data-questions', String(passages.length));
    const recall10 = Number(await row.getAttribute('data-recall-10'));
    log(`${mode}: recall@10 ${recall10}, cells ${JSON.stringify(await row.locator('td').allTextContents())}`);
    // recall@k is scored: the ranked documents are named by their passage ids, read from IndexedDB.
    expect(recall10).toBeGreaterThan(0);
  }
  await expect(page.getByTestId('eval-recall-note')).toHaveCount(0);
  const named = await page
    .locator('[data-testid="eval-doc"][data-supporting="true"]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('title')));
  expect(named.length).toBeGreaterThan(0);
  expect(named.every((id) => passages.some((p) => p.id === id))).toBe(true);
});

test('the Graph view draws a question’s walk and the top concepts from the pages', async ({
  builtLibrary,
  openProfile,
  origin,
  log,
}) => {
  const { first } = builtLibrary;
  const { page } = await openProfile({ copyOf: builtLibrary.profile });

  // Asked from the pages, then shown in the graph: the walk drawn from the pages' own walk, its first passage the
  // Ask view's first evidence.
  await openApp(page, origin, 'ask');
  const question = first.text.split(/\s+/).slice(0, 12).join(' ');
  await ask(page, question, 'ppr');
  await expect(page.locator('[data-testid="results"][data-stage="result"]')).toHaveAttribute(
    'data-from',
    'pages',
  );
  const askFirst = await page.getAttribute('[data-testid="evidence"] >> nth=0', 'data-chunk');
  await page.click('[data-testid="show-in-graph"]');
  await expect(page).toHaveURL(/#graph$/);
  await expect(page.locator('[data-testid="graph-canvas"]')).toHaveAttribute('data-first-frame', /\d/);
  const kinds = await page
    .locator('[data-testid="graph-nodes"] li')
    .evaluateAll((items) => items.map((li) => li.getAttribute('data-kind')));
  log(`drawn from the pages: ${JSON.stringify(kinds)}`);
  expect(kinds.filter((k) => k === 'seed').length).toBeGreaterThan(0);
  expect(kinds.filter((k) => k === 'chunk').length).toBeGreaterThan(0);
  expect(
    await page.getAttribute('[data-testid="graph-nodes"] li[data-kind="chunk"] >> nth=0', 'data-chunk'),
  ).toBe(askFirst);

  // The library side: the top concepts by weighted degree, labelled so; a search finds a seed with its neighbours.
  const seed = (await page.locator('[data-kind="seed"] button').first().textContent())!.trim();
  await page.click('[data-testid="graph-side-library"]');
  await expect(page.getByTestId('graph-measure')).toHaveAttribute('data-measure', 'degree');
  await expect(page.locator('[data-testid="graph-summary"]')).toContainText('highest weighted degree');
  expect(await page.locator('[data-kind="library"]').count()).toBeGreaterThan(1);
  await page.fill('[data-testid="graph-search"]', seed);
  await page.click('[data-testid="graph-find"]');
  await expect(page.locator('[data-testid="graph-summary"]')).toContainText(`“${seed}”`);
  await expect(page.locator('[data-kind="library"] button[aria-pressed="true"]')).toHaveText(seed);
});

test('a drop past the threshold is answered from its pages before any reload, without loading the library; a reasoning mode runs over them: decompose with its live trace and a written answer; then the KG and atomic questions built here', async ({
  page,
  origin,
  tmp,
  privacy,
  log,
}) => {
  const server = await startScriptedLlmServer({ responders: [scriptedPike()], latencyMs: 20 });
  privacy.allowOrigin(server.url);
  try {
    const { path, first } = await passagesFile(tmp);

    await openApp(page, origin);
    await putSettings(page, { pagesMinChunks: 1, sentenceVectors: false });
    // As above: the warm start has loaded the (empty) library before the drop.
    await expect.poll(() => lastLibraryLoad(page), { intervals: [250] }).not.toBeNull();
    const atOpen = await lastLibraryLoad(page);
    await addFiles(page, [path]);
    await waitIdle(page);
    const counts = await readCounts(page);
    expect(counts.documents).toBe(PASSAGES);
    const pages = await storedPages(page);
    log(`pages: ${JSON.stringify(pages)}`);
    expect(pages, 'the drop wrote the library pages').not.toBeNull();
    expect(pages).toMatchObject({ documents: counts.documents, chunks: counts.chunks });
    // Past the threshold from its first refresh: the drop wrote pages, never the concept graph.
    expect(await graphStored(page), 'the drop stored a concept graph').toBe(false);

    // Same page, no reload: answered from the pages, with the passage asked about.
    await openApp(page, origin, 'ask');
    const question = first.text.split(/\s+/).slice(0, 12).join(' ');
    const results = page.locator('[data-testid="results"][data-stage="result"]');
    for (const mode of ['ppr', 'bm25']) {
      await ask(page, question, mode);
      await expect(results).toHaveAttribute('data-mode', mode);
      await expect(results).toHaveAttribute('data-from', 'pages');
      await expect(page.getByTestId('evidence-doc').filter({ hasText: first.title })).not.toHaveCount(0);
    }
    // The query worker never loaded the library into memory after the one at the page's opening.
    expect(await lastLibraryLoad(page)).toBe(atOpen);
    await saveEndpoint(page, origin, server.baseUrl);

    // Decompose (no atomic layer: it searches chunks through the pages), its rounds shown as they happen, then the
    // answer written from the chunks it selected.
    await openApp(page, origin, 'ask');
    await ask(page, question, 'decompose');
    await page.waitForSelector('[data-testid="trace-event"][data-kind="select"]');
    await expect(page.locator('[data-testid="results"][data-stage="result"]')).toHaveAttribute(
      'data-from',
      'pages',
    );
    const kinds = await page.$$eval('[data-testid="trace-event"]', (els) =>
      els.map((e) => `${e.getAttribute('data-round')}:${e.getAttribute('data-kind')}`),
    );
    log(`trace over the pages: ${kinds.join(' ')}`);
    expect(kinds.slice(0, 3)).toEqual(['1:propose', '1:search', '1:select']);
    await expect(page.getByTestId('trace-event').filter({ hasText: 'chunks by ppr' })).not.toHaveCount(0);
    await expect(page.getByTestId('evidence-doc').filter({ hasText: first.title })).not.toHaveCount(0);
    await page.waitForSelector('[data-testid="answer"][data-done="true"]');
    const answer = (await page.textContent('[data-testid="answer"]'))?.trim() ?? '';
    log(`answer: ${answer.slice(0, 160)}`);
    expect(answer.length).toBeGreaterThan(0);

    // The library's own KG and atomic questions, built here in one pass over its chunks, are read beside the pages:
    // kg answers from the KG's entities and atomic through the questions, from the pages, the library not loaded.
    await estimateBuild(page, origin, { kappa: 1, kg: true, atomic: true });
    await confirmBuild(page);
    await openApp(page, origin, 'ask');
    for (const [mode, shows] of [
      ['kg', 'found by kg'],
      ['atomic', 'via What about'],
    ]) {
      await ask(page, question, mode);
      const results = page.locator(`[data-testid="results"][data-mode="${mode}"][data-stage="result"]`);
      await expect(results).toHaveAttribute('data-from', 'pages');
      await expect(page.getByTestId('evidence').filter({ hasText: shows }), mode).not.toHaveCount(0);
    }
    // The library was not loaded into memory for any of it.
    expect(await lastLibraryLoad(page)).toBe(atOpen);
  } finally {
    await server.close();
  }
});

test('a large library waiting for its pages answers by words, and the walk’s answer replaces it once they are written', async ({
  page,
  context,
  origin,
  tmp,
  log,
}) => {
  const { path, first } = await passagesFile(tmp);

  // Stored small (the default threshold): the concept graph, no pages.
  await openApp(page, origin);
  await putSettings(page, { sentenceVectors: false });
  await addFiles(page, [path]);
  await waitIdle(page);
  expect(await storedPages(page)).toBeNull();
  // Another tab of the site takes the library's cross-tab lock (as a tab in the middle of a drop does). Then the
  // threshold is lowered under the library's chunks: it is now large, without pages. Its pages are written under
  // that lock, so this tab waits for it and the window before the first pages stays open. The lock first: a refresh
  // of this tab still running after the drop (under a busy machine's load) would otherwise write the pages the
  // moment the threshold changed.
  const holder = await context.newPage();
  await holder.goto(`${origin}/holds-the-ingest-lock`);
  await holder.evaluate(() => {
    const w = window as unknown as { releaseLock: () => void; lockHeld: Promise<void> };
    w.lockHeld = new Promise<void>((held) => {
      void navigator.locks.request(
        'conceptrag:ingest',
        () =>
          new Promise<void>((release) => {
            w.releaseLock = release;
            held();
          }),
      );
    });
    return w.lockHeld;
  });
  await putSettings(page, { pagesMinChunks: 1 });
  await page.reload();
  await openApp(page, origin, 'ask');
  const question = first.text.split(/\s+/).slice(0, 12).join(' ');
  await ask(page, question, 'ppr');
  const results = page.locator('[data-testid="results"][data-stage="result"]');
  await expect(results).toHaveAttribute('data-from', 'words');
  await expect(page.getByTestId('by-words')).toBeVisible();
  await expect(page.getByTestId('evidence-doc').filter({ hasText: first.title })).not.toHaveCount(0);
  expect(await storedPages(page), 'pages written while another tab held the lock').toBeNull();
  // The reader starts typing another question; the answer on screen is still the first one's.
  await page.fill('[data-testid="question"]', 'a question not asked yet');

  // The other tab lets go: this tab writes the pages, and the answer by words is replaced, with no click.
  await holder.evaluate(() => (window as unknown as { releaseLock: () => void }).releaseLock());
  await expect(results).toHaveAttribute('data-from', 'pages');
  await expect(results).toHaveAttribute('data-question', question);
  await expect(page.getByTestId('replaced-words')).toBeVisible();
  await expect(page.getByTestId('by-words')).toHaveCount(0);
  await expect(page.getByTestId('evidence-doc').filter({ hasText: first.title })).not.toHaveCount(0);
  const pages = await storedPages(page);
  log(`pages after the lock was let go: ${JSON.stringify(pages)}`);
  expect(pages).toMatchObject({ documents: PASSAGES });
  expect(await page.inputValue('[data-testid="question"]')).toBe('a question not asked yet');
  await holder.close();
});
