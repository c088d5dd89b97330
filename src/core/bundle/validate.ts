// Field checks for the records a bundle carries. A digest proves the bytes are the ones the writer wrote, not
// that the writer was this app: a hand-made bundle can put a number where a chunk id belongs, a 3-float vector
// on a KG entity of a 512-d library, or an object where the text should be. Each of those would be stored and
// then break the app on every start (the engine, the KG search, the viewer), so they are refused here, before
// anything is written, with the part, the record and the field named.
import { BundleError } from './format.ts';

/**
 * - `string`, `count` (a safe integer ≥ 0), `number` (finite), `strings` (an array of strings), `counts` (an
 *   array of counts), `object`;
 * - a trailing `?` allows the field to be absent (undefined).
 */
type FieldType =
  | 'string'
  | 'count'
  | 'number'
  | 'strings'
  | 'string?'
  | 'count?'
  | 'number?'
  | 'strings?'
  | 'counts?'
  | 'object?';

export type RecordShape = Record<string, FieldType>;

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fits(value: unknown, type: FieldType): boolean {
  const optional = type.endsWith('?');
  if (value === undefined) return optional;
  switch (type.replace('?', '')) {
    case 'string':
      return typeof value === 'string';
    case 'count':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'strings':
      return Array.isArray(value) && value.every((s) => typeof s === 'string');
    case 'counts':
      return (
        Array.isArray(value) && value.every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0)
      );
    case 'object':
      return isObject(value);
    default:
      return false;
  }
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  count: 'a whole number ≥ 0',
  number: 'a finite number',
  strings: 'an array of strings',
  counts: 'an array of whole numbers ≥ 0',
  object: 'an object',
};

/** Throws invalid-content naming the first record and field that does not have its type. */
export function checkShapes(records: readonly unknown[], shape: RecordShape, part: string): void {
  const fields = Object.entries(shape);
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    if (!isObject(r)) {
      throw new BundleError('invalid-content', `part ${part} record ${i + 1} is not an object`, part);
    }
    for (const [field, type] of fields) {
      // Own properties only: an inherited "constructor" or "toString" is not a field of the record.
      const value = Object.hasOwn(r, field) ? r[field] : undefined;
      if (!fits(value, type)) {
        const what = EXPECTED[type.replace('?', '')];
        throw new BundleError(
          'invalid-content',
          `part ${part} record ${i + 1}: the field "${field}" must be ${what}` +
            (value === undefined ? ' (it is missing)' : ''),
          part,
        );
      }
    }
  }
}

/** Throws invalid-content when two records share a key (the store's primary key would refuse mid-import). */
export function checkUnique(
  records: ReadonlyArray<Record<string, unknown>>,
  key: string,
  part: string,
): void {
  const seen = new Set<unknown>();
  for (const r of records) {
    if (seen.has(r[key])) {
      throw new BundleError('invalid-content', `part ${part}: ${key} ${String(r[key])} appears twice`, part);
    }
    seen.add(r[key]);
  }
}

/** Byte length of a stored vector (ArrayBuffer or typed array), or -1 for anything else. */
function vectorBytes(v: unknown): number {
  if (v instanceof ArrayBuffer) return v.byteLength;
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return v.byteLength;
  return -1;
}

/**
 * KG records keep their vectors (as ArrayBuffers); the KG search needs every one to have the library's
 * dimension. Absent or empty vectors are allowed (not embedded yet).
 */
export function checkVectors(
  records: ReadonlyArray<Record<string, unknown>>,
  dimension: number,
  part: string,
): void {
  records.forEach((r, i) => {
    if (!Object.hasOwn(r, 'vector') || r.vector === undefined || r.vector === null) return;
    const bytes = vectorBytes(r.vector);
    if (bytes === 0) return;
    if (bytes !== dimension * 4) {
      const why =
        bytes < 0
          ? 'is not a vector'
          : dimension === 0
            ? `has ${bytes} bytes but the bundle has no embedder`
            : `has ${bytes} bytes, not ${dimension} floats of the bundle's embedder`;
      throw new BundleError('invalid-content', `part ${part} record ${i + 1}: the vector ${why}`, part);
    }
  });
}
