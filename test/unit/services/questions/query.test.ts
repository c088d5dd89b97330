// The query service over a real library in fake-indexeddb (indexed by the ingest pipeline, KG built by the KG build
// service against the scripted LLM server on loopback): every mode through one `ask` from one loaded engine, the
// KG reloaded alone after a build, a streamed answer whose citation points at its sentence in the document, cancel,
// and the refusals (unknown mode, no endpoint, building over a read-only bundle).
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LlmClient } from '../../../../src/core/llm/client.ts';
import type { LlmSettings } from '../../../../src/core/llm/settings.ts';
import { prepareFile } from '../../../../src/core/prepare.ts';
import type { RetrievalEngine } from '../../../../src/core/retrieval/engine.ts';
import type { Embedder } from '../../../../src/core/types.ts';
import { openDatabase, type ConceptDb } from '../../../../src/store/db.ts';
import { exportLibraryBlob } from '../../../../src/store/bundleExport.ts';
import { openBundleReadOnly } from '../../../../src/services/bundleBytes/bundleFetch.ts';
import { DexieKgStore } from '../../../../src/store/kgStore.ts';
import { Repo, type LoadedCorpus } from '../../../../src/store/repo.ts';
import { loadEngine } from '../../../../src/services/library/engine.ts';
import { rebuildConceptGraph } from '../../../support/fullGraphBuild.ts';
import { IngestPipeline } from '../../../../src/services/ingest/ingestPipeline.ts';
import { KgBuildService } from '../../../../src/services/llm/kgBuild.ts';
import { QueryService } from '../../../../src/services/query/queryService.ts';
import {
  scriptedEmbedding,
  startScriptedLlmServer,
  type ScriptedLlmServer,
} from '../../../support/scriptedLlmServer.ts';

const DOCUMENTS: Record<string, string> = {
  'lovelace.txt':
    'Ada Lovelace wrote the first published program for the Analytical Engine in 1843. She translated an article by Luigi Menabrea.',
  'babbage.txt':
    'Charles Babbage designed the Analytical Engine in London. His earlier Difference Engine was never finished. He also wrote on the economy of machinery.',
  'turin.txt': 'Turin is a city in northern Italy. Babbage presented his engine there in 1840.',
  'somerville.txt':
    'Mary Somerville introduced Ada Lovelace to Charles Babbage. She was a Scottish scientist and writer.',
};
const QUESTION = 'Who wrote the first published program for the Analytical Engine?';

/** Character-trigram vectors (unit length): texts that share words are close, so the dense layer is real. */
function trigramEmbedder(): Embedder {
  const dimension = 64;
  return {
    id: 'trigram@64',
    dimension,
    async embed(texts) {
      const out = new Float32Array(texts.length * dimension);
      texts.forEach((t, i) => {
        const v = scriptedEmbedding(t, dimension);
        const n = Math.hypot(...v) || 1;
        v.forEach((x, j) => (out[i * dimension + j] = x / n));
      });
      return out;
    },
  };
}

/** An embedder holder that counts the models it loads (one per choice, as EmbedderHolder memoizes). */
function countingHolder() {
  let loaded: Embedder | null = null;
  const holder = {
    loads: 0,
    async get() {
      if (!loaded) {
        holder.loads += 1;
        loaded = trigramEmbedder();
      }
      return loaded;
    },
    async dispose() {
      loaded = null;
    },
  };
  return holder;
}

let server: ScriptedLlmServer;
let db: ConceptDb;
let repo: Repo;

const settings = (): LlmSettings => ({
  baseUrl: server.baseUrl,
  model: 'scripted-model',
  apiKey: 'sk-test-key',
  priceInPerM: 0,
  priceOutPerM: 0,
  concurrency: 2,
});
const llmClient = (s: LlmSettings) => new LlmClient(s, { backoff: { baseMs: 5, maxMs: 20 }, maxRetries: 0 });

const ORIGIN = 'http://app.test';

/** A query service over `db` that counts engine builds, corpus loads and KG index loads; `bundles` are served. */
function queryService(bundles: Record<string, Blob> = {}) {
  const counts = { engines: 0, corpusLoads: 0, kgLoads: 0 };
  const embedders = countingHolder();
  const kgStore = new DexieKgStore(db);
  const service = new QueryService({
    library: {
      loadCorpus: () => {
        counts.corpusLoads += 1;
        return repo.loadCorpus();
      },
      getSetting: (key) => repo.getSetting(key),
      getMeta: () => repo.getMeta(),
    },
    kgStore: {
      entities: () => {
        counts.kgLoads += 1;
        return kgStore.entities();
      },
      relations: () => kgStore.relations(),
    },
    embedders,
    openBundle: (url) =>
      openBundleReadOnly(url, ORIGIN, async (input) => {
        const blob = bundles[new URL(String(input)).pathname];
        return blob ? new Response(blob) : new Response('missing', { status: 404, statusText: 'Not Found' });
      }),
    llmClient,
    loadEngine: (corpus: LoadedCorpus): RetrievalEngine => {
      counts.engines += 1;
      return loadEngine(corpus);
    },
  });
  return { service, counts, embedders };
}

function kgBuildService() {
  return new KgBuildService({
    repo,
    store: new DexieKgStore(db),
    embedders: countingHolder(),
    llmClient,
    lock: { tryRun: async (run) => ({ ran: true as const, value: await run() }) },
  });
}

beforeAll(async () => {
  server = await startScriptedLlmServer();
});
afterAll(() => server.close());

/**
 * Indexes `documents` into `target` as the ingest worker does (parse, embed, store, concept graph); `rebuildGraph`
 * that does nothing leaves them stored ahead of the graph, as a drop between two refreshes.
 */
async function index(
  target: Repo,
  documents: Record<string, string> = DOCUMENTS,
  rebuildGraph = rebuildConceptGraph,
): Promise<void> {
  const embedder = trigramEmbedder();
  const pipeline = new IngestPipeline({
    repo: target,
    prepare: (name, bytes, options) => prepareFile(name, bytes, { maxChunkTokens: options.maxChunkTokens }),
    embedder: async () => embedder,
    rebuildGraph,
    emit: () => undefined,
  });
  await pipeline.enqueue(
    Object.entries(documents).map(([name, text]) => ({
      name,
      bytes: new TextEncoder().encode(text).buffer as ArrayBuffer,
    })),
  );
  await pipeline.ensureRunning();
}

beforeEach(() => {
  server.reset();
  db = openDatabase('query-test', { indexedDB: new IDBFactory(), IDBKeyRange });
  repo = new Repo(db);
});

describe('QueryService', () => {
  it('answers ppr, kg and hybrid from one engine and one question embedder; a KG build reloads only the KG', async () => {
    await index(repo);
    const { service, counts, embedders } = queryService();
    const ppr = await service.ask({ question: QUESTION, mode: 'ppr', budget: 2000 });
    expect(ppr.layers).toEqual({ lexical: true, semantic: true });
    expect(ppr.evidence[0].docTitle).toBe('lovelace');
    expect(ppr.kg).toBeUndefined();

    // No KG yet: the KG path finds nothing and hybrid falls back on the concept path.
    const before = await service.ask({ question: QUESTION, mode: 'hybrid', budget: 2000 });
    expect(before.kg?.entities).toEqual([]);
    expect(before.evidence.map((e) => e.provenance.paths)).toContainEqual(['concept']);

    const kgBuild = kgBuildService();
    await kgBuild.saveSettings(settings());
    const built = await kgBuild.build({ kappa: 1 });
    expect(built.done).toBe(Object.keys(DOCUMENTS).length);
    // What the page does after a build (src/ui/llm/api.ts): the query worker reloads its KG, not its library.
    service.invalidate('kg');

    const kg = await service.ask({ question: QUESTION, mode: 'kg', budget: 2000 });
    expect(kg.kg?.entities.map((e) => e.name)).toContain('Ada Lovelace');
    expect(kg.evidence.length).toBeGreaterThan(0);
    expect(kg.evidence.every((e) => e.provenance.mode === 'kg' && e.provenance.entities?.length)).toBe(true);

    const hybrid = await service.ask({ question: QUESTION, mode: 'hybrid', budget: 2000 });
    expect(hybrid.evidence[0].docTitle).toBe('lovelace');
    expect(hybrid.evidence[0].provenance.paths).toEqual(['concept', 'kg']);
    expect(hybrid.kg?.relations.length).toBeGreaterThan(0);

    expect(counts).toEqual({ engines: 1, corpusLoads: 1, kgLoads: 2 });
    expect(embedders.loads).toBe(1);

    // The page says the library changed, but the store holds the library already loaded (the page's stamp moved
    // after the worker's load had read the change): the index record tells so, and nothing is read again.
    service.invalidate();
    await service.ask({ question: QUESTION, mode: 'bm25', budget: 2000 });
    expect(counts).toEqual({ engines: 1, corpusLoads: 1, kgLoads: 2 });

    // Documents changed: everything is loaded again, once.
    await index(repo, { 'hopper.txt': 'Grace Hopper wrote the first compiler, the A-0 system, in 1952.' });
    service.invalidate();
    const changed = await service.ask({
      question: 'Who wrote the first compiler?',
      mode: 'bm25',
      budget: 2000,
    });
    expect(changed.evidence[0].docTitle).toBe('hopper');
    await service.ask({ question: QUESTION, mode: 'kg', budget: 2000 });
    expect(counts).toEqual({ engines: 2, corpusLoads: 2, kgLoads: 3 });
  });

  it('streams a cited answer whose citation is the supporting sentence in the document', async () => {
    await index(repo);
    const { service } = queryService();
    await repo.setSetting('llm', settings());
    const result = await service.ask({ question: QUESTION, mode: 'ppr', budget: 2000 });
    const deltas: string[] = [];
    const answer = await service.answer({ question: QUESTION, evidence: result.evidence }, (d) =>
      deltas.push(d),
    );
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(answer.text);
    expect(answer.noAnswer).toBe(false);
    const [citation] = answer.citations;
    expect(citation.n).toBe(1);
    const doc = await repo.db.documents.get(citation.docId);
    expect(doc?.title).toBe('lovelace');
    expect(doc?.text.slice(citation.start, citation.end)).toBe(citation.sentence);
    expect(citation.sentence).toContain('Ada Lovelace wrote the first published program');
    const chat = server.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(chat).toHaveLength(1);
    expect(chat[0].authorization).toBe('Bearer sk-test-key');
  });

  it('cites the right sentence of a passage cut to its best sentences (offsets from the excerpt, not the chunk)', async () => {
    await index(repo);
    await repo.setSetting('llm', settings());
    const { service } = queryService();
    // The middle sentence of a three-sentence passage, shorter than the first one.
    const question = 'Was the Difference Engine ever finished?';
    const result = await service.ask({ question, mode: 'bm25', budget: 12 });
    const [first] = result.evidence;
    expect(first.excerpt).toBe(true);
    expect(first.text).toBe('His earlier Difference Engine was never finished.');
    const answer = await service.answer({ question, evidence: [first] });
    const [citation] = answer.citations;
    const doc = await repo.db.documents.get(citation.docId);
    expect(citation.sentence).toBe(first.text);
    expect(doc?.text.slice(citation.start, citation.end)).toBe(first.text);
  });

  it('cancels an answer in flight, refuses unknown modes and asks for an endpoint before answering', async () => {
    await index(repo);
    const { service } = queryService();
    const result = await service.ask({ question: QUESTION, mode: 'dense', budget: 2000 });
    await expect(service.answer({ question: QUESTION, evidence: result.evidence })).rejects.toThrow(
      /no endpoint configured/,
    );
    await expect(
      service.ask({ question: QUESTION, mode: 'pagerank' as 'ppr', budget: 2000 }),
    ).rejects.toThrow(/unknown mode "pagerank"/);

    await repo.setSetting('llm', settings());
    server.script({ kind: 'stall', afterDeltas: 1 });
    const started = service.answer({ question: QUESTION, evidence: result.evidence });
    while (!server.requests.some((r) => r.path === '/v1/chat/completions')) {
      await new Promise((r) => setTimeout(r, 10));
    }
    service.cancelAnswer();
    await expect(started).rejects.toThrow(/cancel|abort/i);
  });

  it('reloads when the stored graph was written since its library loaded, even before the page says so', async () => {
    await index(repo);
    const { service, counts } = queryService();
    await service.ask({ question: QUESTION, mode: 'ppr', budget: 2000 });
    // Vectors or settings written, the graph not: the library stays.
    await repo.setSetting('unrelated', 1);
    await service.ask({ question: QUESTION, mode: 'bm25', budget: 2000 });
    expect(counts.corpusLoads).toBe(1);
    // The graph written again (here only its counts, as a rebuild that added the semantic layer changes them),
    // with no invalidate from the page: the next question loads the library again, once.
    const meta = (await repo.getMeta())!;
    await db.meta.put({ ...meta, edges: meta.edges + 1 });
    const after = await service.ask({ question: QUESTION, mode: 'ppr', budget: 2000 });
    expect(after.evidence[0].docTitle).toBe('lovelace');
    await service.ask({ question: QUESTION, mode: 'bm25', budget: 2000 });
    expect(counts.corpusLoads).toBe(2);
  });

  it('answers between two refreshes over the documents the graph covers, and says how many wait for it', async () => {
    await index(repo);
    const { service } = queryService();
    const question = 'Which compiler did Grace Hopper write?';
    const before = await service.ask({ question, mode: 'ppr', budget: 2000 });
    expect(before.awaitingGraph).toBeUndefined();
    // Stored and embedded, the graph not refreshed yet: the app does not call it searchable.
    const hopper = {
      'hopper.txt': 'Grace Hopper wrote the A-0 compiler in 1952. She later worked on the COBOL language.',
    };
    await index(repo, hopper, async () => undefined);
    service.invalidate('library');
    const between = await service.ask({ question, mode: 'ppr', budget: 2000 });
    expect(between.awaitingGraph).toEqual({ documents: 1 });
    expect(between.evidence.map((e) => e.docTitle)).not.toContain('hopper');
    // The refresh lands: asked again, the answer covers the new document and says nothing waits.
    await rebuildConceptGraph(repo, new AbortController().signal);
    service.invalidate('library');
    const after = await service.ask({ question, mode: 'ppr', budget: 2000 });
    expect(after.awaitingGraph).toBeUndefined();
    expect(after.evidence[0].docTitle).toBe('hopper');
  });

  it('a library with no documents is reported, and answered once documents arrive', async () => {
    const { service } = queryService();
    await expect(service.ask({ question: QUESTION, mode: 'ppr', budget: 100 })).rejects.toThrow(
      /library is empty/,
    );
    await index(repo);
    const again = await service.ask({ question: QUESTION, mode: 'ppr', budget: 2000 });
    expect(again.evidence[0].docTitle).toBe('lovelace');
  });
});

describe('QueryService over a bundle opened read-only', () => {
  it('answers every mode from the bundle and its KG, never from the local library, even while it downloads', async () => {
    // The bundle: the four documents with a KG, exported from a library of its own.
    await index(repo);
    const kgBuild = kgBuildService();
    await kgBuild.saveSettings(settings());
    await kgBuild.build({ kappa: 1 });
    const blob = await exportLibraryBlob(db, { appVersion: 'test' });

    // The local library: one unrelated document, and the LLM settings.
    db = openDatabase('query-local', { indexedDB: new IDBFactory(), IDBKeyRange });
    repo = new Repo(db);
    await repo.setSetting('llm', settings());
    const { service, counts } = queryService({ '/b/lovelace.bundle': blob });
    await expect(service.openBundle('http://elsewhere.test/b/lovelace.bundle')).rejects.toThrow(
      /not on this site/,
    );
    // A bundle that did not open is what every question reports: the local library is not the answer.
    await expect(service.ask({ question: QUESTION, mode: 'ppr', budget: 2000 })).rejects.toThrow(
      /not on this site/,
    );

    const opening = service.openBundle('/b/lovelace.bundle');
    // Asked before the bundle has arrived: waits for it instead of reading the local library.
    const early = service.ask({ question: QUESTION, mode: 'ppr', budget: 2000 });
    const opened = await opening;
    expect(opened.counts.documents).toBe(4);
    expect((await early).evidence[0].docTitle).toBe('lovelace');

    const hybrid = await service.ask({ question: QUESTION, mode: 'hybrid', budget: 2000 });
    expect(hybrid.kg?.entities.map((e) => e.name)).toContain('Ada Lovelace');
    const top = hybrid.evidence[0];
    expect((await service.getDocument(top.docId))?.title).toBe('lovelace');

    // The library changing underneath does not replace the bundle.
    service.invalidate();
    service.invalidate('kg');
    const again = await service.ask({ question: QUESTION, mode: 'kg', budget: 2000 });
    expect(again.evidence.length).toBeGreaterThan(0);
    expect(counts).toEqual({ engines: 1, corpusLoads: 0, kgLoads: 0 });

    // The written answer uses the bundle's passages and the local endpoint settings.
    server.reset();
    const answer = await service.answer({ question: QUESTION, evidence: hybrid.evidence });
    expect(answer.citations[0].docId).toBe(top.docId);
    expect(JSON.stringify(server.requests[0].body)).toContain('Ada Lovelace wrote');
  });
});

describe('KgBuildService', () => {
  it('estimates before any call, builds under the lock, reports status, and a resumed build sends nothing twice', async () => {
    await index(repo);
    const kgBuild = kgBuildService();
    const estimate = await kgBuild.estimate(0.5);
    expect(estimate.full.calls).toBe(4);
    expect(estimate.selected.calls).toBe(2);
    expect(estimate.pendingCalls).toBe(2);
    expect(server.requests).toHaveLength(0);
    await expect(kgBuild.build({ kappa: 0.5 })).rejects.toThrow(/no endpoint configured/);

    await kgBuild.saveSettings(settings());
    expect((await kgBuild.build({ kappa: 0.5 })).done).toBe(2);
    expect((await kgBuild.estimate(1)).pendingCalls).toBe(2);
    const resumed = await kgBuild.build({ kappa: 1 });
    expect([resumed.done, resumed.skipped]).toEqual([2, 2]);
    expect(server.extractionTexts()).toHaveLength(4);
    expect(new Set(server.extractionTexts()).size).toBe(4);
    const status = await kgBuild.status();
    expect(status).toMatchObject({ chunks: 4, done: 4, failed: 0, embedded: status.entities });
    expect(status.entities).toBeGreaterThan(0);

    const elsewhere = new KgBuildService({
      repo,
      store: new DexieKgStore(db),
      embedders: countingHolder(),
      llmClient,
      lock: { tryRun: async () => ({ ran: false as const }) },
    });
    await expect(elsewhere.build({ kappa: 1, retryFailed: true })).rejects.toThrow(/running in another tab/);
  });

  it('refuses to build, estimate or report status over a read-only bundle', async () => {
    const kgBuild = kgBuildService();
    kgBuild.useBundle();
    await expect(kgBuild.build({ kappa: 1 })).rejects.toThrow(/needs your own library/);
    await expect(kgBuild.estimate(1)).rejects.toThrow(/needs your own library/);
    await expect(kgBuild.status()).rejects.toThrow(/needs your own library/);
    expect(server.requests).toHaveLength(0);
  });
});
