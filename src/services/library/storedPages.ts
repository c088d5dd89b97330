// Opens the library's stored pages (src/store/pagesRepo.ts) for the query worker: a large library is answered by
// ranges over the stored Blob (its paged index, src/services/source/pagedSource.ts) instead of loading
// the corpus into an engine, and only for a library without a semantic layer (the pages hold the lexical index).
// Pages of the library as it is now are current; pages of an earlier state of a large library (a drop goes on, and
// refreshes them every few minutes; large also when the drop's queue projects it past the threshold) are opened too,
// as lagging: they hold a part of the library (documents removed since are noted beside them and left out of the
// answers), and loading the library into memory
// instead is what a large library must not do (2.4 GB of heap at 100 MiB, docs/results/tab-pages.md).
import {
  MemoryRangeSource,
  PagedLibrary,
  type PagesLocation,
  type PagesSourceInput,
} from '../../core/paged/index.ts';
import { createTermAnalyzer } from '../../core/text/index.ts';
import type { ConceptDb } from '../../store/db.ts';
import type { PagesRecord } from '../../store/records.ts';
import { PagesRepo } from '../../store/pagesRepo.ts';
import { pagesLibrary, pagesMinChunks } from './pagesThreshold.ts';
import { BlobRangeSource } from '../bundleBytes/rangeSources.ts';

/**
 * Pages up to this size are read whole into the query worker once they are opened (questions meanwhile read slices),
 * and questions then read them from memory in one run each (no rounds of reads); larger ones stay read by slices.
 * Read whole first, the 120 MB of a 100 MiB library took 3.5 s after a browser restart before the first question
 * could start (docs/results/ranges.md, "Reopening"). In Chromium a 120 MB Blob from IndexedDB reads whole in 0.11–0.16 s,
 * while a slice costs about 0.5 ms (at most ~2,000 a second, all through the browser's blob storage) and a question
 * at 100 MiB reads hundreds of them in 4–5 rounds (docs/results/ranges.md, "Reads in the browser").
 */
const HELD_PAGES_MAX_BYTES = 256 * 1024 * 1024;

/**
 * The pages a question reads, with what they index, as their record says (`builtAt` and the stamp name one write: an
 * open is reused while they are the stored ones).
 */
export interface StoredPages extends Pick<
  PagesRecord,
  'stamp' | 'builtAt' | 'documents' | 'chunks' | 'themes'
> {
  /** By slices of the Blob at first; pages up to HELD_PAGES_MAX_BYTES are swapped for the same pages held whole. */
  library: PagedLibrary;
  /**
   * Documents removed since the pages were written: their evidence is left out of every answer until the next pages
   * are written (a large library keeps answering from its pages after a removal, not by words for minutes).
   */
  removed: ReadonlySet<string>;
  /**
   * Starts reading the pages whole, to be held (once; a no-op for pages too large to hold). Resolves when `library`
   * is the held one, or stays read by slices after a failed read.
   */
  hold?: () => Promise<void>;
}

/**
 * A large library whose pages are not written yet: it is not loaded into memory meanwhile, and a question is scored
 * by words over its stored documents, read a batch at a time (src/services/source/wordsSource.ts).
 */
export interface PagesAwaited {
  awaiting: true;
  chunks: number;
  /** The stored documents in id order, `perRead` a transaction (PagesRepo.documentBatches). */
  documentBatches(perRead?: number, options?: { sentences?: boolean }): AsyncIterable<PagesSourceInput[]>;
  /** Some documents with their sections, chunks and sentences (PagesRepo.documentsOf). */
  documentsOf(docIds: readonly string[]): Promise<PagesSourceInput[]>;
}

/**
 * The stored pages when they index the library as it is now, or an earlier state of it if it is large; `awaiting`
 * when the library is large and has none yet; undefined when it is loaded into memory (a small library, or one with
 * sentence vectors). `reuse`: the pages opened before, returned again when they are still the stored ones (a drop
 * changes the library every few seconds; opening reads the pages' `open` section).
 */
export async function openStoredPages(
  db: ConceptDb,
  reuse?: StoredPages,
  /** Notes when each step ended (the query service's pagesTimings, for the benches). */
  mark: (step: string) => void = () => undefined,
): Promise<StoredPages | PagesAwaited | undefined> {
  const pages = new PagesRepo(db);
  // Asked again at every question of a library in memory: three small records read at once, one round of reads (the
  // chunks are the index record's tally, not a count: pagesThreshold.ts).
  const [record, meta, min, noted] = await Promise.all([
    pages.get(),
    db.meta.get('index'),
    pagesMinChunks(db),
    pages.removed(),
  ]);
  const removed = new Set(record && noted?.builtAt === record.builtAt ? noted.docIds : []);
  mark('recordRead');
  if (meta?.layers.semantic) return undefined;
  const large = await pagesLibrary(db, { meta, min });
  mark('ruleRead');
  if (!record) {
    // Large by its projection only: its first pages come at the drop's first refresh, before it has stored half
    // the threshold's chunks (IngestPipeline), and meanwhile it is small enough to be loaded, so no question of the
    // drop is refused.
    return large.pages && !large.projected
      ? {
          awaiting: true,
          chunks: large.chunks,
          documentBatches: (perRead, options) => pages.documentBatches(perRead, options),
          documentsOf: (docIds) => pages.documentsOf(docIds),
        }
      : undefined;
  }
  // Pages of a library no longer large (the threshold setting raised, or a drop projected large that ended small:
  // cancelled, perhaps just after its first pages, or its files failed): the library is loaded instead, with every
  // mode.
  if (!large.pages) return undefined;
  const analyzer = createTermAnalyzer();
  const fresh =
    reuse && reuse.stamp === record.stamp && reuse.builtAt === record.builtAt ? undefined : record;
  const opening = fresh
    ? PagedLibrary.open(new BlobRangeSource(fresh.data, NAME), location(fresh), analyzer)
    : null;
  opening?.catch(() => undefined);
  void opening?.then(() => mark('pagesOpened'));
  if (!opening) return Object.assign(reuse!, { removed });
  const opened: StoredPages = {
    library: await opening,
    stamp: record.stamp,
    builtAt: record.builtAt,
    documents: record.documents,
    chunks: record.chunks,
    removed,
    ...(record.themes ? { themes: record.themes } : {}),
  };
  // Questions go by slices of the Blob until the pages are held whole, then in one run each from memory. The whole
  // read waits for the first question to be answered: read beside it, it held the question's slices back.
  if (record.data.size <= HELD_PAGES_MAX_BYTES) {
    let holding: Promise<void> | undefined;
    opened.hold = () =>
      (holding ??= record.data
        .arrayBuffer()
        .then((buffer) => {
          const held = new Uint8Array(buffer);
          return PagedLibrary.open(
            new MemoryRangeSource(held, NAME),
            { ...location(record), held },
            analyzer,
          );
        })
        .then(
          (library) => {
            opened.library = library;
          },
          () => undefined, // a failed read leaves the pages read by slices, which answer the same
        ));
  }
  return opened;
}

const NAME = "the library's pages";

/** Where a stored record's pages are: the whole Blob, with the directory and block hashes stored beside it. */
function location(record: PagesRecord): PagesLocation {
  return { base: 0, length: record.data.size, directory: record.directory, hashes: record.hashes };
}
