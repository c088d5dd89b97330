// The Evaluate view's state, kept at module level so a run survives switching views: the loaded QA set, what to
// run (modes, budgets, answers), progress, the result and its export. The run itself happens in the query worker
// (QueryService.evaluate → src/services/query/evaluate.ts), which holds the loaded library.
import { proxy } from 'comlink';
import Papa from 'papaparse';
import type { EvalProgress, EvalResult, QaSet } from '../../services/questions/evalProtocol.ts';
import { parseQaSet } from '../../services/questions/qaSet.ts';
import { ASK_MODES } from '../../services/questions/modeRegistry.ts';
import { currentQueryWorker } from '../state/ask.svelte.ts';
import { messageOf } from '../../core/errors.ts';

class EvalState {
  set = $state<QaSet | null>(null);
  loadError = $state<string | null>(null);
  /** Run only the first N questions (0: all). */
  limit = $state(0);
  modes = $state<string[]>(['ppr', 'bm25']);
  /**
   * The modes this library is evaluated in, in the order the Ask view lists them (a library answered from its pages:
   * those its pages answer), and why.
   */
  available = $state<readonly string[]>(ASK_MODES);
  availableReason = $state<string | null>(null);
  budgets = $state('1000,3000,12000');
  withAnswers = $state(false);
  judge = $state(true);
  answerBudget = $state(3000);
  running = $state(false);
  progress = $state<EvalProgress | null>(null);
  result = $state<EvalResult | null>(null);
  error = $state<string | null>(null);

  async load(file: File): Promise<void> {
    this.loadError = null;
    try {
      this.set = parseQaSet(file.name, await file.text());
    } catch (err) {
      this.set = null;
      this.loadError = messageOf(err);
    }
  }

  /** The budgets typed in, or the reason they cannot be used. */
  parsedBudgets(): number[] | string {
    const out = this.budgets
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(Number);
    if (out.length === 0 || out.some((b) => !Number.isInteger(b) || b <= 0)) {
      return 'Budgets must be positive whole numbers of tokens, separated by commas.';
    }
    return out.filter((b, i) => out.indexOf(b) === i).sort((a, b) => a - b);
  }

  /** Asks the query worker which modes this library answers (the view offers only those). */
  async loadModes(libraryVersion: number): Promise<void> {
    const worker = await currentQueryWorker(libraryVersion);
    const { modes, reason } = await worker.evaluationModes();
    this.available = ASK_MODES.filter((m) => modes.includes(m));
    this.availableReason = reason ?? null;
  }

  async run(libraryVersion: number): Promise<void> {
    const budgets = this.parsedBudgets();
    if (!this.set || this.running) return;
    if (typeof budgets === 'string') {
      this.error = budgets;
      return;
    }
    const modes = this.available.filter((m) => this.modes.includes(m));
    if (modes.length === 0) {
      this.error = 'Choose at least one mode.';
      return;
    }
    this.error = null;
    this.running = true;
    this.result = null;
    const items = this.limit > 0 ? this.set.items.slice(0, this.limit) : this.set.items;
    this.progress = { done: 0, total: items.length * modes.length, mode: modes[0], question: 0 };
    try {
      const worker = await currentQueryWorker(libraryVersion);
      this.result = await worker.evaluate(
        {
          set: { name: this.set.name, items: $state.snapshot(items) },
          modes,
          budgets,
          ...(this.withAnswers ? { answers: { budget: this.answerBudget, judge: this.judge } } : {}),
        },
        proxy((p: EvalProgress) => {
          this.progress = p;
        }),
      );
    } catch (err) {
      this.error = messageOf(err);
    } finally {
      this.running = false;
    }
  }

  async cancel(libraryVersion: number): Promise<void> {
    await (await currentQueryWorker(libraryVersion)).cancelEvaluation();
  }
}

export const evaluation = new EvalState();

/** One row per question and mode, for a spreadsheet. */
export function resultCsv(result: EvalResult): string {
  const rows = result.items.flatMap((q) =>
    result.modes
      .filter((m) => q.modes[m])
      .map((mode) => {
        const r = q.modes[mode];
        return {
          id: q.id,
          question: q.question,
          type: q.type ?? '',
          gold: q.answers.join(' | '),
          supporting: q.supporting.join(' | '),
          mode,
          ...Object.fromEntries(result.budgets.map((b, j) => [`cr@${b}`, r.cr[j]])),
          ...Object.fromEntries(result.ks.map((k, j) => [`recall@${k}`, r.recall ? r.recall[j] : ''])),
          ranked: r.ranked.map((d) => d.externalId).join(' | '),
          ms: Math.round(r.ms),
          error: r.error ?? '',
          answer: r.answer?.text ?? '',
          em: r.answer?.em ?? '',
          f1: r.answer?.f1 ?? '',
          judged: r.answer?.judged ? String(r.answer.judged.correct) : '',
          judgeReason: r.answer?.judged?.reason ?? r.answer?.judgeError ?? '',
        };
      }),
  );
  // escapeFormulae: questions, answers and judge reasons come from data sets and models; a cell that starts with
  // = + - @ is prefixed with ' so a spreadsheet shows it as text instead of running it as a formula.
  return Papa.unparse(rows, { escapeFormulae: true });
}
