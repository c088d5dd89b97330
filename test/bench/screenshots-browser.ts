// Refreshes the screenshots of docs/screenshots/ (never run by the test suite): the built app in Chromium, on a
// desktop (1280 px) and a phone (390 px) — the Library during and after a drop, Ask with a written answer (the
// scripted LLM server on loopback stands in for the user's endpoint) and the document viewer.
// Usage: npm run build && node --import tsx test/bench/screenshots-browser.ts
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedLlmServer } from '../support/scriptedLlmServer.ts';
import { addFiles, addSamples, openApp, waitIdle } from '../e2e/lib/app.ts';
import { DIST } from '../e2e/lib/browser.ts';
import { openHarness } from '../e2e/lib/harness.ts';
import { saveEndpoint } from '../e2e/lib/llmPanels.ts';
import { serveStatic } from '../e2e/lib/staticServer.ts';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '../../docs/screenshots');
const SIZES = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: '390', width: 390, height: 844 },
];
const PLACES = ['Calder', 'Brisk', 'Morrow', 'Tansy', 'Wexley', 'Ormand', 'Fennick', 'Halloway'];

/** A drop large enough to be seen running: survey records whose places recur. */
function records(n: number): string {
  return (
    Array.from({ length: n }, (_, i) =>
      JSON.stringify({
        title: `Survey record ${i}`,
        text: `Observers at ${PLACES[i % PLACES.length]} Station logged ${i % 9} storms. The ${PLACES[(i * 3) % PLACES.length]} barometer agreed within ${i % 7} percent.`,
      }),
    ).join('\n') + '\n'
  );
}

async function main(): Promise<void> {
  await mkdir(OUT, { recursive: true });
  const server = await serveStatic(DIST);
  const llm = await startScriptedLlmServer();
  try {
    for (const size of SIZES) {
      const { harness, close } = await openHarness(server.origin, DIST, `screenshots-${size.name}`);
      try {
        const { page } = harness;
        harness.allowOrigin(llm.url);
        await page.setViewportSize({ width: size.width, height: size.height });
        const shot = (name: string) => page.screenshot({ path: join(OUT, `${name}-${size.name}.png`) });
        await openApp(page, server.origin);
        await addSamples(page);
        await waitIdle(page);
        const file = join(harness.tmp, 'survey-records.jsonl');
        await writeFile(file, records(2000));
        await addFiles(page, [file]);
        await page.waitForFunction(
          () => Number(document.querySelector('[data-row="searchable"]')?.getAttribute('data-done') ?? 0) > 4,
          undefined,
          { timeout: 0, polling: 100 },
        );
        await shot('library-during-drop');
        await waitIdle(page);
        await page.evaluate(() => window.scrollTo(0, 0));
        await shot('library-after-drop');
        await saveEndpoint(page, server.origin, llm.baseUrl);
        await page.goto(`${server.origin}/#ask`);
        await page.waitForSelector('[data-indexing]');
        await page.fill('[data-testid="question"]', 'Why did the fox say the grapes were sour?');
        await page.click('[data-testid="ask"]');
        await page.waitForSelector('[data-testid="answer"][data-done="true"]', { timeout: 0 });
        await shot('ask-written-answer');
        await page.locator('[data-testid="evidence-sentence"]').first().click();
        await page.waitForSelector('[data-testid="viewer"]');
        await shot('viewer');
        harness.log(`${size.name}: 4 screenshots in ${OUT}`);
        harness.assertPrivate(`screenshots-${size.name}`);
      } finally {
        await close();
      }
    }
  } finally {
    await llm.close();
    await server.close();
  }
}

await main();
