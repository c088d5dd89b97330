// Distilling one chunk: its KG extraction, its atomic questions, or both in one call (one pass). Each is a JSON
// step (src/core/llm/step.ts: validate, one repair call, then a failure with the reason). Transport failures are
// thrown: they say nothing about the chunk, so it must not be recorded as failed.
import { extractChunk, type ChunkOutcome } from '../kg/index.ts';
import { runJsonStep, type LlmClient, type StepUsage } from '../llm/index.ts';
import {
  ATOMIZE_MAX_TOKENS,
  atomizeMessages,
  DEFAULT_ATOMIZE_TEMPERATURE,
  DEFAULT_MAX_QUESTIONS,
  ONE_PASS_MAX_TOKENS,
  onePassMessages,
} from './prompt.ts';
import { validateOnePass, validateQuestions } from './schema.ts';
import type { AtomicOutcome } from './types.ts';

/** Which parts of the distilled layer a chunk still needs. */
export interface DistillKinds {
  kg: boolean;
  atomic: boolean;
}

export interface AtomizeOptions {
  /** Questions per chunk at most (default 12). */
  maxQuestions?: number;
  /** Sampling temperature of atomizing (default 0.7, as in the paper). */
  temperature?: number;
}

export interface DistillOutcome {
  kg?: ChunkOutcome;
  atomic?: AtomicOutcome;
  /** Every call this chunk made, counted once (a one-pass call serves both outcomes). */
  usage: StepUsage;
}

function usageOf(o: {
  attempts: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
}): StepUsage {
  return { calls: o.attempts, inputTokens: o.inputTokens, outputTokens: o.outputTokens, cost: o.cost };
}

/** One chunk's atomic questions alone. */
export async function atomizeChunk(
  client: LlmClient,
  chunkText: string,
  options: AtomizeOptions & { signal?: AbortSignal } = {},
): Promise<AtomicOutcome> {
  const max = options.maxQuestions ?? DEFAULT_MAX_QUESTIONS;
  const outcome = await runJsonStep(
    client,
    {
      name: 'atomizing',
      messages: atomizeMessages(chunkText, max),
      validate: (value) => validateQuestions(value, max),
      temperature: options.temperature ?? DEFAULT_ATOMIZE_TEMPERATURE,
      maxTokens: ATOMIZE_MAX_TOKENS,
    },
    { signal: options.signal },
  );
  const { inputTokens, outputTokens, cost } = outcome.usage;
  const spent = { attempts: outcome.attempts, inputTokens, outputTokens, cost };
  return outcome.ok
    ? { status: 'done', questions: outcome.value, ...spent }
    : { status: 'failed', reason: outcome.reason, ...spent };
}

/**
 * Distils one chunk for the kinds it needs: one call when `onePass` and both are needed, else one call per kind.
 * A one-pass reply that fails validation twice fails both kinds with the same reason.
 */
export async function distillChunk(
  client: LlmClient,
  chunkText: string,
  kinds: DistillKinds,
  options: AtomizeOptions & { onePass?: boolean; signal?: AbortSignal } = {},
): Promise<DistillOutcome> {
  const usage: StepUsage = { calls: 0, inputTokens: 0, outputTokens: 0, cost: 0 };
  const add = (u: StepUsage) => {
    usage.calls += u.calls;
    usage.inputTokens += u.inputTokens;
    usage.outputTokens += u.outputTokens;
    usage.cost += u.cost;
  };
  if (kinds.kg && kinds.atomic && options.onePass) {
    const max = options.maxQuestions ?? DEFAULT_MAX_QUESTIONS;
    const step = await runJsonStep(
      client,
      {
        name: 'one-pass distillation',
        messages: onePassMessages(chunkText, max),
        validate: (value) => validateOnePass(value, max),
        temperature: options.temperature ?? DEFAULT_ATOMIZE_TEMPERATURE,
        maxTokens: ONE_PASS_MAX_TOKENS,
      },
      { signal: options.signal },
    );
    add(step.usage);
    const spent = {
      attempts: step.attempts,
      inputTokens: step.usage.inputTokens,
      outputTokens: step.usage.outputTokens,
      cost: step.usage.cost,
    };
    if (!step.ok) {
      return {
        kg: { status: 'failed', reason: step.reason, ...spent },
        atomic: { status: 'failed', reason: step.reason, ...spent },
        usage,
      };
    }
    return {
      kg: { status: 'done', extraction: step.value.extraction, ...spent },
      atomic: { status: 'done', questions: step.value.questions, ...spent },
      usage,
    };
  }
  const out: DistillOutcome = { usage };
  if (kinds.kg) {
    out.kg = await extractChunk(client, chunkText, options.signal);
    add(usageOf(out.kg));
  }
  if (kinds.atomic) {
    out.atomic = await atomizeChunk(client, chunkText, options);
    add(usageOf(out.atomic));
  }
  return out;
}
