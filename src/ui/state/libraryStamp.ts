// What the stored library holds, as far as questions are concerned, in one comparable string: the Ask view
// reloads the query worker's library when it changes, and only then (each load of a large library takes seconds,
// and the Library view re-reads the store after every batch, on idle and on other tabs' news).
import type { IndexMeta } from '../../store/db.ts';
import type { StoreCounts } from '../../store/libraryRepo.ts';

/**
 * Counts change with any document stored or removed and any graph written (its concept and edge counts, with the
 * layer it has); the newest document's time tells apart a document replaced by another of the same size. Vectors
 * count only once every stored document has them: the query worker's engine takes the sentence vectors only then
 * (retrievalInput), so a batch of them stored while the embedder runs changes no answer. Counted batch by batch, they
 * made every question asked during the embedding (and the warm start after each count) reload the whole library:
 * 20.7 s for MuSiQue's first question after "searchable" at load 22 (docs/results/trust.md). `pages` names the stored pages (their stamp and time): a large library's questions read them, and
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
    everyDocumentEmbedded(counts),
    meta?.concepts ?? 0,
    meta?.edges ?? 0,
    meta?.layers.semantic ?? false,
    meta?.embedderId ?? null,
    typeof newestAddedAt === 'number' ? newestAddedAt : null,
    pages,
    meta?.projectedChunks !== undefined,
  ]);
}

/** Every stored document has its sentence vectors (by documents when the store counts them, else by rows). */
function everyDocumentEmbedded(
  counts: Pick<StoreCounts, 'documents' | 'sentences' | 'vectors' | 'embeddedDocuments'>,
): boolean {
  if (counts.documents === 0) return false;
  return counts.embeddedDocuments !== undefined
    ? counts.embeddedDocuments >= counts.documents
    : counts.vectors >= counts.sentences;
}
