// Version 13's `blockPaths` (FORMAT.md "Version 13"): each block of the rows' zone is stored followed by the path from
// its hash to its leaf page's hash, so that a row block is checked from its own bytes and the page of the level above
// its leaf page, in one range with the block, without reading the leaf page. At 100 MiB a cold question's first page
// reads ~4,700 chunk rows (~98 bytes each) scattered over 76,341 row blocks, and each needed a leaf page of hashes
// (128 bytes) read as a range of its own: ~3,300 ranges and ~495 KB of leaves a first page, for 48 bytes of path a
// row (test/bench/block-paths.ts: −241 KB of data and −644 KB on the wire at 120-byte parts, p50, for +3.7 MB of
// bundle). In a part with the field every leaf page's hash (in the level above, or the top list) is the Merkle root
// of its 8 block hashes taken in pairs, a page's last missing hashes counted as zeros, so that a path and a whole
// leaf page check against the same hash. The rule is the product's own format: no library computes it.
import { sha256 } from '../bundle/index.ts';

/** Bytes of a block hash and of a node of a leaf page's tree (format.ts BLOCK_HASH_BYTES, TOP_HASH_BYTES). */
const HASH = 16;
/** Block hashes a leaf page holds (format.ts HASH_LEAF_BYTES / BLOCK_HASH_BYTES): a tree of 3 levels of pairs. */
export const LEAF_HASHES = 8;
/** The levels of pairs between a block's hash and its leaf page's root. */
export const DEPTH = 3;
/** Bytes of one sibling of a path. */
export const PATH_NODE_BYTES = HASH;
/** Bytes of a block's path: one sibling a level. */
export const PATH_BYTES = DEPTH * HASH;
/** The version `blockPaths` came with. */
export const BLOCK_PATHS_VERSION = 13;
/**
 * A node's hash is SHA-256(0x01 ‖ left ‖ right) cut to 16 bytes: the prefix keeps a node from being taken for a
 * block of 32 bytes (a block's hash has none).
 */
const NODE_PREFIX = 1;

/** The directory's field: the zones whose blocks carry paths (the rows', from version 17 the lists' before them). */
export interface BlockPaths {
  zones: Array<'lists' | 'rows'>;
}

/** The one input every node's hash is made in (nodeHash is synchronous: no two calls share it at once). */
const nodeInput = new Uint8Array(1 + 2 * HASH);
nodeInput[0] = NODE_PREFIX;

/**
 * A node's hash from its two children, synchronously: 33 bytes, one block of SHA-256, which sha256() hashes in the
 * time a WebCrypto call takes to set out (test/bench/digest-sizes.ts), and a question at 100 MiB makes ~22,000 of them
 * (three a row block checked by its path, seven a leaf page read).
 */
function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  nodeInput.set(left.subarray(0, HASH), 1);
  nodeInput.set(right.subarray(0, HASH), 1 + HASH);
  return sha256(nodeInput).subarray(0, HASH);
}

/** The 8 hashes of a leaf page from its bytes (≤ 128), the missing last ones zeros. */
function leafHashes(page: Uint8Array): Uint8Array[] {
  return Array.from({ length: LEAF_HASHES }, (_, i) => {
    const h = new Uint8Array(HASH);
    if (i * HASH < page.length) h.set(page.subarray(i * HASH, (i + 1) * HASH));
    return h;
  });
}

/** A leaf page's tree, level by level (the 8 hashes, 4 nodes, 2, the root), for a writer: synchronous. */
function treeOf(page: Uint8Array): Uint8Array[][] {
  const levels = [leafHashes(page)];
  for (let d = 0; d < DEPTH; d++) {
    const below = levels[d];
    const up: Uint8Array[] = [];
    for (let i = 0; i < below.length; i += 2) up.push(nodeHash(below[i], below[i + 1]));
    levels.push(up);
  }
  return levels;
}

/** A writer's roots of the leaf pages of `leaves` (the block hashes, 16 bytes each), 16 bytes a page. */
export function leafRootsOf(leaves: Uint8Array, pageSize: number): Uint8Array {
  const pages = Math.ceil(leaves.length / pageSize);
  const out = new Uint8Array(pages * HASH);
  for (let p = 0; p < pages; p++)
    out.set(treeOf(leaves.subarray(p * pageSize, (p + 1) * pageSize))[DEPTH][0], p * HASH);
  return out;
}

/** A writer's path of block `b` (its 3 siblings, lowest first) from the block hashes of its part. */
export function pathOf(leaves: Uint8Array, b: number): Uint8Array {
  return pathIn(treeOfPage(leaves, Math.floor(b / LEAF_HASHES)), b);
}

function treeOfPage(leaves: Uint8Array, page: number): Uint8Array[][] {
  return treeOf(leaves.subarray(page * LEAF_HASHES * HASH, (page + 1) * LEAF_HASHES * HASH));
}

/**
 * The paths of blocks in ascending order, each page's tree made once (a page's 8 blocks share it: at 1 GiB ~750,000
 * row blocks).
 */
function pathsInOrder(leaves: Uint8Array): (b: number) => Uint8Array {
  let page = -1;
  let tree: Uint8Array[][] = [];
  return (b) => {
    const p = Math.floor(b / LEAF_HASHES);
    if (p !== page) [page, tree] = [p, treeOfPage(leaves, p)];
    return pathIn(tree, b);
  };
}

function pathIn(tree: Uint8Array[][], b: number): Uint8Array {
  const out = new Uint8Array(PATH_BYTES);
  let i = b % LEAF_HASHES;
  for (let d = 0; d < DEPTH; d++, i >>= 1) out.set(tree[d][i ^ 1], d * HASH);
  return out;
}

/**
 * A reader's roots from paths: for each block, its digest folded with its path's siblings (on the left where its
 * place in the page says) into its leaf page's root.
 */
export function rootsFromPaths(
  digests: readonly Uint8Array[],
  paths: readonly Uint8Array[],
  places: readonly number[],
): Uint8Array[] {
  const chains = chainsFromPaths(
    digests,
    paths,
    places,
    places.map(() => DEPTH),
  );
  return chains.map((chain) => chain[DEPTH]);
}

/**
 * For each block, the nodes on its way up (its hash, then one a level) from its digest folded with the first
 * `levels[k]` siblings of its path (a path read only up to a node already proven: ProvenNodes).
 */
export function chainsFromPaths(
  digests: readonly Uint8Array[],
  paths: readonly Uint8Array[],
  places: readonly number[],
  levels: readonly number[],
): Uint8Array[][] {
  return digests.map((digest, k) => {
    const chain = [digest.subarray(0, HASH)];
    for (let d = 0; d < Math.min(levels[k], DEPTH); d++) {
      const node = chain[d];
      const sibling = paths[k].subarray(d * HASH, (d + 1) * HASH);
      chain.push((places[k] >> d) & 1 ? nodeHash(sibling, node) : nodeHash(node, sibling));
    }
    return chain;
  });
}

/** Whether a node folded from a block is the proven one (a missing one never matches). */
export function sameNode(node: Uint8Array, proven: Uint8Array | undefined): boolean {
  return proven !== undefined && node.length === HASH && proven.every((x, i) => x === node[i]);
}

/**
 * The nodes of one leaf page's tree that checked paths proved (a reader's, while the page itself is not here): a
 * block's hash, each sibling of its path and each node on its way up are fixed by the page's root once the path
 * checks. A later row of the same page is then read with its path only up to the first proven node on its way up (a
 * sibling row's: none of it; a later question at 100 MiB reads ~2,500 rows, most in pages an earlier one touched),
 * and checked against that node.
 */
export class ProvenNodes {
  /** By level (0: the block hashes) and place in the level. */
  private readonly levels: Array<Map<number, Uint8Array>> = Array.from({ length: DEPTH }, () => new Map());

  /** The siblings a path of the block at `place` needs: up to the first proven node on its way up (DEPTH: all). */
  needed(place: number): number {
    for (let d = 0; d < DEPTH; d++) if (this.levels[d].has(place >> d)) return d;
    return DEPTH;
  }

  /** The proven node at level `level` on the way up from `place` (needed(place) tells which levels have one). */
  node(place: number, level: number): Uint8Array | undefined {
    return this.levels[level]?.get(place >> level);
  }

  /** What a checked path proved: the nodes of its chain below the node it was checked against, and their siblings. */
  prove(place: number, chain: readonly Uint8Array[], path: Uint8Array, checkedAt: number): void {
    for (let d = 0; d < checkedAt; d++) {
      this.levels[d].set(place >> d, chain[d]);
      this.levels[d].set((place >> d) ^ 1, path.slice(d * HASH, (d + 1) * HASH));
    }
  }

  /** The leaf page of `count` block hashes when every one is proven (it is then as good as read and checked). */
  page(count: number): Uint8Array | undefined {
    const out = new Uint8Array(count * HASH);
    for (let i = 0; i < count; i++) {
      const h = this.levels[0].get(i);
      if (!h) return undefined;
      out.set(h, i * HASH);
    }
    return out;
  }
}

/** A reader's roots of whole leaf pages (read or made from their blocks' digests), as a writer makes them. */
export function leafRoots(pages: readonly Uint8Array[]): Uint8Array[] {
  return pages.map((page) => treeOf(page)[DEPTH][0]);
}

/**
 * The part's stored bytes from its logical ones (the sections in order): each block of the zone [first, first +
 * count) followed by its path; `zone.endOf` gives where each block ends in the logical bytes.
 */
export function* storedPieces(
  pieces: Iterable<Uint8Array>,
  zone: { first: number; count: number; endOf: (b: number) => number },
  leaves: Uint8Array,
): Generator<Uint8Array> {
  const cut = pathCutter(zone, leaves);
  for (const piece of pieces) yield* cut(piece);
}

/** storedPieces over pieces that come asynchronously (a spool, a source). */
export async function* storedPiecesAsync(
  pieces: AsyncIterable<Uint8Array>,
  zone: { first: number; count: number; endOf: (b: number) => number },
  leaves: Uint8Array,
): AsyncGenerator<Uint8Array> {
  const cut = pathCutter(zone, leaves);
  for await (const piece of pieces) yield* cut(piece);
}

/** The pieces of one logical piece as stored: cut at the zone's block ends, each such block's path after it. */
function pathCutter(
  zone: { first: number; count: number; endOf: (b: number) => number },
  leaves: Uint8Array,
): (piece: Uint8Array) => Uint8Array[] {
  let at = 0;
  let b = zone.first;
  const last = zone.first + zone.count;
  const pathAt = pathsInOrder(leaves);
  return (piece) => {
    const out: Uint8Array[] = [];
    let from = 0;
    while (b < last && zone.endOf(b) <= at + piece.length) {
      const cut = zone.endOf(b) - at;
      if (cut > from) out.push(piece.subarray(from, cut));
      out.push(pathAt(b));
      from = cut;
      b++;
    }
    if (from < piece.length) out.push(piece.subarray(from));
    at += piece.length;
    return out;
  };
}
