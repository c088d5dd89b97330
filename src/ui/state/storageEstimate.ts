// Before a drop is queued: how much IndexedDB space will it take, and does this browser offer that much here?
// Private windows and small disks give a site far less than the index of a large drop needs; saying so before
// indexing starts beats a queue that stops half-way. The figures are estimates from file sizes alone (nothing is
// read), so the page can answer at once even for a dropped folder of thousands of files.
// formats.ts directly: the one list of file types, without the parsers parse/index.ts brings along.
import { formatOf } from '../../core/parse/formats.ts';
import { formatBytes } from '../format.ts';

/**
 * IndexedDB bytes per byte of document text for the whole index (documents, chunks, sentences, sentence vectors,
 * concept graph). Measured with `npm run bench:drop` (CDP's IndexedDB usage over the stored text) at commit 35e9dac,
 * before the compact store: 112 MB per MB on MuSiQue's 6,761 passages (3.2 MB of text, 24,086 sentences), 78 on
 * the Vue docs (0.8 MB, 17,014 sentences): /work/benchout/before-musique-corpus.json, before-vuedocs-docs.json.
 * 100 is the figure until the compact store (schema v2: int8 vectors, text stored once, the graph as its
 * keep-mask) has its own measurement. Too large an estimate warns too early (the user can index anyway); too small
 * lets the queue hit the quota, which the Library view then reports with Resume.
 */
export const STORED_BYTES_PER_TEXT_BYTE = 100;

/**
 * The same for the lexical layer alone (no sentence vectors): the text once, its chunk and sentence records
 * (offsets into the text) and their indexes. Not measured yet: derived from the stored form of schema v2 — a
 * sentence record of about 150 bytes per sentence of about 120 characters, and twice that again for chunks,
 * sections and IndexedDB's own keys — so about 4 bytes per byte of text.
 */
export const LEXICAL_BYTES_PER_TEXT_BYTE = 4;

/**
 * Bytes of extracted text per byte of file, by format. Plain text, Markdown and JSON Lines are nearly all text;
 * HTML counts whole (its markup is dropped, so this errs towards needing more). PDF and DOCX files are mostly
 * compressed streams, fonts and images, so their text is a fraction of the file. A rough figure, not measured:
 * too low for a short text-only PDF, which then needs little space anyway.
 */
const TEXT_PER_FILE_BYTE: Record<string, number> = {
  'application/pdf': 0.2,
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 0.2,
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
