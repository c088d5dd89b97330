// Spec (issue 9, item 6): with ?bundle= the app stays on the bundle everywhere — evidence asked while the bundle
// is still downloading, the Ask view's evidence, the context sent to the endpoint and the document a citation
// opens come from the bundle, never from the local library of the same browser profile (which holds another
// document that would also match the question).
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { frozenBundle } from '../../support/frozenBundles.ts';
import { LOCAL_TEXT, corpus } from '../../support/lighthouseCorpus.ts';
import { startScriptedLlmServer } from '../../support/scriptedLlmServer.ts';
import { addFiles, openApp, waitIdle } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';
import { saveLlmSettings } from '../lib/llmPanels.ts';
import { lexicalOnly } from '../lib/settings.ts';

const QUESTION = 'How tall was the lighthouse of Alexandria?';

test.setTimeout(240_000);

test('read-only bundle: the evidence, the answer context and the viewer use the bundle, never the local library', async ({
  page,
  context,
  origin,
  dist,
  tmp,
  privacy,
  log,
}) => {
  const server = await startScriptedLlmServer({ wordDelayMs: 5 });
  privacy.allowOrigin(server.url);
  // The bundle, made by the CLI (lexical only: no model needed for it), frozen (test/support/frozenBundles.ts).
  const scratch = join(dist, `e2e-scratch-ro-${process.pid}`);
  await mkdir(scratch, { recursive: true });
  try {
    await copyFile(frozenBundle('pharos.bundle'), join(scratch, 'pharos.bundle'));

    // The local library of this profile: another document, and an LLM endpoint. Indexed by its words only (no
    // sentence vectors): what is tested is that nothing of it is read, and its words match the question too.
    const local = join(tmp, 'harbour.jsonl');
    await writeFile(local, corpus({ title: 'Harbour', text: LOCAL_TEXT }, 'Mill'));
    await openApp(page, origin);
    await lexicalOnly(page);
    await addFiles(page, [local]);
    await waitIdle(page);
    await page.goto(`${origin}/#settings`);
    await page.waitForSelector('[name="llm-base-url"]');
    await page.fill('[name="llm-base-url"]', server.baseUrl);
    await page.fill('[name="llm-model"]', 'scripted-model');
    await saveLlmSettings(page);

    // A question asked while the bundle is still downloading waits for the bundle; it is not answered from the
    // local library in the meantime. Every request for the bundle is held until the question has waited 3 s (the
    // provocation, not a wait for a result): once in all, where each request used to be held 3 s (5 of them, 15 s).
    let held = 0;
    let letGo = (): void => undefined;
    const going = new Promise<void>((resolve) => (letGo = resolve));
    await context.route('**/pharos.bundle', async (route) => {
      held += 1;
      await going;
      await route.fallback();
    });
    await page.goto(`${origin}/?bundle=/e2e-scratch-ro-${process.pid}/pharos.bundle#ask`);
    await page.fill('[data-testid="question"]', QUESTION);
    await page.click('[data-testid="ask"]');
    await expect.poll(() => held, 'no request for the bundle was held').toBeGreaterThan(0);
    await page.waitForTimeout(3000);
    letGo();
    await page.waitForSelector('[data-testid="evidence"]');
    const early = await page.$$eval('[data-testid="evidence"]', (cards) =>
      cards.map((c) => c.textContent ?? ''),
    );
    await context.unroute('**/pharos.bundle');
    log(`asked during the download (held ${held}×): ${early.length} passages`);
    expect(held, 'the bundle download was not held back: the race was not tested').not.toBe(0);
    const earlyMessage = `a question asked during the download was answered from the local library: ${early[0]}`;
    expect(early[0], earlyMessage).toContain('Pharos');
    expect(
      early.some((t) => t.includes('Fishermen')),
      earlyMessage,
    ).toBe(false);

    await page.goto(`${origin}/?bundle=/e2e-scratch-ro-${process.pid}/pharos.bundle#library`);
    await page.waitForSelector('[data-testid="read-only"]');
    await page.click('a[href="#ask"]');
    await page.fill('[data-testid="question"]', QUESTION);
    await page.selectOption('[data-testid="mode"]', 'hybrid');
    await page.click('[data-testid="ask"]');
    await page.waitForSelector('[data-testid="answer"][data-done="true"]');

    const evidence = await page.$$eval('[data-testid="evidence-group"]', (items) =>
      items.map((li) => (li.textContent ?? '').replace(/\s+/g, ' ').trim()),
    );
    log(`evidence: ${JSON.stringify(evidence).slice(0, 300)}`);
    const evidenceMessage = `the Ask view's evidence is not the bundle's: ${JSON.stringify(evidence)}`;
    expect(evidence.length, evidenceMessage).toBeGreaterThan(0);
    expect(
      evidence.every((e) => e.includes('Pharos')),
      evidenceMessage,
    ).toBe(true);
    expect(
      evidence.some((e) => e.includes('Fishermen')),
      'the Ask view read the local library',
    ).toBe(false);
    const sent = JSON.stringify(
      server.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body),
    );
    expect(sent, 'the answer request did not carry the bundle as context').toContain('Pharos');
    expect(sent, 'the answer request carried the local library as context').not.toContain('Fishermen');

    await page.locator('[data-testid="answer"] [data-cite="1"]').first().click();
    await page.waitForSelector('[data-testid="viewer"]');
    const shown = (await page.textContent('[data-testid="viewer"]')) ?? '';
    log(`viewer: ${shown.replace(/\s+/g, ' ').slice(0, 120)}`);
    expect(shown, `the citation opened "${shown.slice(0, 200)}", not the bundle's document`).toContain(
      'Pharos',
    );
    expect(shown, `the citation opened "${shown.slice(0, 200)}", not the bundle's document`).not.toContain(
      'Fishermen',
    );
  } finally {
    await rm(scratch, { recursive: true, force: true });
    await server.close();
  }
});
