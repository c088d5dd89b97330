// Where a question reads the library now, the one choice of a LibrarySource at question time (openSource.ts builds
// the source chosen): a bundle read by ranges, the library's own stored pages (a large library), its stored chunks by
// words while those pages are awaited, the themes stored with its graph (a corpus-wide question before the library
// loads), or the library loaded into memory. The query service (src/services/query/queryService.ts) asks it for the
// source, or to answer a question (ask: memory stages its evidence, the others answer at once), and knows nothing of
// where the library is.
import type { PagedBundle } from '../../core/paged/index.ts';
import { DEFAULT_MODE } from '../../core/retrieval/index.ts';
import { isCorpusQuestion } from '../../core/themes/index.ts';
import type { QuestionLibrary } from '../library/questionLibrary.ts';
import type { LibrarySession } from '../library/session.ts';
import type { PagesAwaited, StoredPages } from '../library/storedPages.ts';
import type { StoredThemes } from '../library/storedThemes.ts';
import { libraryDocumentNames } from '../library/documentNames.ts';
import { answeredModes, ASK_MODES, lacking, modesText, type ParsedMode } from '../questions/modeRegistry.ts';
import type { QuestionEmbedder } from '../questions/questionEmbedder.ts';
import type { AskRequest, AskResult, TraceListener } from '../questions/queryProtocol.ts';
import { ask, sameChunks, type AskOptions } from './ask.ts';
import type { LibrarySource, SourceLayers } from './librarySource.ts';
import { openSource } from './openSource.ts';
import { messageOf } from '../../core/errors.ts';

/**
 * Where questions read the library now, when not from memory: the source, what else a caller may do with it (the
 * stored pages are read whole after a question, the evaluation names their documents from IndexedDB).
 */
interface Elsewhere {
  source: LibrarySource;
  /** After a question: the stored pages start being held and the first answer is marked (pagesTimings). */
  answered?: () => void;
  /** The stored pages' documents named as a QA set names them (recall@k); absent for a bundle read by ranges. */
  documentNames?: (docIds: readonly string[]) => Promise<Map<string, string>>;
}

/**
 * Searches of the stale library before its early evidence is given up: each leaves out the removed documents the one
 * before cited, so a removal of many documents that all rank high costs a few rounds, not one per document.
 */
const STALE_ROUNDS = 4;

/** Asks a source as the query service does (cancelled by the next question, with the configured endpoint). */
export type RunAsk = (
  source: LibrarySource,
  options: Pick<AskOptions, 'vector' | 'embed' | 'early' | 'onTrace'>,
) => Promise<AskResult>;

/** Where the library is stored beside the IndexedDB corpus (the query worker's; absent: always in memory). */
export interface SourceChoiceDeps {
  /**
   * `storedDocuments`: which of these documents are still stored (Repo's, keys only), which stale early evidence is
   * checked against; absent: none is sent.
   */
  library: { storedDocuments?(docIds: readonly string[]): Promise<ReadonlySet<string>> };
  /**
   * The library's stored pages when it is answered from them (src/services/library/storedPages.ts): a large library
   * is then answered by ranges over them, never loaded into memory; `awaiting` when it is large and its first pages
   * are not written yet (nor is it loaded then). `reuse`: the pages opened before, returned again while they are
   * the stored ones. Absent: always in memory.
   */
  storedPages?(
    reuse?: StoredPages,
    mark?: (step: string) => void,
  ): Promise<StoredPages | PagesAwaited | undefined>;
  /**
   * The names a QA set gives the library's documents (evaluate.ts, documentExternalId), by id, read from IndexedDB
   * (src/services/library/documentNames.ts): an evaluation over the stored pages scores recall@k with them.
   */
  documentNames?(docIds: readonly string[]): Promise<Map<string, string>>;
  /**
   * The themes stored with the library's present graph (src/services/library/storedThemes.ts): a corpus-wide
   * question asked while the library is not loaded is answered from them. Absent or undefined: none.
   */
  storedThemes?(): Promise<StoredThemes | undefined>;
}

export class SourceChoice {
  /**
   * Set when a bundle is opened by ranges (before any await): a question asked meanwhile waits for it to know where
   * the bundle is read from, and never reaches the local library. Resolves undefined when the bundle is read whole.
   */
  private byRanges: Promise<PagedBundle | undefined> | null = null;
  /** Stops the hash pages the bundle read by ranges reads ahead of its first question, once it is replaced. */
  private readingAhead: AbortController | null = null;
  /** The library's own pages, looked for once per library (forgotten when it changes); undefined: none usable. */
  private local: Promise<StoredPages | PagesAwaited | undefined> | null = null;
  /** The pages last opened, kept across library changes: reopened only when new ones are stored. */
  private lastPages: StoredPages | undefined;
  /** Where the time went opening the stored pages, last time (pagesTimings). */
  private pagesMarks: Record<string, number> | null = null;
  /** The stored themes' reads for the last question they were opened for (storedThemes.ts; askTimings). */
  private themesSteps: Readonly<Record<string, number>> | null = null;
  /** The last question answered from the stored themes: ms from its start, and its reads (askTimings). */
  private themesMarks: Record<string, number> | null = null;

  constructor(
    private readonly deps: SourceChoiceDeps,
    private readonly session: LibrarySession,
    private readonly embedder: QuestionEmbedder,
  ) {}

  /** The library changed: its stored pages are looked for again. */
  invalidate(): void {
    this.local = null;
  }

  /**
   * Questions read this bundle by ranges from now on (once it resolves to one; undefined: it is read whole). Returns
   * a function that gives the library back when the bundle could not be opened.
   */
  readByRanges(paging: Promise<PagedBundle | undefined>): () => void {
    this.byRanges = paging;
    // Once open, a link reads the hash pages every question reads whatever its words while the person looks at the
    // Library view (BlockStore.readUpperPages: ~160 KB at 100 MiB of text, after any question's requests; nothing from
    // a file or memory). A bundle opened after it stops what it has not sent. A failure is left to the question that
    // reads those pages: it refuses them as it would have, naming them.
    this.readingAhead?.abort();
    const ahead = new AbortController();
    this.readingAhead = ahead;
    void paging
      .then((bundle) => bundle?.library.reader.store.readUpperPages(ahead.signal))
      .catch(() => undefined);
    return () => {
      ahead.abort();
      if (this.byRanges === paging) this.byRanges = null;
    };
  }

  /** The bundle read by ranges, if one was opened (undefined: read whole, or none). */
  async bundleByRanges(): Promise<PagedBundle | undefined> {
    return (await this.byRanges) ?? undefined;
  }

  /** Where the time went when the stored pages were last opened (null before any). */
  pagesTimings(): Record<string, number> | null {
    return this.pagesMarks && { ...this.pagesMarks };
  }

  /**
   * The library's stored pages if it is answered from them (a large library: src/services/library/pagesThreshold.ts),
   * opened once per library version (and not again while the same pages are stored); `awaiting` when it is large
   * and has none yet; undefined when it is loaded into memory, or when a bundle replaced the library. Pages are
   * remembered until the library changes (invalidate: the page does so after every store write, the pages'
   * included); `awaiting` and undefined are looked at again by the next question.
   */
  private pagesState(): Promise<StoredPages | PagesAwaited | undefined> {
    if (!this.deps.storedPages || this.byRanges || this.session.readOnlyBundle)
      return Promise.resolve(undefined);
    const open = () => this.deps.storedPages!(this.lastPages, this.pagesMark());
    // One more try before a failed open falls back to memory: the record read may have been replaced by newer pages
    // (a drop refreshes them) between reading it and reading its Blob.
    const current = (this.local ??= open().catch(open));
    return current.then(
      (state) => {
        // Only pages are remembered: "not from pages" (a small library) and `awaiting` are looked at again by the
        // next question, so that a library that grew is never answered from memory on a stale answer. That is three
        // small records a question (the pages, the index record with its chunk tally, the threshold setting), never
        // a count of the chunks (docs/results/ranges.md, "The pages re-check per question").
        if ((!state || 'awaiting' in state) && this.local === current) this.local = null;
        // A library answered from its pages (or about to be) is not held in memory: the one loaded before it grew
        // past the threshold is let go (not its KG and atomic questions, which the pages' questions read).
        if (state) this.session.releaseLibrary();
        if (state && !('awaiting' in state)) this.lastPages = state;
        return state;
      },
      // A failed open (a damaged record) is forgotten: the library is loaded into memory instead.
      () => {
        if (this.local === current) this.local = null;
        return undefined;
      },
    );
  }

  /**
   * A new record of where the time goes from opening the stored pages to the first answer from them (pagesTimings):
   * ms after the open began, and when it began on the wall clock (a bench compares it with the page's navigation).
   */
  private pagesMark(): (step: string) => void {
    const t0 = performance.now();
    const marks: Record<string, number> = { beganAtEpochMs: Math.round(performance.timeOrigin + t0) };
    this.pagesMarks = marks;
    return (step) => (marks[step] ??= Math.round(performance.now() - t0));
  }

  /**
   * The stored themes as the source of a corpus-wide question in the default mode while the library is not loaded
   * (right after a drop, loading it and computing its themes took seconds after the graph was stored: issue 48's
   * 2 s target); null when the question is another, the library is loaded, or no themes are stored with its graph.
   */
  private async storedThemesFor(
    request: AskRequest,
    mode: ParsedMode,
    marks: Record<string, number> = {},
  ): Promise<LibrarySource | null> {
    const t0 = performance.now();
    if (!this.deps.storedThemes || mode.name !== DEFAULT_MODE || !isCorpusQuestion(request.question))
      return null;
    // A bundle opened read-only is the library, even while it downloads; a library loaded with an older graph is
    // let go here as askInMemory would.
    if (this.session.readOnlyBundle) return null;
    await this.session.reloadIfGraphChanged();
    marks.graphChecked = performance.now() - t0;
    if (this.session.ready) return null;
    const stored = await this.deps.storedThemes().catch(() => undefined);
    marks.themesRead = performance.now() - t0;
    // Its steps fill in as the answer reads its passages (storedThemes.ts); askTimings reports them.
    this.themesSteps = stored?.steps ?? null;
    return stored && stored.themes.themes.length > 0 ? openSource({ storedThemes: stored }) : null;
  }

  /**
   * The library's own KG and atomic questions beside its stored pages, loaded whole from IndexedDB on first use as
   * for a library in memory (LibrarySession.kg and .atomic, reloaded after a build): only those it has.
   */
  private async storedLayers(): Promise<SourceLayers> {
    const [kg, atomic] = await Promise.all([this.session.kg(), this.session.atomic()]);
    return {
      ...(kg.size > 0 ? { kg: () => this.session.kg() } : {}),
      ...(atomic && atomic.size > 0 ? { atomic: () => this.session.atomic() } : {}),
    };
  }

  /**
   * Where a question's words are read ahead as they are typed (LibrarySource.prepare): a bundle read by ranges, whose
   * reads cross a link. The library's own stored pages are read on this device (nothing to win), and a library in
   * memory has every word at hand: neither is opened or loaded for it (undefined).
   */
  async typing(): Promise<LibrarySource | undefined> {
    const bundle = this.byRanges ? await this.byRanges.catch(() => undefined) : undefined;
    return bundle ? openSource({ bundle }) : undefined;
  }

  /**
   * Where questions read the library when not from memory (undefined: from memory), the one choice of a source: a
   * bundle read by ranges, the library's stored pages, or its stored chunks by words while the pages are awaited.
   * With `layers`, the stored pages' KG and atomic questions are read from IndexedDB to know whether they exist; with
   * `held`, stored pages small enough are read whole first; with `view` (the Graph view, Evaluate), a library still
   * waiting for its pages is refused: each would read the whole library by words, again and again.
   */
  async elsewhere(
    options: { held?: boolean; layers?: boolean; view?: boolean } = {},
  ): Promise<Elsewhere | undefined> {
    const bundle = this.byRanges ? await this.byRanges : undefined;
    if (bundle) return { source: openSource({ bundle }) };
    const local = await this.pagesState();
    if (!local) return undefined;
    if ('awaiting' in local) {
      const source = openSource({ pages: local });
      if (options.view) throw new Error(lacking(source, 'this view', ['chunks']));
      return { source };
    }
    if (options.held) await local.hold?.();
    const layers = options.layers ? await this.storedLayers() : {};
    return {
      source: openSource({ pages: local, ...layers }),
      answered: () => {
        void local.hold?.();
        const marks = this.pagesMarks;
        if (marks && marks.firstAnswer === undefined)
          marks.firstAnswer = Math.round(performance.timeOrigin + performance.now() - marks.beganAtEpochMs);
      },
      ...(this.deps.documentNames ? { documentNames: this.deps.documentNames } : {}),
    };
  }

  /** The source questions read now (the library in memory is loaded), with the question vector where it has one. */
  async current(
    options: { held?: boolean; layers?: boolean; view?: boolean } = {},
  ): Promise<Elsewhere & { vector?: (text: string) => Promise<Float32Array | undefined> }> {
    const elsewhere = await this.elsewhere(options);
    if (elsewhere) return elsewhere;
    const library = await this.session.library();
    return { ...this.inMemory(library), documentNames: libraryDocumentNames(library) };
  }

  /**
   * Answers a question from wherever questions read the library now: a source read by ranges or by words answers at
   * once; a corpus-wide question before the library loads, from the stored themes; else the library in memory, which
   * stages its early evidence (askInMemory). `run` asks a source as the caller does (its cancelling, its endpoint).
   */
  async ask(
    request: AskRequest,
    mode: ParsedMode,
    run: RunAsk,
    onEarly?: (result: AskResult) => void,
    onTrace?: TraceListener,
  ): Promise<AskResult> {
    // The stored pages' KG and atomic questions are read (whole, from IndexedDB) only for a mode that may read them
    // (each reads chunks by id): the walk, the concepts, the words and their fusions read the pages alone.
    const elsewhere = await this.elsewhere({ layers: mode.needs.includes('chunks') });
    if (elsewhere) {
      const result = await run(elsewhere.source, { early: onEarly, onTrace });
      elsewhere.answered?.();
      return result;
    }
    const t0 = performance.now();
    // startedAt (ms since the epoch) places the ask against the page's click: the time between is the message's wait.
    const marks: Record<string, number> = { startedAt: performance.timeOrigin + t0 };
    const themes = await this.storedThemesFor(request, mode, marks);
    marks.themesOpened = performance.now() - t0;
    // None of the stored themes' passages still stored (a removal since the refresh): the library answers instead.
    const fromThemes = themes && (await run(themes, {}).catch(() => null));
    if (fromThemes?.themes) {
      this.themesMarks = { ...marks, answered: performance.now() - t0, ...this.themesSteps };
      return fromThemes;
    }
    return this.askInMemory(request, mode, run, onEarly, onTrace);
  }

  /** Where the time went in the last question answered from the stored themes (null before any). */
  askTimings(): Record<string, number> | null {
    return this.themesMarks && { ...this.themesMarks };
  }

  /**
   * A question to the library in memory. While it reloads after a change, a mode that ranks without the question
   * vector first sends its lexical evidence from the library as it was (marked stale); else its source sends it
   * when the vector is slow to come (see ask, and memorySource's search).
   */
  private async askInMemory(
    request: AskRequest,
    mode: ParsedMode,
    run: RunAsk,
    onEarly?: (result: AskResult) => void,
    onTrace?: TraceListener,
  ): Promise<AskResult> {
    const started = performance.now();
    await this.session.reloadIfGraphChanged();
    const library = this.session.library();
    library.catch(() => undefined);
    // Loading the library and embedding the question count: that is what the user waited for.
    const waited = (result: AskResult): AskResult => ({
      ...result,
      milliseconds: performance.now() - started,
    });
    const stale = onEarly && mode.lexical ? this.session.stale : null;
    const staleResult = stale && (await this.staleEvidence(stale, request, mode));
    const sent = staleResult && { ...waited(staleResult), stage: 'early' as const, stale: true };
    if (sent) onEarly?.(sent);
    const loaded = await library;
    const { source, vector } = this.inMemory(loaded);
    const early =
      !sent && onEarly ? (result: AskResult) => onEarly({ ...waited(result), stale: false }) : undefined;
    // A model that finished loading while this thread was busy building the engine has its message queued: let it
    // in before deciding that the vector is slow to come.
    if (early && vector && !this.embedder.ready) await new Promise((r) => setTimeout(r, 0));
    const coming = vector?.(request.question);
    coming?.catch(() => undefined);
    const result = await run(source, {
      vector: early && !this.embedder.ready ? coming : await coming,
      embed: vector,
      early,
      onTrace,
    });
    const awaiting = this.session.documentsAwaitingGraph(loaded);
    return {
      ...waited(result),
      ...(sent ? { rankingChanged: !sameChunks(sent, result) } : {}),
      ...(awaiting > 0 ? { awaitingGraph: { documents: awaiting } } : {}),
    };
  }

  /**
   * The evidence of the library as it was before a change, without the documents removed since (issue 44: a removed
   * document must not be cited, even early): the documents it cites are looked up in the store (their keys only), and
   * any gone are left out of a search again, until none is. Null when the store cannot say, or it keeps finding more.
   */
  private async staleEvidence(
    stale: QuestionLibrary,
    request: AskRequest,
    mode: ParsedMode,
  ): Promise<AskResult | null> {
    const { library } = this.deps;
    if (!library.storedDocuments) return null;
    const removed = new Set<string>();
    for (let round = 0; round < STALE_ROUNDS; round++) {
      const result = await ask(this.inMemory(stale, removed).source, request, { parsed: mode });
      const cited = [...new Set(result.evidence.map((e) => e.docId))];
      const stored = await library.storedDocuments(cited).catch(() => null);
      if (!stored) return null;
      const gone = cited.filter((docId) => !stored.has(docId));
      if (gone.length === 0) return result;
      for (const docId of gone) removed.add(docId);
    }
    return null;
  }

  /**
   * The library in memory as a source, with its KG and atomic questions (LibrarySession's, reloaded after a build),
   * and the question vector where it has one.
   */
  private inMemory(
    library: QuestionLibrary,
    removed?: ReadonlySet<string>,
  ): {
    source: LibrarySource;
    vector?: (text: string) => Promise<Float32Array | undefined>;
  } {
    const wantsVector = library.layers.semantic && library.embedderId !== null;
    return {
      source: openSource({
        library,
        kg: () => this.session.kg(),
        atomic: () => this.session.atomic(),
        ...(removed ? { removed } : {}),
      }),
      ...(wantsVector ? { vector: (text: string) => this.embedder.vector(library, text) } : {}),
    };
  }

  /**
   * The modes the Evaluate view offers for this library: every mode for a library in memory; for one answered from
   * its pages, those its pages and layers answer, with the reason the view shows in one line.
   */
  async evaluationModes(): Promise<{ modes: string[]; reason?: string }> {
    let elsewhere: Elsewhere | undefined;
    try {
      elsewhere = await this.elsewhere({ layers: true, view: true });
    } catch (error) {
      // A large library whose first pages are not written yet: the modes its words answer meanwhile.
      const state = await this.pagesState();
      const modes = state && 'awaiting' in state ? answeredModes(openSource({ pages: state })) : [];
      return { modes, reason: messageOf(error) };
    }
    if (!elsewhere) return { modes: [...ASK_MODES] };
    const { source, documentNames } = elsewhere;
    const answering = source.answering(modesText(source));
    const unnamed = documentNames ? '' : ', and names its documents by id only, so recall@k is not scored';
    return {
      modes: answeredModes(source),
      reason: `${answering[0].toUpperCase()}${answering.slice(1)}${unnamed}.`,
    };
  }
}
