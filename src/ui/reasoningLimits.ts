// The limits of the reasoning modes as the Ask view lets a user set them — decompose's rounds N, candidates per
// sub-question K and similarity threshold δ, logical's rounds R — and the check that refuses a value out of range
// before anything is sent. The defaults are the modes' own (src/core/atomic, src/core/logical); the bounds are the
// UI's: at least one round (the modes raise anything lower to 1 without saying so), and no more rounds or
// candidates than a question is worth waiting and paying for (each round is LLM calls, each candidate prompt tokens).
import { DEFAULT_DELTA, DEFAULT_MAX_ROUNDS, DEFAULT_TOP_K } from '../core/atomic/index.ts';
import { SOLVER_DEFAULTS } from '../core/logical/index.ts';
import { REASONING_MODES, type ReasoningMode } from '../services/questions/modeRegistry.ts';
import type { ReasoningOptions } from '../services/questions/queryProtocol.ts';

type LimitName = keyof ReasoningOptions;

export interface LimitField {
  name: LimitName;
  label: string;
  /** What the limit does, in plain words, shown under the input. */
  hint: string;
  min: number;
  max: number;
  /** The number input's step (its arrows). */
  step: number;
  integer: boolean;
  /** The mode's own default. */
  initial: number;
}

export const LIMIT_FIELDS: Readonly<Record<ReasoningMode, readonly LimitField[]>> = {
  decompose: [
    {
      name: 'maxRounds',
      label: 'Rounds at most',
      hint: 'Each round asks the model for sub-questions and lets it pick one passage; it stops earlier once it has enough.',
      min: 1,
      max: 10,
      step: 1,
      integer: true,
      initial: DEFAULT_MAX_ROUNDS,
    },
    {
      name: 'topK',
      label: 'Candidates per sub-question',
      hint: 'How many passages the model chooses from for each sub-question.',
      min: 1,
      max: 10,
      step: 1,
      integer: true,
      initial: DEFAULT_TOP_K,
    },
    {
      name: 'delta',
      label: 'Similarity threshold δ',
      hint: 'An atomic question less similar than this to the sub-question is not offered (0 to 1; without atomic questions it is not used).',
      min: 0,
      max: 1,
      step: 0.05,
      integer: false,
      initial: DEFAULT_DELTA,
    },
  ],
  logical: [
    {
      name: 'maxRounds',
      label: 'Reflection rounds at most',
      hint: 'Each round plans steps, runs them, and asks the model whether the question is answered; if not, it asks follow-ups in the next.',
      min: 1,
      max: 5,
      step: 1,
      integer: true,
      initial: SOLVER_DEFAULTS.maxRounds,
    },
  ],
};

/** Values as number inputs hold them: null when the input is empty or not a number. */
export type LimitValues = Partial<Record<LimitName, number | null>>;

export type LimitsByMode = Record<ReasoningMode, LimitValues>;

/** Every mode's limits at the mode's defaults. */
export function defaultLimits(): LimitsByMode {
  const of = (mode: ReasoningMode): LimitValues =>
    Object.fromEntries(LIMIT_FIELDS[mode].map((f) => [f.name, f.initial]));
  return Object.fromEntries(REASONING_MODES.map((mode) => [mode, of(mode)])) as LimitsByMode;
}

/** Why `value` is refused for `field`, or null when it is accepted. */
export function limitError(field: LimitField, value: number | null | undefined): string | null {
  const range = `from ${field.min} to ${field.max}`;
  const kind = field.integer ? 'a whole number' : 'a number';
  if (value === null || value === undefined || !Number.isFinite(value)) return `Enter ${kind} ${range}.`;
  const must = `must be ${field.integer ? `${kind} ` : ''}${range}`;
  if (field.integer && !Number.isInteger(value)) return `M${must.slice(1)}.`;
  if (value < field.min) return `At least ${field.min}: ${must}.`;
  if (value > field.max) return `At most ${field.max}: ${must}.`;
  return null;
}

export interface LimitsCheck {
  /** The refused limits, each with its reason. */
  errors: Partial<Record<LimitName, string>>;
  /** What the question carries to the query worker (plain numbers), or null while a limit is refused. */
  reasoning: ReasoningOptions | null;
  /** Why the question cannot be asked, or null when it can. */
  refusal: string | null;
}

export function checkLimits(mode: ReasoningMode, values: LimitValues): LimitsCheck {
  const errors: Partial<Record<LimitName, string>> = {};
  const reasoning: ReasoningOptions = {};
  const refused: LimitField[] = [];
  for (const field of LIMIT_FIELDS[mode]) {
    const value = values[field.name];
    const error = limitError(field, value);
    if (error) {
      errors[field.name] = error;
      refused.push(field);
    } else {
      reasoning[field.name] = value!;
    }
  }
  if (refused.length === 0) return { errors, reasoning, refusal: null };
  const refusal =
    refused.length === 1
      ? `Cannot ask: ${refused[0].label.toLowerCase()} — ${errors[refused[0].name]}`
      : `Cannot ask: ${refused.map((f) => f.label.toLowerCase()).join(', ')} are out of range.`;
  return { errors, reasoning: null, refusal };
}
