// The one path of a question, whoever asks it (the query service for the Ask view, Evaluate, `cli ask`, `cli bench`)
// and wherever the library is (any LibrarySource): the mode is read once, refused by `missing` when the source lacks
// what it needs, run by its handler (modes.ts) over the source's searches and chunks, and its hits shown as
// evidence on the one relevance scale, so a mode behaves the same over memory, pages and words.
import type { LlmClient, TraceEvent } from '../../core/llm/index.ts';
import { rateEvidence, type RetrievedChunk } from '../../core/retrieval/index.ts';
import { answers, missing, parseQuestionMode, type ParsedMode } from '../questions/modeRegistry.ts';
import type { ModeResult } from '../questions/modeTypes.ts';
import { DEFAULT_LAMBDA, modeHandler } from '../questions/modes.ts';
import { corpusAnswer } from './corpusAnswer.ts';
import type { AskRequest, AskResult, PagedReads, TraceListener } from '../questions/queryProtocol.ts';
import type { LibrarySource } from './librarySource.ts';

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
  const shown = (
    hits: readonly RetrievedChunk[],
    reads: PagedReads | undefined,
    vectored = Boolean(vector),
  ): AskResult => {
    const evidence = hits.map((hit) => question.evidence(hit));
    // One scale for every mode, from what the mode returned (relevance.ts).
    const rated = rateEvidence(request.question, evidence, (text) => source.terms(text));
    evidence.forEach((e, i) => (e.relevance = rated.relevance[i]));
    return {
      question: request.question,
      mode: request.mode,
      budget,
      evidence,
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
  const found = await modeHandler(mode.name)({
    question: request.question,
    vector,
    budget,
    lambda: request.lambda ?? DEFAULT_LAMBDA,
    search: (query, m, b) => {
      const onEarly = early;
      early = undefined;
      return question.search(query, m, b, {
        ...(onEarly
          ? {
              early: (hits, reads) => {
                sent = { ...shown(hits, reads, false), stage: 'early' };
                onEarly(sent);
              },
              ...(coming ? { vector: coming } : {}),
            }
          : {}),
      });
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
  question.show(found.hits);
  const result = shown(
    found.hits,
    question.reads && { ...question.reads },
    Boolean(vector ?? (await coming)),
  );
  return {
    ...result,
    ...(found.kg ? { kg: found.kg } : {}),
    ...run.result(found),
    ...(sent ? { rankingChanged: !sameChunks(sent, result) } : {}),
  };
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
