// Spec (round thirty): over a bundle read by ranges from a host answering several ranges a request (as nginx), the
// Ask box has the words a person finishes typing read ahead (QueryService.prepare): range requests for the bundle go
// out while the question is typed, before Ask is clicked, and the question then answers as the same question filled
// in at once. (vite preview, the other specs' host, answers one range a request: nothing is read ahead there.)
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { askForChunks } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';
import { serveStatic, type StaticServer } from '../lib/staticServer.ts';
import { frozenBundle } from '../../support/frozenBundles.ts';

test.setTimeout(300_000);

// The app and its bundle served by our static server, multipart and logging each range request: its own origin for
// this test, so that the privacy guard allows it and nothing else.
const multipartHost = test.extend<{ host: StaticServer }>({
  host: async ({ dist }, use) => {
    const server = await serveStatic(dist, { ranges: true, log: true });
    await use(server);
    await server.close();
  },
  origin: async ({ host }, use) => use(host.origin),
});

multipartHost(
  'a question typed over a bundle read by ranges has its words read before Ask, and answers as one filled in at once',
  async ({ page, origin, dist, host, log }) => {
    const scratch = join(dist, `e2e-typed-${process.pid}`);
    await mkdir(scratch, { recursive: true });
    try {
      const bundle = join(scratch, 'docs.bundle');
      await copyFile(frozenBundle('repo-docs.pages.bundle'), bundle);
      const path = `/e2e-typed-${process.pid}/docs.bundle`;
      const question = 'How is a bundle read by ranges checked against damage?';
      const requests = () => host.requests.filter((r) => r.path === path).length;

      await page.goto(`${origin}/?bundle=${path}&visit=1#library`);
      await expect(page.getByTestId('read-by-ranges')).toBeVisible({ timeout: 120_000 });
      await page.click('a[href="#ask"]');
      // What the opening reads, awaited: the view says open once its reads are in, but reads ahead may follow.
      const opened = requests();
      await page.locator('[data-testid="question"]').pressSequentially(question);
      // The words typed are read while nobody has clicked Ask (on main nothing more goes out until the click,
      // beyond the pages every question reads, which go out before the view says open).
      await expect.poll(requests, { timeout: 120_000 }).toBeGreaterThan(opened);
      const typedReads = requests() - opened;
      await page.click('[data-testid="ask"]');
      await page.waitForSelector('[data-testid="evidence"]', { timeout: 0 });
      const typed = await page.$$eval('[data-testid="evidence"]', (cards) =>
        cards.map((c) => c.getAttribute('data-chunk') ?? ''),
      );
      log(`range requests: opening ${opened}, while typing ${typedReads}, in all ${requests()}`);

      // The same question filled in at once, on a fresh visit: the same evidence.
      await page.goto(`${origin}/?bundle=${path}&visit=2#library`);
      await expect(page.getByTestId('read-by-ranges')).toBeVisible({ timeout: 120_000 });
      expect(await askForChunks(page, question)).toEqual(typed);
      expect(typed.length).toBeGreaterThan(0);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  },
);
