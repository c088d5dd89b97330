// Opens a version 3 bundle's pages by ranges: the preamble, the locator in the last 12 bytes, the manifest it points
// at, the block hashes, then the pages' `open` section. A few small reads, whatever the bundle's size; nothing else
// is read until a question asks (library.ts).
import {
  BundleError,
  MAGIC,
  MAX_HEADER_BYTES,
  TAG_END,
  TAG_MANIFEST,
  type BundleManifest,
  type PartEntry,
} from '../bundle/index.ts';
import { Sha256, toHex } from '../bundle/index.ts';
import type { TermAnalyzer } from '../graph/index.ts';
import { PAGES_HASHES_PART, PAGES_PART } from './format.ts';
import { readLayerTables, type LayerTables } from './layerTables.ts';
import { PagedLibrary, type QueryParams } from './library.ts';
import type { RangeSource } from './rangeSource.ts';

const decoder = new TextDecoder();

export interface PagedBundle {
  manifest: BundleManifest;
  library: PagedLibrary;
  /** Where its bytes are read (another part read by ranges: themes.json). */
  source: RangeSource;
  /** The named layer tables (the KG's), each read whole by ranges and checked (layerTables.ts). */
  layerTables(names: readonly string[]): Promise<LayerTables>;
}

/**
 * The manifest of a version 3 bundle, read by ranges and checked by its digest; undefined for an older bundle (it has
 * no locator: it is read whole).
 */
export async function readManifestByRanges(source: RangeSource): Promise<BundleManifest | undefined> {
  const fail = (
    kind: 'not-a-bundle' | 'unknown-version' | 'corrupted' | 'invalid-content',
    why: string,
  ): never => {
    throw new BundleError(kind, why);
  };
  if (source.size < 12 + 12 + 12) fail('not-a-bundle', 'not a ConceptRAG bundle (too short)');
  // The preamble and the locator in the last 12 bytes at once (one round trip, not two: over HTTP the preamble is the
  // probe's, already here); the locator's read fails the opening only once the preamble is found a bundle's.
  const tailRead = source.read(source.size - 12, 12);
  tailRead.catch(() => undefined);
  const pre = await source.read(0, 12);
  if (!MAGIC.every((b, i) => pre[i] === b))
    fail('not-a-bundle', 'not a ConceptRAG bundle (it does not start with "CRAGBNDL")');
  const version = new DataView(pre.buffer, pre.byteOffset, 12).getUint32(8, true);
  if (version < 3)
    fail(
      'unknown-version',
      `bundle version ${version} cannot be read by ranges (version 3 can: rebuild it with cli index)`,
    );
  if (version > 3) fail('unknown-version', `unknown bundle version ${version} (this app reads 1, 2, 3)`);
  const tail = await tailRead;
  if (decoder.decode(tail.subarray(8)) !== TAG_END)
    fail('corrupted', 'corrupted (no end marker: the file is truncated or damaged)');
  const tv = new DataView(tail.buffer, tail.byteOffset, 12);
  const at = tv.getUint32(0, true) + tv.getUint32(4, true) * 2 ** 32;
  if (at < 12 || at + 12 > source.size - 12)
    fail('corrupted', 'corrupted (the manifest locator points outside the file)');
  // A bundle's writer puts the manifest (its 12-byte frame header, the JSON, its SHA-256) right before the locator:
  // read as one range from the locator's offset to the locator, it costs one round trip instead of two (the header's
  // 12 bytes, then the rest). A span that cannot be a manifest's frame is read as before, header first.
  const span = source.size - 12 - at;
  const whole =
    span >= 12 + 32 && span <= 12 + MAX_HEADER_BYTES + 32 ? await source.read(at, span) : undefined;
  const head = whole ? whole.subarray(0, 12) : await source.read(at, 12);
  const hv = new DataView(head.buffer, head.byteOffset, 12);
  const length = hv.getUint32(4, true);
  if (decoder.decode(head.subarray(0, 4)) !== TAG_MANIFEST || ~length >>> 0 !== hv.getUint32(8, true))
    fail('corrupted', 'corrupted (the manifest locator does not point at the manifest)');
  if (length > MAX_HEADER_BYTES || at + 12 + length + 32 > source.size - 12)
    fail('corrupted', 'corrupted (the manifest is longer than the file allows)');
  const body = whole ? whole.subarray(12, 12 + length + 32) : await source.read(at + 12, length + 32);
  const json = body.subarray(0, length);
  const digest = new Sha256().update(json).digest();
  if (!digest.every((b, i) => b === body[length + i]))
    fail('corrupted', 'corrupted (SHA-256 mismatch in the manifest)');
  let manifest: BundleManifest | undefined;
  try {
    manifest = JSON.parse(decoder.decode(json)) as BundleManifest;
  } catch {
    return fail('invalid-content', 'the manifest is not valid JSON');
  }
  if (!manifest || !Array.isArray(manifest.parts) || manifest.formatVersion !== version)
    return fail('invalid-content', 'the manifest lacks required fields');
  return manifest;
}

function locatedPart(manifest: BundleManifest, name: string, size: number): PartEntry | undefined {
  const entry = manifest.parts.find((p) => p.name === name);
  if (!entry) return undefined;
  const { offset, length } = entry;
  if (
    !Number.isSafeInteger(offset) ||
    !Number.isSafeInteger(length) ||
    offset! < 0 ||
    offset! + length + 32 > size
  )
    throw new BundleError('corrupted', `corrupted (part ${name} lies outside the file)`, name);
  if (entry.encoding !== 'identity')
    throw new BundleError('invalid-content', `part ${name} must be stored as is to be read by ranges`, name);
  return entry;
}

/**
 * Opens a bundle's library by ranges; undefined when the bundle has no pages (older than version 3, written without
 * `cli index --pages`, or with vectors): then it is opened whole.
 */
export async function openPagedBundle(
  source: RangeSource,
  analyzer: TermAnalyzer,
  params: QueryParams = {},
): Promise<PagedBundle | undefined> {
  const manifest = await readManifestByRanges(source);
  if (!manifest) return undefined;
  const pages = locatedPart(manifest, PAGES_PART, source.size);
  const hashesEntry = locatedPart(manifest, PAGES_HASHES_PART, source.size);
  if (!pages || !hashesEntry) return undefined;
  // A directory with hash pages (format.ts, HashPages) has its block hashes read by pages as the blocks are read:
  // the library checks the directory and its top list before reading any. Else they are read whole, here.
  const byPages = (pages.meta as { hashPages?: unknown } | undefined)?.hashPages !== undefined;
  const hashes = byPages
    ? { offset: hashesEntry.offset!, length: hashesEntry.length }
    : await pagesHashes(source, hashesEntry);
  const library = await PagedLibrary.open(
    source,
    { base: pages.offset!, length: pages.length, directory: pages.meta as never, hashes },
    analyzer,
    params,
  );
  return { manifest, library, source, layerTables: (names) => readLayerTables(source, manifest, names) };
}

/** The pages part's block hashes, read whole and checked against their part's SHA-256. */
export async function pagesHashes(source: RangeSource, entry: PartEntry): Promise<Uint8Array> {
  const hashes = await source.read(entry.offset!, entry.length);
  if (toHex(new Sha256().update(hashes).digest()) !== entry.sha256)
    throw new BundleError(
      'corrupted',
      `corrupted (SHA-256 mismatch in part ${PAGES_HASHES_PART})`,
      PAGES_HASHES_PART,
    );
  return hashes;
}
