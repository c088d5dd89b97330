// A chunk's concept count over pages whose rows hold their counts (version 16 on: `open` has no conceptCounts): the
// walk's scores and the concepts' BM25 ask it of every chunk they touch, tens of thousands a run at 100 MiB. It is
// the length of the chunk's row, read without a view of it (round thirty), and a row not read yet is noted missing
// as conceptsOf notes it.
import { describe, expect, it, vi } from 'vitest';
import { openRepoDocsLarge } from '../../support/pagedLibraries.ts';

describe("the section reader's concept counts", () => {
  it("are the rows' lengths, read without conceptsOf, and a row not read is noted", async () => {
    const { library } = await openRepoDocsLarge();
    const reader = library.reader;
    expect(reader.open.conceptCounts).toBeUndefined();
    const access = reader.conceptAccess();
    const n = reader.chunkCount;
    const { value: rows } = await reader.readUntilComplete(() =>
      Array.from({ length: n }, (_, k) => reader.conceptsOf(k)),
    );
    const viewed = vi.spyOn(reader, 'conceptsOf');
    const counts = Array.from({ length: n }, (_, k) => access.conceptCount(k));
    expect(counts).toEqual(rows.map((r) => r!.length));
    expect(counts.some((c) => c > 1)).toBe(true);
    expect(viewed).not.toHaveBeenCalled();
    viewed.mockRestore();
    // Let go: counted as 0 and noted, as a run that met a missing row; read again, the same count.
    const { store } = reader;
    store.forget();
    const misses = store.misses;
    expect(access.conceptCount(n - 1)).toBe(0);
    expect(store.misses).toBe(misses + 1);
    expect(store.missing).toBe(true);
    const { value: again } = await reader.readUntilComplete(() => access.conceptCount(n - 1));
    expect(again).toBe(counts[n - 1]);
  }, 120_000);
});
