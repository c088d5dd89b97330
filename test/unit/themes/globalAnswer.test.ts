// The global answer to a corpus-wide question with an endpoint (issue 48): map over the themes' passages, then
// reduce, bounded by κ, against the scripted OpenAI-compatible server on loopback. The plan is made before any call
// and says its calls and tokens; the run sends exactly the planned map prompts, one reduce, and its answer cites the
// themes' passages. The library is the app's four samples (public/samples), read and indexed as the app does.
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { prepareCorpus } from '../../../src/cli/benchData.ts';
import { LlmClient, estimateMessageTokens } from '../../../src/core/llm/index.ts';
import { MAP_MAX_TOKENS, REDUCE_MAX_TOKENS, themesWithin } from '../../../src/core/themes/globalAnswer.ts';
import { openLibrary } from '../../../src/services/library/questionLibrary.ts';
import type { LibrarySource } from '../../../src/services/source/librarySource.ts';
import { openSource } from '../../../src/services/source/openSource.ts';
import { estimateOf, planOverSource, runPlanned } from '../../../src/services/source/globalThemesAnswer.ts';
import { isGlobalMap, isGlobalReduce, scriptedGlobal } from '../../support/scriptedGlobal.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scriptedLlmServer.ts';

const SAMPLES = join(import.meta.dirname, '../../../public/samples');
const QUESTION = 'What is this about?';

let server: ScriptedLlmServer;
let source: LibrarySource;

beforeAll(async () => {
  server = await startScriptedLlmServer({
    // The gettysburg theme's map says nothing: it is left out of the reduce.
    responders: [scriptedGlobal(/gettysburg/i)],
  });
  const corpus = await prepareCorpus(SAMPLES, 1200);
  source = openSource({
    library: openLibrary({
      meta: undefined,
      documents: corpus.documents.map((d) => d.doc),
      sections: [],
      chunks: corpus.chunks,
      sentences: corpus.sentences,
      vectors: new Map(),
      graph: undefined,
    }),
  });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const client = () =>
  new LlmClient({
    baseUrl: server.baseUrl,
    model: 'scripted-model',
    apiKey: '',
    priceInPerM: 2,
    priceOutPerM: 8,
    concurrency: 2,
  });
const chats = () => server.requests.filter((r) => r.path.endsWith('/chat/completions'));

describe('the global answer over the themes', () => {
  it('says its calls and tokens before any call, then sends exactly those map prompts and one reduce', async () => {
    const themes = (await source.themes!())!.themes;
    const planned = (await planOverSource(source, QUESTION, { kappa: 1, priceInPerM: 2, priceOutPerM: 8 }))!;
    const estimate = estimateOf(planned);
    // Nothing was sent to plan it.
    expect(chats()).toHaveLength(0);
    // κ = 1: every theme with a passage is mapped, then one reduce.
    const withPassages = themes.filter((t) => t.passages.length > 0).length;
    expect(estimate.themes).toBe(withPassages);
    expect(estimate.calls).toBe(withPassages + 1);
    expect(estimate.passages).toBe(themes.reduce((n, t) => n + t.passages.length, 0));
    expect(estimate.outputTokens).toBe(withPassages * MAP_MAX_TOKENS + REDUCE_MAX_TOKENS);
    expect(estimate.cost).toBeCloseTo((estimate.inputTokens * 2 + estimate.outputTokens * 8) / 1e6, 12);

    const deltas: string[] = [];
    const answer = await runPlanned(planned, client(), { onDelta: (d) => deltas.push(d) });
    const sent = chats();
    const maps = sent.filter((r) => isGlobalMap(r.body?.messages?.[0]?.content ?? ''));
    const reduces = sent.filter((r) => isGlobalReduce(r.body?.messages?.[0]?.content ?? ''));
    expect(maps).toHaveLength(estimate.themes);
    expect(reduces).toHaveLength(1);
    expect(answer.calls).toBe(estimate.calls);
    // The map prompts are the planned ones, so their tokens are the ones shown; the reduce stays under its bound.
    const mapTokens = maps.reduce((n, r) => n + estimateMessageTokens(r.body!.messages!), 0);
    const plannedMapTokens = planned.plan.maps.reduce((n, m) => n + estimateMessageTokens(m.messages), 0);
    expect(mapTokens).toBe(plannedMapTokens);
    expect(estimateMessageTokens(reduces[0].body!.messages!)).toBeLessThanOrEqual(
      estimate.inputTokens - plannedMapTokens,
    );
    expect(answer.cost).toBeLessThanOrEqual(estimate.cost);
    // The reduce was streamed.
    expect(deltas.join('')).toBe(answer.text);
    expect(reduces[0].body?.stream).toBe(true);

    // The answer cites theme passages: each cited number is a passage of a mapped theme, whose text holds the
    // sentence the citation follows.
    expect(answer.cited.length).toBeGreaterThanOrEqual(2);
    const themePassages = new Set(themes.flatMap((t) => t.passages));
    for (const n of answer.cited) {
      const passage = planned.plan.maps.flatMap((m) => m.passages).find((p) => p.n === n)!;
      expect(themePassages.has(passage.chunkId)).toBe(true);
      const sentence = new RegExp(`([^\\]]*?)\\s*\\[${n}\\]`).exec(answer.text)![1].trim();
      expect(passage.text).toContain(sentence);
      const shown = answer.passages.find((p) => p.n === n)!;
      expect(shown.docTitle.length).toBeGreaterThan(0);
      expect(shown.end).toBeGreaterThan(shown.start);
    }
    // The theme whose map said nothing is not in the reduce.
    const gettysburg = planned.plan.maps.find((m) => /gettysburg/i.test(m.theme.label));
    if (gettysburg) expect(reduces[0].body!.messages![1].content).not.toContain(gettysburg.theme.label);
  });

  it('maps only the largest themes that hold κ of the text', async () => {
    const themes = (await source.themes!())!.themes;
    const small = estimateOf((await planOverSource(source, QUESTION, { kappa: 0.3 }))!);
    const all = estimateOf((await planOverSource(source, QUESTION, { kappa: 1 }))!);
    expect(small.themes).toBe(themesWithin(themes, 0.3).length);
    expect(small.themes).toBeLessThan(all.themes);
    expect(small.calls).toBeLessThan(all.calls);
    expect(small.inputTokens).toBeLessThan(all.inputTokens);
    const total = themes.reduce((s, t) => s + t.share, 0);
    expect(small.share).toBeGreaterThanOrEqual(0.3 * total - 1e-9);
    // One theme fewer would not hold κ.
    expect(small.share - themes[small.themes - 1].share).toBeLessThan(0.3 * total);
    expect(() => themesWithin(themes, 0)).toThrow(/κ must be in \(0, 1\]/);
    expect(chats()).toHaveLength(0);
  });
});
