// Spec (issue 48): "What is this about?" after a drop of the samples is answered by the library's themes, with no
// LLM: the themes answer lists the themes, each with a representative sentence that is a sentence of its evidence
// card (so it is citable) and opens its source; a theme's label asks it as a focused question, answered the
// ordinary way.
import { addSamples, openApp, waitIdle } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';

test.setTimeout(240_000);

test('a corpus-wide question is answered by the themes, each sentence citable', async ({
  page,
  origin,
  log,
}) => {
  await openApp(page, origin);
  await addSamples(page);
  await waitIdle(page);
  await page.click('a[href="#ask"]');
  await page.fill('[data-testid="question"]', 'What is this about?');
  await page.click('[data-testid="ask"]');
  await page.waitForSelector('[data-testid="themes-answer"] [data-testid="theme"]');
  await page.waitForSelector('[data-testid="results"][data-stage="result"] [data-testid="evidence"]');

  const themes = await page.$$eval('[data-testid="theme"]', (items) =>
    items.map((item) => ({
      label: item.querySelector('[data-testid="theme-label"]')?.textContent?.trim() ?? '',
      sentence: item.querySelector('[data-testid="theme-sentence"]')?.textContent?.trim() ?? '',
      cite: Number(item.querySelector('[data-testid="theme-sentence"]')?.getAttribute('data-cite')),
    })),
  );
  log(`themes: ${themes.map((t) => `${t.label} [${t.cite}]`).join(' | ')}`);
  // The samples are four documents on four subjects: at least three themes.
  expect(themes.length).toBeGreaterThanOrEqual(3);
  // Every passage on screen (the view shows the first few, then "more").
  const more = page.locator('[data-testid="more"]');
  while ((await more.count()) > 0) await more.click();
  const cards = page.locator('[data-testid="evidence"]');
  await expect(cards).toHaveCount(themes.length);
  for (const theme of themes) {
    expect(theme.label.length).toBeGreaterThan(0);
    expect(theme.sentence.length).toBeGreaterThan(0);
    // Its sentence is in its passage's card: passage n below.
    const card = cards.nth(theme.cite - 1);
    const text = ((await card.textContent()) ?? '').replace(/\s+/g, ' ');
    expect(text).toContain(theme.sentence.replace(/\s+/g, ' ').slice(0, 40));
  }
  // A sentence opens its source.
  await page.locator('[data-testid="theme-sentence"]').first().click();
  await page.waitForSelector('[data-testid="viewer"]');
  await page.keyboard.press('Escape');
  await expect(page.locator('[data-testid="viewer"]')).toHaveCount(0);

  // A label asks its theme as a focused question: an ordinary answer, not the themes again.
  const label = page.locator('[data-testid="theme-label"]').first();
  const asked = (await label.getAttribute('title')) ?? '';
  await label.click();
  await expect(page.locator('[data-testid="themes-answer"]')).toHaveCount(0);
  await page.waitForSelector('[data-testid="results"][data-stage="result"] [data-testid="evidence"]');
  const question = await page.inputValue('[data-testid="question"]');
  expect(asked).toContain(question);
  log(`focused question: ${question}`);
});
