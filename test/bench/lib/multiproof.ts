// What authenticating a few leaves of a binary Merkle tree costs (issue 47, round twenty-four: the read bound's rung
// (d)). A layout that lets a question fetch single items still has to check each one against a hash it trusts: with
// a binary tree over the items (or over fixed-size leaves of them), the items read need the sibling hashes along
// their paths to the root, shared where their paths meet — a multiproof. Hand-written: it only counts nodes (no
// hashing), which no npm Merkle library exposes without building the whole tree.
//
// The tree over n leaves pairs node 2i with 2i + 1 at every level; a last node without a sibling is carried up as it
// is (no hash for it), so a level of width w has ⌈w / 2⌉ parents. The root is trusted (it would come with the head).

/** A node of the tree: its level (0 = leaves) and its index at that level, as one key. */
function nodeKey(level: number, index: number): number {
  return level * 2 ** 32 + index;
}

/**
 * The sibling hashes a reader must fetch to check `leaves` (indices below n) against the root, given the nodes it
 * has checked before (`known`, filled in by this call with every node the check verifies): a path stops where it
 * meets a node already known, and a sibling already known is not fetched again.
 */
export function multiproofHashes(n: number, leaves: Iterable<number>, known?: Set<number>): number {
  let level = [...new Set(leaves)].sort((a, b) => a - b);
  for (const i of level) if (!(Number.isInteger(i) && i >= 0 && i < n)) throw new Error(`leaf ${i} of ${n}`);
  let width = n;
  let hashes = 0;
  for (let depth = 0; width > 1 && level.length > 0; depth++) {
    const parents: number[] = [];
    for (let j = 0; j < level.length; j++) {
      const i = level[j];
      if (known?.has(nodeKey(depth, i))) continue;
      known?.add(nodeKey(depth, i));
      const sibling = i ^ 1;
      const computed = level[j - 1] === sibling || level[j + 1] === sibling;
      if (sibling < width && !computed && !known?.has(nodeKey(depth, sibling))) {
        hashes++;
        known?.add(nodeKey(depth, sibling));
      }
      const parent = i >> 1;
      if (parents[parents.length - 1] !== parent) parents.push(parent);
    }
    level = parents;
    width = Math.ceil(width / 2);
  }
  return hashes;
}
