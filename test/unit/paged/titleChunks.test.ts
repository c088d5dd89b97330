// A part's `titleChunks` (the question blend's unit, retrieval/questionBlend.ts) is checked at open like every other
// per-chunk count: a length other than the chunk count, a title smaller than its document or larger than the library
// is refused naming the file, before the blend reads it. A part without it (written before) opens.
import { describe, expect, it } from 'vitest';
import type { OpenTables, PagesDirectory } from '../../../src/core/paged/format.ts';
import { checkOpen } from '../../../src/core/paged/format.ts';

const directory = {
  version: 2,
  chunkCount: 3,
  conceptCount: 1,
  termCount: 1,
  groups: { records: 64, terms: 64, concepts: 64, rows: 64 },
  sections: { records: [0, 10], terms: [0, 10], concepts: [0, 10], rows: [0, 10], lists: [0, 10] },
} as unknown as PagesDirectory;

function openWith(titleChunks?: Uint32Array): OpenTables {
  return {
    textLengths: new Float32Array(3),
    headingLengths: new Float32Array(3),
    conceptCounts: Uint32Array.from([1, 0, 0]),
    tokens: new Uint32Array(3),
    documentChunks: Uint32Array.from([1, 2, 2]),
    ...(titleChunks ? { titleChunks } : {}),
    df: Uint32Array.from([1]),
    idf: Float32Array.from([1]),
    degreeCodes: new Uint8Array(1),
    listOffsets: Float64Array.from([0, 10]),
    recordGroups: Float64Array.from([0, 10]),
    termGroups: Float64Array.from([0, 10]),
    conceptGroups: Float64Array.from([0, 10]),
    rowGroups: Float64Array.from([0, 10]),
    termFirst: ['a'],
    conceptFirst: ['a'],
  };
}

describe('titleChunks in a part’s open', () => {
  it('opens with honest counts, and without them (a part written before)', () => {
    expect(() => checkOpen('lib.bundle', directory, openWith(Uint32Array.from([3, 3, 3])))).not.toThrow();
    expect(() => checkOpen('lib.bundle', directory, openWith())).not.toThrow();
  });

  it('refuses a wrong length, a title smaller than its document or larger than the library, naming the file', () => {
    expect(() => checkOpen('lib.bundle', directory, openWith(Uint32Array.from([3, 3])))).toThrow(
      /lib\.bundle: pages\.bin \(open\) has 2 titleChunks, expected 3/,
    );
    expect(() => checkOpen('lib.bundle', directory, openWith(Uint32Array.from([1, 1, 2])))).toThrow(
      /lib\.bundle: pages\.bin \(open\) gives chunk 1 a title of 1 chunks/,
    );
    expect(() => checkOpen('lib.bundle', directory, openWith(Uint32Array.from([1, 2, 4e9])))).toThrow(
      /gives chunk 2 a title of 4000000000 chunks/,
    );
  });
});
