// Spec (d): first run with zero configuration — "Try it with sample documents", then the Ask view answers a
// question about them with highlighted evidence; a highlighted sentence opens the source document scrolled to it.
// No request leaves the app's origin (checked by the runner for every spec).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareFile } from '../../../src/core/prepare.ts';
import { openApp, readCounts, waitIdle } from '../lib/app.ts';
import { expect, test } from '../lib/fixtures.ts';

/** A question made from a real sentence of the first sample: its longest sentence, without the final stop. */
async function sampleQuestion(dist: string): Promise<{ question: string; title: string }> {
  const SAMPLES = join(dist, 'samples');
  const index = JSON.parse(await readFile(join(SAMPLES, 'index.json'), 'utf8')) as {
    file: string;
    title: string;
  }[];
  if (index.length === 0) throw new Error('public/samples/index.json lists no samples');
  const first = index[0];
  const { documents } = await prepareFile(
    first.file,
    new Uint8Array(await readFile(join(SAMPLES, first.file))),
    {
      maxChunkTokens: 1200,
    },
  );
  const doc = documents[0];
  if (!doc) throw new Error(`sample ${first.file} yields no document in Node`);
  const sentence = [...doc.sentences].sort((a, b) => b.text.length - a.text.length)[0];
  return { question: sentence.text.replace(/[.!?]+\s*$/, ''), title: doc.doc.title };
}

test.setTimeout(240_000);
// The samples as one click indexes them, once for the worker (fixtures.ts, samplesProfile: openIndexed 'samples'),
// copied into this test's profile: the counts below are that click's library.
test.use({ startWith: 'samples' });

test('ask: samples loaded with one click, evidence highlighted, sentence link opens the source', async ({
  page,
  origin,
  dist,
  log,
}) => {
  const { question, title } = await sampleQuestion(dist);
  await openApp(page, origin);
  await waitIdle(page);
  const counts = await readCounts(page);
  log(`samples indexed: ${JSON.stringify(counts)}`);
  expect(counts.documents, 'samples were not indexed').not.toBe(0);
  expect(counts.vectors, 'samples were not indexed').toBe(counts.sentences);

  await page.click('a[href="#ask"]');
  await page.fill('[data-testid="question"]', question);
  await page.click('[data-testid="ask"]');
  await page.waitForSelector('[data-testid="evidence"]');
  const evidence = await page.$$eval('[data-testid="evidence"]', (cards) =>
    cards.map((c) => ({
      title: c.querySelector('.title')?.textContent?.trim() ?? '',
      marks: c.querySelectorAll('[data-testid="evidence-sentence"]').length,
    })),
  );
  log(`question "${question.slice(0, 80)}…" → ${evidence.length} passages; top: ${evidence[0]?.title}`);
  expect(
    evidence.slice(0, 3).some((e) => e.title === title),
    `the sample the question comes from ("${title}") is not in the top 3: ${JSON.stringify(evidence.slice(0, 3))}`,
  ).toBe(true);
  expect(
    evidence.some((e) => e.marks > 0),
    'no highlighted sentence in the evidence',
  ).toBe(true);

  const link = page.locator('[data-testid="evidence-sentence"]').first();
  const sentence = (await link.textContent())?.trim() ?? '';
  await link.click();
  await page.waitForSelector('[data-testid="viewer"]');
  const marked = (await page.textContent('[data-testid="viewer-mark"]'))?.trim() ?? '';
  expect(marked, `viewer highlights "${marked}", the link was "${sentence}"`).toBe(sentence);
  // Scrolled to after the viewer has drawn the document (a tick later): waited for, not looked at once.
  await expect(
    page.locator('[data-testid="viewer-mark"]'),
    'the highlighted sentence is not scrolled into view',
  ).toBeInViewport();
  await page.keyboard.press('Escape');

  // A Markdown sample's section shows where it sits: document › heading.
  await page.click('a[href="#ask"]');
  await page.fill('[data-testid="question"]', 'Why did the fox say the grapes were sour?');
  await page.click('[data-testid="ask"]');
  // The settled cards only: early cards (by words, while the question is refined) carry paths too.
  await page.waitForFunction(() =>
    [...document.querySelectorAll('[data-testid="evidence"] [data-testid="evidence-path"]')].some((p) =>
      p.textContent?.includes('The Fox and the Grapes'),
    ),
  );
  // The document's title heads its group of passages; each card shows the headings under it.
  const paths = await page.$$eval('[data-testid="evidence"]', (cards) =>
    cards.map(
      (c) =>
        `${c.querySelector('.title')?.textContent?.trim() ?? ''} › ${c.querySelector('[data-testid="evidence-path"]')?.textContent?.trim() ?? ''}`,
    ),
  );
  log(`paths: ${JSON.stringify(paths.slice(0, 3))}`);
  expect(
    paths[0],
    `the fox section is not the first result's path: ${JSON.stringify(paths.slice(0, 3))}`,
  ).toContain('Three Fables of Aesop › The Fox and the Grapes');

  // A budget smaller than the best passage still answers, with that passage's best sentences.
  // The lighthouse sample is one 261-token passage.
  await page.fill('[data-testid="budget"]', '100');
  await page.fill(
    '[data-testid="question"]',
    'How tall was the Lighthouse of Alexandria on the island of Pharos?',
  );
  await page.click('[data-testid="ask"]');
  await page.waitForSelector('[data-testid="results"][data-stage="result"] [data-testid="excerpt"]');
  const summary = (await page.textContent('[data-testid="results"] .summary')) ?? '';
  const used = Number(/(\d+) of 100 tokens/.exec(summary)?.[1] ?? NaN);
  log(`budget 100: ${summary.replace(/\s+/g, ' ').trim()}`);
  expect(used, `the excerpt does not fit the budget: "${summary}"`).toBeGreaterThan(0);
  expect(used, `the excerpt does not fit the budget: "${summary}"`).toBeLessThanOrEqual(100);
});
