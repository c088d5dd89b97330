// The reasoning modes over a library read by ranges (src/services/questions/askPaged.ts): PIKE-RAG's decomposition
// (no atomic layer: it searches chunks) and KAG's logical solver (no KG: it reads passages) run their handlers over
// paged searches, against the scripted server on loopback. A paged search answers as the engine does, bit for bit,
// so the run (its trace, LLM calls, facts) and the evidence (chunks, best sentences, offsets) equal the same run over
// the library in memory: the expected values are computed here by the in-memory path, never copied from output.
// The modes that need a layer the pages lack (the KG, the atomic questions) or the library in memory are refused by
// name; a reasoning mode without an endpoint says so.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AtomicIndex } from '../../../../src/core/atomic/index.ts';
import type { LlmClient, TraceEvent } from '../../../../src/core/llm/index.ts';
import { askLibrary } from '../../../support/askOver.ts';
import { askPaged } from '../../../support/askOver.ts';
import type { AskRequest, AskResult } from '../../../../src/services/questions/queryProtocol.ts';
import { bothLibraries, type BothLibraries } from '../../../support/pagedLibraries.ts';
import { FILM_PASSAGES, LOTHAIR_PASSAGES } from '../../../support/passages.ts';
import { scriptedClient } from '../../../support/scriptedClient.ts';
import { kagResponder } from '../../../support/scriptedKag.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../../support/scriptedLlmServer.ts';
import { scriptedPike, type ScriptedPikeOptions } from '../../../support/scriptedPike.ts';
import { BENCH_DIR, missingSharedData } from '../../../support/sharedData.ts';
import { REPO_DOCS } from '../../../support/repoDocs.ts';

let work = '';
let server: ScriptedLlmServer;
let llm: LlmClient;
let small: BothLibraries;
let pike: ScriptedPikeOptions = {};

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'paged-reasoning-'));
  server = await startScriptedLlmServer({
    responders: [
      kagResponder(),
      scriptedPike({
        propose: (v) => (pike.propose ? pike.propose(v) : v.context.length ? [] : [v.question]),
        select: (v) =>
          pike.select ? pike.select(v) : { choice: v.candidates.length ? 1 : null, sufficient: false },
      }),
    ],
  });
  llm = scriptedClient(server);
  const file = join(work, 'passages.jsonl');
  await writeFile(file, [...LOTHAIR_PASSAGES, ...FILM_PASSAGES].map((p) => JSON.stringify(p)).join('\n'));
  small = await bothLibraries(file);
});
afterAll(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});
beforeEach(() => {
  server.reset();
  pike = {};
});

/** What must be equal between the two runs: the evidence as the Ask view gets it, the run's steps and calls. */
function comparable(result: AskResult) {
  return {
    evidence: result.evidence.map((e) => ({
      chunkId: e.chunkId,
      docId: e.docId,
      chunkStart: e.chunkStart,
      text: e.text,
      bestSentences: e.bestSentences,
      provenance: e.provenance,
      relevance: e.relevance,
    })),
    trace: (result.trace ?? []).map((e) => ({
      round: e.round,
      kind: e.kind,
      title: e.title,
      items: e.items,
    })),
    facts: result.facts,
    calls: result.usage?.calls,
    chatRequests: 0,
  };
}

/**
 * One request over both libraries: the in-memory run first, then the paged one, each with its LLM calls counted;
 * `atomic`: the library's atomic questions, given to both (as the query worker gives the tab's own).
 */
async function both(libraries: BothLibraries, request: AskRequest, atomic?: AtomicIndex) {
  const chats = () => server.requests.filter((r) => r.path === '/v1/chat/completions').length;
  const noKg = () => Promise.reject(new Error('no knowledge graph in this library'));
  const layer = atomic ? { atomic: () => Promise.resolve(atomic) } : {};
  const before = chats();
  const memory = await askLibrary(libraries.library, request, { kg: noKg, llm: async () => llm, ...layer });
  const between = chats();
  const events: TraceEvent[] = [];
  const paged = await askPaged(libraries.paged, request, {
    llm: async () => llm,
    onTrace: (e) => events.push(e),
    ...layer,
  });
  const after = chats();
  return {
    memory: { ...comparable(memory), chatRequests: between - before },
    paged: { ...comparable(paged), chatRequests: after - between },
    pagedResult: paged,
    events,
  };
}

describe('reasoning modes over pages', () => {
  it('decompose follows the hops over paged searches, as over the library in memory', async () => {
    // A model that reads the context: after the first hop it asks about the mother the passage names.
    pike.propose = (v) =>
      v.context.length === 0
        ? ['Who was the mother of Lothair II']
        : v.context.some((c) => c.includes('Ermengarde of Tours')) && v.context.length < 2
          ? ['When did Ermengarde of Tours die']
          : [];
    const run = await both(small, {
      question: 'When did the mother of Lothair II die?',
      mode: 'decompose',
      budget: 4000,
    });
    expect(run.paged).toEqual(run.memory);
    // The hops were followed: Lothair II's passage, then his mother's (the in-memory run says what is right; this
    // says the run did something worth comparing).
    const texts = run.pagedResult.evidence.map((e) => e.text);
    expect(texts.some((t) => t.includes('His mother was Ermengarde of Tours'))).toBe(true);
    expect(texts.some((t) => t.includes('died on 20 March 851'))).toBe(true);
    expect(run.pagedResult.trace![1].title).toMatch(/chunks by ppr/);
    // The run's steps were streamed as they happened, and its searches' reads summed.
    expect(run.events.map((e) => e.kind)).toEqual(run.pagedResult.trace!.map((e) => e.kind));
    expect(run.pagedResult.reads.rounds).toBeGreaterThan(0);
  });

  it('logical reads passages (the pages hold no KG) and establishes the answer from them', async () => {
    const run = await both(small, {
      question: 'Which film came out first, Alpha Dawn or Beta Storm?',
      mode: 'logical',
      budget: 3000,
    });
    expect(run.paged).toEqual(run.memory);
    expect(run.pagedResult.trace![0]).toMatchObject({
      kind: 'kg',
      title: 'No knowledge graph: every retrieval step reads passages',
    });
    expect(run.pagedResult.facts?.[0]).toBe('Answer established by the logical-form solver: Beta Storm');
    // The passages the steps read are the evidence: both films', which state the dates.
    expect(run.pagedResult.evidence.map((e) => e.docTitle).sort()).toEqual(['Alpha Dawn', 'Beta Storm']);
    expect(run.pagedResult.evidence.every((e) => e.provenance.via === 'passage read for a step')).toBe(true);
  });

  it('atomic and decompose read the atomic questions beside the pages, as in memory', async () => {
    // Atomic questions as the atomizer writes them: about a chunk, in words the chunk need not contain.
    const chunkOf = (words: string) =>
      [...small.library.chunks.values()].find((c) => small.library.documents.get(c.docId)?.title === words)!;
    const questions = [
      ['Lothair II', 'Who was the mother of the king Lothair II?'],
      ['Ermengarde of Tours', 'When did the queen mother Ermengarde die?'],
      ['Port of Spain', 'Which harbour town hosts the parliament of the island nation?'],
      ['Ann Lee', 'Where and when was the film director Ann Lee born?'],
    ].map(([title, text], i) => {
      const chunk = chunkOf(title);
      return { id: `q${i}`, chunkId: chunk.id, docId: chunk.docId, text };
    });
    const atomic = new AtomicIndex(questions);
    const run = await both(
      small,
      {
        question: 'Which harbour town hosts the parliament of the island nation?',
        mode: 'atomic',
        budget: 60,
      },
      atomic,
    );
    expect(run.paged).toEqual(run.memory);
    // The atomic path brought a chunk the direct search did not (read by id from the pages): it names its question.
    const direct = await askPaged(small.paged, {
      question: 'Which harbour town hosts the parliament of the island nation?',
      mode: 'ppr',
      budget: 60,
    });
    const viaAtomic = run.pagedResult.evidence.filter(
      (e) => e.provenance.mode === 'atomic' && !direct.evidence.some((d) => d.chunkId === e.chunkId),
    );
    expect(viaAtomic.map((e) => [e.docTitle, e.provenance.via])).toEqual([
      ['Port of Spain', 'Which harbour town hosts the parliament of the island nation?'],
    ]);

    // decompose searches the atomic questions, and its context is the chunks of those the model picked.
    pike.propose = (v) =>
      v.context.length === 0
        ? ['Who was the mother of the king Lothair II']
        : v.context.length < 2
          ? ['When did the queen mother Ermengarde die']
          : [];
    const hops = await both(
      small,
      { question: 'When did the mother of Lothair II die?', mode: 'decompose', budget: 4000 },
      atomic,
    );
    expect(hops.paged).toEqual(hops.memory);
    expect(hops.pagedResult.trace![1].title).toMatch(/atomic questions/);
    expect(hops.pagedResult.evidence.map((e) => e.docTitle)).toEqual(['Lothair II', 'Ermengarde of Tours']);
  });

  it('refuses the modes that need what pages lack, and a reasoning mode without an endpoint', async () => {
    const ask = (mode: AskRequest['mode']) =>
      askPaged(small.paged, { question: 'When did the mother of Lothair II die?', mode, budget: 2000 });
    const needs = {
      kg: 'a knowledge graph, which this library has not',
      hybrid: 'a knowledge graph, which this library has not',
      atomic: 'atomic questions, which this library has not',
      dense: 'the library in memory',
    };
    for (const [mode, need] of Object.entries(needs))
      await expect(ask(mode as AskRequest['mode']), mode).rejects.toThrow(
        `mode ${mode} needs ${need}; a library read by ranges answers the default mode, concept, bm25, rrf:ppr+bm25, decompose and logical`,
      );
    await expect(ask('decompose')).rejects.toThrow('mode decompose needs an LLM endpoint');
    expect(server.requests).toEqual([]);
  });

  it('decompose over the frozen copy of this repository’s docs (chunks deep in long documents): the same run as in memory', async () => {
    const docs = await bothLibraries(REPO_DOCS);
    pike.propose = (v) =>
      v.context.length === 0 ? ['How is a bundle read by ranges?'] : ['Which blocks does a question read?'];
    const run = await both(docs, {
      question: 'How does the app open a bundle by HTTP ranges, and what does a question read?',
      mode: 'decompose',
      budget: 6000,
      reasoning: { maxRounds: 2 },
    });
    expect(run.paged).toEqual(run.memory);
    // Chunks past the start of their document, so the sentences' offsets into the chunk text are checked.
    expect(run.paged.evidence.filter((e) => e.chunkStart > 0).length).toBeGreaterThan(0);
    expect(run.paged.evidence.every((e) => e.bestSentences.length > 0)).toBe(true);
  }, 120_000);

  const musique = `${BENCH_DIR}/musique/corpus.jsonl`;
  const skip = missingSharedData(musique, 'decompose over 1,500 MuSiQue passages by pages');
  it.skipIf(skip !== null)(
    'decompose over 1,500 MuSiQue passages: the same run from the pages as in memory',
    async () => {
      const large = await bothLibraries(musique, 1500);
      // The scripted model's default: the question itself, then one proposal per new name of the context.
      pike.propose = undefined;
      const run = await both(large, {
        question: 'Who is the spouse of the performer of the song that was released in 1957?',
        mode: 'decompose',
        budget: 6000,
        reasoning: { maxRounds: 3 },
      });
      expect(run.paged).toEqual(run.memory);
      expect(run.paged.evidence.length).toBeGreaterThan(0);
    },
    120_000,
  );
});
