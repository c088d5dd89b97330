// Mode `logical` through the app's own askLibrary: a library of the fixture texts, its KG built by the real build
// with the scripted extraction (release dates become attributes), the question planned by the scripted planner.
// The run's trace, facts, LLM usage and evidence are what the Ask view and the written answer get: the chunks
// behind the triples, with the sentences that state the dates as their best sentences (what the answer cites).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KgIndex, MemoryKgStore } from '../../../src/core/kg/index.ts';
import type { LlmClient } from '../../../src/core/llm/index.ts';
import { askLibrary } from '../../support/askOver.ts';
import type { QuestionLibrary } from '../../../src/services/library/questionLibrary.ts';
import { buildKgOnly } from '../../support/buildKgOnly.ts';
import { kagResponder } from '../../support/scriptedKag.ts';
import { libraryOf, preparePassages } from '../../support/passages.ts';
import { scriptedClient } from '../../support/scriptedClient.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scriptedLlmServer.ts';

const PASSAGES = [
  {
    id: 'a',
    title: 'Alpha Dawn',
    text: 'Alpha Dawn is a film released on 12 March 1994. Its director is Ann Lee.',
  },
  {
    id: 'b',
    title: 'Beta Storm',
    text: 'Beta Storm is a film released on 5 June 1990. Its director is Bo Kim.',
  },
  { id: 'c', title: 'Ann Lee', text: 'Ann Lee was born on 14 April 1950 in Springfield.' },
];

let server: ScriptedLlmServer;
let library: QuestionLibrary;
let kg: KgIndex;
let llm: LlmClient;

beforeAll(async () => {
  server = await startScriptedLlmServer({ responders: [kagResponder()] });
  llm = scriptedClient(server);
  const documents = await preparePassages(PASSAGES);
  const chunks = documents.flatMap((d) => d.chunks);
  library = libraryOf(documents);
  const store = new MemoryKgStore();
  await buildKgOnly({
    chunks: chunks.map((c) => ({ id: c.id, docId: c.docId, text: c.text ?? '' })),
    store,
    client: llm,
  });
  kg = new KgIndex(await store.entities(), await store.relations());
});
afterAll(() => server.close());

describe('mode logical through askLibrary', () => {
  it('answers a comparison from the KG, traces plan and steps, and cites the sentences behind the triples', async () => {
    server.reset();
    const events: string[] = [];
    const result = await askLibrary(
      library,
      { question: 'Which film came out first, Alpha Dawn or Beta Storm?', mode: 'logical', budget: 3000 },
      { kg: async () => kg, llm: async () => llm, onTrace: (e) => events.push(`${e.mode}:${e.kind}`) },
    );
    expect(events).toEqual([
      'logical:plan',
      'logical:step',
      'logical:step',
      'logical:step',
      'logical:answer',
    ]);
    expect(result.trace?.map((e) => e.kind)).toEqual(['plan', 'step', 'step', 'step', 'answer']);
    // Beta Storm (1990-06-05) came out before Alpha Dawn (1994-03-12): sorted in code, stated as a fact.
    expect(result.facts?.[0]).toBe('Answer established by the logical-form solver: Beta Storm');
    expect(result.facts).toContain('Beta Storm — release date: 1990-06-05');
    // One call: the plan; the KG had both dates, so no passage reading and no reflection.
    expect(result.usage?.calls).toBe(1);
    // The evidence: the two chunks that state the dates, each citing the sentence that does.
    const cited = result.evidence.map((e) => {
      const doc = library.documents.get(e.docId)!;
      return e.bestSentences.map((s) => doc.text.slice(s.start, s.end))[0];
    });
    expect(cited.sort()).toEqual([
      'Alpha Dawn is a film released on 12 March 1994.',
      'Beta Storm is a film released on 5 June 1990.',
    ]);
    expect(result.evidence.every((e) => e.provenance.mode === 'logical')).toBe(true);
    expect(result.evidence[0].provenance.via).toMatch(/^triple \(Alpha Dawn, release date, 1994-03-12\)$/);
  });

  it('refuses without an endpoint, naming the mode', async () => {
    await expect(
      askLibrary(
        library,
        { question: 'Which came first?', mode: 'logical', budget: 3000 },
        { kg: async () => kg },
      ),
    ).rejects.toThrow('mode logical needs an LLM endpoint');
  });
});
