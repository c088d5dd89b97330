// The reads of each BlockStore fetchBlocks call go out together (a few in flight), after the previous call's have come
// back: a call is one stage of a question's reads on the wire. Counted by wrapping the method (a bench-only patch), for
// the slow-link estimates of question-bytes.ts and pagefind-bytes.ts; `watch` sets what the next calls count into.
import { BlockStore } from '../../../src/core/paged/blockStore.ts';
import type { TaggedSource } from './taggedSource.ts';

export interface Stages {
  source: TaggedSource;
  /** Reads sent in each stage, in order. */
  reads: number[];
}

let watched: Stages | undefined;

/** Counts the stages of the store's reads into `stages` (undefined: stop counting). */
export function watchStages(stages: Stages | undefined): void {
  watched = stages;
}

const storeProto = BlockStore.prototype as unknown as { fetchBlocks(...args: unknown[]): Promise<void> };
const fetchBlocksOf = storeProto.fetchBlocks;
storeProto.fetchBlocks = async function (this: unknown, ...args: unknown[]) {
  const stages = watched;
  const before = stages?.source.reads.length ?? 0;
  await fetchBlocksOf.apply(this, args);
  const sent = (stages?.source.reads.length ?? 0) - before;
  if (sent > 0) stages?.reads.push(sent);
};
