// Two tabs, one library: tab A indexes a file while tab B is open. B says that indexing runs in another tab,
// and after a reload mid-run (when it finds A's queue in IndexedDB) it still does not start that work; it updates
// when A has finished. The library ends as a one-tab run leaves it: the counts read back from IndexedDB equal
// the ones prepareFile gives in Node (as in 01-formats), every document is whole, and A indexed the file once.
// Then A is closed in the middle of a second file: B takes the queue over and the library is again complete.
// The app embeds through the scripted endpoint on loopback, which holds A's embedding until the test has acted
// (B reloaded, A closed): A is still indexing then on any machine (with USE-lite in the browser, a corpus that
// outlasted the act on a loaded machine was embedded first on a quiet one).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { addFiles, checkIntegrity, openApp, readCounts, readOutcomes, waitIdle } from '../lib/app.ts';
import { expectedCounts } from '../lib/expected.ts';
import { expect, testWithEmbedder as test } from '../lib/fixtures.ts';

const PLACES = ['Ashby', 'Brant', 'Colby', 'Dorn', 'Eske', 'Farley', 'Gilby', 'Hurst', 'Irby', 'Kelso'];
const THINGS = ['mill', 'bridge', 'abbey', 'market', 'tower', 'harbour', 'forest', 'castle', 'well', 'ford'];

/** Distinct short passages, three sentences each. */
function passages(n: number, from = 0): string {
  const lines: string[] = [];
  for (let i = from; i < from + n; i++) {
    const name = `${PLACES[i % 10]}${PLACES[Math.floor(i / 10) % 10].toLowerCase()}`;
    const text =
      `${name} grew up around its ${THINGS[i % 10]} in the year ${1100 + i}. ` +
      `The ${THINGS[(i * 3 + 1) % 10]} of ${name} burned down ${(i % 7) + 2} times. ` +
      `About ${200 + ((i * 53) % 800)} people live in ${name} today.`;
    lines.push(JSON.stringify({ title: `${name} (place ${i})`, text }));
  }
  return lines.join('\n') + '\n';
}

/** Every value the page's data-indexing attribute takes, recorded from the first paint of each load. */
const RECORD_STATES = `
  window.__indexingStates = [];
  new MutationObserver(() => {
    const state = document.querySelector('[data-indexing]')?.getAttribute('data-indexing');
    if (state && window.__indexingStates.at(-1) !== state) window.__indexingStates.push(state);
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-indexing'] });
`;

const states = (page: Page): Promise<string[]> =>
  page.evaluate(() => (window as unknown as { __indexingStates: string[] }).__indexingStates);

const indexing = (page: Page): Promise<string | null> =>
  page.getAttribute('[data-indexing]', 'data-indexing');

test.setTimeout(300_000);

test('two tabs: one indexes, the other waits and says so, the library equals a one-tab run', async ({
  page: a,
  context,
  origin,
  tmp,
  log,
  appWithEmbedder: server,
}) => {
  const file = join(tmp, 'places.jsonl');
  await writeFile(file, passages(40));
  const expected = await expectedCounts([file]);

  const b = await context.newPage();
  b.on('pageerror', (error) => log(`tab B page error: ${error.message}`));
  await b.addInitScript({ content: RECORD_STATES });
  await openApp(b, origin);
  // Both tabs' starts over before A's drop: a start that reads the store while A records its drop finds A's queue
  // and resumes it, racing A's worker for the lock (B then shows "running" until it hears A won).
  await a.waitForSelector('[data-connected="true"]');
  await b.waitForSelector('[data-connected="true"]');

  // A's first embedding request waits until B has reloaded: A is indexing through B's reload.
  server.scriptEmbeddings({ kind: 'hold' });
  await addFiles(a, [file]);
  // B hears of A's run over the BroadcastChannel.
  await b.waitForSelector('[data-testid="elsewhere"]');
  const beforeReload = await states(b);

  // Reloaded mid-run, B finds A's work in the store (the file queued, or its documents without vectors): it must
  // wait, not index them a second time.
  await b.reload();
  await b.waitForSelector('[data-testid="elsewhere"]');
  expect(await indexing(a), 'A finished before B had reloaded: the test did not overlap the two tabs').toBe(
    'running',
  );
  log(`B reloaded while A indexes; B shows "${await b.textContent('[data-testid="elsewhere"] h2')}"`);
  server.releaseEmbeddings();

  await waitIdle(a);
  // B updates by itself when A's run ends: no notice, idle, and the documents A stored.
  await b.waitForFunction(
    (n) =>
      document.querySelector('[data-indexing]')?.getAttribute('data-indexing') === 'idle' &&
      document.querySelector('[data-count="documents"]')?.textContent?.replace(/\D/g, '') === String(n),
    expected.documents,
  );
  expect(await b.$('[data-testid="elsewhere"]'), 'B still says indexing runs elsewhere').toBeNull();

  const afterReload = await states(b);
  log(`B's states: before reload ${beforeReload.join(' → ')}; after ${afterReload.join(' → ')}`);
  expect(
    [...beforeReload, ...afterReload],
    'tab B started indexing the queue that tab A was indexing',
  ).not.toContain('running');
  const outcomesB = await readOutcomes(b);
  expect(outcomesB, `tab B indexed files: ${JSON.stringify(outcomesB)}`).toEqual([]);
  const outcomesA = await readOutcomes(a);
  expect(
    outcomesA.map((o) => o.status),
    `tab A's outcome should be one "indexed": ${JSON.stringify(outcomesA)}`,
  ).toEqual(['indexed']);

  const counts = await readCounts(a);
  for (const key of ['documents', 'sections', 'chunks', 'sentences', 'vectors'] as const) {
    expect(counts[key], `${key}: ${counts[key]} in IndexedDB, a one-tab run gives ${expected[key]}`).toBe(
      expected[key],
    );
  }
  expect(counts.pendingWaiting, `queue not empty: ${JSON.stringify(counts)}`).toBe(0);
  expect(counts.pendingFailed, `queue not empty: ${JSON.stringify(counts)}`).toBe(0);
  const integrity = await checkIntegrity(a);
  expect(integrity.problems.slice(0, 5), 'integrity').toEqual([]);
  log(`library: ${JSON.stringify(counts)}`);

  // A is closed mid-run (its lock goes with it, without a "done"): B resumes what A left in the queue.
  const more = join(tmp, 'more-places.jsonl');
  await writeFile(more, passages(40, 1000));
  // Every embedding request is held until A is closed, not only the first: A cannot finish the file first. (With
  // one request held, a clean-clone run beside two busy loops saw the file finished without B taking over; which
  // request took the one hold was not traced.) releaseEmbeddings() answers the held ones, drops the holds left.
  server.scriptEmbeddings(...Array.from({ length: 200 }, () => ({ kind: 'hold' as const })));
  await addFiles(a, [more]);
  await b.waitForSelector('[data-testid="elsewhere"]');
  await a.waitForFunction(
    (n) => Number(document.querySelector('[data-count="documents"]')?.textContent?.replace(/\D/g, '')) > n,
    counts.documents,
  );
  const both = await expectedCounts([file, more]);
  // B's taking over is kept by a mutation observer, not looked for: a run it starts and ends between two looks
  // still counts, and the wait ends with an error if A had finished everything before it was closed.
  await b.evaluate(() => {
    const w = window as unknown as { e2eRan: boolean };
    w.e2eRan = false;
    const look = () => {
      if (document.querySelector('[data-indexing]')?.getAttribute('data-indexing') === 'running')
        w.e2eRan = true;
    };
    new MutationObserver(look).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-indexing'],
    });
    look();
  });
  await a.close();
  server.releaseEmbeddings();
  for (;;) {
    if (await b.evaluate(() => (window as unknown as { e2eRan: boolean }).e2eRan)) break;
    const now = await readCounts(b);
    if (now.vectors >= both.vectors && now.pendingWaiting === 0)
      throw new Error(
        `A finished the second file before it was closed: B had nothing to resume (${JSON.stringify(now)})`,
      );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await waitIdle(b);
  const final = await readCounts(b);
  for (const key of ['documents', 'sections', 'chunks', 'sentences', 'vectors'] as const) {
    expect(
      final[key],
      `after A closed: ${key} ${final[key]} in IndexedDB, a one-tab run gives ${both[key]}`,
    ).toBe(both[key]);
  }
  const after = await checkIntegrity(b);
  expect(after.problems.slice(0, 5), 'integrity').toEqual([]);
  log(`A closed mid-run; B finished: ${JSON.stringify(final)}`);
});
