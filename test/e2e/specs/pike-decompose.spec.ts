// Spec (issue 11): PIKE-RAG in the browser against the scripted OpenAI-compatible server on loopback — add the
// sample documents, configure the endpoint, estimate then build the atomic layer (atomic questions of every
// chunk, nothing sent before confirming, each chunk once), ask in `decompose` mode, see the live trace of its rounds
// (proposals, candidates, the pick) and a streamed cited answer whose citation opens the cited sentence; then set
// "rounds at most" to 1 in the Ask view's limits (a value out of range is refused first) and see the next run stop
// after one round. Requests may go only to the app's origin and the scripted endpoint (the privacy guard fails the test
// otherwise).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_MAX_ROUNDS, PROPOSE_TAG } from '../../../src/core/atomic/decompose.ts';
import { prepareFile } from '../../../src/core/prepare.ts';
import { startScriptedLlmServer } from '../../support/scriptedLlmServer.ts';
import { scriptedPike } from '../../support/scriptedPike.ts';
import { openApp, waitIdle } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';
import {
  askInMode,
  confirmBuild,
  estimateBuild,
  goToPanel,
  openCitation,
  saveEndpoint,
} from '../lib/llmPanels.ts';

/** A question made from a sentence of the first sample: its longest sentence of at most 200 characters. */
async function sampleQuestion(dist: string): Promise<string> {
  const samples = join(dist, 'samples');
  const index = JSON.parse(await readFile(join(samples, 'index.json'), 'utf8')) as { file: string }[];
  const first = index[0];
  const { documents } = await prepareFile(
    first.file,
    new Uint8Array(await readFile(join(samples, first.file))),
    {
      maxChunkTokens: 1200,
    },
  );
  const sentence = [...documents[0].sentences]
    .filter((x) => x.text.length <= 200)
    .sort((a, b) => b.text.length - a.text.length)[0];
  return `${sentence.text.replace(/[.!?]+\s*$/, '')}?`;
}

/** The decomposition's proposal calls the server received: one per round. */
function roundCalls(server: Awaited<ReturnType<typeof startScriptedLlmServer>>): number {
  return server.requests.filter((r) =>
    r.body?.messages?.some((m) => m.role === 'system' && m.content.includes(PROPOSE_TAG)),
  ).length;
}

test.setTimeout(360_000);
test.use({ startWith: 'samples' });

test('pike: atomize the samples, decompose with a live trace, cited answer opens the sentence', async ({
  page,
  origin,
  dist,
  privacy,
  log,
}) => {
  const question = await sampleQuestion(dist);
  const server = await startScriptedLlmServer({
    responders: [scriptedPike()],
    latencyMs: 40,
    wordDelayMs: 20,
  });
  privacy.allowOrigin(server.url);
  try {
    // A copy of the samples indexed once for the worker (fixtures.ts, startWith): open it and wait until it is idle.
    await openApp(page, origin);
    await waitIdle(page);

    // 1. The endpoint.
    await saveEndpoint(page, origin, server.baseUrl, { concurrency: 2 });

    // 2. Atomic questions only, every chunk (κ = 1): the estimate first, with no call made.
    const calls = await estimateBuild(page, origin, { kappa: 1, kg: false, atomic: true });
    log(`estimate: ${calls} atomizing calls for every chunk`);
    expect(calls).toBeGreaterThan(0);
    expect(server.requests.length, 'calls were made before confirming').toBe(0);
    await confirmBuild(page);
    const atomized = server.requests.filter((r) =>
      r.body?.messages?.[0]?.content.startsWith('You write atomic'),
    );
    expect(atomized.length, 'each chunk is atomized once').toBe(calls);
    expect(new Set(atomized.map((r) => r.extractedText)).size).toBe(calls);
    const questions = Number(await page.getAttribute('[data-testid="kg-atomic-status"]', 'data-questions'));
    log(`atomic layer: ${questions} questions from ${calls} chunks`);
    expect(questions).toBeGreaterThan(0);

    // 3. Decompose: the live trace, then the streamed answer with citations.
    await goToPanel(page, origin, 'question');
    await askInMode(page, question, 'decompose');
    await page.waitForSelector('[data-testid="trace-event"][data-kind="select"]');
    await page.waitForSelector('[data-testid="answer"][data-done="true"]');
    const kinds = await page.$$eval('[data-testid="trace-event"]', (els) =>
      els.map((e) => `${e.getAttribute('data-round')}:${e.getAttribute('data-kind')}`),
    );
    log(`trace: ${kinds.join(' ')}`);
    expect(kinds.slice(0, 3)).toEqual(['1:propose', '1:search', '1:select']);
    expect(kinds.at(-1)).toMatch(/:stop$/);
    // At the default N the run goes on to round 2: the scripted pick is sufficient only with two chunks.
    expect(kinds, 'the default rounds limit lets the run reach round 2').toContain('2:propose');
    const defaultRounds = roundCalls(server);
    log(`proposal calls at the default N = ${DEFAULT_MAX_ROUNDS}: ${defaultRounds}`);
    expect(defaultRounds).toBeGreaterThanOrEqual(2);
    // The question is one of the sample's sentences: round 1 picks that sentence's own atomic question.
    const chosen = (await page.textContent('[data-testid="trace-item"][data-chosen="true"]'))?.trim() ?? '';
    expect(chosen, `the pick of round 1: "${chosen}"`).toContain(question.replace(/\?$/, '').slice(0, 40));
    const via = (await page.textContent('[data-testid="evidence-via"]'))?.trim() ?? '';
    expect(via.startsWith('via What about'), `evidence provenance: "${via}"`).toBe(true);

    const answerText = (await page.textContent('[data-testid="answer"]'))?.trim() ?? '';
    log(`answer: ${answerText.slice(0, 160)}`);
    const firstCite = page.locator('[data-testid="answer"] [data-cite="1"]').first();
    expect(await firstCite.count(), `the answer has no [1] citation: "${answerText}"`).toBeGreaterThan(0);
    const marked = await openCitation(page, firstCite);
    // The scripted server answers with the first sentence of passage [1], then " [1]"; that "sentence" may begin
    // with the passage's heading line, which the highlighted sentence does not.
    const claimed = answerText.split('[1]')[0].trim();
    const message = `citation [1] highlights "${marked}", the answer claimed "${claimed}"`;
    expect(marked, message).not.toBe('');
    expect(claimed.includes(marked.slice(0, Math.min(marked.length, 30))), message).toBe(true);

    // 4. The limits: the default shown, a value out of range refused (next to the input, and by the Ask button),
    // then at most one round.
    await page.locator('[data-testid="viewer"] button[aria-label="Close"]').click();
    await page.selectOption('[data-testid="mode"]', 'decompose');
    const limits = page.locator('[data-testid="reasoning-limits"]');
    await limits.locator('summary').click();
    const rounds = limits.locator('[name="limit-maxRounds"]');
    await expect(rounds).toHaveValue(String(DEFAULT_MAX_ROUNDS));
    const askButton = page.locator('[data-testid="ask"]');
    await rounds.fill('0');
    await expect(rounds).toHaveAttribute('aria-invalid', 'true');
    await expect(limits.locator('[data-testid="limit-error"]')).toContainText('At least 1');
    await expect(askButton).toBeDisabled();
    await expect(page.locator('[data-testid="cannot-ask"]')).toContainText('rounds at most');
    await rounds.fill('1');
    await expect(askButton).toBeEnabled();
    await expect(rounds).not.toHaveAttribute('aria-invalid', 'true');
    // Kept for the session: still 1 after leaving the Ask view and coming back.
    await goToPanel(page, origin, 'question');
    await page.selectOption('[data-testid="mode"]', 'decompose');
    await limits.locator('summary').click();
    await expect(rounds).toHaveValue('1');

    const before = roundCalls(server);
    await askInMode(page, question, 'decompose');
    await page.waitForSelector('[data-testid="trace-event"][data-kind="stop"]');
    await page.waitForSelector('[data-testid="answer"][data-done="true"]');
    const limited = await page.$$eval('[data-testid="trace-event"]', (els) =>
      els.map((e) => `${e.getAttribute('data-round')}:${e.getAttribute('data-kind')}`),
    );
    log(`trace with N = 1: ${limited.join(' ')}; proposal calls: ${roundCalls(server) - before}`);
    expect(limited.slice(0, 3)).toEqual(['1:propose', '1:search', '1:select']);
    expect(
      limited.every((k) => k.startsWith('1:')),
      `rounds past 1: ${limited.join(' ')}`,
    ).toBe(true);
    expect(roundCalls(server) - before, 'proposal calls (rounds) with N = 1').toBe(1);
    expect(limited.at(-1)).toBe('1:stop');
  } finally {
    await server.close();
  }
});
