// Spec (issue 44): the answer comes first. Without an endpoint the best passage's best sentence is shown above the
// evidence as a short answer; with one (the scripted server on loopback) the written answer sits above the
// evidence, and its citation [1] opens the source and leaves the reader on passage 1 (focus back on it). The cards
// are in rank order and their rating never rises with the rank.
import type { Page } from 'playwright-core';
import { startScriptedLlmServer } from '../../support/scriptedLlmServer.ts';
import { askSettled, openApp, waitIdle } from '../lib/app.ts';
import { saveEndpoint } from '../lib/llmPanels.ts';
import { expect, test } from '../lib/fixtures.ts';

test.setTimeout(240_000);
test.use({ startWith: 'samples' });

const QUESTION = 'What did the fox say about the grapes, and what did the crow drop?';

/** The cards' ranks and ratings in the order they are on the page. */
async function cardOrder(page: Page): Promise<{ ranks: number[]; ratings: number[] }> {
  return page.$$eval('[data-testid="evidence"]', (cards) => ({
    ranks: cards.map((c) => Number(c.getAttribute('data-rank'))),
    ratings: cards.map((c) => Number(c.getAttribute('data-relevance'))),
  }));
}

test('answer first: a short answer or the written one above the evidence; cards in rank order', async ({
  page,
  origin,
  privacy,
  log,
}) => {
  // A copy of the samples indexed once for the worker (fixtures.ts, startWith): open it and wait until it is idle.
  await openApp(page, origin);
  await waitIdle(page);
  await page.click('a[href="#ask"]');
  await askSettled(page, QUESTION);
  const more = page.locator('[data-testid="more"]');
  if ((await more.count()) > 0) await more.click();

  const { ranks, ratings } = await cardOrder(page);
  log(`ranks on the page: ${ranks.join(', ')}; ratings: ${ratings.join(', ')}`);
  expect(ranks, 'the cards are not in rank order').toEqual(ranks.map((_, i) => i + 1));
  for (let i = 1; i < ratings.length; i++)
    expect(ratings[i], `rating of passage ${i + 1} above passage ${i}'s`).toBeLessThanOrEqual(ratings[i - 1]);

  const short = page.locator('[data-testid="short-answer"]');
  const firstCard = page.locator('[data-testid="evidence"]').first();
  const [shortBox, cardBox] = await Promise.all([short.boundingBox(), firstCard.boundingBox()]);
  expect(shortBox, 'no short answer without an endpoint').not.toBeNull();
  expect(shortBox!.y + shortBox!.height, 'the short answer is not above the evidence').toBeLessThanOrEqual(
    cardBox!.y,
  );
  // The short answer is the best sentence of passage 1, as its card highlights it.
  const best = ((await firstCard.locator('mark[data-best="true"]').first().textContent()) ?? '').trim();
  const said = ((await short.locator('button').textContent()) ?? '').trim();
  log(`short answer: "${said}"`);
  expect(best.length).toBeGreaterThan(0);
  expect(said.replace(/\s+/g, ' ')).toBe(best.replace(/\s+/g, ' '));

  const server = await startScriptedLlmServer();
  privacy.allowOrigin(server.url);
  try {
    await saveEndpoint(page, origin, server.baseUrl);
    await page.goto(`${origin}/#ask`);
    await page.waitForSelector('[data-indexing]');
    await askSettled(page, QUESTION);
    const answer = page.locator('[data-testid="answer"][data-done="true"]');
    await answer.waitFor();
    const [answerBox, firstBox, lastBox] = await Promise.all([
      page.locator('[data-testid="answer-card"]').boundingBox(),
      page.locator('[data-testid="evidence"]').first().boundingBox(),
      page.locator('[data-testid="evidence"]').last().boundingBox(),
    ]);
    log(`answer y ${answerBox?.y}, first card y ${firstBox?.y}, last card y ${lastBox?.y}`);
    expect(
      answerBox!.y + answerBox!.height,
      'the written answer is not above the evidence',
    ).toBeLessThanOrEqual(firstBox!.y);
    expect(await page.locator('[data-testid="short-answer"]').count()).toBe(0);
    // [1] opens the source at the cited sentence; closing it leaves the reader on passage 1.
    await answer.locator('[data-cite="1"]').first().click();
    await page.waitForSelector('[data-testid="viewer"]');
    expect(
      await page.evaluate(() => document.activeElement?.closest('[data-testid="viewer"]') !== null),
    ).toBe(true);
    await page.keyboard.press('Escape');
    await expect(page.locator('[data-testid="viewer"]')).toHaveCount(0);
    await expect(page.locator('#passage-1')).toBeFocused();
    await expect(page.locator('#passage-1')).toBeInViewport();
  } finally {
    await server.close();
  }
});
