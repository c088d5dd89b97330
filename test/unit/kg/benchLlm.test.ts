import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchKg, llmSettingsFromFlags, scoreAnswer } from '../../../src/cli/benchLlm.ts';
import { stripCitations } from '../../../src/core/metrics.ts';
import { LlmClient } from '../../../src/core/llm/client.ts';
import { RetrievalEngine } from '../../../src/core/retrieval/engine.ts';
import { createTermAnalyzer } from '../../../src/core/text/analyzer.ts';
import { openLibrary } from '../../../src/services/library/questionLibrary.ts';
import { openSource } from '../../../src/services/source/openSource.ts';
import { askLibrary } from '../../support/askOver.ts';
import type { ChunkRecord, SentenceRecord } from '../../../src/core/types.ts';
import {
  scriptedExtraction,
  startScriptedLlmServer,
  type ScriptedLlmServer,
} from '../../support/scriptedLlmServer.ts';

const texts = [
  'Ada Lovelace wrote the first program. She worked with Charles Babbage.',
  'Charles Babbage designed the Analytical Engine.',
  'Lord Byron was the father of Ada Lovelace.',
  'Paris is the capital of France.',
];
const chunks: ChunkRecord[] = texts.map((text, i) => ({
  id: `d${i}#0000#0000`,
  docId: `d${i}`,
  sectionIndex: 0,
  position: 0,
  order: 0,
  start: 0,
  end: text.length,
  text,
  tokens: 12,
  firstSentence: 0,
  sentenceCount: 1,
}));
const sentences: SentenceRecord[] = chunks.map((c) => ({
  id: `${c.docId}:000000`,
  docId: c.docId,
  chunkId: c.id,
  index: 0,
  start: 0,
  end: c.text.length,
  text: c.text,
}));

let server: ScriptedLlmServer;
let client: LlmClient;
beforeAll(async () => {
  server = await startScriptedLlmServer({
    answer: (question) => (question.includes('father') ? 'Lord Byron [1].' : 'Ada Lovelace [1][2].'),
  });
  client = new LlmClient({
    ...llmSettingsFromFlags({ 'llm-base-url': server.baseUrl, 'llm-model': 'scripted-model' })!,
  });
});
afterAll(() => server.close());

describe('bench LLM helpers', () => {
  it('reads the endpoint flags, or none', () => {
    expect(llmSettingsFromFlags({})).toBeUndefined();
    expect(() => llmSettingsFromFlags({ 'llm-base-url': 'http://x' })).toThrow(/model name is empty/);
  });

  it('strips citation markers before scoring', () => {
    expect(stripCitations('Ada Lovelace [1][2], born 1815 [3, 4].')).toBe('Ada Lovelace, born 1815.');
  });

  it('builds a core KG over the top κ chunks by rank and searches it in kg and hybrid modes', async () => {
    const engine = RetrievalEngine.build({ chunks, sentences }, createTermAnalyzer());
    const { chunkIds, chunkRank } = engine.graph;
    const library = openLibrary(
      {
        meta: undefined,
        documents: [],
        sections: [],
        chunks,
        sentences,
        vectors: new Map(),
        graph: undefined,
      },
      () => engine,
    );
    // The core chunks as the bench orders them (LibrarySource.buildOrder, the KG worker's order).
    const core = await (await openSource({ library }).buildOrder()).core(0.5);
    const kg = await benchKg(core, client);
    expect(kg.summary.kg).toEqual({ done: 2, failed: 0 });
    expect(kg.summary.calls).toBe(2);
    // Exactly the two best-ranked chunks were sent.
    const order = [...chunkIds]
      .map((id, i) => [id, chunkRank[i]] as const)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const top2 = order.slice(0, 2).map(([id]) => texts[Number(id[1])]);
    expect(server.extractionTexts().sort()).toEqual(top2.sort());
    // Ask about an entity of the best-ranked chunk: the KG path must return that chunk first.
    const name = scriptedExtraction(top2[0]).entities.at(-1)!.name;
    const question = `What is known about ${name}?`;
    // Searched as the bench searches it: kg and hybrid through ask(), over the library of the same chunks.
    const asked = (mode: 'kg' | 'hybrid') =>
      askLibrary(library, { question, mode, budget: 100 }, { kg: () => Promise.resolve(kg.index) });
    const hits = (await asked('kg')).evidence;
    expect(hits.map((h) => h.text)).toContain(top2[0]);
    expect(hits.every((h) => h.provenance.mode === 'kg')).toBe(true);
    const mixed = (await asked('hybrid')).evidence;
    expect(mixed.map((h) => h.provenance.mode)).toContain('hybrid');
    expect(mixed.reduce((s, h) => s + h.tokens, 0)).toBeLessThanOrEqual(100);
  });

  it('scores answers with EM and F1 against the aliases', async () => {
    const hits = [
      {
        chunkId: chunks[2].id,
        docId: 'd2',
        score: 1,
        text: texts[2],
        tokens: 12,
        provenance: { mode: 'ppr' },
        bestSentences: [],
      },
    ];
    const right = await scoreAnswer(client, 'Who was the father of Ada Lovelace?', hits, [
      'George Byron',
      'Lord Byron',
    ]);
    expect(right).toMatchObject({ em: 1, f1: 1, answer: 'Lord Byron [1].' });
    const wrong = await scoreAnswer(client, 'Who wrote the first program?', hits, ['Charles Babbage']);
    expect(wrong.em).toBe(0);
    expect(wrong.f1).toBe(0);
  });
});
