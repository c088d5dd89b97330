// Streaming bundle writer: turns parts (one at a time) into the bytes of a bundle (FORMAT.md).
// Each part is framed with its own header and SHA-256 as soon as it arrives, and the manifest that lists every
// part's length and digest comes last, so the writer holds one part at a time, never the whole index.
import { concatBytes } from './byteSource.ts';
import { gzip } from './compress.ts';
import {
  FORMAT_VERSION,
  MAGIC,
  TAG_END,
  TAG_HEAD,
  TAG_MANIFEST,
  TAG_PART,
  type BundleHead,
  type BundleManifest,
  type BundlePart,
  type ManifestBase,
  type PartEntry,
} from './format.ts';
import { Sha256, toHex } from './sha256.ts';

const encoder = new TextEncoder();

/** tag | u32 length | u32 ~length | JSON | SHA-256(JSON). The complement makes a damaged length detectable. */
function frameHeader(tag: string, json: unknown): Uint8Array {
  const body = encoder.encode(JSON.stringify(json));
  const out = new Uint8Array(12 + body.length + 32);
  out.set(encoder.encode(tag), 0);
  const view = new DataView(out.buffer);
  view.setUint32(4, body.length, true);
  view.setUint32(8, ~body.length >>> 0, true);
  out.set(body, 12);
  out.set(new Sha256().update(body).digest(), 12 + body.length);
  return out;
}

/** The manifest frame's offset as u32 low, u32 high (a bundle may pass 4 GiB). */
function locator(manifestOffset: number): Uint8Array {
  const out = new Uint8Array(8);
  const view = new DataView(out.buffer);
  view.setUint32(0, manifestOffset % 2 ** 32, true);
  view.setUint32(4, Math.floor(manifestOffset / 2 ** 32), true);
  return out;
}

function preamble(version: number): Uint8Array {
  const out = new Uint8Array(12);
  out.set(MAGIC, 0);
  new DataView(out.buffer).setUint32(8, version, true);
  return out;
}

function defaultEncoding(part: BundlePart): 'identity' | 'gzip' {
  return part.kind === 'vectors-i8' || part.kind === 'vectors-f32' ? 'identity' : 'gzip';
}

/**
 * A part stored as is whose bytes are read from elsewhere (a file) while the bundle is written, in `chunks()`;
 * its length and SHA-256 are known beforehand (they go in its frame header, before its bytes).
 */
export interface StreamedPart {
  name: string;
  kind: BundlePart['kind'];
  count: number;
  length: number;
  sha256: Uint8Array;
  meta?: Record<string, unknown>;
  /** A stored part copied from another bundle as is (its encoding and decoded length); else identity. */
  encoding?: PartEntry['encoding'];
  rawLength?: number;
  chunks(): AsyncIterable<Uint8Array>;
}

export interface WriteOptions {
  /** Only tests set this, to produce bundles of a version this app does not read. */
  formatVersion?: number;
}

/**
 * Writes a bundle as a sequence of byte chunks. Part names must be unique. The returned iterable is lazy: each
 * part is pulled from `parts` only when the consumer asks for more bytes.
 */
export async function* writeBundle(
  parts: AsyncIterable<BundlePart | StreamedPart> | Iterable<BundlePart | StreamedPart>,
  base: ManifestBase,
  options: WriteOptions = {},
): AsyncGenerator<Uint8Array> {
  const head: BundleHead = {
    format: 'conceptrag-bundle',
    formatVersion: options.formatVersion ?? FORMAT_VERSION,
    appVersion: base.appVersion,
    createdAt: base.createdAt ?? new Date().toISOString(),
    embedder: base.embedder,
    params: base.params ?? {},
  };
  const pre = preamble(head.formatVersion);
  const headFrame = frameHeader(TAG_HEAD, head);
  yield pre;
  yield headFrame;
  // From version 3 the manifest says where each part's payload starts and a locator before the end marker says where
  // the manifest starts, so a reader by ranges finds any part from the file's last bytes (FORMAT.md, "Reading by ranges").
  const located = head.formatVersion >= 3;
  let position = pre.length + headFrame.length;

  const entries: PartEntry[] = [];
  const seen = new Set<string>();
  for await (const part of parts) {
    if (!part.name || seen.has(part.name)) {
      throw new Error(`bundle writer: part name "${part.name}" is empty or used twice`);
    }
    seen.add(part.name);
    if ('chunks' in part) {
      // A part too large to hold (a gigabyte of text's pages): its bytes come from its source as they are written.
      const entry: PartEntry = {
        name: part.name,
        kind: part.kind,
        encoding: part.encoding ?? 'identity',
        count: part.count,
        length: part.length,
        rawLength: part.rawLength ?? part.length,
        sha256: toHex(part.sha256),
        ...(part.meta ? { meta: part.meta } : {}),
      };
      const frame = frameHeader(TAG_PART, entry);
      entries.push(located ? { ...entry, offset: position + frame.length } : entry);
      yield frame;
      let written = 0;
      for await (const c of part.chunks()) {
        written += c.length;
        yield c;
      }
      if (written !== part.length) {
        throw new Error(`bundle writer: part ${part.name} gave ${written} bytes, not ${part.length}`);
      }
      yield part.sha256;
      position += frame.length + part.length + part.sha256.length;
      continue;
    }
    const encoding = part.encoding ?? defaultEncoding(part);
    const stored = encoding === 'gzip' ? await gzip(part.data) : part.data;
    const digest = new Sha256().update(stored).digest();
    const entry: PartEntry = {
      name: part.name,
      kind: part.kind,
      encoding,
      count: part.count,
      length: stored.length,
      rawLength: part.data.length,
      sha256: toHex(digest),
      ...(part.meta ? { meta: part.meta } : {}),
    };
    const frame = frameHeader(TAG_PART, entry);
    entries.push(located ? { ...entry, offset: position + frame.length } : entry);
    yield frame;
    yield stored;
    yield digest;
    position += frame.length + stored.length + digest.length;
  }

  const counts: Record<string, number> = { ...(base.counts ?? {}) };
  for (const e of entries) counts[e.name] = e.count;
  const manifest: BundleManifest = { ...head, counts, parts: entries };
  yield frameHeader(TAG_MANIFEST, manifest);
  if (located) yield locator(position);
  yield encoder.encode(TAG_END);
}

/** Adapts the writer to a web ReadableStream (for a download Blob/Response or a worker transfer). */
export function bundleStream(chunks: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** Collects a whole bundle into one buffer (tests and small bundles only). */
export async function bundleBytes(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const list: Uint8Array[] = [];
  for await (const c of chunks) list.push(c);
  return concatBytes(list);
}
