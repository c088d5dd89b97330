// Entity identity: two spellings name the same entity when they normalize to the same key. Attribute values are
// normalized here too, once, when a chunk's extraction is validated: dates to ISO (YYYY, YYYY-MM or YYYY-MM-DD),
// numbers to plain decimals with their unit, so the logical-form solver compares and subtracts them in code
// instead of asking a model what "3 May 1945" minus "1912" is.

/** NFKC, lowercase, trimmed, inner whitespace collapsed to one space. */
export function normalizeName(name: string): string {
  return name.normalize('NFKC').toLowerCase().trim().replace(/\s+/g, ' ');
}

export function relationId(sourceId: string, targetId: string): string {
  return `${sourceId}→${targetId}`;
}

/** What an attribute value turned out to be. */
type AttributeKind = 'date' | 'number' | 'text';

export interface NormalizedValue {
  kind: AttributeKind;
  /** ISO date, "1234.5" or "1234.5 km", or the trimmed text. */
  value: string;
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

function monthNumber(word: string): number {
  const w = word.toLowerCase().replace(/\.$/, '');
  if (w.length < 3) return 0;
  const i = MONTHS.findIndex((m) => m.startsWith(w));
  return i + 1;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function isoOf(year: number, month?: number, day?: number): string | undefined {
  if (!Number.isInteger(year) || year < 1 || year > 9999) return undefined;
  if (month === undefined) return pad(year, 4);
  if (month < 1 || month > 12) return undefined;
  if (day === undefined) return `${pad(year, 4)}-${pad(month)}`;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > days) return undefined;
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

/**
 * A date written the ways texts and models write them, as ISO: "1945-05-03", "3 May 1945", "May 3, 1945",
 * "May 1945", "1946"; undefined when the text is not one date.
 */
export function normalizeDate(text: string): string | undefined {
  const t = text.trim().replace(/\s+/g, ' ');
  let m = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$/.exec(t);
  if (m) return isoOf(+m[1], m[2] ? +m[2] : undefined, m[3] ? +m[3] : undefined);
  // With a month word the year may have three digits (medieval dates: "8 August 869").
  m = /^(\d{1,2})(?:st|nd|rd|th)? ([A-Za-z]+\.?),? (\d{3,4})$/.exec(t);
  if (m && monthNumber(m[2])) return isoOf(+m[3], monthNumber(m[2]), +m[1]);
  m = /^([A-Za-z]+\.?) (\d{1,2})(?:st|nd|rd|th)?,? (\d{3,4})$/.exec(t);
  if (m && monthNumber(m[1])) return isoOf(+m[3], monthNumber(m[1]), +m[2]);
  m = /^([A-Za-z]+\.?),? (\d{3,4})$/.exec(t);
  if (m && monthNumber(m[1])) return isoOf(+m[2], monthNumber(m[1]));
  return undefined;
}

const SCALES: Record<string, number> = { thousand: 1e3, million: 1e6, billion: 1e9 };

/** "1,234,567 inhabitants" → 1234567 inhabitants, "3.5 km" → 3.5 km, "12 million" → 12000000; else undefined. */
export function normalizeNumber(text: string): { value: number; unit: string } | undefined {
  const m = /^(-?\d{1,3}(?:,\d{3})+|-?\d+(?:\.\d+)?)(?:\s*(thousand|million|billion)\b)?\s*(.*)$/i.exec(
    text.trim(),
  );
  if (!m) return undefined;
  const value = Number(m[1].replace(/,/g, '')) * (m[2] ? SCALES[m[2].toLowerCase()] : 1);
  const unit = m[3].trim().replace(/\s+/g, ' ');
  if (!Number.isFinite(value) || unit.length > 24 || /\d/.test(unit)) return undefined;
  return { value, unit };
}

/** Keys whose values are counts or measures: a bare "1946" there is a number, not a year. */
const QUANTITY_KEY =
  /\b(population|inhabitants|number|count|height|length|width|area|capacity|seats|employees|members|size|weight|elevation)\b/;

/** An attribute value as stored: a date, a number with its unit, or text (the key tells a count from a year). */
export function normalizeAttributeValue(raw: string | number, key = ''): NormalizedValue {
  if (typeof raw === 'number') return { kind: 'number', value: String(raw) };
  const text = raw.trim().replace(/\s+/g, ' ');
  // A bare 4-digit number is a year far more often than a count in extracted attributes ("founded": "1911").
  const date = QUANTITY_KEY.test(key) ? undefined : normalizeDate(text);
  if (date) return { kind: 'date', value: date };
  const number = normalizeNumber(text);
  if (number)
    return { kind: 'number', value: number.unit ? `${number.value} ${number.unit}` : String(number.value) };
  return { kind: 'text', value: text };
}

/** Attribute keys compare lowercased with inner whitespace, `_` and `-` folded to one space. */
export function normalizeKey(key: string): string {
  return normalizeName(key.replace(/[_-]+/g, ' '));
}
