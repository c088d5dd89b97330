// What a drop will store, projected from its queue: the chunks stored plus the queued files' bytes at the drop's
// bytes per chunk. The ingest pipeline writes it into the index record (IndexMeta.projectedChunks) at each refresh,
// so that a drop that will pass the pages threshold (pagesThreshold.ts) writes pages from its first refresh instead
// of building the incremental concept graph of its first 10,000 chunks: that graph was the drop's memory peak (464 MB
// of the ingest worker's heap at 100 MiB, 191 MB at 30 MiB; docs/results/drop-heap.md).
import type { QueueRepo } from '../../store/queueRepo.ts';

/**
 * Bytes of a dropped file per chunk stored before the drop has measured its own: the shared scale corpus
 * (test/bench/scale-corpus.ts --mb 30: 6,130 files of text and markdown, 31,903,959 bytes, 30,803 chunks; --mb 100:
 * 20,158 files, 102,310 chunks, the same ratio within 1 %). A PDF or a .docx has far more bytes per chunk: the drop's
 * own ratio takes over once it has stored CALIBRATED_BYTES.
 */
export const BENCH_BYTES_PER_CHUNK = 1036;

/**
 * From this many bytes of files settled (stored, duplicates, failed) the drop's own ratio is used: about a thousand
 * chunks of text, a few seconds of a drop, well before its first refresh (60 s).
 */
export const CALIBRATED_BYTES = 1 << 20;

/** The queue's bytes (QueueRepo.queuedBytes): files still to index, and announced ones whose bytes are on their way. */
type QueuedBytes = Awaited<ReturnType<QueueRepo['queuedBytes']>>;

/**
 * The bytes per chunk of one drain (files settled: their bytes, and the chunks their documents added; duplicates and
 * failures add bytes and no chunk, so a folder dropped again projects nothing) and the projection from it.
 */
export class DropProjection {
  private bytes = 0;
  private chunks = 0;

  /** Documents of the drop were stored with these chunks. */
  chunksStored(chunks: number): void {
    this.chunks += chunks;
  }

  /** A file left the queue (stored, a duplicate or failed): its bytes. */
  fileSettled(bytes: number): void {
    this.bytes += bytes;
  }

  /** Chunks stored by this drain so far. */
  get storedChunks(): number {
    return this.chunks;
  }

  /** Chunks per byte of a dropped file: the drop's own once it has settled CALIBRATED_BYTES, else the bench's. */
  chunksPerByte(): number {
    return this.bytes >= CALIBRATED_BYTES ? this.chunks / this.bytes : 1 / BENCH_BYTES_PER_CHUNK;
  }

  /**
   * The chunks the library will hold once the queue is stored, or undefined when nothing waits (the projection is
   * then the store itself). Announced files count only while files are queued: the page is still recording the
   * drop's bytes; announced files alone are those of a page closed before their bytes were stored, which wait for
   * the person to pick them again and must not keep a small library on its pages.
   */
  project(storedChunks: number, queued: QueuedBytes): number | undefined {
    if (queued.waiting <= 0) return undefined;
    const bytes = queued.waiting + queued.announced;
    return storedChunks + Math.round(bytes * this.chunksPerByte());
  }
}
