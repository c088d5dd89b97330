// Page helpers shared by the specs: open the app, add files through the Library view's file input, wait until the
// ingest worker is idle, and read counts and per-document integrity straight from IndexedDB.
import type { Page } from 'playwright-core';

export interface DbCounts {
  documents: number;
  sections: number;
  chunks: number;
  sentences: number;
  /** Sentence vectors (rows), summed over the per-document vector records. */
  vectors: number;
  pendingWaiting: number;
  pendingFailed: number;
}

/** Per-document problems: a document missing chunks, sentences or vectors would be a half-written document. */
export interface Integrity {
  documents: number;
  problems: string[];
}

export async function openApp(page: Page, origin: string, view = 'library'): Promise<void> {
  await page.goto(`${origin}/#${view}`);
  // No time limit of its own: in a spec the test's time-out bounds it (a bench gets Playwright's default).
  await page.waitForSelector('[data-indexing]');
}

/**
 * Opens the app on an empty profile and indexes a library — the sample documents ("Add sample documents"), or the
 * files given — and waits until the app is idle with nothing queued. `idleTimeoutMs` as waitIdle's.
 */
export async function openIndexed(
  page: Page,
  origin: string,
  library: 'samples' | string[],
  idleTimeoutMs = Infinity,
): Promise<void> {
  await openApp(page, origin);
  if (library === 'samples') await addSamples(page);
  else await addFiles(page, library);
  await waitIdle(page, idleTimeoutMs);
}

/** Asks `question` in the Ask view's current mode and waits for its settled result (not the early evidence). */
export async function askSettled(page: Page, question: string): Promise<void> {
  await page.fill('[data-testid="question"]', question);
  await page.click('[data-testid="ask"]');
  await page.waitForSelector('[data-testid="results"][data-stage="result"] [data-testid="evidence"]');
}

/** Asks `question` in the Ask view (in the default mode) and returns the texts of the evidence cards it shows. */
export async function askForEvidence(page: Page, question: string): Promise<string[]> {
  await page.click('a[href="#ask"]');
  await page.fill('[data-testid="question"]', question);
  await page.click('[data-testid="ask"]');
  // No time limit of its own, as above.
  await page.waitForSelector('[data-testid="evidence"]', { timeout: 0 });
  return page.$$eval('[data-testid="evidence"]', (cards) => cards.map((c) => c.textContent ?? ''));
}

/** Asks `question` in the Ask view (in the default mode) and returns the chunk ids of the evidence cards it shows. */
export async function askForChunks(page: Page, question: string): Promise<string[]> {
  await page.click('a[href="#ask"]');
  await page.fill('[data-testid="question"]', question);
  await page.click('[data-testid="ask"]');
  // No time limit of its own, as above.
  await page.waitForSelector('[data-testid="evidence"]', { timeout: 0 });
  return page.$$eval('[data-testid="evidence"]', (cards) =>
    cards.map((c) => c.getAttribute('data-chunk') ?? ''),
  );
}

/**
 * Clicks "More passages" until every passage of the answer on screen is shown. Each click is waited out — the cards
 * it adds, or the button gone — before the next look: over a library read by ranges "More" first reads the rest of
 * the answer (AskView's showMore, ask.readRest), so the button stays for a while after the click, and a loop of
 * `count()` then `click()` could find it gone between the two and wait on a click that never comes.
 */
export async function showAllPassages(page: Page): Promise<void> {
  const more = page.locator('[data-testid="more"]');
  while ((await more.count()) > 0) {
    const before = await page.locator('[data-testid="evidence"]').count();
    await more.click();
    await page.waitForFunction(
      (n) =>
        !document.querySelector('[data-testid="more"]') ||
        document.querySelectorAll('[data-testid="evidence"]').length > n,
      before,
      { timeout: 0, polling: 100 },
    );
  }
}

/**
 * Imports a bundle file through the Library view's bundle input and waits for the app's verdict: returns its
 * "Imported …" message, or throws with the app's reason when it refused the file.
 */
export async function importBundle(page: Page, path: string, timeoutMs: number): Promise<string> {
  await page.setInputFiles('[data-testid="bundle-input"]', path);
  const message = await page.waitForSelector('text=/Imported .* document|refused:/', { timeout: timeoutMs });
  const text = ((await message.textContent()) ?? '').trim();
  if (!text.startsWith('Imported')) throw new Error(`the app refused ${path}: ${text}`);
  return text;
}

/**
 * Adds files through the Library view's file input and waits until the app has taken them: it reads a drop
 * before it queues it (and may first check the space it needs), so right after the input's change event it can
 * still say idle with nothing queued, and a `waitIdle` then would return before indexing began (under load that
 * gap lasted seconds). Taken means one of the app's own signals: indexing is no longer idle (also when it went
 * back to idle between two looks: a mutation observer keeps the first change), every file has its outcome
 * listed, or the app asks about the space the drop needs. No time limit of its own: the test's bounds it.
 */
export async function addFiles(page: Page, paths: string[]): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { e2eDrop?: { taken: boolean; listed: Set<string> } };
    const drop = { taken: false, listed: new Set<string>() };
    w.e2eDrop = drop;
    const look = (records: MutationRecord[]) => {
      const state = document.querySelector('[data-indexing]')?.getAttribute('data-indexing');
      if ((state && state !== 'idle') || document.querySelector('[data-testid="space-check"]'))
        drop.taken = true;
      for (const record of records) {
        for (const node of record.addedNodes) {
          if (node instanceof Element) {
            const file = node.getAttribute('data-file');
            if (file !== null) drop.listed.add(file);
            for (const el of node.querySelectorAll('[data-file]'))
              drop.listed.add(el.getAttribute('data-file')!);
          }
        }
      }
    };
    new MutationObserver(look).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-indexing'],
    });
    look([]);
  });
  await page.setInputFiles('[data-testid="file-input"]', paths);
  const names = paths.map((p) => p.split(/[\\/]/).pop() ?? p);
  await page.waitForFunction(
    (files) => {
      const drop = (window as unknown as { e2eDrop: { taken: boolean; listed: Set<string> } }).e2eDrop;
      return drop.taken || files.every((f) => drop.listed.has(f));
    },
    names,
    { timeout: 0, polling: 100 },
  );
}

/**
 * Clicks "Add sample documents" and waits until the app has taken them (they are read and queued one at a time, so
 * right after the click the app can still look idle with nothing waiting). Taken means indexing left idle, kept by
 * a mutation observer, so that a run that starts and ends between two looks still counts.
 */
export async function addSamples(page: Page, timeoutMs = 0): Promise<void> {
  // Watched in the page only: opening the database from here before the app has created its stores would hold a
  // connection its upgrade has to wait for.
  await page.evaluate(() => {
    const w = window as unknown as { e2eSamplesTaken?: boolean };
    w.e2eSamplesTaken = false;
    const look = () => {
      const state = document.querySelector('[data-indexing]')?.getAttribute('data-indexing');
      if (state && state !== 'idle') w.e2eSamplesTaken = true;
    };
    new MutationObserver(look).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-indexing'],
    });
  });
  await page.click('[data-testid="samples"]');
  await page.waitForFunction(
    () => (window as unknown as { e2eSamplesTaken: boolean }).e2eSamplesTaken,
    undefined,
    { timeout: timeoutMs, polling: 50 },
  );
}

/**
 * Whether the app is idle with nothing waiting in the queue, read once (from Node: an async predicate in
 * page.waitForFunction would be a truthy promise). A string when a full store stopped the run with files still
 * queued: idle will not come until Resume, and the string is the app's reason.
 */
async function idleNow(page: Page): Promise<boolean | string> {
  return page.evaluate(async () => {
    const el = document.querySelector('[data-indexing]');
    if (!el || el.getAttribute('data-indexing') !== 'idle') return false;
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open('conceptrag');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    try {
      // Right after the first load the app may not have created its stores yet: not idle, ask again.
      if (!db.objectStoreNames.contains('pending')) return false;
      // Counted on the status index: reading the records would copy every waiting file's bytes.
      const waiting = await new Promise<number>((resolve, reject) => {
        const index = db.transaction('pending').objectStore('pending').index('status');
        const r = index.count(IDBKeyRange.bound('queued', 'working'));
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      if (waiting === 0) return true;
      const stop = document.querySelector('[data-testid="storage-full"]');
      return stop ? `stopped: ${stop.textContent?.replace(/\s+/g, ' ').trim()}` : false;
    } finally {
      db.close();
    }
  });
}

/** Waits until the app says it is idle with nothing waiting in the queue. A spec gives no `timeoutMs`: how long
 *  indexing takes depends on the machine's load, and the test's own time-out bounds the wait; a bench gives one.
 *  Throws with the app's reason when a full store stopped the run with files still queued (it would wait
 *  forever). */
export async function waitIdle(page: Page, timeoutMs = Infinity, pollMs = 500): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const idle = await idleNow(page);
    if (idle === true) return;
    if (typeof idle === 'string') throw new Error(`waiting for indexing to finish, but it ${idle}`);
    if (Date.now() > deadline) throw new Error(`indexing still busy after ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/**
 * Waits for a state the app shows only while it indexes (a stage's rate, a file being read), and throws once
 * indexing has ended without it: such a state can come and go between two looks, and a wait with no exit on the
 * final state would hang until the spec's time-out. `what` names the state in the error.
 */
export async function waitWhileIndexing(
  page: Page,
  what: string,
  shown: () => Promise<boolean>,
  pollMs = 100,
): Promise<void> {
  for (;;) {
    if (await shown()) return;
    const idle = await idleNow(page);
    if (idle !== false) {
      if (await shown()) return;
      throw new Error(`indexing ended (${idle === true ? 'idle, nothing queued' : idle}) before ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Whether the element matching `selector` shows text matching `pattern` now (false when there is none). */
export async function showsText(page: Page, selector: string, pattern: RegExp | string): Promise<boolean> {
  const text = await page.evaluate((s) => document.querySelector(s)?.textContent ?? null, selector);
  if (text === null) return false;
  return typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text);
}

export async function readCounts(page: Page): Promise<DbCounts> {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open('conceptrag');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    // Before the app has created its stores there is nothing to count (and the connection must not stay open).
    if (!db.objectStoreNames.contains('pending')) {
      db.close();
      return {
        documents: 0,
        sections: 0,
        chunks: 0,
        sentences: 0,
        vectors: 0,
        pendingWaiting: 0,
        pendingFailed: 0,
      };
    }
    const count = (store: string) =>
      new Promise<number>((resolve, reject) => {
        const r = db.transaction(store).objectStore(store).count();
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
    const vectorRows = await new Promise<number>((resolve, reject) => {
      let rows = 0;
      const r = db.transaction('vectors').objectStore('vectors').openCursor();
      r.onsuccess = () => {
        const cursor = r.result;
        if (!cursor) return resolve(rows);
        const v = cursor.value as { count: number; dimension: number; encoding?: string; data: ArrayBuffer };
        // Trust the bytes, not the count field: schema v2 rows are int8 codes with a float32 scale each
        // (dimension + 4 bytes), v1 rows float32 (dimension × 4 bytes).
        const rowBytes = v.encoding === 'i8' ? v.dimension + 4 : v.dimension * 4;
        rows += v.dimension > 0 ? v.data.byteLength / rowBytes : 0;
        cursor.continue();
      };
      r.onerror = () => reject(r.error);
    });
    const pending = await new Promise<{ status: string }[]>((resolve, reject) => {
      const r = db.transaction('pending').objectStore('pending').getAll();
      r.onsuccess = () => resolve(r.result as { status: string }[]);
      r.onerror = () => reject(r.error);
    });
    const out = {
      documents: await count('documents'),
      sections: await count('sections'),
      chunks: await count('chunks'),
      sentences: await count('sentences'),
      vectors: vectorRows,
      pendingWaiting: pending.filter((p) => p.status !== 'failed').length,
      pendingFailed: pending.filter((p) => p.status === 'failed').length,
    };
    db.close();
    return out;
  });
}

/** Checks that every stored document has its sections, chunks, sentences and one vector per sentence. */
export async function checkIntegrity(
  page: Page,
  /**
   * Documents are stored before their sentences are embedded (lexical first): after a cancel a document without
   * a vector record is complete; pass false to check only the vector records that exist.
   */
  requireVectors = true,
): Promise<Integrity> {
  return page.evaluate(async (requireVectors) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open('conceptrag');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const all = <T>(store: string) =>
      new Promise<T[]>((resolve, reject) => {
        const r = db.transaction(store).objectStore(store).getAll();
        r.onsuccess = () => resolve(r.result as T[]);
        r.onerror = () => reject(r.error);
      });
    const docs = await all<{ id: string; sourceName: string }>('documents');
    const sections = await all<{ docId: string }>('sections');
    const chunks = await all<{ id: string; docId: string; sentenceCount: number }>('chunks');
    const sentences = await all<{ docId: string; chunkId: string }>('sentences');
    const vectors = await all<{ docId: string; dimension: number; encoding?: string; data: ArrayBuffer }>(
      'vectors',
    );
    db.close();
    const by = <T extends { docId: string }>(rows: T[]) => {
      const m = new Map<string, T[]>();
      for (const r of rows) m.set(r.docId, [...(m.get(r.docId) ?? []), r]);
      return m;
    };
    const secBy = by(sections);
    const chunkBy = by(chunks);
    const sentBy = by(sentences);
    const vecBy = new Map(vectors.map((v) => [v.docId, v]));
    const problems: string[] = [];
    for (const d of docs) {
      const cs = chunkBy.get(d.id) ?? [];
      const ss = sentBy.get(d.id) ?? [];
      const v = vecBy.get(d.id);
      if ((secBy.get(d.id) ?? []).length === 0) problems.push(`${d.sourceName}: no sections`);
      if (cs.length === 0) problems.push(`${d.sourceName}: no chunks`);
      const expected = cs.reduce((n, c) => n + c.sentenceCount, 0);
      if (ss.length !== expected)
        problems.push(`${d.sourceName}: ${ss.length} sentences, chunks list ${expected}`);
      // int8 rows (schema v2) carry a float32 scale each; float32 rows (v1) are dimension × 4 bytes.
      const rowBytes = v?.encoding === 'i8' ? v.dimension + 4 : (v?.dimension ?? 0) * 4;
      const rows = v && v.dimension > 0 ? v.data.byteLength / rowBytes : -1;
      if ((v || requireVectors) && rows !== ss.length)
        problems.push(`${d.sourceName}: ${rows} vectors for ${ss.length} sentences`);
    }
    const docIds = new Set(docs.map((d) => d.id));
    for (const rows of [sections, chunks, sentences, vectors]) {
      for (const r of rows) if (!docIds.has(r.docId)) problems.push(`orphan record of document ${r.docId}`);
    }
    return { documents: docs.length, problems };
  }, requireVectors);
}

/** Per-file outcomes shown in the Library view. */
export async function readOutcomes(page: Page): Promise<{ file: string; status: string; text: string }[]> {
  return page.$$eval('[data-testid="outcomes"] li', (items) =>
    items.map((li) => ({
      file: li.getAttribute('data-file') ?? '',
      status: li.getAttribute('data-status') ?? '',
      text: (li.textContent ?? '').replace(/\s+/g, ' ').trim(),
    })),
  );
}
