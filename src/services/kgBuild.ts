// The KG build service behind the KG worker: everything that builds the LLM knowledge graph of the IndexedDB
// library. It estimates the cost of a core-KG build (κ of the chunks by concept-graph PageRank), builds it
// resumably (one transaction per chunk; cancel lets paid calls finish), embeds entities and relations with the
// library's embedder, tests the endpoint and keeps its settings. Questions are not answered here (the query
// service does that); the page tells the query worker to reload the KG after a build. With a bundle opened
// read-only (?bundle=), building is refused: the bundle is not the user's library.
import { buildKg, type KgBuildSummary } from '../core/kg/index.ts';
import { embedKg } from '../core/kg/index.ts';
import {
  DEFAULT_KAPPA,
  estimateKgCost,
  rankOrder,
  selectCoreChunks,
  type KgCostEstimate,
} from '../core/kg/index.ts';
import type { LlmClient } from '../core/llm/index.ts';
import type { LlmSettings } from '../core/llm/index.ts';
import { testConnection, type ConnectionDiagnosis } from '../core/llm/index.ts';
import type { RetrievalEngine } from '../core/retrieval/index.ts';
import type { ChunkRecord, Embedder, ProgressCallback } from '../core/types.ts';
import type { DexieKgStore } from '../store/kgStore.ts';
import type { LoadedCorpus, Repo } from '../store/repo.ts';
import type { CrossTabLock } from './crossTab.ts';
import { loadEngine } from './engine.ts';
import { DEFAULT_EMBEDDER, type EmbedderChoice } from './protocol.ts';
import { LLM_SETTINGS_KEY, readLlmSettings } from './llmSettings.ts';

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

export type KgBuildResult = KgBuildSummary & { embedded: number };

export interface KgBuildDeps {
  /** The IndexedDB library (chunks, settings table). */
  repo: Repo;
  /** Its KG tables. */
  store: DexieKgStore;
  embedders: { get(choice: EmbedderChoice): Promise<Embedder>; dispose(): Promise<void> };
  llmClient(settings: LlmSettings): LlmClient;
  /** The fetch of the connection test (the worker's recorder for the network ledger); default the global one. */
  connectionFetch?: typeof fetch;
  /** One build at a time across tabs: two would pay the endpoint twice for the same chunks. */
  lock: Pick<CrossTabLock, 'tryRun'>;
  loadEngine?: (corpus: LoadedCorpus) => RetrievalEngine;
}

/** The chunks in build order: what the estimate and the build need, without keeping the engine that ranked them. */
interface Ranked {
  /** Documents and chunks counted when it was made: documents added or removed since make it stale. */
  signature: string;
  byId: Map<string, ChunkRecord>;
  /** Chunk ids by concept-graph chunk rank, highest first. */
  ids: string[];
  embedderId: string | null;
}

export class KgBuildService {
  private buildStop: AbortController | null = null;
  private ranked: Promise<Ranked> | null = null;
  private readOnly = false;

  constructor(private readonly deps: KgBuildDeps) {}

  /** The page shows a bundle read-only (?bundle=): refuse to build, there is no library of the user's here. */
  useBundle(): void {
    this.readOnly = true;
    this.ranked = null;
  }

  async status(): Promise<KgStatus> {
    this.refuseReadOnly('the KG status');
    const { db } = this.deps.repo;
    const states = await this.deps.store.states();
    const entities = await this.deps.store.entities();
    const failed = states.filter((s) => s.status === 'failed');
    return {
      chunks: await db.chunks.count(),
      done: states.filter((s) => s.status === 'done').length,
      failed: failed.length,
      entities: entities.length,
      relations: await db.kgRelations.count(),
      embedded: entities.filter((e) => e.vector).length,
      failures: failed.slice(0, 50).map((s) => ({ chunkId: s.chunkId, reason: s.reason ?? 'failed' })),
    };
  }

  async estimate(kappa: number = DEFAULT_KAPPA): Promise<KgEstimate> {
    this.refuseReadOnly('a KG cost estimate');
    const ranked = await this.ranking();
    const settings = await this.deps.repo.getSetting<LlmSettings>(LLM_SETTINGS_KEY);
    const [selected, full] = estimateKgCost(
      ranked.ids.map((id) => ranked.byId.get(id)!),
      [kappa, 1],
      { priceInPerM: settings?.priceInPerM ?? 0, priceOutPerM: settings?.priceOutPerM ?? 0 },
    );
    const core = coreChunks(ranked, kappa);
    const states = await this.deps.store.getStates(core);
    return {
      kappa,
      selected,
      full,
      alreadyDone: states.size,
      pendingCalls: core.length - states.size,
      outputNote: 'output tokens estimated as 0.35 × input tokens',
    };
  }

  /**
   * Builds (or resumes) the core KG for κ under the cross-tab lock; `onProgress` is a Comlink proxy. A second tab
   * is refused instead of paying the endpoint again for the same chunks.
   */
  async build(
    request: { kappa: number; retryFailed?: boolean },
    onProgress?: ProgressCallback,
  ): Promise<KgBuildResult> {
    this.refuseReadOnly('building a KG');
    if (this.buildStop) throw new Error('KG: a build is already running');
    const held = await this.deps.lock.tryRun(() => this.buildHere(request, onProgress));
    if (!held.ran) throw new Error('KG: a build is running in another tab; resume it here when it has ended');
    return held.value;
  }

  /** Stops sending new chunks; calls in flight finish and are kept (they are paid for). */
  cancelBuild(): void {
    this.buildStop?.abort();
  }

  async testConnection(settings: LlmSettings, pageOrigin?: string): Promise<ConnectionDiagnosis> {
    return testConnection(settings, { pageOrigin, fetch: this.deps.connectionFetch });
  }

  async getSettings(): Promise<LlmSettings | undefined> {
    return this.deps.repo.getSetting<LlmSettings>(LLM_SETTINGS_KEY);
  }

  async saveSettings(settings: LlmSettings): Promise<void> {
    await this.deps.repo.setSetting(LLM_SETTINGS_KEY, settings);
  }

  /** Frees the embedder (loaded only to embed a finished build's entities). */
  async dispose(): Promise<void> {
    this.ranked = null;
    await this.deps.embedders.dispose();
  }

  private async buildHere(
    request: { kappa: number; retryFailed?: boolean },
    onProgress?: ProgressCallback,
  ): Promise<KgBuildResult> {
    if (this.buildStop) throw new Error('KG: a build is already running');
    const stop = new AbortController();
    this.buildStop = stop;
    try {
      const settings = await readLlmSettings(this.deps.repo);
      const ranked = await this.ranking();
      const summary = await buildKg({
        chunks: coreChunks(ranked, request.kappa).map((id) => {
          const chunk = ranked.byId.get(id)!;
          return { id, docId: chunk.docId, text: chunk.text };
        }),
        store: this.deps.store,
        client: this.deps.llmClient(settings),
        concurrency: settings.concurrency,
        retryFailed: request.retryFailed,
        signal: stop.signal,
        onProgress,
      });
      const embedder = await this.libraryEmbedder(ranked.embedderId).catch(() => undefined);
      const embedded = embedder ? (await embedKg(this.deps.store, embedder)).embedded : 0;
      return { ...summary, embedded };
    } finally {
      this.buildStop = null;
    }
  }

  /**
   * The library's chunks by concept-graph rank, computed once per library state. The engine that ranks them is
   * dropped at once: questions have their own in the query worker, and a KG build needs only the order.
   */
  private async ranking(): Promise<Ranked> {
    const { db } = this.deps.repo;
    const signature = `${await db.documents.count()}:${await db.chunks.count()}`;
    const cached = await this.ranked?.catch(() => null);
    if (!cached || cached.signature !== signature) {
      this.ranked = this.deps.repo.loadCorpus().then((corpus) => {
        if (corpus.chunks.length === 0) throw new Error('KG: the library is empty; add documents first');
        const { chunkIds, chunkRank } = (this.deps.loadEngine ?? loadEngine)(corpus).graph;
        return {
          signature,
          byId: new Map(corpus.chunks.map((c) => [c.id, c])),
          ids: rankOrder(chunkIds.map((chunkId, i) => ({ chunkId, rank: chunkRank[i] }))),
          embedderId: corpus.meta?.embedderId ?? null,
        };
      });
    }
    try {
      return await this.ranked!;
    } catch (error) {
      this.ranked = null;
      throw error;
    }
  }

  private async libraryEmbedder(embedderId: string | null): Promise<Embedder | undefined> {
    if (!embedderId) return undefined;
    const choice = (await this.deps.repo.getSetting<EmbedderChoice>('embedder')) ?? DEFAULT_EMBEDDER;
    const embedder = await this.deps.embedders.get(choice);
    // Vectors of another embedder would not be comparable with the library's: leave the KG searchable by names.
    return embedder.id === embedderId ? embedder : undefined;
  }

  private refuseReadOnly(what: string): void {
    if (this.readOnly) {
      throw new Error(
        `KG: ${what} needs your own library; this page shows a bundle read-only (open the app without ?bundle=)`,
      );
    }
  }
}

/** The top κ of the ranked chunks. */
function coreChunks(ranked: Ranked, kappa: number): string[] {
  return selectCoreChunks(
    ranked.ids.map((chunkId, i) => ({ chunkId, rank: -i })),
    kappa,
  );
}
