// What the page does with picked or dropped files before reading any of them: a file of a type that cannot be
// indexed, or over the size limit, is refused by its name and size alone (a dropped folder of 10,000 photos costs
// no reading at all), with a verdict for each; the accepted ones are then read one at a time, each handed to the
// ingest worker before the next is read, so memory holds one file's bytes, not the whole folder's.
import { isSupportedFile, unsupportedReason } from '../core/parse/index.ts';
import { MAX_FILE_BYTES, type FileOutcome } from '../services/protocol.ts';

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

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

/** Sorts files into accepted and refused (by extension, then size) without reading any of them. */
export function screenFiles(files: readonly PickedFile[]): Screened {
  const accepted: Screened['accepted'] = [];
  const refused: FileOutcome[] = [];
  let unsupported = 0;
  let tooLarge = 0;
  for (const { name, file } of files) {
    if (!file || !isSupportedFile(name)) {
      unsupported += 1;
      refused.push({
        file: name,
        status: 'failed',
        documents: 0,
        reason: `${unsupportedReason(name)}; not read`,
      });
    } else if (file.size > MAX_FILE_BYTES) {
      tooLarge += 1;
      refused.push({
        file: name,
        status: 'failed',
        documents: 0,
        reason: `file too large (${mb(file.size)} MB; the limit is ${MAX_FILE_BYTES / 1024 / 1024} MB); not read`,
      });
    } else {
      accepted.push({ name, file });
    }
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

/** Reads the accepted files one at a time; a file that cannot be read (gone since it was picked) gets a verdict. */
export async function* readOneByOne(
  accepted: Screened['accepted'],
  onUnreadable: (outcome: FileOutcome) => void,
): AsyncGenerator<{ name: string; bytes: ArrayBuffer }> {
  for (const { name, file } of accepted) {
    let bytes: ArrayBuffer;
    try {
      bytes = await file.arrayBuffer();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      onUnreadable({
        file: name,
        status: 'failed',
        documents: 0,
        reason: `could not read the file (${message})`,
      });
      continue;
    }
    yield { name, bytes };
  }
}

/** New verdicts first; an earlier verdict for the same file name is replaced. */
export function withOutcomes(added: FileOutcome[], previous: FileOutcome[]): FileOutcome[] {
  const names = new Set(added.map((o) => o.file));
  return [...added, ...previous.filter((o) => !names.has(o.file))];
}
