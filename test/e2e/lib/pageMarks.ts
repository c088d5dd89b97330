// The viewer's marks on a drawn PDF page, as the person sees them: each mark's rectangle on screen, in fractions of
// the drawn page's (the canvas's) rectangle, top-left origin — to compare with where the sentence is known to be.
import type { Page } from '@playwright/test';

export interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The marks over the drawn page, once page `pageNumber` is drawn. */
export async function pageMarks(page: Page, pageNumber: number): Promise<Rect[]> {
  await page.waitForSelector(`[data-testid="viewer-pdf-page"][data-drawn="${pageNumber}"]`, {
    timeout: 60_000,
  });
  return page.evaluate(() => {
    const canvas = document.querySelector('[data-testid="viewer-pdf-page"]')!.getBoundingClientRect();
    return [...document.querySelectorAll('[data-testid="viewer-page-mark"]')].map((mark) => {
      const r = mark.getBoundingClientRect();
      return {
        x0: (r.left - canvas.left) / canvas.width,
        y0: (r.top - canvas.top) / canvas.height,
        x1: (r.right - canvas.left) / canvas.width,
        y1: (r.bottom - canvas.top) / canvas.height,
      };
    });
  });
}

/**
 * Whether `mark` marks `line` (a line of the sentence as a text layer boxes it): its middle is within the line's
 * height, and it runs across the line's width (90 % of it at least, and no more than `slack` of the page past either
 * end). Heights are not compared: a text layer's box has the font's ascent and descent, a recognised word's box only
 * its ink.
 */
export function marksLine(mark: Rect, line: Rect, slack = 0.03): boolean {
  const middle = (mark.y0 + mark.y1) / 2;
  const across = Math.min(line.x1, mark.x1) - Math.max(line.x0, mark.x0);
  return (
    middle > line.y0 &&
    middle < line.y1 &&
    across >= 0.9 * (line.x1 - line.x0) &&
    mark.x0 > line.x0 - slack &&
    mark.x1 < line.x1 + slack
  );
}
