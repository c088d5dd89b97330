// Ask state: the one question flow of the Ask view. The question, mode and budget; the ranked evidence returned by
// the query worker (early lexical evidence first when the question's embedding is slow to come, then the result)
// in every mode, a reasoning mode's trace as it runs, and, when an endpoint is set, the written answer streamed
// over that evidence. The one place that keeps the query worker's library current; and the warm start
// that has the query worker load the library and the question model when the app opens, not on the first
// question.
import { proxy, type Remote } from 'comlink';
import type { QueryApi } from '../../services/query/queryService.ts';
import type { TraceEvent } from '../../core/llm/index.ts';
import { DEFAULT_CURRENCY } from '../../core/llm/index.ts';
import { ASK_MODES, needsLlm, type QuestionMode } from '../../services/questions/modeRegistry.ts';
import type { AnswerOut, AskRequest, AskResult } from '../../services/questions/queryProtocol.ts';
import { DEFAULT_MODE } from '../../core/retrieval/index.ts';
import { checkLimits, defaultLimits, type LimitsByMode } from '../reasoningLimits.ts';
import { queryParam } from '../url.ts';
import { queryWorker } from '../workers.ts';
import { finishedWords } from '../../services/questions/typedWords.ts';
import { crossTab } from './crossTab.svelte.ts';
import { globalAnswer } from './globalAnswer.svelte.ts';
import { askAgainDue, documentsComing, searchableDocuments } from './askAgain.ts';
import { library } from './library.svelte.ts';
import { messageOf } from '../../core/errors.ts';

const DEFAULT_BUDGET = 12000;

/**
 * A question the worker found the library empty for while the page thought it searchable (the graph was written
 * between the page's reads) is asked again after this pause.
 */
const EMPTY_RETRY_MS = 500;

/**
 * Quiet time after the page opened or the library last changed before the query worker (re)loads: the page paints
 * first, and a drop's stream of small changes does not start a reload each.
 */
const WARM_DELAY_MS = 1000;

/** Library version the query worker last loaded; a newer one makes it reload the library. */
let loadedVersion = -1;

/** The query worker, told to reload first when the library changed since it last loaded. */
export async function currentQueryWorker(libraryVersion: number): Promise<Remote<QueryApi>> {
  const worker = queryWorker();
  if (libraryVersion !== loadedVersion) {
    await worker.invalidate('library');
    loadedVersion = libraryVersion;
  }
  return worker;
}

/**
 * Whether the library questions read can answer now: 'ready' (something is searchable, or a read-only bundle is
 * open), 'filling' (nothing searchable yet, but a drop, a removal's refresh or another tab's run is under way: a
 * question waits for it), 'empty' (nothing stored and nothing coming).
 */
function libraryReadiness(): 'ready' | 'filling' | 'empty' {
  if (library.readOnly || library.bundles.bundleUrl) return 'ready';
  const coming = stillComing();
  // While a run goes on, what the graph covers is searchable (stored documents wait for the next refresh).
  const searchable = searchableDocuments(library) > 0;
  if (library.read && searchable) return 'ready';
  return coming || !library.read ? 'filling' : 'empty';
}

/** Documents are being added (or the library refreshed after a removal), in this tab or another. */
function stillComing(): boolean {
  return library.running || library.removing !== null || crossTab.elsewhere.ingest;
}

/** Resolves with the library's readiness once it is no longer 'filling' (at once when it is not). */
function libraryNoLongerFilling(): Promise<'ready' | 'empty'> {
  return new Promise((resolve) => {
    let settled = false;
    const stop = $effect.root(() => {
      $effect(() => {
        const readiness = libraryReadiness();
        if (readiness === 'filling' || settled) return;
        settled = true;
        resolve(readiness);
        queueMicrotask(() => stop());
      });
    });
  });
}

/** The query worker's refusal of a library with nothing in it (src/services/library/questionLibrary.ts). */
const EMPTY_LIBRARY = /library is empty/;

class AskState {
  question = $state('');
  mode = $state<QuestionMode>(DEFAULT_MODE);
  budget = $state(DEFAULT_BUDGET);
  busy = $state(false);
  /** The evidence on screen: early (lexical, `stage: 'early'`) while the question is refined, then the result. */
  result = $state<AskResult | null>(null);
  error = $state<string | null>(null);
  /** Every mode, in the order the mode list shows them (the list `cli ask` takes too). */
  readonly modes = ASK_MODES;
  /** A reasoning mode's events for the question on screen, as they arrived. */
  trace = $state<TraceEvent[]>([]);
  /** An endpoint is set: the written answer follows the evidence (undefined until the worker has said). */
  llmConfigured = $state<boolean | undefined>(undefined);
  /** The currency of the endpoint's prices (a trace's costs are shown in it). */
  llmCurrency = $state(DEFAULT_CURRENCY);
  /** The written answer being streamed, then done (`answer`). */
  streamed = $state('');
  answer = $state<AnswerOut | null>(null);
  answering = $state(false);
  answerError = $state<string | null>(null);
  /** The reasoning modes' limits (rounds, candidates, threshold), kept while the page lives. */
  limits = $state<LimitsByMode>(defaultLimits());
  /** The answer on screen replaced an answer by words once the library's pages were written (replaceWords). */
  replacedWords = $state(false);
  /**
   * The answer on screen was asked again by itself once a graph refresh took in documents that waited when it was
   * first answered (askAgainWhenCovered): it is newer than the one it replaced.
   */
  askedAgain = $state(false);
  /** Documents the app called searchable when the answer on screen was asked (askAgain.ts). */
  private searchableAt = 0;
  /**
   * What the drop still had to make searchable when the answer on screen was asked (askAgain.ts documentsComing):
   * the answer is over the documents searchable then, and is asked again when a refresh takes in more.
   */
  comingAt = $state<{ documents: number; files: number } | null>(null);
  /**
   * The question was asked before anything was searchable, while documents are being added: it waits, says so, and
   * runs as soon as the library can answer it.
   */
  waitingForLibrary = $state(false);
  /**
   * The reader stopped the question (Stop): what its trace and early evidence found stays on screen, said to be
   * stopped, not an error.
   */
  stopped = $state(false);
  /** The question Stop was pressed for (its cancellation is then not an error). */
  private stopFor = -1;
  /** Questions asked so far: early evidence of an earlier question is never shown for a later one. */
  private asked = 0;
  /** The library version the answer on screen was asked at. */
  private resultVersion = -1;

  /** Early lexical evidence is on screen; the refined result is on its way. */
  get early(): boolean {
    return this.result?.stage === 'early';
  }

  /**
   * Prepares the query worker (library, engine, and the question embedder when the library has vectors) so the
   * first question answers quickly. Questions asked meanwhile get early evidence from the library loaded before.
   * `vectors` undefined: not known yet (the page has not read the store); the machine's cores decide then.
   */
  async warmUp(libraryVersion: number, indexing: boolean, vectors?: boolean): Promise<void> {
    if (indexing || libraryVersion === loadedVersion) return;
    // Not known: with cores to spare the question model loads alongside the library (undefined); on two cores it
    // waits for the library (false), which then says whether it is needed. Measured on MuSiQue here, loading both
    // at once gave the result 0.5 s sooner but the first evidence 0.1-0.2 s later.
    const embedder = vectors ?? ((navigator.hardwareConcurrency ?? 2) > 2 ? undefined : false);
    await (await currentQueryWorker(libraryVersion)).warmUp({ embedder });
  }

  /** The words last read ahead as they were typed (finishedWords): each text is asked for once. */
  private typedWords = '';

  /**
   * As the question box changes: once a word is finished, the query worker reads ahead what a question of the words
   * typed so far will read first (a bundle read by ranges over a link: QueryService.prepare), so that the question,
   * asked, finds its words' reads on their way or here. Not at each key: a word still being typed is not looked up.
   */
  typing(): void {
    const words = finishedWords(this.question).trim();
    if (!words || words === this.typedWords) return;
    this.typedWords = words;
    queryWorker()
      .prepare(words)
      .catch(() => undefined);
  }

  /** Why a question in `mode` cannot be asked with the limits set (null: it can, or the mode has none). */
  refusal(mode: string): string | null {
    return needsLlm(mode) ? checkLimits(mode, this.limits[mode]).refusal : null;
  }

  /** The request of the answer tab, with the limits set for its mode when it is a reasoning mode. */
  withLimits<R extends AskRequest>(request: R): R {
    if (!needsLlm(request.mode)) return request;
    const { reasoning, refusal } = checkLimits(request.mode, this.limits[request.mode]);
    if (!reasoning) throw new Error(refusal ?? 'Cannot ask: a limit is out of range.');
    return { ...request, reasoning };
  }

  /** Asks the query worker whether an endpoint is set (the Ask view calls it when it opens). */
  async checkLlm(): Promise<void> {
    this.llmConfigured = await queryWorker()
      .llmConfigured()
      .catch(() => false);
    if (this.llmConfigured)
      this.llmCurrency = await queryWorker()
        .llmCurrency()
        .catch(() => DEFAULT_CURRENCY);
  }

  async ask(libraryVersion: number): Promise<void> {
    const question = this.question.trim();
    if (!question || this.busy || this.refusal(this.mode)) return;
    await this.run(question, this.mode, libraryVersion, false);
  }

  /**
   * Asks again the question whose answer by words is on screen (a large library waiting for its pages:
   * askByWords.ts), now that the pages are written: the concept walk's answer replaces it without the reader
   * asking again. The question and mode are those of the answer shown, not what the box holds now. At most once
   * per library version: pages the query worker cannot open yet give words again, and are not asked about twice.
   */
  async replaceWords(libraryVersion: number): Promise<void> {
    const shown = this.result;
    if (!shown || shown.from !== 'words' || this.busy || this.resultVersion === libraryVersion) return;
    await this.run(shown.question, shown.mode, libraryVersion, 'words');
  }

  /**
   * Asks again the question whose answer on screen was given while documents waited for the concept graph
   * (AskResult.awaitingGraph), now that a refresh has made more of them searchable: the newer answer replaces it in
   * place, said to be newer. The question and mode are those of the answer shown, not what the box holds now.
   */
  async askAgainWhenCovered(libraryVersion: number, searchableNow: number): Promise<void> {
    const shown = this.result;
    if (!shown || !askAgainDue(shown, this.searchableAt, searchableNow, this.busy, this.comingAt)) return;
    await this.run(shown.question, shown.mode, libraryVersion, 'graph');
  }

  private async run(
    question: string,
    mode: QuestionMode,
    libraryVersion: number,
    /** The answer on screen is the same question's, asked again: by words before the pages, or before a refresh. */
    replacing: 'words' | 'graph' | false,
  ): Promise<void> {
    const id = ++this.asked;
    this.busy = true;
    this.error = null;
    this.stopped = false;
    this.replacedWords = replacing === 'words';
    this.askedAgain = replacing === 'graph';
    this.resultVersion = libraryVersion;
    this.searchableAt = searchableDocuments(library);
    this.comingAt = documentsComing(library);
    // Old evidence must not pass for the answer to the new question (a reader, or a test, would take it as such);
    // the answer by words being replaced is the same question's, and stays until the walk's arrives.
    if (!replacing) this.result = null;
    this.trace = [];
    this.streamed = '';
    this.answer = null;
    this.answerError = null;
    globalAnswer.clear();
    const onEarly = proxy((early: AskResult) => {
      if (id === this.asked && this.busy) this.result = early;
    });
    const onTrace = proxy((event: TraceEvent) => {
      if (id === this.asked) this.trace = [...this.trace, event];
    });
    let result: AskResult | null = null;
    try {
      // The first page alone where the library is read by ranges: the rest on "More passages" or for an answer.
      const request = this.withLimits({ question, mode, budget: this.budget, firstPage: true });
      for (;;) {
        // Asked before the first documents are searchable: wait for them rather than fail.
        const waited = libraryReadiness() === 'filling';
        if (waited) {
          this.waitingForLibrary = true;
          const readiness = await libraryNoLongerFilling();
          this.waitingForLibrary = false;
          if (readiness === 'empty') throw new Error('ask: the library is empty; add documents first');
          libraryVersion = library.version;
          this.searchableAt = searchableDocuments(library);
          this.comingAt = documentsComing(library);
          // The worker may have loaded the library while it was still empty, at this same version (its refresh
          // may not have been read yet): it loads it again.
          loadedVersion = -1;
        }
        const worker = await currentQueryWorker(libraryVersion);
        try {
          result = await worker.ask(request, onEarly, needsLlm(mode) ? onTrace : undefined);
        } catch (error) {
          // The graph was written between two reads of the store: the worker still saw it empty. Wait again.
          const message = messageOf(error);
          if (EMPTY_LIBRARY.test(message) && stillComing() && id === this.asked) {
            loadedVersion = -1;
            await new Promise((resolve) => setTimeout(resolve, EMPTY_RETRY_MS));
            continue;
          }
          throw error;
        }
        break;
      }
      if (id === this.asked) this.result = result;
    } catch (error) {
      const message = messageOf(error);
      // Stopped by the reader: the trace so far stays, said to be stopped (the LLM client's "cancelled").
      if (this.stopFor === id && /cancel|abort/i.test(message)) this.stopped = true;
      else this.error = message;
      // Early evidence stays on screen, marked early, with the error that stopped its refinement.
    } finally {
      this.busy = false;
      this.waitingForLibrary = false;
    }
    if (!result || id !== this.asked || result.evidence.length === 0) return;
    // Read again now, not only when the view opened: the endpoint may have been saved since, and the worker may
    // have been too busy opening a library to say so at first.
    await this.checkLlm();
    if (!this.llmConfigured || id !== this.asked) return;
    // A corpus-wide question answered by the themes: its written answer is the global one, which costs a call per
    // theme, so its cost is shown and it waits for the person's yes.
    if (result.themes) await globalAnswer.offer(result.question, () => currentQueryWorker(libraryVersion));
    else {
      // The written answer is over every passage: those the first page left unread are read first.
      let whole: AskResult | null;
      try {
        whole = await this.readRest();
      } catch (error) {
        if (id === this.asked) this.answerError = messageOf(error);
        return;
      }
      if (whole && id === this.asked) await this.writeAnswer(id, whole, libraryVersion);
    }
  }

  /** The rest of the answer on screen being read (readRest). */
  private restRead: Promise<AskResult | null> | null = null;

  /**
   * The answer on screen with every passage read, when it is its first page alone (AskResult.more): its other
   * passages are read now and replace it (the first page's cards stay as they were). Null when another question
   * took its place.
   */
  async readRest(): Promise<AskResult | null> {
    const id = this.asked;
    const page = this.result;
    if (!page?.more || page.stage === 'early' || this.busy) return page;
    // "More passages" clicked twice, or by the written answer meanwhile: one read of the rest.
    this.restRead ??= queryWorker().restOfAnswer();
    const whole = await this.restRead.finally(() => (this.restRead = null));
    if (id !== this.asked) return null;
    if (whole && this.result === page) this.result = { ...whole, milliseconds: page.milliseconds };
    return this.result;
  }

  /** The written answer over the evidence shown (and a KG mode's relations, a reasoning mode's facts). */
  private async writeAnswer(id: number, result: AskResult, libraryVersion: number): Promise<void> {
    this.answering = true;
    try {
      const facts = [
        ...(result.facts ?? []),
        ...(result.kg?.relations ?? [])
          .slice(0, 10)
          .map((r) => `${r.source} — ${r.target}: ${r.description}`),
      ];
      const worker = await currentQueryWorker(libraryVersion);
      // Plain data only: anything Svelte proxied must not reach structured cloning.
      const evidence = JSON.parse(JSON.stringify(result.evidence)) as AskResult['evidence'];
      const answer = await worker.answer(
        { question: result.question, evidence, facts },
        proxy((delta: string) => {
          if (id === this.asked) this.streamed += delta;
        }),
      );
      if (id === this.asked) this.answer = answer;
    } catch (error) {
      if (id === this.asked) this.answerError = messageOf(error);
    } finally {
      if (id === this.asked) this.answering = false;
    }
  }

  /** Stops the question (a reasoning mode's run) and the answer being written. */
  async stop(): Promise<void> {
    this.stopFor = this.asked;
    await Promise.all([queryWorker().cancelAsk(), queryWorker().cancelAnswer()]);
  }
}

export const ask = new AskState();

/**
 * Warm start: a while after the app opened, and again after each change of the library once indexing is idle or
 * has only embedding left (the lexical library is then complete, and stays as it is until the semantic layer is
 * built: questions asked meanwhile find it loaded, and when the semantic layer comes, the reload reuses its
 * analysis and co-occurrence graph), the query worker loads the library and the question model in the
 * background. Not for a read-only bundle: the query worker loads that one (and the model alongside) as soon as
 * the page asks it to open it.
 */
function warmStart(): void {
  if (queryParam('bundle') !== null) return;
  $effect.root(() => {
    $effect(() => {
      const version = library.version;
      const indexing = library.running && !library.onlyEmbedding;
      // With only embedding left the library is about to have vectors: the question model loads now, so the first
      // question after the semantic layer does not wait for it (measured on MuSiQue: 3.1 s to its result when the
      // model loaded only then).
      const vectors = library.layers.semantic || library.onlyEmbedding;
      if (indexing || version === loadedVersion) return;
      const timer = setTimeout(() => {
        ask.warmUp(version, indexing, vectors).catch(() => undefined);
      }, WARM_DELAY_MS);
      return () => clearTimeout(timer);
    });
  });
}

/**
 * The query worker starts loading the library as the page starts, before the store has been read and the views
 * mounted: a question asked as the app opens waits for that load (on MuSiQue the worker began 0.3-0.5 s after
 * navigation when the Ask view's mount started it). Version 0 is the library as the page finds it (libraryStamp).
 */
function warmAtOpen(): void {
  if (queryParam('bundle') !== null) return;
  ask.warmUp(0, false).catch(() => undefined);
}

/**
 * An answer by words on screen (a large library whose pages were not written yet) is asked again once the library
 * has pages (`pagesConcepts`, set when the page reads a library answered from its pages): the walk's answer
 * replaces it, and the view says so.
 */
function replaceWordsWhenPaged(): void {
  $effect.root(() => {
    $effect(() => {
      const version = library.version;
      if (ask.result?.from !== 'words' || ask.busy || library.pagesConcepts === null) return;
      ask.replaceWords(version).catch(() => undefined);
    });
  });
}

/**
 * An answer given while documents waited for the concept graph (AskResult.awaitingGraph) or were still to be stored
 * (AskState.comingAt) is asked again once a refresh makes more documents searchable: its evidence is replaced in
 * place, and the view says it is newer.
 */
function askAgainWhenCovered(): void {
  $effect.root(() => {
    $effect(() => {
      const version = library.version;
      const searchable = searchableDocuments(library);
      if ((ask.result?.awaitingGraph === undefined && ask.comingAt === null) || ask.busy) return;
      ask.askAgainWhenCovered(version, searchable).catch(() => undefined);
    });
  });
}

// Started with the page (App imports the Ask view, which imports this module), not when the Ask view opens.
if (typeof window !== 'undefined' && typeof Worker !== 'undefined') {
  warmAtOpen();
  warmStart();
  replaceWordsWhenPaged();
  askAgainWhenCovered();
}
