// Opens the library's stored pages (src/store/pagesRepo.ts) for the query worker: a large library is answered by
// ranges over the stored Blob (the default mode and bm25, src/services/questions/askPaged.ts) instead of loading
// the corpus into an engine. Only pages of the library as it is now are opened (their stamp is the library's), and
// only for a library without a semantic layer (the pages hold the lexical index).
import { MemoryRangeSource, PagedLibrary, type RangeSource } from '../../core/paged/index.ts';
import { createTermAnalyzer } from '../../core/text/index.ts';
import type { ConceptDb } from '../../store/db.ts';
import { PagesRepo } from '../../store/pagesRepo.ts';
import { BlobRangeSource } from './rangeSources.ts';

/**
 * Pages up to this size are read whole into the query worker when they are opened, and questions read them from
 * memory; larger ones by slices of the Blob. In Chromium a 120 MB Blob from IndexedDB reads whole in 0.11–0.16 s,
 * while a slice costs about 0.5 ms (at most ~2,000 a second, all through the browser's blob storage) and a question
 * at 100 MiB reads hundreds of them in 4–5 rounds (docs/results/ranges.md, "Reads in the browser").
 */
const HELD_PAGES_MAX_BYTES = 256 * 1024 * 1024;

/** The pages a question reads, with what they index. */
export interface StoredPages {
  library: PagedLibrary;
  stamp: string;
  documents: number;
  chunks: number;
  /** The pages' size in bytes. */
  bytes: number;
}

/** The stored pages when they index the library as it is now (else undefined: it is loaded into memory). */
export async function openStoredPages(db: ConceptDb): Promise<StoredPages | undefined> {
  const pages = new PagesRepo(db);
  const [record, meta] = await Promise.all([pages.get(), db.meta.get('index')]);
  if (!record || meta?.layers.semantic) return undefined;
  const now = await pages.libraryStamp();
  if (now.stamp !== record.stamp) return undefined;
  const name = "the library's pages";
  const source: RangeSource =
    record.data.size <= HELD_PAGES_MAX_BYTES
      ? new MemoryRangeSource(new Uint8Array(await record.data.arrayBuffer()), name)
      : new BlobRangeSource(record.data, name);
  const library = await PagedLibrary.open(
    source,
    { base: 0, length: record.data.size, directory: record.directory, hashes: record.hashes },
    createTermAnalyzer(),
  );
  return {
    library,
    stamp: record.stamp,
    documents: record.documents,
    chunks: record.chunks,
    bytes: record.data.size,
  };
}
