// Streaming bundle reader: validates magic, version, every frame, every part's length and SHA-256 and the
// manifest BEFORE it returns anything, so an importer never sees a byte of a bad bundle. Parts are buffered once
// (their stored bytes) while they are hashed; inflating happens only after the whole file has checked out.
import { ByteSource, type ByteInput } from './byteSource.ts';
import { gunzip } from './compress.ts';
import {
  BundleError,
  READABLE_FORMAT_VERSIONS,
  MAGIC,
  MAX_HEADER_BYTES,
  TAG_END,
  TAG_HEAD,
  isPagesOnly,
  PAGES_ONLY_MESSAGE,
  TAG_MANIFEST,
  TAG_PART,
  checkEmbedder,
  type BundleHead,
  type BundleManifest,
  type EmbedderInfo,
  type PartEntry,
} from './format.ts';
import { Sha256, toHex } from './sha256.ts';
import { isObject } from './validate.ts';
import { messageOf } from '../errors.ts';

const decoder = new TextDecoder();

export interface ReadOptions {
  /**
   * The library's embedder: a bundle built with another one is refused (right after the head, before the parts
   * are read). Undefined or null accepts any embedder.
   */
  expectEmbedder?: EmbedderInfo | null;
  /** Called as bytes arrive (total so far), for a progress bar. */
  onBytes?: (bytesRead: number) => void;
  /**
   * The input's real size in bytes when known (a File's size, a file's stat): a part or header that declares
   * more bytes than the file has left is refused before anything is allocated for it. A Uint8Array input is
   * its own size.
   */
  totalBytes?: number;
  /** Overrides of BUNDLE_LIMITS (tests use small ones). */
  limits?: Partial<BundleLimits>;
  /**
   * Called with each part's header, once its declared sizes are checked and before its bytes are read: throwing
   * stops the read there (a bundle opened whole whose text would not fit the tab is refused before it is read).
   */
  onPart?: (entry: PartEntry, head: BundleHead) => void | Promise<void>;
}

/**
 * What a bundle may declare. Lengths in a bundle are written by whoever made the file: believed, a declared
 * length of 2^40 would be an allocation of that size and an inflated size a zip bomb. The limits are far above
 * real indexes (a MuSiQue bundle is 14 MB; its largest part, a full serialized graph, about 330 MB raw) and far
 * below what would take a browser tab down before a single digest could be checked.
 */
interface BundleLimits {
  /** Stored bytes of one part. */
  maxPartBytes: number;
  /** Inflated bytes of one part. */
  maxPartRawBytes: number;
  /** Stored bytes of all parts together (they are all buffered until the manifest has been checked). */
  maxTotalBytes: number;
  /** Inflated bytes of all parts together (they are all held when the snapshot is decoded). */
  maxTotalRawBytes: number;
  /**
   * A gzip part may inflate to at most this many times its stored length, plus `inflationAllowance`: what a part
   * may allocate is counted against its real length, so a 1 MB file can never ask for 1,000 MB. Real parts
   * inflate 3–11× (vuedocs: documents 3.3×, sentences 10.5×, a full graph 4.1×); deflate's own ceiling is 1032×.
   */
  maxInflationRatio: number;
  /** Inflated bytes any gzip part may have whatever its stored length (small, very regular parts: a keep-mask). */
  inflationAllowance: number;
}

const BUNDLE_LIMITS: BundleLimits = {
  maxPartBytes: 1024 * 1024 * 1024,
  maxPartRawBytes: 1024 * 1024 * 1024,
  maxTotalBytes: 2 * 1024 * 1024 * 1024,
  maxTotalRawBytes: 2 * 1024 * 1024 * 1024,
  maxInflationRatio: 64,
  inflationAllowance: 16 * 1024 * 1024,
};

export interface ReadBundle {
  manifest: BundleManifest;
  /** Decoded payload of each part, by name. */
  parts: Map<string, Uint8Array>;
}

/** A short read, in the same words wherever the file ends before what its headers declare. */
function truncated(expected: string, got: number, part?: string): BundleError {
  return new BundleError('truncated', `truncated (expected ${expected}, got ${got})`, part);
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

const KINDS = new Set(['jsonl', 'vectors-i8', 'vectors-f32', 'structured', 'binary']);

/**
 * Part names become keys of plain objects (manifest counts, snapshot tables): a name that is a property of
 * Object.prototype ("__proto__", "constructor", "table.__proto__.bin" once the prefix is cut) would read or
 * replace an inherited property instead of an own one. Names are printable ASCII without path separators.
 */
function safePartName(name: string): boolean {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(name)) return false;
  return name.split('.').every((piece) => !(piece in Object.prototype));
}

function validEntry(v: unknown): v is PartEntry {
  return (
    isObject(v) &&
    typeof v.name === 'string' &&
    v.name.length > 0 &&
    typeof v.kind === 'string' &&
    KINDS.has(v.kind) &&
    (v.encoding === 'identity' || v.encoding === 'gzip') &&
    isCount(v.count) &&
    isCount(v.length) &&
    isCount(v.rawLength) &&
    typeof v.sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(v.sha256) &&
    (v.meta === undefined || isObject(v.meta)) &&
    (v.encoding === 'gzip' || v.length === v.rawLength)
  );
}

function validEmbedder(v: unknown): boolean {
  return v === null || (isObject(v) && typeof v.id === 'string' && isCount(v.dimension) && v.dimension > 0);
}

function validHead(v: unknown): v is BundleHead {
  return (
    isObject(v) &&
    v.format === 'conceptrag-bundle' &&
    typeof v.formatVersion === 'number' &&
    typeof v.appVersion === 'string' &&
    typeof v.createdAt === 'string' &&
    validEmbedder(v.embedder) &&
    isObject(v.params)
  );
}

class FrameReader {
  constructor(
    private readonly src: ByteSource,
    /** Bytes of the input not read yet (Infinity when its size is unknown). */
    private readonly left: () => number,
  ) {}

  /** Reads a frame tag; null at a clean end of stream. */
  async tag(what: string): Promise<string | null> {
    const start = this.src.offset;
    const bytes = await this.src.read(4);
    if (bytes.length === 0) return null;
    if (bytes.length < 4) {
      throw truncated(`4 bytes of the tag of ${what}`, bytes.length);
    }
    const tag = decoder.decode(bytes);
    if (![TAG_HEAD, TAG_PART, TAG_MANIFEST, TAG_END].includes(tag)) {
      throw new BundleError('corrupted', `corrupted (unknown frame tag at byte ${start}, reading ${what})`);
    }
    return tag;
  }

  /** Reads `u32 length | u32 ~length | JSON | SHA-256(JSON)` and returns the parsed JSON. */
  async header(what: string): Promise<unknown> {
    const lengths = await this.src.read(8);
    if (lengths.length < 8) {
      throw truncated(`8 bytes of the length of ${what}`, lengths.length);
    }
    const view = new DataView(lengths.buffer, lengths.byteOffset, 8);
    const length = view.getUint32(0, true);
    if (~length >>> 0 !== view.getUint32(4, true) || length > MAX_HEADER_BYTES) {
      throw new BundleError('corrupted', `corrupted (the length field of ${what} is damaged)`);
    }
    // The same message as a short read, without first allocating what a damaged file declares.
    if (length + 32 > this.left()) {
      throw truncated(`${length + 32} bytes of ${what}`, this.left());
    }
    const body = await this.src.read(length + 32);
    if (body.length < length + 32) {
      throw truncated(`${length + 32} bytes of ${what}`, body.length);
    }
    const json = body.subarray(0, length);
    if (!equalBytes(new Sha256().update(json).digest(), body.subarray(length))) {
      throw new BundleError('corrupted', `corrupted (SHA-256 mismatch in ${what})`);
    }
    try {
      return JSON.parse(decoder.decode(json));
    } catch {
      throw new BundleError('invalid-content', `${what} is not valid JSON`);
    }
  }
}

async function readPreamble(src: ByteSource): Promise<void> {
  const pre = await src.read(12);
  if (pre.length === 0) throw new BundleError('not-a-bundle', 'not a ConceptRAG bundle (the file is empty)');
  const magicPart = pre.subarray(0, Math.min(8, pre.length));
  if (!equalBytes(magicPart, MAGIC.subarray(0, magicPart.length))) {
    throw new BundleError('not-a-bundle', 'not a ConceptRAG bundle (it does not start with "CRAGBNDL")');
  }
  if (pre.length < 12) {
    throw truncated('12 bytes of the preamble', pre.length);
  }
  const version = new DataView(pre.buffer, pre.byteOffset, 12).getUint32(8, true);
  if (!READABLE_FORMAT_VERSIONS.includes(version)) {
    throw new BundleError(
      'unknown-version',
      `unknown bundle version ${version} (this app reads ${READABLE_FORMAT_VERSIONS.join(', ')})`,
    );
  }
}

async function readPartData(src: ByteSource, entry: PartEntry): Promise<Uint8Array> {
  const data = new Uint8Array(entry.length);
  const hash = new Sha256();
  const got = await src.readInto(data, (b) => hash.update(b));
  if (got < entry.length) {
    throw truncated(`${entry.length} bytes of part ${entry.name}`, got, entry.name);
  }
  const stored = await src.read(32);
  if (stored.length < 32) {
    throw truncated(`32 bytes of the SHA-256 of part ${entry.name}`, stored.length, entry.name);
  }
  const digest = hash.digest();
  if (!equalBytes(digest, stored) || toHex(digest) !== entry.sha256) {
    throw new BundleError('corrupted', `corrupted (SHA-256 mismatch in part ${entry.name})`, entry.name);
  }
  return data;
}

/** What the parts read so far declared: stored and inflated bytes, all parts and the gzip ones. */
interface Totals {
  stored: number;
  raw: number;
  gzipStored: number;
  gzipRaw: number;
}

/** Refuses a part whose declared sizes exceed the limits or the file, before a byte is allocated for it. */
function checkDeclaredSizes(entry: PartEntry, limits: BundleLimits, left: number, totals: Totals): void {
  const refuse = (why: string): never => {
    throw new BundleError('invalid-content', `part ${entry.name} ${why}`, entry.name);
  };
  if (entry.length > limits.maxPartBytes) {
    refuse(`declares ${entry.length} stored bytes, over the limit of ${limits.maxPartBytes}`);
  }
  if (entry.rawLength > limits.maxPartRawBytes) {
    refuse(`declares ${entry.rawLength} bytes inflated, over the limit of ${limits.maxPartRawBytes}`);
  }
  if (totals.stored + entry.length > limits.maxTotalBytes) {
    refuse(`takes the parts over ${limits.maxTotalBytes} stored bytes in total`);
  }
  if (totals.raw + entry.rawLength > limits.maxTotalRawBytes) {
    refuse(`takes the parts over ${limits.maxTotalRawBytes} bytes inflated in total`);
  }
  const inflationCap = entry.length * limits.maxInflationRatio + limits.inflationAllowance;
  if (entry.encoding === 'gzip' && entry.rawLength > inflationCap) {
    refuse(
      `declares ${entry.rawLength} bytes inflated from ${entry.length} stored bytes, more than ` +
        `${limits.maxInflationRatio} times its size (plus ${limits.inflationAllowance} bytes) that a real ` +
        'part inflates to',
    );
  }
  // The allowance is for the whole bundle, not for each part: 128 small parts of 16 MiB of zeros each would
  // otherwise inflate a 2 MB file to 2 GiB.
  const gzipStored = totals.gzipStored + (entry.encoding === 'gzip' ? entry.length : 0);
  const gzipRaw = totals.gzipRaw + (entry.encoding === 'gzip' ? entry.rawLength : 0);
  if (gzipRaw > gzipStored * limits.maxInflationRatio + limits.inflationAllowance) {
    refuse(
      `takes the gzip parts to ${gzipRaw} bytes inflated from ${gzipStored} stored bytes, more than ` +
        `${limits.maxInflationRatio} times their size (plus ${limits.inflationAllowance} bytes in all)`,
    );
  }
  // The same messages as readPartData's short reads, before allocating what the header declares.
  if (entry.length > left) {
    throw truncated(`${entry.length} bytes of part ${entry.name}`, left, entry.name);
  }
  if (entry.length + 32 > left) {
    throw truncated(`32 bytes of the SHA-256 of part ${entry.name}`, left - entry.length, entry.name);
  }
  totals.stored += entry.length;
  totals.raw += entry.rawLength;
  totals.gzipStored = gzipStored;
  totals.gzipRaw = gzipRaw;
}

/**
 * Refuses parts read by ranges (without the stream reader: a library's KG tables beside its pages) whose declared
 * sizes exceed the limits the whole read applies, or lie past the file, before a byte is allocated for them.
 */
export function checkLocatedParts(entries: readonly PartEntry[], fileSize: number): void {
  const totals: Totals = { stored: 0, raw: 0, gzipStored: 0, gzipRaw: 0 };
  for (const entry of entries) {
    const offset = entry.offset;
    if (!Number.isSafeInteger(offset) || offset! < 0 || offset! > fileSize)
      throw new BundleError('corrupted', `corrupted (part ${entry.name} lies outside the file)`, entry.name);
    checkDeclaredSizes(entry, BUNDLE_LIMITS, fileSize - offset!, totals);
  }
}

function sameEntry(a: PartEntry, b: PartEntry): boolean {
  return (
    a.name === b.name &&
    a.kind === b.kind &&
    a.encoding === b.encoding &&
    a.count === b.count &&
    a.length === b.length &&
    a.rawLength === b.rawLength &&
    a.sha256 === b.sha256
  );
}

function checkManifest(value: unknown, head: BundleHead, entries: PartEntry[]): BundleManifest {
  const fields = isObject(value) ? value : {};
  if (!validHead(value) || !isObject(fields.counts) || !Array.isArray(fields.parts)) {
    throw new BundleError('invalid-content', 'the manifest lacks required fields');
  }
  const manifest = value as BundleManifest;
  if (JSON.stringify({ ...head }) !== JSON.stringify(pickHead(manifest))) {
    throw new BundleError('corrupted', 'corrupted (the manifest disagrees with the head)');
  }
  if (manifest.parts.length !== entries.length || !manifest.parts.every((p, i) => sameEntry(p, entries[i]))) {
    throw new BundleError('corrupted', 'corrupted (the manifest does not list the parts that were read)');
  }
  return manifest;
}

/** Version 3: the manifest's part offsets and the locator are where the parts and the manifest were read. */
async function checkLocation(
  src: ByteSource,
  manifest: BundleManifest,
  offsets: readonly number[],
  manifestAt: number,
): Promise<void> {
  manifest.parts.forEach((p, i) => {
    if (p.offset !== offsets[i]) {
      throw new BundleError(
        'corrupted',
        `corrupted (the manifest places part ${p.name} at the wrong offset)`,
      );
    }
  });
  const bytes = await src.read(8);
  if (bytes.length < 8) throw new BundleError('truncated', 'truncated (the manifest locator is missing)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, 8);
  if (view.getUint32(0, true) + view.getUint32(4, true) * 2 ** 32 !== manifestAt) {
    throw new BundleError('corrupted', 'corrupted (the manifest locator does not point at the manifest)');
  }
}

function pickHead(m: BundleHead): BundleHead {
  return {
    format: m.format,
    formatVersion: m.formatVersion,
    appVersion: m.appVersion,
    createdAt: m.createdAt,
    embedder: m.embedder,
    params: m.params,
  };
}

/**
 * Reads and fully validates a bundle. Throws BundleError (kind: not-a-bundle, unknown-version, truncated,
 * corrupted, embedder-mismatch, invalid-content) and returns nothing unless every check passed.
 */
export async function readBundle(input: ByteInput, options: ReadOptions = {}): Promise<ReadBundle> {
  const src = new ByteSource(input, options.onBytes);
  const limits = { ...BUNDLE_LIMITS, ...options.limits };
  const size = options.totalBytes ?? (input instanceof Uint8Array ? input.length : undefined);
  const left = (): number => (size === undefined ? Infinity : size - src.offset);
  const totals: Totals = { stored: 0, raw: 0, gzipStored: 0, gzipRaw: 0 };
  try {
    await readPreamble(src);
    const frames = new FrameReader(src, left);
    if ((await frames.tag('the head')) !== TAG_HEAD) {
      throw new BundleError('corrupted', 'corrupted (the head frame is missing)');
    }
    const headValue = await frames.header('the head');
    if (!validHead(headValue)) throw new BundleError('invalid-content', 'the head lacks required fields');
    const head = pickHead(headValue);
    checkEmbedder(head.embedder, options.expectEmbedder);
    // A pages-only bundle (cli index --stream) has no whole-read layers: refused here, before its parts are read
    // (its pages may be larger than a whole read allows).
    if (isPagesOnly(head)) throw new BundleError('invalid-content', PAGES_ONLY_MESSAGE);

    const entries: PartEntry[] = [];
    const stored = new Map<string, Uint8Array>();
    const offsets: number[] = [];
    let manifestAt = 0;
    let manifest: BundleManifest | null = null;
    for (;;) {
      const last = entries.length ? `part ${entries[entries.length - 1].name}` : 'the head';
      const frameAt = src.offset;
      const tag = await frames.tag(`the frame after ${last}`);
      if (tag === null) {
        throw new BundleError('truncated', `truncated (the file ends after ${last}, before the manifest)`);
      }
      if (tag === TAG_PART) {
        const what = `the header of part #${entries.length + 1}`;
        const entry = await frames.header(what);
        if (!validEntry(entry) || stored.has(entry.name)) {
          throw new BundleError('invalid-content', `${what} is malformed or repeats a part name`);
        }
        if (!safePartName(entry.name)) {
          throw new BundleError(
            'invalid-content',
            `${what}: the part name ${JSON.stringify(entry.name.slice(0, 80))} is not allowed`,
          );
        }
        checkDeclaredSizes(entry, limits, left(), totals);
        await options.onPart?.(entry, head);
        offsets.push(src.offset);
        stored.set(entry.name, await readPartData(src, entry));
        entries.push(entry);
        continue;
      }
      if (tag === TAG_MANIFEST) {
        manifest = checkManifest(await frames.header('the manifest'), head, entries);
        manifestAt = frameAt;
        break;
      }
      throw new BundleError('corrupted', `corrupted (unexpected ${tag} frame after ${last})`);
    }
    if (head.formatVersion >= 3) await checkLocation(src, manifest, offsets, manifestAt);
    const end = await frames.tag('the end marker');
    if (end === null)
      throw new BundleError('truncated', 'truncated (the end marker after the manifest is missing)');
    if (end !== TAG_END) throw new BundleError('corrupted', 'corrupted (no end marker after the manifest)');
    if (!(await src.atEnd())) throw new BundleError('corrupted', 'corrupted (bytes after the end marker)');

    // Everything checked out: now inflate, releasing each stored buffer as its part is decoded.
    const parts = new Map<string, Uint8Array>();
    for (const entry of entries) {
      const bytes = stored.get(entry.name)!;
      stored.delete(entry.name);
      if (entry.encoding === 'gzip') {
        try {
          const raw = await gunzip(bytes, entry.rawLength);
          if (raw.length !== entry.rawLength) throw new Error(`inflates to ${raw.length} bytes`);
          parts.set(entry.name, raw);
        } catch (e) {
          const why = messageOf(e);
          throw new BundleError(
            'invalid-content',
            `part ${entry.name} does not inflate to its ${entry.rawLength} bytes (${why})`,
            entry.name,
          );
        }
      } else {
        parts.set(entry.name, bytes);
      }
    }
    return { manifest, parts };
  } finally {
    await src.close();
  }
}
