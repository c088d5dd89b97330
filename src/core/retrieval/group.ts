// Results from one section of a long document shown together: a manual's section often holds two or three of the
// best chunks, and a reader wants them under one heading, not as three cards that repeat the same path.

/** The section a chunk belongs to: its id up to the position (`doc#section#position` → `doc#section`). */
export function sectionKey(chunkId: string): string {
  const cut = chunkId.lastIndexOf('#');
  return cut > 0 ? chunkId.slice(0, cut) : chunkId;
}

/** Groups ranked results by section, in the order each section first appears; rank order is kept inside a group. */
export function groupBySection<T extends { chunkId: string }>(
  ranked: readonly T[],
): Array<{ key: string; first: number; items: T[] }> {
  const groups = new Map<string, { key: string; first: number; items: T[] }>();
  ranked.forEach((item, i) => {
    const key = sectionKey(item.chunkId);
    const group = groups.get(key);
    if (group) group.items.push(item);
    else groups.set(key, { key, first: i, items: [item] });
  });
  return [...groups.values()];
}
