// The hash pages a link reads once the library is open, before any question (issue 47, round twenty-seven): the pages
// every question would read whatever its words, chosen from the directory alone (no list stored in the bundle, no
// figure tuned to one bundle):
// - level 1 over the blocks that carry paths (version 13's blockPaths: the rows' blocks of whole rows). A path checks
//   its block against its leaf page's hash in level 1, and a question's walk reads thousands of rows scattered over
//   the zone (~4,600 of 73,354 at 100 MiB of text, 16 to a level-1 page of 256 blocks): every question read every
//   level-1 page of the zone (147 KB at 100 MiB, 1,659 KB at 1 GiB; test/bench/hash-page-use.ts);
// - every page of levels 2 and up: 1/32 of level 1 each, and nearly every one read by every question (15 KB at
//   100 MiB, 154 KB at 1 GiB).
// The lists' level 1 (128-byte blocks too) only when few enough pages (warmListRuns, round twenty-nine): a question
// reads ~500 lists whatever the library's size, so their level-1 pages were read by most questions at 100 MiB (118 of
// 172 KB p50) but by few at 1 GiB (42 of 1,750 KB by half of them): warming them all read 1.6 MB a question would not
// have (docs/results/question-bytes.md, round twenty-seven). Version 17's lists carry paths (blockPaths.ts), so a
// list is then read with no hash page at all.

/**
 * The list blocks a question reads, about: ~500 lists whatever the library's size (round twenty-seven, at 100 MiB and
 * 1 GiB of text), most of them a block of 128 bytes. Spread at random over P pages of level 1, such a question reads
 * about P·(1 − e^(−500/P)) of them: more than half when P ≤ 500 / ln 2 (721 pages, 369 KB of 512-byte pages).
 */
export const LIST_BLOCKS_A_QUESTION = 500;

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

/**
 * The lists' level-1 pages read ahead after warmRuns' (round twenty-nine): every one when a question would read more
 * than half of them (at most LIST_BLOCKS_A_QUESTION / ln 2 pages: 100 MiB of text has 336, of which a question read
 * 118 KB of 172 p50 once warmRuns' pages were held), none when more (1 GiB: 3,417 pages, ~14 % read by a question
 * by the rule's reckoning).
 * Read in a request of their own once warmRuns' are in: a question asked at once (nothing to read ahead in) sends its
 * own requests before it and reads the pages it needs itself.
 */
export function warmListRuns(
  lists: { first: number; count: number } | undefined,
  levels: readonly WarmLevel[],
): WarmRun[] {
  if (levels.length < 2 || !lists || lists.count === 0) return [];
  const perLeaf = Math.floor(levels[0].pageSize / levels[0].entry);
  const perPage = Math.floor(levels[1].pageSize / levels[1].entry);
  const pages = Math.ceil(levels[1].length / levels[1].pageSize);
  if (perLeaf < 1 || perPage < 1) return [];
  const first = Math.floor(Math.floor(lists.first / perLeaf) / perPage);
  const last = Math.min(
    Math.floor(Math.floor((lists.first + lists.count - 1) / perLeaf) / perPage),
    pages - 1,
  );
  if (first > last || last - first + 1 > LIST_BLOCKS_A_QUESTION / Math.LN2) return [];
  return [{ level: 1, first, last }];
}
