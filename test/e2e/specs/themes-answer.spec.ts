// Spec (issue 48): "What is this about?" after a drop of the samples is answered by the library's themes, with no
// LLM: the themes answer lists the themes, each with a representative sentence that is a sentence of its evidence
// card (so it is citable) and opens its source; a theme's label asks it as a focused question, answered the
// ordinary way. Then, with the scripted endpoint set, the same question offers the global answer (map over the
// themes' passages, then reduce): its calls and tokens are on screen before anything is sent, and once confirmed
// exactly that many calls reach the endpoint and the answer's citations open the themes' passages.
import { startScriptedLlmServer } from '../../support/scriptedLlmServer.ts';
import { isGlobalMap, scriptedGlobal } from '../../support/scriptedGlobal.ts';
import { openApp, showAllPassages, waitIdle } from '../lib/app.ts';
import { saveEndpoint } from '../lib/llmPanels.ts';
import { expect, test } from '../lib/fixtures.ts';

test.setTimeout(240_000);
// A copy of the samples indexed once for the worker (fixtures.ts, startWith): the drop this spec asks about.
test.use({ startWith: 'samples' });

test('a corpus-wide question is answered by the themes, each sentence citable', async ({
  page,
  origin,
  privacy,
  log,
}) => {
  await openApp(page, origin);
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
  await showAllPassages(page);
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

  // The Themes panel (Graph view): the same themes, a search that narrows them, a theme that opens as a question.
  await page.click('a[href="#graph"]');
  await page.click('[data-testid="graph-side-themes"]');
  const listed = page.locator('[data-testid="themes-panel-theme"]');
  await listed.first().waitFor();
  const total = await listed.count();
  expect(total).toBeGreaterThanOrEqual(themes.length);
  await page.fill('[data-testid="themes-search"]', 'canal');
  await expect(listed).not.toHaveCount(total);
  const canal = await page.$$eval('[data-testid="themes-panel-theme"]', (items) =>
    items.map((i) => i.textContent ?? ''),
  );
  log(`themes matching "canal": ${canal.length}`);
  expect(canal.length).toBeGreaterThanOrEqual(1);
  for (const text of canal) expect(text.toLowerCase()).toContain('canal');
  const panelLabel = page.locator('[data-testid="themes-panel-label"]').first();
  const focused = (await panelLabel.getAttribute('title')) ?? '';
  await panelLabel.click();
  await page.waitForSelector('[data-testid="results"][data-stage="result"] [data-testid="evidence"]');
  expect(focused).toContain(await page.inputValue('[data-testid="question"]'));

  // With an endpoint: the global answer's cost first, nothing sent; then, confirmed, its calls and its citations.
  const server = await startScriptedLlmServer({ responders: [scriptedGlobal()] });
  privacy.allowOrigin(server.url);
  try {
    // Prices in euros (issue 44: the planned cost had no currency): the estimate and the spent line say EUR.
    await saveEndpoint(page, origin, server.baseUrl, { prices: { input: 2, output: 8, currency: 'eur' } });
    await page.click('a[href="#ask"]');
    await page.fill('[data-testid="question"]', 'What is this about?');
    await page.click('[data-testid="ask"]');
    const estimate = page.locator('[data-testid="global-estimate"]');
    await estimate.waitFor();
    const calls = Number(await estimate.getAttribute('data-calls'));
    const inputTokens = Number(await estimate.getAttribute('data-input-tokens'));
    log(`global answer estimate: ${(await estimate.textContent())?.replace(/\s+/g, ' ')}`);
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(inputTokens).toBeGreaterThan(0);
    await expect(estimate).toContainText(`${calls} calls`);
    await expect(estimate, 'the planned cost in the currency set').toContainText(
      /at most EUR\s?\d+\.\d+ at your/,
    );
    const chats = () => server.requests.filter((r) => r.path.endsWith('/chat/completions'));
    expect(chats()).toHaveLength(0);
    await page.click('[data-testid="global-run"]');
    const answer = page.locator('[data-testid="global-answer"][data-done="true"]');
    await answer.waitFor();
    expect(chats()).toHaveLength(calls);
    expect(chats().filter((r) => isGlobalMap(r.body?.messages?.[0]?.content ?? ''))).toHaveLength(calls - 1);
    const spent = (await page.locator('[data-testid="global-spent"]').textContent()) ?? '';
    expect(spent).toContain(`${calls} calls`);
    expect(spent, 'the cost in the currency set').toMatch(/cost EUR\s?\d+\.\d+/);
    log(`global answer: ${(await answer.textContent())?.replace(/\s+/g, ' ')}`);
    const cites = answer.locator('button.cite');
    expect(await cites.count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator('[data-testid="global-passage"]').count()).toBeGreaterThanOrEqual(2);
    // A citation opens the theme passage it cites.
    await cites.first().click();
    await page.waitForSelector('[data-testid="viewer"]');
    await page.keyboard.press('Escape');
  } finally {
    await server.close();
  }
});
