// The KG build of a large library in Chromium (the KG panel, as a person uses it): a copy of a kept profile (a drop
// of scale-browser.ts --profile, answered from its pages) is opened with the built app, the scripted server on
// loopback is set as the endpoint, the cost estimate is asked for at κ, then the build is confirmed (KG and atomic
// questions, one pass). Printed: the seconds to the estimate and to the end of the build, the calls, and the peak
// JS heap of each realm over the run (the KG worker's is what ranking the library costs), with the load average.
// Built from a commit before the KG build ranked from the pages, the same bench shows what loading the library cost.
// Usage: E2E_DIST=<built app> node --import tsx test/bench/kg-build-browser.ts --profile <dir> --port <its port>
//        [--kappa 0.01]
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, DIST } from '../e2e/lib/browser.ts';
import { confirmBuild, estimateBuild, saveEndpoint } from '../e2e/lib/llmPanels.ts';
import { serveStatic } from '../e2e/lib/staticServer.ts';
import { startScriptedLlmServer } from '../support/scriptedLlmServer.ts';
import { scriptedPike } from '../support/scriptedPike.ts';
import { startHeapSampler } from './lib/heapSampler.ts';
import { loadText } from './lib/report.ts';

const { values } = parseArgs({
  options: {
    profile: { type: 'string' },
    port: { type: 'string' },
    kappa: { type: 'string', default: '0.01' },
  },
});
if (!values.profile || !values.port) {
  process.stderr.write(
    'usage: E2E_DIST=<built app> node --import tsx test/bench/kg-build-browser.ts --profile <dir> --port <port> [--kappa 0.01]\n',
  );
  process.exit(2);
}
const kappa = Number(values.kappa);
// The kept profile is not written to: the KG goes into a copy.
const profile = await mkdtemp(join(tmpdir(), 'conceptrag-kg-profile-'));
await cp(values.profile, profile, { recursive: true });
const llm = await startScriptedLlmServer({ responders: [scriptedPike()] });
// A kept profile's IndexedDB belongs to the origin it was written from.
const server = await serveStatic(DIST, { port: Number(values.port) });
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM_PATH,
  headless: true,
  args: [...CHROMIUM_ARGS, '--enable-blink-features=ForceEagerMeasureMemory'],
});
await context.addInitScript({ content: 'globalThis.__name ??= (fn) => fn;' });
try {
  const page = context.pages()[0] ?? (await context.newPage());
  // The estimate of a large library reads its pages first, the build makes hundreds of calls.
  page.setDefaultTimeout(1_800_000);
  const cdp = await context.newCDPSession(page);
  // The profile's service worker holds the build it was made with: its caches go (the library in IndexedDB stays),
  // so that the page runs this build (as scale-browser.ts --reopen-only does).
  await cdp.send('Storage.clearDataForOrigin', {
    origin: server.origin,
    storageTypes: 'service_workers,cache_storage',
  });
  await page.goto(`${server.origin}/#library`);
  await page.waitForSelector('[data-indexing]', { timeout: 120_000 });
  await cdp.send('Performance.enable');
  const sampler = startHeapSampler(page, cdp, 1000);
  // A failed step shows its error in the panel: stop there instead of waiting out the time-out.
  void page
    .locator('[data-testid="kg-panel"] p.error')
    .waitFor()
    .then(async () => {
      process.stderr.write(
        `the KG panel says: ${await page.locator('[data-testid="kg-panel"] p.error').innerText()}\n`,
      );
      await context.close();
    })
    .catch(() => undefined);
  process.stdout.write(`${values.profile} (a copy), κ ${kappa}; load ${loadText()}\n`);
  await saveEndpoint(page, server.origin, llm.baseUrl);
  let t = performance.now();
  const calls = await estimateBuild(page, server.origin, { kappa, kg: true, atomic: true });
  const estimateSeconds = (performance.now() - t) / 1000;
  process.stdout.write(
    `estimate: ${calls} calls, shown after ${estimateSeconds.toFixed(1)} s; load ${loadText()}\n`,
  );
  t = performance.now();
  await confirmBuild(page);
  const chats = llm.requests.filter((r) => r.path === '/v1/chat/completions').length;
  process.stdout.write(
    `build: ${chats} calls, done after ${((performance.now() - t) / 1000).toFixed(1)} s; load ${loadText()}\n`,
  );
  await sampler.stop();
  const peaks = sampler.peaks();
  process.stdout.write(
    `peak JS heap by realm (MiB): ${JSON.stringify(peaks.realmPeakMB)}; page (CDP) ${peaks.peakPageMB}; ` +
      `${peaks.samples} samples\n`,
  );
} finally {
  await context.close();
  await server.close();
  await llm.close();
  await rm(profile, { recursive: true, force: true });
}
