// The reasoning modes' limits as the Ask view checks them: defaults are the modes' own, each bound is accepted
// and one step past it is refused with the reason, and only accepted values of the chosen mode reach the request.
import { describe, expect, it } from 'vitest';
import { DEFAULT_DELTA, DEFAULT_MAX_ROUNDS, DEFAULT_TOP_K } from '../../../src/core/atomic/index.ts';
import { SOLVER_DEFAULTS } from '../../../src/core/logical/index.ts';
import { checkLimits, defaultLimits, LIMIT_FIELDS, limitError } from '../../../src/ui/reasoningLimits.ts';

const field = (mode: 'decompose' | 'logical', name: string) =>
  LIMIT_FIELDS[mode].find((f) => f.name === name)!;

describe('reasoning limits', () => {
  it('start at the modes own defaults (decompose N = 5, K = 4, δ = 0.5; logical R = 3)', () => {
    expect(defaultLimits()).toEqual({
      decompose: { maxRounds: 5, topK: 4, delta: 0.5 },
      logical: { maxRounds: 3 },
    });
    // Read from the modes, not copied: the same numbers the modes fall back to.
    expect(defaultLimits()).toEqual({
      decompose: { maxRounds: DEFAULT_MAX_ROUNDS, topK: DEFAULT_TOP_K, delta: DEFAULT_DELTA },
      logical: { maxRounds: SOLVER_DEFAULTS.maxRounds },
    });
    // Each call is a fresh object: editing one session's values leaves the defaults alone.
    const a = defaultLimits();
    a.decompose.maxRounds = 1;
    expect(defaultLimits().decompose.maxRounds).toBe(5);
  });

  it('accept the bounds and refuse one step past them, with the reason', () => {
    const rounds = field('decompose', 'maxRounds');
    expect(limitError(rounds, 1)).toBeNull();
    expect(limitError(rounds, 10)).toBeNull();
    expect(limitError(rounds, 0)).toBe('At least 1: must be a whole number from 1 to 10.');
    expect(limitError(rounds, 11)).toBe('At most 10: must be a whole number from 1 to 10.');
    expect(limitError(rounds, 2.5)).toBe('Must be a whole number from 1 to 10.');
    expect(limitError(rounds, null)).toBe('Enter a whole number from 1 to 10.');
    expect(limitError(rounds, Number.NaN)).toBe('Enter a whole number from 1 to 10.');

    const candidates = field('decompose', 'topK');
    expect(limitError(candidates, 0)).toBe('At least 1: must be a whole number from 1 to 10.');
    expect(limitError(candidates, 10)).toBeNull();

    const delta = field('decompose', 'delta');
    expect(limitError(delta, 0)).toBeNull();
    expect(limitError(delta, 1)).toBeNull();
    expect(limitError(delta, 0.35)).toBeNull();
    expect(limitError(delta, -0.1)).toBe('At least 0: must be from 0 to 1.');
    expect(limitError(delta, 1.2)).toBe('At most 1: must be from 0 to 1.');

    // The solver would raise R = 0 to 1 without a word: refused instead.
    const reflections = field('logical', 'maxRounds');
    expect(limitError(reflections, 0)).toBe('At least 1: must be a whole number from 1 to 5.');
    expect(limitError(reflections, 5)).toBeNull();
    expect(limitError(reflections, 6)).toBe('At most 5: must be a whole number from 1 to 5.');
  });

  it('give the request plain numbers when every limit is accepted', () => {
    expect(checkLimits('decompose', { maxRounds: 1, topK: 10, delta: 0 })).toEqual({
      errors: {},
      reasoning: { maxRounds: 1, topK: 10, delta: 0 },
      refusal: null,
    });
    // Only the chosen mode's limits go: logical has no K or δ.
    expect(checkLimits('logical', { maxRounds: 2, topK: 99, delta: 7 })).toEqual({
      errors: {},
      reasoning: { maxRounds: 2 },
      refusal: null,
    });
  });

  it('refuse to ask while a limit is out of range, naming it', () => {
    expect(checkLimits('logical', { maxRounds: 0 })).toEqual({
      errors: { maxRounds: 'At least 1: must be a whole number from 1 to 5.' },
      reasoning: null,
      refusal: 'Cannot ask: reflection rounds at most — At least 1: must be a whole number from 1 to 5.',
    });
    const two = checkLimits('decompose', { maxRounds: 11, topK: 4, delta: null });
    expect(two.errors).toEqual({
      maxRounds: 'At most 10: must be a whole number from 1 to 10.',
      delta: 'Enter a number from 0 to 1.',
    });
    expect(two.reasoning).toBeNull();
    expect(two.refusal).toBe('Cannot ask: rounds at most, similarity threshold δ are out of range.');
  });
});
