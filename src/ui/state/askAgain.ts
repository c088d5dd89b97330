// When the answer on screen is asked again by itself: it was answered while a drop was ahead of the concept graph
// (AskResult.awaitingGraph: over the documents the graph covered, others stored and waiting for the next refresh),
// and the refresh has since taken more of them in. The person then sees the newer answer, said to be newer, without
// asking again (issue 44: a question asked early is answered, and its evidence is replaced in place).
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
 * Whether `shown` is due to be asked again: it was answered with documents waiting for the graph, `searchableAt`
 * documents were searchable then, and more are now (a refresh landed). Not while a question is being answered.
 */
export function askAgainDue(
  shown: Pick<AskResult, 'awaitingGraph' | 'stage'> | null,
  searchableAt: number,
  searchableNow: number,
  busy: boolean,
): boolean {
  return (
    !busy && shown?.stage !== 'early' && shown?.awaitingGraph !== undefined && searchableNow > searchableAt
  );
}
