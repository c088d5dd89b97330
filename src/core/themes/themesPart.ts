// The themes as a bundle part (`themes.json`): one gzip'd JSON object, written beside the pages so that a library
// read by ranges answers a corpus-wide question with one small read. A new part name, not a format change: a reader
// that does not know it keeps it out, and the pages' layout is untouched. Read by ranges, it is checked like the KG's
// tables (declared sizes, the SHA-256 the digested manifest gives), then bounded and shape-checked (themesShape.ts).
import {
  BundleError,
  checkLocatedParts,
  gunzip,
  Sha256,
  toHex,
  type BundleManifest,
  type BundlePart,
} from '../bundle/index.ts';
import type { RangeSource } from '../paged/index.ts';
import type { LibraryThemes } from './themes.ts';
import { readThemes } from './themesShape.ts';
import { messageOf } from '../errors.ts';

export const THEMES_PART = 'themes.json';
/** Stored themes larger than this are refused before they are read (computeThemes writes a few tens of KB). */
const THEMES_MAX_BYTES = 4 * 1024 * 1024;

/** The bundle part of a library's themes. */
export function themesPart(themes: LibraryThemes): BundlePart {
  return {
    name: THEMES_PART,
    kind: 'binary',
    encoding: 'gzip',
    count: themes.themes.length,
    data: new TextEncoder().encode(JSON.stringify(themes)),
    meta: { version: themes.version },
  };
}

/** The themes of a bundle read by ranges, with the bytes read; null when it has none. */
export async function readThemesPart(
  source: RangeSource,
  manifest: BundleManifest,
): Promise<{ themes: LibraryThemes; bytes: number } | null> {
  const entry = manifest.parts.find((p) => p.name === THEMES_PART);
  if (!entry) return null;
  named(() => checkLocatedParts([entry], source.size));
  // A forged manifest may give any JSON here: a size that is not a byte count is refused before it sizes a buffer.
  for (const field of ['length', 'rawLength'] as const) {
    if (!Number.isSafeInteger(entry[field]) || entry[field] < 0) {
      throw new BundleError(
        'invalid-content',
        `part ${THEMES_PART}: ${field} ${JSON.stringify(entry[field])} is not a byte count`,
        THEMES_PART,
      );
    }
  }
  if (entry.length > THEMES_MAX_BYTES || entry.rawLength > THEMES_MAX_BYTES) {
    throw new BundleError(
      'invalid-content',
      `part ${THEMES_PART} is larger than ${THEMES_MAX_BYTES} bytes`,
      THEMES_PART,
    );
  }
  const stored = await source.read(entry.offset!, entry.length);
  if (toHex(new Sha256().update(stored).digest()) !== entry.sha256)
    throw new BundleError('corrupted', `corrupted (SHA-256 mismatch in part ${THEMES_PART})`, THEMES_PART);
  const raw = entry.encoding === 'gzip' ? await namedAsync(() => gunzip(stored, entry.rawLength)) : stored;
  return { themes: themesFromBytes(raw), bytes: stored.length };
}

/** A refusal of the bundle's own checks (its place, its inflated size) said of this part. */
function renamed(error: unknown): BundleError {
  const message = messageOf(error).replace(/^bundle: /, '');
  const kind = error instanceof BundleError ? error.kind : 'invalid-content';
  return new BundleError(kind, `part ${THEMES_PART}: ${message}`, THEMES_PART);
}

function named<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw renamed(error);
  }
}

async function namedAsync<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw renamed(error);
  }
}

/** Themes from a part's decoded bytes. */
function themesFromBytes(raw: Uint8Array): LibraryThemes {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(raw));
  } catch {
    throw new BundleError('invalid-content', `part ${THEMES_PART} is not valid JSON`, THEMES_PART);
  }
  try {
    return readThemes(value, THEMES_PART);
  } catch (error) {
    throw new BundleError('invalid-content', (error as Error).message, THEMES_PART);
  }
}
