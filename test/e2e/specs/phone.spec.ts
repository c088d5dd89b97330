// Spec (issue 44): a phone, 390 px wide. Every view fits the width (no element wider than the window, nothing to
// scroll sideways; a wide table scrolls inside its card), every control can be reached, the viewer's Close button
// is on screen, focus moves into the viewer and back to what opened it, a skip link leads past the navigation, and
// axe-core finds no serious or critical violation.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { openApp, waitIdle } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';

// The samples indexed once for the worker (fixtures.ts, startWith), opened at the phone's width.
test.use({ viewport: { width: 390, height: 844 }, startWith: 'samples' });
test.setTimeout(240_000);

/** axe-core's serious and critical violations of the page as it is now. */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * What does not fit the window's width: the page's own sideways scroll, and every visible element that reaches
 * past the window without an ancestor that scrolls it sideways (then it can be reached by scrolling that one).
 */
async function tooWide(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    if (document.documentElement.scrollWidth > width)
      out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
    const scrolls = (el: Element | null): boolean => {
      for (let a = el?.parentElement ?? null; a && a !== document.body; a = a.parentElement) {
        const o = getComputedStyle(a).overflowX;
        if (o === 'auto' || o === 'scroll' || o === 'hidden' || o === 'clip') return true;
      }
      return false;
    };
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      if ((r.right > width + 1 || r.left < -1) && !scrolls(el) && !el.classList.contains('skip-link')) {
        const name = `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${el.getAttribute('data-testid') ? `[${el.getAttribute('data-testid')}]` : ''}.${[...el.classList].join('.')}`;
        out.push(`${name} spans ${Math.round(r.left)}–${Math.round(r.right)}`);
      }
    }
    return out.slice(0, 10);
  });
}

test('390 px: every view fits, the viewer closes, focus goes in and back, skip link, no serious axe violation', async ({
  page,
  origin,
  log,
}) => {
  await openApp(page, origin);
  // The skip link is the first stop of the keyboard and leads to the view.
  await page.keyboard.press('Tab');
  await expect(page.locator('.skip-link')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('main')).toBeFocused();

  await waitIdle(page);
  for (const view of ['library', 'ask', 'graph', 'evaluate', 'network', 'settings']) {
    await page.click(`a[href="#${view}"]`);
    await expect(page.locator(`a[href="#${view}"]`)).toHaveAttribute('aria-current', 'page');
    if (view === 'ask') {
      await page.fill('[data-testid="question"]', 'Why did the fox say the grapes were sour?');
      await page.click('[data-testid="ask"]');
      await page.waitForSelector('[data-testid="results"][data-stage="result"] [data-testid="evidence"]');
    }
    const wide = await tooWide(page);
    log(`${view}: ${wide.length === 0 ? 'fits' : wide.join('; ')}`);
    expect(wide, `${view} at 390 px`).toEqual([]);
    if (view === 'library' || view === 'ask' || view === 'settings')
      expect(await seriousViolations(page), `axe-core on ${view} at 390 px`).toEqual([]);
  }

  // The viewer, opened from the keyboard: focus moves into it, Close is on screen, and focus comes back.
  await page.click('a[href="#ask"]');
  await page.waitForSelector('[data-testid="evidence-sentence"]');
  const link = page.locator('[data-testid="evidence-sentence"]').first();
  await link.focus();
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid="viewer"]');
  expect(await page.evaluate(() => document.activeElement?.closest('[data-testid="viewer"]') !== null)).toBe(
    true,
  );
  const close = page.locator('[data-testid="viewer"] button[aria-label="Close"]');
  const box = await close.boundingBox();
  log(`viewer Close at x ${box?.x.toFixed(0)}–${((box?.x ?? 0) + (box?.width ?? 0)).toFixed(0)}`);
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(390);
  await expect(close).toBeInViewport({ ratio: 1 });
  expect(await tooWide(page), 'the viewer at 390 px').toEqual([]);
  await close.click();
  await expect(page.locator('[data-testid="viewer"]')).toHaveCount(0);
  await expect(link).toBeFocused();
});
