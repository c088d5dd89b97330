// Plain data types of the in-app evaluation as they cross the query worker's boundary: a QA set's items, what to
// run, progress, and the results (per mode and per question). Types only, so the page imports them without
// pulling worker code into its bundle.
import type { MeanScores, QaItemScore } from '../../core/metrics.ts';

/** One question of a QA set (a ../shared/bench questions.jsonl line, or a CSV row). */
export interface QaItem {
  id: string;
  question: string;
  /** The gold answer first, then aliases. */
  answers: string[];
  /** Supporting passage ids (a corpus line's "id", or a file name without its extension); may be empty. */
  supporting: string[];
  /** Question type where the set gives one (2Wiki, MuSiQue, vuedocs), for the per-type breakdown. */
  type?: string;
  /** Line of the file the item came from (for messages). */
  line: number;
}

export interface QaSet {
  name: string;
  items: QaItem[];
}

export interface EvalRequest {
  set: QaSet;
  modes: string[];
  /** Token budgets of the context-recall curve; every mode is searched once at the largest. */
  budgets: number[];
  /** The k of recall@k (default 2, 5, 10, as the CLI bench). */
  ks?: number[];
  /** With an endpoint: write an answer over each mode's context of this many tokens and score it (EM/F1). */
  answers?: { budget: number; judge: boolean };
}

export interface EvalProgress {
  done: number;
  total: number;
  mode: string;
  /** The question being worked on (1-based within its mode). */
  question: number;
}

/** A document a mode ranked, as the per-question table shows and opens it. */
export interface RankedDoc {
  docId: string;
  /** The id the QA set names passages by. */
  externalId: string;
  title: string;
  /** Where the best chunk of this document starts in the document text (the viewer opens there). */
  start: number;
  end: number;
  supporting: boolean;
}

/** A question's scores in one mode: context recall per budget and recall@k per k (QaItemScore), and what it showed. */
export interface ModeOnQuestion extends QaItemScore {
  /** The first max(k) distinct documents of the ranking. */
  ranked: RankedDoc[];
  ms: number;
  error?: string;
  answer?: {
    text: string;
    em: number;
    f1: number;
    /** The LLM judge's verdict (absent when judging was off or failed). */
    judged?: { correct: boolean; reason: string };
    judgeError?: string;
  };
}

export interface QuestionResult extends Omit<QaItem, 'line'> {
  modes: Record<string, ModeOnQuestion>;
}

/** A mode's means, as the CLI bench's (MeanScores: `cr` and `recall`, fractions), and what else it counts. */
export interface ModeSummary extends MeanScores {
  /** Questions scored (all of them unless cancelled). */
  questions: number;
  /** Of those, the ones that name supporting passages (recall@k is averaged over these). */
  labelled: number;
  /** Questions that failed in this mode (counted as not found). */
  errors: number;
  /** Those failures by reason ("logical: plan: malformed output twice": 2), most frequent first. */
  errorReasons: Record<string, number>;
  queryMs: { p50: number; p95: number };
  em?: number;
  f1?: number;
  /** Share of answers the LLM judge called correct, over the answers it judged. */
  judged?: number;
  judgedCount?: number;
}

export interface EvalResult {
  set: string;
  modes: string[];
  budgets: number[];
  ks: number[];
  answerBudget?: number;
  /** Why recall@k was not scored although the set names supporting documents (a bundle read by ranges). */
  recallNote?: string;
  /** Questions run per mode (fewer than the set's when cancelled). */
  questions: number;
  cancelled: boolean;
  startedAt: string;
  seconds: number;
  summary: Record<string, ModeSummary>;
  items: QuestionResult[];
}

export const DEFAULT_RECALL_KS = [2, 5, 10] as const;
