// Reads stored themes (a library's record, a bundle's part, a paged manifest's entry) as untrusted input: every field
// is shape-checked and every list bounded before anything uses it, so a hostile bundle cannot make the themes
// answer loop or allocate past these limits. A record of another version is refused by name: a newer writer's
// themes are left out rather than misread.
import type { LibraryThemes, Theme } from './themes.ts';

/** Bounds of stored themes, above anything computeThemes writes (40 themes of 10 concepts, 5 documents, 3 passages). */
export const THEME_LIMITS = Object.freeze({
  themes: 200,
  concepts: 50,
  keyDocuments: 50,
  passages: 10,
  chars: 512,
});

/** The stored themes, checked; throws naming the field and the reason. */
export function readThemes(value: unknown, where = 'themes'): LibraryThemes {
  const record = object(value, where);
  if (record.version !== 1) throw new Error(`${where}: version ${String(record.version)} is not 1`);
  const chunks = count(record.chunks, `${where}.chunks`);
  const documents = count(record.documents, `${where}.documents`);
  const themes = list(record.themes, `${where}.themes`, THEME_LIMITS.themes).map((t, i) =>
    theme(t, `${where}.themes[${i}]`),
  );
  return { version: 1, chunks, documents, themes };
}

function theme(value: unknown, where: string): Theme {
  const t = object(value, where);
  const share = t.share;
  if (typeof share !== 'number' || !(share >= 0 && share <= 1)) {
    throw new Error(`${where}.share: must be a number in [0, 1]`);
  }
  const keyDocuments = strings(t.keyDocuments, `${where}.keyDocuments`, THEME_LIMITS.keyDocuments);
  const keyTitles = strings(t.keyTitles, `${where}.keyTitles`, THEME_LIMITS.keyDocuments);
  if (keyTitles.length !== keyDocuments.length) {
    throw new Error(`${where}.keyTitles: ${keyTitles.length} titles for ${keyDocuments.length} documents`);
  }
  return {
    label: string(t.label, `${where}.label`),
    concepts: strings(t.concepts, `${where}.concepts`, THEME_LIMITS.concepts),
    chunks: count(t.chunks, `${where}.chunks`),
    documents: count(t.documents, `${where}.documents`),
    share,
    keyDocuments,
    keyTitles,
    passages: strings(t.passages, `${where}.passages`, THEME_LIMITS.passages),
  };
}

function object(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${where}: must be an object`);
  }
  return value as Record<string, unknown>;
}

function list(value: unknown, where: string, max: number): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${where}: must be a list`);
  if (value.length > max) throw new Error(`${where}: ${value.length} entries, more than ${max}`);
  return value;
}

function strings(value: unknown, where: string, max: number): string[] {
  return list(value, where, max).map((s, i) => string(s, `${where}[${i}]`));
}

function string(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new Error(`${where}: must be a string`);
  if (value.length > THEME_LIMITS.chars)
    throw new Error(`${where}: longer than ${THEME_LIMITS.chars} characters`);
  return value;
}

function count(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new Error(`${where}: must be a whole number ≥ 0`);
  }
  return value;
}
