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
  honestPages,
  hugeCountPages,
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
  aliasedManifest: aliasedManifestBundle,
  forgedShare: forgedShareBundle,
} satisfies Record<string, () => Promise<Uint8Array>>;
