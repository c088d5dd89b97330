// Version 2 pages (format.ts, compactOpen.ts): a smaller `open` section that answers exactly as version 1 and as the
// engine in memory. The walk decides its pushes from one-byte degree brackets and reads an exact degree only inside
// a bracket; the IDF and the list offsets are recomputed at open; version 1 pages are still read, and `cli upgrade`
// turns them into the version 2 pages the writer makes directly, byte for byte.
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bundleBytes, readBundle, writeBundle } from '../../../src/core/bundle/index.ts';
import { decodeStructured, jsonlPart } from '../../../src/core/bundle/codecs.ts';
import {
  PersonalizedPageRank,
  weightedDegrees,
  type RowSource,
  type WalkDegrees,
} from '../../../src/core/graph/index.ts';
import type { ConceptGraph } from '../../../src/core/graph/cooccurrence.ts';
import { degreeCode, degreeLower, degreeUpper, idfDfOf } from '../../../src/core/paged/compactOpen.ts';
import { PagedLibrary } from '../../../src/core/paged/library.ts';
import { openPagedBundle, readManifestByRanges } from '../../../src/core/paged/openBundle.ts';
import { MemoryRangeSource, type RangeSource } from '../../../src/core/paged/rangeSource.ts';
import { upgradeBundleParts } from '../../../src/core/paged/upgrade.ts';
import { DEFAULT_GROUPS, pagesParts, writePagedIndex } from '../../../src/core/paged/write.ts';
import { RetrievalEngine } from '../../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';
import { REPO_DOCS, REPO_RESULTS } from '../../support/repoDocs.ts';
import { preparedCorpus } from '../../support/builtOnce.ts';

/** A random graph with float32 weights, some nodes without edges, rows ascending (a deterministic LCG). */
function randomGraph(n: number, seed: number): ConceptGraph {
  let x = seed;
  const next = (): number => (x = (x * 48271) % 2147483647) / 2147483647;
  const rows: Array<Map<number, number>> = Array.from({ length: n }, () => new Map());
  for (let u = 0; u < n; u++) {
    if (u % 7 === 3) continue;
    const edges = 1 + Math.floor(next() * 12);
    for (let i = 0; i < edges; i++) {
      const v = Math.floor(next() * n);
      if (v === u || v % 7 === 3) continue;
      const w = Math.fround(0.02 + next() * 1.5);
      rows[u].set(v, w);
      rows[v].set(u, w);
    }
  }
  const offsets = new Uint32Array(n + 1);
  const targets: number[] = [];
  const weights: number[] = [];
  for (let u = 0; u < n; u++) {
    for (const v of [...rows[u].keys()].sort((a, b) => a - b)) {
      targets.push(v);
      weights.push(rows[u].get(v)!);
    }
    offsets[u + 1] = targets.length;
  }
  return {
    nodeCount: n,
    offsets,
    targets: Uint32Array.from(targets),
    co: new Uint32Array(targets.length).fill(1),
    weights: Float32Array.from(weights),
  };
}

function rowsOf(graph: ConceptGraph, withDegree: boolean): RowSource {
  return {
    nodeCount: graph.nodeCount,
    row: (u) => {
      const targets = graph.targets.subarray(graph.offsets[u], graph.offsets[u + 1]);
      const weights = graph.weights.subarray(graph.offsets[u], graph.offsets[u + 1]);
      if (!withDegree) return { targets, weights };
      let degree = 0;
      for (const w of weights) degree += w;
      return { targets, weights, degree };
    },
  };
}

describe('degree brackets', () => {
  it('hold every degree, are 0 only for 0, and are at most 6.25% wide from 1 to 2^15', () => {
    const values = [
      0,
      1e-9,
      0.001,
      0.5,
      1,
      1 + 1e-12,
      1.0625,
      1.07,
      2,
      3.999,
      4,
      100.5,
      169.006,
      30000,
      61440,
      1e6,
    ];
    let x = 7;
    for (let i = 0; i < 5000; i++) values.push((x = (x * 48271) % 2147483647) / 2 ** 21);
    for (const d of values) {
      const code = degreeCode(d);
      expect(code >= 0 && code <= 255 && Number.isInteger(code)).toBe(true);
      expect(code === 0).toBe(d === 0);
      expect(degreeUpper(code)).toBeGreaterThanOrEqual(d);
      if (code > 0) expect(degreeLower(code)).toBeLessThan(d);
      else expect(degreeLower(code)).toBe(0);
      if (d > 1 && d < 2 ** 15) expect(degreeUpper(code) / degreeLower(code)).toBeLessThanOrEqual(1.0625);
    }
    expect(() => degreeCode(-1)).toThrow('≥ 0');
    expect(() => degreeCode(Number.NaN)).toThrow('≥ 0');
  });
});

describe('the IDF from its df', () => {
  it('finds a df that gives the stored float32 IDF exactly', () => {
    for (const n of [7, 1000, 1_021_511]) {
      for (const d of [1, 2, 3, Math.floor(n / 3), Math.floor(n / 2), n - 1, n]) {
        if (d < 1 || d > n) continue;
        const idf = Math.fround(Math.log(n / d));
        const found = idfDfOf(n, idf, 1);
        expect(found).toBeDefined();
        expect(Math.fround(Math.log(n / found!))).toBe(idf);
      }
    }
    // No df gives an IDF the engine cannot compute.
    expect(idfDfOf(1000, Math.fround(Math.log(1000 / 3.5)), 1)).toBeUndefined();
  });
});

describe('the walk over degree brackets', () => {
  it('scores as the walk with exact degrees, whatever the brackets, asking exact degrees only inside them', () => {
    const graph = randomGraph(3000, 42);
    const degrees = weightedDegrees(graph);
    const inMemory = new PersonalizedPageRank(graph);
    const brackets = (lower: (u: number) => number, upper: (u: number) => number) => {
      let asked = 0;
      const walk: WalkDegrees = {
        lower,
        upper,
        exact: (u) => {
          asked++;
          return degrees[u];
        },
      };
      return { walk, asked: () => asked };
    };
    const coded = brackets(
      (u) => degreeLower(degreeCode(degrees[u])),
      (u) => degreeUpper(degreeCode(degrees[u])),
    );
    const open = brackets(
      (u) => (degrees[u] === 0 ? 0 : Number.MIN_VALUE),
      (u) => (degrees[u] === 0 ? 0 : Infinity),
    );
    const walkers = [
      new PersonalizedPageRank(rowsOf(graph, false), degrees),
      new PersonalizedPageRank(rowsOf(graph, false), coded.walk),
      new PersonalizedPageRank(rowsOf(graph, true), coded.walk),
      new PersonalizedPageRank(rowsOf(graph, true), open.walk),
    ];
    for (const seeds of [
      new Map([[0, 1]]),
      new Map([
        [5, 2],
        [17, 1],
        [3, 1],
      ]),
      new Map([[11, 1]]),
    ]) {
      for (const epsilon of [1e-3, 1e-5]) {
        const expected = inMemory.run(seeds, 0.85, epsilon);
        const nodes = [...expected.nodes];
        const scores = nodes.map((v) => expected.scores[v]);
        expect(nodes.length).toBeGreaterThan(20);
        for (const walker of walkers) {
          const got = walker.run(seeds, 0.85, epsilon);
          expect([...got.nodes]).toEqual(nodes);
          expect(nodes.map((v) => got.scores[v])).toEqual(scores);
        }
      }
    }
    // The brackets decide most tests: exact degrees are asked far less often than with no bracket at all.
    expect(coded.asked()).toBeGreaterThan(0);
    expect(coded.asked() * 5).toBeLessThan(open.asked());
  });
});

/** Each corpus's engine, built once for the whole file (the tests only read it). */
const engines = new Map<string, ReturnType<typeof buildEngine>>();
function engineOf(path: string) {
  if (!engines.has(path)) engines.set(path, buildEngine(path));
  return engines.get(path)!;
}

async function buildEngine(path: string) {
  const corpus = await preparedCorpus(path, 1200);
  const analyzer = createTermAnalyzer();
  return {
    engine: RetrievalEngine.build({ chunks: corpus.retrievalChunks, sentences: corpus.sentences }, analyzer),
    analyzer,
  };
}

/** The stored `open` value of written pages (gunzip'd, as the bundle holds it: varints, residuals, bitmaps). */
function piecesOfOpen(written: { data: Uint8Array; directory: { sections: { open: [number, number] } } }) {
  const [at, length] = written.directory.sections.open;
  return decodeStructured<{ dfOnes: Uint8Array; listSizes?: Uint8Array; listStarts: Uint8Array }>(
    new Uint8Array(gunzipSync(written.data.subarray(at, at + length))),
    'open',
  );
}

/** The set bits of a byte. */
function popcount(byte: number): number {
  let bits = 0;
  for (let b = byte; b; b &= b - 1) bits++;
  return bits;
}

const QUESTIONS = [
  'How do I open a bundle from a URL?',
  'What does the keep-mask store for the concept graph?',
  'Which parts of a bundle are gzip compressed and why?',
  'What limits protect the reader from a hostile bundle?',
];

/**
 * A written part's block hashes as a version 8 writer must make them: the first 16 bytes of the SHA-256 of each cut
 * (a block of its zone), in order, then the leaf pages' hashes when there are more than 64 leaf pages of 128 bytes.
 */
function expectBlockHashes(
  written: { data: Uint8Array; hashes: Uint8Array },
  cuts: Array<[number, number]>,
): void {
  const leaves = Buffer.concat(
    cuts.map(([from, to]) =>
      createHash('sha256').update(written.data.subarray(from, to)).digest().subarray(0, 16),
    ),
  );
  expect(Buffer.from(written.hashes.subarray(0, leaves.length)).equals(leaves)).toBe(true);
  const leafPages = Math.ceil(leaves.length / 128);
  expect(written.hashes.length).toBe(leaves.length + (leafPages > 64 ? leafPages * 16 : 0));
}

/**
 * Version 10's blocks of whole rows as a writer must cut them, from the concept table rather than the writer: each
 * chunk's row is the varints of its concept ids' gaps; rows are packed in order into blocks of at most `size` bytes,
 * a longer row a block of its own. Cuts are [from, to) in the part, the rows section starting at `rowsAt`.
 */
function wholeRowCuts(
  table: { chunkCount: number; chunkConceptOffsets: ArrayLike<number>; chunkConcepts: ArrayLike<number> },
  rowsAt: number,
  size: number,
): Array<[number, number]> {
  const varintBytes = (x: number) => {
    let bytes = 1;
    for (; x >= 128; x = Math.floor(x / 128)) bytes++;
    return bytes;
  };
  const cuts: Array<[number, number]> = [];
  let start = rowsAt;
  let at = rowsAt;
  for (let k = 0; k < table.chunkCount; k++) {
    let row = 0;
    let previous = 0;
    for (let j = table.chunkConceptOffsets[k]; j < table.chunkConceptOffsets[k + 1]; j++) {
      row += varintBytes(table.chunkConcepts[j] - previous);
      previous = table.chunkConcepts[j];
    }
    if (at + row - start > size && at > start) {
      cuts.push([start, at]);
      start = at;
    }
    at += row;
  }
  if (at > start) cuts.push([start, at]);
  return cuts;
}

describe('version 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 12 pages', () => {
  it('answer as version 1 and the engine, from a smaller open section (2), smaller lists (3), lists in the rows (4), small blocks and row groups (5), varints in open and the lists in the rows coded by concept (6), 1 KiB blocks for lists in the rows and a tree of hash pages (7), the rows in blocks of their own (8), no degree codes of concepts in one chunk (9), tokens and row group sizes as residuals, the rows in blocks of whole rows and records coded with a dictionary (10), concept counts, group and list sizes and document sizes coded smaller (11), the lists packed into blocks with their counts in 4 bits (12)', async () => {
    const { engine, analyzer } = await engineOf(REPO_DOCS);
    const parts = engine.lexicalParts();
    const doc = (docId: string) => ({ title: `title of ${docId}` });
    const v1 = await writePagedIndex(parts, doc, 1024, 1);
    const v2 = await writePagedIndex(parts, doc, 1024, 2);
    const v3 = await writePagedIndex(parts, doc, 1024, 3);
    const v4 = await writePagedIndex(parts, doc, 1024, 4);
    const v4lists = await writePagedIndex(parts, doc, 1024, 4, undefined, 0);
    // Version 5, the block size not given: a library that keeps its lists in its rows keeps 2 KiB blocks; told not
    // to keep them (as a large library does not), 512-byte blocks and rows in groups of 2.
    const v5 = await writePagedIndex(parts, doc, undefined, 5);
    const v5large = await writePagedIndex(parts, doc, undefined, 5, undefined, 0);
    // Version 6: `open` with its counts, lengths and group sizes as varints, and the lists kept in the rows coded by
    // concept (listsInRows.ts); the layout is version 5's.
    const v6 = await writePagedIndex(parts, doc, undefined, 6);
    const v6large = await writePagedIndex(parts, doc, undefined, 6, undefined, 0);
    // Version 7: version 6's bytes, in 1 KiB blocks when the lists are kept in the rows, under a tree of hash pages
    // (format.ts, hashLevels).
    const v7 = await writePagedIndex(parts, doc, undefined, 7);
    const v7large = await writePagedIndex(parts, doc, undefined, 7, undefined, 0);
    // Version 8: version 7's small layout's bytes, with blocks of their own size for open, terms, postings, concepts,
    // rows and degrees; the large one's rows one chunk a group, and blocks of their own size for open, records,
    // postings, lists, rows and degrees (blockLayout.ts).
    const v8 = await writePagedIndex(parts, doc, undefined, 8);
    const v8large = await writePagedIndex(parts, doc, undefined, 8, undefined, 0);
    // Version 9: version 8's layouts, `open` without the degree codes of one-chunk concepts.
    const v9 = await writePagedIndex(parts, doc, undefined, 9);
    const v9large = await writePagedIndex(parts, doc, undefined, 9, undefined, 0);
    expect([v9.directory.version, v9large.directory.version]).toEqual([9, 9]);
    // Version 10: version 9's sections but `open`, whose tokens and row group sizes are residuals (the directory's
    // openResiduals), and the records, positional and deflated with a dictionary (recordCoding.ts); the large
    // layout's rows in blocks of whole rows of at most 128 bytes (rowBlocks) instead of 128-byte blocks.
    const v10 = await writePagedIndex(parts, doc, undefined, 10);
    const v10large = await writePagedIndex(parts, doc, undefined, 10, undefined, 0);
    expect([v10.directory.version, v10large.directory.version]).toEqual([10, 10]);
    // Version 11: version 10's sections but `open`, whose concept counts, row and record group sizes, list sizes and
    // document sizes are coded smaller (the directory's openCoding).
    const v11 = await writePagedIndex(parts, doc, undefined, 11);
    const v11large = await writePagedIndex(parts, doc, undefined, 11, undefined, 0);
    expect([v11.directory.version, v11large.directory.version]).toEqual([11, 11]);
    // Version 12 (the writers' default is 13, blockPaths.test.ts): the large layout's lists packed into 128-byte blocks with their counts in 4
    // bits, `open` holding how many lists start in each block in place of their sizes (the directory's listCoding);
    // the small layout (no lists section) is version 11's, byte for byte.
    const v12 = await writePagedIndex(parts, doc, undefined, 12);
    // listCoding alone (the writers' evidence blocks, evidenceArrays, have their own test: evidenceArrays.test.ts).
    const v12large = await writePagedIndex(parts, doc, undefined, 12, undefined, 0, undefined, undefined, 0);
    expect([v12.directory.version, v12large.directory.version]).toEqual([12, 12]);
    expect(Buffer.from(v12.data).equals(Buffer.from(v11.data))).toBe(true);
    expect({ ...v12.directory, version: 11 }).toEqual(v11.directory);
    {
      const {
        version: _v,
        sections: s12,
        hashPages: _h,
        listCoding,
        openCoding: c12,
        ...rest12
      } = v12large.directory;
      const {
        version: _v11,
        sections: s11,
        hashPages: _h11,
        openCoding: c11,
        ...rest11
      } = v11large.directory;
      expect(rest12).toEqual(rest11);
      expect(listCoding).toEqual({ blockBytes: 128 });
      // No list sizes: their slope is 0, every other slope version 11's.
      expect(c12).toEqual({ ...c11, listBytesPerBit: 0 });
      expect(c11!.listBytesPerBit).toBeGreaterThan(0);
      // The sections before the lists and after them are version 11's, byte for byte.
      for (const name of ['records', 'terms', 'postings', 'concepts', 'rows', 'degrees'] as const)
        expect(
          Buffer.from(v12large.data.subarray(s12[name][0], s12[name][0] + s12[name][1])).equals(
            Buffer.from(v11large.data.subarray(s11[name][0], s11[name][0] + s11[name][1])),
          ),
          name,
        ).toBe(true);
      const stored = piecesOfOpen(v12large);
      expect(stored.listSizes).toBeUndefined();
      expect(piecesOfOpen(v11large).listSizes).toBeInstanceOf(Uint8Array);
      // One varint a 128-byte block of the lists section: how many lists start in it, all the concepts in all.
      const blocks = Math.ceil(s12.lists[1] / 128);
      const starts: number[] = [];
      for (let at = 0; at < stored.listStarts.length;) {
        let v = 0;
        let scale = 1;
        for (;;) {
          const b = stored.listStarts[at++];
          v += (b & 127) * scale;
          scale *= 128;
          if (b < 128) break;
        }
        starts.push(v);
      }
      expect(starts.length).toBe(blocks);
      expect(starts.reduce((a, b) => a + b, 0)).toBe(v12large.directory.conceptCount);
      expect(starts.every((count, b) => count > 0 || b > 0)).toBe(true);
    }
    for (const [older, newer] of [
      [v10, v11],
      [v10large, v11large],
    ] as const) {
      const s10 = older.directory.sections;
      const s11 = newer.directory.sections;
      expect(s11.open[1]).toBeLessThan(s10.open[1]);
      // Every section after `open` is version 10's, byte for byte.
      expect(
        Buffer.from(newer.data.subarray(s11.records[0])).equals(
          Buffer.from(older.data.subarray(s10.records[0])),
        ),
      ).toBe(true);
      const { version: _v, sections: _s, hashPages: _h, openCoding, ...rest11 } = newer.directory;
      const { version: _v10, sections: _s10, hashPages: _h10, ...rest10 } = older.directory;
      expect(rest11).toEqual(rest10);
      expect(older.directory.openCoding).toBeUndefined();
      expect(Object.keys(openCoding!)).toEqual([
        'countsPerLength',
        'rowBytesPerCount',
        'recordBytesPerLength',
        'listBytesPerBit',
        'documentRuns',
      ]);
    }
    for (const [older, newer] of [
      [v9, v10],
      [v9large, v10large],
    ] as const) {
      const s9 = older.directory.sections;
      const s10 = newer.directory.sections;
      expect(s10.open[1]).toBeLessThan(s9.open[1]);
      expect(s10.records[1]).toBeLessThan(s9.records[1] * 0.85);
      expect(newer.directory.recordCoding!.dictionary).toBeGreaterThan(0);
      expect(older.directory.recordCoding).toBeUndefined();
      expect(
        Buffer.from(newer.data.subarray(s10.terms[0])).equals(Buffer.from(older.data.subarray(s9.terms[0]))),
      ).toBe(true);
      const {
        version: _v,
        sections: _s,
        hashPages: _h,
        sectionBlocks: _b,
        rowBlocks: _r,
        recordCoding: _c,
        openResiduals,
        ...rest10
      } = newer.directory;
      const { version: _v9, sections: _s9, hashPages: _h9, sectionBlocks: _b9, ...rest9 } = older.directory;
      expect(rest10).toEqual(rest9);
      expect(older.directory.openResiduals).toBeUndefined();
      expect(Number.isSafeInteger(openResiduals?.tokensPerLength)).toBe(true);
    }
    // The small layout: no blocks of whole rows (its rows are one group read whole), its blocks by section as before.
    expect(v10.directory.rowBlocks).toBeUndefined();
    expect(v10.directory.sectionBlocks).toEqual(v9.directory.sectionBlocks);
    {
      const { rows: rows9, ...others9 } = v9large.directory.sectionBlocks!;
      expect(rows9).toBe(128);
      const { sectionBlocks, rowBlocks } = v10large.directory;
      expect(sectionBlocks).toEqual(others9);
      const s = v10large.directory.sections;
      const end = (name: keyof typeof s) => s[name][0] + s[name][1];
      const rowCuts = wholeRowCuts(parts.table, s.rows[0], 128);
      expect(rowBlocks).toEqual({ size: 128, count: rowCuts.length });
      // Whole rows: fewer blocks than rows (some hold two or more), and a block longer than 128 bytes holds one row.
      expect(rowCuts.length).toBeLessThan(parts.table.chunkCount);
      expect(rowCuts.length).toBeGreaterThan(Math.ceil(s.rows[1] / 128));
      const cuts: Array<[number, number]> = [];
      const cut = (from: number, to: number, size: number) => {
        for (let at = from; at < to; at += size) cuts.push([at, Math.min(to, at + size)]);
      };
      cut(0, end('open'), 65536);
      cut(s.records[0], end('records'), 1024);
      cut(s.terms[0], end('terms'), 512);
      cut(s.postings[0], end('postings'), 1024);
      cut(s.concepts[0], end('concepts'), 512);
      cut(s.lists[0], end('lists'), 128);
      cuts.push(...rowCuts);
      cut(s.degrees[0], v10large.data.length, 4096);
      expectBlockHashes(v10large, cuts);
    }
    for (const [older, newer] of [
      [v8, v9],
      [v8large, v9large],
    ] as const) {
      // Every section but `open` the same bytes; `open` smaller; the directory the same but for its version, where
      // the sections lie and the top list of hash pages.
      const [at8, length8] = older.directory.sections.open;
      const [at9, length9] = newer.directory.sections.open;
      expect(length9).toBeLessThan(length8);
      expect(
        Buffer.from(newer.data.subarray(at9 + length9)).equals(
          Buffer.from(older.data.subarray(at8 + length8)),
        ),
      ).toBe(true);
      const strip = (d: typeof v8.directory) => {
        const { version: _v, sections: _s, hashPages: _h, ...rest } = d;
        return rest;
      };
      expect(strip(newer.directory)).toEqual(strip(older.directory));
    }
    expect([v8.directory.version, v8large.directory.version]).toEqual([8, 8]);
    expect(Buffer.from(v8.data).equals(Buffer.from(v7.data))).toBe(true);
    // The same directory but for the version, the blocks by section and the hash tree's top (its hashes are new).
    const { sectionBlocks: smallBlocks, hashPages: smallTree, ...smallRest } = v8.directory;
    const { hashPages: tree7, ...rest7 } = v7.directory;
    expect({ ...smallRest, version: 7 }).toEqual(rest7);
    expect(smallTree?.size).toBe(tree7?.size);
    expect(smallBlocks).toEqual({
      open: 65536,
      terms: 256,
      postings: 256,
      concepts: 256,
      rows: 65536,
      degrees: 4096,
    });
    expect([
      v8large.directory.blockSize,
      v8large.directory.sectionBlocks,
      v8large.directory.groups.rows,
    ]).toEqual([
      512,
      { open: 65536, records: 1024, postings: 1024, lists: 128, rows: 128, degrees: 4096 },
      1,
    ]);
    // The small layout's block hashes: open in 64 KiB, records in 1 KiB (the part's block size), terms, postings and
    // concepts together in 256 B (one zone: the same size, side by side), no lists, rows in 64 KiB, degrees in 4 KiB.
    {
      const cuts: Array<[number, number]> = [];
      const cut = (from: number, to: number, size: number) => {
        for (let at = from; at < to; at += size) cuts.push([at, Math.min(to, at + size)]);
      };
      const s = v8.directory.sections;
      const end = (name: keyof typeof s) => s[name][0] + s[name][1];
      expect([v8.directory.blockSize, s.lists[1]]).toEqual([1024, 0]);
      cut(0, end('open'), 65536);
      cut(s.records[0], end('records'), 1024);
      cut(s.terms[0], end('concepts'), 256);
      cut(s.rows[0], end('rows'), 65536);
      cut(s.degrees[0], v8.data.length, 4096);
      expectBlockHashes(v8, cuts);
    }
    // The large layout's rows are version 7's bytes (cut into groups of 1, in open); every block's hash is the first
    // 16 bytes of the SHA-256 of a block of its zone: open in 64 KiB, records in 1 KiB, terms in 512 B, postings in
    // 1 KiB, concepts in 512 B, lists and rows together in 128 B (one zone), degrees in 4 KiB, each zone cut from its
    // own start.
    {
      const [rowsAt, rowsLength] = v8large.directory.sections.rows;
      const [rowsAt7, rowsLength7] = v7large.directory.sections.rows;
      expect(
        Buffer.from(v8large.data.subarray(rowsAt, rowsAt + rowsLength)).equals(
          Buffer.from(v7large.data.subarray(rowsAt7, rowsAt7 + rowsLength7)),
        ),
      ).toBe(true);
      const cuts: Array<[number, number]> = [];
      const cut = (from: number, to: number, size: number) => {
        for (let at = from; at < to; at += size) cuts.push([at, Math.min(to, at + size)]);
      };
      const s = v8large.directory.sections;
      const end = (name: keyof typeof s) => s[name][0] + s[name][1];
      cut(0, end('open'), 65536);
      cut(s.records[0], end('records'), 1024);
      cut(s.terms[0], end('terms'), 512);
      cut(s.postings[0], end('postings'), 1024);
      cut(s.concepts[0], end('concepts'), 512);
      cut(s.lists[0], rowsAt + rowsLength, 128);
      cut(rowsAt + rowsLength, v8large.data.length, 4096);
      expectBlockHashes(v8large, cuts);
      expect(cuts.filter(([from, to]) => to - from === 65536).length).toBe(Math.floor(s.open[1] / 65536));
    }
    expect([v7.directory.version, v7large.directory.version]).toEqual([7, 7]);
    for (const [older, newer] of [
      [v6, v7],
      [v6large, v7large],
    ] as const) {
      expect(Buffer.from(newer.data).equals(Buffer.from(older.data))).toBe(true);
      const { hashPages: _old, version: _v6, blockSize: _b6, ...rest6 } = older.directory;
      const { hashPages, version: _v7, blockSize: _b7, ...rest7 } = newer.directory;
      expect(rest7).toEqual(rest6);
      // Leaves of 128 bytes (8 hashes); above more than 64 of them, a level of 512-byte pages (32 hashes), which
      // follows the block hashes in the part.
      const blocks = Math.ceil(newer.data.length / newer.directory.blockSize);
      const leafPages = Math.ceil((blocks * 16) / 128);
      expect(leafPages).toBeLessThanOrEqual(64 * 32);
      expect([hashPages?.size, hashPages?.levels]).toEqual([128, leafPages > 64 ? [512] : []]);
      expect(newer.hashes.length).toBe(blocks * 16 + (leafPages > 64 ? leafPages * 16 : 0));
    }
    expect([v7.directory.blockSize, v7large.directory.blockSize]).toEqual([1024, 512]);
    expect(v1.directory.version).toBe(1);
    expect(v2.directory.version).toBe(2);
    expect(v3.directory.version).toBe(3);
    expect([v4.directory.version, v4lists.directory.version]).toEqual([4, 4]);
    expect([v5.directory.version, v5large.directory.version]).toEqual([5, 5]);
    expect([v6.directory.version, v6large.directory.version]).toEqual([6, 6]);
    expect([v6.directory.blockSize, v6.directory.listsInRows]).toEqual([2048, true]);
    expect([v7.directory.version, v7large.directory.version]).toEqual([7, 7]);
    expect([v7.directory.blockSize, v7.directory.listsInRows]).toEqual([1024, true]);
    expect(v7large.directory.sectionBlocks).toBeUndefined();
    expect([v7large.directory.blockSize, v7large.directory.groups.rows]).toEqual([512, 2]);
    expect(v6.directory.groups.rows).toBe(v6.directory.chunkCount);
    // The same links and counts in a smaller group: at least a tenth less here (17–24 % on the shared sets).
    expect(v6.directory.sections.rows[1]).toBeLessThan(v5.directory.sections.rows[1] * 0.9);
    // The same layout; `open` smaller; in the large layout every section but `open` the same bytes.
    for (const [older, newer] of [
      [v5, v6],
      [v5large, v6large],
    ] as const) {
      expect(newer.directory.blockSize).toBe(older.directory.blockSize);
      expect(newer.directory.groups).toEqual(older.directory.groups);
      expect(newer.directory.sections.open[1]).toBeLessThan(older.directory.sections.open[1]);
    }
    const [at5, length5] = v5large.directory.sections.open;
    const [at6, length6] = v6large.directory.sections.open;
    expect(
      Buffer.from(v6large.data.subarray(at6 + length6)).equals(
        Buffer.from(v5large.data.subarray(at5 + length5)),
      ),
    ).toBe(true);
    expect([v5.directory.blockSize, v5.directory.listsInRows]).toEqual([2048, true]);
    expect([v5large.directory.blockSize, v5large.directory.groups.rows]).toEqual([512, 2]);
    expect(v5large.directory.listsInRows).toBeUndefined();
    expect(v5large.hashes.length).toBe(Math.ceil(v5large.data.length / 512) * 16);
    // A hash page covers 32 KiB of the part in both layouts: 16 hashes of 2 KiB blocks, 64 of 512-byte ones.
    expect([v5.directory.hashPages?.size, v5large.directory.hashPages?.size]).toEqual([256, 1024]);
    // Its rows are version 3's bytes, cut into groups of 2 chunks: as many group offsets as that makes.
    expect(v5large.directory.sections.rows[1]).toBe(v4lists.directory.sections.rows[1]);
    // A small library keeps its lists in its rows: no lists section, one row group; told not to, version 3's layout.
    expect(v4.directory.listsInRows).toBe(true);
    expect(v4.directory.sections.lists[1]).toBe(0);
    expect(v4.directory.groups.rows).toBe(v4.directory.chunkCount);
    expect(v4lists.directory.listsInRows).toBeUndefined();
    expect(v4lists.directory.sections.lists[1]).toBe(v3.directory.sections.lists[1]);
    expect(v4.data.length).toBeLessThan(v3.data.length);
    expect('degrees' in v1.directory.sections).toBe(false);
    expect(v2.directory.sections.degrees[1]).toBe(v2.directory.conceptCount * 8);
    expect(v2.directory.sections.open[1] * 2).toBeLessThan(v1.directory.sections.open[1]);
    // Version 3's lists lose their shares, 4 bytes a chunk of every list.
    const links = parts.table.conceptChunkOffsets[parts.table.terms.length];
    expect(v3.directory.sections.lists[1]).toBe(v2.directory.sections.lists[1] - 4 * links);
    expect(v3.directory.shares).toEqual({
      tfSpread: parts.params.tfSpread,
      chunkScorePower: parts.params.chunkScorePower,
    });

    const open = async (written: typeof v1, source: RangeSource) =>
      PagedLibrary.open(
        source,
        { base: 0, length: written.data.length, directory: written.directory, hashes: written.hashes },
        analyzer,
      );
    const lib1 = await open(v1, new MemoryRangeSource(v1.data, 'v1'));
    const lib2 = await open(v2, new MemoryRangeSource(v2.data, 'v2'));
    const lib3 = await open(v3, new MemoryRangeSource(v3.data, 'v3'));
    const lib4 = await open(v4, new MemoryRangeSource(v4.data, 'v4'));
    const lib4lists = await open(v4lists, new MemoryRangeSource(v4lists.data, 'v4 with lists'));
    const lib5 = await open(v5, new MemoryRangeSource(v5.data, 'v5'));
    const lib5large = await open(v5large, new MemoryRangeSource(v5large.data, 'v5 large'));
    const lib6 = await open(v6, new MemoryRangeSource(v6.data, 'v6'));
    const lib6large = await open(v6large, new MemoryRangeSource(v6large.data, 'v6 large'));
    const lib7 = await open(v7, new MemoryRangeSource(v7.data, 'v7'));
    const lib7large = await open(v7large, new MemoryRangeSource(v7large.data, 'v7 large'));
    const lib8 = await open(v8, new MemoryRangeSource(v8.data, 'v8'));
    const lib8large = await open(v8large, new MemoryRangeSource(v8large.data, 'v8 large'));
    const lib9 = await open(v9, new MemoryRangeSource(v9.data, 'v9'));
    const lib9large = await open(v9large, new MemoryRangeSource(v9large.data, 'v9 large'));
    const lib10 = await open(v10, new MemoryRangeSource(v10.data, 'v10'));
    const lib10large = await open(v10large, new MemoryRangeSource(v10large.data, 'v10 large'));
    const lib11 = await open(v11, new MemoryRangeSource(v11.data, 'v11'));
    const lib11large = await open(v11large, new MemoryRangeSource(v11large.data, 'v11 large'));
    const lib12large = await open(v12large, new MemoryRangeSource(v12large.data, 'v12 large'));
    // Version 12's `open` gives back version 11's arrays, value for value, but the list offsets (a list is found by
    // its block); every concept's list, chunks, counts and shares, is version 11's.
    {
      const { listOffsets: offsets11, ...o11 } = lib11large.reader.open;
      const { listOffsets: offsets12, listFirsts, ...o12 } = lib12large.reader.open;
      expect(o12).toEqual(o11);
      expect(offsets11.length).toBe(o11.df.length + 1);
      expect(offsets12.length).toBe(0);
      expect(listFirsts![listFirsts!.length - 1]).toBe(o11.df.length);
      const every = (lib: typeof lib11large) =>
        lib.reader.readUntilComplete(() => Array.from(o11.df, (_, c) => lib.reader.chunksOf(c)));
      const [lists11, lists12] = [await every(lib11large), await every(lib12large)];
      // Every list found from `open` alone: read in one round after opening, as version 11's.
      expect([lists12.rounds, lists11.rounds]).toEqual([2, 2]);
      expect(lists12.value).toEqual(lists11.value);
      expect(lists12.value.some((list) => list!.tf.some((count) => count >= 16))).toBe(true);
    }
    // Version 11's `open` gives back version 10's arrays, value for value, and its slopes are the least-squares
    // ones through 0 (in 65,536ths) this test computes from version 10's arrays.
    for (const [older, newer, written] of [
      [lib10, lib11, v11],
      [lib10large, lib11large, v11large],
    ] as const) {
      const o10 = older.reader.open;
      const o11 = newer.reader.open;
      expect(o11).toEqual(o10);
      const n = o10.textLengths.length;
      const slope = (x: ArrayLike<number>, y: ArrayLike<number>) => {
        let xy = 0;
        let xx = 0;
        for (let i = 0; i < x.length; i++) {
          xy += x[i] * y[i];
          xx += x[i] * x[i];
        }
        return xx > 0 ? Math.round((65536 * xy) / xx) : 0;
      };
      const sums = (values: ArrayLike<number>, per: number) =>
        Array.from({ length: Math.ceil(n / per) }, (_, g) => {
          let sum = 0;
          for (let k = g * per; k < Math.min(n, (g + 1) * per); k++) sum += values[k];
          return sum;
        });
      const sizes = (offsets: ArrayLike<number>) =>
        Array.from({ length: offsets.length - 1 }, (_, g) => offsets[g + 1] - offsets[g]);
      const coding = written.directory.openCoding!;
      const { groups } = written.directory;
      expect(coding.countsPerLength).toBe(slope(o10.textLengths, o10.conceptCounts!));
      expect(coding.countsPerLength).toBeGreaterThan(0);
      expect(coding.rowBytesPerCount).toBe(
        slope(sums(o10.conceptCounts!, groups.rows), sizes(o10.rowGroups)),
      );
      expect(coding.recordBytesPerLength).toBe(
        slope(sums(o10.textLengths, groups.records), sizes(o10.recordGroups)),
      );
      expect(coding.recordBytesPerLength).toBeGreaterThan(0);
      // The fixture's documents are each in consecutive chunks.
      expect(coding.documentRuns).toBe(1);
      // `open.df` split: a bit a concept in one chunk, the others' df alone.
      const stored = piecesOfOpen(written);
      const ones = Array.from(o10.df.keys()).filter((c) => o10.df[c] === 1);
      expect(ones.length).toBeGreaterThan(0);
      expect(stored.dfOnes.length).toBe(Math.ceil(o10.df.length / 8));
      for (const c of ones) expect((stored.dfOnes[c >> 3] >> (c & 7)) & 1).toBe(1);
      expect(stored.dfOnes.reduce((sum, byte) => sum + popcount(byte), 0)).toBe(ones.length);
      if (written === v11) expect(coding.listBytesPerBit).toBe(0);
      else {
        // Each list's bytes beyond its 2 a chunk, over df × (bits of n − bits of df).
        const bits = (df: number) => df * Math.max(0, Math.floor(Math.log2(n)) - Math.floor(Math.log2(df)));
        const order = [
          ...Array.from(o10.df.keys()).filter((c) => o10.df[c] !== 1),
          ...Array.from(o10.df.keys()).filter((c) => o10.df[c] === 1),
        ];
        const extra = order.map((c) => o10.listOffsets[c + 1] - o10.listOffsets[c] - 2 * o10.df[c]);
        expect(coding.listBytesPerBit).toBe(
          slope(
            order.map((c) => bits(o10.df[c])),
            extra,
          ),
        );
      }
    }
    // Version 10's `open` gives back version 9's arrays, value for value; its slope is the least-squares one through 0
    // of the chunks' tokens over their text lengths, in 65,536ths.
    // Its records are version 9's, record for record, key for key, in groups of other sizes.
    const every = Array.from({ length: v9.directory.chunkCount }, (_, k) => k);
    for (const [older, newer] of [
      [lib9, lib10],
      [lib9large, lib10large],
    ] as const) {
      const { recordGroups: g9, ...o9 } = older.reader.open;
      const { recordGroups: g10, ...o10 } = newer.reader.open;
      expect(o10).toEqual(o9);
      expect(g10.length).toBe(g9.length);
      const r9 = await older.reader.recordsAt(every);
      const r10 = await newer.reader.recordsAt(every);
      expect(r10).toEqual(r9);
      expect(r10.map((r) => JSON.stringify(r))).toEqual(r9.map((r) => JSON.stringify(r)));
    }
    {
      const { textLengths, tokens } = lib9.reader.open;
      let xy = 0;
      let xx = 0;
      textLengths.forEach((x, k) => {
        xy += x * tokens[k];
        xx += x * x;
      });
      const slope = Math.round((65536 * xy) / xx);
      expect(slope).toBeGreaterThan(0);
      expect(v10.directory.openResiduals).toEqual({ tokensPerLength: slope });
      expect(v10large.directory.openResiduals).toEqual({ tokensPerLength: slope });
    }
    // Version 9's `open` gives back version 8's arrays, value for value, but the degree codes of the concepts in one
    // chunk (0 in their place), and one bound above all of those: the highest of their codes in version 8.
    for (const [older, newer] of [
      [lib8, lib9],
      [lib8large, lib9large],
    ] as const) {
      const o8 = older.reader.open;
      const o9 = newer.reader.open;
      const { degreeCodes: codes8, singleCode: none, ...rest8 } = o8;
      const { degreeCodes: codes9, singleCode, ...rest9 } = o9;
      expect(rest9).toEqual(rest8);
      expect(none).toBeUndefined();
      let singles = 0;
      let highest = 0;
      for (let c = 0; c < o8.df.length; c++) {
        if (o8.df[c] === 1) {
          singles++;
          highest = Math.max(highest, codes8![c]);
          expect(codes9![c]).toBe(0);
        } else expect(codes9![c]).toBe(codes8![c]);
      }
      expect(singles).toBeGreaterThan(o8.df.length / 3);
      expect(singleCode).toBe(highest);
      expect(highest).toBeGreaterThan(1);
    }
    expect(lib8large.reader.open.rowGroups.length).toBe(v8large.directory.chunkCount + 1);
    expect(lib5large.reader.open.rowGroups.length).toBe(Math.ceil(v5large.directory.chunkCount / 2) + 1);
    // Version 6's varints give back version 5's arrays, value for value (but the small layout's one row group, coded
    // by concept in version 6: smaller, checked above).
    for (const [older, newer] of [
      [lib5, lib6],
      [lib5large, lib6large],
    ] as const) {
      const o5 = older.reader.open;
      const o6 = newer.reader.open;
      for (const key of [
        'textLengths',
        'headingLengths',
        'conceptCounts',
        'tokens',
        'documentChunks',
        'titleChunks',
        'df',
        'idf',
        'degreeCodes',
        'listOffsets',
        'recordGroups',
        'termGroups',
        'conceptGroups',
        'rowGroups',
      ] as const)
        if (key !== 'rowGroups' || older === lib5large) expect(o6[key], key).toEqual(o5[key]);
    }
    for (const q of QUESTIONS) {
      for (const [mode, budget] of [
        ['ppr', 1000],
        ['bm25', 2000],
      ] as const) {
        const expected = engine.search({ text: q }, mode, budget);
        expect(expected.length).toBeGreaterThan(0);
        expect((await lib1.search(q, mode, budget)).hits).toEqual(expected);
        expect((await lib2.search(q, mode, budget)).hits).toEqual(expected);
        expect((await lib3.search(q, mode, budget)).hits).toEqual(expected);
        expect((await lib4.search(q, mode, budget)).hits).toEqual(expected);
        expect((await lib4lists.search(q, mode, budget)).hits).toEqual(expected);
        expect((await lib5.search(q, mode, budget)).hits).toEqual(expected);
        expect((await lib5large.search(q, mode, budget)).hits).toEqual(expected);
        expect((await lib6.search(q, mode, budget)).hits).toEqual(expected);
        expect((await lib6large.search(q, mode, budget)).hits).toEqual(expected);
        expect((await lib7.search(q, mode, budget)).hits).toEqual(expected);
        expect((await lib7large.search(q, mode, budget)).hits).toEqual(expected);
        expect((await lib8.search(q, mode, budget)).hits).toEqual(expected);
        expect((await lib8large.search(q, mode, budget)).hits).toEqual(expected);
        expect((await lib9.search(q, mode, budget)).hits).toEqual(expected);
        expect((await lib9large.search(q, mode, budget)).hits).toEqual(expected);
        const answer9 = await lib9.search(q, mode, budget);
        const answer10 = await lib10.search(q, mode, budget);
        expect(answer10.hits).toEqual(expected);
        expect(answer10.records).toEqual(answer9.records);
        expect((await lib10large.search(q, mode, budget)).hits).toEqual(expected);
        const answer11 = await lib11.search(q, mode, budget);
        expect(answer11.hits).toEqual(expected);
        expect(answer11.records).toEqual(answer10.records);
        expect((await lib11large.search(q, mode, budget)).hits).toEqual(expected);
        expect((await lib12large.search(q, mode, budget)).hits).toEqual(expected);
      }
    }
    // That the walk takes an exact degree from the concept's row, not the `degrees` section: hostilePages.test.ts
    // (a forged section under honest brackets answers as honest pages).
  }, 240_000);

  it('are what `cli upgrade` makes of version 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 12 pages, byte for byte, and a damaged block is named', async () => {
    const { engine, analyzer } = await engineOf(REPO_RESULTS);
    const parts = engine.lexicalParts();
    const doc = (docId: string) => ({ title: docId });
    const base = { appVersion: 'test', embedder: null, createdAt: '2026-11-27T00:00:00.000Z' };
    // A gzip'd part beside the pages is copied as stored.
    const notes = jsonlPart('notes.jsonl', [{ note: 'kept as it was' }, { note: 'and this' }]);
    const v1 = await bundleBytes(
      writeBundle([notes, ...pagesParts(await writePagedIndex(parts, doc, 4096, 1))], base),
    );
    const v2 = await bundleBytes(
      writeBundle([notes, ...pagesParts(await writePagedIndex(parts, doc, 4096, 2))], base),
    );
    const v3 = await bundleBytes(
      writeBundle([notes, ...pagesParts(await writePagedIndex(parts, doc, 4096, 3))], base),
    );
    const v4 = await bundleBytes(
      writeBundle([notes, ...pagesParts(await writePagedIndex(parts, doc, 4096, 4))], base),
    );
    const v5 = await bundleBytes(
      writeBundle([notes, ...pagesParts(await writePagedIndex(parts, doc, 4096, 5))], base),
    );
    const v6 = await bundleBytes(
      writeBundle([notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 6))], base),
    );
    const v7 = await bundleBytes(
      writeBundle([notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 7))], base),
    );
    const v8 = await bundleBytes(
      writeBundle([notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 8))], base),
    );
    const v9 = await bundleBytes(
      writeBundle([notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 9))], base),
    );
    const v10 = await bundleBytes(
      writeBundle([notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 10))], base),
    );
    const v11 = await bundleBytes(
      writeBundle([notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 11))], base),
    );
    const v12small = await bundleBytes(
      writeBundle([notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 12))], base),
    );
    const v13small = await bundleBytes(
      writeBundle([notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 13))], base),
    );
    // What `cli index` writes today (version 17, its block size not told): every upgrade's output.
    const v12 = await bundleBytes(
      writeBundle([notes, ...pagesParts(await writePagedIndex(parts, doc))], base),
    );

    const upgrade = async (bytes: Uint8Array, listsInRowsBytes?: number) => {
      const source = new MemoryRangeSource(bytes, 'old.bundle');
      const manifest = (await readManifestByRanges(source))!;
      const upgraded = await upgradeBundleParts(source, manifest, listsInRowsBytes);
      return { upgraded, bytes: await bundleBytes(writeBundle(upgraded.parts, upgraded.base)) };
    };
    const { upgraded, bytes } = await upgrade(v1);
    expect([upgraded.from, upgraded.to]).toEqual([1, 17]);
    expect(bytes.length).toBe(v12.length);
    expect(Buffer.from(bytes).equals(Buffer.from(v12))).toBe(true);
    const fromV2 = await upgrade(v2);
    expect([fromV2.upgraded.from, fromV2.upgraded.to]).toEqual([2, 17]);
    expect(Buffer.from(fromV2.bytes).equals(Buffer.from(v12))).toBe(true);
    const fromV3 = await upgrade(v3);
    expect([fromV3.upgraded.from, fromV3.upgraded.to]).toEqual([3, 17]);
    expect(Buffer.from(fromV3.bytes).equals(Buffer.from(v12))).toBe(true);
    // Versions 4 and 5 that keep their lists in their rows: `open` re-encoded (varints) and the rows re-coded by
    // concept (version 6), the rest copied.
    const fromV4 = await upgrade(v4);
    expect([fromV4.upgraded.from, fromV4.upgraded.to]).toEqual([4, 17]);
    expect(Buffer.from(fromV4.bytes).equals(Buffer.from(v12))).toBe(true);
    const fromV5 = await upgrade(v5);
    expect([fromV5.upgraded.from, fromV5.upgraded.to]).toEqual([5, 17]);
    expect(Buffer.from(fromV5.bytes).equals(Buffer.from(v12))).toBe(true);
    expect(v6.length).toBeLessThan(v5.length);
    // Version 6 that keeps its lists in its rows: the same sections, in 1 KiB blocks (version 7).
    const fromV6 = await upgrade(v6);
    expect([fromV6.upgraded.from, fromV6.upgraded.to]).toEqual([6, 17]);
    expect(Buffer.from(fromV6.bytes).equals(Buffer.from(v12))).toBe(true);
    // Version 7: the same sections, in version 8's blocks by section and version 9's `open`.
    const fromV7 = await upgrade(v7);
    expect([fromV7.upgraded.from, fromV7.upgraded.to]).toEqual([7, 17]);
    expect(Buffer.from(fromV7.bytes).equals(Buffer.from(v12))).toBe(true);
    // Version 8: the same sections and blocks, `open` without the one-chunk concepts' degree codes (version 9).
    const fromV8 = await upgrade(v8);
    expect([fromV8.upgraded.from, fromV8.upgraded.to]).toEqual([8, 17]);
    expect(Buffer.from(fromV8.bytes).equals(Buffer.from(v12))).toBe(true);
    // Version 9: the records coded again, `open`'s tokens and row group sizes as residuals and its record groups the
    // new ones (version 10; its lists in its rows: no rowBlocks), every other section the same.
    const fromV9 = await upgrade(v9);
    expect([fromV9.upgraded.from, fromV9.upgraded.to]).toEqual([9, 17]);
    expect(Buffer.from(fromV9.bytes).equals(Buffer.from(v12))).toBe(true);
    // Version 10: its records read with their dictionary and coded again the same, `open` coded smaller (version 11).
    const fromV10 = await upgrade(v10);
    expect([fromV10.upgraded.from, fromV10.upgraded.to]).toEqual([10, 17]);
    expect(Buffer.from(fromV10.bytes).equals(Buffer.from(v12))).toBe(true);
    // Version 11 that keeps its lists in its rows: every section the same (version 12 changes only a lists section).
    const fromV11 = await upgrade(v11);
    expect([fromV11.upgraded.from, fromV11.upgraded.to]).toEqual([11, 17]);
    expect(Buffer.from(fromV11.bytes).equals(Buffer.from(v12))).toBe(true);
    // Version 12 that keeps its lists in its rows: every section the same (no rows' zone of whole rows: no paths).
    const fromV12 = await upgrade(v12small);
    expect([fromV12.upgraded.from, fromV12.upgraded.to]).toEqual([12, 17]);
    expect(Buffer.from(fromV12.bytes).equals(Buffer.from(v12))).toBe(true);
    // Version 13 that keeps its lists in its rows: the postings Rice-coded (version 14) and so the term groups' offsets
    // in `open`, every other section the same.
    const fromV13 = await upgrade(v13small);
    expect([fromV13.upgraded.from, fromV13.upgraded.to]).toEqual([13, 17]);
    expect(Buffer.from(fromV13.bytes).equals(Buffer.from(v12))).toBe(true);

    // A library too large to keep its lists in its rows (here: told so): written by version 5 in 512-byte blocks
    // with rows in groups of 2, which is what the upgrade makes of old parts of 4 KiB blocks and rows in groups of 8.
    const eights = { ...DEFAULT_GROUPS, rows: 8 };
    const large = async (version: number) =>
      bundleBytes(
        writeBundle(
          [notes, ...pagesParts(await writePagedIndex(parts, doc, 4096, version, eights, 0))],
          base,
        ),
      );
    const v12large = await bundleBytes(
      writeBundle(
        [notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, undefined, undefined, 0))],
        base,
      ),
    );
    // Version 12's large layout: its rows' blocks each followed by its path (version 13's blockPaths).
    const v12oldLarge = await bundleBytes(
      writeBundle(
        [notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 12, undefined, 0))],
        base,
      ),
    );
    // Version 13's large layout: its postings Rice-coded (version 14's postingsCoding), its paths made anew.
    const v13oldLarge = await bundleBytes(
      writeBundle(
        [notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 13, undefined, 0))],
        base,
      ),
    );
    // Version 14's large layout: its rows Rice-coded (version 15's rowsCoding), its words copied, its paths made anew.
    const v14oldLarge = await bundleBytes(
      writeBundle(
        [notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 14, undefined, 0))],
        base,
      ),
    );
    // Version 15's large layout: its rows decoded by `open`'s counts and written again starting with their counts
    // (version 16's rowsDelimited), `open` without the counts and the row groups, the rest copied.
    const v15oldLarge = await bundleBytes(
      writeBundle(
        [notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 15, undefined, 0))],
        base,
      ),
    );
    // Version 16's large layout: its lists' blocks carry paths too (version 17's blockPaths zones), the rest copied.
    const v16oldLarge = await bundleBytes(
      writeBundle(
        [notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 16, undefined, 0))],
        base,
      ),
    );
    // Version 11's large layout: its lists packed into blocks and coded again (version 12's listCoding).
    const v11large = await bundleBytes(
      writeBundle(
        [notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 11, undefined, 0))],
        base,
      ),
    );
    // Version 10's large layout: its rows in blocks of whole rows, placed from `open` before they are checked.
    const v10large = await bundleBytes(
      writeBundle(
        [notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 10, undefined, 0))],
        base,
      ),
    );
    const v9large = await bundleBytes(
      writeBundle(
        [notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 9, undefined, 0))],
        base,
      ),
    );
    const v8large = await bundleBytes(
      writeBundle(
        [notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 8, undefined, 0))],
        base,
      ),
    );
    const v7large = await bundleBytes(
      writeBundle(
        [notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 7, undefined, 0))],
        base,
      ),
    );
    const v6large = await bundleBytes(
      writeBundle(
        [notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 6, undefined, 0))],
        base,
      ),
    );
    const v5large = await bundleBytes(
      writeBundle(
        [notes, ...pagesParts(await writePagedIndex(parts, doc, undefined, 5, undefined, 0))],
        base,
      ),
    );
    for (const [version, old] of [
      [1, await large(1)],
      [3, await large(3)],
      [4, await large(4)],
      [5, await large(5)],
      [5, v5large],
      [6, v6large],
      [7, v7large],
      [8, v8large],
      [9, v9large],
      [10, v10large],
      [11, v11large],
      [12, v12oldLarge],
      [13, v13oldLarge],
      [14, v14oldLarge],
      [15, v15oldLarge],
      [16, v16oldLarge],
    ] as const) {
      const up = await upgrade(old, 0);
      expect([up.upgraded.from, up.upgraded.to]).toEqual([version, 17]);
      expect(Buffer.from(up.bytes).equals(Buffer.from(v12large))).toBe(true);
    }
    const openedLarge = await openPagedBundle(new MemoryRangeSource(v12large, 'large.bundle'), analyzer);
    expect(openedLarge!.library.directory.listCoding).toEqual({ blockBytes: 128 });
    expect(openedLarge!.library.directory.blockPaths).toEqual({ zones: ['lists', 'rows'] });
    expect(openedLarge!.library.directory.postingsCoding).toEqual({ lists: 'rice' });
    expect(openedLarge!.library.directory.rowsCoding).toEqual({ ids: 'rice' });
    expect(openedLarge!.library.directory.rowsDelimited).toEqual({ countOrder: 5 });
    expect([
      openedLarge!.library.directory.blockSize,
      openedLarge!.library.directory.groups.rows,
      openedLarge!.library.directory.sectionBlocks,
      openedLarge!.library.directory.rowBlocks?.size,
    ]).toEqual([512, 1, { open: 65536, records: 1024, postings: 1024, lists: 128, degrees: 4096 }, 128]);
    expect((await readBundle(bytes)).parts.get('notes.jsonl')).toEqual(
      (await readBundle(v1)).parts.get('notes.jsonl'),
    );

    const q = 'What did the heap measurements show?';
    const opened = await openPagedBundle(new MemoryRangeSource(bytes, 'new.bundle'), analyzer);
    expect(opened!.library.directory.version).toBe(17);
    expect(opened!.library.directory.postingsCoding).toEqual({ lists: 'rice' });
    // Lists kept in the rows: no rows of their own to code.
    expect(opened!.library.directory.rowsCoding).toBeUndefined();
    expect(opened!.library.directory.blockPaths).toBeUndefined();
    expect(opened!.library.directory.listCoding).toBeUndefined();
    expect(opened!.library.directory.listsInRows).toBe(true);
    expect(opened!.library.directory.blockSize).toBe(1024);
    expect((await opened!.library.search(q, 'ppr', 1000)).hits).toEqual(
      engine.search({ text: q }, 'ppr', 1000),
    );

    expect((await openedLarge!.library.search(q, 'ppr', 1000)).hits).toEqual(
      engine.search({ text: q }, 'ppr', 1000),
    );

    // Version 17 pages are not upgraded again.
    await expect(upgrade(v12)).rejects.toThrow('its pages are version 17 already');
    await expect(upgrade(v12large, 0)).rejects.toThrow('its pages are version 17 already');
    // A byte changed in the old part's lists: its block is named, and nothing is written.
    const manifest = (await readManifestByRanges(new MemoryRangeSource(v1, 'old.bundle')))!;
    const entry = manifest.parts.find((p) => p.name === 'pages.bin')!;
    const directory = entry.meta as { sections: Record<string, [number, number]>; blockSize: number };
    const at = directory.sections.lists[0] + 3;
    const damaged = v1.slice();
    damaged[entry.offset! + at] ^= 0xff;
    await expect(upgrade(damaged)).rejects.toThrow(
      `old.bundle: corrupted (SHA-256 mismatch in block ${Math.floor(at / directory.blockSize)} of part pages.bin)`,
    );
  }, 240_000);

  it('refuses a pages version this app does not read', async () => {
    const { engine, analyzer } = await engineOf(REPO_RESULTS);
    const written = await writePagedIndex(engine.lexicalParts(), (docId) => ({ title: docId }));
    await expect(
      PagedLibrary.open(
        new MemoryRangeSource(written.data, 'p'),
        {
          base: 0,
          length: written.data.length,
          directory: { ...written.directory, version: 18 },
          hashes: written.hashes,
        },
        analyzer,
      ),
    ).rejects.toThrow(
      "the pages part's directory has version 18 (this app reads 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 and 17)",
    );
  }, 240_000);
});
