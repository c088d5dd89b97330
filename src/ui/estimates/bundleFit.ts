// Before a bundle is imported: will this tab hold the library it makes? Importing puts every passage, term and
// vector of the bundle into this browser's library, and the query worker then holds all of it for questions. A
// bundle built by the CLI from a folder no tab could index (memoryEstimate.ts sends such folders there) is just as
// large once imported, so the same model decides here, from the bundle's manifest alone (a few KB read from the
// end of the file, as a library read by ranges opens it), before anything is decoded or stored. A bundle with pages
// (`cli index --pages`) can still answer: read by ranges, it holds only the blocks its questions read.
import { PAGES_PART, readManifestByRanges } from '../../core/paged/index.ts';
import { isPagesOnly, type BundleManifest } from '../../core/bundle/index.ts';
import { BlobRangeSource } from '../../services/bundleBytes/rangeSources.ts';
import { formatBytes } from '../format.ts';
import { atText, HEAP_MODEL, TEXT_BYTES_PER_SENTENCE, type MemoryBudget } from './memoryEstimate.ts';

/** What the manifest says about the library a bundle holds. */
export interface BundleFacts {
  name: string;
  /** Its documents' text (the decoded size of `documents.jsonl`, which holds each document's text once). */
  textBytes: number;
  /** Whether it carries sentence vectors (the semantic layer). */
  vectors: boolean;
  /** Whether it has pages, so that it can be read by ranges (Open bundle read-only…). */
  pages: boolean;
  /** Pages and nothing else (`cli index --stream`): it cannot be imported at all, only read by ranges. */
  pagesOnly: boolean;
}

/** A bundle the tab will likely not hold once imported, as the Library view shows it before the import. */
export interface BundleShortfall {
  facts: BundleFacts;
  /** The query worker's library after the import, and what the tab can use. */
  need: number;
  budget: MemoryBudget;
  message: string;
}

/** The facts of a version 3 bundle manifest; null when they cannot be told (then the import decides alone). */
function bundleFacts(name: string, manifest: BundleManifest): BundleFacts | null {
  const pages = manifest.parts.some((p) => p.name === PAGES_PART);
  if (isPagesOnly(manifest)) return { name, textBytes: 0, vectors: false, pages, pagesOnly: true };
  const documents = manifest.parts.find((p) => p.name === 'documents.jsonl');
  if (!documents || !(documents.rawLength >= 0)) return null;
  return {
    name,
    textBytes: documents.rawLength,
    vectors: manifest.embedder !== null,
    pages,
    pagesOnly: false,
  };
}

/**
 * Reads a bundle file's manifest by ranges (its last bytes): null for a bundle older than version 3 (no locator)
 * or one that does not read; the import then reads and checks it whole, with its own messages.
 */
export async function readBundleFacts(file: File): Promise<BundleFacts | null> {
  try {
    const manifest = await readManifestByRanges(new BlobRangeSource(file, file.name));
    return manifest ? bundleFacts(file.name, manifest) : null;
  } catch {
    return null;
  }
}

/**
 * A bundle of pages only cannot be imported whatever the tab holds: it is offered read-only. Otherwise compares the
 * library after the import with the budget: the query worker's line of the heap model (what holding a
 * library for questions was measured to take, memoryEstimate.ts) at the text already stored plus the bundle's. Null
 * when it fits.
 */
export function checkBundleFit(
  facts: BundleFacts,
  opts: { storedSentences: number; budget: MemoryBudget },
): BundleShortfall | null {
  const { budget } = opts;
  if (facts.pagesOnly) {
    const message =
      `${facts.name} holds only a library read by ranges (built by cli index --stream): it cannot be imported. ` +
      'Opened read-only, each question reads only the parts it needs (the default mode and bm25).';
    return { facts, need: 0, budget, message };
  }
  const libraryText = facts.textBytes + opts.storedSentences * TEXT_BYTES_PER_SENTENCE;
  const line = facts.vectors ? HEAP_MODEL.semantic.query : HEAP_MODEL.lexical.query;
  const need = atText(line, libraryText);
  if (need <= budget.bytes) return null;
  const message =
    `${facts.name} holds about ${formatBytes(facts.textBytes)} of text${facts.vectors ? ' with sentence vectors' : ''}. ` +
    `Imported, your library would need about ${formatBytes(need)} of memory for questions; this tab can use about ` +
    `${formatBytes(budget.bytes)} (${budget.source}), so it would likely run out of memory and reload. ` +
    (facts.pages
      ? 'It has a paged index: opened read-only, it is read by ranges, and each question reads only the parts ' +
        'it needs.'
      : 'It has no paged index to be read by ranges: build it with `npm run cli -- index <folder> --out library.bundle ' +
        '--embedder none --pages` and open that one read-only, or ask it from the command line with ' +
        '`npm run cli -- ask library.bundle "<question>"`.');
  return { facts, need, budget, message };
}

/**
 * A shared index opened whole (?bundle= of a bundle without pages, or from a host that does not answer range
 * requests) replaces this browser's library for the session: the message that stops its download when the library
 * it holds would not fit the tab, or null. Asked by the query worker once the bundle's documents header has
 * arrived (openBundleReadOnly), before their text is read.
 */
export function wholeBundleRefusal(
  name: string,
  library: { textBytes: number; vectors: boolean },
  budget: MemoryBudget,
): string | null {
  const facts: BundleFacts = { name, ...library, pages: false, pagesOnly: false };
  const shortfall = checkBundleFit(facts, { storedSentences: 0, budget });
  if (!shortfall) return null;
  return (
    `${name} holds about ${formatBytes(library.textBytes)} of text${library.vectors ? ' with sentence vectors' : ''} ` +
    `and is read whole here (it has no paged index). Opened, it would ` +
    `need about ${formatBytes(shortfall.need)} of memory for questions; this tab can use about ` +
    `${formatBytes(budget.bytes)} (${budget.source}), so it was not opened. A bundle built with ` +
    '`npm run cli -- index <folder> --out library.bundle --embedder none --pages` is read by ranges instead (or, ' +
    'from a host that sends whole files only, from one download kept out of the tab); or ask it from the command ' +
    'line with ' +
    '`npm run cli -- ask library.bundle "<question>"`.'
  );
}
