// The KG build service behind the KG worker: everything that builds the LLM-distilled layer of the IndexedDB
// library — the knowledge graph and PIKE-RAG's atomic questions, each alone or both in one call per chunk (one
// pass). It estimates the cost of a build over the core chunks (κ of the chunks by concept-graph PageRank), builds
// it resumably through buildDistilled (one transaction per chunk, both parts together; cancel lets paid calls
// finish), embeds entities, relations and atomic questions with the library's embedder, tests the endpoint and
// keeps its settings. Questions are not answered here (the query service does that); the page tells the query
// worker to reload the KG after a build. With a bundle opened read-only (?bundle=), building is refused: the
// bundle is not the user's library.
import {
  buildDistilled,
  DEFAULT_ATOMIZE_TEMPERATURE,
  DEFAULT_MAX_QUESTIONS,
  embedAtomic,
  estimateDistillCost,
  TOKENS_PER_QUESTION,
  type DistillBuildSummary,
  type DistillChunkInput,
  type DistillCostEstimate,
  type DistillOutcome,
} from '../../core/atomic/index.ts';
import { embedKg } from '../../core/kg/index.ts';
import { DEFAULT_KAPPA } from '../../core/kg/index.ts';
import type { LlmClient } from '../../core/llm/index.ts';
import type { LlmSettings } from '../../core/llm/index.ts';
import { currencyOf, testConnection, type ConnectionDiagnosis } from '../../core/llm/index.ts';
import type { Embedder, ProgressCallback } from '../../core/types.ts';
import { DexieAtomicStore } from '../../store/atomicStore.ts';
import type { DexieKgStore } from '../../store/kgStore.ts';
import type { Repo } from '../../store/repo.ts';
import type { CrossTabLock } from '../library/crossTab.ts';
import { loadEngine } from '../library/engine.ts';
import { openStoredPages } from '../library/storedPages.ts';
import type { BuildOrder, LibrarySource } from '../source/librarySource.ts';
import { openSource } from '../source/openSource.ts';
import { openLibrary } from '../library/questionLibrary.ts';
import { readEmbedderChoice } from '../embed/embedderChoice.ts';
import type { EmbedderChoice } from '../embed/embedderChoice.ts';
import { LLM_SETTINGS_KEY, readLlmSettings } from './llmSettings.ts';

/** The LLM settings as the page sees them: the key is never handed out, only whether one is stored. */
export interface PageLlmSettings extends LlmSettings {
  apiKey: '';
  keyStored: boolean;
}

export interface KgStatus {
  chunks: number;
  done: number;
  failed: number;
  entities: number;
  relations: number;
  /** Entities with a vector (searchable by similarity). */
  embedded: number;
  /** Failed chunks of either part (an atomizing failure's reason says so). */
  failures: Array<{ chunkId: string; reason: string }>;
  /** PIKE-RAG's atomic layer: chunks atomized, failed, questions stored and embedded. */
  atomic: { done: number; failed: number; questions: number; embedded: number };
}

/** What a build makes: the KG, the atomic questions, or both (in one call per chunk with `onePass`). */
export interface DistillParts {
  kg: boolean;
  atomic: boolean;
  /** Both parts of a chunk from one call (default true). */
  onePass?: boolean;
  /** Atomic questions per chunk at most (default 12). */
  maxQuestions?: number;
  /** Atomizing temperature (default 0.7, the paper's). */
  temperature?: number;
}

const KG_ONLY: DistillParts = { kg: true, atomic: false };

export interface KgEstimate {
  kappa: number;
  parts: DistillParts;
  /** The chosen κ and a full build (κ = 1), counted from the real prompts. */
  selected: DistillCostEstimate;
  full: DistillCostEstimate;
  /** Both parts asked for: the chosen κ as one pass and as two separate passes, to compare. */
  passes?: { onePass: DistillCostEstimate; separate: DistillCostEstimate };
  /** Core chunks already done: a resumed build does not send them again. */
  alreadyDone: number;
  /** Calls the build would make now (selected minus done). */
  pendingCalls: number;
  /** How the output tokens were estimated. */
  outputNote: string;
  /** ISO 4217 code of every cost here (the settings' prices are in it). */
  currency: string;
}

/** A build's outcome in chunks (done: every part asked for succeeded), its parts, calls and cost. */
export interface KgBuildResult extends Pick<
  DistillBuildSummary,
  | 'selected'
  | 'skipped'
  | 'remaining'
  | 'cancelled'
  | 'error'
  | 'calls'
  | 'inputTokens'
  | 'outputTokens'
  | 'cost'
  | 'kg'
> {
  done: number;
  failed: number;
  failures: KgStatus['failures'];
  /** Entities and relations embedded after the build. */
  embedded: number;
  /** ISO 4217 code of `cost`. */
  currency: string;
  atomic: DistillBuildSummary['atomic'] & { embedded: number };
}

export interface KgBuildDeps {
  /** The IndexedDB library (chunks, settings table). */
  repo: Repo;
  /** Its KG tables. */
  store: DexieKgStore;
  /** Its atomic-question tables (default: over the repository's database). */
  atomicStore?: DexieAtomicStore;
  embedders: { get(choice: EmbedderChoice): Promise<Embedder>; dispose(): Promise<void> };
  llmClient(settings: LlmSettings): LlmClient;
  /** The fetch of the connection test (the worker's recorder for the network ledger); default the global one. */
  connectionFetch?: typeof fetch;
  /** One build at a time across tabs: two would pay the endpoint twice for the same chunks. */
  lock: Pick<CrossTabLock, 'tryRun'>;
}

/** The chunks in build order (LibrarySource.buildOrder) and what the build embeds with. */
interface Ranked extends BuildOrder {
  /** Documents and chunks counted when it was made: documents added or removed since make it stale. */
  signature: string;
  embedderId: string | null;
}

export class KgBuildService {
  private buildStop: AbortController | null = null;
  private ranked: Promise<Ranked> | null = null;
  private readOnly = false;

  private readonly atomicStore: DexieAtomicStore;

  constructor(private readonly deps: KgBuildDeps) {
    this.atomicStore = deps.atomicStore ?? new DexieAtomicStore(deps.repo.db);
  }

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
    const atomicStates = await this.atomicStore.states();
    const atomicFailed = atomicStates.filter((s) => s.status === 'failed');
    const questions = await this.atomicStore.questions();
    return {
      chunks: await db.chunks.count(),
      done: states.filter((s) => s.status === 'done').length,
      failed: failed.length,
      entities: entities.length,
      relations: await db.kgRelations.count(),
      embedded: entities.filter((e) => e.vector).length,
      failures: [
        ...failed.map((s) => ({ chunkId: s.chunkId, reason: s.reason ?? 'failed' })),
        ...atomicFailed.map((s) => ({
          chunkId: s.chunkId,
          reason: `atomic questions: ${s.reason ?? 'failed'}`,
        })),
      ].slice(0, 50),
      atomic: {
        done: atomicStates.length - atomicFailed.length,
        failed: atomicFailed.length,
        questions: questions.length,
        embedded: questions.filter((q) => q.vector).length,
      },
    };
  }

  async estimate(kappa: number = DEFAULT_KAPPA, parts: DistillParts = KG_ONLY): Promise<KgEstimate> {
    this.refuseReadOnly('a KG cost estimate');
    checkParts(parts);
    const ranked = await this.ranking();
    const settings = await this.deps.repo.getSetting<LlmSettings>(LLM_SETTINGS_KEY);
    const chunks = ranked.sizes;
    const options = {
      kinds: { kg: parts.kg, atomic: parts.atomic },
      onePass: parts.onePass ?? true,
      maxQuestions: parts.maxQuestions ?? DEFAULT_MAX_QUESTIONS,
      priceInPerM: settings?.priceInPerM ?? 0,
      priceOutPerM: settings?.priceOutPerM ?? 0,
    };
    const [selected, full] = estimateDistillCost(chunks, [kappa, 1], options);
    const both = parts.kg && parts.atomic;
    const core = (await ranked.core(kappa)).map((c) => c.id);
    const pending = await this.pending(core, parts);
    const notes = [
      parts.kg ? 'KG output tokens estimated as 0.35 × input tokens' : '',
      parts.atomic
        ? `atomizing output as ${TOKENS_PER_QUESTION} tokens × ${options.maxQuestions} questions`
        : '',
    ].filter(Boolean);
    return {
      kappa,
      parts: { ...parts },
      selected,
      full,
      ...(both
        ? {
            passes: {
              onePass: estimateDistillCost(chunks, [kappa], { ...options, onePass: true })[0],
              separate: estimateDistillCost(chunks, [kappa], { ...options, onePass: false })[0],
            },
          }
        : {}),
      alreadyDone: core.length - pending.chunks,
      pendingCalls: pending.calls,
      outputNote: notes.join('; '),
      currency: currencyOf(settings),
    };
  }

  /** Core chunks that still need a part asked for, and the calls that would take. */
  private async pending(core: string[], parts: DistillParts): Promise<{ chunks: number; calls: number }> {
    const kgStates = parts.kg ? await this.deps.store.getStates(core) : new Map();
    const atomicStates = parts.atomic ? await this.atomicStore.getStates(core) : new Map();
    let chunks = 0;
    let calls = 0;
    for (const id of core) {
      const kg = parts.kg && !kgStates.has(id);
      const atomic = parts.atomic && !atomicStates.has(id);
      if (!kg && !atomic) continue;
      chunks++;
      calls += kg && atomic && (parts.onePass ?? true) ? 1 : Number(kg) + Number(atomic);
    }
    return { chunks, calls };
  }

  /**
   * Builds (or resumes) the core KG for κ under the cross-tab lock; `onProgress` is a Comlink proxy. A second tab
   * is refused instead of paying the endpoint again for the same chunks.
   */
  async build(
    request: { kappa: number; retryFailed?: boolean; parts?: DistillParts },
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

  /**
   * Tests the endpoint the page's form names. The stored key goes only to the stored base URL: a key typed in the
   * form is the page's own, but a form without one (the page never holds the stored key, see getSettings) gets the
   * stored key only when its URL is the stored one. A script in the page can therefore start this worker and ask
   * for a test, but cannot make this API send the stored key anywhere but the endpoint the person saved. (Such a
   * script can still read this origin's IndexedDB itself; docs/results/hostile.md says what the CSP covers.)
   */
  async testConnection(settings: LlmSettings, pageOrigin?: string): Promise<ConnectionDiagnosis> {
    const apiKey = settings.apiKey || (await this.storedKeyFor(settings.baseUrl));
    return testConnection({ ...settings, apiKey }, { pageOrigin, fetch: this.deps.connectionFetch });
  }

  /**
   * The stored settings without the key: the page shows whether a key is stored and never needs the key itself,
   * so this API does not hand it out.
   */
  async getSettings(): Promise<PageLlmSettings | undefined> {
    const stored = await this.deps.repo.getSetting<LlmSettings>(LLM_SETTINGS_KEY);
    return stored && { ...stored, apiKey: '', keyStored: stored.apiKey.length > 0 };
  }

  /**
   * Saves the page's form. An empty key keeps the stored one only for the same base URL: a new URL without a key
   * typed for it is saved without a key, so the stored key is never redirected to another endpoint.
   */
  async saveSettings(settings: LlmSettings): Promise<{ keyKept: boolean }> {
    const kept = settings.apiKey ? '' : await this.storedKeyFor(settings.baseUrl);
    await this.deps.repo.setSetting(LLM_SETTINGS_KEY, { ...settings, apiKey: settings.apiKey || kept });
    return { keyKept: kept.length > 0 };
  }

  /** The stored key when `baseUrl` is the stored base URL, else ''. */
  private async storedKeyFor(baseUrl: string): Promise<string> {
    const stored = await this.deps.repo.getSetting<LlmSettings>(LLM_SETTINGS_KEY);
    return stored && stored.apiKey && stored.baseUrl === baseUrl ? stored.apiKey : '';
  }

  /** Frees the embedder (loaded only to embed a finished build's entities). */
  async dispose(): Promise<void> {
    this.ranked = null;
    await this.deps.embedders.dispose();
  }

  private async buildHere(
    request: { kappa: number; retryFailed?: boolean; parts?: DistillParts },
    onProgress?: ProgressCallback,
  ): Promise<KgBuildResult> {
    if (this.buildStop) throw new Error('KG: a build is already running');
    const parts = request.parts ?? KG_ONLY;
    checkParts(parts);
    const stop = new AbortController();
    this.buildStop = stop;
    try {
      const settings = await readLlmSettings(this.deps.repo);
      const ranked = await this.ranking();
      const summary = await buildDistilled({
        chunks: await ranked.core(request.kappa),
        texts: ranked.texts,
        kinds: { kg: parts.kg, atomic: parts.atomic },
        onePass: parts.onePass ?? true,
        maxQuestions: parts.maxQuestions ?? DEFAULT_MAX_QUESTIONS,
        temperature: parts.temperature ?? DEFAULT_ATOMIZE_TEMPERATURE,
        kg: this.deps.store,
        atomic: this.atomicStore,
        commit: (chunk, outcome) => this.commitChunk(chunk, outcome),
        client: this.deps.llmClient(settings),
        concurrency: settings.concurrency,
        retryFailed: request.retryFailed,
        signal: stop.signal,
        onProgress,
      });
      const embedder = await this.libraryEmbedder(ranked.embedderId).catch(() => undefined);
      // The step after the calls (tens of seconds for hundreds of entities) is named, not a bar stuck at its end.
      if (embedder && (parts.kg || parts.atomic))
        onProgress?.({ stage: 'embed', done: 0, total: summary.finished, rate: 0 });
      const embedded = embedder && parts.kg ? (await embedKg(this.deps.store, embedder)).embedded : 0;
      const atomicEmbedded =
        embedder && parts.atomic ? (await embedAtomic(this.atomicStore, embedder)).embedded : 0;
      const failedChunks = new Set(summary.failures.map((f) => f.chunkId));
      return {
        selected: summary.selected,
        skipped: summary.skipped,
        done: summary.finished - failedChunks.size,
        failed: failedChunks.size,
        remaining: summary.remaining,
        cancelled: summary.cancelled,
        ...(summary.error ? { error: summary.error } : {}),
        calls: summary.calls,
        inputTokens: summary.inputTokens,
        outputTokens: summary.outputTokens,
        cost: summary.cost,
        currency: currencyOf(settings),
        failures: summary.failures.map((f) => ({
          chunkId: f.chunkId,
          reason: f.part === 'atomic' ? `atomic questions: ${f.reason}` : f.reason,
        })),
        embedded,
        kg: summary.kg,
        atomic: { ...summary.atomic, embedded: atomicEmbedded },
      };
    } finally {
      this.buildStop = null;
    }
  }

  /** One chunk's parts in ONE transaction: a one-pass chunk is in the KG and the atomic layer, or in neither. */
  private async commitChunk(chunk: DistillChunkInput, outcome: DistillOutcome): Promise<void> {
    const { db } = this.deps.repo;
    await db.transaction(
      'rw',
      [db.chunks, db.kgChunks, db.kgEntities, db.kgRelations, db.atomicQuestions, db.atomicChunks],
      async () => {
        // Its document was removed while the call ran: nothing of it is written (no orphan entity or question).
        if (!(await db.chunks.get(chunk.id))) return;
        if (outcome.kg) await this.deps.store.commit(chunk.id, outcome.kg);
        if (outcome.atomic) await this.atomicStore.commit(chunk, outcome.atomic);
      },
    );
  }

  /**
   * The library's chunks in build order, computed once per library state, from the source its questions read: a
   * library loaded here and dropped at once (questions have their own engine in the query worker), or a large one's
   * paged index, never loaded (it may not fit this worker's memory: about 1 ms and 20 MB a thousand chunks loaded,
   * docs/results/tab-scale.md). Pages that lag behind the library (a drop goes on) are ranked as they are: the
   * documents added since are ranked at the next estimate.
   */
  private async ranking(): Promise<Ranked> {
    const { db } = this.deps.repo;
    const signature = `${await db.documents.count()}:${await db.chunks.count()}`;
    const cached = await this.ranked?.catch(() => null);
    if (!cached || cached.signature !== signature) {
      this.ranked = this.source().then(async (source) => ({
        signature,
        ...(await source.buildOrder()),
        embedderId: (await db.meta.get('index'))?.embedderId ?? null,
      }));
    }
    try {
      return await this.ranked!;
    } catch (error) {
      this.ranked = null;
      throw error;
    }
  }

  /** The library as its questions read it (QueryService chooses the same way): its paged index, or in memory. */
  private async source(): Promise<LibrarySource> {
    const stored = await openStoredPages(this.deps.repo.db);
    if (stored) return openSource({ pages: stored });
    const corpus = await this.deps.repo.loadCorpus();
    if (corpus.chunks.length === 0) throw new Error('KG: the library is empty; add documents first');
    return openSource({ library: openLibrary(corpus, loadEngine, false) });
  }

  private async libraryEmbedder(embedderId: string | null): Promise<Embedder | undefined> {
    if (!embedderId) return undefined;
    const embedder = await this.deps.embedders.get(await readEmbedderChoice(this.deps.repo));
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

function checkParts(parts: DistillParts): void {
  if (!parts.kg && !parts.atomic)
    throw new Error('KG: choose what to build (the KG, atomic questions, or both)');
  const max = parts.maxQuestions ?? DEFAULT_MAX_QUESTIONS;
  if (!(Number.isInteger(max) && max >= 1 && max <= 50)) {
    throw new Error(
      `KG: questions per chunk must be a whole number from 1 to 50, got ${String(parts.maxQuestions)}`,
    );
  }
  const t = parts.temperature ?? DEFAULT_ATOMIZE_TEMPERATURE;
  if (!(t >= 0 && t <= 2))
    throw new Error(`KG: the atomizing temperature must be from 0 to 2, got ${String(t)}`);
}

/** The KG worker's API as the page calls it (workers/kg.worker.ts only exposes this service). */
export type KgApi = KgBuildService;
