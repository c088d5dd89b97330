// Service-worker update: visit build A (the served dist/), then the same origin starts serving build B (built here
// from the same source, unminified, with one sample file changed) — `vite preview` as the webServer runs it, stopped
// and started again on the same port with B's folder. On the next visit the page still runs A and
// says a new version is ready; "Reload" switches to B: B's bundles and B's version of the changed sample are
// served, and nothing of A is left in Cache Storage (A's hashed bundles, A's sample revision, a legacy cache).
import { cp, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { build, preview, type PreviewServer } from 'vite';
import { expect, test } from '../lib/fixtures.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SAMPLE = 'samples/lighthouse-of-alexandria.txt';
const B_LINE = '\n\nThis line exists only in build B of the service-worker update test.\n';

/** Build B: the app's own config, a copy of public/ with one sample changed, no minification (new bundle hashes). */
async function buildB(tmp: string): Promise<string> {
  const publicDir = join(tmp, 'public-b');
  const outDir = join(tmp, 'dist-b');
  await cp(join(root, 'public'), publicDir, { recursive: true });
  const sample = join(publicDir, SAMPLE);
  await writeFile(sample, (await readFile(sample, 'utf8')) + B_LINE);
  await build({
    root,
    configFile: join(root, 'vite.config.ts'),
    publicDir,
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true, minify: false },
  });
  return outDir;
}

/** The app's `vite preview` (its COOP/COEP and CSP headers) over one build; port 0 takes a free one. */
async function servePreview(
  outDir: string,
  port: number,
): Promise<{ server: PreviewServer; origin: string }> {
  const server = await preview({
    root,
    configFile: join(root, 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir },
    preview: { port, strictPort: true },
  });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error('vite preview reported no local URL');
  return { server, origin: new URL(url).origin };
}

async function cachedUrls(page: Page): Promise<{ names: string[]; urls: string[] }> {
  return page.evaluate(async () => {
    const names = await caches.keys();
    const urls: string[] = [];
    for (const name of names) {
      for (const request of await (await caches.open(name)).keys()) {
        const url = new URL(request.url);
        urls.push(url.pathname.slice(1) + url.search);
      }
    }
    return { names, urls };
  });
}

/** Waits until a service worker controls the page and its precache holds the whole shell. */
async function waitControlled(page: Page, timeoutMs = Infinity): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const controlled = await page.evaluate(() => navigator.serviceWorker?.controller !== null);
    const { urls } = await cachedUrls(page);
    const has = (path: string) => urls.some((u) => u === path || u.startsWith(`${path}?`));
    if (controlled && has('index.html') && has(SAMPLE) && has('models/use/group1-shard7of7')) return;
    if (Date.now() > deadline) throw new Error(`no service worker in control after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** The app's entry bundle as the page loaded it, e.g. "assets/index-AbC123.js". */
async function entryScript(page: Page): Promise<string> {
  return page.$eval('script[type="module"][src]', (s) =>
    new URL((s as HTMLScriptElement).src).pathname.slice(1),
  );
}

async function fetchText(page: Page, path: string): Promise<string> {
  return page.evaluate(async (p) => (await fetch(p)).text(), path);
}

async function assets(dist: string): Promise<Set<string>> {
  return new Set((await readdir(join(dist, 'assets'))).map((f) => `assets/${f}`));
}

test.setTimeout(300_000);

test('service worker: a new build is announced, "Reload" serves it and removes the old caches', async ({
  page,
  dist,
  tmp,
  privacy,
  log,
}) => {
  // B is built while the page visits A (its service worker precaching A): the two wait on different work, and B
  // is needed only once A has been checked. The settled promise is awaited before B is served.
  const t0 = Date.now();
  const buildingB = buildB(tmp).then(
    (distB) => ({ distB, seconds: (Date.now() - t0) / 1000 }),
    (error: unknown) => ({ error }),
  );
  const assetsA = await assets(dist);

  const first = await servePreview(dist, 0);
  const origin = first.origin;
  let server = first.server;
  privacy.allowOrigin(origin);
  try {
    await page.goto(`${origin}/#library`);
    await page.waitForSelector('[data-indexing]');
    await waitControlled(page);
    const entryA = await entryScript(page);
    const sampleA = await fetchText(page, SAMPLE);
    expect(assetsA.has(entryA), 'A is not what is served').toBe(true);
    expect(sampleA, 'A is not what is served').not.toContain(B_LINE.trim());
    // A cache of the hand-written worker this one replaced: an update must remove it too.
    await page.evaluate(async () => {
      const legacy = await caches.open('conceptrag-v1');
      await legacy.put('/legacy-probe', new Response('old'));
    });

    const builtB = await buildingB;
    if ('error' in builtB) throw builtB.error;
    const { distB } = builtB;
    log(`build B in ${builtB.seconds.toFixed(0)} s, beside the visit to A`);
    const assetsB = await assets(distB);
    const onlyA = [...assetsA].filter((a) => !assetsB.has(a));
    expect(onlyA.length, 'build B shares every bundle with A: nothing would be updated').toBeGreaterThan(0);

    // The same origin now serves B (a page reload is the next request).
    await server.close();
    ({ server } = await servePreview(distB, Number(new URL(origin).port)));
    await page.reload();
    await page.waitForSelector('[data-testid="update-banner"]');
    // Until "Reload" the page keeps running A, whole (not half A's bundles and half B's).
    expect(await entryScript(page), 'the page switched to B before "Reload"').toBe(entryA);
    log('update announced while A still runs');

    await Promise.all([page.waitForEvent('load'), page.click('[data-testid="update-reload"]')]);
    await page.waitForSelector('[data-indexing]');
    const entryB = await entryScript(page);
    expect(assetsB.has(entryB), `after "Reload" the page runs ${entryB}, not B's entry bundle`).toBe(true);
    expect(assetsA.has(entryB), `after "Reload" the page runs ${entryB}, not B's entry bundle`).toBe(false);
    const sampleB = await fetchText(page, SAMPLE);
    expect(sampleB, `${SAMPLE} is still A's version after the update`).toContain(B_LINE.trim());
    expect(await page.$('[data-testid="update-banner"]'), 'the banner is still shown on B').toBeNull();

    const { names, urls } = await cachedUrls(page);
    const leftovers = urls.filter((u) => onlyA.includes(u));
    expect(leftovers.slice(0, 5), "A's bundles still cached").toEqual([]);
    expect(names, 'the legacy cache conceptrag-v1 was not removed').not.toContain('conceptrag-v1');
    const samples = urls.filter((u) => u.startsWith(`${SAMPLE}?`));
    expect(samples.length, `expected one cached ${SAMPLE}, found ${samples.join(', ')}`).toBe(1);
    const missingB = [...assetsB].filter((a) => !urls.includes(a));
    expect(missingB.slice(0, 5), "B's bundles not precached").toEqual([]);
    log(`B serves ${entryB}; caches ${names.join(', ')}; ${onlyA.length} bundles of A removed`);
  } finally {
    await server.close();
    // Settled before the test's tmp (B's folders) is removed, whatever failed first.
    await buildingB;
  }
});
