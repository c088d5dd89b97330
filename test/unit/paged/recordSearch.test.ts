// Chunk records found by id over record groups in id order (src/core/paged/recordSearch.ts): every id in one
// search, one step per round of reads, an id the pages lack left out wherever it would sort.
import { describe, expect, it } from 'vitest';
import type { PagedChunkRecord } from '../../../src/core/paged/format.ts';
import { RecordSearch } from '../../../src/core/paged/recordSearch.ts';

const record = (id: string): PagedChunkRecord => ({
  id,
  docId: id.split('#')[0],
  title: id,
  text: id,
  tokens: 1,
  start: 0,
  sentences: [],
});
// 10 documents of 3 chunks each, 4 records a group: ids d0#0000#0000 … d9#0000#0002 in code-unit order.
const ids = Array.from(
  { length: 30 },
  (_, i) => `d${Math.floor(i / 3)}#0000#${String(i % 3).padStart(4, '0')}`,
);
const groups = Array.from({ length: Math.ceil(ids.length / 4) }, (_, g) =>
  ids.slice(g * 4, g * 4 + 4).map(record),
);

/** Runs a search as a library does: a step, then the groups it noted are "read", until it settles. */
function run(wanted: string[], known?: (id: string) => number | undefined) {
  const loaded = new Set<number>();
  const noted = new Set<number>();
  const search = new RecordSearch(
    wanted,
    { count: groups.length, group: (g) => (loaded.has(g) ? groups[g] : void noted.add(g)) },
    known,
  );
  let rounds = 0;
  for (;;) {
    search.step();
    rounds++;
    if (noted.size === 0) break;
    for (const g of noted) loaded.add(g);
    noted.clear();
  }
  return { search, rounds, read: loaded.size };
}

describe('RecordSearch', () => {
  it('finds every id present, in a round per halving, and leaves out ids the pages lack', async () => {
    const wanted = [ids[0], ids[13], ids[29], 'a#0000#0000', 'd4#0000#0009', 'z#0000#0000', ids[13]];
    const { search, rounds } = run(wanted);
    expect(search.settled).toBe(true);
    expect([...search.found.keys()].sort()).toEqual([ids[0], ids[13], ids[29]].sort());
    expect(search.found.get(ids[13])).toEqual(groups[3][1]);
    expect(search.groupOf.get(ids[29])).toBe(7);
    // 8 groups: at most 4 halvings, and one last step that settles with nothing left to read.
    expect(rounds).toBeLessThanOrEqual(5);
  });

  it('starts an id known to be in a group there: one group read', async () => {
    const { search, read } = run([ids[21]], (id) => (id === ids[21] ? 5 : undefined));
    expect(search.found.get(ids[21])?.id).toBe(ids[21]);
    expect(read).toBe(1);
  });
});
