// The shapes of the gzip'd JSON groups of a pages part (format.ts), checked when a group is decoded: a group's bytes
// match their block hashes whoever wrote them, so what they hold is a stranger's JSON until it has the shape the
// evidence, the Ask view and the dictionary searches read. A record whose "sentences" is {"length": 2e9} would
// otherwise drive a loop of two billion steps in recordSentences; a term entry's offsets, reads past its section.
import type { PagedChunkRecord, TermEntry } from './format.ts';

/** Longest text a record may hold (a chunk is at most a few thousand tokens; far above any real one). */
const MAX_RECORD_TEXT = 1 << 22;

const isCount = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;
const isString = (x: unknown): x is string => typeof x === 'string';

/** `value` as a group of `expected` items, each checked by `check` (which returns why it is not, or undefined). */
function groupOf<T>(
  value: unknown,
  expected: number,
  what: string,
  check: (item: unknown) => string | undefined,
): T[] {
  if (!Array.isArray(value) || value.length !== expected)
    throw new Error(
      `holds ${Array.isArray(value) ? value.length : 'no list of'} ${what}, expected ${expected}`,
    );
  for (let i = 0; i < value.length; i++) {
    const why = check(value[i]);
    if (why) throw new Error(`its ${what} ${i} ${why}`);
  }
  return value as T[];
}

/** Why a stored chunk record does not have PagedChunkRecord's shape, or undefined when it does. */
function recordFault(r: unknown): string | undefined {
  if (typeof r !== 'object' || r === null || Array.isArray(r)) return 'is not an object';
  const x = r as Record<string, unknown>;
  for (const key of ['id', 'docId', 'title', 'text'] as const)
    if (!isString(x[key])) return `has no "${key}" string`;
  if ((x.text as string).length > MAX_RECORD_TEXT) return 'has a text longer than any chunk';
  for (const key of ['tokens', 'start'] as const) if (!isCount(x[key])) return `has no "${key}" count`;
  const s = x.sentences;
  if (!Array.isArray(s) || s.length % 2 !== 0)
    return 'has "sentences" that are not a list of [start, end] pairs';
  for (let i = 0; i < s.length; i += 2) {
    const a: unknown = s[i];
    const b: unknown = s[i + 1];
    if (!isCount(a) || !isCount(b) || a > b)
      return `has sentence ${i / 2} that is not a [start, end] pair of offsets`;
  }
  if (x.path !== undefined && !(Array.isArray(x.path) && x.path.every(isString)))
    return 'has a "path" that is not a list of strings';
  if (x.pageStarts !== undefined && !(Array.isArray(x.pageStarts) && x.pageStarts.every(isCount)))
    return 'has "pageStarts" that are not counts';
  for (const key of ['pageStart', 'pageEnd'] as const)
    if (x[key] !== undefined && !isCount(x[key])) return `has a "${key}" that is not a count`;
  return undefined;
}

/** A decoded record group of `expected` records, checked. */
export function checkRecordGroup(value: unknown, expected: number): PagedChunkRecord[] {
  return groupOf<PagedChunkRecord>(value, expected, 'records', recordFault);
}

/**
 * A decoded word dictionary group of `expected` entries: terms, each with the [offset, length] of its text
 * and heading postings inside the postings section (`postingsBytes` long).
 */
export function checkTermGroup(value: unknown, expected: number, postingsBytes: number): TermEntry[] {
  return groupOf<TermEntry>(value, expected, 'terms', (e) => {
    if (!Array.isArray(e) || e.length !== 5 || !isString(e[0]) || !e.slice(1).every(isCount))
      return 'is not [term, offset, length, offset, length]';
    const [, at, length, hAt, hLength] = e as TermEntry;
    if (at + length > postingsBytes || hAt + hLength > postingsBytes) return 'points past the postings';
    return undefined;
  });
}

/** A decoded concept dictionary group of `expected` terms. */
export function checkConceptGroup(value: unknown, expected: number): string[] {
  return groupOf<string>(value, expected, 'concepts', (t) => (isString(t) ? undefined : 'is not a string'));
}
