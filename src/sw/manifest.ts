// Which files of the build's precache manifest are cached at install and which on first use, and the versioned
// cache name of the latter. Pure (no service-worker globals) so it is tested in Node.

export interface ManifestEntry {
  url: string;
  revision: string | null;
}

/**
 * onnxruntime-web's WASM binaries (38 MB) serve only a transformers.js embedder, which few libraries use, and the
 * text recogniser (16 MB: three WASM builds, of which a browser fetches one, and two languages) only scanned files:
 * they are cached when first fetched instead of at every install.
 */
const LAZY_PREFIXES = ['ort/', 'tesseract/'];

export const LAZY_CACHE_PREFIX = 'conceptrag-lazy-';
/** Network-first cache for other same-origin GETs (an opened bundle, a same-origin model folder). */
export const RUNTIME_CACHE = 'conceptrag-runtime';

export function splitManifest(entries: readonly ManifestEntry[]): {
  eager: ManifestEntry[];
  lazy: ManifestEntry[];
} {
  const eager: ManifestEntry[] = [];
  const lazy: ManifestEntry[] = [];
  for (const entry of entries) {
    const url = entry.url.replace(/^\.?\//, '');
    (LAZY_PREFIXES.some((p) => url.startsWith(p)) ? lazy : eager).push(entry);
  }
  return { eager, lazy };
}

/**
 * The lazily cached files' cache is named after their URLs and content revisions (FNV-1a, 32 bits): new binaries
 * mean a new cache, and the worker deletes any other cache with the prefix when it activates.
 */
export function lazyCacheName(lazy: readonly ManifestEntry[]): string {
  let hash = 0x811c9dc5;
  const key = lazy
    .map((e) => `${e.url} ${e.revision ?? ''}`)
    .sort()
    .join('\n');
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${LAZY_CACHE_PREFIX}${hash.toString(16).padStart(8, '0')}`;
}

/**
 * Whether the service worker may keep an answer in its runtime cache: a whole (200), plain answer of this origin,
 * neither opaque nor redirected to another origin (its final URL, response.url, is checked): a same-origin bundle
 * link answering 302 to a stranger's host must not have the stranger's bundle kept under the app's own address.
 */
export function ownAnswer(response: Pick<Response, 'status' | 'type' | 'url'>, origin: string): boolean {
  if (response.status !== 200 || response.type === 'opaque' || response.type === 'opaqueredirect')
    return false;
  return !response.url || new URL(response.url).origin === origin;
}
