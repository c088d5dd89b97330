// When the answer on screen is asked again by itself: it was answered while a drop was still making documents
// searchable — over the documents the concept graph covered, while others were stored and waiting for the next
// refresh (AskResult.awaitingGraph) or still waiting in the queue (documentsComing) — and a refresh has since taken
// more of them in. The person then sees the newer answer, said to be newer, without asking again (issue 44: a
// question asked early is answered, and its evidence is replaced in place).
import type { AskResult } from '../../services/questions/queryProtocol.ts';

/** What the page knows of the library: whether a run goes on, what the graph covers, what is stored. */
export interface SearchableView {
  running: boolean;
  coverage: { searchableDocuments: number } | null;
  counts: { documents: number };
}

/** Documents the app calls searchable now: while a run goes on, those the graph covers; else every stored one. */
export function searchableDocuments(library: SearchableView): number {
  return library.running
    ? Math.min(library.coverage?.searchableDocuments ?? 0, library.counts.documents)
    : library.counts.documents;
}

/**
 * What a run still has to make searchable, as the page sees it now: documents stored that the graph does not cover
 * yet, and files waiting to be stored. Null when nothing is coming (no run, or it has only vectors left to add). The
 * query worker's AskResult.awaitingGraph counts only the first kind: a question answered right after a first drop's
 * first refresh (IngestPipeline.firstSearchableDue) has nothing stored ahead of the graph, and the rest of the
 * drop still in the queue.
 */
export function documentsComing(
  /** `waiting`: files waiting in the queue (not stored yet). */
  library: SearchableView & { waiting: number },
): { documents: number; files: number } | null {
  if (!library.running) return null;
  const documents = Math.max(0, library.counts.documents - searchableDocuments(library));
  return documents > 0 || library.waiting > 0 ? { documents, files: library.waiting } : null;
}

/**
 * Whether `shown` is due to be asked again: it was answered with documents to come (waiting for the graph by the
 * worker's count, or `comingAt` by the page's), `searchableAt` documents were searchable then, and more are now (a
 * refresh landed). Not while a question is being answered.
 */
export function askAgainDue(
  shown: Pick<AskResult, 'awaitingGraph' | 'stage'> | null,
  searchableAt: number,
  searchableNow: number,
  busy: boolean,
  comingAt: { documents: number; files: number } | null = null,
): boolean {
  return (
    !busy &&
    shown !== null &&
    shown.stage !== 'early' &&
    (shown.awaitingGraph !== undefined || comingAt !== null) &&
    searchableNow > searchableAt
  );
}
