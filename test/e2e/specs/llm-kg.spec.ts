// Spec (issue 4): the LLM endpoint end to end against the scripted OpenAI-compatible server on loopback —
// diagnose a server without CORS headers, configure the endpoint and test the connection, see the KG cost estimate
// (κ and κ = 1), build the KG, cancel it midway and resume it (no chunk is sent twice), ask in `hybrid` mode, get a
// streamed answer whose citation opens the cited sentence. Requests may go only to the app's origin and the
// loopback test servers (checked by the runner).
// The library's embedder is a second scripted server on loopback (an endpoint embedder, as a user sets one in
// Settings): the entities still get vectors from the library's embedder, without the model loaded in the ingest,
// KG and query workers; the LLM server's own record (the key on every request) holds only the LLM's calls.
// Needs the UI to mount LlmSettingsPanel, KgBuildPanel and AnswerPanel (src/ui/llm) in any of the three views,
// and the Library view's file input (data-testid="file-input").
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startScriptedLlmServer } from '../../support/scriptedLlmServer.ts';
import { addFiles, openApp, waitIdle } from '../lib/app.ts';
import { embedThroughEndpoint } from '../lib/embeddingEndpoint.ts';
import { expect, test } from '../lib/fixtures.ts';

/** The view that holds each element this spec goes to: one page load each, not one per view tried. */
const PANEL_VIEW = { 'llm-settings': 'settings', 'kg-panel': 'settings', question: 'ask' } as const;

/** Goes to the view that holds the element, and fails naming it when the view does not show it. */
async function goToPanel(page: Page, origin: string, testId: keyof typeof PANEL_VIEW): Promise<void> {
  const view = PANEL_VIEW[testId];
  await openApp(page, origin, view);
  // The Knowledge graph panel is drawn only once the library's counts are read (a reload reads them again after the
  // view is up): looked for once they are, not before (a look before it raced the read on a busy machine).
  await page.waitForSelector('[data-testid="layers"][data-stored]');
  if ((await page.locator(`[data-testid="${testId}"]`).count()) === 0)
    throw new Error(`the ${view} view shows no [data-testid="${testId}"]: mount the src/ui/llm panels there`);
}

/** Six one-chunk documents: enough chunks to cancel a build midway and resume it. */
const DOCUMENTS: Record<string, string> = {
  'lovelace.txt':
    'Ada Lovelace wrote the first published program for the Analytical Engine in 1843. She translated an article by Luigi Menabrea.',
  'babbage.txt':
    'Charles Babbage designed the Analytical Engine in London. His earlier Difference Engine was never finished.',
  'menabrea.txt':
    'Luigi Menabrea was an Italian general and prime minister. He described the Analytical Engine after a lecture in Turin.',
  'turin.txt': 'Turin is a city in northern Italy. Babbage presented his engine there in 1840.',
  'london.txt':
    'London is the capital of England. The Science Museum in London keeps parts of the Difference Engine.',
  'somerville.txt':
    'Mary Somerville introduced Ada Lovelace to Charles Babbage. She was a Scottish scientist and writer.',
};
const QUESTION = 'Who wrote the first published program for the Analytical Engine?';

test.setTimeout(300_000);

test('llm: endpoint settings, KG cost estimate, build/cancel/resume without resending, hybrid cited answer', async ({
  page,
  origin,
  tmp,
  privacy,
  log,
}) => {
  const server = await startScriptedLlmServer({ latencyMs: 250, wordDelayMs: 120 });
  privacy.allowOrigin(server.url);
  // An OpenAI-like server that forgets CORS, as Ollama does without OLLAMA_ORIGINS.
  const noCors = await new Promise<{ url: string; close(): void }>((resolve) => {
    const srv = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ data: [{ id: 'scripted-model' }] }));
    });
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => srv.close() });
    });
  });
  privacy.allowOrigin(noCors.url);
  let embeddings: Awaited<ReturnType<typeof embedThroughEndpoint>> | undefined;
  try {
    const files = Object.entries(DOCUMENTS).map(([name]) => join(tmp, name));
    await Promise.all(
      Object.entries(DOCUMENTS).map(([name, text]) => writeFile(join(tmp, name), text + '\n')),
    );
    await openApp(page, origin);
    embeddings = await embedThroughEndpoint(page, privacy);
    await addFiles(page, files);
    await waitIdle(page);

    // 1. Endpoint settings and test connection: first a server that sends no CORS headers (the browser blocks
    //    its answer, the diagnosis must say so and name the fix), then the scripted server.
    await goToPanel(page, origin, 'llm-settings');
    await page.fill('[name="llm-base-url"]', `${noCors.url}/v1`);
    await page.fill('[name="llm-model"]', 'scripted-model');
    await page.click('[data-testid="llm-test"]');
    await page.waitForSelector('[data-testid="llm-diagnosis"]');
    const corsStatus = await page.getAttribute('[data-testid="llm-diagnosis"]', 'data-status');
    const corsText = (await page.textContent('[data-testid="llm-diagnosis"]')) ?? '';
    const corsMessage = `a server without CORS headers was diagnosed as ${corsStatus}: ${corsText}`;
    expect(corsStatus, corsMessage).toBe('cors');
    expect(corsText, corsMessage).toContain(`OLLAMA_ORIGINS=${origin}`);
    await page.fill('[name="llm-base-url"]', server.baseUrl);
    await page.fill('[name="llm-model"]', 'scripted-model');
    await page.fill('[name="llm-key"]', 'sk-e2e-secret-key-123456');
    await page.fill('[name="llm-concurrency"]', '1');
    // Prices in euros (issue 44: the cost had no currency): every cost below is shown in EUR.
    await page.fill('[name="llm-currency"]', 'eur');
    await page.fill('[name="llm-price-in"]', '2');
    await page.fill('[name="llm-price-out"]', '8');
    await page.click('[data-testid="llm-settings"] button[type="submit"]');
    await page.click('[data-testid="llm-test"]');
    await page.waitForSelector('[data-testid="llm-diagnosis"]');
    const status = await page.getAttribute('[data-testid="llm-diagnosis"]', 'data-status');
    expect(status, `test connection: ${await page.textContent('[data-testid="llm-diagnosis"]')}`).toBe('ok');
    const chunks = await page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open('conceptrag');
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      const n = await new Promise<number>((resolve, reject) => {
        const r = db.transaction('chunks').objectStore('chunks').count();
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      db.close();
      return n;
    });
    expect(
      chunks,
      `the documents gave only ${chunks} chunks; the cancel step needs at least 4`,
    ).toBeGreaterThanOrEqual(4);

    // 2. Cost estimate before any extraction call.
    await goToPanel(page, origin, 'kg-panel');
    await page.fill('[name="kg-kappa"]', '1');
    await page.click('[data-testid="kg-estimate"]');
    await page.waitForSelector('[data-testid="kg-estimate-table"]');
    const rows = await page.$$eval('[data-testid="kg-estimate-table"] tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')),
    );
    log(`estimate rows: ${JSON.stringify(rows)}`);
    expect(Number(rows[1][0]), `κ = 1 should cost ${chunks} calls, shows ${rows[1][0]}`).toBe(chunks);
    expect(rows[1][3], 'the cost in the currency set').toMatch(/^EUR\s?\d+\.\d+$/);
    expect(server.extractionTexts().length, 'extraction calls were made before confirming').toBe(0);

    // 3. Build, cancel midway, resume.
    await page.click('[data-testid="kg-confirm"]');
    await expect
      .poll(() => server.extractionTexts().length, {
        message: 'the KG build sent no extraction requests',
        intervals: [50],
      })
      .toBeGreaterThanOrEqual(2);
    // One live status while it runs: the chunks of this build done so far (not "0 of N" while the bar moves).
    await expect(page.locator('[data-testid="kg-status"][data-live="true"]')).toContainText(
      /[1-9]\d* of \d+ chunks of this build done/,
    );
    await page.click('[data-testid="kg-cancel"]');
    await page.waitForSelector('[data-testid="kg-result"][data-cancelled="true"]');
    const afterCancel = server.extractionTexts().length;
    log(`cancelled after ${afterCancel} of ${chunks} chunks`);
    expect(afterCancel, 'the cancel came too late to test resuming').toBeLessThan(chunks);
    // Resume is offered after a reload too (the build asked is kept in this browser, what is left estimated).
    await page.reload();
    await goToPanel(page, origin, 'kg-panel');
    const unfinished = page.locator('[data-testid="kg-unfinished"]');
    await expect(unfinished).toContainText(/\d+ calls? left/);
    const left = Number(/(\d+) calls? left/.exec((await unfinished.textContent()) ?? '')?.[1]);
    log(`after a reload: ${left} calls left`);
    expect(left).toBeGreaterThanOrEqual(chunks - afterCancel);
    expect(left).toBeLessThan(chunks);
    // Every status line drawn while the panel says the build finished: none may be one read before its end (the
    // panel once showed the status it read mid-build, "2 of 6 chunks extracted", beside "Finished", until its
    // read after the build came in).
    await page.evaluate(() => {
      const w = window as unknown as { e2eFinishedStatus: string[] };
      w.e2eFinishedStatus = [];
      const look = () => {
        if (!document.querySelector('[data-testid="kg-result"][data-cancelled="false"]')) return;
        const text = (document.querySelector('[data-testid="kg-status"]')?.textContent ?? '')
          .replace(/\s+/g, ' ')
          .trim();
        if (w.e2eFinishedStatus.at(-1) !== text) w.e2eFinishedStatus.push(text);
      };
      new MutationObserver(look).observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
    });
    await page.click('[data-testid="kg-resume"]');
    await page.waitForSelector('[data-testid="kg-result"][data-cancelled="false"]');
    await expect(page.locator('[data-testid="kg-result"]')).toContainText(/cost EUR\s?\d+\.\d+/);
    const sent = server.extractionTexts();
    const sentMessage = `expected each of ${chunks} chunks sent once, got ${sent.length} requests (${new Set(sent).size} distinct)`;
    expect(sent.length, sentMessage).toBe(chunks);
    expect(new Set(sent).size, sentMessage).toBe(chunks);
    const keyLeaks = server.requests.filter((r) => r.authorization !== 'Bearer sk-e2e-secret-key-123456');
    expect(keyLeaks.length, `${keyLeaks.length} requests without the configured key`).toBe(0);
    // The library has sentence vectors: every entity gets one too, from the library's embedder (here the second
    // scripted server), so the KG search matches by meaning as well as by name.
    const kgStatus = (await page.textContent('[data-testid="kg-status"]')) ?? '';
    const [, entities, embedded] = /(\d+) entities, \d+ relations \((\d+) embedded\)/.exec(kgStatus) ?? [];
    log(`KG status: ${kgStatus.trim()}`);
    expect(Number(entities), kgStatus).toBeGreaterThan(0);
    expect(Number(embedded), kgStatus).toBe(Number(entities));
    const drawn = await page.evaluate(
      () => (window as unknown as { e2eFinishedStatus: string[] }).e2eFinishedStatus,
    );
    log(`status lines drawn beside "Finished": ${JSON.stringify(drawn)}`);
    expect(drawn.length, 'no status line was drawn beside "Finished"').toBeGreaterThan(0);
    for (const line of drawn)
      expect(line, 'a status line beside "Finished" that is not the finished build\'s').toBe(
        kgStatus.replace(/\s+/g, ' ').trim(),
      );

    // 4. Hybrid question, streamed answer, citation opens the sentence.
    await goToPanel(page, origin, 'question');
    await page.fill('[data-testid="question"]', QUESTION);
    await page.selectOption('[data-testid="mode"]', 'hybrid');
    // Record the answer's text while it is still streaming (data-done="false").
    await page.evaluate(() => {
      const seen: number[] = [];
      (window as unknown as { __partials: number[] }).__partials = seen;
      new MutationObserver(() => {
        const el = document.querySelector('[data-testid="answer"][data-done="false"]');
        if (el) seen.push((el.textContent ?? '').trim().length);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await page.click('[data-testid="ask"]');
    await page.waitForSelector('[data-testid="answer"][data-done="true"]');
    const answerText = (await page.textContent('[data-testid="answer"] '))?.trim() ?? '';
    log(`answer: ${answerText.slice(0, 160)}`);
    expect(answerText, "the answer's cost in the currency set").toMatch(/cost EUR\s?\d+\.\d+/);
    const partials = await page.evaluate(() => (window as unknown as { __partials: number[] }).__partials);
    const distinct = [...new Set(partials)].filter((n) => n > 0);
    expect(
      distinct.length,
      `the answer did not stream in (partial lengths seen: ${JSON.stringify(distinct)})`,
    ).toBeGreaterThanOrEqual(3);
    log(`streamed: ${distinct.length} partial renderings before the answer was complete`);
    const answerRequest = server.requests
      .filter((r) => r.path === '/v1/chat/completions' && !r.extractedText)
      .at(-1);
    expect(answerRequest?.body?.stream, 'the answer was not requested as a stream').toBeTruthy();
    const firstCite = page.locator('[data-testid="answer"] [data-cite="1"]').first();
    expect(await firstCite.count(), `the answer has no [1] citation: "${answerText}"`).toBeGreaterThan(0);
    await firstCite.click();
    await page.waitForSelector('[data-testid="viewer"]');
    const marked = (await page.textContent('[data-testid="viewer-mark"]'))?.trim() ?? '';
    // The scripted server answers with the first sentence of passage [1], then " [1]".
    const claimed = answerText.split('[1]')[0].trim();
    const citeMessage = `citation [1] highlights "${marked}", the answer claimed "${claimed}"`;
    expect(marked, citeMessage).not.toBe('');
    expect(claimed.startsWith(marked.slice(0, Math.min(marked.length, 30))), citeMessage).toBe(true);
  } finally {
    noCors.close();
    await server.close();
    await embeddings?.close();
  }
});
