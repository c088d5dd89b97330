// What the stored library holds, as far as questions are concerned, in one comparable string: the Ask view
// reloads the query worker's library when it changes, and only then (each load of a large library takes seconds,
// and the Library view re-reads the store after every batch, on idle and on other tabs' news).
import type { IndexMeta } from '../../store/db.ts';
import type { StoreCounts } from '../../store/libraryRepo.ts';

/**
 * Counts change with any document stored or removed, any vector stored, and any graph written (its concept and
 * edge counts, with the layer it has); the newest document's time tells apart a document replaced by another of
 * the same size. `pages` names the stored pages (their stamp and time): a large library's questions read them, and
 * new pages change no count (the query worker then opens them for the next question). Whether a drop projects the
 * library past its stored chunks (IndexMeta.projectedChunks): a cancelled drop changes no count either, but its
 * library, small after all, is answered in memory again rather than from the pages of its refreshes.
 */
export function libraryStamp(
  counts: Pick<StoreCounts, 'documents' | 'chunks' | 'sentences' | 'vectors' | 'embeddedDocuments'>,
  meta: Pick<IndexMeta, 'concepts' | 'edges' | 'layers' | 'embedderId' | 'projectedChunks'> | undefined,
  newestAddedAt: unknown,
  pages: string | null = null,
): string {
  return JSON.stringify([
    counts.documents,
    counts.chunks,
    counts.sentences,
    counts.vectors,
    counts.embeddedDocuments ?? 0,
    meta?.concepts ?? 0,
    meta?.edges ?? 0,
    meta?.layers.semantic ?? false,
    meta?.embedderId ?? null,
    typeof newestAddedAt === 'number' ? newestAddedAt : null,
    pages,
    meta?.projectedChunks !== undefined,
  ]);
}
