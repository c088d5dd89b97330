// Spec (issue 44, item 6): the drawn PDF page scrolls to the cited sentence. The sentence is printed near the foot
// of its page, so the page drawn at the viewer's width puts it below the fold; once drawn, its mark is inside the
// viewer's visible area. Two short pages: the parse is quick, so the test does not depend on the machine's load.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tinyPdf } from '../../support/tinyPdf.ts';
import { addFiles, openApp } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';

const FACT = 'The ferry to Inish Mor was caulked with pitch from the Galway yard every spring.';
const QUESTION = 'What was the ferry to Inish Mor caulked with?';
const FACT_PAGE = 2;

/** Two pages; the fact is the last body line of page 2, 100 pt above its foot (about 88 % down the page). */
function notes(): Uint8Array {
  const body = (n: number) => [
    { text: `${n}. Harbour notes ${n}`, y: 700, size: 16 },
    { text: `The pilot of berth ${n} counted ${n * 11 + 4} crates of slate on the pier.`, y: 670 },
    { text: `Carts from quarry ${n} crossed the causeway ${n * 5} times in the autumn.`, y: 656 },
  ];
  return tinyPdf({
    pages: [body(1), [...body(2), { text: FACT, y: 100 }]],
    title: 'Harbour notes',
  });
}

test.setTimeout(120_000);

test('the drawn PDF page scrolls its cited sentence into view', async ({ page, origin, tmp, log }) => {
  const file = join(tmp, 'harbour-notes.pdf');
  await writeFile(file, notes());
  await openApp(page, origin);
  await addFiles(page, [file]);
  await page.click('a[href="#ask"]');
  await page.fill('[data-testid="question"]', QUESTION);
  await page.click('[data-testid="ask"]');
  const card = page
    .locator('[data-testid="results"][data-stage="result"] [data-testid="evidence"]', {
      hasText: 'Inish Mor',
    })
    .first();
  await card.locator('[data-testid="evidence-sentence"]', { hasText: 'Inish Mor' }).click();
  await expect(page.locator('[data-testid="viewer"] [data-testid="page-label"]')).toHaveText(
    `p. ${FACT_PAGE}`,
  );
  await page.click('[data-testid="viewer-show-page"]');
  await page.waitForSelector(`[data-testid="viewer-pdf-page"][data-drawn="${FACT_PAGE}"][data-marks="1"]`);

  // Where the mark and the page are against the viewer's scrolled area (CSS pixels, on screen).
  const place = () =>
    page.evaluate(() => {
      const view = document.querySelector('[data-testid="viewer"] .page-view')!;
      const mark = document.querySelector('[data-testid="viewer-page-mark"]')!.getBoundingClientRect();
      const canvas = document.querySelector('[data-testid="viewer-pdf-page"]')!.getBoundingClientRect();
      const box = view.getBoundingClientRect();
      return {
        scrollTop: view.scrollTop,
        pageHeight: canvas.height,
        visible: { top: box.top, bottom: box.bottom },
        mark: { top: mark.top, bottom: mark.bottom },
        // Where the mark would be with the view at its top: below the fold is what makes this test mean something.
        markFromTop: mark.top + view.scrollTop - box.top,
      };
    });
  // The scroll follows the drawing in the same task's next tick: polled until the mark is in view (or the poll's
  // limit, which fails the test).
  await expect
    .poll(
      async () => {
        const p = await place();
        return p.mark.top >= p.visible.top && p.mark.bottom <= p.visible.bottom;
      },
      { timeout: 10_000, message: 'the cited sentence is not scrolled into view on the drawn page' },
    )
    .toBe(true);
  const p = await place();
  log(
    `drawn page ${p.pageHeight.toFixed(0)} px high; view ${JSON.stringify(p.visible)}; mark ${JSON.stringify(p.mark)}; scrollTop ${p.scrollTop}`,
  );
  expect(p.markFromTop, 'the mark was not below the fold: nothing to scroll').toBeGreaterThan(
    p.visible.bottom - p.visible.top,
  );
  expect(p.scrollTop).toBeGreaterThan(0);
});
