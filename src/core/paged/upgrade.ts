// Rewrites a version 1 pages part as version 2 (format.ts) without the corpus: everything version 2 holds is in
// version 1 (the degrees, list offsets, df and IDF of its `open` section), and every other section is copied byte for
// byte. The new `open` and `degrees` sections are made by the writers' own openSections, so an upgraded part is the
// one `cli index` writes for the same library today (test/unit/paged/openFormat.test.ts). `cli upgrade` (src/cli/
// upgrade.ts) copies a bundle's other parts around it.
import { decodeStructured, gunzip, Sha256, toHex } from '../bundle/index.ts';
import type { BundleManifest, BundlePart, ManifestBase, PartEntry, StreamedPart } from '../bundle/index.ts';
import { BundleError } from '../bundle/index.ts';
import { gzipSize, PagesError } from './blockStore.ts';
import {
  checkDirectory,
  checkOpen,
  PAGES_HASHES_PART,
  PAGES_PART,
  PAGES_VERSION,
  SECTIONS,
  type PagesDirectory,
  type PagesOpenV1,
  type SectionName,
} from './format.ts';
import { pagesHashes } from './openBundle.ts';
import type { RangeSource } from './rangeSource.ts';
import { BlockHasher, openSections, pagesDirectory, sectionTable } from './write.ts';

/** Bytes read from the source at a time while copying. */
const PIECE = 4 << 20;

interface UpgradedPages {
  directory: PagesDirectory;
  hashes: Uint8Array;
  sha256: Uint8Array;
  length: number;
  /** The part's bytes in order (read again from the source). */
  bytes(): AsyncGenerator<Uint8Array>;
}

/** Pieces of [from, to) of the source, PIECE bytes at a time. */
async function* pieces(source: RangeSource, from: number, to: number): AsyncGenerator<Uint8Array> {
  for (let at = from; at < to; at += PIECE) yield await source.read(at, Math.min(PIECE, to - at));
}

/** Throws, naming the block, unless `hashes` are the expected block hashes. */
function checkHashes(got: Uint8Array, expected: Uint8Array, upTo: number, name: string): void {
  for (let b = 0; b < upTo; b++) {
    for (let i = 0; i < 32; i++) {
      if (got[b * 32 + i] !== expected[b * 32 + i])
        throw new PagesError(`${name}: corrupted (SHA-256 mismatch in block ${b} of part ${PAGES_PART})`);
    }
  }
}

/**
 * A version 1 pages part (its payload at `base` in `source`, `length` bytes, its directory and block hashes) as
 * version 2. Reads the part twice: once to check every block against its hash while hashing the new part, once
 * when `bytes()` is read.
 */
async function upgradePages(
  source: RangeSource,
  location: { base: number; length: number; directory: unknown; hashes: Uint8Array },
): Promise<UpgradedPages> {
  const d = checkDirectory(location.directory, location.length);
  if (d.version !== 1)
    throw new PagesError(`${source.name}: its pages are version ${d.version} already (nothing to upgrade)`);
  const { base, length, hashes } = location;
  const blockSize = d.blockSize;
  const blocks = Math.ceil(length / blockSize);
  if (hashes.length !== blocks * 32)
    throw new PagesError(
      `${source.name}: ${PAGES_HASHES_PART} holds ${hashes.length / 32} hashes for ${blocks} blocks`,
    );

  // The `open` section, checked block by block before it is decoded.
  const [openAt, openLength] = d.sections.open;
  const openBlocks = Math.ceil((openAt + openLength) / blockSize);
  const head = await source.read(base, Math.min(length, openBlocks * blockSize));
  const headHasher = new BlockHasher(blockSize);
  headHasher.update(head);
  checkHashes(headHasher.finish(), hashes, openBlocks, source.name);
  const stored = head.subarray(openAt, openAt + openLength);
  const full = decodeStructured<PagesOpenV1>(await gunzip(stored, gzipSize(stored)), 'pages.bin (open)');
  // Checked as a library's open checks it: every count against its bytes, the IDF and degrees finite and ≥ 0, the
  // offsets byte offsets (a negative IDF looped in idfDfOf, a list offset of Infinity in a varint).
  checkOpen(source.name, d, full);
  const written = await openSections(full, d.chunkCount);

  const copied = SECTIONS.filter((name) => name !== 'open' && name !== 'degrees');
  const copyFrom = d.sections[copied[0]][0];
  const lengths = Object.fromEntries(SECTIONS.map((name) => [name, d.sections[name][1]])) as Record<
    SectionName,
    number
  >;
  lengths.open = written.open.length;
  lengths.degrees = written.degrees.length;
  const { sections, total } = sectionTable(lengths);

  const bytes = async function* (): AsyncGenerator<Uint8Array> {
    yield written.open;
    yield* pieces(source, base + copyFrom, base + length);
    yield written.degrees;
  };
  // One pass over the old part: its blocks checked, the new part's blocks and whole hashed.
  const oldBlocks = new BlockHasher(blockSize);
  const newBlocks = new BlockHasher(blockSize);
  const whole = new Sha256();
  const add = (piece: Uint8Array): void => {
    newBlocks.update(piece);
    whole.update(piece);
  };
  add(written.open);
  oldBlocks.update(head);
  for await (const piece of pieces(source, base + head.length, base + length)) oldBlocks.update(piece);
  checkHashes(oldBlocks.finish(), hashes, blocks, source.name);
  for await (const piece of pieces(source, base + copyFrom, base + length)) add(piece);
  add(written.degrees);
  return {
    directory: pagesDirectory({
      blockSize,
      chunkCount: d.chunkCount,
      conceptCount: d.conceptCount,
      termCount: d.termCount,
      headingCopies: d.headingCopies,
      thetaCo: d.thetaCo,
      analyzer: d.analyzer,
      sections,
    }),
    hashes: newBlocks.finish(),
    sha256: whole.digest(),
    length: total,
    bytes,
  };
}

/**
 * A version 3 bundle's parts with its pages upgraded to version 2: every other part copied as stored (checked
 * against its SHA-256 as it is copied), and the manifest's head (creation time, parameters, counts) kept.
 */
export async function upgradeBundleParts(
  source: RangeSource,
  manifest: BundleManifest,
): Promise<{ parts: Array<BundlePart | StreamedPart>; base: ManifestBase; from: number; to: number }> {
  const pagesEntry = manifest.parts.find((p) => p.name === PAGES_PART);
  const hashesEntry = manifest.parts.find((p) => p.name === PAGES_HASHES_PART);
  if (!pagesEntry || !hashesEntry || pagesEntry.offset === undefined || hashesEntry.offset === undefined)
    throw new BundleError('invalid-content', `${source.name} has no ${PAGES_PART} to upgrade`);
  const hashes = await pagesHashes(source, hashesEntry);
  checkDisjointParts(source.name, manifest.parts, source.size);
  const from = (pagesEntry.meta as { version?: number } | undefined)?.version ?? 0;
  const pages = await upgradePages(source, {
    base: pagesEntry.offset,
    length: pagesEntry.length,
    directory: pagesEntry.meta,
    hashes,
  });
  const parts = manifest.parts.map((entry): BundlePart | StreamedPart => {
    if (entry.name === PAGES_PART)
      return {
        name: PAGES_PART,
        kind: 'binary',
        count: entry.count,
        length: pages.length,
        sha256: pages.sha256,
        meta: pages.directory as unknown as Record<string, unknown>,
        chunks: pages.bytes,
      };
    if (entry.name === PAGES_HASHES_PART)
      return {
        name: PAGES_HASHES_PART,
        kind: 'binary',
        encoding: 'identity',
        count: pages.hashes.length / 32,
        data: pages.hashes,
      };
    const at = entry.offset;
    if (at === undefined)
      throw new BundleError(
        'invalid-content',
        `${source.name}: part ${entry.name} has no offset`,
        entry.name,
      );
    return {
      name: entry.name,
      kind: entry.kind,
      count: entry.count,
      length: entry.length,
      sha256: fromHex(entry.sha256),
      encoding: entry.encoding,
      rawLength: entry.rawLength,
      ...(entry.meta ? { meta: entry.meta } : {}),
      chunks: async function* () {
        const digest = new Sha256();
        for await (const piece of pieces(source, at, at + entry.length)) {
          digest.update(piece);
          yield piece;
        }
        if (toHex(digest.digest()) !== entry.sha256)
          throw new BundleError(
            'corrupted',
            `corrupted (SHA-256 mismatch in part ${entry.name})`,
            entry.name,
          );
      },
    };
  });
  // The part counts are the writer's to add (the pages' hash count changes with the part's length).
  const counts = { ...manifest.counts };
  for (const entry of manifest.parts) delete counts[entry.name];
  return {
    parts,
    base: {
      appVersion: manifest.appVersion,
      createdAt: manifest.createdAt,
      embedder: manifest.embedder,
      params: manifest.params,
      counts,
    },
    from,
    to: PAGES_VERSION,
  };
}

/**
 * Each part once, in bytes of its own inside the file: a manifest whose entries share bytes (under other names)
 * would have each written out again (1.14 MB in, 301 MB out), so it is refused before anything is written.
 */
function checkDisjointParts(name: string, entries: readonly PartEntry[], size: number): void {
  const names = new Set<string>();
  const spans: Array<[number, number, string]> = [];
  for (const e of entries) {
    if (names.has(e.name))
      throw new BundleError('corrupted', `${name}: part ${e.name} is listed twice`, e.name);
    names.add(e.name);
    const at = e.offset;
    if (
      !Number.isSafeInteger(at) ||
      !Number.isSafeInteger(e.length) ||
      at! < 0 ||
      e.length < 0 ||
      at! + e.length > size
    )
      throw new BundleError('corrupted', `${name}: corrupted (part ${e.name} lies outside the file)`, e.name);
    spans.push([at!, at! + e.length, e.name]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < spans.length; i++) {
    const [start, , later] = spans[i];
    const [, end, earlier] = spans[i - 1];
    if (start < end)
      throw new BundleError(
        'corrupted',
        `${name}: parts ${earlier} and ${later} share bytes (each part has bytes of its own)`,
        later,
      );
  }
}

function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
