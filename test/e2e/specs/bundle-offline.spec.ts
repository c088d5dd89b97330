// Offline: load the app once (the service worker caches the shell, the built assets and the model files), go
// offline, reload, ask a question about the sample documents, and get evidence — with no request leaving the
// origin. Needs the app to register its service worker at start-up (src/sw/register.svelte.ts).
import type { Page } from 'playwright-core';
import { addSamples, openApp, waitIdle } from '../lib/app.ts';
import type { E2eSpec } from '../lib/harness.ts';

/** Waits until the service worker controls the page and holds the shell and the USE model files. */
async function waitOfflineReady(page: Page, timeoutMs: number): Promise<string[]> {
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

async function ask(page: Page, question: string): Promise<string[]> {
  await page.click('a[href="#ask"]');
  await page.fill('[data-testid="question"]', question);
  await page.click('[data-testid="ask"]');
  await page.waitForSelector('[data-testid="evidence"]', { timeout: 90_000 });
  return page.$$eval('[data-testid="evidence"]', (cards) =>
    cards.map((c) => c.getAttribute('data-chunk') ?? ''),
  );
}

const spec: E2eSpec = {
  name: 'offline: after one visit the app reloads and answers with the network off',
  timeoutMs: 300_000,
  async run({ page, context, origin, log }) {
    await openApp(page, origin);
    await addSamples(page);
    await waitIdle(page, 200_000);
    const question = 'What did Lincoln say at Gettysburg';
    const online = await ask(page, question);
    const cached = await waitOfflineReady(page, 60_000);
    log(`online: ${online.length} passages; ${cached.length} files cached by the service worker`);

    await context.setOffline(true);
    try {
      await page.reload();
      await page.waitForSelector('[data-indexing]', { timeout: 30_000 });
      const offline = await ask(page, question);
      log(`offline: ${offline.length} passages`);
      if (offline.length === 0) throw new Error('no evidence offline');
      if (offline[0] !== online[0]) {
        throw new Error(`offline top passage ${offline[0]} differs from online ${online[0]}`);
      }
    } finally {
      await context.setOffline(false);
    }
  },
};

export default spec;
