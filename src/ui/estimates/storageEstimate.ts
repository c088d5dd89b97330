// Before a drop is queued: how much IndexedDB space will it take, and does this browser offer that much here?
// Private windows and small disks give a site far less than the index of a large drop needs; saying so before
// indexing starts beats a queue that stops half-way. The figures are estimates from file sizes alone (nothing is
// read), so the page can answer at once even for a dropped folder of thousands of files.
// formats.ts directly: the one list of file types, without the parsers parse/index.ts brings along.
import { formatOf } from '../../core/parse/index.ts';
import { formatBytes } from '../format.ts';

/**
 * IndexedDB bytes per byte of document text for the whole index (documents, sections, chunks, sentences, int8
 * sentence vectors, the graph's keep-mask), schema v2, from test/bench/store-size.ts (the records as the store
 * writes them, sized as Chromium stores them): 9.6 on MuSiQue's 6,761 passages (3.3 MB of text), 18.4 on the Vue
 * docs (0.8 MB, shorter sentences, so more records per byte); the larger, rounded up. For schema v1 that bench
 * gave more than bench:drop measured in Chromium itself (docs/results/store.md), so its figures err on the side
 * of needing more. Too large an estimate warns too early (the user can index anyway); too small lets the queue
 * hit the quota, which the Library view then reports with Resume.
 */
export const STORED_BYTES_PER_TEXT_BYTE = 19;

/**
 * The same for the lexical layer alone (no sentence vectors): same bench, every table but the vectors — 5.6 on
 * MuSiQue, 7.8 on the Vue docs; the larger, rounded up.
 */
export const LEXICAL_BYTES_PER_TEXT_BYTE = 8;

/**
 * Bytes of extracted text per byte of file, by format, for the space and the memory estimates (memoryEstimate.ts).
 * Plain text, Markdown and JSON Lines are nearly all text; HTML counts whole (its markup is dropped, so this errs
 * towards more). PDF and DOCX files are mostly compressed streams, fonts and images, so their text is a fraction
 * of the file. test/bench/text-per-byte.ts (the app's own parsers, docs/results/limits.md): 44 PDFs of the
 * Electron docs gave 0.073 in all and 0.155 at most, two text-only PDF manuals 0.25–0.27, a DOCX 0.13; 0.3 is
 * above all of them, so a text-heavy file is not under-counted.
 */
const TEXT_PER_FILE_BYTE: Record<string, number> = {
  'application/pdf': 0.3,
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 0.3,
};

export interface DropEstimate {
  files: number;
  /** The files' own bytes: they wait in the queue (in IndexedDB) until their documents are stored. */
  fileBytes: number;
  /** Text expected from the files. */
  textBytes: number;
  /** Space the whole index of the drop needs, queue included. */
  fullBytes: number;
  /** Space without sentence vectors (lexical layer only), queue included. */
  lexicalBytes: number;
}

/** Estimates the space a drop needs from its files' names and sizes. */
export function estimateDrop(files: readonly { name: string; size: number }[]): DropEstimate {
  let fileBytes = 0;
  let textBytes = 0;
  for (const { name, size } of files) {
    fileBytes += size;
    const mime = formatOf(name)?.mime ?? '';
    textBytes += size * (TEXT_PER_FILE_BYTE[mime] ?? 1);
  }
  return {
    files: files.length,
    fileBytes,
    textBytes,
    fullBytes: Math.round(fileBytes + textBytes * STORED_BYTES_PER_TEXT_BYTE),
    lexicalBytes: Math.round(fileBytes + textBytes * LEXICAL_BYTES_PER_TEXT_BYTE),
  };
}

/** A drop that will not fit, as the Library view shows it before anything is queued. */
export interface SpaceShortfall {
  estimate: DropEstimate;
  /** quota − usage when the drop was checked. */
  available: number;
  /** Whether the lexical layer alone fits. */
  lexicalFits: boolean;
  /** One line for the user: what is needed, what is offered. */
  message: string;
}

/**
 * Compares a drop's estimate with what the browser offers this site. Null when it fits, or when the browser does
 * not say (no StorageManager): then the drop goes on and a full store is reported when it happens.
 */
export function checkSpace(
  estimate: DropEstimate,
  storage: { usage: number; quota: number } | null,
): SpaceShortfall | null {
  if (!storage || storage.quota <= 0) return null;
  const available = Math.max(0, storage.quota - storage.usage);
  if (estimate.fullBytes <= available) return null;
  const lexicalFits = estimate.lexicalBytes <= available;
  const one = estimate.files === 1;
  const files = one ? 'This file' : `These ${estimate.files.toLocaleString('en')} files`;
  const [need, they] = one ? ['needs', 'it'] : ['need', 'they'];
  const message =
    `${files} ${need} about ${formatBytes(estimate.fullBytes)} of storage to index; this browser offers ` +
    `${formatBytes(available)} here (a private window gives less). ` +
    (lexicalFits
      ? `Without sentence vectors (the lexical layer only: answers by words and concepts, no semantic search) ` +
        `${they} ${need} about ${formatBytes(estimate.lexicalBytes)}, which fits.`
      : `Even without sentence vectors ${they} ${need} about ${formatBytes(estimate.lexicalBytes)}.`);
  return { estimate, available, lexicalFits, message };
}

/** What the browser says it offers this site, or null where it does not say. */
export async function browserStorage(): Promise<{ usage: number; quota: number } | null> {
  const storage = (globalThis as { navigator?: { storage?: StorageManager } }).navigator?.storage;
  if (!storage?.estimate) return null;
  try {
    const { usage = 0, quota = 0 } = await storage.estimate();
    return { usage, quota };
  } catch {
    return null;
  }
}
