// The question-time service behind the query worker: one loaded library (the IndexedDB corpus, or a bundle opened
// read-only with ?bundle=), one RetrievalEngine over it, one question embedder, the KG index for the KG modes, and
// the streamed LLM answer with cancel. Every mode is answered through `ask` (the modes themselves are entries in
// modes.ts). Dependencies are injected, so Node tests run it over fake-indexeddb and a loopback LLM server.
import { answerQuestion } from '../../core/answer/index.ts';
import { AtomicIndex } from '../../core/atomic/index.ts';
import type { AtomicQuestion } from '../../core/atomic/index.ts';
import { isCompactGraph } from '../../core/graph/index.ts';
import { KgIndex } from '../../core/kg/index.ts';
import type { KgEntity, KgRelation } from '../../core/kg/index.ts';
import type { LlmClient } from '../../core/llm/index.ts';
import type { LlmSettings } from '../../core/llm/index.ts';
import type { RetrievalEngine } from '../../core/retrieval/index.ts';
import { parseMode } from '../../core/retrieval/index.ts';
import type { DocumentRecord, Embedder } from '../../core/types.ts';
import type { DownloadProgress, ReadOnlyBundle } from '../../store/bundleImport.ts';
import type { IndexMeta } from '../../store/db.ts';
import type { LoadedCorpus } from '../../store/repo.ts';
import { engineLoaded, loadEngine, prepareOpen } from '../library/engine.ts';
import type { PrebuiltGraph } from '../library/graphPrebuild.ts';
import { pageRange } from '../../core/pages.ts';
import { libraryGraph, questionGraph } from './graphView.ts';
import { askLibrary } from './askLibrary.ts';
import { openLibrary, sentencesWithin, type QuestionLibrary } from '../library/questionLibrary.ts';
import { bundleAtomicIndex, bundleKgIndex } from '../library/readOnlyBundle.ts';
import type { LibraryGraph, QuestionGraph, QuestionGraphCaps } from './graphViewProtocol.ts';
import { readEmbedderChoice } from '../embed/embedderChoice.ts';
import type { EmbedderChoice } from '../embed/embedderChoice.ts';
import {
  RETRIEVAL_MODES,
  type AnswerOut,
  type AnswerRequest,
  type AskRequest,
  type AskResult,
  type TraceListener,
} from './queryProtocol.ts';
import { LLM_SETTINGS_KEY, readLlmSettings } from '../llm/llmSettings.ts';
import { evaluateSet } from './evaluate.ts';
import type { EvalProgress, EvalRequest, EvalResult } from './evalProtocol.ts';
import type { LedgerPurpose } from '../ledger/ledgerProtocol.ts';
import { modeHandler } from './modes.ts';

export interface QueryDeps {
  /** The IndexedDB library and its settings table (the embedder choice, the LLM endpoint). */
  library: {
    loadCorpus(mark?: (step: string) => void): Promise<LoadedCorpus>;
    /**
     * The index record alone (one small read): a question checks it against the library it would answer from,
     * and reloads when the graph was written since (the page tells of changes too, but a question asked as indexing
     * ends can come before the page has seen the last one).
     */
    getMeta?(): Promise<IndexMeta | undefined>;
    getSetting<T>(key: string): Promise<T | undefined>;
  };
  /** The library's KG (DexieKgStore). */
  kgStore: { entities(): Promise<KgEntity[]>; relations(): Promise<KgRelation[]> };
  /** The library's atomic questions (DexieAtomicStore); absent: the library has no atomic layer. */
  atomicStore?: { questions(): Promise<AtomicQuestion[]> };
  /** One memoized question embedder (EmbedderHolder). */
  embedders: { get(choice: EmbedderChoice): Promise<Embedder>; dispose(): Promise<void> };
  /** Fetches and validates a same-origin bundle without writing anything (openBundleReadOnly). */
  openBundle(url: string, onProgress?: DownloadProgress): Promise<ReadOnlyBundle>;
  /** `purpose` names the calls in the network ledger (src/services/ledger/ledger.ts). */
  llmClient(settings: LlmSettings, purpose?: LedgerPurpose): LlmClient;
  /** Builds the engine from a corpus; defaults to loadEngine (reusing the stored concept graph). */
  loadEngine?: (corpus: LoadedCorpus) => RetrievalEngine;
  /**
   * Builds the stored compact graph's co-occurrence and walk graphs elsewhere (another worker:
   * src/services/library/graphPrebuild.ts) while the library is read and its text analysed. Absent: built here.
   */
  prebuildGraph?: () => Promise<PrebuiltGraph | null>;
}

/** A promise with its outcome readable synchronously (whether the model or the library is ready right now). */
interface Tracked<T> {
  promise: Promise<T>;
  value?: T;
  done: boolean;
}

function track<T>(promise: Promise<T>): Tracked<T> {
  const t: Tracked<T> = { promise, done: false };
  promise.then(
    (value) => Object.assign(t, { value, done: true }),
    () => undefined,
  );
  return t;
}

/** Modes whose ranking can be computed without the question vector (`dense` cannot, the KG modes are not staged). */
function answersLexically(mode: string): boolean {
  if (!(RETRIEVAL_MODES as readonly string[]).includes(mode) && !mode.startsWith('rrf:')) return false;
  const parsed = parseMode(mode);
  return 'base' in parsed ? parsed.base !== 'dense' : !parsed.fuse.includes('dense');
}

/** Called with the lexical evidence while the question is still being embedded (or the library reloaded). */
export type EarlyEvidence = (result: AskResult) => void;

export class QueryService {
  private readonly load: (corpus: LoadedCorpus) => RetrievalEngine;
  private loaded: Tracked<QuestionLibrary> | null = null;
  /**
   * The last library that loaded, kept when the library changes: while the new one loads, a question gets its
   * early (lexical) evidence from this one, marked stale. Never set for a read-only bundle.
   */
  private previous: QuestionLibrary | null = null;
  private embedder: Tracked<Embedder> | null = null;
  private kgIndex: Promise<KgIndex> | null = null;
  /** The atomic-question index, loaded on first use like the KG's (null: no atomic layer). */
  private atomicIndex: Promise<AtomicIndex | null> | null = null;
  /**
   * Set as soon as the page asks for a bundle read-only (?bundle=…), before it has arrived: from then on every
   * question waits for the bundle (or its error) and the library in IndexedDB is never read again, apart from
   * the settings (the embedder choice, the LLM endpoint).
   */
  private readOnly: {
    url: string;
    library: Tracked<QuestionLibrary>;
    kg: Promise<KgIndex>;
    atomic: Promise<AtomicIndex | null>;
  } | null = null;
  private answerStop: AbortController | null = null;
  /** Stops the question being answered by a reasoning mode (its LLM calls are aborted). */
  private askStop: AbortController | null = null;
  /** When each step of opening the read-only bundle ended, ms after openBundle was called (benchmarks read it). */
  private opened: Record<string, number> | null = null;
  /** When each step of the last library load from IndexedDB ended (loadTimings). */
  private lastLoad: Record<string, number> | null = null;
  /** The graph each loaded library was read with (graphStamp of its index record). */
  private readonly stamps = new WeakMap<QuestionLibrary, string>();
  /** Stops the evaluation being run (src/services/questions/evaluate.ts). */
  private evalStop: AbortController | null = null;

  constructor(private readonly deps: QueryDeps) {
    this.load = deps.loadEngine ?? loadEngine;
  }

  /**
   * Forgets what was loaded: `library` (documents added or removed) reloads everything on the next question or
   * warm-up, `kg` (a KG build finished) only the KG index. Until the new library is ready, the one loaded before
   * still gives questions their early evidence (marked stale). A read-only bundle never changes, so it is kept.
   */
  invalidate(what: 'library' | 'kg' = 'library'): void {
    if (this.readOnly) return;
    this.kgIndex = null;
    // The KG build service writes the atomic layer too: it is reloaded with the KG.
    this.atomicIndex = null;
    if (what === 'library') {
      if (this.loaded?.done) this.previous = this.loaded.value ?? this.previous;
      this.loaded = null;
    }
  }

  /**
   * Opens a bundle from a same-origin path or URL read-only: questions are answered from it, nothing is written
   * to IndexedDB. The question embedder loads meanwhile, so the first question does not wait for the model after
   * the bundle. Returns its counts for the Library view.
   */
  async openBundle(
    url: string,
    /** Bytes downloaded so far (a Comlink proxy from the page, which shows them). */
    onProgress?: DownloadProgress,
  ): Promise<{ url: string; counts: Record<string, number>; embedderId: string | null }> {
    const t0 = performance.now();
    const marks: Record<string, number> = {};
    const mark = (step: string) => (marks[step] = Math.round(performance.now() - t0));
    this.opened = marks;
    const opening = this.deps.openBundle(url, onProgress);
    const library = track(
      opening.then((bundle) => {
        mark('bundleRead');
        const loaded = openLibrary(bundle.corpus, this.load);
        mark('engine');
        return loaded;
      }),
    );
    const kg = opening.then((bundle) => bundleKgIndex(bundle.tables));
    const atomic = opening.then((bundle) => bundleAtomicIndex(bundle.tables));
    // Before any await: a question asked while the bundle downloads must not reach the local library.
    this.readOnly = { url, library, kg, atomic };
    this.atomicIndex = atomic;
    atomic.catch(() => undefined);
    this.loaded = library;
    this.previous = null;
    this.kgIndex = kg;
    // A bad bundle is reported here and to every later question (which awaits these), never as unhandled.
    library.promise.catch(() => undefined);
    kg.catch(() => undefined);
    void this.warmEmbedder(mark);
    const bundle = await opening;
    await library.promise;
    return { url: bundle.url, counts: bundle.counts, embedderId: bundle.embedder?.id ?? null };
  }

  /**
   * Loads the library and the question embedder, both at once, ahead of the first question; with `embedder`
   * false (the page knows the library has no sentence vectors, or leaves it to the library on two cores) the
   * model only once the library turns out to have them. The page calls it when the app opens and again after
   * the library changed; questions meanwhile get early evidence from the library loaded before.
   */
  async warmUp(options: { embedder?: boolean } = {}): Promise<void> {
    const library = this.library().catch(() => null);
    const model = options.embedder === false ? Promise.resolve() : this.warmEmbedder();
    const loaded = await library;
    if (loaded?.layers.semantic && options.embedder === false) await this.warmEmbedder();
    await model;
  }

  /** One source document (for the viewer when the library is a read-only bundle). */
  async getDocument(docId: string): Promise<DocumentRecord | undefined> {
    return (await this.library()).documents.get(docId);
  }

  /**
   * Answers a question in any mode: ranked evidence within the budget, with provenance and best sentences.
   * With `onEarly` (a Comlink proxy from the page), a mode that can rank without the question vector first
   * sends its lexical evidence when waiting for the vector would be slow: the model is still loading, or the
   * library is reloading after a change (then from the library as it was, marked stale). The returned result
   * is always the mode as it ranks with the vector over the current library (identical to asking without
   * `onEarly`); `rankingChanged` says whether it ranks otherwise than the early evidence did.
   */
  async ask(request: AskRequest, onEarly?: EarlyEvidence, onTrace?: TraceListener): Promise<AskResult> {
    const started = performance.now();
    modeHandler(request.mode); // an unknown mode is refused before anything loads
    await this.reloadIfGraphChanged();
    const library = this.library();
    library.catch(() => undefined);
    const early = onEarly && answersLexically(request.mode) ? onEarly : undefined;
    let sent: AskResult | undefined;
    const sendEarly = async (from: QuestionLibrary, stale: boolean): Promise<void> => {
      const result = await askLibrary(from, request, { kg: () => this.kg() });
      sent = { ...result, stage: 'early', stale, milliseconds: performance.now() - started };
      early?.(sent);
    };
    if (early && !this.loaded?.done && this.previous) await sendEarly(this.previous, true);
    const loaded = await library;
    const wantsVector = loaded.layers.semantic && loaded.embedderId !== null;
    // A model that finished loading while this thread was busy building the engine has its message queued:
    // let it in before deciding that the vector is slow to come.
    if (early && !sent && wantsVector && !this.embedder?.done) await new Promise((r) => setTimeout(r, 0));
    if (early && !sent && wantsVector && !this.embedder?.done) {
      this.questionEmbedder().catch(() => undefined); // the model starts loading before the lexical search
      await sendEarly(loaded, false);
    }
    // The engine still computes its concept vectors (just opened): the lexical evidence comes first, then the
    // result (measured with ?bundle=: the first evidence about 2 s sooner than waiting for the result).
    if (early && !sent && wantsVector && !loaded.engine.semanticReady) await sendEarly(loaded, false);
    const vector = wantsVector ? await this.questionVector(loaded, request.question) : undefined;
    this.askStop?.abort();
    const stop = new AbortController();
    this.askStop = stop;
    let result: AskResult;
    try {
      result = await askLibrary(loaded, request, {
        vector,
        kg: () => this.kg(),
        atomic: () => this.atomic(),
        llm: async () => this.deps.llmClient(await readLlmSettings(this.deps.library), 'question modes'),
        embed: wantsVector ? (text) => this.questionVector(loaded, text) : undefined,
        onTrace,
        signal: stop.signal,
      });
    } finally {
      if (this.askStop === stop) this.askStop = null;
    }
    return {
      ...result,
      ...(sent ? { rankingChanged: !sameRanking(sent, result) } : {}),
      // Loading the library and embedding the question count: that is what the user waited for.
      milliseconds: performance.now() - started,
    };
  }

  /**
   * The concept-graph view of a question: the `ppr` walk's bounded neighbourhood over the same library and question
   * vector as `ask` (src/services/questions/graphView.ts).
   */
  async graphForQuestion(question: string, caps: QuestionGraphCaps = {}): Promise<QuestionGraph> {
    const loaded = await this.library();
    const wantsVector = loaded.layers.semantic && loaded.embedderId !== null;
    const vector = wantsVector ? await this.questionVector(loaded, question) : undefined;
    return questionGraph(loaded, question, vector, caps);
  }

  /** The library's top concepts by PageRank, or the concept a search finds and its neighbours (graphView.ts). */
  async topConcepts(options: { search?: string; limit?: number } = {}): Promise<LibraryGraph> {
    return libraryGraph(await this.library(), options);
  }

  /**
   * Streams a cited answer over the evidence the page shows (`onDelta` is a Comlink proxy). A new answer or
   * cancelAnswer() aborts the one in flight. The API key is read here, where the request to its endpoint is made.
   */
  async answer(request: AnswerRequest, onDelta?: (delta: string) => void): Promise<AnswerOut> {
    const settings = await readLlmSettings(this.deps.library);
    const library = await this.library().catch(() => null);
    this.answerStop?.abort();
    const stop = new AbortController();
    this.answerStop = stop;
    const context = request.evidence.map((e) => ({
      chunkId: e.chunkId,
      title: e.docTitle,
      text: e.text,
      sentences: sentencesWithin(library, e.chunkId, e.chunkStart, e.text.length),
      pageStart: e.pageStart,
      pageEnd: e.pageEnd,
    }));
    try {
      const a = await answerQuestion(this.deps.llmClient(settings, 'answer'), request.question, context, {
        facts: request.facts,
        onDelta,
        signal: stop.signal,
      });
      const byChunk = new Map(request.evidence.map((e) => [e.chunkId, e]));
      return {
        text: a.text,
        noAnswer: a.noAnswer,
        citations: a.citations.map((cit) => {
          const e = byChunk.get(cit.chunkId)!;
          const start = e.chunkStart + (cit.sentence?.start ?? 0);
          const end = e.chunkStart + (cit.sentence?.end ?? e.text.length);
          // The cited sentence's own pages where the document's pages are known, else the passage's.
          const pageStarts = library?.documents.get(e.docId)?.pageStarts;
          const pages = pageStarts?.length
            ? pageRange(pageStarts, start, end)
            : cit.pageStart !== undefined
              ? { pageStart: cit.pageStart, pageEnd: cit.pageEnd ?? cit.pageStart }
              : {};
          return {
            n: cit.n,
            chunkId: cit.chunkId,
            docId: e.docId,
            start,
            end,
            sentence: cit.sentence?.text ?? '',
            ...pages,
          };
        }),
        inputTokens: a.usage.inputTokens,
        outputTokens: a.usage.outputTokens,
        cost: a.usage.cost,
      };
    } finally {
      if (this.answerStop === stop) this.answerStop = null;
    }
  }

  /** Whether an LLM endpoint is configured (the Ask view then opens on the written answer); no key leaves. */
  async llmConfigured(): Promise<boolean> {
    const s = await this.deps.library.getSetting<LlmSettings>(LLM_SETTINGS_KEY);
    return Boolean(s?.baseUrl && s.model);
  }

  /** Stops the answer being streamed (the text so far is not returned). */
  cancelAnswer(): void {
    this.answerStop?.abort();
  }

  /** Stops a reasoning mode's run (decompose, logical) at its next LLM call; the question then fails as cancelled. */
  cancelAsk(): void {
    this.askStop?.abort();
  }

  /**
   * Runs a QA set in the given modes and budgets over the loaded library (src/services/questions/evaluate.ts), reporting
   * progress through `onProgress` (a Comlink proxy). cancelEvaluation() stops it; what was scored is returned.
   */
  async evaluate(request: EvalRequest, onProgress?: (progress: EvalProgress) => void): Promise<EvalResult> {
    const library = await this.library();
    const wantsVector = library.layers.semantic && library.embedderId !== null;
    this.evalStop?.abort();
    const stop = new AbortController();
    this.evalStop = stop;
    try {
      return await evaluateSet(request, {
        library,
        vector: wantsVector ? (text) => this.questionVector(library, text) : undefined,
        kg: () => this.kg(),
        llm: async () => this.deps.llmClient(await readLlmSettings(this.deps.library), 'evaluation'),
        signal: stop.signal,
        onProgress,
      });
    } finally {
      if (this.evalStop === stop) this.evalStop = null;
    }
  }

  /** Stops the evaluation at its next question (or LLM call). */
  cancelEvaluation(): void {
    this.evalStop?.abort();
  }

  /** Frees the question embedder and the loaded library (both are loaded again lazily). */
  async dispose(): Promise<void> {
    this.answerStop?.abort();
    this.askStop?.abort();
    if (!this.readOnly) {
      this.loaded = null;
      this.previous = null;
      this.kgIndex = null;
      this.atomicIndex = null;
    }
    this.embedder = null;
    await this.deps.embedders.dispose();
  }

  private async library(): Promise<QuestionLibrary> {
    const current = (this.loaded ??= this.readOnly?.library ?? track(this.loadLibrary()));
    try {
      const library = await current.promise;
      // The new library is here: the one before it is no longer needed as the fallback (see invalidate).
      if (!this.readOnly && this.loaded === current) this.previous = null;
      return library;
    } catch (error) {
      // Forget a failed load (an empty library may be filled), unless the bundle has replaced it meanwhile.
      if (this.loaded === current && !this.readOnly) this.loaded = null;
      throw error;
    }
  }

  /**
   * Forgets the loaded library when the stored graph is no longer the one it was read with: a question asked right
   * as indexing ends must not be answered from the library of before (then the one before gives early evidence,
   * marked stale, while the new one loads).
   */
  private async reloadIfGraphChanged(): Promise<void> {
    const loaded = this.loaded;
    if (this.readOnly || !loaded?.done || !loaded.value || !this.deps.library.getMeta) return;
    const meta = await this.deps.library.getMeta().catch(() => undefined);
    const stamp = this.stamps.get(loaded.value);
    if (stamp !== undefined && this.loaded === loaded && graphStamp(meta) !== stamp)
      this.invalidate('library');
  }

  /** Reads the library from IndexedDB and opens its engine, noting where the time went (loadTimings). */
  private async loadLibrary(): Promise<QuestionLibrary> {
    const t0 = performance.now();
    // When it began, on the wall clock (a bench compares it with the page's navigation).
    const marks: Record<string, number> = { beganAtEpochMs: Math.round(performance.timeOrigin + t0) };
    this.lastLoad = marks;
    const mark = (step: string) => (marks[step] = Math.round(performance.now() - t0));
    // Asked for first: the graph worker reads its record and builds while this thread reads and analyses. Only for
    // the first library of this worker: a later one may reuse the lexical layers of the one before (loadEngine).
    const prebuilding =
      this.deps.loadEngine || engineLoaded() ? undefined : this.deps.prebuildGraph?.().catch(() => null);
    const corpus = await this.deps.library.loadCorpus((table) => mark(`read.${table}`));
    marks.corpusRead = Math.round(performance.now() - t0);
    let load = this.load;
    if (prebuilding && isCompactGraph(corpus.graph?.graph)) {
      const prepared = prepareOpen(corpus);
      mark('textPrepared');
      const prebuilt = await prebuilding;
      mark('graphPrebuilt');
      // Only graphs made from the very record read here (the store may have changed in between).
      const graph = prebuilt && prebuilt.builtAt === corpus.graph?.builtAt ? prebuilt.graph : undefined;
      marks.prebuiltUsed = graph ? 1 : 0;
      load = (c) => loadEngine(c, { ...prepared, graph });
    }
    const library = openLibrary(corpus, load);
    this.stamps.set(library, graphStamp(corpus.meta));
    marks.opened = Math.round(performance.now() - t0);
    for (const [step, ms] of Object.entries(library.engine.timings)) marks[`engine.${step}`] = Math.round(ms);
    return library;
  }

  private async atomic(): Promise<AtomicIndex | null> {
    const current = (this.atomicIndex ??=
      this.readOnly?.atomic ??
      (this.deps.atomicStore?.questions() ?? Promise.resolve([])).then((questions) =>
        questions.length ? new AtomicIndex(questions) : null,
      ));
    try {
      return await current;
    } catch (error) {
      if (this.atomicIndex === current && !this.readOnly) this.atomicIndex = null;
      throw error;
    }
  }

  private async kg(): Promise<KgIndex> {
    const current = (this.kgIndex ??=
      this.readOnly?.kg ??
      Promise.all([this.deps.kgStore.entities(), this.deps.kgStore.relations()]).then(
        ([entities, relations]) => new KgIndex(entities, relations),
      ));
    try {
      return await current;
    } catch (error) {
      if (this.kgIndex === current && !this.readOnly) this.kgIndex = null;
      throw error;
    }
  }

  /**
   * The configured question embedder, loaded once: a changed choice in the settings is picked up on the next
   * load (EmbedderHolder keeps one model per choice).
   */
  private questionEmbedder(): Promise<Embedder> {
    if (this.embedder) return this.embedder.promise;
    const loading = track(
      readEmbedderChoice(this.deps.library).then((choice) => this.deps.embedders.get(choice)),
    );
    this.embedder = loading;
    loading.promise.catch(() => {
      // A model that failed to load (offline before it was cached) is tried again by the next question.
      if (this.embedder === loading) this.embedder = null;
    });
    return loading.promise;
  }

  /**
   * Where the time went in the last load of the library from IndexedDB (null before any), ms after it started:
   * the corpus read, the engine opened, and the engine's own steps. For benchmarks.
   */
  loadTimings(): Record<string, number> | null {
    return this.lastLoad && { ...this.lastLoad };
  }

  /** Where the time went when the read-only bundle was opened (null before any): for benchmarks. */
  openTimings(): Record<string, number> | null {
    return this.opened && { ...this.opened };
  }

  /** Loads the question embedder and runs it once (its first call compiles the model's kernels). */
  private async warmEmbedder(mark?: (step: string) => void): Promise<void> {
    try {
      const embedder = await this.questionEmbedder();
      mark?.('modelLoaded');
      await embedder.embed(['warm up']);
      mark?.('modelWarm');
    } catch {
      // A missing model: the first real question reports it.
    }
  }

  /** The question vector, when the configured embedder is the one that built the library's vectors. */
  private async questionVector(
    library: QuestionLibrary,
    question: string,
  ): Promise<Float32Array | undefined> {
    const embedder = await this.questionEmbedder();
    // Vectors of another embedder would be meaningless against this index: answer lexically instead.
    if (embedder.id !== library.embedderId) return undefined;
    return embedder.embed([question]);
  }
}

/**
 * What the index record says of the stored concept graph: written again (documents added or removed, the semantic
 * layer built) means other counts or another layer. Stored vectors alone change nothing a question reads until
 * that rebuild.
 */
function graphStamp(meta: IndexMeta | undefined): string {
  return JSON.stringify([
    meta?.concepts ?? 0,
    meta?.edges ?? 0,
    meta?.layers.semantic ?? false,
    meta?.embedderId ?? null,
  ]);
}

/** Same chunks in the same order. */
function sameRanking(a: AskResult, b: AskResult): boolean {
  return (
    a.evidence.length === b.evidence.length && a.evidence.every((e, i) => e.chunkId === b.evidence[i].chunkId)
  );
}

/** The query worker's API as the page calls it (workers/query.worker.ts only exposes this service). */
export type QueryApi = QueryService;
