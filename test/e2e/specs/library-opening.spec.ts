// Never an empty library that is not empty (issue 22, item 2): until the store has been read, the views say
// "Opening your library…"; the welcome, "Documents 0" and the Ask view's "The library is empty" come only once the
// store was read and is empty. The store's open is held back on purpose (another page of the origin holds a
// version upgrade open: IndexedDB queues every later open behind it, the app's as a slow disk would). A shared
// index (?bundle=) shows the bytes downloaded so far, with Cancel, while it downloads over a throttled network.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { importBundle, openApp } from '../lib/app.ts';
import { bundleOnce } from '../lib/bundleOnce.ts';
import { expect, test } from '../lib/fixtures.ts';
import { frozenBundle } from '../../support/frozenBundles.ts';

test.setTimeout(300_000);

/** The Vue docs of the shared bench data: beside the repository (../shared), or the workplace's copy. */
const VUE_DOCS = [
  process.env.CONCEPTRAG_VUEDOCS ?? join(process.cwd(), '..', 'shared', 'bench', 'vuedocs', 'docs'),
  '/work/shared/bench/vuedocs/docs',
];

function vueDocs(): string {
  const dir = VUE_DOCS.find((d) => existsSync(d));
  if (!dir) throw new Error(`no Vue docs at ${VUE_DOCS.join(' or ')} (set CONCEPTRAG_VUEDOCS)`);
  return dir;
}

/**
 * Records, from the first paint on, every empty state the page shows and whether it said it was opening: a
 * MutationObserver installed before the app's scripts run.
 */
async function watchEmptyStates(p: Page): Promise<void> {
  await p.addInitScript(() => {
    const w = window as unknown as { emptySeen: string[]; openingSeen: boolean };
    w.emptySeen = [];
    w.openingSeen = false;
    const check = () => {
      if (document.querySelector('[data-testid="library-opening"]')) w.openingSeen = true;
      if (document.querySelector('[data-testid="welcome"]')) w.emptySeen.push('welcome');
      const docs = document.querySelector('[data-count="documents"]');
      if (docs && docs.textContent?.trim() === '0') w.emptySeen.push('Documents 0');
      if (document.body?.textContent?.includes('The library is empty')) w.emptySeen.push('library is empty');
      if (document.querySelector('[data-testid="samples"]')) w.emptySeen.push('samples offered');
    };
    new MutationObserver(check).observe(document, { subtree: true, childList: true, characterData: true });
  });
}

const seen = (p: Page) =>
  p.evaluate(() => {
    const w = window as unknown as { emptySeen: string[]; openingSeen: boolean };
    return { empty: [...new Set(w.emptySeen)], opening: w.openingSeen };
  });

test('the store opened late: "Opening your library…" until it is read, never an empty library', async ({
  page,
  context,
  origin,
  tmp,
  log,
}) => {
  // Any library will do: the bundle of one results page, frozen (test/support/frozenBundles.ts; bundle-offline opens it too),
  // named as the import message shows it. The Vue docs' (107 documents) took 4.5 s to build and as long to import.
  const bundle = join(tmp, 'notes.bundle');
  await copyFile(frozenBundle('bundles.bundle'), bundle);
  await openApp(page, origin);
  const imported = await importBundle(page, bundle, 120_000);
  log(imported);
  const documents = Number(/(\d+) document/.exec(imported)?.[1]);
  expect(documents).toBeGreaterThan(0);
  // The app's page goes (its workers with it), so nothing of the app holds the database.
  await page.goto('about:blank');

  // Another page of the origin holds a version upgrade open until told to let go.
  const holder = await context.newPage();
  await holder.goto(`${origin}/samples/index.json`);
  await holder.evaluate(async () => {
    const version = await new Promise<number>((resolve, reject) => {
      const r = indexedDB.open('conceptrag');
      r.onsuccess = () => {
        resolve(r.result.version);
        r.result.close();
      };
      r.onerror = () => reject(r.error);
    });
    const w = window as unknown as { release: boolean; held: Promise<void> };
    w.release = false;
    await new Promise<void>((upgrading) => {
      const r = indexedDB.open('conceptrag', version + 1);
      r.onupgradeneeded = () => {
        const tx = r.transaction!;
        // Requests one after another keep the upgrade alive; when released it is aborted (nothing changes).
        const spin = () => {
          if (w.release) tx.abort();
          else tx.objectStore('documents').count().onsuccess = spin;
        };
        spin();
        upgrading();
      };
      r.onerror = () => undefined;
    });
  });

  const app = await context.newPage();
  await watchEmptyStates(app);
  await app.goto(`${origin}/#library`);
  await expect(app.getByTestId('library-opening')).toContainText('Opening your library…');
  // The Ask view says the same while the store is held.
  await app.click('a[href="#ask"]');
  await expect(app.getByTestId('library-opening')).toBeVisible();
  await app.click('a[href="#library"]');
  await expect(app.getByTestId('library-opening')).toBeVisible();
  // Held a while longer (the provocation, not a wait for a result): still opening, nothing empty shown.
  await app.waitForTimeout(2000);
  await expect(app.getByTestId('library-opening')).toBeVisible();

  await holder.evaluate(() => ((window as unknown as { release: boolean }).release = true));
  await expect(app.locator('[data-count="documents"]')).toHaveText(documents.toLocaleString('en-US'), {
    timeout: 60_000,
  });
  await expect(app.getByTestId('library-opening')).toHaveCount(0);
  await app.click('a[href="#ask"]');
  await expect(app.getByTestId('question')).toBeVisible();
  const result = await seen(app);
  log(
    `while the store was held: opening shown ${result.opening}; empty states ${JSON.stringify(result.empty)}`,
  );
  expect(result.opening).toBe(true);
  expect(result.empty).toEqual([]);
});

// A browser that never opened the app: the slow network below is the page's route, which a service worker's own
// fetch of the bundle (in a profile that visited the app) would go around. Its service worker blocked: this first
// visit would otherwise precache the app's files (~84 MB) beside the test, which is not about them.
test.describe(() => {
  test.use({ startWith: 'new', serviceWorkers: 'block' });

  test('?bundle=: the bytes downloaded so far, with Cancel, and no empty library meanwhile', async ({
    page,
    origin,
    dist,
    privacy,
    log,
  }) => {
    const scratch = join(dist, `e2e-opening-${process.pid}`);
    await mkdir(scratch, { recursive: true });
    try {
      const bundle = join(scratch, 'vue.bundle');
      await copyFile(await bundleOnce(vueDocs()), bundle);
      await watchEmptyStates(page);
      // A slow network: the bundle's URL (the app's own origin) is answered by a loopback server that sends it in
      // 8 KB pieces every 50 ms, with its length stated, and its second half only once the test lets it go.
      let release = (): void => undefined;
      const released = new Promise<void>((r) => (release = r));
      const slow = await slowServer(await readFile(bundle), released);
      privacy.allowOrigin(slow.origin);
      // By path: the page's own URL names the bundle in its query.
      const path = `/e2e-opening-${process.pid}/vue.bundle`;
      await page.route(
        (url) => url.pathname === path,
        (route) => route.continue({ url: `${slow.origin}/vue.bundle` }),
      );
      await page.goto(`${origin}/?bundle=/e2e-opening-${process.pid}/vue.bundle#library`);
      const progress = page.getByTestId('bundle-download');
      // Part of it downloaded (more than nothing, less than all), out of the size the server states.
      let shown = '';
      await expect
        .poll(
          async () => {
            shown = ((await progress.textContent().catch(() => '')) ?? '').trim();
            const [, got, total] = /Loading the shared index: (\d+\.\d) of (\d+\.\d) MB/.exec(shown) ?? [];
            return got !== undefined && Number(got) > 0 && Number(got) < Number(total);
          },
          { timeout: 60_000, intervals: [100] },
        )
        .toBe(true);
      log(`shown while downloading: ${shown}`);
      await expect(page.getByTestId('cancel-opening')).toBeVisible();
      await page.click('a[href="#ask"]');
      await expect(page.getByTestId('bundle-download')).toBeVisible();
      await page.click('a[href="#library"]');
      release();
      await expect(page.getByTestId('read-only')).toBeVisible({ timeout: 120_000 });
      const result = await seen(page);
      log(`empty states while the bundle loaded: ${JSON.stringify(result.empty)}`);
      expect(result.empty).toEqual([]);
      await slow.close();
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});

/**
 * Serves `body` slowly: 8 KB every 50 ms with its Content-Length, and its second half only once `gate` resolves: the
 * test sees the download part-way however fast the machine is, and by more than a tenth of a MB short of the whole
 * (held before the last piece only, the shown MB could round to the whole's).
 */
async function slowServer(
  body: Buffer,
  gate: Promise<void>,
): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    response.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': String(body.length),
      // The app is cross-origin isolated: the response is the app's own (the route keeps the URL), but say so.
      'cross-origin-resource-policy': 'cross-origin',
    });
    let at = 0;
    const step = async () => {
      if (at >= body.length / 2) await gate;
      const end = Math.min(body.length, at + 8 * 1024);
      response.write(body.subarray(at, end));
      at = end;
      if (at < body.length) setTimeout(() => void step(), 50);
      else response.end();
    };
    void step();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
