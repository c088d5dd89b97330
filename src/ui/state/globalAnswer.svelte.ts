// The global answer to a corpus-wide question, when an endpoint is set (issue 48): the Ask view shows the themes
// answer at once, then what the map-reduce over the themes would cost (calls, tokens, price at the endpoint's
// prices, bounded by κ), and runs it only when the person confirms. Kept apart from the written answer: that one
// runs by itself over a question's evidence, this one costs many calls and waits for a yes.
import type { Remote } from 'comlink';
import { proxy } from 'comlink';
import { DEFAULT_KAPPA } from '../../core/kg/index.ts';
import type { QueryApi } from '../../services/query/queryService.ts';
import type { GlobalAnswerOut, GlobalEstimate } from '../../services/themes/themesProtocol.ts';
import { messageOf } from '../../core/errors.ts';

class GlobalAnswerState {
  kappa = $state(DEFAULT_KAPPA);
  estimate = $state<GlobalEstimate | null>(null);
  estimating = $state(false);
  streamed = $state('');
  answer = $state<GlobalAnswerOut | null>(null);
  running = $state(false);
  error = $state<string | null>(null);
  /** The question on screen and its worker; a later question makes any reply for this one stale. */
  private asked: { question: string; worker: () => Promise<Remote<QueryApi>> } | null = null;
  private turn = 0;

  /** A new question: nothing of the last one's global answer stays. */
  clear(): void {
    this.turn++;
    this.asked = null;
    this.estimate = null;
    this.answer = null;
    this.streamed = '';
    this.running = false;
    this.estimating = false;
    this.error = null;
  }

  /** The cost of the global answer to the question on screen (no call to the endpoint). */
  async offer(question: string, worker: () => Promise<Remote<QueryApi>>): Promise<void> {
    this.clear();
    this.asked = { question, worker };
    await this.estimateAgain();
  }

  /** Estimates again at the κ now set. */
  async estimateAgain(): Promise<void> {
    const asked = this.asked;
    if (!asked) return;
    const turn = ++this.turn;
    this.estimating = true;
    this.error = null;
    try {
      const estimate = await (await asked.worker()).globalEstimate(asked.question, Number(this.kappa));
      if (turn === this.turn) this.estimate = estimate;
    } catch (error) {
      if (turn === this.turn) this.error = messageOf(error);
    } finally {
      if (turn === this.turn) this.estimating = false;
    }
  }

  /** Runs the answer whose cost is shown (the person confirmed it). */
  async run(): Promise<void> {
    const asked = this.asked;
    const estimate = this.estimate;
    if (!asked || !estimate || this.running) return;
    const turn = ++this.turn;
    this.running = true;
    this.streamed = '';
    this.error = null;
    try {
      const answer = await (
        await asked.worker()
      ).globalAnswer(
        asked.question,
        estimate.kappa,
        proxy((delta: string) => {
          if (turn === this.turn) this.streamed += delta;
        }),
      );
      if (turn === this.turn) this.answer = answer;
    } catch (error) {
      if (turn === this.turn) this.error = messageOf(error);
    } finally {
      if (turn === this.turn) this.running = false;
    }
  }
}

export const globalAnswer = new GlobalAnswerState();
