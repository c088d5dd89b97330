// The ConceptRAG bundle format, version 1: constants, the manifest's shape and the errors a reader raises.
// The byte layout is documented in FORMAT.md beside this file; writer.ts and reader.ts are its only producers.

/** First 8 bytes of every bundle. */
export const MAGIC = new Uint8Array([0x43, 0x52, 0x41, 0x47, 0x42, 0x4e, 0x44, 0x4c]); // "CRAGBNDL"
/**
 * The version this app writes. 2 added PIKE-RAG's atomic layer (tables atomicQuestions and atomicChunks): an app
 * that reads only 1 refuses such a bundle instead of silently dropping its atomic questions. Version 1 bundles
 * still open (they have no atomic layer). 3 locates every part (its offset in the manifest, the manifest's offset just
 * before the end marker) so that a library can be read by ranges; its parts are those of 2, plus optionally the
 * pages of a library read by ranges (src/core/paged).
 */
export const FORMAT_VERSION = 3;
/** Every version this app reads. */
export const READABLE_FORMAT_VERSIONS: readonly number[] = [1, 2, 3];
/** File name extension used by the UI and the CLI. */
export const BUNDLE_EXTENSION = '.bundle';

/** Frame tags (4 ASCII bytes each). */
export const TAG_HEAD = 'HEAD';
export const TAG_PART = 'PART';
export const TAG_MANIFEST = 'MNFT';
export const TAG_END = 'END.';

/** A frame's JSON header may not exceed this: a larger length can only come from a damaged file. */
export const MAX_HEADER_BYTES = 16 * 1024 * 1024;

/** How a part's payload is laid out; readers skip nothing: unknown kinds are kept as raw bytes. */
export type PartKind = 'jsonl' | 'vectors-i8' | 'vectors-f32' | 'structured' | 'binary';
/** How a part's payload is stored. The SHA-256 covers the stored bytes, so it is checked before inflating. */
export type PartEncoding = 'identity' | 'gzip';

export interface EmbedderInfo {
  id: string;
  dimension: number;
}

/** What a writer is given about a part; the writer adds the stored length and digest. */
export interface BundlePart {
  /** Unique within a bundle, e.g. "documents.jsonl", "vectors.i8", "graph.bin", "kg.entities.jsonl". */
  name: string;
  kind: PartKind;
  /** Number of records (lines, vectors, …) in the part, for counts and checks. */
  count: number;
  /** The decoded payload. One part is held at a time: the writer never needs the whole index at once. */
  data: Uint8Array;
  /** Defaults to 'gzip' for text kinds and 'identity' for vectors (which barely compress). */
  encoding?: PartEncoding;
  /** Kind-specific facts, e.g. { dimension } for vectors. */
  meta?: Record<string, unknown>;
}

/** A part as the manifest records it. */
export interface PartEntry {
  name: string;
  kind: PartKind;
  encoding: PartEncoding;
  count: number;
  /** Stored (possibly compressed) byte length. */
  length: number;
  /** Decoded byte length. */
  rawLength: number;
  /** SHA-256 hex of the stored bytes. */
  sha256: string;
  meta?: Record<string, unknown>;
  /** Version 3, in the manifest only: where the stored payload starts in the file. */
  offset?: number;
}

/** The HEAD frame: what a reader needs to refuse a bundle early (wrong embedder) before reading the parts. */
export interface BundleHead {
  format: 'conceptrag-bundle';
  formatVersion: number;
  appVersion: string;
  createdAt: string;
  /** Null for a bundle with no vectors (lexical layer only). */
  embedder: EmbedderInfo | null;
  params: Record<string, unknown>;
}

/** The MNFT frame at the end: the head again plus counts and every part's length and SHA-256. */
export interface BundleManifest extends BundleHead {
  counts: Record<string, number>;
  parts: PartEntry[];
}

/** What the caller of writeBundle says about the index; parts and counts are filled in by the writer. */
export interface ManifestBase {
  appVersion: string;
  embedder: EmbedderInfo | null;
  params?: Record<string, unknown>;
  /** Extra counts (documents, chunks, concepts, …); part record counts are added as `<part name>`. */
  counts?: Record<string, number>;
  createdAt?: string;
}

/**
 * Set in the head's params of a bundle that holds only a library read by ranges (`cli index --stream`): no
 * documents, chunks or sentences parts, so it cannot be imported or read whole (FORMAT.md, "Pages only").
 */
export const PAGES_ONLY_PARAM = 'pagesOnly';

export function isPagesOnly(head: Pick<BundleHead, 'params'>): boolean {
  return head.params?.[PAGES_ONLY_PARAM] === true;
}

export const PAGES_ONLY_MESSAGE =
  'this bundle holds only a library read by ranges (built by cli index --stream): it cannot be imported or read ' +
  'whole (import, ask --whole, info); ask it with cli ask (without --whole), or open it in the app read-only ' +
  '(Open bundle read-only…, or ?bundle=<url>)';

export type BundleErrorKind =
  'not-a-bundle' | 'unknown-version' | 'truncated' | 'corrupted' | 'embedder-mismatch' | 'invalid-content';

/** Every refusal of a bundle; `kind` lets the UI and tests tell the reasons apart without parsing text. */
export class BundleError extends Error {
  readonly kind: BundleErrorKind;
  readonly part?: string;

  constructor(kind: BundleErrorKind, message: string, part?: string) {
    super(`bundle: ${message}`);
    this.name = 'BundleError';
    this.kind = kind;
    this.part = part;
  }
}

export function isBundleError(e: unknown): e is BundleError {
  return e instanceof BundleError;
}

/** "embedder X (dimension D)" or "no embedder" for lexical-only bundles. */
function describeEmbedder(e: EmbedderInfo | null): string {
  return e ? `${e.id} (dimension ${e.dimension})` : 'no embedder (lexical layer only)';
}

/**
 * Refuses a bundle whose vectors come from another embedder than the library's. A bundle without vectors fits
 * any library; a library without an embedder yet accepts any bundle.
 */
export function checkEmbedder(bundle: EmbedderInfo | null, library: EmbedderInfo | null | undefined): void {
  if (!bundle || !library) return;
  if (bundle.id !== library.id || bundle.dimension !== library.dimension) {
    throw new BundleError(
      'embedder-mismatch',
      `built with embedder ${describeEmbedder(bundle)} but this library uses ${describeEmbedder(library)}`,
    );
  }
}
