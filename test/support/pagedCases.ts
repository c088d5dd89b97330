// The hostile cases by name (issue 43): the crafted paged indexes a question is asked of, and the crafted version 1
// bundles `cli upgrade` is run on. They are made in the test's own process, each from the one honest library written
// once there (hostilePages.ts); a worker then runs only the reading or the upgrade under a time limit
// (craftedReads.ts, boundedRun.ts), since that is what never ended before the fixes.
import {
  aliasedManifestBundle,
  bracketedDegreePages,
  forgedShareBundle,
  infiniteOffsetBundle,
  negativeIdfBundle,
  rowsMiscountedBundle,
  pagesBundle,
  honestPages,
  hugeCountPages,
  listsInRowsPages,
  piecesOf,
  assemble,
  hugeSentencesPages,
  shareParamPages,
  tinyDegreePages,
  zeroCountPages,
  unendingPostingsPages,
  type WrittenPagesLike,
} from './hostilePages.ts';

export const CRAFTED = {
  honest: () => honestPages(2),
  honestV1: () => honestPages(1),
  honestV3: () => honestPages(3),
  honestV4: () => honestPages(4),
  // Version 4, lists kept in the rows: the first id of the first chunk made a concept past the last; a row id's gap
  // of 0 after the first (a concept twice); the gzip trailer claiming 2^32−1 bytes inflated; the rows claimed by a
  // version 3 directory; the df of two concepts moved by one each (the sums agree, the rows do not).
  rowsPastConceptsV4: () =>
    listsInRowsPages({
      change: (raw) => {
        const out = new Uint8Array(raw.length + 4);
        // 2^31 − 1 concepts doubled, as a 5-byte varint, in place of the first id (a 1-byte varint, flag 0).
        out.set([0xfe, 0xff, 0xff, 0xff, 0x0f], 0);
        out.set(raw.subarray(1), 5);
        return out.subarray(0, raw.length + 4);
      },
    }),
  inflateBombV4: () =>
    listsInRowsPages({
      gz: (stored) => {
        const out = stored.slice();
        new DataView(out.buffer).setUint32(out.length - 4, 0xffffffff, true);
        return out;
      },
    }),
  listsInRowsV3: async () => {
    const p = piecesOf(await honestPages(3));
    p.directory.listsInRows = true;
    return assemble(p);
  },
  movedDfV4: () =>
    listsInRowsPages({
      pieces: (p) => {
        const c = p.open.df.findIndex((x) => x > 1);
        const d = p.open.df.findIndex((x, i) => i !== c && x > 0);
        p.open.df[c] -= 1;
        p.open.df[d] += 1;
      },
    }),
  // Version 6, the lists kept in the rows coded by concept: honest; the first list's first gap a run of 256 ones (a
  // chunk past the last); one byte past the coded lists and counts; two chunks' concept counts moved by one each
  // (the sums agree, the lists do not put the chunks in as many of them).
  honestV6: () => honestPages(6),
  riceChunkPastV6: () =>
    listsInRowsPages(
      {
        change: (raw) => {
          const out = raw.slice();
          out.fill(0xff, 0, 32);
          return out;
        },
      },
      6,
    ),
  ricePastEndV6: () =>
    listsInRowsPages(
      {
        change: (raw) => {
          const out = new Uint8Array(raw.length + 1);
          out.set(raw);
          return out;
        },
      },
      6,
    ),
  movedCountsV6: () =>
    listsInRowsPages(
      {
        pieces: (p) => {
          const a = p.open.conceptCounts.findIndex((x) => x > 1);
          const b = p.open.conceptCounts.findIndex((x, i) => i !== a && x > 0);
          p.open.conceptCounts[a] -= 1;
          p.open.conceptCounts[b] += 1;
        },
      },
      6,
    ),
  zeroCountV3: () => zeroCountPages(),
  noSharesV3: () => shareParamPages(undefined),
  nanSharesV3: () => shareParamPages({ tfSpread: Number.NaN, chunkScorePower: 1 }),
  tinyDegrees: () => tinyDegreePages(2),
  tinyDegreesV1: () => tinyDegreePages(1),
  tinySectionDegrees: () => tinyDegreePages(2, 1e-300, { keepCodes: true }),
  wrongDegrees: () => bracketedDegreePages(),
  hugeCount: () => hugeCountPages(),
  hugeSentences: () => hugeSentencesPages(),
  unendingPostings: () => unendingPostingsPages(),
} satisfies Record<string, () => Promise<WrittenPagesLike>>;

export const CRAFTED_BUNDLES = {
  negativeIdf: negativeIdfBundle,
  infiniteOffset: infiniteOffsetBundle,
  honestV3: async () => pagesBundle(await honestPages(3)),
  rowsPastIds: () => rowsMiscountedBundle('past'),
  rowsShort: () => rowsMiscountedBundle('short'),
  aliasedManifest: aliasedManifestBundle,
  forgedShare: forgedShareBundle,
} satisfies Record<string, () => Promise<Uint8Array>>;
