// Opens the library's stored pages (src/store/pagesRepo.ts) for the query worker: a large library is answered by
// ranges over the stored Blob (the default mode and bm25, src/services/questions/askPaged.ts) instead of loading
// the corpus into an engine. Only pages of the library as it is now are opened (their stamp is the library's), and
// only for a library without a semantic layer (the pages hold the lexical index).
import { PagedLibrary, type RangeSource } from '../../core/paged/index.ts';
import { createTermAnalyzer } from '../../core/text/index.ts';
import type { ConceptDb } from '../../store/db.ts';
import { PagesRepo } from '../../store/pagesRepo.ts';
import { BlobRangeSource } from './rangeSources.ts';

/**
 * Pages up to this size are also read whole into memory once opened, in the background. Each read of a stored
 * Blob's slice is a round trip to the browser's blob storage, and a question reads in rounds (a walk reaches a new
 * layer of concepts per round): from memory a question waits for none of them. The pages of 100 MiB of text are
 * about 120 MB, a tenth of what the engine would hold for the same library; the first question does not wait for
 * this read.
 */
export const PAGES_IN_MEMORY_MAX_BYTES = 256 * 1024 * 1024;

/** A stored Blob read by slices until its whole bytes have arrived, then from them. */
export class PrefetchedBlobSource implements RangeSource {
  bytesRead = 0;
  private whole: Uint8Array | null = null;
  private readonly slices: BlobRangeSource;
  /** Settles when the whole bytes are in memory (or their read failed: slices go on then). */
  readonly prefetched: Promise<void>;

  constructor(
    blob: Blob,
    readonly name: string,
    prefetch: boolean,
  ) {
    this.slices = new BlobRangeSource(blob, name);
    this.prefetched = prefetch
      ? blob.arrayBuffer().then(
          (buffer) => {
            this.whole = new Uint8Array(buffer);
          },
          () => undefined,
        )
      : Promise.resolve();
  }

  get size(): number {
    return this.slices.size;
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    const whole = this.whole;
    if (!whole) {
      const bytes = await this.slices.read(offset, length);
      this.bytesRead += length;
      return bytes;
    }
    if (offset < 0 || length < 0 || offset + length > whole.length) {
      throw new Error(`${this.name}: ${length} bytes at ${offset} are past its end (${whole.length} bytes)`);
    }
    this.bytesRead += length;
    return whole.subarray(offset, offset + length);
  }
}

/** The pages a question reads, with what they index. */
export interface StoredPages {
  library: PagedLibrary;
  stamp: string;
  documents: number;
  chunks: number;
  /** The pages' size in bytes. */
  bytes: number;
  source: PrefetchedBlobSource;
}

/** The stored pages when they index the library as it is now (else undefined: it is loaded into memory). */
export async function openStoredPages(db: ConceptDb): Promise<StoredPages | undefined> {
  const pages = new PagesRepo(db);
  const [record, meta] = await Promise.all([pages.get(), db.meta.get('index')]);
  if (!record || meta?.layers.semantic) return undefined;
  const now = await pages.libraryStamp();
  if (now.stamp !== record.stamp) return undefined;
  const source = new PrefetchedBlobSource(
    record.data,
    "the library's pages",
    record.data.size <= PAGES_IN_MEMORY_MAX_BYTES,
  );
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
    source,
  };
}
