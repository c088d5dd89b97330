// The app's own settings, written straight into its settings store, for the specs that run in a state a user sets
// in Settings rather than test that page. Above all `sentenceVectors: false` (the library keeps to its lexical
// layer, src/services/ingest/ingestPipeline.ts's embedRound): a spec whose subject is not vectors — the Library
// view, reloads, bundles, the LLM panels — is spared embedding every sentence in the browser, most of an e2e
// test's time on a busy machine.
import type { Page } from 'playwright-core';

/**
 * Writes settings into the app's settings store, once the app has created its database (call it after openApp):
 * opened before that, this would create an empty database that the app's own open then has to upgrade.
 */
export async function putSettings(page: Page, settings: Record<string, unknown>): Promise<void> {
  // Polled from Node (an async predicate in page.waitForFunction would pass at once: a promise is truthy); listing
  // the databases opens none. No limit of its own: the test's time-out bounds it.
  const created = () =>
    page.evaluate(async () => (await indexedDB.databases()).some((d) => d.name === 'conceptrag'));
  while (!(await created())) await new Promise((resolve) => setTimeout(resolve, 100));
  await page.evaluate(async (entries) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open('conceptrag');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    try {
      const tx = db.transaction('settings', 'readwrite');
      for (const [key, value] of entries) tx.objectStore('settings').put({ key, value });
      await new Promise<void>((resolve, reject) => {
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
      });
    } finally {
      db.close();
    }
  }, Object.entries(settings));
}

/**
 * Sentence vectors off, as the Settings view's switch or a drop's "lexical only" choice leaves them: files dropped
 * after this are indexed by their words and never embedded. Call it after openApp and before the drop.
 */
export async function lexicalOnly(page: Page): Promise<void> {
  await putSettings(page, { sentenceVectors: false });
}
