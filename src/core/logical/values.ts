// The values a logical-form variable binds: KG entities, dates, numbers (with a unit), booleans and text. A variable
// holds a set of them (a retrieval may find several films), in the order found. Dates are ISO strings, possibly
// partial ("1946", "1946-05"); they compare and subtract by their first day.
import { normalizeAttributeValue } from '../kg/index.ts';

export type Value =
  | { kind: 'entity'; id: string; name: string }
  | { kind: 'date'; iso: string }
  | { kind: 'number'; value: number; unit?: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'text'; text: string };

/** A value as the person and the model read it. */
export function show(v: Value): string {
  switch (v.kind) {
    case 'entity':
      return v.name;
    case 'date':
      return v.iso;
    case 'number':
      return v.unit ? `${formatNumber(v.value)} ${v.unit}` : formatNumber(v.value);
    case 'boolean':
      return v.value ? 'yes' : 'no';
    case 'text':
      return v.text;
  }
}

function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 1e6) / 1e6);
}

/** Identity of a value inside one variable's set (two bindings of "1946" are one value). */
export function valueKey(v: Value): string {
  return v.kind === 'entity' ? `e:${v.id}` : `${v.kind}:${show(v).toLowerCase()}`;
}

/** A stored attribute value or an extracted string as a typed value (dates ISO, numbers with unit). */
export function valueFromText(text: string): Value {
  return valueOfAttribute(normalizeAttributeValue(text));
}

/** A stored KG attribute as a typed value, by the kind its normalization gave it (a population of 1946 stays a number). */
export function valueOfAttribute(a: { value: string; kind: 'date' | 'number' | 'text' }): Value {
  if (a.kind === 'date') return { kind: 'date', iso: a.value };
  if (a.kind === 'number') {
    const [num, ...unit] = a.value.split(' ');
    const value = Number(num);
    if (Number.isFinite(value))
      return unit.length ? { kind: 'number', value, unit: unit.join(' ') } : { kind: 'number', value };
  }
  if (/^(yes|true)$/i.test(a.value)) return { kind: 'boolean', value: true };
  if (/^(no|false)$/i.test(a.value)) return { kind: 'boolean', value: false };
  return { kind: 'text', text: a.value };
}

/** Days since 1970-01-01 of the first day of an ISO (possibly partial) date. */
export function dayNumber(iso: string): number {
  const [y, m, d] = iso.split('-').map(Number);
  return Date.UTC(y, (m || 1) - 1, d || 1) / 86_400_000;
}

/** Whole years from a to b (negative when b is earlier), counting a birthday only once it has passed. */
export function wholeYears(a: string, b: string): number {
  const [ya, ma = 0, da = 0] = a.split('-').map(Number);
  const [yb, mb = 0, db = 0] = b.split('-').map(Number);
  let years = yb - ya;
  // Both dates full enough to tell whether the anniversary was reached; a year alone cannot.
  if (ma && mb) {
    const before = mb < ma || (mb === ma && da && db && db < da);
    const after = mb > ma || (mb === ma && da && db && db > da);
    if (years > 0 && before) years--;
    if (years < 0 && after) years++;
  }
  return years;
}

/** Orders two values of one comparable kind (numbers, dates, text); undefined when they are not comparable. */
export function compareValues(a: Value, b: Value): number | undefined {
  if (a.kind === 'number' && b.kind === 'number') return a.value - b.value;
  if (a.kind === 'date' && b.kind === 'date') return dayNumber(a.iso) - dayNumber(b.iso);
  if (a.kind === 'number' && b.kind === 'date') return undefined;
  if ((a.kind === 'text' || a.kind === 'entity') && (b.kind === 'text' || b.kind === 'entity')) {
    const x = show(a).toLowerCase();
    const y = show(b).toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.kind === 'boolean' && b.kind === 'boolean') return Number(a.value) - Number(b.value);
  return undefined;
}
