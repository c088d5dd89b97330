// Opens the library's stored pages (src/store/pagesRepo.ts) for the query worker: a large library is answered by
// ranges over the stored Blob (the default mode and bm25, src/services/questions/askPaged.ts) instead of loading
// the corpus into an engine. Only pages of the library as it is now are opened (their stamp is the library's), and
// only for a library without a semantic layer (the pages hold the lexical index).
import { PagedLibrary } from '../../core/paged/index.ts';
import { createTermAnalyzer } from '../../core/text/index.ts';
import type { ConceptDb } from '../../store/db.ts';
import { PagesRepo } from '../../store/pagesRepo.ts';
import { BlobRangeSource } from './rangeSources.ts';

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
  const library = await PagedLibrary.open(
    new BlobRangeSource(record.data, "the library's pages"),
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
