// Question-answering metrics: SQuAD answer normalization, exact match and token F1 (best over aliases), context
// recall (the gold answer occurs in the retrieved context) and supporting-passage recall@k, and one QA item scored
// on a mode's ranked context (the CLI bench and the app's evaluation share it).
import { cutToBudget } from './retrieval/index.ts';

/** SQuAD normalization: lowercase, drop punctuation, drop the articles a/an/the, collapse whitespace. */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .split(/\s+/)
    .filter((w) => w.length > 0)
    .join(' ');
}

/** 1 if the prediction equals any answer after normalization, else 0. */
export function exactMatch(prediction: string, answers: readonly string[]): number {
  const p = normalizeAnswer(prediction);
  return answers.some((a) => normalizeAnswer(a) === p) ? 1 : 0;
}

/** SQuAD token F1 of the prediction against the best-matching answer. */
export function tokenF1(prediction: string, answers: readonly string[]): number {
  const pred = normalizeAnswer(prediction).split(' ').filter(Boolean);
  let best = 0;
  for (const a of answers) {
    const gold = normalizeAnswer(a).split(' ').filter(Boolean);
    if (pred.length === 0 || gold.length === 0) {
      best = Math.max(best, pred.length === gold.length ? 1 : 0);
      continue;
    }
    const counts = new Map<string, number>();
    for (const g of gold) counts.set(g, (counts.get(g) ?? 0) + 1);
    let common = 0;
    for (const w of pred) {
      const c = counts.get(w) ?? 0;
      if (c > 0) {
        common++;
        counts.set(w, c - 1);
      }
    }
    if (common === 0) continue;
    const precision = common / pred.length;
    const recall = common / gold.length;
    best = Math.max(best, (2 * precision * recall) / (precision + recall));
  }
  return best;
}

/** Scripts written without spaces between words: there an answer is found as a run of characters. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/**
 * 1 if a normalized answer (or alias) occurs in the normalized context as whole words, else 0. Whole words so
 * that "1" is not found inside "1957"; an answer in an unspaced script (全局记忆) has no word boundaries to match.
 */
export function contextRecall(contextText: string, answers: readonly string[]): number {
  const context = ` ${normalizeAnswer(contextText)} `;
  return answers.some((a) => {
    const n = normalizeAnswer(a);
    return n.length > 0 && context.includes(UNSPACED.test(n) ? n : ` ${n} `);
  })
    ? 1
    : 0;
}

/**
 * Fraction of supporting passages among the first k distinct documents of a ranking. Throws when there is no
 * supporting passage: such questions must be left out of the average, not counted as 0 or 1.
 */
export function recallAtK(
  rankedDocIds: readonly string[],
  supportingIds: readonly string[],
  k: number,
): number {
  const gold = new Set(supportingIds);
  if (gold.size === 0) throw new Error('metrics: recall@k needs at least one supporting passage id');
  if (!(k >= 1)) throw new Error(`metrics: recall@k needs k ≥ 1, got ${k}`);
  const seen = new Set<string>();
  let found = 0;
  for (const id of rankedDocIds) {
    if (seen.has(id)) continue;
    seen.add(id);
    if (seen.size > k) break;
    if (gold.has(id)) found++;
  }
  return found / gold.size;
}

/** A ranked piece of context as a QA item is scored on: its document, its text and its size in tokens. */
export interface ScoredContext {
  docId: string;
  text: string;
  tokens: number;
  /** The section heading shown above an excerpt's text (retrieval's RetrievedChunk.heading): part of the context. */
  heading?: string;
}

/** One question's retrieval scores: context recall per budget, supporting-passage recall per k. */
export interface QaItemScore {
  /** contextRecall of the context cut to each budget (1 or 0), in the order of `budgets`. */
  cr: number[];
  /** recallAtK per k, in the order of `ks`; null when the item names no supporting passage (left out of means). */
  recall: number[] | null;
}

export interface QaScoreOptions {
  budgets: readonly number[];
  ks: readonly number[];
  /** A ranked document's id as the QA set names passages (the corpus line's "id"). */
  externalId: (docId: string) => string;
  /**
   * The mode's own search at a smaller budget, for a budget whose cut of `hits` is empty although `hits` is not
   * (a first chunk larger than the budget): the app then answers with the chunk's best sentences, not nothing.
   * Absent for modes that have no such excerpt (the KG modes, the question-time modes).
   */
  searchAt?: (budget: number) => Promise<readonly ScoredContext[]>;
}

/** Whether `searchAt(budget)` is needed: the cut of `hits` to the budget is empty although `hits` is not. */
export function needsSearchAtBudget(hits: readonly ScoredContext[], budget: number): boolean {
  return hits.length > 0 && cutToBudget(hits, budget).length === 0;
}

/**
 * Scores one QA item on a mode's ranked context searched at the largest budget: the CLI bench and the app's
 * evaluation both score through this, so their figures are the same code's.
 */
export async function scoreQaItem(
  item: { answers: readonly string[]; supporting: readonly string[] },
  hits: readonly ScoredContext[],
  options: QaScoreOptions,
): Promise<QaItemScore> {
  const cr: number[] = [];
  for (const b of options.budgets) {
    const cut: readonly ScoredContext[] =
      options.searchAt && needsSearchAtBudget(hits, b) ? await options.searchAt(b) : cutToBudget(hits, b);
    cr.push(
      contextRecall(
        cut.map((h) => (h.heading ? `${h.heading}\n${h.text}` : h.text)).join('\n'),
        item.answers,
      ),
    );
  }
  if (item.supporting.length === 0) return { cr, recall: null };
  const ranked = hits.map((h) => options.externalId(h.docId));
  return { cr, recall: options.ks.map((k) => recallAtK(ranked, item.supporting, k)) };
}

/** Mean context recall by budget, and mean recall@k by k (null when no item names supporting passages). */
export interface MeanScores {
  cr: Record<string, number>;
  recall: Record<string, number | null>;
}

/**
 * The means of scored QA items, as the CLI bench and the app's evaluation both take them: context recall over every
 * item, recall@k over the items that name supporting documents (null when none does).
 */
export function meanScores(
  scores: readonly QaItemScore[],
  budgets: readonly number[],
  ks: readonly number[],
): MeanScores {
  const labelled = scores.filter((s) => s.recall !== null);
  const mean = (j: number, of: readonly QaItemScore[], pick: (s: QaItemScore) => number[]) =>
    of.reduce((sum, s) => sum + pick(s)[j], 0) / Math.max(1, of.length);
  return {
    cr: Object.fromEntries(budgets.map((b, j) => [String(b), mean(j, scores, (s) => s.cr)])),
    recall: Object.fromEntries(
      ks.map((k, j) => [String(k), labelled.length ? mean(j, labelled, (s) => s.recall!) : null]),
    ),
  };
}

/** Answer text without citation markers ([1], [2, 3]), as EM/F1 compare it. */
export function stripCitations(answer: string): string {
  return answer
    .replace(/\s*\[\d+(?:\s*[,;–-]\s*\d+)*\]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * EM and token F1 of a written answer. Answers are one to three sentences; the gold answer is a short span, so the
 * best of the whole answer and its first sentence (with and without its final stop) is scored, as the answer's
 * first sentence is meant to be the answer itself. The CLI bench and the app's evaluation share it.
 */
export function scoreAnswerText(answer: string, answers: readonly string[]): { em: number; f1: number } {
  const plain = stripCitations(answer);
  const first = plain.split(/(?<=[.!?])\s+/)[0] ?? plain;
  const candidates = [plain, first, first.replace(/[.!?]+$/, '')];
  return {
    em: Math.max(...candidates.map((c) => exactMatch(c, answers))),
    f1: Math.max(...candidates.map((c) => tokenF1(c, answers))),
  };
}

/** The p-quantile of a list of times (the nearest rank below): what the bench and Evaluate report as p50 / p95. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

/** `x` rounded to `digits` decimals, as the reports print it. */
export function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
