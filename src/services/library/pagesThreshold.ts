// Which libraries are answered from their pages (src/core/paged, stored by src/store/pagesRepo.ts): the rule the
// ingest worker writes them by (src/services/ingest/pagesWrite.ts, and during a drop instead of the incremental
// graph) and the query worker reads them by (src/services/library/storedPages.ts), kept in one place so the two
// workers agree on it. The query worker cannot see the ingest worker's queue: what the queue will add reaches it
// through the index record (IndexMeta.projectedChunks).
import type { ConceptDb } from '../../store/db.ts';
import type { IndexMeta } from '../../store/records.ts';
import { SettingsRepo } from '../../store/settingsRepo.ts';

/**
 * From this many chunks on, a library gets pages. Loading the corpus into the engine costs about 1 ms a chunk in the
 * tab (10,227 chunks of the 10 MiB folder: 9.9 s and 210 MB of query-worker heap, tab-scale.md); but a library
 * answered from its pages loses what needs it in memory (the Graph view, Evaluate, the other modes). So pages only
 * from 10,000 chunks (about 10 MiB of text), where the reload's wait and the heap become the larger cost. At 3,000
 * the in-app evaluation of a 3,199-passage library was refused (the in-app-eval e2e spec waited for it).
 */
const PAGES_MIN_CHUNKS = 10_000;

/** Setting that lowers (or raises) PAGES_MIN_CHUNKS: the end-to-end tests write pages for a small folder with it. */
export const PAGES_MIN_CHUNKS_SETTING = 'pagesMinChunks';

/** The chunk count from which a library gets pages (the setting, when a number, else PAGES_MIN_CHUNKS). */
export async function pagesMinChunks(db: ConceptDb): Promise<number> {
  const value = await new SettingsRepo(db).getSetting<unknown>(PAGES_MIN_CHUNKS_SETTING);
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : PAGES_MIN_CHUNKS;
}

/**
 * Whether the library is one that pages answer: at least the threshold's chunks, stored or projected by the drop
 * that is storing them (IndexMeta.projectedChunks: the chunks stored plus the queue's, written by the ingest worker,
 * which alone sees the queue), and no semantic layer (the pages hold the lexical index; a library with sentence
 * vectors is answered in memory). A drop that will pass the threshold is answered from its pages from its first
 * refresh on, so it never builds the incremental concept graph of its first 10,000 chunks (the drop's peak of
 * memory, 464 MB at 100 MiB: docs/results/drop-heap.md); once nothing waits the projection is gone and a library that
 * ended small (a cancelled drop, files that failed) is answered in memory again, with every mode. `projected`: pages
 * only by the projection (fewer chunks stored than the threshold): a library that small without pages yet is still
 * loaded into memory by the query worker rather than refused. Two small reads, the setting and the index record,
 * whose tally gives the chunks (IndexMeta.sentenceTally): the query worker asks at every question of a library in
 * memory whether it grew past the threshold, and a count() walks the store (13–15 ms of the query worker's time a
 * question at 9,002 chunks in Chromium, load 11: docs/results/ranges.md). A library without the tally is counted
 * until the ingest worker tallies it. `read`: the index record and the threshold as the caller has just read them.
 */
export async function pagesLibrary(
  db: ConceptDb,
  read?: { meta: IndexMeta | undefined; min: number },
): Promise<{ pages: boolean; chunks: number; projected: boolean; min: number }> {
  const [min, meta] = read
    ? [read.min, read.meta]
    : await Promise.all([pagesMinChunks(db), db.meta.get('index')]);
  const chunks = meta?.sentenceTally?.chunks ?? (await db.chunks.count());
  const reach = Math.max(chunks, meta?.projectedChunks ?? 0);
  const pages = chunks > 0 && reach >= min && !meta?.layers.semantic;
  return { pages, chunks, projected: pages && chunks < min, min };
}
