// What a hostile pages case does, as a function a worker can run under a time limit (boundedRun.ts): open the pages
// of a named crafted index from memory and ask a question in the default mode, reporting the hits or the refusal.
import { PagedLibrary } from '../../src/core/paged/library.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import {
  aliasedManifestBundle,
  bracketedDegreePages,
  infiniteOffsetBundle,
  negativeIdfBundle,
  honestPages,
  hugeCountPages,
  hugeSentencesPages,
  PAGES_QUESTION,
  tinyDegreePages,
  unendingPostingsPages,
  type WrittenPagesLike,
} from './hostilePages.ts';

export const CRAFTED = {
  honest: () => honestPages(2),
  honestV1: () => honestPages(1),
  tinyDegrees: () => tinyDegreePages(2),
  tinyDegreesV1: () => tinyDegreePages(1),
  wrongDegrees: () => bracketedDegreePages(),
  hugeCount: () => hugeCountPages(),
  hugeSentences: () => hugeSentencesPages(),
  unendingPostings: () => unendingPostingsPages(),
} satisfies Record<string, () => Promise<WrittenPagesLike>>;

/** Opens written pages from memory and asks `question` in `mode`: the chunk ids it shows. */
export async function askPages(
  written: WrittenPagesLike,
  question = PAGES_QUESTION,
  mode = 'ppr',
): Promise<string[]> {
  const library = await PagedLibrary.open(
    new MemoryRangeSource(written.data, 'crafted.bundle'),
    { base: 0, length: written.data.length, directory: written.directory, hashes: written.hashes },
    createTermAnalyzer(),
  );
  const answer = await library.search(question, mode, 800);
  return answer.hits.map((h) => h.chunkId);
}

/** askPages over the crafted index of that name. */
export async function askCrafted(name: keyof typeof CRAFTED, mode = 'ppr'): Promise<string[]> {
  return askPages(await CRAFTED[name](), PAGES_QUESTION, mode);
}

/**
 * `cli upgrade`'s work on a crafted bundle, in memory: the bytes it would write (counted, not kept), or its refusal.
 */
export async function upgradeCrafted(
  name: 'negativeIdf' | 'infiniteOffset' | 'aliasedManifest',
): Promise<number> {
  const { readManifestByRanges, upgradeBundleParts } = await import('../../src/core/paged/index.ts');
  const { writeBundle } = await import('../../src/core/bundle/index.ts');
  const make = {
    negativeIdf: negativeIdfBundle,
    infiniteOffset: infiniteOffsetBundle,
    aliasedManifest: aliasedManifestBundle,
  };
  const source = new MemoryRangeSource(await make[name](), 'crafted.bundle');
  const manifest = await readManifestByRanges(source);
  const { parts, base } = await upgradeBundleParts(source, manifest!);
  let bytes = 0;
  for await (const piece of writeBundle(parts, base)) bytes += piece.length;
  return bytes;
}
