// Issue 13, part 1: the concept-graph view. On the samples, a question asked in the Ask view opens in the Graph view
// ("show the walk in the graph"): the canvas is drawn (WebGL, sigma.js) with the question's seed concepts, the
// concepts that carried the walk and the passages they led to, listed beside it; the first passage is the Ask view's
// first evidence (the same ranking); a click on a passage on the canvas opens the document at its sentence; a click on
// a concept lists its passages; the library side draws the top concepts and finds a concept by a typed word.
import { openApp, waitIdle } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';
import { keepScreenshot, publicScreenshot } from '../lib/screenshots.ts';

/** The README's screenshot, refreshed with SCREENSHOTS=1 (test/e2e/lib/screenshots.ts). */
const SCREENSHOT = publicScreenshot('graph-view.png');

// A question naming a sample's concepts (Erie, canal): it has a walk to show.
const QUESTION = 'Who dug the Erie Canal, and when did the canal open?';

test.setTimeout(300_000);
test.use({ startWith: 'samples' });

test('graph view: a question’s walk on the samples, a click on a passage opens it at its sentence', async ({
  page,
  origin,
  log,
}) => {
  // A copy of the samples indexed once for the worker (fixtures.ts, startWith): open it and wait until it is idle.
  await openApp(page, origin);
  await waitIdle(page);

  await page.click('a[href="#ask"]');
  await page.fill('[data-testid="question"]', QUESTION);
  await page.click('[data-testid="ask"]');
  await page.waitForSelector('[data-testid="evidence"]');
  const askFirst = await page.getAttribute('[data-testid="evidence"] >> nth=0', 'data-chunk');
  await page.click('[data-testid="show-in-graph"]');

  // The canvas has drawn a frame of the walk.
  await expect(page).toHaveURL(/#graph$/);
  const canvas = page.locator('[data-testid="graph-canvas"]');
  await expect(canvas).toHaveAttribute('data-first-frame', /\d/);
  expect(await canvas.locator('canvas').count(), 'sigma drew no canvas').toBeGreaterThan(0);
  const nodes = page.locator('[data-testid="graph-nodes"] li');
  const kinds = await nodes.evaluateAll((items) => items.map((li) => li.getAttribute('data-kind')));
  const count = (kind: string) => kinds.filter((k) => k === kind).length;
  log(`drawn: ${count('seed')} seeds, ${count('concept')} concepts, ${count('chunk')} passages`);
  expect(count('seed'), 'no seed concept drawn').toBeGreaterThan(0);
  expect(count('concept'), 'no mass concept drawn').toBeGreaterThan(0);
  expect(count('chunk'), 'no passage drawn').toBeGreaterThan(0);
  // Bounded: the default caps (12 seeds, 24 concepts + one bridge per passage, 10 passages).
  expect(count('seed')).toBeLessThanOrEqual(12);
  expect(count('concept')).toBeLessThanOrEqual(34);
  expect(count('chunk')).toBeLessThanOrEqual(10);
  expect(Number(await canvas.getAttribute('data-nodes'))).toBe(kinds.length);
  // The question's words are among the seeds.
  const seeds = await page.locator('[data-kind="seed"] button').allTextContents();
  expect(
    seeds.some((s) => QUESTION.toLowerCase().includes(s.trim())),
    `seeds ${JSON.stringify(seeds)} name no word of the question`,
  ).toBe(true);
  // The same ranking as the Ask view: its first evidence is the first passage drawn.
  const first = page.locator('[data-testid="graph-nodes"] li[data-kind="chunk"]').first();
  expect(await first.getAttribute('data-chunk')).toBe(askFirst);

  await keepScreenshot(page.locator('main'), SCREENSHOT);

  // A click on the first passage, on the canvas itself (where sigma placed it), opens the document at its sentence.
  await expect(first).toHaveAttribute('data-x', /\d/);
  const x = Number(await first.getAttribute('data-x'));
  const y = Number(await first.getAttribute('data-y'));
  await canvas.click({ position: { x, y } });
  await page.waitForSelector('[data-testid="viewer"]');
  const marked = (await page.textContent('[data-testid="viewer-mark"]'))?.trim() ?? '';
  await page.keyboard.press('Escape');
  const panelSentence = (await page.textContent('[data-testid="graph-chunk-panel"] .sentence'))?.trim() ?? '';
  log(`passage opened at "${marked.slice(0, 80)}"`);
  expect(marked.length, 'the viewer marks no sentence').toBeGreaterThan(0);
  expect(panelSentence.replace(/…$/, ''), 'the viewer opened elsewhere than the passage’s sentence').toBe(
    marked.slice(0, panelSentence.replace(/…$/, '').length),
  );

  // A concept (from the list beside the canvas, the keyboard's way in) lists its passages.
  await page.locator('[data-kind="concept"] button').first().click();
  await expect(page.locator('[data-testid="graph-concept-panel"]')).toBeVisible();
  expect(await page.locator('[data-testid="graph-concept-chunk"]').count()).toBeGreaterThan(0);

  // The library side: top concepts, then a search for a seed finds it with its neighbours.
  await page.click('[data-testid="graph-side-library"]');
  await expect(page.locator('[data-testid="graph-summary"]')).toContainText('highest PageRank');
  expect(await page.locator('[data-kind="library"]').count()).toBeGreaterThan(1);
  const seed = seeds[0].trim();
  await page.fill('[data-testid="graph-search"]', seed);
  await page.click('[data-testid="graph-find"]');
  await expect(page.locator('[data-testid="graph-summary"]')).toContainText(`“${seed}”`);
  await expect(page.locator('[data-kind="library"] button[aria-pressed="true"]')).toHaveText(seed);
});
