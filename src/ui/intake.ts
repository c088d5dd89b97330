// What the page does with picked or dropped files before reading any of them: a file of a type that cannot be
// indexed, or over the size limit, is refused by its name and size alone (a dropped folder of 10,000 photos costs
// no reading at all), with a verdict for each; the accepted ones are then read in large groups, each group's
// bytes stored in one transaction (src/store/intakeStore.ts), so memory holds one group's bytes at a time.
import { isSupportedFile, tooLargeReason, unsupportedReason } from '../core/parse/index.ts';
import { MAX_FILE_BYTES, type FileOutcome } from '../services/ingest/ingestProtocol.ts';
import { messageOf } from '../core/errors.ts';

/** A picked file: `file` is null for an entry the folder walk already knew to be of an unsupported type. */
export interface PickedFile {
  name: string;
  file: Pick<File, 'size' | 'arrayBuffer'> | null;
}

export interface Screened {
  accepted: { name: string; file: Pick<File, 'size' | 'arrayBuffer'> }[];
  refused: FileOutcome[];
  /** One line for the user when files were refused ("Not read: 9,990 files …"), else null. */
  summary: string | null;
}

/** Sorts files into accepted and refused (by extension, then size) without reading any of them. */
export function screenFiles(files: readonly PickedFile[]): Screened {
  const accepted: Screened['accepted'] = [];
  const refused: FileOutcome[] = [];
  let unsupported = 0;
  let tooLarge = 0;
  for (const { name, file } of files) {
    const unknown = !file || !isSupportedFile(name);
    if (!unknown && file.size <= MAX_FILE_BYTES) {
      accepted.push({ name, file });
      continue;
    }
    if (unknown) unsupported += 1;
    else tooLarge += 1;
    const reason = unknown ? unsupportedReason(name) : tooLargeReason(file.size);
    refused.push({ file: name, status: 'failed', documents: 0, reason: `${reason}; not read` });
  }
  const parts = [
    unsupported > 0 ? `${unsupported.toLocaleString('en')} of an unsupported type` : '',
    tooLarge > 0 ? `${tooLarge.toLocaleString('en')} over ${MAX_FILE_BYTES / 1024 / 1024} MB` : '',
  ].filter(Boolean);
  const summary =
    refused.length > 0
      ? `Not read: ${refused.length.toLocaleString('en')} of ${files.length.toLocaleString('en')} files (${parts.join(', ')}).`
      : null;
  return { accepted, refused, summary };
}

/**
 * A drop's bytes go to the store in a few large transactions (src/store/intakeStore.ts), so the whole drop is
 * kept within seconds of the drop even if the page is closed right after: a group holds up to this many bytes
 * and files (a 20 MB file, the largest accepted, makes a group of its own).
 */
const RECORD_GROUP_BYTES = 16 * 1024 * 1024;
const RECORD_GROUP_FILES = 1000;

/** The next group of files to read and store, in order: at least one file, then up to the limits. */
export function nextGroup<T extends { file: Pick<File, 'size'> }>(
  files: Iterable<T>,
  maxBytes = RECORD_GROUP_BYTES,
  maxFiles = RECORD_GROUP_FILES,
): T[] {
  const group: T[] = [];
  let bytes = 0;
  for (const f of files) {
    if (group.length > 0 && (group.length >= maxFiles || bytes + f.file.size > maxBytes)) break;
    group.push(f);
    bytes += f.file.size;
  }
  return group;
}

/**
 * Reads a group's files (all at once: the browser reads them from disk in parallel); a file that cannot be read
 * (gone since it was picked) gets the reason instead of bytes.
 */
export async function readGroup<T extends { file: Pick<File, 'arrayBuffer'> }>(
  group: readonly T[],
): Promise<Array<{ item: T; bytes: ArrayBuffer } | { item: T; reason: string }>> {
  return Promise.all(
    group.map(async (item) => {
      try {
        return { item, bytes: await item.file.arrayBuffer() };
      } catch (error) {
        const message = messageOf(error);
        return { item, reason: `could not read the file (${message})` };
      }
    }),
  );
}

/** New verdicts first; an earlier verdict for the same file name is replaced. */
export function withOutcomes(added: FileOutcome[], previous: FileOutcome[]): FileOutcome[] {
  const names = new Set(added.map((o) => o.file));
  return [...added, ...previous.filter((o) => !names.has(o.file))];
}

/**
 * The Files list after a removal: `removed` counts the documents removed from each source file. A file whose
 * listed documents are all gone reads "removed" (it said "indexed" while its documents were no longer there); one
 * that keeps some lists how many are left.
 */
export function removedOutcomes(
  outcomes: FileOutcome[],
  removed: ReadonlyMap<string, number>,
): FileOutcome[] {
  return outcomes.map((o) => {
    const gone = removed.get(o.file) ?? 0;
    if (gone === 0 || o.status !== 'indexed') return o;
    const left = o.documents - gone;
    return left > 0
      ? { ...o, documents: left }
      : { file: o.file, status: 'removed', documents: 0, reason: 'removed from the library' };
  });
}

/**
 * The Library view lists at most this many indexed files, the newest first; every failed or duplicate file stays
 * listed. A 20,000-file drop re-copied and re-rendered a list of every file at each file's verdict: work on the
 * page's thread that grew with the drop and took a core from indexing. The drop's progress counts every file.
 */
export const INDEXED_OUTCOMES_SHOWN = 500;

/** The outcomes to list (newest first, at most `indexedShown` indexed ones) and how many indexed ones were left out. */
export function boundedOutcomes(
  outcomes: FileOutcome[],
  indexedShown = INDEXED_OUTCOMES_SHOWN,
): { outcomes: FileOutcome[]; hidden: number } {
  let indexed = 0;
  let hidden = 0;
  const kept = outcomes.filter((o) => {
    if (o.status !== 'indexed' || ++indexed <= indexedShown) return true;
    hidden += 1;
    return false;
  });
  return { outcomes: hidden > 0 ? kept : outcomes, hidden };
}
