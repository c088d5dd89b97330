// Spec (issue 12): KAG's `logical` mode in Chromium against the scripted OpenAI-compatible server on loopback —
// index four small documents, configure the endpoint, build the KG (the scripted extraction states the release dates
// as attributes), ask a comparison question in `logical` mode, and see the plan, each step's bindings with the
// computed value (the earlier film, sorted in code), and a written answer whose citation opens the sentence that
// states its date; then Stop during the next question's plan call ends the run without another request.
// Requests may go only to the app's origin and the scripted server (the privacy guard checks every request).
// The documents are indexed by their words only (sentence vectors off): the plan's retrieval finds the films in the
// KG by name, and no check here reads a vector; embedding them only loaded the model in two workers.
import { kagResponder } from '../../support/scriptedKag.ts';
import { startScriptedLlmServer } from '../../support/scriptedLlmServer.ts';
import { expect, test } from '../lib/fixtures.ts';
import {
  addTextDocuments,
  askInMode,
  confirmBuild,
  estimateBuild,
  goToPanel,
  openCitation,
  saveEndpoint,
} from '../lib/llmPanels.ts';

const DOCUMENTS: Record<string, string> = {
  'alpha-dawn.txt': 'Alpha Dawn is a film released on 12 March 1994. Its director is Ann Lee.',
  'beta-storm.txt': 'Beta Storm is a film released on 5 June 1990. Its director is Bo Kim.',
  'ann-lee.txt': 'Ann Lee was born on 14 April 1950 in Springfield. She directed several films.',
  'springfield.txt': 'Springfield is a town with a population of 120,000 inhabitants.',
};
const QUESTION = 'Which film came out first, Alpha Dawn or Beta Storm?';

test.setTimeout(300_000);

test('logical: KG with dates, a comparison planned, executed and answered with citations', async ({
  page,
  origin,
  tmp,
  privacy,
  log,
}) => {
  // The written answer states the solver's established answer (a fact in its prompt) and cites the passage that
  // names it, as a model told to cite would.
  const server = await startScriptedLlmServer({
    responders: [kagResponder()],
    wordDelayMs: 20,
    answer: (_question, context) => {
      const solved = /Answer established by the logical-form solver: (.+)/.exec(context)?.[1]?.trim();
      const passages = context.split(/\n(?=\[\d+\])/).filter((p) => /^\[\d+\]/.test(p));
      const n = passages.findIndex((p) => solved && p.includes(solved)) + 1;
      return solved && n > 0
        ? `${solved} came out first [${n}].`
        : 'The documents do not contain the answer.';
    },
  });
  privacy.allowOrigin(server.url);
  try {
    await addTextDocuments(page, origin, tmp, DOCUMENTS, { lexical: true });

    await saveEndpoint(page, origin, server.baseUrl);

    // Build the KG over every chunk (κ = 1).
    await estimateBuild(page, origin, { kappa: 1 });
    await confirmBuild(page);
    expect(server.extractionTexts().length, 'every chunk is extracted once').toBe(
      Object.keys(DOCUMENTS).length,
    );

    // Ask in logical mode.
    await goToPanel(page, origin, 'question');
    await askInMode(page, QUESTION, 'logical');
    await page.waitForSelector('[data-testid="answer"][data-done="true"]');

    // The plan: a retrieval of both release dates, a sort in code, the output.
    const plan = page.locator('[data-testid="trace-event"][data-kind="plan"]').first();
    const planText = (await plan.textContent()) ?? '';
    log(`plan: ${planText}`);
    expect(planText).toContain('retrieval(s=x[Alpha Dawn | Beta Storm], p=release date, o=d:date)');
    expect(planText).toContain('answer = sort(x, by=d, min, limit=1)');

    // The steps: the dates bound from the KG, then the computed value (Beta Storm 1990-06-05 before Alpha Dawn
    // 1994-03-12).
    const steps = page.locator('[data-testid="trace-event"][data-kind="step"]');
    await expect(steps).toHaveCount(3);
    const retrieval = (await steps.nth(0).textContent()) ?? '';
    expect(retrieval).toContain('Step 1 (retrieval, kg)');
    expect(retrieval).toContain('1994-03-12; 1990-06-05');
    const sort = steps.nth(1);
    expect((await sort.textContent()) ?? '').toContain('Step 2 (sort, code)');
    await expect(sort.locator('[data-testid="trace-item"][data-chosen="true"]').first()).toContainText(
      'answer Beta Storm',
    );
    // Answered from the KG and code alone: no reflection call.
    await expect(page.locator('[data-testid="trace-event"][data-kind="answer"]')).toContainText('Beta Storm');
    await expect(page.locator('[data-testid="trace-event"][data-kind="reflect"]')).toHaveCount(0);

    // The written answer cites the sentence behind a triple; the citation opens it.
    const answerText = (await page.textContent('[data-testid="answer"]'))?.trim() ?? '';
    log(`answer: ${answerText}`);
    expect(answerText).toMatch(/^Beta Storm came out first \[\d\]/);
    const cite = page.locator('[data-testid="answer"] [data-cite]').first();
    expect(await cite.count(), `the answer has no citation: "${answerText}"`).toBeGreaterThan(0);
    const marked = await openCitation(page, cite);
    expect(marked, 'the citation opens the sentence behind the triple').toBe(
      'Beta Storm is a film released on 5 June 1990.',
    );
    // The written answer's prompt carried the computed answer as a fact.
    const answerRequest = server.requests.filter((r) => r.body?.stream).at(-1);
    expect(JSON.stringify(answerRequest?.body?.messages)).toContain(
      'Answer established by the logical-form solver: Beta Storm',
    );

    // Stop while the plan call is in flight: the run ends, said to be stopped (not a red error), nothing more is
    // sent, no answer is written.
    await page.locator('[data-testid="viewer"] button[aria-label="Close"]').click();
    await goToPanel(page, origin, 'question');
    server.setLatency(8000);
    const before = server.requests.length;
    await askInMode(page, 'Which film came out first, Beta Storm or Alpha Dawn?', 'logical');
    await expect
      .poll(() => server.requests.length, { message: 'the plan request never arrived' })
      .toBe(before + 1);
    await page.click('[data-testid="stop"]');
    await page.waitForSelector('[data-testid="ask-stopped"]');
    log(`after Stop: ${await page.textContent('[data-testid="ask-stopped"]')}`);
    expect(await page.locator('[data-testid="ask-error"]').count(), 'Stop is not an error').toBe(0);
    // Stop aborts the call in flight (the LLM client passes the run's signal to fetch): wait until the server has
    // seen the plan call end, with the run already ended (the alert). No reply reached the run, so a request
    // after this could only come from a run that ignored Stop.
    await expect
      .poll(() => server.requests[before]?.settled === true, { message: 'the plan call never ended' })
      .toBe(true);
    await expect(page.locator('[data-testid="ask-stopped"]')).toBeVisible();
    expect(server.requests.length, 'a request was sent after Stop').toBe(before + 1);
    expect(await page.locator('[data-testid="answer"]').count()).toBe(0);
  } finally {
    await server.close();
  }
});
