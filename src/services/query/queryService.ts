// The question-time service behind the query worker: it asks the library session (src/services/library/session.ts)
// for the loaded library, the question embedder for the vector, and answers every mode through the one ask()
// (src/services/source/ask.ts; the modes themselves are entries in modes.ts), sending lexical evidence early when the
// vector or the library is slow to come. Beside questions it serves the written answer, the evaluation and the graph view over the same library.
// Dependencies are injected, so Node tests run it over fake-indexeddb and a loopback LLM server.
import type { LlmClient, LlmSettings } from '../../core/llm/index.ts';
import { currencyOf } from '../../core/llm/index.ts';
import type { DocumentRecord } from '../../core/types.ts';
import type { DownloadProgress, WholeBundleFit } from '../bundleBytes/bundleFetch.ts';
import type { SettingsReader } from '../embed/embedderChoice.ts';
import type { LedgerPurpose } from '../ledger/ledgerProtocol.ts';
import type { PagesAtUrl } from '../bundleBytes/bundleAtUrl.ts';
import type { QuestionLibrary } from '../library/questionLibrary.ts';
import { LibrarySession, type LibrarySessionDeps } from '../library/session.ts';
import { LLM_SETTINGS_KEY, readLlmSettings } from '../llm/llmSettings.ts';
import { ask, sameChunks } from '../source/ask.ts';
import type { LibrarySource, SourceLayers } from '../source/librarySource.ts';
import type { AskOptions } from '../source/ask.ts';
import { openSource } from '../source/openSource.ts';
import type { StoredThemes } from '../library/storedThemes.ts';
import { DEFAULT_MODE, type WalkViewCaps } from '../../core/retrieval/index.ts';
import { isCorpusQuestion } from '../../core/themes/index.ts';
import { knownThemes, warmThemes } from '../themes/themesOf.ts';
import { estimateOf, planOverSource, runPlanned, type PlannedGlobal } from '../source/globalThemesAnswer.ts';
import type { GlobalAnswerOut, GlobalEstimate, ThemesList } from '../themes/themesProtocol.ts';
import { themeQuestion } from '../source/themesAnswer.ts';
import { openPagedBundle, type PagedBundle } from '../../core/paged/index.ts';
import { createTermAnalyzer } from '../../core/text/index.ts';
import { BlobRangeSource } from '../bundleBytes/rangeSources.ts';
import type { PagesAwaited, StoredPages } from '../library/storedPages.ts';
import type { EvalProgress, EvalRequest, EvalResult } from '../questions/evalProtocol.ts';
import { evaluateSet } from './evaluate.ts';
import { libraryDocumentNames } from '../library/documentNames.ts';
import type { LibraryGraph, QuestionGraph } from '../questions/graphViewProtocol.ts';
import {
  answeredModes,
  ASK_MODES,
  lacking,
  modesText,
  parseQuestionMode,
  type ParsedMode,
} from '../questions/modeRegistry.ts';
import { QuestionEmbedder, type EmbedderSource } from '../questions/questionEmbedder.ts';
import {
  type AnswerOut,
  type AnswerRequest,
  type AskRequest,
  type AskResult,
  type TraceListener,
} from '../questions/queryProtocol.ts';
import { libraryCitations, writeAnswer } from '../questions/writtenAnswer.ts';

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

export interface QueryDeps extends LibrarySessionDeps {
  /** The IndexedDB library and its settings table (the embedder choice, the LLM endpoint). */
  library: LibrarySessionDeps['library'] & SettingsReader;
  /** One memoized question embedder (EmbedderHolder). */
  embedders: EmbedderSource;
  /** `purpose` names the calls in the network ledger (src/services/ledger/ledger.ts). */
  llmClient(settings: LlmSettings, purpose?: LedgerPurpose): LlmClient;
  /**
   * Opens a bundle's pages (src/core/paged) by ranges, or by slices of its whole download where the host sends whole
   * files only (its bytes so far to `onProgress`): undefined when the bundle has none; then it is read whole. Absent:
   * always whole.
   */
  openPaged?(url: string, onProgress?: DownloadProgress): Promise<PagesAtUrl | undefined>;
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

/** Called with the lexical evidence while the question is still being embedded (or the library reloaded). */
export type EarlyEvidence = (result: AskResult) => void;

export class QueryService {
  private readonly session: LibrarySession;
  private readonly embedder: QuestionEmbedder;
  private answerStop: AbortController | null = null;
  /** Stops the question being answered by a reasoning mode (its LLM calls are aborted). */
  private askStop: AbortController | null = null;
  /** Stops the evaluation being run (src/services/query/evaluate.ts). */
  private evalStop: AbortController | null = null;
  /** When each step of opening the read-only bundle ended, ms after openBundle was called (benchmarks read it). */
  private opened: Record<string, number> | null = null;
  /** Where the time went opening the stored pages, last time (pagesTimings). */
  private pagesMarks: Record<string, number> | null = null;
  /** The last question answered from the stored themes: ms from its start, and its reads (askTimings). */
  private themesMarks: Record<string, number> | null = null;
  private themesSteps: Readonly<Record<string, number>> | null = null;
  /**
   * Set when openBundle starts (before any await): a question asked meanwhile waits for it to know where the bundle
   * is read from, and never reaches the local library. Resolves undefined when the bundle is downloaded whole.
   */
  /** Where the last question was answered from: the sentences and pages its written answer cites. */
  private asked: LibrarySource | null = null;
  /** The last global answer's plan: the run sends the one the page showed (same source, question and κ). */
  private planned: { source: LibrarySource; key: string; planned: PlannedGlobal | null } | null = null;
  private byRanges: Promise<PagedBundle | undefined> | null = null;
  /** The library's own pages, looked for once per library (forgotten when it changes); undefined: none usable. */
  private local: Promise<StoredPages | PagesAwaited | undefined> | null = null;
  /** The pages last opened, kept across library changes: reopened only when new ones are stored. */
  private lastPages: StoredPages | undefined;

  constructor(private readonly deps: QueryDeps) {
    this.session = new LibrarySession(deps);
    this.embedder = new QuestionEmbedder(deps.library, deps.embedders);
  }

  /**
   * Forgets what was loaded: `library` (documents added or removed) reloads everything on the next question or
   * warm-up, `kg` (a KG build finished) only the KG index (see LibrarySession.invalidate).
   */
  invalidate(what: 'library' | 'kg' = 'library'): void {
    this.session.invalidate(what);
    if (what === 'library') this.local = null;
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

  /** Whether questions are answered from the library's stored pages, for a page or bench to show. */
  async answeredFromPages(): Promise<{
    chunks: number;
    documents: number;
    bytes: number;
    lagging: boolean;
  } | null> {
    const local = await this.pagesState();
    return local && !('awaiting' in local)
      ? {
          chunks: local.chunks,
          documents: local.documents,
          bytes: local.bytes,
          lagging: await local.lagging().catch(() => false),
        }
      : null;
  }

  /**
   * Opens a bundle from a same-origin path or URL read-only: questions are answered from it, nothing is written
   * to IndexedDB. The question embedder loads meanwhile, so the first question does not wait for the model after
   * the bundle. Returns its counts for the Library view and, read by ranges, whether from its one whole download
   * and what this browser keeps of it for offline use (PagesAtUrl).
   */
  async openBundle(
    url: string,
    /** Bytes downloaded so far (a Comlink proxy from the page, which shows them). */
    onProgress?: DownloadProgress,
    /** Read whole, does its library fit this tab (a Comlink proxy from the page, which knows its memory)? */
    fit?: WholeBundleFit,
  ): Promise<
    { url: string; counts: Record<string, number>; embedderId: string | null; byRanges?: boolean } & Partial<
      Omit<PagesAtUrl, 'bundle'>
    >
  > {
    const t0 = performance.now();
    const marks: Record<string, number> = {};
    const mark = (step: string) => (marks[step] = Math.round(performance.now() - t0));
    this.opened = marks;
    const opening = this.deps.openPaged?.(url, onProgress) ?? Promise.resolve(undefined);
    const paging = opening.then((at) => at?.bundle);
    this.byRanges = paging;
    // The whole-download path below starts in this continuation, which runs before that of a question awaiting
    // byRanges (registered later): such a question then finds the session already reading the bundle.
    const at = await opening;
    if (at) {
      mark('pages');
      const { bundle, ...read } = at;
      return { url, counts: bundle.manifest.counts, embedderId: null, byRanges: true, ...read };
    }
    const opened = this.session.openBundle(url, onProgress, mark, fit);
    void this.embedder.warm(mark);
    const bundle = await opened;
    return { url: bundle.url, counts: bundle.counts, embedderId: bundle.embedder?.id ?? null };
  }

  /**
   * Opens a bundle file from disk read by ranges (File.slice): questions go to it and nothing of it is held but the
   * blocks they read, so a bundle larger than the tab's memory answers. Refused, naming the file, when it has no
   * pages (it is then imported instead).
   */
  async openBundleFile(
    file: Blob,
    name: string,
  ): Promise<{ url: string; counts: Record<string, number>; embedderId: null; byRanges: true }> {
    const paging = openPagedBundle(new BlobRangeSource(file, name), createTermAnalyzer());
    this.byRanges = paging;
    try {
      const paged = await paging;
      if (!paged) {
        throw new Error(
          `${name} has no paged index to read by ranges (a bundle from cli index --pages has): import it instead`,
        );
      }
      return { url: name, counts: paged.manifest.counts, embedderId: null, byRanges: true };
    } catch (error) {
      // Questions go back to the library in this browser.
      if (this.byRanges === paging) this.byRanges = null;
      throw error;
    }
  }

  /**
   * Loads the library and the question embedder, both at once, ahead of the first question; with `embedder`
   * false (the page knows the library has no sentence vectors, or leaves it to the library on two cores) the
   * model only once the library turns out to have them. The page calls it when the app opens and again after
   * the library changed; questions meanwhile get early evidence from the library loaded before.
   */
  async warmUp(options: { embedder?: boolean } = {}): Promise<void> {
    // A bundle read by ranges, or a large library's pages, open in a few small reads: nothing else to load (they
    // have no vectors). A library whose pages are not written yet is not loaded either: they come at the drop's
    // next refresh.
    if (await this.elsewhere().catch(() => undefined)) return;
    const library = this.session.library().catch(() => null);
    const model = options.embedder === false ? Promise.resolve() : this.embedder.warm();
    const loaded = await library;
    if (loaded) await this.warmThemes(loaded);
    if (loaded?.layers.semantic && options.embedder === false) await this.embedder.warm();
    await model;
  }

  /**
   * The loaded library's themes, ahead of "What is this about?" (themesOf.ts keeps them beside it): the ones stored
   * with the very graph it was opened with, else computed here after this turn (a question waiting runs first).
   * Computing them took this thread 3–4.5 s on MuSiQue after every load (docs/results/themes.md), and a question
   * asked meanwhile waited for it (round six's 10.0 s, docs/results/trust.md).
   */
  private async warmThemes(library: QuestionLibrary): Promise<void> {
    const builtAt = this.session.graphBuiltAt(library);
    const stored =
      builtAt === undefined ? undefined : await this.deps.storedThemes?.().catch(() => undefined);
    if (stored && stored.builtAt === builtAt) knownThemes(library, stored.themes);
    else setTimeout(() => warmThemes(library), 0);
  }

  /** One source document (for the viewer when the library is a read-only bundle). */
  async getDocument(docId: string): Promise<DocumentRecord | undefined> {
    return (await this.current()).source.document(docId);
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
    // An unknown mode is refused before anything loads; the mode is read once for the whole question.
    const mode = parseQuestionMode(request.mode, { allowDefault: true });
    // The stored pages' KG and atomic questions are read (whole, from IndexedDB) only for a mode that may read them
    // (each reads chunks by id): the walk, the concepts, the words and their fusions read the pages alone.
    const elsewhere = await this.elsewhere({ layers: mode.needs.includes('chunks') });
    if (elsewhere) {
      const result = await this.run(elsewhere.source, request, mode, { early: onEarly, onTrace });
      elsewhere.answered?.();
      return result;
    }
    const t0 = performance.now();
    // startedAt (ms since the epoch) places the ask against the page's click: the time between is the message's wait.
    const marks: Record<string, number> = { startedAt: performance.timeOrigin + t0 };
    const themes = await this.themesBeforeLoad(request, mode, marks);
    marks.themesOpened = performance.now() - t0;
    // None of the stored themes' passages still stored (a removal since the refresh): the library answers instead.
    const fromThemes = themes && (await this.run(themes, request, mode, {}).catch(() => null));
    if (fromThemes?.themes) {
      this.themesMarks = { ...marks, answered: performance.now() - t0, ...this.themesSteps };
      return fromThemes;
    }
    return this.askInMemory(request, mode, onEarly, onTrace);
  }

  /**
   * The stored themes as the source of a corpus-wide question in the default mode while the library is not loaded
   * (right after a drop, loading it and computing its themes took seconds after the graph was stored: issue 48's
   * 2 s target); null when the question is another, the library is loaded, or no themes are stored with its graph.
   */
  private async themesBeforeLoad(
    request: AskRequest,
    mode: ParsedMode,
    marks: Record<string, number>,
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
   * A question to the library in memory. While it reloads after a change, a mode that ranks without the question
   * vector first sends its lexical evidence from the library as it was (marked stale); else its source sends it
   * when the vector is slow to come (see ask, and memorySource's search).
   */
  private async askInMemory(
    request: AskRequest,
    mode: ParsedMode,
    onEarly?: EarlyEvidence,
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
    const sent = stale && {
      ...waited(await ask(this.inMemory(stale).source, request, { parsed: mode })),
      stage: 'early' as const,
      stale: true,
    };
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
    const result = await this.run(source, request, mode, {
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

  /** Asks a source, cancelled by the next question; the reasoning modes get the configured endpoint. */
  private async run(
    source: LibrarySource,
    request: AskRequest,
    mode: ParsedMode,
    options: Pick<AskOptions, 'vector' | 'embed' | 'early' | 'onTrace'>,
  ): Promise<AskResult> {
    this.askStop?.abort();
    const stop = new AbortController();
    this.askStop = stop;
    try {
      const result = await ask(source, request, {
        ...options,
        parsed: mode,
        llm: () => this.questionLlm(),
        signal: stop.signal,
      });
      this.asked = source;
      return result;
    } finally {
      if (this.askStop === stop) this.askStop = null;
    }
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

  /** The client of the configured endpoint, for the modes that reason at question time. */
  private async questionLlm(): Promise<LlmClient> {
    return this.deps.llmClient(await readLlmSettings(this.deps.library), 'question modes');
  }

  /**
   * The concept-graph view of a question: the `ppr` walk's bounded neighbourhood over the same library and question
   * vector as `ask` (src/services/questions/graphView.ts), from whichever source questions read.
   */
  async graphForQuestion(question: string, caps: Partial<WalkViewCaps> = {}): Promise<QuestionGraph> {
    const { source, vector } = await this.current({ view: true });
    return source.questionGraph(question, await vector?.(question), caps);
  }

  /**
   * The library's top concepts by PageRank, or the concept a search finds and its neighbours (graphView.ts); over a
   * library answered from its pages, the top concepts by weighted degree (`measure` says which).
   */
  async topConcepts(options: { search?: string; limit?: number } = {}): Promise<LibraryGraph> {
    const { source } = await this.current({ view: true });
    return source.libraryGraph(options);
  }

  /**
   * Streams a cited answer over the evidence the page shows (`onDelta` is a Comlink proxy). A new answer or
   * cancelAnswer() aborts the one in flight. The API key is read here, where the request to its endpoint is made.
   */
  async answer(request: AnswerRequest, onDelta?: (delta: string) => void): Promise<AnswerOut> {
    const settings = await readLlmSettings(this.deps.library);
    // The citations come from where the evidence being answered over came from (a paged index: the records of the
    // chunks the last question showed), else from where questions read now (none when the library fails to load).
    const source = this.asked ?? (await this.current().catch(() => null))?.source;
    const citations = source?.citations() ?? libraryCitations(null);
    this.answerStop?.abort();
    const stop = new AbortController();
    this.answerStop = stop;
    try {
      return await writeAnswer(
        this.deps.llmClient(settings, 'answer'),
        citations,
        request,
        onDelta,
        stop.signal,
      );
    } finally {
      if (this.answerStop === stop) this.answerStop = null;
    }
  }

  /** The library's themes for the Themes panel (null: the library has none), from whichever source questions read. */
  async libraryThemes(): Promise<ThemesList | null> {
    const { source } = await this.current({ view: true });
    const themes = await source.themes?.();
    if (!themes) return null;
    return {
      chunks: themes.chunks,
      documents: themes.documents,
      themes: themes.themes.map((t) => ({
        label: t.label,
        concepts: t.concepts,
        chunks: t.chunks,
        documents: t.documents,
        share: t.share,
        keyDocuments: t.keyTitles,
        question: themeQuestion(t),
      })),
    };
  }

  /**
   * What the global answer to a corpus-wide question would cost (calls, tokens, price), before any call: the themes
   * within κ of the source the last question was answered from. Null when it has no themes.
   */
  async globalEstimate(question: string, kappa?: number): Promise<GlobalEstimate | null> {
    const planned = await this.globalPlan(question, kappa);
    return planned && estimateOf(planned);
  }

  /**
   * Runs the global answer the page showed the cost of (map over the themes' passages, then reduce), streaming the
   * reduce through `onDelta` (a Comlink proxy). Stopped like the written answer (cancelAnswer).
   */
  async globalAnswer(
    question: string,
    kappa?: number,
    onDelta?: (delta: string) => void,
  ): Promise<GlobalAnswerOut> {
    const planned = await this.globalPlan(question, kappa);
    if (!planned) throw new Error('this library has no themes to answer a corpus-wide question over');
    const settings = await readLlmSettings(this.deps.library);
    this.answerStop?.abort();
    const stop = new AbortController();
    this.answerStop = stop;
    try {
      return await runPlanned(planned, this.deps.llmClient(settings, 'answer'), {
        signal: stop.signal,
        ...(onDelta ? { onDelta } : {}),
      });
    } finally {
      if (this.answerStop === stop) this.answerStop = null;
    }
  }

  private async globalPlan(question: string, kappa?: number): Promise<PlannedGlobal | null> {
    const source = this.asked ?? (await this.current()).source;
    const key = `${kappa ?? ''}\n${question}`;
    if (this.planned?.source === source && this.planned.key === key) return this.planned.planned;
    const settings = await readLlmSettings(this.deps.library);
    const planned = await planOverSource(source, question, {
      ...(kappa !== undefined ? { kappa } : {}),
      priceInPerM: settings.priceInPerM,
      priceOutPerM: settings.priceOutPerM,
    });
    this.planned = { source, key, planned };
    return planned;
  }

  /** Whether an LLM endpoint is configured (the Ask view then opens on the written answer); no key leaves. */
  async llmConfigured(): Promise<boolean> {
    const s = await this.deps.library.getSetting<LlmSettings>(LLM_SETTINGS_KEY);
    return Boolean(s?.baseUrl && s.model);
  }

  /** The currency the endpoint's prices are in: a trace's costs are shown in it. */
  async llmCurrency(): Promise<string> {
    return currencyOf(await this.deps.library.getSetting<LlmSettings>(LLM_SETTINGS_KEY));
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
   * Runs a QA set in the given modes and budgets over the library (src/services/query/evaluate.ts), reporting
   * progress through `onProgress` (a Comlink proxy). cancelEvaluation() stops it; what was scored is returned.
   */
  async evaluate(request: EvalRequest, onProgress?: (progress: EvalProgress) => void): Promise<EvalResult> {
    const llm = async () => this.deps.llmClient(await readLlmSettings(this.deps.library), 'evaluation');
    // A library answered from its pages is evaluated over them, never loaded; stored pages small enough to hold are
    // read whole first (once), so that every question runs in one pass from memory instead of rounds of Blob slices.
    const { source, vector, documentNames } = await this.current({ view: true, held: true, layers: true });
    this.evalStop?.abort();
    const stop = new AbortController();
    this.evalStop = stop;
    try {
      return await evaluateSet(request, {
        source,
        ...(vector ? { vector } : {}),
        ...(documentNames ? { documentNames } : {}),
        llm,
        signal: stop.signal,
        onProgress,
      });
    } finally {
      if (this.evalStop === stop) this.evalStop = null;
    }
  }

  /**
   * Where questions read the library when not from memory (undefined: from memory), the one choice of a source: a
   * bundle read by ranges, the library's stored pages, or its stored chunks by words while the pages are awaited.
   * With `layers`, the stored pages' KG and atomic questions are read from IndexedDB to know whether they exist; with
   * `held`, stored pages small enough are read whole first; with `view` (the Graph view, Evaluate), a library still
   * waiting for its pages is refused: each would read the whole library by words, again and again.
   */
  private async elsewhere(
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
  private async current(
    options: { held?: boolean; layers?: boolean; view?: boolean } = {},
  ): Promise<Elsewhere & { vector?: (text: string) => Promise<Float32Array | undefined> }> {
    const elsewhere = await this.elsewhere(options);
    if (elsewhere) return elsewhere;
    const library = await this.session.library();
    return { ...this.inMemory(library), documentNames: libraryDocumentNames(library) };
  }

  /**
   * The library in memory as a source, with its KG and atomic questions (LibrarySession's, reloaded after a build),
   * and the question vector where it has one.
   */
  private inMemory(library: QuestionLibrary): {
    source: LibrarySource;
    vector?: (text: string) => Promise<Float32Array | undefined>;
  } {
    const wantsVector = library.layers.semantic && library.embedderId !== null;
    return {
      source: openSource({ library, kg: () => this.session.kg(), atomic: () => this.session.atomic() }),
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
      return { modes, reason: error instanceof Error ? error.message : String(error) };
    }
    if (!elsewhere) return { modes: [...ASK_MODES] };
    const { source, documentNames } = elsewhere;
    const answering = source.answering(modesText(source));
    return {
      modes: answeredModes(source),
      reason: documentNames
        ? `${answering[0].toUpperCase()}${answering.slice(1)}.`
        : `${answering[0].toUpperCase()}${answering.slice(1)}, and names its documents by id only, so recall@k is not scored.`,
    };
  }

  /**
   * The documents of a bundle opened read-only and read whole (the Library view lists them), the first `limit` by
   * title, and how many it has; null for the library in this browser, or a bundle read by ranges (its documents are
   * read only as questions reach them).
   */
  async bundleDocuments(
    limit = 1000,
  ): Promise<{ total: number; documents: { id: string; title: string; source: string }[] } | null> {
    if (!this.session.readOnlyBundle || (await this.byRanges)) return null;
    const all = [...(await this.session.library()).documents.values()];
    all.sort((a, b) => a.title.localeCompare(b.title));
    return {
      total: all.length,
      documents: all.slice(0, limit).map((d) => ({ id: d.id, title: d.title, source: d.sourceName })),
    };
  }

  /** Stops the evaluation at its next question (or LLM call). */
  cancelEvaluation(): void {
    this.evalStop?.abort();
  }

  /** Frees the question embedder and the loaded library (both are loaded again lazily). */
  async dispose(): Promise<void> {
    this.answerStop?.abort();
    this.askStop?.abort();
    this.session.release();
    await this.embedder.dispose();
  }

  /**
   * Where the time went in the last load of the library from IndexedDB (null before any), ms after it started:
   * the corpus read, the engine opened, and the engine's own steps. For benchmarks.
   */
  loadTimings(): Record<string, number> | null {
    return this.session.loadTimings();
  }

  /**
   * Where the time went in the last question answered from the stored themes before the library loaded (null before
   * any): when it started (`startedAt`, ms since the epoch), then ms after it started: the graph checked, the themes read, the source opened, the answer; and the stored
   * themes' own steps (storedThemes.ts: records read, and how many from the themes record or from documents). For
   * benchmarks (bench:drop prints it).
   */
  askTimings(): Record<string, number> | null {
    return this.themesMarks && { ...this.themesMarks };
  }

  /**
   * Where the time went when the library's stored pages were last opened (null before any): ms after the open began
   * until their record, the threshold rule, the stamp, the pages' `open` section, and the first answer from them.
   * For benchmarks (scale-browser.ts prints it after reopening).
   */
  pagesTimings(): Record<string, number> | null {
    return this.pagesMarks && { ...this.pagesMarks };
  }

  /** Where the time went when the read-only bundle was opened (null before any): for benchmarks. */
  openTimings(): Record<string, number> | null {
    return this.opened && { ...this.opened };
  }
}

/** The query worker's API as the page calls it (workers/query.worker.ts only exposes this service). */
export type QueryApi = QueryService;
