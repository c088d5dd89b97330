// Distilling one chunk: its KG extraction, its atomic questions, or both in one call (one pass). Each is a JSON
// step (src/core/llm/step.ts: validate, one repair call, then a failure with the reason). Transport failures are
// thrown: they say nothing about the chunk, so it must not be recorded as failed.
import { extractChunk, type ChunkOutcome } from '../kg/index.ts';
import {
  addStepUsage,
  emptyStepUsage,
  runJsonStep,
  spendOf,
  usageOfSpend,
  type LlmClient,
  type StepUsage,
} from '../llm/index.ts';
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

/** One chunk's atomic questions alone. */
async function atomizeChunk(
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
  return outcome.ok
    ? { status: 'done', questions: outcome.value, ...spendOf(outcome) }
    : { status: 'failed', reason: outcome.reason, ...spendOf(outcome) };
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
  const usage = emptyStepUsage();
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
    addStepUsage(usage, step.usage);
    // One call served both parts: each part's state records it (the summary counts it once, from `usage`).
    const spent = spendOf(step);
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
    addStepUsage(usage, usageOfSpend(out.kg));
  }
  if (kinds.atomic) {
    out.atomic = await atomizeChunk(client, chunkText, options);
    addStepUsage(usage, usageOfSpend(out.atomic));
  }
  return out;
}
