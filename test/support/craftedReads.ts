// What a worker runs on a crafted index or bundle under a time limit (boundedRun.ts): the reader asked a question,
// or `cli upgrade`'s work, over bytes the test made in its own process (pagedCases.ts). Only the reader and the
// upgrade are imported here, so each case's worker loads them alone, not the writer and the parsers that made the
// honest pages the cases are crafted from.
import { writeBundle } from '../../src/core/bundle/index.ts';
import {
  conceptNeighbourhood,
  readManifestByRanges,
  upgradeBundleParts,
} from '../../src/core/paged/index.ts';
import { PagedLibrary } from '../../src/core/paged/library.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
// A type only: erased, so the writer is not loaded.
import type { WrittenPagesLike } from './hostilePages.ts';

/** Opens written pages from memory and asks `question` in `mode`: the chunk ids it shows. */
export async function askPages(written: WrittenPagesLike, question: string, mode = 'ppr'): Promise<string[]> {
  const library = await PagedLibrary.open(
    new MemoryRangeSource(written.data, 'crafted.bundle'),
    { base: 0, length: written.data.length, directory: written.directory, hashes: written.hashes },
    createTermAnalyzer(),
  );
  const answer = await library.search(question, mode, 800);
  return answer.hits.map((h) => h.chunkId);
}

/** Opens written pages from memory and draws the Graph view's library-wide side: its concepts' degrees. */
export async function graphPages(written: WrittenPagesLike): Promise<number[]> {
  const library = await PagedLibrary.open(
    new MemoryRangeSource(written.data, 'crafted.bundle'),
    { base: 0, length: written.data.length, directory: written.directory, hashes: written.hashes },
    createTermAnalyzer(),
  );
  const map = await conceptNeighbourhood(library.reader, { limit: 20 });
  return map.value.nodes.map((n) => n.degree);
}

/** `cli upgrade`'s work on a bundle, in memory: the bytes it would write (counted, not kept), or its refusal. */
export async function upgradeBytes(bundle: Uint8Array, listsInRowsBytes?: number): Promise<number> {
  const source = new MemoryRangeSource(bundle, 'crafted.bundle');
  const manifest = await readManifestByRanges(source);
  const { parts, base } = await upgradeBundleParts(source, manifest!, listsInRowsBytes);
  let bytes = 0;
  for await (const piece of writeBundle(parts, base)) bytes += piece.length;
  return bytes;
}
