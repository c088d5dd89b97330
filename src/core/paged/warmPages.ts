// The hash pages a link reads once the library is open, before any question (issue 47, round twenty-seven): the pages
// every question would read whatever its words, chosen from the directory alone (no list stored in the bundle, no
// figure tuned to one bundle):
// - level 1 over the blocks that carry paths (version 13's blockPaths: the rows' blocks of whole rows). A path checks
//   its block against its leaf page's hash in level 1, and a question's walk reads thousands of rows scattered over
//   the zone (~4,600 of 73,354 at 100 MiB of text, 16 to a level-1 page of 256 blocks): every question read every
//   level-1 page of the zone (147 KB at 100 MiB, 1,659 KB at 1 GiB; test/bench/hash-page-use.ts);
// - every page of levels 2 and up: 1/32 of level 1 each, and nearly every one read by every question (15 KB at
//   100 MiB, 154 KB at 1 GiB).
// Not the lists' level 1 (128-byte blocks too): a question reads ~500 lists whatever the library's size, so their
// level-1 pages were read by most questions at 100 MiB (129 of 172 KB by half of them) but by few at 1 GiB (42 of
// 1,750 KB): warming them read 1.6 MB a question would not have (docs/results/question-bytes.md, round twenty-seven).

/** A level of hash pages: its bytes, its page size, and the bytes of each hash it holds. */
export interface WarmLevel {
  length: number;
  pageSize: number;
  entry: number;
}

/** A run of pages [first, last] of one level (1 and up: leaf pages are never warmed). */
export interface WarmRun {
  level: number;
  first: number;
  last: number;
}

/**
 * The pages read ahead, in runs ascending by level then page: level 1 over the blocks [first, first + count) that
 * carry paths (BlockLayout.paths; none: undefined), every page of each level above. `levels` are the tree's from the
 * block hashes up (the last is checked against the directory's top list).
 */
export function warmRuns(
  pathed: { first: number; count: number } | undefined,
  levels: readonly WarmLevel[],
): WarmRun[] {
  const out: WarmRun[] = [];
  if (levels.length >= 2 && pathed && pathed.count > 0) {
    // Blocks to leaf pages (entries of level 1), then to pages of level 1.
    const perLeaf = Math.floor(levels[0].pageSize / levels[0].entry);
    const perPage = Math.floor(levels[1].pageSize / levels[1].entry);
    const pages = Math.ceil(levels[1].length / levels[1].pageSize);
    if (perLeaf >= 1 && perPage >= 1) {
      const first = Math.floor(Math.floor(pathed.first / perLeaf) / perPage);
      const last = Math.floor(Math.floor((pathed.first + pathed.count - 1) / perLeaf) / perPage);
      if (first < pages) out.push({ level: 1, first, last: Math.min(last, pages - 1) });
    }
  }
  for (let level = 2; level < levels.length; level++) {
    const pages = Math.ceil(levels[level].length / levels[level].pageSize);
    if (pages > 0) out.push({ level, first: 0, last: pages - 1 });
  }
  return out;
}
