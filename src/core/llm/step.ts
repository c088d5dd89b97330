// One LLM step of a multi-step method (KG extraction, atomizing, decomposition, logical plans, reflection): a
// prompt whose reply must be one JSON object of a known shape. The reply is parsed and validated; when it is
// malformed the model is asked once more with the problems spelled out, and otherwise the step fails with the
// reason. Transport failures (endpoint down, bad key, cancelled) are thrown instead: they say nothing about the
// input, so the caller must not record the input as failed. Every call's usage is counted and reported, so each
// method accounts tokens and cost per call and in total the same way.
import type { ChatMessage, LlmClient } from './client.ts';
import { parseJsonReply } from './json.ts';
import type { StepUsage } from './usage.ts';

/** What a validator says about a parsed reply: the typed value, or the problems to send back to the model. */
export type Checked<T> = { ok: true; value: T } | { ok: false; errors: string[] };

export function emptyStepUsage(): StepUsage {
  return { calls: 0, inputTokens: 0, outputTokens: 0, cost: 0 };
}

export function addStepUsage(into: StepUsage, more: StepUsage): StepUsage {
  into.calls += more.calls;
  into.inputTokens += more.inputTokens;
  into.outputTokens += more.outputTokens;
  into.cost += more.cost;
  return into;
}

export interface JsonStep<T> {
  /** Names the step in failure reasons and traces ("atomize", "plan", "reflect"…). */
  name: string;
  messages: ChatMessage[];
  validate(value: unknown): Checked<T>;
  temperature?: number;
  maxTokens?: number;
}

/**
 * What one input's step cost, as a build keeps it in the input's state: its calls (1, or 2 with the repair) and
 * their tokens and cost.
 */
export interface StepSpend {
  attempts: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
}

/** The spend of a finished step. */
export function spendOf(outcome: { attempts: number; usage: StepUsage }): StepSpend {
  const { inputTokens, outputTokens, cost } = outcome.usage;
  return { attempts: outcome.attempts, inputTokens, outputTokens, cost };
}

/** A spend counted as usage (a spend's attempts are its calls). */
export function usageOfSpend(spend: StepSpend): StepUsage {
  return {
    calls: spend.attempts,
    inputTokens: spend.inputTokens,
    outputTokens: spend.outputTokens,
    cost: spend.cost,
  };
}

export type JsonStepOutcome<T> =
  | { ok: true; value: T; attempts: number; usage: StepUsage }
  | { ok: false; reason: string; attempts: number; usage: StepUsage };

export interface JsonStepOptions {
  signal?: AbortSignal;
}

/** The follow-up turn after an invalid reply: says what was wrong, asks again. */
function repairTurns(messages: ChatMessage[], badReply: string, problems: string[]): ChatMessage[] {
  return [
    ...messages,
    { role: 'assistant', content: badReply.slice(0, 4000) },
    {
      role: 'user',
      content: `That reply was not valid: ${problems.slice(0, 8).join('; ')}. Reply again with ONLY the JSON object.`,
    },
  ];
}

function check<T>(reply: string, validate: (value: unknown) => Checked<T>): Checked<T> {
  const parsed = parseJsonReply(reply);
  if (!parsed.ok) return { ok: false, errors: [parsed.error] };
  return validate(parsed.value);
}

/** Runs one JSON step: a call, at most one repair call, then the value or the reason it failed. */
export async function runJsonStep<T>(
  client: LlmClient,
  step: JsonStep<T>,
  options: JsonStepOptions = {},
): Promise<JsonStepOutcome<T>> {
  const usage = emptyStepUsage();
  const call = async (messages: ChatMessage[]): Promise<string> => {
    const r = await client.chat({
      messages,
      json: true,
      temperature: step.temperature ?? 0,
      maxTokens: step.maxTokens,
      signal: options.signal,
    });
    const { inputTokens, outputTokens, cost } = r.usage;
    addStepUsage(usage, { calls: 1, inputTokens, outputTokens, cost });
    return r.text;
  };
  const first = await call(step.messages);
  const checked = check(first, step.validate);
  if (checked.ok) return { ok: true, value: checked.value, attempts: 1, usage };
  const second = await call(repairTurns(step.messages, first, checked.errors));
  const rechecked = check(second, step.validate);
  if (rechecked.ok) return { ok: true, value: rechecked.value, attempts: 2, usage };
  return {
    ok: false,
    reason: `${step.name}: malformed output twice: ${rechecked.errors.slice(0, 3).join('; ')}`,
    attempts: 2,
    usage,
  };
}
