// Token and cost accounting per LLM call, and running totals for a session or a KG build.
import { countTokens } from '../text/index.ts';

export interface CallUsage {
  inputTokens: number;
  outputTokens: number;
  /** True when the server did not report `usage` and the counts were estimated with cl100k. */
  estimated: boolean;
  cost: number;
}

/** Usage of one or more calls. */
export interface StepUsage {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
}

export interface UsageTotals extends StepUsage {
  failedCalls: number;
}

export function emptyTotals(): UsageTotals {
  return { calls: 0, failedCalls: 0, inputTokens: 0, outputTokens: 0, cost: 0 };
}

export function costOf(
  inputTokens: number,
  outputTokens: number,
  priceInPerM: number,
  priceOutPerM: number,
): number {
  return (inputTokens * priceInPerM + outputTokens * priceOutPerM) / 1_000_000;
}

/** Tokens of a chat request as the model sees it: contents plus a few tokens of framing per message. */
export function estimateMessageTokens(messages: ReadonlyArray<{ content: string }>): number {
  // OpenAI's documented overhead: about 3 tokens per message plus 3 to prime the reply.
  return messages.reduce((sum, m) => sum + countTokens(m.content) + 3, 3);
}

export function addUsage(totals: UsageTotals, usage: CallUsage): void {
  totals.calls++;
  totals.inputTokens += usage.inputTokens;
  totals.outputTokens += usage.outputTokens;
  totals.cost += usage.cost;
}
