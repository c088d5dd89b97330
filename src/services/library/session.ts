// The library questions are answered from, as the query worker holds it: loaded once from IndexedDB (its graph
// built in a graph worker meanwhile) or opened read-only from a bundle (?bundle=), its KG and atomic indexes loaded
// on first use, and kept until the library changes. Staleness lives here: a changed library is forgotten (the page
// says so, or the index record shows another graph), and while the new one loads the one before stays available
// as a fallback for early, stale-marked evidence. The query service (src/services/query/queryService.ts) asks
// it for a library; it knows nothing of questions.
import { AtomicIndex } from '../../core/atomic/index.ts';
import type { AtomicQuestion } from '../../core/atomic/index.ts';
import { isCompactGraph, isConceptTableGraph, type ConceptGraphIndex } from '../../core/graph/index.ts';
import { KgIndex } from '../../core/kg/index.ts';
import type { KgEntity, KgRelation } from '../../core/kg/index.ts';
import type { RetrievalEngine } from '../../core/retrieval/index.ts';
import type { DownloadProgress, ReadOnlyBundle, WholeBundleFit } from '../bundleBytes/bundleFetch.ts';
import type { IndexMeta } from '../../store/db.ts';
import type { LoadedCorpus } from '../../store/repo.ts';
import { engineLoaded, extendOpen, loadEngine, prepareOpen, takeRetrievalInput } from './engine.ts';
import type { PrebuildRequest, PrebuiltGraph } from './graphPrebuild.ts';
import { tableGraphFromHanded, type HandedLexicalGraph } from './graphHandOver.ts';
import { coveredByGraph, sameLexicalLibrary } from './graphCoverage.ts';
import { openLibrary, type QuestionLibrary } from './questionLibrary.ts';
import { bundleAtomicIndex, bundleKgIndex } from './readOnlyBundle.ts';
import { track, type Tracked } from './tracked.ts';

export interface LibrarySessionDeps {
  /** The IndexedDB library. */
  library: {
    loadCorpus(mark?: (step: string) => void): Promise<LoadedCorpus>;
    /**
     * The corpus `held` (read before) with the documents stored since, reading only those (null: a document of
     * `held` was removed). Absent: every load reads the whole library.
     */
    loadAdded?(held: LoadedCorpus, mark?: (step: string) => void): Promise<LoadedCorpus | null>;
    /**
     * The index record alone (one small read): a question checks it against the library it would answer from,
     * and reloads when the graph was written since (the page tells of changes too, but a question asked as indexing
     * ends can come before the page has seen the last one).
     */
    getMeta?(): Promise<IndexMeta | undefined>;
  };
  /** The library's KG (DexieKgStore). */
  kgStore: { entities(): Promise<KgEntity[]>; relations(): Promise<KgRelation[]> };
  /** The library's atomic questions (DexieAtomicStore); absent: the library has no atomic layer. */
  atomicStore?: { questions(): Promise<AtomicQuestion[]> };
  /** Fetches and validates a same-origin bundle without writing anything (openBundleReadOnly). */
  openBundle(url: string, onProgress?: DownloadProgress, fit?: WholeBundleFit): Promise<ReadOnlyBundle>;
  /** Builds the engine from a corpus; defaults to loadEngine (reusing the stored concept graph). */
  loadEngine?: (corpus: LoadedCorpus) => RetrievalEngine;
  /**
   * Builds the stored graph elsewhere (another worker: src/services/library/graphPrebuild.ts) while the library is
   * read and its text analysed: a compact graph's co-occurrence and walk graphs, a concept table's ranked graph.
   * Absent: built here.
   */
  prebuildGraph?: (request: PrebuildRequest) => Promise<PrebuiltGraph | null>;
  /**
   * The lexical graph the ingest worker handed over after a drop's last refresh (src/services/library/graphHandOver.ts),
   * taken by the next load: when it is the stored concept table's, the graph worker is not started. Undefined (none
   * held or coming) or null: prebuildGraph.
   */
  handedGraph?: () => Promise<HandedLexicalGraph | null> | undefined;
}

export class LibrarySession {
  private readonly load: (corpus: LoadedCorpus) => RetrievalEngine;
  private loaded: Tracked<QuestionLibrary> | null = null;
  /**
   * The last library that loaded, kept when the library changes: while the new one loads, a question gets its
   * early (lexical) evidence from this one, marked stale. Never set for a read-only bundle.
   */
  private previous: QuestionLibrary | null = null;
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
  /**
   * The load from IndexedDB under way, if any, kept when the library changes meanwhile: a question after the change
   * waits for it to end before the next load starts, so one library is read at a time. Questions asked every second
   * during a drop started a load each before (every store write changes the library): on docs-scale that held many
   * corpora at once, 805 MB in the query worker (docs/results/trust.md).
   */
  private inFlight: Promise<unknown> | null = null;
  /** A load waiting for the one in flight: it reads the library when it starts, so a change before then keeps it. */
  private queued: Tracked<QuestionLibrary> | null = null;
  /** When each step of the last library load from IndexedDB ended (loadTimings). */
  private lastLoad: Record<string, number> | null = null;
  /**
   * The last load that opened its library: a question's load is often followed at once by another (the page saw a
   * change meanwhile), whose marks told a bench nothing of the load the question waited for.
   */
  private lastOpened: Record<string, number> | null = null;
  /** The graph each loaded library was read with (graphStamp of its index record). */
  private readonly stamps = new WeakMap<QuestionLibrary, string>();
  /**
   * The corpus each library was opened from, without its vectors (the records are the library's own, so this holds
   * little more): the next load reads only the documents stored since and analyses only their text (loadLibrary).
   */
  private readonly corpora = new WeakMap<QuestionLibrary, LoadedCorpus>();
  /**
   * Documents stored when each library was read that its graph did not cover yet (coveredByGraph: a drop between two
   * refreshes): its answers are over the others, and the page asks again once the refresh takes them in.
   */
  private readonly uncovered = new WeakMap<QuestionLibrary, number>();
  /** What each loaded library holds, by its index record (contentStamp; absent: the record cannot tell). */
  private readonly contents = new WeakMap<QuestionLibrary, string>();
  /** What each loaded library answers from, by its index record (coveredStamp; absent: the record cannot tell). */
  private readonly answersFrom = new WeakMap<QuestionLibrary, string>();
  /**
   * The loaded library after the page said the library changed, not yet compared with the store: the next question
   * reads the index record and reloads only if the library it tells of is another. The page's stamp changes when
   * the worker's load has already read the change (a question waiting for the first documents loads the library
   * before the page's refresh has seen the graph written): on MuSiQue that made the first question after
   * "searchable" read and analyse the same 6,761 documents again, 30 s at load 15 (docs/results/trust.md).
   */
  private unverified: { library: Tracked<QuestionLibrary>; check?: Promise<void> } | null = null;

  constructor(private readonly deps: LibrarySessionDeps) {
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
      const done = this.loaded?.done ? this.loaded : null;
      if (done?.value && this.deps.library.getMeta && this.contents.has(done.value)) {
        this.unverified = { library: done };
        return;
      }
      this.unverified = null;
      if (this.loaded?.done) this.previous = this.loaded.value ?? this.previous;
      // A load that has not begun reading yet will read the changed library: it is kept.
      if (!this.queued || this.loaded !== this.queued) this.loaded = null;
    }
  }

  /**
   * Opens a bundle read-only: from this call on (before it has arrived) the library is the bundle's. Resolves
   * with the bundle once its engine is built; `mark` notes when each step ended (openTimings).
   */
  openBundle(
    url: string,
    onProgress: DownloadProgress | undefined,
    mark: (step: string) => void,
    fit?: WholeBundleFit,
  ) {
    const opening = this.deps.openBundle(url, onProgress, fit);
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
    return opening.then(async (bundle) => {
      await library.promise;
      return bundle;
    });
  }

  /** Whether a bundle opened read-only replaced the library in IndexedDB (its pages are then not read either). */
  get readOnlyBundle(): boolean {
    return this.readOnly !== null;
  }

  /** Whether a library is loaded right now (a question then need not wait for one). */
  get ready(): boolean {
    return Boolean(this.loaded?.done);
  }

  /** The library loaded before the latest change, while the new one is not ready yet (else null). */
  get stale(): QuestionLibrary | null {
    return this.loaded?.done ? null : this.previous;
  }

  /** The current library, loading it if needed. */
  async library(): Promise<QuestionLibrary> {
    await this.verifyLoaded();
    const current = (this.loaded ??= this.readOnly?.library ?? this.nextLoad());
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
   * After the page said the library changed: keeps the loaded library if the index record tells of the same one
   * (its documents, sentences and chunks, its graph, whether every sentence has its vector), else forgets it
   * (then it gives early evidence, marked stale, while the new one loads). One read, shared by the questions
   * asked meanwhile.
   */
  private verifyLoaded(): Promise<void> {
    const unverified = this.unverified;
    if (!unverified || !this.deps.library.getMeta) return Promise.resolve();
    unverified.check ??= this.deps.library
      .getMeta()
      .catch(() => undefined)
      .then((meta) => {
        if (this.unverified === unverified) this.unverified = null;
        const library = unverified.library.value;
        if (this.loaded !== unverified.library || !library) return;
        const now = contentStamp(meta);
        if (now !== null && now === this.contents.get(library)) return;
        // Documents only added since, and not in the graph yet (the same graph record): the library answers as a new
        // load would (coveredByGraph), so it is kept, saying how many wait. Reading them only to keep the same engine
        // took 8.7 s of a 13.0-s first question after "searchable" on MuSiQue at load 17 (docs/results/trust.md).
        const waiting = documentsAhead(meta, this.answersFrom.get(library), library.documents.size);
        if (waiting !== null) {
          this.uncovered.set(library, waiting);
          return;
        }
        this.previous = library;
        this.loaded = null;
      });
    return unverified.check;
  }

  /**
   * Forgets the loaded library when the stored graph is no longer the one it was read with: a question asked right
   * as indexing ends must not be answered from the library of before (then the one before gives early evidence,
   * marked stale, while the new one loads).
   */
  async reloadIfGraphChanged(): Promise<void> {
    const loaded = this.loaded;
    if (this.readOnly || !loaded?.done || !loaded.value || !this.deps.library.getMeta) return;
    const meta = await this.deps.library.getMeta().catch(() => undefined);
    await this.verifyLoaded();
    if (this.loaded !== loaded) return;
    const stamp = this.stamps.get(loaded.value);
    if (stamp !== undefined && this.loaded === loaded && graphStamp(meta) !== stamp)
      this.invalidate('library');
  }

  /**
   * A load of the library, begun once the load in flight (a change made it stale) has ended: that one, when it
   * loads, becomes the fallback for early evidence in place of an older one, and is then let go.
   */
  private nextLoad(): Tracked<QuestionLibrary> {
    const before = this.inFlight as Promise<QuestionLibrary> | null;
    if (!before) return track(this.begin());
    const queued: Tracked<QuestionLibrary> = track(
      before.then(
        (library) => {
          // The stale load is the newest library loaded: early evidence comes from it while this one loads.
          if (!this.readOnly && this.loaded === queued) this.previous = library;
          return this.begin(queued);
        },
        () => this.begin(queued),
      ),
    );
    this.queued = queued;
    return queued;
  }

  /** Begins reading the library (the load in flight from now on); `queued`: the waiting load that begins. */
  private begin(queued?: Tracked<QuestionLibrary>): Promise<QuestionLibrary> {
    if (queued && this.queued === queued) this.queued = null;
    const loading = this.loadLibrary();
    this.inFlight = loading;
    const settle = () => {
      if (this.inFlight === loading) this.inFlight = null;
    };
    loading.then(settle, settle);
    return loading;
  }

  /** Reads the library from IndexedDB and opens its engine, noting where the time went (loadTimings). */
  private async loadLibrary(): Promise<QuestionLibrary> {
    const t0 = performance.now();
    // When it began, on the wall clock (a bench compares it with the page's navigation).
    const marks: Record<string, number> = { beganAtEpochMs: Math.round(performance.timeOrigin + t0) };
    this.lastLoad = marks;
    const mark = (step: string) => (marks[step] = Math.round(performance.now() - t0));
    // Asked for first: the graph worker reads the stored graph record and builds its graph while this thread reads
    // and analyses. A lexical library's graph from its concept table on every load (on this thread it took 4.5 s of
    // the load after each graph refresh on MuSiQue at load 53–66, docs/results/trust.md); a compact graph's parts
    // only for the first library of this worker (a later one may reuse the lexical layers of the one before).
    const compact = !engineLoaded();
    let prebuildAsked = false;
    const prebuild = () => {
      prebuildAsked = true;
      return this.deps.prebuildGraph?.({ compact }).catch(() => null);
    };
    // The graph the ingest worker handed over after a drop's last refresh, when one is held or on its way: the very
    // graph the graph worker would build from the stored table, so that worker is started only if none comes.
    const handing = this.deps.loadEngine
      ? undefined
      : this.deps
          .handedGraph?.()
          ?.catch(() => null)
          .then((handed) => (mark('graphReplied'), handed));
    let prebuilding: Promise<PrebuiltGraph | null | undefined> | undefined = this.deps.loadEngine
      ? undefined
      : handing
        ? handing.then((handed) => (handed || prebuildAsked ? undefined : prebuild()))
        : prebuild();
    // The library loaded before, while it is held: only what was stored since is read and analysed (a drop adds
    // documents and writes the graph again; the whole library read and analysed again took 22 s on MuSiQue at
    // load 18, docs/results/trust.md). A removal reads everything.
    const before = this.previous;
    const held = before ? this.corpora.get(before) : undefined;
    const grown =
      held && this.deps.library.loadAdded
        ? await this.deps.library.loadAdded(held, (step) => mark(`read.${step}`))
        : null;
    marks.incremental = grown ? 1 : 0;
    const read = grown ?? (await this.deps.library.loadCorpus((table) => mark(`read.${table}`)));
    // While a drop is ahead of the stored graph, the documents it covers (what the app calls searchable).
    let corpus = coveredByGraph(read);
    marks.uncoveredChunks = read.chunks.length - corpus.chunks.length;
    marks.corpusRead = Math.round(performance.now() - t0);
    const stored: unknown = corpus.graph?.graph;
    let handedTable: ConceptGraphIndex | undefined;
    if (handing && isConceptTableGraph(stored)) {
      const handed = await handing;
      mark('graphHanded');
      handedTable = handed ? tableGraphFromHanded(handed, stored) : undefined;
      if (handed) marks.handedUsed = handedTable ? 1 : 0;
      // Made for other chunks (a refresh between the two reads): the graph worker builds it, as before.
      if (!handedTable && !prebuildAsked) prebuilding = prebuild();
    } else if (handing && !prebuildAsked) prebuilding = prebuild();
    let load = this.load;
    if (before && held && sameLexicalLibrary(held, corpus, before.engine.hasVectors)) {
      // Nothing new the graph covers: the engine held answers as a new one would.
      marks.engineKept = 1;
      load = () => before.engine;
    } else if (!this.deps.loadEngine) {
      // The vectors in the engine's one array from here on, not also per document (takeRetrievalInput).
      const taken = takeRetrievalInput(corpus);
      const input = taken.input;
      corpus = taken.corpus;
      const extended = grown && before ? extendOpen(before.engine, input) : undefined;
      if (extended) mark('textExtended');
      load = (c) => loadEngine(c, extended ?? { input });
      if (handedTable) {
        const prepared = extended ?? prepareOpen(input);
        if (!extended) mark('textPrepared');
        const tableGraph = handedTable;
        load = (c) => loadEngine(c, { ...prepared, tableGraph });
      } else if (prebuilding && (isConceptTableGraph(stored) || (!extended && isCompactGraph(stored)))) {
        const prepared = extended ?? prepareOpen(input);
        if (!extended) mark('textPrepared');
        const prebuilt = await prebuilding;
        mark('graphPrebuilt');
        // Only graphs made from the very record read here (the store may have changed in between).
        const made = prebuilt && prebuilt.builtAt === corpus.graph?.builtAt ? prebuilt : undefined;
        marks.prebuiltUsed = made ? 1 : 0;
        load = (c) => loadEngine(c, { ...prepared, graph: made?.graph, tableGraph: made?.table });
      }
    }
    const library = openLibrary(corpus, load);
    if (read.documents.length > corpus.documents.length)
      this.uncovered.set(library, read.documents.length - corpus.documents.length);
    if (!this.deps.loadEngine) this.corpora.set(library, corpus);
    this.stamps.set(library, graphStamp(corpus.meta));
    const contents = contentStamp(corpus.meta);
    if (contents !== null) this.contents.set(library, contents);
    const answers = coveredStamp(corpus.meta);
    if (answers !== null) this.answersFrom.set(library, answers);
    marks.opened = Math.round(performance.now() - t0);
    this.lastOpened = marks;
    if (!marks.engineKept)
      for (const [step, ms] of Object.entries(library.engine.timings))
        marks[`engine.${step}`] = Math.round(ms);
    return library;
  }

  /** Documents stored when `library` was read that its graph did not cover (0: none; see coveredByGraph). */
  documentsAwaitingGraph(library: QuestionLibrary): number {
    return this.uncovered.get(library) ?? 0;
  }

  /** The `builtAt` of the stored graph record `library` was opened with (undefined: none, or not from IndexedDB). */
  graphBuiltAt(library: QuestionLibrary): number | undefined {
    return this.corpora.get(library)?.graph?.builtAt;
  }

  /** The atomic-question index, loaded on first use (null: the library has no atomic layer). */
  async atomic(): Promise<AtomicIndex | null> {
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

  /** The KG index, loaded on first use. */
  async kg(): Promise<KgIndex> {
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

  /** Forgets the loaded library and its indexes (loaded again lazily); a read-only bundle is kept. */
  release(): void {
    if (this.readOnly) return;
    this.releaseLibrary();
    this.kgIndex = null;
    this.atomicIndex = null;
  }

  /**
   * Forgets the loaded library but keeps its KG and atomic indexes: a library answered from its pages reads those
   * beside them (they are read again after a build or a change of the library: invalidate).
   */
  releaseLibrary(): void {
    if (this.readOnly) return;
    this.unverified = null;
    this.loaded = null;
    this.previous = null;
  }

  /**
   * Where the time went in the last load of the library from IndexedDB (null before any), ms after it started:
   * the corpus read, the engine opened, and the engine's own steps. For benchmarks.
   */
  loadTimings(): Record<string, number> | null {
    const last = this.lastOpened ?? this.lastLoad;
    if (!last) return null;
    // A load begun since the last one opened: when it began (it has no steps yet).
    const later = this.lastLoad !== last ? this.lastLoad?.beganAtEpochMs : undefined;
    return later === undefined ? { ...last } : { ...last, laterLoadBeganAtEpochMs: later };
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
    meta?.graphBuiltAt ?? null,
  ]);
}

/**
 * What a library read now would answer from, by the index record: the stored graph record (its `builtAt`, which a
 * removal drops), whether every sentence has its vector, and whether a drop projects it past its chunks. Documents
 * stored since without a refresh change none of these (coveredByGraph leaves them out). Null when the record cannot
 * tell (no graph `builtAt`, or no tally).
 */
function coveredStamp(meta: IndexMeta | undefined): string | null {
  const tally = meta?.sentenceTally;
  if (!meta || meta.graphBuiltAt === undefined || tally?.chunks === undefined) return null;
  return JSON.stringify([
    graphStamp(meta),
    meta.vectorRows >= tally.sentences,
    meta.projectedChunks !== undefined,
  ]);
}

/**
 * Documents stored ahead of the graph, when the library read with `held` (coveredStamp) would answer from the same
 * as a library read now; null when it would not, or the record cannot tell.
 */
function documentsAhead(
  meta: IndexMeta | undefined,
  held: string | undefined,
  documents: number,
): number | null {
  const now = coveredStamp(meta);
  const stored = meta?.sentenceTally?.documents;
  if (now === null || now !== held || stored === undefined || stored < documents) return null;
  return stored - documents;
}

/**
 * What the index record says of the whole library questions read: its documents, sentences and chunks (the tally
 * every write of documents keeps), its graph, whether every sentence has its vector (the engine takes the vectors
 * only then), and whether a drop projects it past its chunks (pagesThreshold.ts). Null when the record has no tally
 * with chunks (an import, a library from before it): it cannot tell, and a change reloads.
 */
function contentStamp(meta: IndexMeta | undefined): string | null {
  const tally = meta?.sentenceTally;
  if (!meta || tally?.chunks === undefined) return null;
  return JSON.stringify([
    graphStamp(meta),
    tally.documents,
    tally.sentences,
    tally.chunks,
    meta.vectorRows >= tally.sentences,
    meta.projectedChunks !== undefined,
  ]);
}
