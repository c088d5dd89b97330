// The `math` step's expressions: arithmetic, comparisons and date arithmetic over bound variables and constants,
// evaluated here in code. Hand-written (a tokenizer and a precedence-climbing parser, ~250 lines) rather than a
// library: the grammar is tiny, the error messages go back to the model in a repair turn, and an expression must
// never reach eval/Function — anything outside the grammar (member access, assignment, unknown functions) is
// refused with the position and the reason.
import { compareValues, dayNumber, show, wholeYears, type Value } from './values.ts';

export type Expr =
  | { t: 'num'; v: number }
  | { t: 'str'; v: string }
  | { t: 'var'; name: string }
  | { t: 'call'; fn: string; args: Expr[] }
  | { t: 'neg' | 'not'; a: Expr }
  | { t: 'bin'; op: BinaryOp; a: Expr; b: Expr };

type BinaryOp = '+' | '-' | '*' | '/' | '<' | '<=' | '>' | '>=' | '==' | '!=' | '&&' | '||';

/** The functions an expression may call, with what they do (the planner prompt lists these). */
export const MATH_FUNCTIONS: Record<string, { arity: [number, number]; doc: string }> = {
  count: { arity: [1, 1], doc: 'count(x): how many values x holds' },
  sum: { arity: [1, 1], doc: 'sum(x): sum of the numbers x holds' },
  min: { arity: [1, 9], doc: 'min(x) or min(a, b, …): smallest number or earliest date' },
  max: { arity: [1, 9], doc: 'max(x) or max(a, b, …): largest number or latest date' },
  avg: { arity: [1, 1], doc: 'avg(x): mean of the numbers x holds' },
  abs: { arity: [1, 1], doc: 'abs(n)' },
  round: { arity: [1, 2], doc: 'round(n) or round(n, digits)' },
  year: { arity: [1, 1], doc: 'year(d): the year of a date' },
  days: { arity: [2, 2], doc: 'days(a, b): days from date a to date b' },
  years: { arity: [2, 2], doc: 'years(a, b): whole years from date a to date b (an age, a lifespan)' },
  date: { arity: [1, 1], doc: "date('1990-05-01'): a date constant" },
};

export class ExprError extends Error {}

type Token =
  | { k: 'num'; v: number; at: number }
  | { k: 'str'; v: string; at: number }
  | { k: 'id'; v: string; at: number }
  | { k: 'op'; v: string; at: number };

const OPERATORS = ['<=', '>=', '==', '!=', '&&', '||', '+', '-', '*', '/', '<', '>', '(', ')', ',', '!'];

function tokenize(src: string): Token[] {
  if (src.length > 500) throw new ExprError('the expression is longer than 500 characters');
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^\d+(?:\.\d+)?/.exec(src.slice(i));
    if (num) {
      out.push({ k: 'num', v: Number(num[0]), at: i });
      i += num[0].length;
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (id) {
      out.push({ k: 'id', v: id[0], at: i });
      i += id[0].length;
      continue;
    }
    if (c === "'" || c === '"') {
      const end = src.indexOf(c, i + 1);
      if (end < 0) throw new ExprError(`unclosed quote at ${i}`);
      out.push({ k: 'str', v: src.slice(i + 1, end), at: i });
      i = end + 1;
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (!op) {
      const hint = c === '=' ? ' (compare with ==)' : c === '.' ? ' (no member access)' : '';
      throw new ExprError(`unexpected character '${c}' at ${i}${hint}`);
    }
    out.push({ k: 'op', v: op, at: i });
    i += op.length;
  }
  return out;
}

const PRECEDENCE: Record<string, number> = {
  '||': 1,
  '&&': 2,
  '==': 3,
  '!=': 3,
  '<': 4,
  '<=': 4,
  '>': 4,
  '>=': 4,
  '+': 5,
  '-': 5,
  '*': 6,
  '/': 6,
};

/** Parses one expression; throws ExprError naming the position and what was wrong. */
export function parseExpression(src: string): Expr {
  const tokens = tokenize(src);
  let pos = 0;
  const peek = (): Token | undefined => tokens[pos];
  const expectOp = (v: string): void => {
    const t = tokens[pos];
    if (!t || t.k !== 'op' || t.v !== v) {
      throw new ExprError(`expected '${v}' ${t ? `at ${t.at}` : 'at the end'}`);
    }
    pos++;
  };
  const primary = (): Expr => {
    const t = tokens[pos++];
    if (!t) throw new ExprError('the expression ends too early');
    if (t.k === 'num') return { t: 'num', v: t.v };
    if (t.k === 'str') return { t: 'str', v: t.v };
    if (t.k === 'op' && t.v === '(') {
      const e = binary(0);
      expectOp(')');
      return e;
    }
    if (t.k === 'op' && t.v === '-') return { t: 'neg', a: primary() };
    if (t.k === 'op' && t.v === '!') return { t: 'not', a: primary() };
    if (t.k === 'id') {
      const next = peek();
      if (next?.k === 'op' && next.v === '(') {
        const spec = Object.hasOwn(MATH_FUNCTIONS, t.v) ? MATH_FUNCTIONS[t.v] : undefined;
        if (!spec) {
          throw new ExprError(`unknown function '${t.v}' (known: ${Object.keys(MATH_FUNCTIONS).join(', ')})`);
        }
        pos++;
        const args: Expr[] = [];
        if (!(peek()?.k === 'op' && peek()!.v === ')')) {
          args.push(binary(0));
          while (peek()?.k === 'op' && peek()!.v === ',') {
            pos++;
            args.push(binary(0));
          }
        }
        expectOp(')');
        if (args.length < spec.arity[0] || args.length > spec.arity[1]) {
          throw new ExprError(`${t.v} takes ${spec.arity.join(' to ')} arguments, got ${args.length}`);
        }
        return { t: 'call', fn: t.v, args };
      }
      return { t: 'var', name: t.v };
    }
    throw new ExprError(`unexpected '${t.v}' at ${t.at}`);
  };
  const binary = (min: number): Expr => {
    let left = primary();
    for (;;) {
      const t = peek();
      if (!t || t.k !== 'op' || !(t.v in PRECEDENCE) || PRECEDENCE[t.v] <= min) break;
      pos++;
      const right = binary(PRECEDENCE[t.v]);
      left = { t: 'bin', op: t.v as BinaryOp, a: left, b: right };
    }
    return left;
  };
  if (tokens.length === 0) throw new ExprError('the expression is empty');
  const e = binary(0);
  const rest = peek();
  if (rest) throw new ExprError(`unexpected '${rest.v}' at ${rest.at}`);
  return e;
}

/** The variable names an expression reads, in order of first use. */
export function variablesOf(e: Expr, into: string[] = []): string[] {
  if (e.t === 'var' && !into.includes(e.name)) into.push(e.name);
  if (e.t === 'call') e.args.forEach((a) => variablesOf(a, into));
  if (e.t === 'neg' || e.t === 'not') variablesOf(e.a, into);
  if (e.t === 'bin') {
    variablesOf(e.a, into);
    variablesOf(e.b, into);
  }
  return into;
}

/** An intermediate result: one value, or a variable's whole set (only aggregates take sets). */
type Operand = { one: Value } | { many: Value[]; name: string };

/** Evaluates an expression over the bound variables; throws ExprError saying what could not be computed. */
export function evaluate(e: Expr, lookup: (name: string) => readonly Value[] | undefined): Value {
  return scalar(operand(e, lookup), 'the expression');
}

function scalar(o: Operand, where: string): Value {
  if ('one' in o) return o.one;
  if (o.many.length === 1) return o.many[0];
  throw new ExprError(
    `${where}: variable ${o.name} holds ${o.many.length} values; use count, sum, min or max over it`,
  );
}

const num = (v: Value, what: string): number => {
  if (v.kind === 'number') return v.value;
  if (v.kind === 'boolean') return Number(v.value);
  throw new ExprError(`${what} needs a number, got ${v.kind} ${show(v)}`);
};

const date = (v: Value, what: string): string => {
  if (v.kind === 'date') return v.iso;
  throw new ExprError(`${what} needs a date, got ${v.kind} ${show(v)}`);
};

function operand(e: Expr, lookup: (name: string) => readonly Value[] | undefined): Operand {
  switch (e.t) {
    case 'num':
      return { one: { kind: 'number', value: e.v } };
    case 'str':
      return { one: { kind: 'text', text: e.v } };
    case 'var': {
      const values = lookup(e.name);
      if (!values) throw new ExprError(`variable ${e.name} is not bound`);
      if (values.length === 0) throw new ExprError(`variable ${e.name} has no value (nothing was found)`);
      return { many: [...values], name: e.name };
    }
    case 'neg':
      return { one: { kind: 'number', value: -num(scalar(operand(e.a, lookup), '-'), '-') } };
    case 'not': {
      const v = scalar(operand(e.a, lookup), '!');
      if (v.kind !== 'boolean') throw new ExprError(`! needs a comparison, got ${show(v)}`);
      return { one: { kind: 'boolean', value: !v.value } };
    }
    case 'call':
      return {
        one: call(
          e.fn,
          e.args.map((a) => operand(a, lookup)),
        ),
      };
    case 'bin':
      return {
        one: binaryOp(e.op, scalar(operand(e.a, lookup), e.op), scalar(operand(e.b, lookup), e.op)),
      };
  }
}

function setOf(o: Operand): Value[] {
  return 'one' in o ? [o.one] : o.many;
}

function call(fn: string, args: Operand[]): Value {
  switch (fn) {
    case 'count':
      return { kind: 'number', value: setOf(args[0]).length };
    case 'sum':
    case 'avg': {
      const values = setOf(args[0]);
      const total = values.reduce((s, v) => s + num(v, fn), 0);
      const unit = values[0]?.kind === 'number' ? values[0].unit : undefined;
      const value = fn === 'sum' ? total : total / Math.max(1, values.length);
      return unit ? { kind: 'number', value, unit } : { kind: 'number', value };
    }
    case 'min':
    case 'max': {
      const values = args.flatMap(setOf);
      let best = values[0];
      for (const v of values.slice(1)) {
        const c = compareValues(v, best);
        if (c === undefined) throw new ExprError(`${fn} cannot compare ${show(v)} with ${show(best)}`);
        if (fn === 'min' ? c < 0 : c > 0) best = v;
      }
      return best;
    }
    case 'abs':
      return { kind: 'number', value: Math.abs(num(scalar(args[0], fn), fn)) };
    case 'round': {
      const digits = args[1] ? num(scalar(args[1], fn), fn) : 0;
      const f = 10 ** Math.max(0, Math.min(10, Math.trunc(digits)));
      return { kind: 'number', value: Math.round(num(scalar(args[0], fn), fn) * f) / f };
    }
    case 'year':
      return { kind: 'number', value: Number(date(scalar(args[0], fn), fn).slice(0, 4)) };
    case 'days':
      return {
        kind: 'number',
        value: dayNumber(date(scalar(args[1], fn), fn)) - dayNumber(date(scalar(args[0], fn), fn)),
        unit: 'days',
      };
    case 'years':
      return {
        kind: 'number',
        value: wholeYears(date(scalar(args[0], fn), fn), date(scalar(args[1], fn), fn)),
        unit: 'years',
      };
    case 'date': {
      const v = scalar(args[0], fn);
      const iso = v.kind === 'text' ? v.text.trim() : v.kind === 'number' ? String(v.value) : '';
      if (!/^\d{4}(-\d{2}(-\d{2})?)?$/.test(iso))
        throw new ExprError(`date() needs an ISO date, got ${show(v)}`);
      return { kind: 'date', iso };
    }
  }
  throw new ExprError(`unknown function '${fn}'`);
}

function binaryOp(op: BinaryOp, a: Value, b: Value): Value {
  if (op === '&&' || op === '||') {
    if (a.kind !== 'boolean' || b.kind !== 'boolean') throw new ExprError(`${op} needs two comparisons`);
    return { kind: 'boolean', value: op === '&&' ? a.value && b.value : a.value || b.value };
  }
  if (op === '==' || op === '!=') {
    const c = compareValues(a, b);
    const equal = c === undefined ? false : c === 0;
    return { kind: 'boolean', value: op === '==' ? equal : !equal };
  }
  if (op === '<' || op === '<=' || op === '>' || op === '>=') {
    const c = compareValues(a, b);
    if (c === undefined) throw new ExprError(`cannot compare ${a.kind} ${show(a)} with ${b.kind} ${show(b)}`);
    const value = op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
    return { kind: 'boolean', value };
  }
  // A date minus a date is the days between them: "how many years between" is years(a, b) or that / 365.25.
  if (op === '-' && a.kind === 'date' && b.kind === 'date') {
    return { kind: 'number', value: dayNumber(a.iso) - dayNumber(b.iso), unit: 'days' };
  }
  const x = num(a, op);
  const y = num(b, op);
  if (op === '/' && y === 0) throw new ExprError('division by zero');
  const value = op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : x / y;
  const unit =
    (op === '+' || op === '-') && a.kind === 'number' && b.kind === 'number' && a.unit === b.unit
      ? a.unit
      : undefined;
  return unit ? { kind: 'number', value, unit } : { kind: 'number', value };
}
