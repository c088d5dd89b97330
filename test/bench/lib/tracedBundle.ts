// A bundle opened from memory beside a trace of the reads questions made on it (`link-sim.ts --trace`), for the models
// that replay those reads against another layout of the hashes (hash-shapes.ts, block-paths.ts): the two positional
// arguments, the directory, and the block store's layout and hash levels (private fields, read for the model only).
import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { openPagedBundle } from '../../../src/core/paged/index.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import type { BlockLayout } from '../../../src/core/paged/blockLayout.ts';
import type { PagedHashes } from '../../../src/core/paged/blockStore.ts';
import type { PagesDirectory } from '../../../src/core/paged/format.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';

interface TracedStore {
  layout: BlockLayout;
  base: number;
  length: number;
  hashes: PagedHashes;
  levels: Array<{ at: number; length: number; pageSize: number; entry: number }>;
}

/** The command line's `<x.bundle> <trace.jsonl>` (refused with `usage` when either is missing), the bundle opened. */
export async function openTracedBundle(
  usage: string,
): Promise<{ bundlePath: string; tracePath: string; directory: PagesDirectory; store: TracedStore }> {
  const [bundlePath, tracePath] = process.argv
    .slice(2)
    .filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
  if (!bundlePath || !tracePath) throw new Error(usage);
  const data = new Uint8Array(await readFile(bundlePath));
  const opened = await openPagedBundle(new MemoryRangeSource(data, bundlePath), createTermAnalyzer());
  if (!opened) throw new Error(`${bundlePath}: has no pages`);
  const { directory } = opened.library.reader;
  const store = opened.library.reader.store as unknown as TracedStore;
  return { bundlePath, tracePath, directory, store };
}

/** The lower median (the benches' p50). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.ceil(s.length / 2) - 1];
}
