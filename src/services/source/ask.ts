// The one path of a question, whoever asks it (the query service for the Ask view, Evaluate, `cli ask`, `cli bench`)
// and wherever the library is (any LibrarySource): the mode is read once, refused by `missing` when the source lacks
// what it needs, run by its handler (modes.ts) over the source's searches and chunks, and its hits shown as
// evidence on the one relevance scale, so a mode behaves the same over memory, pages and words.
import type { LlmClient, TraceEvent } from '../../core/llm/index.ts';
import { passagesShown, rateEvidence, type RetrievedChunk } from '../../core/retrieval/index.ts';
import { answers, missing, parseQuestionMode, type ParsedMode } from '../questions/modeRegistry.ts';
import type { ModeResult } from '../questions/modeTypes.ts';
import { DEFAULT_LAMBDA, modeHandler } from '../questions/modes.ts';
import { corpusAnswer } from './corpusAnswer.ts';
import type { AskRequest, AskResult, PagedReads, TraceListener } from '../questions/queryProtocol.ts';
import { firstPageWanted } from './firstPage.ts';
import type { LibrarySource, UnreadHits } from './librarySource.ts';

/** What a question needs beyond the source and the request. */
export interface AskOptions {
  /**
   * The question embedded by the library's embedder (absent: lexical only). Still coming (the model loads): a mode
   * that ranks without it sends its early evidence meanwhile, and its search awaits it (memorySource.ts).
   */
  vector?: Float32Array | Promise<Float32Array | undefined>;
  /** Embeds a sub-question with the library's embedder (absent: sub-questions are searched lexically). */
  embed?: (text: string) => Promise<Float32Array | undefined>;
  /** The configured endpoint's client, for the reasoning modes (absent: they refuse, naming the mode). */
  llm?: () => Promise<LlmClient>;
  /**
   * A mode that ranks without the question vector first shows the evidence its source has before the ranking is
   * complete (a paged index that waits on reads: the words'; a library in memory whose vector is slow to come: the
   * lexical ranking), marked early; the result then says whether it ranks otherwise (`rankingChanged`).
   */
  early?: (early: AskResult) => void;
  onTrace?: TraceListener;
  signal?: AbortSignal;
  /** The mode read before (a caller that checked it): read here otherwise. */
  parsed?: ParsedMode;
  /**
   * The Ask view's first page only: a lexical mode over a source that reads records as it needs them (a paged
   * index) reads the records of the passages the page shows first (firstPage.ts), and the result is that page with
   * `more`; this is then handed the whole result, as asked without it (for "More passages", a written answer).
   * Not called when the result is already whole.
   */
  firstPage?: (rest: () => Promise<AskResult>) => void;
}

/** Answers a question from a source: the one `ask()`. */
export async function ask(
  source: LibrarySource,
  request: AskRequest,
  options: AskOptions = {},
): Promise<AskResult> {
  const started = performance.now();
  const mode = options.parsed ?? parseQuestionMode(request.mode, { allowDefault: true });
  if (!answers(source, mode)) throw new Error(missing(source, mode));
  const budget = Math.max(1, Math.floor(request.budget));
  const signal = options.signal ?? new AbortController().signal;
  const question = source.question(signal);
  const run = modeRun(request, started, options);
  // Only a lexical mode's one search sends early evidence (the KG and reasoning modes are not staged).
  let early = mode.lexical ? options.early : undefined;
  const coming = options.vector instanceof Promise ? options.vector : undefined;
  const vector = coming ? (early ? undefined : await coming) : (options.vector as Float32Array | undefined);
  const terms = (text: string) => source.terms(text);
  const shown = (
    hits: readonly RetrievedChunk[],
    reads: PagedReads | undefined,
    vectored = Boolean(vector),
    cards?: UnreadHits,
  ): AskResult => {
    let evidence = hits.map((hit) => question.evidence(hit));
    // One scale for every mode, from what the mode returned (relevance.ts).
    const rated = rateEvidence(request.question, evidence, terms);
    evidence.forEach((e, i) => (e.relevance = rated.relevance[i]));
    let more: AskResult['more'];
    if (cards?.unread.size) {
      // The first page: the passages past it are below half of the best read (firstPage.ts), so not close.
      const first = passagesShown(rated.relevance.map((r, i) => (cards.unread.has(i) ? 0 : r.value)));
      for (let i = 0; i < first; i++)
        if (cards.unread.has(i)) throw new Error(`the first page's passage ${i + 1} was not read`);
      more = {
        passages: hits.length - first,
        tokens: hits.slice(first).reduce((n, h) => n + h.tokens, 0),
      };
      evidence = evidence.slice(0, first);
    }
    return {
      question: request.question,
      mode: request.mode,
      budget,
      evidence,
      ...(more ? { more } : {}),
      ...(rated.noGoodMatch ? { noGoodMatch: true } : {}),
      layers: source.layers,
      layer: source.layers.semantic && vectored ? 'semantic' : 'lexical',
      ...(source.from ? { from: source.from } : {}),
      ...(reads ? { reads } : {}),
      milliseconds: performance.now() - started,
    };
  };
  const overview = await corpusAnswer(source, question, request, mode, budget);
  if (overview) {
    question.show(overview.hits);
    return { ...shown(overview.hits, question.reads && { ...question.reads }), themes: overview.overview };
  }
  let sent: AskResult | undefined;
  /** The early hits' keys (which chunks, read or not), for rankingChanged. */
  let sentKeys: readonly number[] | undefined;
  // The first page is read alone only in a lexical mode, whose answer is its one search's hits.
  let firstPage = mode.lexical ? options.firstPage : undefined;
  let lazy: { hits: RetrievedChunk[]; cards: UnreadHits; rest: () => Promise<RetrievedChunk[]> } | undefined;
  const found = await modeHandler(mode.name)({
    question: request.question,
    vector,
    budget,
    lambda: request.lambda ?? DEFAULT_LAMBDA,
    search: async (query, m, b) => {
      const onEarly = early;
      const paging = firstPage;
      early = undefined;
      firstPage = undefined;
      let told: { cards: UnreadHits; rest: () => Promise<RetrievedChunk[]> } | undefined;
      const hits = await question.search(query, m, b, {
        ...(onEarly
          ? {
              early: (hits, reads, cards) => {
                sent = { ...shown(hits, reads, false, cards), stage: 'early' };
                sentKeys = cards?.keys;
                onEarly(sent);
              },
              ...(coming ? { vector: coming } : {}),
            }
          : {}),
        ...(paging
          ? {
              cards: {
                wanted: firstPageWanted(request.question, terms),
                unread: (cards, rest) => (told = { cards, rest }),
              },
            }
          : {}),
      });
      if (told) lazy = { hits, ...told };
      return hits;
    },
    chunkView: (id) => question.chunk(id),
    ...(question.readChunks ? { readChunks: question.readChunks.bind(question) } : {}),
    kg: () => source.kg(),
    atomic: () => source.atomic(),
    reasoning: request.reasoning ?? {},
    llm: run.llm,
    embed: options.embed ?? (() => Promise.resolve(undefined)),
    trace: run.trace,
    signal,
  });
  const vectored = Boolean(vector ?? (await coming));
  const whole = (hits: readonly RetrievedChunk[], keys?: readonly number[]): AskResult => {
    question.show(hits);
    const result = shown(hits, question.reads && { ...question.reads }, vectored);
    const changed = sent && (keys && sentKeys ? !sameKeys(sentKeys, keys) : !sameChunks(sent, result));
    return {
      ...result,
      ...(found.kg ? { kg: found.kg } : {}),
      ...run.result(found),
      ...(changed !== undefined ? { rankingChanged: changed } : {}),
    };
  };
  const paged = lazy?.hits === found.hits ? lazy : undefined;
  if (!paged?.cards.unread.size) return whole(found.hits, paged?.cards.keys);
  // The first page, then the whole result on demand: the same chunks and order, with every record read.
  options.firstPage!(async () => whole(await paged.rest(), paged.cards.keys));
  const page = shown(found.hits, question.reads && { ...question.reads }, vectored, paged.cards);
  return {
    ...page,
    ...run.result(found),
    ...(sent ? { rankingChanged: !sameKeys(sentKeys ?? [], paged.cards.keys) } : {}),
  };
}

function sameKeys(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((k, i) => k === b[i]);
}

/**
 * What a mode's run needs that does not depend on the library: the endpoint's client, or the refusal naming the
 * mode; the trace, streamed and kept; and the run's own part of the result.
 */
function modeRun(
  request: AskRequest,
  started: number,
  options: { llm?: () => Promise<LlmClient>; onTrace?: TraceListener },
) {
  const events: TraceEvent[] = [];
  return {
    llm:
      options.llm ??
      (() =>
        Promise.reject(
          new Error(
            `mode ${request.mode} needs an LLM endpoint: set its base URL and model in Settings first`,
          ),
        )),
    trace: (event: Omit<TraceEvent, 'mode' | 'at'>): void => {
      const full: TraceEvent = { ...event, mode: request.mode, at: Math.round(performance.now() - started) };
      events.push(full);
      options.onTrace?.(full);
    },
    /** The trace, facts and LLM calls of the run, as AskResult carries them. */
    result: (found: ModeResult): Pick<AskResult, 'trace' | 'facts' | 'usage'> => ({
      ...(events.length ? { trace: events } : {}),
      ...(found.facts ? { facts: found.facts } : {}),
      ...(found.usage ? { usage: { ...found.usage } } : {}),
    }),
  };
}

/** Same chunks in the same order. */
export function sameChunks(a: AskResult, b: AskResult): boolean {
  return (
    a.evidence.length === b.evidence.length && a.evidence.every((e, i) => e.chunkId === b.evidence[i].chunkId)
  );
}
