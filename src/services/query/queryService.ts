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
import { ask } from '../source/ask.ts';
import type { LibrarySource } from '../source/librarySource.ts';
import { SourceChoice, type RunAsk, type SourceChoiceDeps } from '../source/sourceChoice.ts';
import type { WalkViewCaps } from '../../core/retrieval/index.ts';
import { knownThemes, warmThemes } from '../themes/themesOf.ts';
import { estimateOf, planOverSource, runPlanned, type PlannedGlobal } from '../source/globalThemesAnswer.ts';
import type { GlobalAnswerOut, GlobalEstimate, ThemesList } from '../themes/themesProtocol.ts';
import { themeQuestion } from '../source/themesAnswer.ts';
import { openPagedBundle } from '../../core/paged/index.ts';
import { createTermAnalyzer } from '../../core/text/index.ts';
import { BlobRangeSource } from '../bundleBytes/rangeSources.ts';
import type { EvalProgress, EvalRequest, EvalResult } from '../questions/evalProtocol.ts';
import { evaluateSet } from './evaluate.ts';
import type { LibraryGraph, QuestionGraph } from '../questions/graphViewProtocol.ts';
import { parseQuestionMode, type ParsedMode } from '../questions/modeRegistry.ts';
import { QuestionEmbedder, type EmbedderSource } from '../questions/questionEmbedder.ts';
import {
  type AnswerOut,
  type AnswerRequest,
  type AskRequest,
  type AskResult,
  type TraceListener,
} from '../questions/queryProtocol.ts';
import { libraryCitations, writeAnswer } from '../questions/writtenAnswer.ts';

export interface QueryDeps extends LibrarySessionDeps, SourceChoiceDeps {
  /** The IndexedDB library and its settings table (the embedder choice, the LLM endpoint). */
  library: LibrarySessionDeps['library'] & SourceChoiceDeps['library'] & SettingsReader;
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
}

/** One task at a time of a kind (an answer, a question, an evaluation): a new one aborts the one in flight. */
class OneAtATime {
  private current: AbortController | null = null;

  async run<T>(task: (signal: AbortSignal) => Promise<T>): Promise<T> {
    this.current?.abort();
    const stop = new AbortController();
    this.current = stop;
    try {
      return await task(stop.signal);
    } finally {
      if (this.current === stop) this.current = null;
    }
  }

  stop(): void {
    this.current?.abort();
  }
}

/** Called with the lexical evidence while the question is still being embedded (or the library reloaded). */
export type EarlyEvidence = (result: AskResult) => void;

export class QueryService {
  private readonly session: LibrarySession;
  private readonly embedder: QuestionEmbedder;
  /** The written or global answer being streamed. */
  private readonly answers = new OneAtATime();
  /** The question being answered (a reasoning mode's LLM calls are aborted). */
  private readonly asks = new OneAtATime();
  /** The evaluation being run (src/services/query/evaluate.ts). */
  private readonly evaluations = new OneAtATime();
  /** When each step of opening the read-only bundle ended, ms after openBundle was called (benchmarks read it). */
  private opened: Record<string, number> | null = null;
  /** Where the last question was answered from: the sentences and pages its written answer cites. */
  private asked: LibrarySource | null = null;
  /** The whole answer of the last question, when its result was its first page alone (AskResult.more). */
  private rest: (() => Promise<AskResult>) | null = null;
  /** The last global answer's plan: the run sends the one the page showed (same source, question and κ). */
  private planned: { source: LibrarySource; key: string; planned: PlannedGlobal | null } | null = null;
  /** Texts read ahead as they were typed (prepare): the newest one's reads go on. */
  private typed = 0;
  /** Where questions read the library now (sourceChoice.ts). */
  private readonly sources: SourceChoice;

  constructor(private readonly deps: QueryDeps) {
    this.session = new LibrarySession(deps);
    this.embedder = new QuestionEmbedder(deps.library, deps.embedders);
    this.sources = new SourceChoice(deps, this.session, this.embedder);
  }

  /**
   * Forgets what was loaded: `library` (documents added or removed) reloads everything on the next question or
   * warm-up, `kg` (a KG build finished) only the KG index (see LibrarySession.invalidate).
   */
  invalidate(what: 'library' | 'kg' = 'library'): void {
    this.session.invalidate(what);
    if (what === 'library') this.sources.invalidate();
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
    this.sources.readByRanges(opening.then((at) => at?.bundle));
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
    const giveBack = this.sources.readByRanges(paging);
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
      giveBack();
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
    if (await this.sources.elsewhere().catch(() => undefined)) return;
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

  /**
   * Reads ahead what a question of the words typed so far will read first (the Ask box calls it as each word is
   * finished), where questions read a library by ranges (LibrarySource.prepare): a newer text stops the one before
   * between its reads. Nothing for a library in memory or in this browser's storage, and nothing opened for it.
   */
  async prepare(text: string): Promise<void> {
    const mine = ++this.typed;
    await (await this.sources.typing())?.prepare?.(text, () => this.typed === mine);
  }

  /** One source document (for the viewer when the library is a read-only bundle). */
  async getDocument(docId: string): Promise<DocumentRecord | undefined> {
    return (await this.sources.current()).source.document(docId);
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
    const run: RunAsk = (source, options) => this.run(source, request, mode, options);
    return this.sources.ask(request, mode, run, onEarly, onTrace);
  }

  /** Asks a source, cancelled by the next question; the reasoning modes get the configured endpoint. */
  private async run(
    source: LibrarySource,
    request: AskRequest,
    mode: ParsedMode,
    options: Parameters<RunAsk>[1],
  ): Promise<AskResult> {
    this.rest = null;
    return this.asks.run(async (signal) => {
      let rest: (() => Promise<AskResult>) | null = null;
      const result = await ask(source, request, {
        ...options,
        parsed: mode,
        llm: () => this.llm('question modes'),
        signal,
        ...(request.firstPage ? { firstPage: (r: () => Promise<AskResult>) => (rest = r) } : {}),
      });
      this.rest = rest;
      this.asked = source;
      return result;
    });
  }

  /**
   * The whole answer of the last question asked for its first page (AskRequest.firstPage), its other passages read
   * now ("More passages", a written answer); null when its result was whole already.
   */
  async restOfAnswer(): Promise<AskResult | null> {
    const rest = this.rest;
    return rest ? await rest() : null;
  }

  /** The client of the configured endpoint, its calls named by `purpose` in the network ledger. */
  private async llm(purpose: LedgerPurpose): Promise<LlmClient> {
    return this.deps.llmClient(await readLlmSettings(this.deps.library), purpose);
  }

  /**
   * The concept-graph view of a question: the `ppr` walk's bounded neighbourhood over the same library and question
   * vector as `ask` (src/services/questions/graphView.ts), from whichever source questions read.
   */
  async graphForQuestion(question: string, caps: Partial<WalkViewCaps> = {}): Promise<QuestionGraph> {
    const { source, vector } = await this.sources.current({ view: true });
    return source.questionGraph(question, await vector?.(question), caps);
  }

  /**
   * The library's top concepts by PageRank, or the concept a search finds and its neighbours (graphView.ts); over a
   * library answered from its pages, the top concepts by weighted degree (`measure` says which).
   */
  async topConcepts(options: { search?: string; limit?: number } = {}): Promise<LibraryGraph> {
    const { source } = await this.sources.current({ view: true });
    return source.libraryGraph(options);
  }

  /**
   * Streams a cited answer over the evidence the page shows (`onDelta` is a Comlink proxy). A new answer or
   * cancelAnswer() aborts the one in flight. The API key is read here, where the request to its endpoint is made.
   */
  async answer(request: AnswerRequest, onDelta?: (delta: string) => void): Promise<AnswerOut> {
    const client = await this.llm('answer');
    // The citations come from where the evidence being answered over came from (a paged index: the records of the
    // chunks the last question showed), else from where questions read now (none when the library fails to load).
    const source = this.asked ?? (await this.sources.current().catch(() => null))?.source;
    const citations = source?.citations() ?? libraryCitations(null);
    return this.answers.run((signal) => writeAnswer(client, citations, request, onDelta, signal));
  }

  /** The library's themes for the Themes panel (null: the library has none), from whichever source questions read. */
  async libraryThemes(): Promise<ThemesList | null> {
    const { source } = await this.sources.current({ view: true });
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
    const client = await this.llm('answer');
    return this.answers.run((signal) =>
      runPlanned(planned, client, {
        signal,
        ...(onDelta ? { onDelta } : {}),
      }),
    );
  }

  private async globalPlan(question: string, kappa?: number): Promise<PlannedGlobal | null> {
    const source = this.asked ?? (await this.sources.current()).source;
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
    this.answers.stop();
  }

  /** Stops a reasoning mode's run (decompose, logical) at its next LLM call; the question then fails as cancelled. */
  cancelAsk(): void {
    this.asks.stop();
  }

  /**
   * Runs a QA set in the given modes and budgets over the library (src/services/query/evaluate.ts), reporting
   * progress through `onProgress` (a Comlink proxy). cancelEvaluation() stops it; what was scored is returned.
   */
  async evaluate(request: EvalRequest, onProgress?: (progress: EvalProgress) => void): Promise<EvalResult> {
    // A library answered from its pages is evaluated over them, never loaded; stored pages small enough to hold are
    // read whole first (once), so that every question runs in one pass from memory instead of rounds of Blob slices.
    const { source, vector, documentNames } = await this.sources.current({
      view: true,
      held: true,
      layers: true,
    });
    return this.evaluations.run((signal) =>
      evaluateSet(request, {
        source,
        ...(vector ? { vector } : {}),
        ...(documentNames ? { documentNames } : {}),
        llm: () => this.llm('evaluation'),
        signal,
        onProgress,
      }),
    );
  }

  /**
   * The modes the Evaluate view offers for this library: every mode for a library in memory; for one answered from
   * its pages, those its pages and layers answer, with the reason the view shows in one line.
   */
  evaluationModes(): Promise<{ modes: string[]; reason?: string }> {
    return this.sources.evaluationModes();
  }

  /**
   * The documents of a bundle opened read-only and read whole (the Library view lists them), the first `limit` by
   * title, and how many it has; null for the library in this browser, or a bundle read by ranges (its documents are
   * read only as questions reach them).
   */
  async bundleDocuments(
    limit = 1000,
  ): Promise<{ total: number; documents: { id: string; title: string; source: string }[] } | null> {
    if (!this.session.readOnlyBundle || (await this.sources.bundleByRanges())) return null;
    const all = [...(await this.session.library()).documents.values()];
    all.sort((a, b) => a.title.localeCompare(b.title));
    return {
      total: all.length,
      documents: all.slice(0, limit).map((d) => ({ id: d.id, title: d.title, source: d.sourceName })),
    };
  }

  /** Stops the evaluation at its next question (or LLM call). */
  cancelEvaluation(): void {
    this.evaluations.stop();
  }

  /** Frees the question embedder and the loaded library (both are loaded again lazily). */
  async dispose(): Promise<void> {
    this.answers.stop();
    this.asks.stop();
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
    return this.sources.askTimings();
  }

  /**
   * Where the time went when the library's stored pages were last opened (null before any): ms after the open began
   * until their record, the threshold rule, the pages' `open` section, and the first answer from them.
   * For benchmarks (scale-browser.ts prints it after reopening).
   */
  pagesTimings(): Record<string, number> | null {
    return this.sources.pagesTimings();
  }

  /** Where the time went when the read-only bundle was opened (null before any): for benchmarks. */
  openTimings(): Record<string, number> | null {
    return this.opened && { ...this.opened };
  }
}

/** The query worker's API as the page calls it (workers/query.worker.ts only exposes this service). */
export type QueryApi = QueryService;
