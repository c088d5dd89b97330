// When the warm start has the query worker load the library: whether a question asked next finds it loaded, or
// waits for a cold load that begins at the click.

/**
 * Whether the warm start loads the library now. Once indexing is idle or has only embedding left, as before. During
 * a drop too, once the concept graph covers some documents (a graph refresh made them searchable): each later load
 * then reads and analyses only the documents stored since the one before (LibrarySession's incremental load), so
 * the question asked when the drop's last refresh lands waits for that part, not for the whole library read and
 * analysed from the click (5.4–12.5 s on docs-scale, 1.8–7.2 s on MuSiQue, docs/results/trust.md round eleven).
 * Between refreshes a warm-up only reads the index record (the graph is the same: the library loaded is kept).
 */
export function warmDue(indexing: boolean, searchable: number): boolean {
  return !indexing || searchable > 0;
}
