// Offline: load the app once (the service worker caches the shell, the built assets and the model files), go
// offline, reload, ask a question about the sample documents, and get evidence — with no request leaving the
// origin. Needs the app to register its service worker at start-up (src/sw/register.svelte.ts). The samples' test
// starts from the worker's samples profile (fixtures.ts, startWith): the visit in which the samples were indexed is
// its one visit. The shared bundles' tests start empty; their two bundles (`cli index` of bundles.md, whole and
// --pages) are frozen files (test/support/frozenBundles.ts).
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { askForChunks, openApp, waitIdle } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';
import { frozenBundle, type FrozenName } from '../../support/frozenBundles.ts';

/** Keeps the open bundle for offline use (its Keep button) and waits until the app says the copy is kept. */
async function keepOffline(page: Page): Promise<void> {
  await page.getByTestId('offline-keep').click();
  await expect(page.getByTestId('offline-copy')).toHaveAttribute('data-state', 'kept');
}

/** Waits until the service worker controls the page and holds the shell and the USE model files. */
async function waitOfflineReady(page: Page, timeoutMs = Infinity): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await page.evaluate(async () => {
      if (!('serviceWorker' in navigator)) return { controlled: false, cached: [] as string[] };
      const controlled = navigator.serviceWorker.controller !== null;
      const cached: string[] = [];
      for (const name of await caches.keys()) {
        const cache = await caches.open(name);
        for (const request of await cache.keys()) cached.push(new URL(request.url).pathname);
      }
      return { controlled, cached };
    });
    const has = (suffix: string): boolean => state.cached.some((p) => p.endsWith(suffix));
    if (
      state.controlled &&
      has('/index.html') &&
      has('/models/use/model.json') &&
      has('/models/use/vocab.json')
    ) {
      return state.cached;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `the service worker is not ready after ${timeoutMs / 1000} s (controlled: ${state.controlled}, ` +
          `${state.cached.length} cached files) — does the app register its service worker?`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

test.setTimeout(300_000);

test.describe(() => {
  test.use({ startWith: 'samples' });

  test('offline: after one visit the app reloads and answers with the network off', async ({
    page,
    context,
    origin,
    log,
  }) => {
    // A copy of the profile in which the samples were indexed (the first visit): open it and wait until it is idle.
    await openApp(page, origin);
    await waitIdle(page);
    const question = 'What did Lincoln say at Gettysburg';
    const online = await askForChunks(page, question);
    const cached = await waitOfflineReady(page);
    log(`online: ${online.length} passages; ${cached.length} files cached by the service worker`);

    await context.setOffline(true);
    try {
      await page.reload();
      await page.waitForSelector('[data-indexing]');
      const offline = await askForChunks(page, question);
      log(`offline: ${offline.length} passages`);
      expect(offline.length, 'no evidence offline').toBeGreaterThan(0);
      expect(offline[0], `offline top passage ${offline[0]} differs from online ${online[0]}`).toBe(
        online[0],
      );
    } finally {
      await context.setOffline(false);
    }
  });
});

/**
 * A frozen bundle (test/support/frozenBundles.ts), copied into the served folder and opened by its
 * `?bundle=` link (#library), which `use` gets; the app's service worker controls the page from that first load (the
 * profile is one in which the app was opened before, fixtures.ts), or this throws. The copy is removed when `use`
 * ends.
 */
async function withSharedBundle(
  { page, origin, dist }: { page: Page; origin: string; dist: string },
  name: string,
  bundle: FrozenName,
  use: (url: string) => Promise<void>,
): Promise<void> {
  const folder = `${name}-${process.pid}`;
  await mkdir(join(dist, folder), { recursive: true });
  try {
    await copyFile(frozenBundle(bundle), join(dist, folder, 'shared.bundle'));
    const url = `${origin}/?bundle=/${folder}/shared.bundle#library`;
    await page.goto(url);
    expect(
      await page.evaluate(() => navigator.serviceWorker.controller !== null),
      "the app's service worker does not control the page",
    ).toBe(true);
    await use(url);
  } finally {
    await rm(join(dist, folder), { recursive: true, force: true });
  }
}

/** The link opened again (a new query string, so that the page loads), checked to have opened, not failed. */
async function reopen(page: Page, url: string, again: number): Promise<void> {
  await page.goto(url.replace('#library', `&again=${again}#library`));
  await page.waitForSelector('[data-testid="read-only"], [data-testid="bundle-error"]');
  const error = await page.$('[data-testid="bundle-error"]');
  expect(error && (await error.textContent()), 'the bundle did not open').toBeNull();
}

test('offline: a shared bundle opened once by ?bundle= opens again with the network off', async ({
  page,
  context,
  origin,
  dist,
  log,
}) => {
  // A bundle without pages, as most shared ones are: read whole, and kept by the service worker when opened.
  await withSharedBundle({ page, origin, dist }, 'e2e-offline-bundle', 'bundles.bundle', async (url) => {
    await page.waitForSelector('[data-testid="read-only"]');
    const question = 'How large is a bundle with int8 vectors?';
    const online = await askForChunks(page, question);
    const cached = await waitOfflineReady(page);
    expect(
      cached.some((p) => p.endsWith('/shared.bundle')),
      'the service worker kept the bundle',
    ).toBe(true);
    log(`online: ${online.length} passages; ${cached.length} files cached`);

    await context.setOffline(true);
    try {
      await reopen(page, url, 1);
      const offline = await askForChunks(page, question);
      log(`offline: ${offline.length} passages`);
      expect(offline[0], 'the top passage offline').toBe(online[0]);
    } finally {
      await context.setOffline(false);
    }
  });
});

test('offline: a shared bundle read by ranges, kept for offline use, opens and answers with the network off', async ({
  page,
  context,
  origin,
  dist,
  log,
}) => {
  // A bundle with pages: read by ranges, which the service worker never keeps.
  await withSharedBundle({ page, origin, dist }, 'e2e-offline-kept', 'bundles.pages.bundle', async (url) => {
    await expect(page.getByTestId('read-by-ranges')).toBeVisible();
    const copy = page.getByTestId('offline-copy');
    await expect(copy).toHaveAttribute('data-state', 'none');
    await keepOffline(page);
    await expect(copy).toContainText('Kept for offline use');
    const question = 'How large is a bundle with int8 vectors?';
    const online = await askForChunks(page, question);
    log(`online: ${online.length} passages`);

    await context.setOffline(true);
    try {
      await reopen(page, url, 1);
      await expect(page.getByTestId('offline-read')).toBeVisible();
      await expect(page.getByTestId('read-by-ranges')).toContainText("Read from this browser's offline copy");
      const offline = await askForChunks(page, question);
      log(`offline: ${offline.length} passages`);
      expect(offline, 'the passages offline').toEqual(online);
    } finally {
      await context.setOffline(false);
    }

    // Back online, the host serving the version kept: the copy is read, and the host gets only the opening's probe
    // and the 44 bytes that end the bundle (its manifest's digest: the copy is of this very bundle).
    const path = new URL(url).searchParams.get('bundle');
    const sent: number[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname !== path) return;
      void response.body().then(
        (body) => sent.push(body.length),
        () => sent.push(-1),
      );
    });
    await reopen(page, url, 2);
    await expect(copy).toHaveAttribute('data-state', 'kept');
    await expect(page.getByTestId('offline-read')).toContainText('nothing of them goes over the network');
    expect(await askForChunks(page, question), 'the passages read from the copy online').toEqual(online);
    await expect.poll(() => sent.length).toBeGreaterThan(0);
    expect(
      sent.sort((a, b) => a - b),
      'bytes of the bundle its host sent',
    ).toEqual([12, 44]);
    // Removed, the page reads the host again, and nothing of the copy is left.
    await page.click('a[href="#library"]');
    await page.getByTestId('offline-remove').click();
    await expect(page.getByTestId('offline-read')).toHaveCount(0);
    await expect(copy).toHaveAttribute('data-state', 'none');
    const left = await page.evaluate(
      async () => (await (await caches.open('conceptrag-kept-bundles')).keys()).length,
    );
    expect(left, 'entries left in the offline copies cache').toBe(0);
    await context.setOffline(true);
    try {
      await page.goto(url.replace('#library', '&again=3#library'));
      await expect(page.getByTestId('bundle-error')).toContainText('keeps no copy of it');
    } finally {
      await context.setOffline(false);
    }
  });
});

/** The offline copies' cache: the keys of its entries, by path. */
function keptKeys(page: Page): Promise<string[]> {
  return page.evaluate(async () =>
    (await (await caches.open('conceptrag-kept-bundles')).keys()).map((r) => new URL(r.url).pathname),
  );
}

test('offline: a damaged offline copy is removed at opening, saying why, the host answers; Remove is offered whenever a copy exists', async ({
  page,
  context,
  origin,
  dist,
  log,
}) => {
  await withSharedBundle(
    { page, origin, dist },
    'e2e-offline-damaged',
    'bundles.pages.bundle',
    async (url) => {
      const copy = page.getByTestId('offline-copy');
      await keepOffline(page);
      const question = 'How large is a bundle with int8 vectors?';
      const online = await askForChunks(page, question);

      // One byte of the stored copy changed (the middle of its first part), as a failing disk or a bad keep would.
      const damaged = await page.evaluate(async () => {
        const cache = await caches.open('conceptrag-kept-bundles');
        const part = (await cache.keys()).find((r) => !r.url.endsWith('/index'))!;
        const bytes = new Uint8Array(await (await cache.match(part))!.arrayBuffer());
        bytes[bytes.length >> 1] ^= 0x5a;
        await cache.put(part, new Response(bytes));
        return new URL(part.url).pathname;
      });
      log(`damaged the middle byte of ${damaged}`);

      // Online: the copy fails its check, is removed with a message naming the bundle and why, and the host answers.
      await reopen(page, url, 1);
      await page.click('a[href="#library"]');
      const bundlePath = new URL(url).searchParams.get('bundle')!;
      const dropped = page.getByTestId('offline-dropped');
      await expect(dropped).toContainText(`The offline copy of ${origin}${bundlePath} failed its check`);
      await expect(dropped).toContainText('corrupted');
      log(`message: ${await dropped.textContent()}`);
      await expect(page.getByTestId('read-by-ranges')).toContainText('Read by ranges');
      await expect(copy).toHaveAttribute('data-state', 'none');
      expect(await keptKeys(page), 'entries left of the damaged copy').toEqual([]);
      expect(await askForChunks(page, question), 'the passages from the host').toEqual(online);

      // Kept again and read offline: Remove is offered there too.
      await page.click('a[href="#library"]');
      await keepOffline(page);
      await context.setOffline(true);
      try {
        await reopen(page, url, 2);
        await expect(page.getByTestId('offline-read')).toContainText('cannot be reached');
        await expect(page.getByTestId('offline-remove')).toBeVisible();

        // A keep stopped before its end (its index says pending): offline the bundle does not open, and what is
        // kept can still be removed from the page that says so.
        await page.evaluate(async () => {
          const cache = await caches.open('conceptrag-kept-bundles');
          const key = (await cache.keys()).find((r) => r.url.endsWith('/index'))!;
          const index = (await (await cache.match(key))!.json()) as { complete?: object; pending?: object };
          index.pending = index.complete;
          delete index.complete;
          await cache.put(key, new Response(JSON.stringify(index)));
        });
        await page.goto(url.replace('#library', '&again=3#library'));
        await expect(page.getByTestId('bundle-error')).toContainText('keeps no copy of it');
        await expect(copy).toHaveAttribute('data-state', 'partial');
        await page.getByTestId('offline-remove').click();
        await expect(copy).toHaveCount(0);
        expect(await keptKeys(page), 'entries left after Remove').toEqual([]);
      } finally {
        await context.setOffline(false);
      }
    },
  );
});
