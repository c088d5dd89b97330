// The math step's evaluator: precedence, dates, sets, and refusing anything that is not arithmetic. Expected
// values worked out by hand in the comments.
import { describe, expect, it } from 'vitest';
import { ExprError, evaluate, parseExpression } from '../../../src/core/logical/expr.ts';
import type { Value } from '../../../src/core/logical/values.ts';

const vars: Record<string, Value[]> = {
  a: [{ kind: 'number', value: 7 }],
  born: [{ kind: 'date', iso: '1912-04-14' }],
  died: [{ kind: 'date', iso: '1990-05-05' }],
  films: [
    { kind: 'entity', id: 'alpha', name: 'Alpha' },
    { kind: 'entity', id: 'beta', name: 'Beta' },
    { kind: 'entity', id: 'gamma', name: 'Gamma' },
  ],
  pops: [
    { kind: 'number', value: 1200, unit: 'inhabitants' },
    { kind: 'number', value: 800, unit: 'inhabitants' },
  ],
};
const run = (src: string): Value => evaluate(parseExpression(src), (n) => vars[n]);

describe('math expressions', () => {
  it('follows arithmetic precedence and associativity', () => {
    expect(run('2 + 3 * 4')).toEqual({ kind: 'number', value: 14 }); // 3*4 first
    expect(run('(2 + 3) * 4')).toEqual({ kind: 'number', value: 20 });
    expect(run('10 - 4 - 3')).toEqual({ kind: 'number', value: 3 }); // (10-4)-3, not 10-(4-3)=9
    expect(run('-a + 10 / 4')).toEqual({ kind: 'number', value: -4.5 }); // -7 + 2.5
    expect(run('2 * 3 > 5 && 1 < 2')).toEqual({ kind: 'boolean', value: true });
    expect(run('!(a == 7) || a != 7')).toEqual({ kind: 'boolean', value: false });
  });

  it('does date arithmetic and compares dates by day', () => {
    // 1912-04-14 → 1990-05-05: the 78th birthday (1990-04-14) has passed.
    expect(run('years(born, died)')).toEqual({ kind: 'number', value: 78, unit: 'years' });
    expect(run("years(date('1912-06-14'), died)")).toEqual({ kind: 'number', value: 77, unit: 'years' });
    // 1945-05-03 → 1946-05-03 is 365 days (no 29 February in between).
    expect(run("days(date('1945-05-03'), date('1946-05-03'))")).toEqual({
      kind: 'number',
      value: 365,
      unit: 'days',
    });
    // 2000 is a leap year: 2000-02-28 → 2000-03-01 is 2 days.
    expect(run("date('2000-03-01') - date('2000-02-28')")).toEqual({
      kind: 'number',
      value: 2,
      unit: 'days',
    });
    expect(run('born < died')).toEqual({ kind: 'boolean', value: true });
    expect(run('year(died) - year(born)')).toEqual({ kind: 'number', value: 78 });
    expect(run("min(born, died, date('1900'))")).toEqual({ kind: 'date', iso: '1900' });
  });

  it('aggregates sets: count, sum with the unit, max', () => {
    expect(run('count(films)')).toEqual({ kind: 'number', value: 3 });
    expect(run('sum(pops)')).toEqual({ kind: 'number', value: 2000, unit: 'inhabitants' });
    expect(run('max(pops) - min(pops)')).toEqual({ kind: 'number', value: 400, unit: 'inhabitants' });
  });

  it('refuses a set where one value is needed, and unbound or empty variables', () => {
    expect(() => run('pops + 1')).toThrow(/variable pops holds 2 values; use count, sum, min or max/);
    expect(() => run('nope + 1')).toThrow(/variable nope is not bound/);
    expect(() => evaluate(parseExpression('x'), () => [])).toThrow(/x has no value/);
    expect(() => run('a / 0')).toThrow(/division by zero/);
    expect(() => run('born + 1')).toThrow(/needs a number, got date 1912-04-14/);
  });

  it('refuses anything that is not arithmetic, naming the position', () => {
    const refuse = (src: string, message: RegExp): void => {
      expect(() => parseExpression(src)).toThrow(ExprError);
      expect(() => parseExpression(src)).toThrow(message);
    };
    refuse('a.constructor', /unexpected character '\.' at 1 \(no member access\)/);
    refuse('a = 1', /unexpected character '=' at 2 \(compare with ==\)/);
    refuse("process('x')", /unknown function 'process'/);
    refuse('`rm`', /unexpected character '`' at 0/);
    refuse('a; b', /unexpected character ';'/);
    refuse('(1 + 2', /expected '\)' at the end/);
    refuse('count(a, a)', /count takes 1 to 1 arguments, got 2/);
    refuse('', /empty/);
  });
});
