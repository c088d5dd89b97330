// The KG worker: everything that talks to the user's LLM endpoint, over the IndexedDB library. It estimates the
// cost of a core-KG build (κ of the chunks by concept-graph PageRank), builds it resumably (one transaction per
// chunk; cancel lets paid calls finish), embeds entities and relations with the library's embedder, answers in
// modes `kg` and `hybrid`, and streams cited answers. The API key is read from the settings table here and goes
// only into requests to its endpoint. With a bundle opened read-only (?bundle=), questions and answers use that
// bundle's corpus and KG, never the local library (which is not read at all, apart from the LLM settings).
import { expose } from 'comlink';
import { answerQuestion } from '../src/core/answer/answer.ts';
import { buildKg, type KgBuildSummary } from '../src/core/kg/build.ts';
import { embedKg } from '../src/core/kg/embed.ts';
import { hybrid, DEFAULT_LAMBDA } from '../src/core/kg/hybrid.ts';
import { KgIndex, type EntityHit, type KgChunkView, type RelationHit } from '../src/core/kg/search.ts';
import {
  DEFAULT_KAPPA,
  estimateKgCost,
  rankOrder,
  selectCoreChunks,
  type KgCostEstimate,
} from '../src/core/kg/select.ts';
import { LlmClient } from '../src/core/llm/client.ts';
import { validateLlmSettings, type LlmSettings } from '../src/core/llm/settings.ts';
import { testConnection, type ConnectionDiagnosis } from '../src/core/llm/testConnection.ts';
import { DEFAULT_MODE, type RetrievedChunk } from '../src/core/retrieval/types.ts';
import type { ChunkRecord, ProgressCallback } from '../src/core/types.ts';
import { openBundleReadOnly } from '../src/store/bundleImport.ts';
import { openDatabase, type KgEntityRecord, type KgRelationRecord } from '../src/store/db.ts';
import type { LoadedCorpus } from '../src/store/repo.ts';
import { Repo } from '../src/store/repo.ts';
import { browserCrossTabLock } from '../src/services/crossTab.ts';
import { EmbedderHolder } from '../src/services/embedders.ts';
import { loadEngine } from '../src/services/engine.ts';
import { toEvidence } from '../src/services/evidence.ts';
import { DexieKgStore, entityFromRecord, relationFromRecord } from '../src/store/kgStore.ts';
import { DEFAULT_EMBEDDER, type EmbedderChoice, type Evidence } from '../src/services/protocol.ts';

/** Settings-table key of the LLM endpoint settings (never exported in bundles). */
export const LLM_SETTINGS_KEY = 'llm';

export type KgMode = 'kg' | 'hybrid';

export interface KgStatus {
  chunks: number;
  done: number;
  failed: number;
  entities: number;
  relations: number;
  /** Entities with a vector (searchable by similarity). */
  embedded: number;
  failures: Array<{ chunkId: string; reason: string }>;
}

export interface KgEstimate {
  kappa: number;
  /** The chosen κ and a full build (κ = 1), counted from the real prompts. */
  selected: KgCostEstimate;
  full: KgCostEstimate;
  /** Core chunks already done: a resumed build does not send them again. */
  alreadyDone: number;
  /** Calls the build would make now (selected minus done). */
  pendingCalls: number;
  /** How the output tokens were estimated. */
  outputNote: string;
}

export interface KgEvidence extends Omit<Evidence, 'provenance'> {
  provenance: {
    mode: string;
    concepts?: string[];
    hop?: number;
    entities?: string[];
    paths?: string[];
    via?: string;
  };
}

export interface KgAskResult {
  question: string;
  mode: KgMode;
  budget: number;
  evidence: KgEvidence[];
  entities: EntityHit[];
  relations: RelationHit[];
  milliseconds: number;
}

export interface CitationOut {
  n: number;
  chunkId: string;
  docId: string;
  /** Offsets of the best supporting sentence in the DOCUMENT text (for the viewer). */
  start: number;
  end: number;
  sentence: string;
}

export interface AnswerOut {
  text: string;
  noAnswer: boolean;
  citations: CitationOut[];
  inputTokens: number;
  outputTokens: number;
  cost: number;
}

const db = openDatabase();
const repo = new Repo(db);
const store = new DexieKgStore(db);
const embedders = new EmbedderHolder();
let buildStop: AbortController | null = null;
let answerStop: AbortController | null = null;
/** One KG build at a time across tabs: two would pay the endpoint twice for the same chunks. */
const buildLock = browserCrossTabLock('kg', self.name);

async function llmSettings(): Promise<LlmSettings> {
  const s = await repo.getSetting<LlmSettings>(LLM_SETTINGS_KEY);
  if (!s) throw new Error('LLM: no endpoint configured; set the base URL and model in Settings first');
  const problems = validateLlmSettings(s);
  if (problems.length) throw new Error(problems.join('; '));
  return s;
}

interface Corpus {
  chunks: ChunkRecord[];
  byId: Map<string, ChunkRecord>;
  /** Chunk ids by concept-graph chunk rank, highest first. */
  ranked: string[];
  titles: Map<string, string>;
  /** Sentence ranges per chunk, offsets into the chunk text. */
  sentences: Map<string, Array<{ start: number; end: number }>>;
  engine: ReturnType<typeof loadEngine>;
  embedderId: string | null;
}

let corpusCache: Promise<Corpus> | null = null;
let corpusSignature = '';

/**
 * A bundle opened read-only (?bundle=): its URL, and once loaded its corpus and KG. While set, the library in
 * IndexedDB is never read for questions, answers or citations, and building a KG is refused.
 */
let readOnly: { url: string; loaded?: Promise<{ corpus: Corpus; kg: KgIndex }> } | null = null;

function corpusFrom(loaded: LoadedCorpus): Corpus {
  if (loaded.chunks.length === 0) throw new Error('KG: the library is empty; add documents first');
  const engine = loadEngine(loaded);
  const { chunkIds, chunkRank } = engine.graph;
  const byId = new Map(loaded.chunks.map((c) => [c.id, c]));
  const sentences = new Map<string, Array<{ start: number; end: number }>>();
  for (const s of loaded.sentences) {
    const c = byId.get(s.chunkId);
    if (!c) continue;
    const list = sentences.get(s.chunkId) ?? [];
    list.push({ start: s.start - c.start, end: s.end - c.start });
    sentences.set(s.chunkId, list);
  }
  return {
    chunks: loaded.chunks,
    byId,
    ranked: rankOrder(chunkIds.map((chunkId, i) => ({ chunkId, rank: chunkRank[i] }))),
    titles: new Map(loaded.documents.map((d) => [d.id, d.title])),
    sentences,
    engine,
    embedderId: loaded.meta?.embedderId ?? null,
  };
}

/** The read-only bundle's corpus and KG (records as the store keeps them, so read through the same mapping). */
function bundleLayers(url: string): Promise<{ corpus: Corpus; kg: KgIndex }> {
  return openBundleReadOnly(url, self.location.origin).then((bundle) => {
    const entities = (bundle.tables.kgEntities ?? []) as KgEntityRecord[];
    const relations = (bundle.tables.kgRelations ?? []) as KgRelationRecord[];
    return {
      corpus: corpusFrom(bundle.corpus),
      kg: new KgIndex(
        entities.map(entityFromRecord).filter((e) => e !== null),
        relations.map(relationFromRecord).filter((r) => r !== null),
      ),
    };
  });
}

async function readOnlyLayers(): Promise<{ corpus: Corpus; kg: KgIndex }> {
  const state = readOnly!;
  state.loaded ??= bundleLayers(state.url);
  try {
    return await state.loaded;
  } catch (err) {
    state.loaded = undefined;
    throw err;
  }
}

function refuseReadOnly(what: string): void {
  if (readOnly) {
    throw new Error(
      `KG: ${what} needs your own library; this page shows a bundle read-only (open the app without ?bundle=)`,
    );
  }
}

async function corpus(): Promise<Corpus> {
  if (readOnly) return (await readOnlyLayers()).corpus;
  // Documents added or removed in another worker: counts are a cheap change detector.
  const signature = `${await db.documents.count()}:${await db.chunks.count()}`;
  if (signature !== corpusSignature) {
    corpusSignature = signature;
    corpusCache = null;
  }
  corpusCache ??= repo.loadCorpus().then(corpusFrom);
  try {
    return await corpusCache;
  } catch (err) {
    corpusCache = null;
    throw err;
  }
}

let indexCache: { signature: string; index: KgIndex } | null = null;
/** Counts cannot see re-embedded vectors or merged descriptions: a finished build also invalidates. */
let buildsSinceIndex = 0;

/** The KG search index, rebuilt only when the KG tables changed (a build, a removal, an import). */
async function kgIndex(): Promise<KgIndex> {
  if (readOnly) return (await readOnlyLayers()).kg;
  const signature = `${await db.kgChunks.count()}:${await db.kgEntities.count()}:${await db.kgRelations.count()}`;
  if (indexCache?.signature !== signature || buildsSinceIndex > 0) {
    indexCache = { signature, index: new KgIndex(await store.entities(), await store.relations()) };
    buildsSinceIndex = 0;
  }
  return indexCache.index;
}

async function libraryEmbedder(embedderId: string | null) {
  if (!embedderId) return undefined;
  const choice = (await repo.getSetting<EmbedderChoice>('embedder')) ?? DEFAULT_EMBEDDER;
  const embedder = await embedders.get(choice);
  // Vectors of another embedder would not be comparable with the library's: search by names only then.
  return embedder.id === embedderId ? embedder : undefined;
}

function kgEvidence(c: Corpus, hit: RetrievedChunk): KgEvidence {
  const p = hit.provenance as KgEvidence['provenance'];
  return {
    ...toEvidence(hit, c.byId.get(hit.chunkId)?.start ?? 0, c.titles.get(hit.docId) ?? hit.docId),
    provenance: {
      mode: p.mode,
      concepts: p.concepts,
      hop: p.hop,
      entities: p.entities,
      paths: p.paths,
      via: p.via,
    },
  };
}

const api = {
  /** Forgets the loaded corpus (the library changed). */
  invalidate(): void {
    corpusCache = null;
  },

  /**
   * Answers from the bundle at `url` (same origin, opened read-only by the page) instead of the library; it is
   * fetched and validated on the first question.
   */
  useBundle(url: string): void {
    readOnly = { url };
    corpusCache = null;
    indexCache = null;
  },

  async status(): Promise<KgStatus> {
    refuseReadOnly('the KG status');
    const states = await store.states();
    const entities = await store.entities();
    return {
      chunks: await db.chunks.count(),
      done: states.filter((s) => s.status === 'done').length,
      failed: states.filter((s) => s.status === 'failed').length,
      entities: entities.length,
      relations: await db.kgRelations.count(),
      embedded: entities.filter((e) => e.vector).length,
      failures: states
        .filter((s) => s.status === 'failed')
        .slice(0, 50)
        .map((s) => ({ chunkId: s.chunkId, reason: s.reason ?? 'failed' })),
    };
  },

  async estimate(kappa: number = DEFAULT_KAPPA): Promise<KgEstimate> {
    refuseReadOnly('a KG cost estimate');
    const c = await corpus();
    const settings = await repo.getSetting<LlmSettings>(LLM_SETTINGS_KEY);
    const ranked = c.ranked.map((id) => c.byId.get(id)!);
    const [selected, full] = estimateKgCost(ranked, [kappa, 1], {
      priceInPerM: settings?.priceInPerM ?? 0,
      priceOutPerM: settings?.priceOutPerM ?? 0,
    });
    const core = selectCoreChunks(
      c.ranked.map((chunkId, i) => ({ chunkId, rank: -i })),
      kappa,
    );
    const states = await store.getStates(core);
    return {
      kappa,
      selected,
      full,
      alreadyDone: states.size,
      pendingCalls: core.length - states.size,
      outputNote: 'output tokens estimated as 0.35 × input tokens',
    };
  },

  /** Builds (or resumes) the core KG for κ; `onProgress` is a Comlink proxy. */
  async build(
    request: { kappa: number; retryFailed?: boolean },
    onProgress?: ProgressCallback,
  ): Promise<KgBuildSummary & { embedded: number }> {
    refuseReadOnly('building a KG');
    if (buildStop) throw new Error('KG: a build is already running');
    const settings = await llmSettings();
    const c = await corpus();
    buildStop = new AbortController();
    try {
      const core = selectCoreChunks(
        c.ranked.map((chunkId, i) => ({ chunkId, rank: -i })),
        request.kappa,
      );
      const client = new LlmClient(settings);
      const summary = await buildKg({
        chunks: core.map((id) => {
          const chunk = c.byId.get(id)!;
          return { id, docId: chunk.docId, text: chunk.text };
        }),
        store,
        client,
        concurrency: settings.concurrency,
        retryFailed: request.retryFailed,
        signal: buildStop.signal,
        onProgress,
      });
      const embedder = await libraryEmbedder(c.embedderId).catch(() => undefined);
      const embedded = embedder ? (await embedKg(store, embedder)).embedded : 0;
      return { ...summary, embedded };
    } finally {
      buildsSinceIndex++;
      buildStop = null;
    }
  },

  /** Stops sending new chunks; calls in flight finish and are kept (they are paid for). */
  cancelBuild(): void {
    buildStop?.abort();
  },

  async ask(request: {
    question: string;
    mode: KgMode;
    budget: number;
    lambda?: number;
  }): Promise<KgAskResult> {
    const started = performance.now();
    const c = await corpus();
    const budget = Math.max(1, Math.floor(request.budget));
    const embedder = await libraryEmbedder(c.embedderId).catch(() => undefined);
    const vector = embedder ? await embedder.embed([request.question]) : undefined;
    const index = await kgIndex();
    const view = (chunkId: string): KgChunkView | undefined => {
      const chunk = c.byId.get(chunkId);
      return (
        chunk && {
          docId: chunk.docId,
          text: chunk.text,
          tokens: chunk.tokens,
          sentences: c.sentences.get(chunkId),
        }
      );
    };
    const kg = index.search({ text: request.question, vector }, view, budget);
    let hits: RetrievedChunk[] = kg.chunks;
    if (request.mode === 'hybrid') {
      const conceptHits = c.engine.search({ text: request.question, vector }, DEFAULT_MODE, budget);
      hits = hybrid(conceptHits, kg.chunks, budget, request.lambda ?? DEFAULT_LAMBDA);
    }
    return {
      question: request.question,
      mode: request.mode,
      budget,
      evidence: hits.map((h) => kgEvidence(c, h)),
      entities: kg.entities,
      relations: kg.relations,
      milliseconds: performance.now() - started,
    };
  },

  /** Streams an answer over the given evidence; `onDelta` is a Comlink proxy. */
  async answer(
    request: {
      question: string;
      evidence: Array<Pick<KgEvidence, 'chunkId' | 'docId' | 'docTitle' | 'text' | 'chunkStart'>>;
      facts?: string[];
    },
    onDelta?: (delta: string) => void,
  ): Promise<AnswerOut> {
    const settings = await llmSettings();
    const c = await corpus().catch(() => null);
    answerStop?.abort();
    answerStop = new AbortController();
    const context = request.evidence.map((e) => ({
      chunkId: e.chunkId,
      title: e.docTitle,
      text: e.text,
      sentences: c?.sentences.get(e.chunkId),
    }));
    const a = await answerQuestion(new LlmClient(settings), request.question, context, {
      facts: request.facts,
      onDelta,
      signal: answerStop.signal,
    });
    const byChunk = new Map(request.evidence.map((e) => [e.chunkId, e]));
    return {
      text: a.text,
      noAnswer: a.noAnswer,
      citations: a.citations.map((cit) => {
        const e = byChunk.get(cit.chunkId)!;
        const start = e.chunkStart + (cit.sentence?.start ?? 0);
        const end = e.chunkStart + (cit.sentence?.end ?? e.text.length);
        return {
          n: cit.n,
          chunkId: cit.chunkId,
          docId: e.docId,
          start,
          end,
          sentence: cit.sentence?.text ?? '',
        };
      }),
      inputTokens: a.usage.inputTokens,
      outputTokens: a.usage.outputTokens,
      cost: a.usage.cost,
    };
  },

  cancelAnswer(): void {
    answerStop?.abort();
  },

  async testConnection(settings: LlmSettings, pageOrigin?: string): Promise<ConnectionDiagnosis> {
    return testConnection(settings, { pageOrigin });
  },

  async getSettings(): Promise<LlmSettings | undefined> {
    return repo.getSetting<LlmSettings>(LLM_SETTINGS_KEY);
  },

  async saveSettings(settings: LlmSettings): Promise<void> {
    await repo.setSetting(LLM_SETTINGS_KEY, settings);
  },

  async dispose(): Promise<void> {
    corpusCache = null;
    await embedders.dispose();
  },
};

export type KgApi = typeof api;

/** Builds hold the cross-tab lock; a second tab is refused instead of paying the endpoint again for the same chunks. */
async function buildInOneTab(...args: Parameters<KgApi['build']>): ReturnType<KgApi['build']> {
  const held = await buildLock.tryRun(() => api.build(...args));
  if (!held.ran) throw new Error('KG: a build is running in another tab; resume it here when it has ended');
  return held.value;
}

expose({ ...api, build: buildInOneTab });
