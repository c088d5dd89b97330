// Writes a large library's pages (src/core/paged) into the store at the end of a drain, so that the query worker
// answers the default mode and bm25 by ranges over them after a reload instead of loading the whole corpus (9.9 s and
// half a gigabyte at 10 MiB of text, docs/results/tab-scale.md). IndexedDB is the spool: the documents are read in id
// order a few at a time, twice (src/store/pagesRepo.ts), and the pages are built by the same code as
// `cli index --stream` (src/core/paged/build.ts), so they are the same pages as the CLI's for the same documents.
// The sections wait as Blob pieces (BlobSpool), not as JS memory, and are stored as one Blob in one put.
import {
  buildPages,
  ConceptCandidates,
  pagesDocument,
  labelledRecords,
  pagesRecords,
  PhaseClock,
  SECTIONS,
  type PagesDocument,
  type SectionName,
  type SectionSpool,
  type SpoolSink,
} from '../../core/paged/index.ts';
import { resolveParams } from '../../core/retrieval/index.ts';
import { PagesRepo } from '../../store/pagesRepo.ts';
import type { Repo } from '../../store/repo.ts';
import { termAnalyzer } from '../library/engine.ts';
import { PagedThemes } from '../themes/themesOf.ts';
import { pagesLibrary } from '../library/pagesThreshold.ts';

/**
 * Whether the library should get (new) pages: it has at least the threshold's chunks, no semantic layer (the pages
 * hold the lexical index; a library with vectors is answered in memory), and no pages of its present stamp.
 */
export async function pagesDue(repo: Repo): Promise<boolean> {
  const pages = new PagesRepo(repo.db);
  if (!(await pagesLibrary(repo.db)).pages) return false;
  const [stamp, stored] = await Promise.all([pages.libraryStamp(), pages.storedStamp()]);
  return stamp.stamp !== stored;
}

/** Sections kept as Blob pieces of about PIECE_BYTES: the browser holds them outside the worker's heap. */
const PIECE_BYTES = 4 << 20;

class BlobSink implements SpoolSink {
  readonly pieces: Blob[] = [];
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  length = 0;

  write(bytes: Uint8Array): void {
    // Copied: a writer may reuse its buffer (ByteWriter.take gives a fresh one, but a sink must not rely on it).
    this.pending.push(bytes.slice());
    this.pendingBytes += bytes.length;
    this.length += bytes.length;
    if (this.pendingBytes >= PIECE_BYTES) this.flush();
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.pieces.push(new Blob(this.pending as BlobPart[]));
    this.pending = [];
    this.pendingBytes = 0;
  }

  close(): void {
    this.flush();
  }
}

/** The sections' temporary bytes as Blob pieces (the app's spool; the CLI's is temporary files). */
class BlobSpool implements SectionSpool {
  private readonly sinks = new Map<SectionName, BlobSink>();

  create(name: SectionName): BlobSink {
    const sink = new BlobSink();
    this.sinks.set(name, sink);
    return sink;
  }

  async *read(name: SectionName): AsyncGenerator<Uint8Array> {
    for (const piece of this.sinks.get(name)?.pieces ?? []) yield new Uint8Array(await piece.arrayBuffer());
  }

  /** Every section's pieces, in the given order, as one Blob. */
  blob(order: readonly SectionName[]): Blob {
    return new Blob(order.flatMap((name) => this.sinks.get(name)?.pieces ?? []));
  }
}

export interface PagesWriteResult {
  /** False when the library changed while the pages were built (they were not stored). */
  stored: boolean;
  documents: number;
  chunks: number;
  bytes: number;
  seconds: number;
}

/**
 * Builds the library's pages from the store and stores them in place of the old, stamped with the library they
 * index. `onProgress(done, total)` counts documents over both passes (total = 2 × documents). Nothing is stored
 * when `signal` aborts (it throws) or when the library changed meanwhile (a document removed during the build).
 */
export async function writeLibraryPages(
  repo: Repo,
  options: {
    signal?: AbortSignal;
    onProgress?: (done: number, total: number) => void;
    /** Charged with each phase's time (test/bench/pages-write.ts). */
    clock?: PhaseClock;
  } = {},
): Promise<PagesWriteResult> {
  const started = performance.now();
  const mark = (phase: string): void => options.clock?.mark(phase);
  const pages = new PagesRepo(repo.db);
  const stamp = await pages.libraryStamp();
  mark('library stamp');
  const params = resolveParams();
  const analyzer = termAnalyzer();
  const candidates = new ConceptCandidates();
  const total = 2 * stamp.documents;
  const report = options.onProgress ?? (() => {});

  // Pass 1: each chunk's keyphrases (chosen within its document) and their df, kept as typed arrays: the second
  // pass then reads the records alone instead of choosing the keyphrases again.
  const kept: Uint32Array[] = [];
  const keptOffsets: Uint32Array[] = [];
  let chunkCount = 0;
  let done = 0;
  for await (const d of pages.documents()) {
    mark('pass 1: store read');
    options.signal?.throwIfAborted();
    const doc = pagesDocument(d, analyzer, params, candidates);
    candidates.count(doc);
    mark('pass 1: keyphrases');
    const offsets = new Uint32Array(doc.concepts.length + 1);
    doc.concepts.forEach((list, j) => (offsets[j + 1] = offsets[j] + list.length));
    const flat = new Uint32Array(offsets[doc.concepts.length]);
    doc.concepts.forEach((list, j) => flat.set(list, offsets[j]));
    kept.push(flat);
    keptOffsets.push(offsets);
    chunkCount += doc.records.length;
    report(++done, total);
  }
  if (kept.length !== stamp.documents || chunkCount !== stamp.chunks)
    return { stored: false, documents: kept.length, chunks: chunkCount, bytes: 0, seconds: 0 };

  // Pass 2: the records again from the store, the keyphrases from pass 1; each record counted for the themes.
  const themes = new PagedThemes();
  const second = async function* (): AsyncGenerator<PagesDocument> {
    let i = 0;
    for await (const d of pages.documents()) {
      mark('pass 2: store read');
      if (i >= kept.length) throw new Error('pages: a document was added while the pages were built');
      const { records, chunks } = pagesRecords(d);
      for (const r of records) themes.add(r);
      mark('pass 2: records');
      const flat = kept[i];
      const offsets = keptOffsets[i];
      kept[i] = EMPTY;
      i++;
      yield {
        records,
        concepts: Array.from({ length: records.length }, (_, j) => flat.subarray(offsets[j], offsets[j + 1])),
        ...labelledRecords(chunks),
      };
    }
  };
  const spool = new BlobSpool();
  const built = await buildPages(
    { documents: second(), documentCount: stamp.documents, chunkCount, candidates },
    spool,
    {
      params,
      analyzer,
      signal: options.signal,
      clock: options.clock,
      onDocument: (n) => report(stamp.documents + n, total),
      onTable: (table, degrees) => {
        themes.of(table, degrees, params.thetaCo);
        mark('themes');
      },
    },
  );
  const data = spool.blob(SECTIONS);
  mark('one Blob');
  if (data.size !== built.length) throw new Error(`pages: ${data.size} bytes spooled, ${built.length} built`);
  options.signal?.throwIfAborted();
  // Stored only if they index the library as it is now (a removal during the build changes the stamp).
  const now = await pages.libraryStamp();
  mark('library stamp');
  if (now.stamp !== stamp.stamp)
    return { stored: false, documents: stamp.documents, chunks: chunkCount, bytes: 0, seconds: 0 };
  await pages.put({
    stamp: stamp.stamp,
    builtAt: Date.now(),
    documents: stamp.documents,
    chunks: chunkCount,
    directory: built.directory,
    hashes: built.hashes,
    data,
    ...(themes.themes ? { themes: themes.themes } : {}),
  });
  mark('put');
  return {
    stored: true,
    documents: stamp.documents,
    chunks: chunkCount,
    bytes: data.size,
    seconds: (performance.now() - started) / 1000,
  };
}

const EMPTY = new Uint32Array(0);
