// The KG build of a large library answered from its pages (src/services/llm/kgBuild.ts, rankFromPages): its chunks
// are ranked from the pages (buildOrder in degreeRanks.ts: the concepts' weighted degree in place of PageRank) and its
// core chunks' texts read from them, so the KG worker never loads the library; the estimate counts the tokens the
// chunker counted. The expected order is computed here from the engine's own table over the same passages, never
// copied from output; the build runs against the scripted server on loopback, and the query service then answers
// `kg` and `atomic` from the pages with what it wrote.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateDistillCost } from '../../../../src/core/atomic/index.ts';
import { weightedDegreesFromTable } from '../../../../src/core/graph/cooccurrence.ts';
import { coreCount } from '../../../../src/core/kg/index.ts';
import { LlmClient } from '../../../../src/core/llm/index.ts';
import { buildOrder } from '../../../../src/core/paged/index.ts';
import { prepareFile } from '../../../../src/core/prepare.ts';
import { SENTENCE_VECTORS_SETTING } from '../../../../src/services/ingest/ingestProtocol.ts';
import { writeLibraryPages } from '../../../../src/services/ingest/pagesWrite.ts';
import { PAGES_MIN_CHUNKS_SETTING } from '../../../../src/services/library/pagesThreshold.ts';
import { loadEngine } from '../../../../src/services/library/engine.ts';
import { openStoredPages } from '../../../../src/services/library/storedPages.ts';
import { KgBuildService } from '../../../../src/services/llm/kgBuild.ts';
import { LLM_SETTINGS_KEY } from '../../../../src/services/llm/llmSettings.ts';
import { DexieAtomicStore } from '../../../../src/store/atomicStore.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { DexieKgStore } from '../../../../src/store/kgStore.ts';
import { Repo } from '../../../../src/store/repo.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../../support/scriptedLlmServer.ts';
import { scriptedPike } from '../../../support/scriptedPike.ts';
import { storedPagesQueryService } from '../../../support/storedPagesQueryService.ts';
import { pagesLagging } from '../../../support/pagesLagging.ts';

/** The first 300 MuSiQue passages, vendored from ../shared/bench. */
const CORPUS = fileURLToPath(new URL('../../../fixtures/musique-300/corpus.jsonl', import.meta.url));

let server: ScriptedLlmServer;
beforeAll(async () => {
  server = await startScriptedLlmServer({ responders: [scriptedPike()] });
});
afterAll(() => server.close());

/**
 * The 300 passages stored as the ingest worker stores them (threshold lowered to 1), with their pages written after
 * the first `paged` of them (all by default; none: a large library awaiting its first pages).
 */
async function pagedRepo(paged = Infinity): Promise<Repo> {
  const repo = new Repo(openDatabase('kg-pages', { indexedDB: new IDBFactory(), IDBKeyRange }));
  await repo.setSetting(SENTENCE_VECTORS_SETTING, false);
  await repo.setSetting(PAGES_MIN_CHUNKS_SETTING, 1);
  const prepared = await prepareFile('passages.jsonl', new Uint8Array(readFileSync(CORPUS)), {
    maxChunkTokens: 1200,
  });
  const documents = prepared.documents.map((p) => ({ prepared: p }));
  await repo.putPreparedDocuments(documents.slice(0, paged));
  if (paged > 0) expect((await writeLibraryPages(repo)).stored).toBe(true);
  if (paged < documents.length) await repo.putPreparedDocuments(documents.slice(paged));
  return repo;
}

/**
 * The KG build service over `repo`, its stores, and the times it loaded the library (`loadCorpus` loads it without
 * being counted).
 */
function kgService(repo: Repo) {
  let loads = 0;
  const loadCorpus = repo.loadCorpus.bind(repo);
  repo.loadCorpus = () => {
    loads += 1;
    return loadCorpus();
  };
  const store = new DexieKgStore(repo.db);
  const atomicStore = new DexieAtomicStore(repo.db);
  const kg = new KgBuildService({
    repo,
    store,
    atomicStore,
    embedders: {
      get: () => Promise.reject(new Error('no embedder in this test')),
      dispose: () => Promise.resolve(),
    },
    llmClient: (s) => new LlmClient(s, { backoff: { baseMs: 5, maxMs: 20 } }),
    lock: { tryRun: async (run) => ({ ran: true as const, value: await run() }) },
  });
  return { kg, store, atomicStore, loadCorpus, loads: () => loads };
}

describe('the KG build of a library answered from its pages', () => {
  it('pages that lag behind the library (a drop goes on) are ranked as they are; none yet is refused, not loaded', async () => {
    // 250 passages paged, 50 added since: the estimate ranks the pages' chunks.
    const lagging = await pagedRepo(250);
    const stored = await openStoredPages(lagging.db);
    if (!stored || 'awaiting' in stored) throw new Error('no pages');
    expect(await pagesLagging(lagging.db, stored)).toBe(true);
    const paged = kgService(lagging);
    const estimate = await paged.kg.estimate(0.2, { kg: true, atomic: false });
    expect(estimate.selected.chunks).toBe(coreCount(stored.chunks, 0.2));
    expect(stored.chunks).toBeLessThan(await lagging.db.chunks.count());
    expect(paged.loads(), 'the estimate loaded the library').toBe(0);

    // A large library whose first pages are not written: refused with the reason, never loaded.
    const awaiting = kgService(await pagedRepo(0));
    await expect(awaiting.kg.estimate(0.2, { kg: true, atomic: false })).rejects.toThrow(
      /^KG: .*paged index.*and that index is being written \("writing the paged index" in the Library view\)/,
    );
    expect(awaiting.loads(), 'the estimate loaded the library').toBe(0);
    expect(server.requests).toHaveLength(0);
  }, 120_000);

  it('ranks and reads its core chunks from the pages, never loading the library, and kg and atomic answer', async () => {
    const repo = await pagedRepo();
    const { kg, store, atomicStore, loadCorpus, loads } = kgService(repo);
    await repo.setSetting(LLM_SETTINGS_KEY, {
      baseUrl: server.baseUrl,
      model: 'scripted-model',
      apiKey: '',
      priceInPerM: 1,
      priceOutPerM: 2,
      concurrency: 2,
    });

    // What the order must be: the engine's table over the same stored library, each chunk's concepts' weighted
    // degree over their chunk counts, highest first.
    const corpus = await loadCorpus();
    const { graph } = loadEngine(corpus);
    const degrees = weightedDegreesFromTable(graph.table, graph.options.thetaCo);
    const { table } = graph;
    const rank = (k: number) => {
      let sum = 0;
      for (let j = table.chunkConceptOffsets[k]; j < table.chunkConceptOffsets[k + 1]; j++) {
        const c = table.chunkConcepts[j];
        sum += degrees[c] / (table.conceptChunkOffsets[c + 1] - table.conceptChunkOffsets[c]);
      }
      return sum;
    };
    const expected = graph.chunkIds
      .map((id, k) => ({ id, rank: rank(k) }))
      .sort((a, b) => b.rank - a.rank)
      .map((c) => c.id);
    const stored = await openStoredPages(repo.db);
    if (!stored || 'awaiting' in stored) throw new Error('no pages');
    const { order } = await buildOrder(stored.library.reader);
    const records = await stored.library.reader.recordsAt(Array.from(order));
    expect(records.map((r) => r.id)).toEqual(expected);
    // It stands for PageRank's order: most of the core chunks are the same (93-99% on the shared sets).
    const byPageRank = graph.chunkIds
      .map((id, k) => ({ id, rank: graph.chunkRank[k] }))
      .sort((a, b) => b.rank - a.rank)
      .map((c) => c.id);
    const core = coreCount(expected.length, 0.2);
    const shared = expected.slice(0, core).filter((id) => byPageRank.slice(0, core).includes(id)).length;
    expect(shared / core).toBeGreaterThan(0.85);

    // The estimate counts the chunker's tokens of the same chunks, in that order: the counts of their texts.
    const byId = new Map(corpus.chunks.map((c) => [c.id, c]));
    const estimate = await kg.estimate(0.2, { kg: true, atomic: true });
    const [selected] = estimateDistillCost(
      expected.map((id) => ({ text: byId.get(id)!.text })),
      [0.2],
      { kinds: { kg: true, atomic: true }, onePass: true, priceInPerM: 1, priceOutPerM: 2 },
    );
    expect(estimate.selected).toEqual(selected);
    expect(estimate.pendingCalls).toBe(core);
    expect(server.requests).toHaveLength(0);

    // The build sends exactly those core chunks' texts, once each (one pass: both parts in one call).
    const built = await kg.build({ kappa: 0.2, parts: { kg: true, atomic: true } });
    expect(built).toMatchObject({ selected: core, done: core, failed: 0, calls: core });
    const sent = server.requests.map((r) => r.body?.messages?.at(-1)?.content ?? '');
    for (const id of expected.slice(0, core))
      expect(
        sent.filter((m) => m.includes(byId.get(id)!.text)),
        id,
      ).toHaveLength(1);
    expect((await store.states()).map((s) => s.chunkId).sort()).toEqual(expected.slice(0, core).sort());
    expect(loads(), 'the KG build loaded the library').toBe(0);

    // Asked from the pages: kg through the entities it wrote, atomic through its questions.
    const service = storedPagesQueryService(repo, {
      kgStore: store,
      atomicStore,
      loadCorpus: repo.loadCorpus,
    });
    const first = byId.get(expected[0])!;
    const question = first.text.split(/\s+/).slice(0, 12).join(' ');
    const coreIds = new Set(expected.slice(0, core));
    const kgAnswer = await service.ask({ question, mode: 'kg', budget: 3000 });
    expect(kgAnswer.from).toBe('pages');
    // The KG covers the core chunks only: its evidence is theirs, and its entities and relations come with it.
    expect(kgAnswer.evidence.length).toBeGreaterThan(0);
    expect(kgAnswer.evidence.filter((e) => !coreIds.has(e.chunkId))).toEqual([]);
    expect(kgAnswer.kg?.entities.length).toBeGreaterThan(0);
    const atomicAnswer = await service.ask({ question, mode: 'atomic', budget: 3000 });
    expect(atomicAnswer.from).toBe('pages');
    // The top chunk's own atomic question (one per sentence: "What about …?") leads to it.
    expect(
      atomicAnswer.evidence.some((e) => e.chunkId === first.id && e.provenance.via?.startsWith('What about')),
    ).toBe(true);
    expect(loads(), 'the query service loaded the library').toBe(0);

    // Built on to κ 0.6: 120 more core chunks, whose texts the pages give a batch at a time as the build reaches
    // them (two batches), each sent once, none of the κ 0.2 chunks again.
    server.reset();
    const wider = coreCount(expected.length, 0.6);
    const more = await kg.build({ kappa: 0.6, parts: { kg: true, atomic: true } });
    expect(more).toMatchObject({ selected: wider, skipped: core, done: wider - core, calls: wider - core });
    const sentMore = server.requests.map((r) => r.body?.messages?.at(-1)?.content ?? '');
    for (const id of expected.slice(0, wider))
      expect(
        sentMore.filter((m) => m.includes(byId.get(id)!.text)),
        id,
      ).toHaveLength(coreIds.has(id) ? 0 : 1);
    expect(loads(), 'the KG build loaded the library').toBe(0);
  }, 120_000);
});
