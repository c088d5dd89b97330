// The in-app evaluation, run in the query worker over the library: every question of a QA set in every
// chosen mode through ask() (as the Ask view answers it), scored with the CLI bench's own scoring
// (scoreQaItem: context recall at each budget, supporting-passage recall@k; scoreAnswerText: EM/F1), averaged as
// the bench averages. With an endpoint it also writes an answer over each mode's context and has the LLM judge
// it against the gold answers (JUDGE_PROMPT below, a JSON step with one repair). Cancelling keeps what was scored.
// Every library is evaluated through its LibrarySource and the one ask() (src/services/source/ask.ts), in the modes
// it answers: over pages the answers are the engine's, so the scores are those of the library in memory.
import { answerQuestion } from '../../core/answer/index.ts';
import { runJsonStep, type Checked, type LlmClient, type StepUsage } from '../../core/llm/index.ts';
import { meanScores, percentile, round, scoreAnswerText, scoreQaItem } from '../../core/metrics.ts';
import { cutToBudget } from '../../core/retrieval/index.ts';
import {
  DEFAULT_RECALL_KS,
  type EvalProgress,
  type EvalRequest,
  type EvalResult,
  type ModeOnQuestion,
  type ModeSummary,
  type QaItem,
  type QuestionResult,
  type RankedDoc,
} from '../questions/evalProtocol.ts';
import { ask } from '../source/ask.ts';
import type { LibrarySource } from '../source/librarySource.ts';
import { answers, missing, parseQuestionMode, type ParsedMode } from '../questions/modeRegistry.ts';
import type { Evidence } from '../questions/queryProtocol.ts';
import { countFailures } from '../questions/stepFailures.ts';
import { messageOf } from '../../core/errors.ts';

/**
 * The judging prompt. The judge sees the question, the gold answers and the written answer, never the context: it
 * grades the answer, not the retrieval. Equivalent wording, aliases and extra correct detail pass; a refusal, a
 * hedge between candidates or a contradiction fails.
 */
export const JUDGE_PROMPT = [
  'You grade answers to questions against the gold answer.',
  'An answer is correct when it states the gold answer or an equivalent of it (the same entity, date, number or',
  'yes/no, in other words, as an alias, or with more correct detail) and does not contradict it.',
  'An answer is wrong when it gives another answer, hedges between several, or says the context does not contain',
  'the answer.',
  'Reply with ONLY a JSON object: {"correct": true or false, "reason": "<one short sentence>"}.',
].join(' ');

interface Verdict {
  correct: boolean;
  reason: string;
}

function validateVerdict(value: unknown): Checked<Verdict> {
  if (typeof value !== 'object' || value === null) return { ok: false, errors: ['expected a JSON object'] };
  const v = value as Record<string, unknown>;
  const errors: string[] = [];
  if (typeof v.correct !== 'boolean') errors.push('"correct" must be true or false');
  if (v.reason !== undefined && typeof v.reason !== 'string') errors.push('"reason" must be a string');
  return errors.length
    ? { ok: false, errors }
    : { ok: true, value: { correct: v.correct as boolean, reason: (v.reason as string | undefined) ?? '' } };
}

/** Asks the endpoint whether a written answer is right; null verdict with the reason when the judge failed. */
async function judgeAnswer(
  client: LlmClient,
  question: string,
  gold: readonly string[],
  answer: string,
  signal?: AbortSignal,
): Promise<{ verdict?: Verdict; error?: string; usage: StepUsage }> {
  const outcome = await runJsonStep(
    client,
    {
      name: 'judge',
      messages: [
        { role: 'system', content: JUDGE_PROMPT },
        {
          role: 'user',
          content: `Question: ${question}\nGold answer: ${gold.join(' | ')}\nAnswer to grade: ${answer}`,
        },
      ],
      validate: validateVerdict,
      maxTokens: 150,
    },
    { signal },
  );
  return outcome.ok
    ? { verdict: outcome.value, usage: outcome.usage }
    : { error: outcome.reason, usage: outcome.usage };
}

/** What the evaluation needs from the query service: the library's source and its question-time helpers. */
export interface EvalContext {
  /** Where the questions are asked (the library in memory, its pages, a bundle read by ranges). */
  source: LibrarySource;
  /** The question embedded by the library's embedder (absent: lexical). */
  vector?: (text: string) => Promise<Float32Array | undefined>;
  /**
   * The names the QA set gives the documents a question ranked (documentExternalId), by document id. Absent (a
   * bundle read by ranges: its pages name documents by id and title only): recall@k is not scored, and the result
   * says why.
   */
  documentNames?: (docIds: readonly string[]) => Promise<Map<string, string>>;
  /** The configured endpoint's client (rejects when none is configured). */
  llm: () => Promise<LlmClient>;
  signal: AbortSignal;
  onProgress?: (progress: EvalProgress) => void;
}

/** Why recall@k is left out over a library read by ranges (EvalResult.recallNote). */
export const NO_DOCUMENT_NAMES =
  'recall@k is not scored: this bundle is read by ranges, and its paged index names documents by id, not by the ' +
  'names a QA set uses (context recall is)';

/**
 * How the library asks question `i` of the set in a mode at a budget, and names the documents a question ranked: the
 * QA set's name of each (its id where none is known), or undefined when recall@k is not scored.
 */
function sourceOf(context: EvalContext, items: readonly QaItem[]) {
  const { signal, source, documentNames } = context;
  const known = new Map<string, string>();
  const vectors = new Map<number, Float32Array | undefined>();
  const vectorOf = async (i: number) => {
    if (!context.vector) return undefined;
    if (!vectors.has(i)) vectors.set(i, await context.vector(items[i].question));
    return vectors.get(i);
  };
  return {
    ask: async (i: number, mode: ParsedMode, budget: number): Promise<Evidence[]> =>
      (
        await ask(
          source,
          { question: items[i].question, mode: mode.name, budget },
          { vector: await vectorOf(i), llm: context.llm, signal, parsed: mode },
        )
      ).evidence,
    names: async (docIds: readonly string[]): Promise<((docId: string) => string) | undefined> => {
      if (!documentNames) return undefined;
      const wanted = [...new Set(docIds)].filter((d) => !known.has(d));
      if (wanted.length) for (const [d, name] of await documentNames(wanted)) known.set(d, name);
      return (docId) => known.get(docId) ?? docId;
    },
  };
}

/** Resolves after the event loop has run once more (a message channel: no timer clamping). */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

function validate(request: EvalRequest): number[] {
  if (request.set.items.length === 0) throw new Error('evaluate: the QA set has no questions');
  if (request.modes.length === 0) throw new Error('evaluate: choose at least one mode');
  const budgets = request.budgets;
  if (budgets.length === 0 || budgets.some((b) => !Number.isInteger(b) || b <= 0)) {
    throw new Error(`evaluate: budgets must be positive whole numbers of tokens, got ${budgets.join(', ')}`);
  }
  const ks = request.ks ?? [...DEFAULT_RECALL_KS];
  if (ks.some((k) => !Number.isInteger(k) || k < 1))
    throw new Error(`evaluate: k must be ≥ 1, got ${ks.join(', ')}`);
  return ks;
}

/**
 * Runs the QA set in every mode; on cancel, returns what was scored so far with `cancelled: true`. Over a library
 * answered from its pages, a mode it does not answer is refused before anything runs.
 */
export async function evaluateSet(request: EvalRequest, context: EvalContext): Promise<EvalResult> {
  const ks = validate(request);
  const { budgets, modes } = request;
  const items = request.set.items;
  const { signal } = context;
  // Every mode read once, and one the library does not answer refused before anything runs.
  const parsed = modes.map((m) => parseQuestionMode(m, { allowDefault: true }));
  const refused = parsed.find((m) => !answers(context.source, m));
  if (refused) throw new Error(`evaluate: ${missing(context.source, refused)}`);
  const source = sourceOf(context, items);
  const unnamed = !context.documentNames;
  const started = performance.now();
  const results: QuestionResult[] = items.map((q) => ({
    id: q.id,
    question: q.question,
    answers: q.answers,
    supporting: q.supporting,
    ...(q.type ? { type: q.type } : {}),
    modes: {},
  }));
  const client = request.answers ? await context.llm() : undefined;
  const total = items.length * modes.length;
  let done = 0;
  let cancelled = false;
  const summary: Record<string, ModeSummary> = {};
  let ranQuestions = items.length;
  for (const [m, mode] of modes.entries()) {
    let ran = 0;
    for (let i = 0; i < items.length; i++) {
      // A retrieval mode answers without leaving the microtask queue: let the worker take its messages (a
      // cancel from the page) between questions.
      await nextTask();
      if (signal.aborted) {
        cancelled = true;
        break;
      }
      context.onProgress?.({ done, total, mode, question: i + 1 });
      try {
        results[i].modes[mode] = await runOne(items[i], parsed[m], (b) => source.ask(i, parsed[m], b), {
          budgets,
          ks,
          names: source.names,
          client,
          request,
          signal,
        });
      } catch (err) {
        // Cancelled in the middle of a question (its LLM call aborted): that question is left out, not failed.
        if (!signal.aborted) throw err;
        cancelled = true;
        break;
      }
      ran++;
      done++;
    }
    ranQuestions = Math.min(ranQuestions, ran);
    summary[mode] = summarize(
      results.slice(0, ran).map((r) => r.modes[mode]),
      budgets,
      ks,
    );
    if (cancelled) break;
  }
  context.onProgress?.({ done, total, mode: modes.at(-1) ?? '', question: ranQuestions });
  return {
    set: request.set.name,
    modes: Object.keys(summary),
    budgets,
    ks,
    ...(request.answers ? { answerBudget: request.answers.budget } : {}),
    ...(unnamed ? { recallNote: NO_DOCUMENT_NAMES } : {}),
    questions: ranQuestions,
    cancelled,
    startedAt: new Date(Date.now() - (performance.now() - started)).toISOString(),
    seconds: round((performance.now() - started) / 1000, 2),
    summary,
    items: results.slice(
      0,
      cancelled ? Math.max(...Object.values(summary).map((s) => s.questions), 0) : results.length,
    ),
  };
}

interface RunOptions {
  budgets: number[];
  ks: number[];
  names: ReturnType<typeof sourceOf>['names'];
  client?: LlmClient;
  request: EvalRequest;
  signal: AbortSignal;
}

/** One question in one mode: searched once at the largest budget, scored, and (with an endpoint) answered. */
async function runOne(
  item: QaItem,
  mode: ParsedMode,
  ask: (budget: number) => Promise<Evidence[]>,
  o: RunOptions,
): Promise<ModeOnQuestion> {
  const t = performance.now();
  const [maxBudget, maxK] = [Math.max(...o.budgets), Math.max(...o.ks)];
  let hits: Evidence[];
  try {
    hits = await ask(maxBudget);
  } catch (err) {
    if (o.signal.aborted) throw err;
    return {
      cr: o.budgets.map(() => 0),
      recall: item.supporting.length ? o.ks.map(() => 0) : null,
      ranked: [],
      ms: performance.now() - t,
      error: messageOf(err),
    };
  }
  const ms = performance.now() - t;
  const named = await o.names(hits.map((h) => h.docId));
  const externalId = named ?? ((docId: string) => docId);
  // Without the documents' names, recall@k cannot be scored: the item counts as naming no supporting document.
  // Small budgets get the best sentences of a too-large first chunk (the CLI's `searchAt` rule).
  const score = await scoreQaItem(named ? item : { ...item, supporting: [] }, hits, {
    budgets: o.budgets,
    ks: o.ks,
    externalId,
    ...(mode.excerpts ? { searchAt: ask } : {}),
  });
  const gold = new Set(named ? item.supporting : []);
  const ranked: RankedDoc[] = [];
  for (const h of hits) {
    if (ranked.length >= maxK) break;
    if (ranked.some((r) => r.docId === h.docId)) continue;
    const id = externalId(h.docId);
    ranked.push({
      docId: h.docId,
      externalId: id,
      title: h.docTitle,
      start: h.chunkStart,
      end: h.chunkStart + h.text.length,
      supporting: gold.has(id),
    });
  }
  const out: ModeOnQuestion = { cr: score.cr, recall: score.recall, ranked, ms };
  if (o.client && o.request.answers) {
    const budget = o.request.answers.budget;
    const context = budget <= maxBudget ? cutToBudget(hits, budget) : cutToBudget(await ask(budget), budget);
    let a: Awaited<ReturnType<typeof answerQuestion>>;
    try {
      a = await answerQuestion(
        o.client,
        item.question,
        context.map((h) => ({ chunkId: h.chunkId, title: h.docTitle, heading: h.heading, text: h.text })),
        { maxTokens: 200, signal: o.signal },
      );
    } catch (err) {
      // The answer call failed (the endpoint, a reply it could not read): this question is answered wrong and
      // counted with its reason; the run goes on.
      if (o.signal.aborted) throw err;
      out.error = `answer: ${messageOf(err)}`;
      out.answer = { text: '', em: 0, f1: 0 };
      return out;
    }
    const answer: NonNullable<ModeOnQuestion['answer']> = {
      text: a.text,
      ...scoreAnswerText(a.text, item.answers),
    };
    if (o.request.answers.judge) {
      const j = await judgeAnswer(o.client, item.question, item.answers, a.text, o.signal);
      if (j.verdict) answer.judged = j.verdict;
      else answer.judgeError = j.error;
    }
    out.answer = answer;
  }
  return out;
}

/** Means as the CLI bench takes them: CR over every question, recall@k over the questions that name supports. */
function summarize(runs: ModeOnQuestion[], budgets: number[], ks: number[]): ModeSummary {
  const n = runs.length;
  const answered = runs.filter((r) => r.answer);
  const judged = answered.filter((r) => r.answer?.judged);
  const times = runs.map((r) => r.ms);
  return {
    questions: n,
    labelled: runs.filter((r) => r.recall !== null).length,
    ...meanScores(runs, budgets, ks),
    errors: runs.filter((r) => r.error).length,
    errorReasons: countFailures(runs.flatMap((r) => (r.error ? [r.error] : []))),
    queryMs: { p50: round(percentile(times, 0.5), 2), p95: round(percentile(times, 0.95), 2) },
    ...(answered.length
      ? {
          em: round(answered.reduce((s, r) => s + r.answer!.em, 0) / n, 4),
          f1: round(answered.reduce((s, r) => s + r.answer!.f1, 0) / n, 4),
        }
      : {}),
    ...(judged.length
      ? {
          judged: round(judged.filter((r) => r.answer!.judged!.correct).length / judged.length, 4),
          judgedCount: judged.length,
        }
      : {}),
  };
}
