// The pages-write bench's phase clock (src/core/paged/phaseClock.ts): each mark charges the time since the previous
// mark to its phase, so a phase met many times (a store read per document) adds up, and the phases sum to the
// clock's whole span.
import { describe, expect, it } from 'vitest';
import { PhaseClock } from '../../../src/core/paged/phaseClock.ts';

describe('PhaseClock', () => {
  it('charges the time since the last mark to the phase named, adding up a phase met again', () => {
    const times = [100, 103, 110, 111, 130];
    let i = 0;
    const clock = new PhaseClock(() => times[i++]);
    clock.mark('read'); // 100 → 103
    clock.mark('keyphrases'); // 103 → 110
    clock.mark('read'); // 110 → 111
    clock.mark('put'); // 111 → 130
    expect(clock.ms).toEqual({ read: 4, keyphrases: 7, put: 19 });
    expect(Object.keys(clock.ms)).toEqual(['read', 'keyphrases', 'put']);
    expect(Object.values(clock.ms).reduce((a, b) => a + b, 0)).toBe(30);
  });
});
