// Page helpers for the specs that use an LLM endpoint: find the panel that holds an element, save the endpoint,
// ask a question in a mode, and open a citation of the answer in the document viewer.
import type { Page } from 'playwright-core';

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
  options: { model?: string; concurrency?: number } = {},
): Promise<void> {
  await goToPanel(page, origin, 'llm-settings');
  await page.fill('[name="llm-base-url"]', baseUrl);
  await page.fill('[name="llm-model"]', options.model ?? 'scripted-model');
  if (options.concurrency !== undefined) {
    await page.fill('[name="llm-concurrency"]', String(options.concurrency));
  }
  await page.click('[data-testid="llm-settings"] button[type="submit"]');
}

/** Asks in the KG panel's question form (already shown) in `mode`; returns once the request is sent. */
export async function askInMode(page: Page, question: string, mode: string): Promise<void> {
  await page.fill('[name="kg-question"]', question);
  await page.selectOption('[name="kg-mode"]', mode);
  await page.click('[data-testid="kg-ask"] button[type="submit"]');
}

/** Clicks a citation of the answer and returns the sentence the document viewer marks. */
export async function openCitation(page: Page, cite: ReturnType<Page['locator']>): Promise<string> {
  await cite.click();
  await page.waitForSelector('[data-testid="viewer"]');
  return (await page.textContent('[data-testid="viewer-mark"]'))?.trim() ?? '';
}
