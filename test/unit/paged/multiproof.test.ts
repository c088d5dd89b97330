// The read bound's multiproof count (test/bench/lib/multiproof.ts) on small trees worked out by hand.
import { describe, expect, it } from 'vitest';
import { multiproofHashes } from '../../bench/lib/multiproof.ts';

describe('multiproofHashes', () => {
  it('needs one sibling a level for one leaf of a full tree', () => {
    // 8 leaves: leaf 0 needs leaf 1, node (1,1) and node (2,1).
    expect(multiproofHashes(8, [0])).toBe(3);
    expect(multiproofHashes(16, [5])).toBe(4);
  });

  it('shares the hashes where paths meet', () => {
    // Leaves 0 and 1 are each other's siblings: only (1,1) and (2,1).
    expect(multiproofHashes(8, [0, 1])).toBe(2);
    // Leaves 0 and 7: leaves 1 and 6, then (1,1) and (1,2); at level 2 (2,0) and (2,1) are both computed.
    expect(multiproofHashes(8, [0, 7])).toBe(4);
    // Leaves 0 and 2: leaves 1 and 3; (1,0) and (1,1) are siblings, both computed; then (2,1).
    expect(multiproofHashes(8, [2, 0, 2])).toBe(3);
    expect(multiproofHashes(8, [0, 1, 2, 3, 4, 5, 6, 7])).toBe(0);
  });

  it('carries a last node without a sibling up without a hash', () => {
    // 5 leaves: leaf 4 has no sibling (level widths 5, 3, 2, 1): only (2,0) at the level of width 2.
    expect(multiproofHashes(5, [4])).toBe(1);
    // Leaf 0 of 5: leaf 1, node (1,1), node (2,1) (the carried leaf 4).
    expect(multiproofHashes(5, [0])).toBe(3);
    expect(multiproofHashes(1, [0])).toBe(0);
    expect(multiproofHashes(8, [])).toBe(0);
  });

  it('fetches nothing again that an earlier check verified', () => {
    const known = new Set<number>();
    expect(multiproofHashes(8, [0], known)).toBe(3);
    // Leaf 1 was fetched as leaf 0's sibling: verified, nothing to fetch.
    expect(multiproofHashes(8, [1], known)).toBe(0);
    // Leaf 2 needs leaf 3; its parent (1,1) was fetched for leaf 0: the path stops there.
    expect(multiproofHashes(8, [2], known)).toBe(1);
    // Leaf 6 needs leaf 7 and (1,2); (2,1) is known.
    expect(multiproofHashes(8, [6], known)).toBe(2);
  });

  it('refuses a leaf outside the tree', () => {
    expect(() => multiproofHashes(4, [4])).toThrow();
  });
});
