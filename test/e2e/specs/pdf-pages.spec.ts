// Spec (issue 22, item 4): a PDF with a running header and a page-number footer dropped into the app. The
// evidence names the page of the passage ("p. 13"), an answer's citation names it too and opens the viewer at
// that page, the viewer draws the original page from the file the person chooses and marks the cited sentence
// where the PDF prints it (its baseline and left edge are known: the test writes the PDF), and neither the header
// nor the footer is in the stored text. With SCREENSHOTS=1 it saves docs/screenshots/pdf-citation.png (the answer with
// its page) and pdf-page.png (the viewer on the original page) for the README.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startScriptedLlmServer } from '../../support/scriptedLlmServer.ts';
import { tinyPdf, type TinyLine } from '../../support/tinyPdf.ts';
import { addFiles, openApp, waitIdle } from '../lib/app.ts';
import { saveEndpoint } from '../lib/llmPanels.ts';
import { expect, test } from '../lib/fixtures.ts';
import { pageMarks } from '../lib/pageMarks.ts';
import { lexicalOnly } from '../lib/settings.ts';
import { docsScreenshot, keepScreenshot } from '../lib/screenshots.ts';

const PAGES = 24;
const TARGET_PAGE = 13;
const HEADER = 'Harbour Annual Report · Confidential';
const FACT = 'The lighthouse at Port Ellen was rebuilt in granite after the storm of 1888.';
const QUESTION = 'What was the lighthouse at Port Ellen rebuilt in?';
/** Where FACT is printed on its 612 × 792 page: baseline 620 pt from the bottom, from x = 72 pt, 11 pt type. */
const FACT_AT = { x: 72, baseline: 620, size: 11 };

/** The viewer's mark is one rectangle over FACT's line: from its left edge, across its letters, one line high. */
async function expectFactMarked(page: import('@playwright/test').Page, log: (line: string) => void) {
  const marks = await pageMarks(page, TARGET_PAGE);
  log(`marks on page ${TARGET_PAGE}: ${JSON.stringify(marks)}`);
  expect(marks).toHaveLength(1);
  const [mark] = marks;
  const baseline = (792 - FACT_AT.baseline) / 792;
  const xHeight = (792 - FACT_AT.baseline - FACT_AT.size / 2) / 792;
  expect(mark.x0).toBeCloseTo(FACT_AT.x / 612, 1);
  expect(mark.y0).toBeLessThan(xHeight);
  expect(mark.y1).toBeGreaterThan(baseline);
  expect((mark.y1 - mark.y0) * 792).toBeLessThan(FACT_AT.size * 2);
  // 75 characters of 11 pt Helvetica run well past the page's middle.
  expect(mark.x1).toBeGreaterThan(0.5);
  expect(mark.x1).toBeLessThan(1);
}

/** A report of 24 pages: running header and "page n of 24" footer on each, one section per page. */
function report(): Uint8Array {
  const pages: TinyLine[][] = [];
  for (let n = 1; n <= PAGES; n++) {
    pages.push([
      { text: HEADER, y: 760, size: 9 },
      { text: `${n}. District ${n}`, y: 700, size: 16 },
      { text: `The keeper of district ${n} counted ${n * 13 + 5} barrels of grain on the quay.`, y: 670 },
      { text: `Barges from mill ${n} crossed the weir ${n * 3} times that year.`, y: 656 },
      ...(n === TARGET_PAGE ? [{ text: FACT, y: 620 }] : []),
      { text: `page ${n} of ${PAGES}`, y: 40, size: 9 },
    ]);
  }
  return tinyPdf({ pages, title: 'Harbour Annual Report' });
}

test.setTimeout(300_000);

test('pdf: evidence and citation show the page, the viewer draws it, the running header is not in the text', async ({
  page,
  origin,
  tmp,
  privacy,
  log,
}) => {
  const file = join(tmp, 'harbour-report.pdf');
  await writeFile(file, report());
  const server = await startScriptedLlmServer({
    wordDelayMs: 1,
    answer: () => 'It was rebuilt in granite, after the storm of 1888 [1].',
  });
  privacy.allowOrigin(server.url);
  try {
    await openApp(page, origin);
    // By words (sentence vectors off): pages, the viewer and citations are the subject, not vectors; embedding
    // every sentence took the cores from them.
    await lexicalOnly(page);
    await addFiles(page, [file]);
    await waitIdle(page, 240_000);

    // The stored text: no running header, no "page n of 24" footer, every page's body.
    const stored = await page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open('conceptrag');
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      try {
        const read = <T>(store: string) =>
          new Promise<T[]>((resolve, reject) => {
            const r = db.transaction(store).objectStore(store).getAll();
            r.onsuccess = () => resolve(r.result as T[]);
            r.onerror = () => reject(r.error);
          });
        const docs = await read<{ text: string; pageStarts?: number[] }>('documents');
        const chunks = await read<{ pageStart?: number; pageEnd?: number }>('chunks');
        return {
          texts: docs.map((d) => d.text),
          pages: docs.map((d) => d.pageStarts?.length ?? 0),
          chunkPages: chunks.map((c) => [c.pageStart, c.pageEnd]),
        };
      } finally {
        db.close();
      }
    });
    expect(stored.texts).toHaveLength(1);
    const text = stored.texts[0];
    expect(text, 'the running header is in the stored text').not.toContain('Confidential');
    expect(text, 'the page footer is in the stored text').not.toMatch(/page \d+ of 24/);
    expect(text).toContain(FACT);
    expect(stored.pages[0]).toBe(PAGES);
    expect(
      stored.chunkPages.every(([a, b]) => typeof a === 'number' && typeof b === 'number' && a <= b),
      `chunks without pages: ${JSON.stringify(stored.chunkPages)}`,
    ).toBe(true);

    // Evidence: the passage with the fact names its page, and its text has no header.
    await page.click('a[href="#ask"]');
    await page.fill('[data-testid="question"]', QUESTION);
    await page.click('[data-testid="ask"]');
    await page.waitForSelector('[data-testid="evidence"]', { timeout: 60_000 });
    const card = page.locator('[data-testid="evidence"]', { hasText: 'Port Ellen' }).first();
    await expect(card.locator('[data-testid="page-label"]')).toHaveText(`p. ${TARGET_PAGE}`);
    const cards = await page.$$eval('[data-testid="evidence"] .text', (els) =>
      els.map((e) => e.textContent ?? ''),
    );
    log(`${cards.length} passages; the fact's card says p. ${TARGET_PAGE}`);
    expect(cards.some((t) => t.includes('Confidential'))).toBe(false);

    // The original page of a PDF added in this session is at hand: no need to choose the file.
    await card.locator('[data-testid="evidence-sentence"]', { hasText: 'Port Ellen' }).click();
    await expect(page.locator('[data-testid="viewer"] [data-testid="page-label"]')).toHaveText(
      `p. ${TARGET_PAGE}`,
    );
    await page.click('[data-testid="viewer-show-page"]');
    await expectFactMarked(page, log);
    await expect(page.locator('[data-testid="viewer-pick-pdf"]')).toHaveCount(0);
    await page.keyboard.press('Escape');

    // A written answer (after a reload: the session's files are gone): its citation names the page and opens
    // the viewer there.
    await saveEndpoint(page, origin, server.baseUrl);
    await page.waitForSelector('[data-testid="llm-settings"] >> text=Saved in this browser.');
    await page.goto(`${origin}/#ask`);
    await page.reload();
    await page.waitForSelector('[data-indexing]');
    await page.fill('[data-testid="question"]', QUESTION);
    await page.selectOption('[data-testid="mode"]', 'hybrid');
    await page.click('[data-testid="ask"]');
    await page.waitForSelector('[data-testid="answer"][data-done="true"]');
    const cite = page.locator('[data-testid="answer"] [data-cite="1"]').first();
    const citedPage = await cite.getAttribute('data-page');
    const firstEvidence = (await page.textContent('[data-testid="evidence"]')) ?? '';
    log(`citation [1] → ${citedPage}; evidence [1]: ${firstEvidence.replace(/\s+/g, ' ').slice(0, 120)}`);
    expect(firstEvidence, 'the fact is not the first passage of the answer').toContain('Port Ellen');
    expect(citedPage).toBe(`p. ${TARGET_PAGE}`);
    await keepScreenshot(page.locator('section.answer'), docsScreenshot('pdf-citation.png'));
    await cite.click();
    await page.waitForSelector('[data-testid="viewer"]');
    await expect(page.locator('[data-testid="viewer"] [data-testid="page-label"]')).toHaveText(
      `p. ${TARGET_PAGE}`,
    );
    expect((await page.textContent('[data-testid="viewer-mark"]')) ?? '').toBe(FACT);

    // The original page after the reload: the library keeps the text, so the person chooses the file.
    await page.click('[data-testid="viewer-show-page"]');
    await page.setInputFiles('[data-testid="viewer-pick-pdf"]', file);
    const canvas = page.locator('[data-testid="viewer-pdf-page"]');
    await expect(canvas).toHaveAttribute('aria-label', `Page ${TARGET_PAGE} of harbour-report.pdf`);
    await expectFactMarked(page, log);
    // Drawn: the canvas holds ink (opaque dark pixels), not the blank default.
    const ink = await page.$eval('[data-testid="viewer-pdf-page"]', (c) => {
      const canvas = c as HTMLCanvasElement;
      const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
      let dark = 0;
      for (let i = 0; data && i < data.length; i += 4) if (data[i + 3] > 200 && data[i] < 100) dark++;
      return { dark, width: canvas.width };
    });
    log(`page ${TARGET_PAGE} drawn: ${ink.width} px wide, ${ink.dark} dark pixels`);
    expect(ink.dark, 'the PDF page canvas is blank').toBeGreaterThan(100);
    await expect(page.locator('[data-testid="viewer"] [role="alert"]')).toHaveCount(0);
    await keepScreenshot(page.locator('[data-testid="viewer"]'), docsScreenshot('pdf-page.png'));
  } finally {
    await server.close();
  }
});
