// Pages of a paginated source (a PDF): which page an offset of the text is on, and the label a person reads
// ("p. 12", "pp. 12–13"). Shared by the chunker (each chunk's page range), the evidence, the citations and the
// viewer, so every place names a page the same way.

/** The page (1-based) that the character at `offset` is on, from a document's page starts (offsets, in order). */
export function pageAt(pageStarts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = pageStarts.length - 1;
  // The last page whose start is at or before the offset.
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (pageStarts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** First and last page of the text between `start` and `end` (end exclusive). */
export function pageRange(
  pageStarts: readonly number[],
  start: number,
  end: number,
): { pageStart: number; pageEnd: number } {
  const pageStart = pageAt(pageStarts, start);
  return { pageStart, pageEnd: Math.max(pageStart, pageAt(pageStarts, Math.max(start, end - 1))) };
}

/** "p. 12" or "pp. 12–13"; "" when the source has no pages. */
export function pageLabel(pageStart: number | undefined, pageEnd?: number): string {
  if (pageStart === undefined || !Number.isFinite(pageStart)) return '';
  const last = pageEnd ?? pageStart;
  return last > pageStart ? `pp. ${pageStart}–${last}` : `p. ${pageStart}`;
}
