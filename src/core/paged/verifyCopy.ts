// Every byte of a bundle read by ranges checked at once, by the digest chain a question follows piecemeal: the
// manifest by its SHA-256, each part it lists by the SHA-256 it gives, and the pages part block by block against the
// hashes in `pages.sha256`. For a copy kept for offline use (src/services/library/keptBundles.ts): a question checks
// only the blocks it reads, so a copy with one damaged byte elsewhere opened, was preferred over its host, and then
// failed some later question with no way back to the host. Checked when the keep completes and when the copy is
// opened, a damaged copy is refused here, naming the part, and the host is read instead.
import { BundleError, decodeStructured, gunzip, Sha256, toHex, type PartEntry } from '../bundle/index.ts';
import { gzipSize } from './blockStore.ts';
import { expandOpen, residualsOf } from './compactOpen.ts';
import { messageOf } from '../errors.ts';
import { hashPagesOf, hashTreeOf } from './write.ts';
import { blockDigests, matchesBlockHash } from './blockDigest.ts';
import { pathOf } from './blockPaths.ts';
import {
  checkDirectory,
  checkOpen,
  placeEvidenceBlocks,
  placeRowBlocks,
  hashBytesOf,
  blockLayoutOf,
  hashesPartLength,
  PAGES_HASHES_PART,
  PAGES_PART,
  type PagesDirectory,
  type PagesOpenV6,
} from './format.ts';
import { readManifestByRanges } from './openBundle.ts';
import type { RangeSource } from './rangeSource.ts';

/** Bytes read at a time: a gigabyte copy is checked holding no more than this. */
const STEP_BYTES = 8 * 1024 * 1024;

const corrupted = (why: string, part?: string): never => {
  throw new BundleError('corrupted', `corrupted (${why})`, part);
};

/** Where a part's stored bytes lie, checked against the file. */
function located(entry: PartEntry, size: number): { offset: number; length: number } {
  const { offset, length } = entry;
  if (
    !Number.isSafeInteger(offset) ||
    !Number.isSafeInteger(length) ||
    offset! < 0 ||
    length < 0 ||
    offset! + length > size
  )
    corrupted(`part ${String(entry.name)} lies outside the file`, entry.name);
  return { offset: offset!, length };
}

/** A part's stored bytes against its SHA-256, read a step at a time. */
async function checkPart(source: RangeSource, entry: PartEntry): Promise<void> {
  const { offset, length } = located(entry, source.size);
  let hex: string;
  if (length <= STEP_BYTES) {
    // One step: the platform's digest (WebCrypto where there is one), not the pure-TypeScript one.
    hex = toHex((await blockDigests([await source.read(offset, length)]))[0]);
  } else {
    const hash = new Sha256();
    for (let at = 0; at < length; at += STEP_BYTES)
      hash.update(await source.read(offset + at, Math.min(STEP_BYTES, length - at)));
    hex = toHex(hash.digest());
  }
  if (hex !== entry.sha256) corrupted(`SHA-256 mismatch in part ${entry.name}`, entry.name);
}

/** The pages part, block by block, against the block hashes (themselves checked as a part). */
async function checkPages(source: RangeSource, pages: PartEntry, hashesEntry: PartEntry): Promise<void> {
  const { offset, length } = located(pages, source.size);
  const at = located(hashesEntry, source.size);
  // The directory as a library's open checks it (a block size, a hash length of 16 or 32) before a hash is read.
  let directory: PagesDirectory;
  try {
    directory = checkDirectory(pages.meta, length);
  } catch (e) {
    return corrupted(messageOf(e), PAGES_PART);
  }
  // From version 8 a section may have blocks of its own size (blockLayout.ts): blocks are counted zone by zone.
  const layout = blockLayoutOf(directory, length);
  const hashBytes = hashBytesOf(directory);
  const blocks = layout.count;
  const expected = hashesPartLength(directory, length);
  if (at.length !== expected)
    corrupted(
      `${PAGES_HASHES_PART} has ${at.length} bytes, expected ` +
        (expected > blocks * hashBytes
          ? `${expected} (${blocks} blocks × ${hashBytes} bytes and the levels of hash pages above them)`
          : `${blocks} blocks × ${hashBytes} bytes`),
      PAGES_HASHES_PART,
    );
  const part = await source.read(at.offset, at.length);
  const hashes = part.subarray(0, blocks * hashBytes);
  // Hash pages (format.ts, HashPages): a reader by ranges checks each page against the directory's top list (from
  // version 7 through the levels of pages above it), so the copy's levels and top list must be those its block hashes
  // give, or a question would refuse a page this check passed.
  const hp = directory.hashPages;
  // Version 13's leaf pages are hashed as the roots of their block hashes (blockPaths.ts).
  const tree =
    hp?.levels?.length || directory.blockPaths
      ? hashTreeOf(hashes, hp?.levels ?? [], hp?.size, directory.blockPaths !== undefined)
      : undefined;
  if (
    hp &&
    (tree
      ? tree.hashPages.top !== hp.top || !tree.bytes.every((x, i) => x === part[i])
      : hashPagesOf(hashes, hp.size).top !== hp.top)
  )
    corrupted(
      `a page of ${PAGES_HASHES_PART} does not match its SHA-256 in the directory`,
      PAGES_HASHES_PART,
    );
  // Runs of whole blocks of at most STEP_BYTES (one block at least, whatever its size).
  const check = async (start: number, end: number): Promise<void> => {
    for (let first = start, last = start; first < end; first = last) {
      // As stored: version 13's paths after their blocks (blockLayout.ts storedStartOf).
      const from = layout.storedStartOf(first);
      last = first + 1;
      while (last < end && layout.storedEndOf(last) - from <= STEP_BYTES) last++;
      const run = await source.read(offset + from, layout.storedEndOf(last - 1) - from);
      const parts: Uint8Array[] = [];
      for (let b = first; b < last; b++) {
        const at = layout.storedStartOf(b) - from;
        parts.push(run.subarray(at, at + layout.endOf(b) - layout.startOf(b)));
      }
      const digests = await blockDigests(parts);
      digests.forEach((digest, i) => {
        const b = first + i;
        if (!matchesBlockHash(digest, hashes, b, hashBytes))
          corrupted(`block ${b} of part ${PAGES_PART} does not match its SHA-256`, PAGES_PART);
        // A path is what the block hashes give, or a reader by ranges would refuse the block this check passed.
        const path = layout.pathBytesOf(b);
        if (path === 0) return;
        const at = layout.storedEndOf(b) - path - from;
        const expected = pathOf(hashes, b);
        if (!expected.every((x, j) => run[at + j] === x))
          corrupted(
            `the path of block ${b} of part ${PAGES_PART} does not match its block hashes`,
            PAGES_PART,
          );
      });
    }
  };
  // Version 10's blocks of whole rows start where `open`'s row groups say (version 16: its row blocks' index,
  // rowBlockIndex.ts; format.ts, placeRowBlocks): `open`'s
  // blocks (the part's first) are checked, then it is decoded and checked as a library's open checks it.
  let checked = 0;
  const [openAt, openLength] = directory.sections.open;
  if ((directory.rowBlocks || directory.evidenceArrays) && openLength > 0) {
    checked = layout.blockOf(openAt + openLength - 1) + 1;
    await check(0, checked);
    try {
      const bytes = await source.read(offset + openAt, openLength);
      const open = expandOpen(
        decodeStructured<PagesOpenV6>(await gunzip(bytes, gzipSize(bytes)), 'pages.bin (open)'),
        directory.version,
        directory.chunkCount,
        directory.listsInRows === true,
        residualsOf(directory),
      );
      checkOpen(PAGES_PART, directory, open);
      placeRowBlocks(PAGES_PART, directory, layout, open.rowGroups);
      // Version 12's evidence blocks, where `open` says (before round twenty-two they were never placed here, and a
      // part with them could not be checked offline).
      placeEvidenceBlocks(directory, layout, open.evidenceStarts);
    } catch (e) {
      corrupted(messageOf(e), PAGES_PART);
    }
  }
  await check(checked, blocks);
}

/**
 * Checks every part of a version 3 bundle read from `source` by its digest chain; throws a BundleError naming the
 * part that fails. Reads the whole file once, a few megabytes at a time.
 */
export async function verifyBundleCopy(source: RangeSource): Promise<void> {
  const manifest = await readManifestByRanges(source);
  if (!manifest) return corrupted('no manifest');
  const names = new Set<string>();
  for (const entry of manifest.parts) {
    if (typeof entry?.name !== 'string' || names.has(entry.name))
      corrupted('the manifest lists a part twice or without a name');
    names.add(entry.name);
  }
  const pages = manifest.parts.find((p) => p.name === PAGES_PART);
  const hashes = manifest.parts.find((p) => p.name === PAGES_HASHES_PART);
  for (const entry of manifest.parts) if (entry !== pages) await checkPart(source, entry);
  if (pages) {
    if (!hashes) corrupted(`part ${PAGES_PART} has no ${PAGES_HASHES_PART}`, PAGES_PART);
    await checkPages(source, pages, hashes!);
  }
}
