// Page helpers for the specs that use an LLM endpoint: index a few small text documents, find the panel that holds
// an element, save the endpoint, estimate and confirm a KG / atomic-layer build, ask a question in a mode, and open
// a citation of the answer in the document viewer.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { addFiles, openApp, waitIdle } from './app.ts';
import { lexicalOnly } from './settings.ts';

/**
 * Writes each document as a .txt file in `dir`, adds them all and waits until the library has indexed them; with
 * `lexical`, by their words only (sentence vectors off, settings.ts's lexicalOnly).
 */
export async function addTextDocuments(
  page: Page,
  origin: string,
  dir: string,
  documents: Record<string, string>,
  { lexical = false }: { lexical?: boolean } = {},
): Promise<void> {
  const files = Object.keys(documents).map((name) => join(dir, name));
  await Promise.all(Object.entries(documents).map(([name, text]) => writeFile(join(dir, name), text + '\n')));
  await openApp(page, origin);
  if (lexical) await lexicalOnly(page);
  await addFiles(page, files);
  await waitIdle(page, 240_000);
}

const VIEWS = ['library', 'ask', 'settings'];

/** Goes to whichever view holds the element (the UI decides where the panels live). */
export async function goToPanel(page: Page, origin: string, testId: string): Promise<void> {
  for (const view of VIEWS) {
    await page.goto(`${origin}/#${view}`);
    await page.waitForSelector('[data-indexing]');
    if (await page.locator(`[data-testid="${testId}"]`).count()) return;
  }
  throw new Error(`no view shows [data-testid="${testId}"]`);
}

/** Saves the endpoint settings (no key: the scripted server needs none). */
export async function saveEndpoint(
  page: Page,
  origin: string,
  baseUrl: string,
  options: {
    model?: string;
    concurrency?: number;
    /** Prices per million tokens in and out, in `currency` (ISO 4217). */
    prices?: { input: number; output: number; currency: string };
  } = {},
): Promise<void> {
  await goToPanel(page, origin, 'llm-settings');
  await page.fill('[name="llm-base-url"]', baseUrl);
  await page.fill('[name="llm-model"]', options.model ?? 'scripted-model');
  if (options.concurrency !== undefined) {
    await page.fill('[name="llm-concurrency"]', String(options.concurrency));
  }
  if (options.prices) {
    await page.fill('[name="llm-currency"]', options.prices.currency);
    await page.fill('[name="llm-price-in"]', String(options.prices.input));
    await page.fill('[name="llm-price-out"]', String(options.prices.output));
  }
  await saveLlmSettings(page);
}

/** Submits the LLM settings form and waits until the app says they are stored. */
export async function saveLlmSettings(page: Page): Promise<void> {
  await page.click('[data-testid="llm-settings"] button[type="submit"]');
  await page.locator('[data-testid="llm-settings"] p.ok', { hasText: 'Saved in this browser.' }).waitFor();
}

/**
 * Asks for the estimate of a build over the top κ of the chunks, of the parts given (default: the panel's), and
 * returns the calls it announces. Nothing is sent to the endpoint until confirmBuild.
 */
export async function estimateBuild(
  page: Page,
  origin: string,
  options: { kappa: number; kg?: boolean; atomic?: boolean },
): Promise<number> {
  await goToPanel(page, origin, 'kg-panel');
  await page.fill('[name="kg-kappa"]', String(options.kappa));
  if (options.kg !== undefined) await page.setChecked('[name="kg-part-kg"]', options.kg);
  if (options.atomic !== undefined) await page.setChecked('[name="kg-part-atomic"]', options.atomic);
  await page.click('[data-testid="kg-estimate"]');
  await page.waitForSelector('[data-testid="kg-estimate-table"]');
  return Number(
    await page.$eval('[data-testid="kg-estimate-table"] tbody tr td', (td) => td.textContent?.trim()),
  );
}

/** Confirms the estimated build and waits until it has finished without being cancelled (the test's time-out
 *  bounds the wait). */
export async function confirmBuild(page: Page): Promise<void> {
  await page.click('[data-testid="kg-confirm"]');
  await page.waitForSelector('[data-testid="kg-result"][data-cancelled="false"]');
}

/** Asks in the KG panel's question form (already shown) in `mode`; returns once the request is sent. */
export async function askInMode(page: Page, question: string, mode: string): Promise<void> {
  await page.fill('[data-testid="question"]', question);
  await page.selectOption('[data-testid="mode"]', mode);
  await page.click('[data-testid="ask"]');
}

/** Clicks a citation of the answer and returns the sentence the document viewer marks. */
export async function openCitation(page: Page, cite: ReturnType<Page['locator']>): Promise<string> {
  await cite.click();
  await page.waitForSelector('[data-testid="viewer"]');
  return (await page.textContent('[data-testid="viewer-mark"]'))?.trim() ?? '';
}
