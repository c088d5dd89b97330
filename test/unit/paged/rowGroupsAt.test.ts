// The section reader's row groups by index (round twenty-seven): the walk asks for a chunk's row group at every chunk of
// a list (walkRow twice, conceptsOf, a chunk's concept count), and the store's lookup by name built and hashed a key
// each time. The reader keeps what the store gave while the store's decoded groups are the same (store.generation),
// and never a group the store has let go.
import { describe, expect, it, vi } from 'vitest';
import { openRepoDocsLarge } from '../../support/pagedLibraries.ts';

describe("the section reader's row groups by index", () => {
  it('asks the store for a decoded group once a generation, and gives no group the store let go', async () => {
    const { library } = await openRepoDocsLarge();
    const reader = library.reader;
    const { store } = reader;
    const groups = reader.open.rowGroups.length - 1;
    expect(groups).toBeGreaterThan(4);
    const all = () => Array.from({ length: groups }, (_, g) => reader.rowGroup(g));
    const { value: first } = await reader.readUntilComplete(all);
    expect(first.every((g) => g !== undefined)).toBe(true);
    const asked = vi.spyOn(store, 'group');
    const again = all();
    // The same objects, and not one lookup by name (each was asked for once above, when it was decoded).
    expect(again.every((g, i) => g === first[i])).toBe(true);
    expect(asked.mock.calls.filter(([key]) => key.startsWith('r'))).toHaveLength(0);
    // Let go: the next ask is the store's, which notes it missing, and the group read again is the same rows.
    store.forget();
    expect(reader.rowGroup(0)).toBeUndefined();
    expect(store.missing).toBe(true);
    const { value: read } = await reader.readUntilComplete(() => reader.rowGroup(0));
    expect(read).not.toBe(first[0]);
    expect(Array.from(read!.ids)).toEqual(Array.from(first[0]!.ids));
    expect(Array.from(read!.starts)).toEqual(Array.from(first[0]!.starts));
    asked.mockRestore();
  }, 120_000);
});
