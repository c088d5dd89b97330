// When the warm start has the query worker load the library: whether a question asked next finds it loaded, or
// waits for a cold load that begins at the click.

/**
 * Whether the warm start loads the library now. Once indexing is idle or has only embedding left, as before. During
 * a drop too, once every file of it is stored (none `waiting`) and the concept graph covers some documents: the
 * query worker then reads and analyses the documents stored ahead of the graph (LibrarySession.readAhead), while
 * the drop's last graph refresh runs, so the question asked when that refresh lands waits only for what was stored
 * since, not for the whole library read and analysed from the click (5.4–12.5 s on docs-scale, 1.8–7.2 s on
 * MuSiQue, docs/results/trust.md round eleven). Not earlier in the drop: each read ahead goes over the whole
 * library's lists again, and on two cores it slows the storing.
 */
export function warmDue(indexing: boolean, searchable: number, waiting: number): boolean {
  return !indexing || (searchable > 0 && waiting === 0);
}
