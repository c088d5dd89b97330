// Spec (issue 13, network ledger): the LLM flow of llm-kg.spec.ts against the scripted OpenAI-compatible server on
// loopback — configure the endpoint and test the connection, build the KG, ask in `hybrid` with a written answer,
// evaluate two questions with written answers and the LLM judge —
// then the Network view lists exactly the requests the server received (method, path, count; the server's own
// record read over /__control/requests), each with its purpose, sizes and status, the chat calls with their tokens;
// the entries survive a reload; the export holds no key and no request content; requests to the app's own origin
// are counted apart. Requests may go only to the app's origin and the loopback server (checked by the runner).
// The documents are indexed by their words only (sentence vectors off): the ledger's subject is the endpoint's
// requests, and loading the embedding model in the ingest, KG and query workers only took the test's time.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  startScriptedLlmServer,
  type RecordedRequest,
  type ScriptedResponder,
} from '../../support/scriptedLlmServer.ts';
import { addFiles, openApp, waitIdle } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';
import { keepScreenshot, publicScreenshot } from '../lib/screenshots.ts';
import { lexicalOnly } from '../lib/settings.ts';

const VIEWS = ['library', 'ask', 'settings'];
const KEY = 'sk-e2e-ledger-key-424242';
/** The README's screenshot, refreshed with SCREENSHOTS=1 (test/e2e/lib/screenshots.ts). */
const SCREENSHOT = publicScreenshot('network-ledger.png');

/** Goes to whichever view holds the element (the UI decides where the panels live). */
async function goToPanel(page: Page, origin: string, testId: string): Promise<void> {
  for (const view of VIEWS) {
    await page.goto(`${origin}/#${view}`);
    await page.waitForSelector('[data-indexing]');
    if (await page.locator(`[data-testid="${testId}"]`).count()) return;
  }
  throw new Error(`no view shows [data-testid="${testId}"]`);
}

const DOCUMENTS: Record<string, string> = {
  'lovelace.txt':
    'Ada Lovelace wrote the first published program for the Analytical Engine in 1843. She translated an article by Luigi Menabrea.',
  'babbage.txt':
    'Charles Babbage designed the Analytical Engine in London. His earlier Difference Engine was never finished.',
  'turin.txt': 'Turin is a city in northern Italy. Babbage presented his engine there in 1840.',
  'somerville.txt':
    'Mary Somerville introduced Ada Lovelace to Charles Babbage. She was a Scottish scientist and writer.',
};
const QUESTION = 'Who wrote the first published program for the Analytical Engine?';

interface Row {
  method: string;
  path: string;
  purpose: string;
  status: string;
}

async function ledgerRows(page: Page): Promise<Row[]> {
  return page.$$eval('[data-testid="ledger-table"] tbody tr[data-path]', (trs) =>
    trs.map((tr) => ({
      method: tr.getAttribute('data-method') ?? '',
      path: tr.getAttribute('data-path') ?? '',
      purpose: tr.getAttribute('data-purpose') ?? '',
      status: tr.getAttribute('data-status') ?? '',
    })),
  );
}

/** "METHOD path" → count. */
function tally(items: Array<{ method: string; path: string }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of items) out[`${r.method} ${r.path}`] = (out[`${r.method} ${r.path}`] ?? 0) + 1;
  return out;
}

test.setTimeout(400_000);

test('network ledger: lists exactly the requests the scripted endpoint received, persists, exports no key', async ({
  page,
  origin,
  tmp,
  privacy,
  log,
}) => {
  // The judge of the in-app evaluation: correct when the graded answer contains the gold answer.
  const judge: ScriptedResponder = (messages) => {
    if (!messages[0]?.content.startsWith('You grade answers')) return undefined;
    const user = messages[1].content;
    const gold = /Gold answer: (.*)/.exec(user)?.[1] ?? '';
    const graded = /Answer to grade: (.*)/.exec(user)?.[1] ?? '';
    return JSON.stringify({ correct: graded.includes(gold), reason: 'scripted judge' });
  };
  const server = await startScriptedLlmServer({ apiKey: KEY, latencyMs: 50, responders: [judge] });
  privacy.allowOrigin(server.url);
  try {
    const files = Object.keys(DOCUMENTS).map((name) => join(tmp, name));
    await Promise.all(
      Object.entries(DOCUMENTS).map(([name, text]) => writeFile(join(tmp, name), text + '\n')),
    );
    await openApp(page, origin);
    await lexicalOnly(page);
    await addFiles(page, files);
    await waitIdle(page);

    // Nothing has gone to the endpoint yet: the ledger is empty.
    await page.goto(`${origin}/#network`);
    await expect(page.getByTestId('ledger-summary')).toHaveAttribute('data-requests', '0');

    // 1. Endpoint and connection test.
    await goToPanel(page, origin, 'llm-settings');
    await page.fill('[name="llm-base-url"]', server.baseUrl);
    await page.fill('[name="llm-model"]', 'scripted-model');
    await page.fill('[name="llm-key"]', KEY);
    await page.fill('[name="llm-concurrency"]', '1');
    await page.click('[data-testid="llm-settings"] button[type="submit"]');
    await page.click('[data-testid="llm-test"]');
    await page.waitForSelector('[data-testid="llm-diagnosis"]');
    expect(await page.getAttribute('[data-testid="llm-diagnosis"]', 'data-status')).toBe('ok');

    // 2. The KG build (every chunk, κ = 1).
    await goToPanel(page, origin, 'kg-panel');
    await page.fill('[name="kg-kappa"]', '1');
    await page.click('[data-testid="kg-estimate"]');
    await page.waitForSelector('[data-testid="kg-estimate-table"]');
    await page.click('[data-testid="kg-confirm"]');
    await page.waitForSelector('[data-testid="kg-result"][data-cancelled="false"]');

    // 3. A hybrid question with a written answer.
    await goToPanel(page, origin, 'question');
    await page.fill('[data-testid="question"]', QUESTION);
    await page.selectOption('[data-testid="mode"]', 'hybrid');
    await page.click('[data-testid="ask"]');
    await page.waitForSelector('[data-testid="answer"][data-done="true"]');

    // 4. An evaluation with written answers and the LLM judge (two questions, bm25).
    const qa = join(tmp, 'two-questions.csv');
    await writeFile(
      qa,
      'question,answer\n"Who designed the Analytical Engine?",Charles Babbage\n' +
        '"Who introduced Ada Lovelace to Charles Babbage?",Mary Somerville\n',
    );
    await page.goto(`${origin}/#evaluate`);
    await page.setInputFiles('[data-testid="eval-file"]', qa);
    await page.getByTestId('eval-mode-ppr').uncheck();
    await page.getByTestId('eval-mode-bm25').check();
    await page.check('[name="eval-answers"]');
    await page.check('[name="eval-judge"]');
    await page.getByTestId('eval-run').click();
    await page.waitForSelector('[data-testid="eval-result"][data-cancelled="false"]');
    const evalCells = await page
      .locator('[data-testid="eval-summary"] tr[data-mode="bm25"] td')
      .allTextContents();
    log(`evaluation with answers (CR…, R…, p50, EM, F1, judged, errors): ${JSON.stringify(evalCells)}`);
    // CR@1000/3000/12000, p50 ms, EM, F1, judged, errors (no supporting documents: no R@k… still shown as –).
    const [em, f1, judged] = evalCells.slice(-4, -1);
    for (const x of [em, f1, judged])
      expect(x, `EM/F1/judged cells ${JSON.stringify(evalCells)}`).toMatch(/^\d+\.\d$/);

    // The server's own record, over HTTP as any runner would read it.
    const received = (await (await fetch(`${server.url}/__control/requests`)).json()) as RecordedRequest[];
    const expected = tally(received);
    log(`server received: ${JSON.stringify(expected)}`);
    expect(received.length).toBeGreaterThanOrEqual(4);

    // 5. The ledger lists exactly those requests.
    await page.goto(`${origin}/#network`);
    await expect(page.getByTestId('ledger-summary')).toHaveAttribute(
      'data-requests',
      String(received.length),
    );
    const rows = await ledgerRows(page);
    log(`ledger: ${JSON.stringify(tally(rows))}; purposes ${JSON.stringify(rows.map((r) => r.purpose))}`);
    expect(tally(rows), 'the ledger does not list exactly what the server received').toEqual(expected);
    expect(rows.every((r) => r.status === '200')).toBe(true);
    // Each request under what it was for: the KG build's extractions, the answer, the connection test's probes.
    const extractions = received.filter((r) => r.extractedText !== undefined).length;
    expect(rows.filter((r) => r.purpose === 'KG build').length, 'KG build calls').toBe(extractions);
    expect(rows.filter((r) => r.purpose === 'answer').length, 'answer calls').toBe(1);
    // The evaluation: per question, its written answer and its verdict.
    expect(rows.filter((r) => r.purpose === 'evaluation').length, 'evaluation calls').toBe(4);
    expect(rows.filter((r) => r.purpose === 'connection test').map((r) => `${r.method} ${r.path}`)).toContain(
      'GET /v1/models',
    );
    // Tokens on every chat call of the LLM client (the scripted server reports usage); the connection test's
    // probe is a bare request with no usage accounting.
    const tokenCells = await page.$$eval(
      '[data-testid="ledger-table"] tbody tr[data-path="/v1/chat/completions"]:not([data-purpose="connection test"]) td:nth-child(9)',
      (tds) => tds.map((td) => td.textContent?.trim() ?? ''),
    );
    expect(
      tokenCells.every((t) => /^\d+ \/ \d+/.test(t)),
      `token cells ${JSON.stringify(tokenCells)}`,
    ).toBe(true);
    const assets = Number(await page.getByTestId('ledger-assets').getAttribute('data-requests'));
    log(`own-origin requests counted apart: ${assets}`);
    expect(assets).toBeGreaterThan(0);
    await keepScreenshot(page, SCREENSHOT);

    // 6. Persisted: the same entries after a reload.
    await page.reload();
    await expect(page.getByTestId('ledger-summary')).toHaveAttribute(
      'data-requests',
      String(received.length),
    );
    expect(tally(await ledgerRows(page))).toEqual(expected);

    // 7. The export: sizes, never the key or what was sent.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('ledger-export-json').click(),
    ]);
    const exported = await readFile((await download.path())!, 'utf8');
    const entries = JSON.parse(exported) as Array<{ bytesOut: number; bytesIn: number; path: string }>;
    expect(entries).toHaveLength(received.length);
    expect(exported).not.toContain(KEY);
    expect(exported).not.toContain('Analytical Engine');
    expect(
      entries.filter((e) => e.path === '/v1/chat/completions').every((e) => e.bytesOut > 0 && e.bytesIn > 0),
    ).toBe(true);
  } finally {
    await server.close();
  }
});
