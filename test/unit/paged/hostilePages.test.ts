// Hostile paged indexes (issue 43): pages whose every digest is right but whose counts, degrees or records lie. Each
// is answered or refused with a message naming the part, in bounded time. The question runs in a worker under a time
// limit (boundedRun.ts): before the fixes each of them never ended, and a synchronous loop cannot be stopped from the
// test. The crafted pages are made here, from honest pages written once for the file (pagedCases.ts).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { conceptNeighbourhood, verifyBundleCopy } from '../../../src/core/paged/index.ts';
import {
  decodeTop,
  encodeTop,
  hashLevels,
  type HashLevel,
  type PagesDirectory,
} from '../../../src/core/paged/format.ts';
import { ByteReader, ByteWriter } from '../../../src/core/paged/bytes.ts';
import { PagedLibrary } from '../../../src/core/paged/library.ts';
import { openPagedBundle } from '../../../src/core/paged/openBundle.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import { BlockHasher, hashPagesOf, hashTreeOf } from '../../../src/core/paged/write.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';
import { runBounded } from '../../support/boundedRun.ts';
import {
  assemble,
  honestPages,
  PAGES_QUESTION,
  pagesBundle,
  piecesOf,
  rowOffsets,
  recordDictionary,
  recordGroup,
  replaceRecordGroupBytes,
  setRecordGroup,
  setStoredDictionary,
  storedDictionary,
  storeRowOffsets,
  type WrittenPagesLike,
} from '../../support/hostilePages.ts';
import { rowBlockStarts, type BlockLayout } from '../../../src/core/paged/blockLayout.ts';
import { deflateWithLength } from '../../../src/core/paged/recordCoding.ts';
import { buildOrder } from '../../../src/core/paged/degreeRanks.ts';
import { CRAFTED } from '../../support/pagedCases.ts';

/** Far above what a case takes (a few seconds, most of it the worker's start-up), far below "never ends". */
const LIMIT_MS = 60_000;

async function ask(name: keyof typeof CRAFTED, mode = 'ppr') {
  const written = await CRAFTED[name]();
  return runBounded<string[]>(
    'test/support/craftedReads.ts',
    'askPages',
    [written, PAGES_QUESTION, mode],
    LIMIT_MS,
  );
}

/** Crafted pages as a bundle read by ranges (the describes of each version's fields share it). */
const craftedSource = async (w: WrittenPagesLike) =>
  new MemoryRangeSource(await pagesBundle(w), 'crafted.bundle');
/** Crafted pages opened as a shared bundle is. */
const openCrafted = async (w: WrittenPagesLike, analyzer: ReturnType<typeof createTermAnalyzer>) =>
  (await openPagedBundle(await craftedSource(w), analyzer))!;

/** The hits of the crafted pages' question in the default mode. */
const askCrafted = async (w: WrittenPagesLike, analyzer: ReturnType<typeof createTermAnalyzer>) =>
  (await (await openCrafted(w, analyzer)).library.search(PAGES_QUESTION, 'ppr', 800)).hits;

describe('hostile pages', { timeout: LIMIT_MS + 10_000 }, () => {
  it('honest pages answer the question (the cases below change only what they name)', async () => {
    const run = await ask('honest');
    expect(run.outcome).toBe('value');
    if (run.outcome === 'value') expect(run.value.length).toBeGreaterThan(0);
  });

  it('tiny stored walk degrees under forged top brackets (version 2) are refused by the rows, and the walk ends', async () => {
    // The walk sums an exact degree from the concept's row (it does not read the `degrees` section): the row's sum
    // falls far below the bracket `open` claims.
    const run = await ask('tinyDegrees');
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error')
      expect(run.message).toMatch(
        /crafted\.bundle: pages\.bin stores the walk degree of concept \d+ as between \d+(\.\d+)? and Infinity, but its row sums to/,
      );
  });

  it('tiny stored walk degrees under honest brackets (version 2): the question is answered as honest pages answer it', async () => {
    const [honest, forged] = await Promise.all([ask('honest'), ask('tinySectionDegrees')]);
    expect(forged.outcome).toBe('value');
    if (honest.outcome === 'value' && forged.outcome === 'value') expect(forged.value).toEqual(honest.value);
  });

  it('tiny stored walk degrees (version 2) are refused by the Graph view, which reads them, naming the degree', async () => {
    const run = await runBounded<number[]>(
      'test/support/craftedReads.ts',
      'graphPages',
      [await CRAFTED.tinySectionDegrees()],
      LIMIT_MS,
    );
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error')
      expect(run.message).toMatch(
        /crafted\.bundle: pages\.bin's degrees section gives concept \d+ a walk degree of 1e-300/,
      );
  });

  it('honest pages draw the Graph view from their stored degrees', async () => {
    const run = await runBounded<number[]>(
      'test/support/craftedReads.ts',
      'graphPages',
      [await CRAFTED.honest()],
      LIMIT_MS,
    );
    expect(run.outcome).toBe('value');
    if (run.outcome === 'value') expect(run.value.every((d) => d > 0)).toBe(true);
  });

  it('walk degree brackets the rows do not sum into (version 2) are refused', async () => {
    const run = await ask('wrongDegrees');
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error')
      expect(run.message).toMatch(
        /crafted\.bundle: pages\.bin stores the walk degree of concept \d+ as between 0 and 1, but its row sums to/,
      );
  });

  it('honest version 3 pages (lists without shares) answer as version 2 pages do', async () => {
    const [v2, v3] = await Promise.all([ask('honest'), ask('honestV3')]);
    expect(v3.outcome).toBe('value');
    if (v3.outcome === 'value') expect(v3.value.length).toBeGreaterThan(0);
    if (v2.outcome === 'value' && v3.outcome === 'value') expect(v3.value).toEqual(v2.value);
  });

  it('honest version 4 pages (lists kept in the rows) answer as version 2 and 3 pages do', async () => {
    const [v2, v4] = await Promise.all([ask('honest'), ask('honestV4')]);
    expect(v4.outcome).toBe('value');
    if (v4.outcome === 'value') expect(v4.value.length).toBeGreaterThan(0);
    if (v2.outcome === 'value' && v4.outcome === 'value') expect(v4.value).toEqual(v2.value);
  });

  it('version 4 rows that keep the lists and lie are refused naming the rows, in bounded time', async () => {
    const cases: Array<[keyof typeof CRAFTED, RegExp]> = [
      ['rowsPastConceptsV4', /crafted\.bundle: pages\.bin's rows name concept 2147483647 of \d+ in chunk 0/],
      [
        'inflateBombV4',
        /crafted\.bundle: pages\.bin's rows do not inflate \(declares 4294967295 bytes inflated\)/,
      ],
      ['movedDfV4', /crafted\.bundle: pages\.bin's rows name concept \d+ in more chunks than its df \d+/],
      [
        'listsInRowsV3',
        /the pages part's directory has listsInRows true \(version 4 writes true or nothing\)/,
      ],
    ];
    for (const [name, message] of cases) {
      const run = await ask(name);
      expect(run.outcome, name).toBe('error');
      if (run.outcome === 'error') expect(run.message, name).toMatch(message);
    }
  });

  it('honest version 6 pages (lists kept in the rows, coded by concept) answer as version 2 and 4 pages do', async () => {
    const [v2, v6] = await Promise.all([ask('honest'), ask('honestV6')]);
    expect(v6.outcome).toBe('value');
    if (v6.outcome === 'value') expect(v6.value.length).toBeGreaterThan(0);
    if (v2.outcome === 'value' && v6.outcome === 'value') expect(v6.value).toEqual(v2.value);
  });

  it('version 6 lists coded by concept that lie are refused naming the rows, in bounded time', async () => {
    const cases: Array<[keyof typeof CRAFTED, RegExp]> = [
      ['riceChunkPastV6', /crafted\.bundle: pages\.bin's rows give concept 0 a chunk past \d+/],
      ['ricePastEndV6', /crafted\.bundle: pages\.bin's rows hold 1 bytes past their \d+ links/],
      [
        'movedCountsV6',
        /crafted\.bundle: pages\.bin's rows put chunk \d+ in more lists than its \d+ concepts \(concept \d+\)/,
      ],
    ];
    for (const [name, message] of cases) {
      const run = await ask(name);
      expect(run.outcome, name).toBe('error');
      if (run.outcome === 'error') expect(run.message, name).toMatch(message);
    }
  });

  it('a version 3 list count of 0 (shares 0/0) is refused, naming the concept', async () => {
    const run = await ask('zeroCountV3');
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error')
      expect(run.message).toMatch(/crafted\.bundle: pages\.bin's chunk list of concept \d+ has a count of 0/);
  });

  it('version 3 pages without share parameters, or with one not a number, are refused at open', async () => {
    for (const name of ['noSharesV3', 'nanSharesV3'] as const) {
      const run = await ask(name);
      expect(run.outcome).toBe('error');
      if (run.outcome === 'error') expect(run.message).toMatch(/has bad share parameters/);
    }
  });

  it('tiny walk degrees in a version 1 `open` are refused, naming the degree', async () => {
    const run = await ask('tinyDegreesV1');
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error') expect(run.message).toMatch(/crafted\.bundle: .*walk degree of concept \d+/);
  });

  it('a chunk concept count of 2^32−1 is refused at open, against the rows section it would need', async () => {
    // Before: decodeRowGroup looped 4.3 billion times.
    const run = await ask('hugeCount');
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error')
      expect(run.message).toMatch(
        /crafted\.bundle: pages\.bin \(open\) gives chunk 0 4294967295 concepts of \d+/,
      );
  });

  it("postings whose varints run past their list are refused naming the term's postings, in BM25 and PPR", async () => {
    // Before: "paged library: a varint runs past its bytes", a message that named no part (fuzzPages.scale). Every
    // term's postings are crafted: which term is named first depends on the blocks read together, a word or its stem
    // ("~" + stem, src/core/graph/analyzer.ts).
    for (const mode of ['bm25', 'ppr']) {
      const run = await ask('unendingPostings', mode);
      expect(run.outcome).toBe('error');
      if (run.outcome === 'error')
        expect(run.message).toMatch(
          /crafted\.bundle: pages\.bin's postings of "~?\w+" do not decode \(paged library: a varint/,
        );
    }
  });

  it('a record whose "sentences" claims 2e9 entries is refused when its group is decoded', async () => {
    // Before: recordSentences looped over the claimed length, allocating as it went (2.5 GB in 33 s in the CLI).
    const run = await ask('hugeSentences');
    expect(run.outcome).toBe('error');
    if (run.outcome === 'error')
      expect(run.message).toMatch(
        /crafted\.bundle: pages\.bin group k0 does not decode \(its records 0 has "sentences" that are not a list/,
      );
  });
});

// Version 3's block hashes are SHA-256 cut to its first 16 bytes, the length the directory gives (`hashBytes`;
// format.ts says why 16 is enough). Each lie about them is refused naming the part, before a block is used; these
// are refused before any loop runs, so they are asked in this process.
describe('16-byte block hashes (version 3)', () => {
  const analyzer = createTermAnalyzer();
  const blocksOf = (w: WrittenPagesLike): Uint8Array[] => {
    const out: Uint8Array[] = [];
    for (let at = 0; at < w.data.length; at += w.directory.blockSize)
      out.push(w.data.subarray(at, at + w.directory.blockSize));
    return out;
  };
  const openPages = (w: WrittenPagesLike, source = new MemoryRangeSource(w.data, 'crafted.bundle')) =>
    PagedLibrary.open(
      source,
      { base: 0, length: w.data.length, directory: w.directory, hashes: w.hashes },
      analyzer,
    );
  const bundleOf = craftedSource;

  it('are the first 16 bytes of each block’s SHA-256 (node:crypto’s), and versions 1 and 2 keep all 32', async () => {
    const v3 = await honestPages(3);
    expect(v3.directory.hashBytes).toBe(16);
    const blocks = blocksOf(v3);
    expect(v3.hashes.length).toBe(blocks.length * 16);
    blocks.forEach((block, b) =>
      expect(Buffer.from(v3.hashes.subarray(b * 16, b * 16 + 16))).toEqual(
        createHash('sha256').update(block).digest().subarray(0, 16),
      ),
    );
    for (const version of [1, 2]) {
      const old = await honestPages(version);
      expect(old.directory.hashBytes).toBeUndefined();
      const first = old.data.subarray(0, old.directory.blockSize);
      expect(Buffer.from(old.hashes.subarray(0, 32))).toEqual(createHash('sha256').update(first).digest());
      expect(old.hashes.length).toBe(blocksOf(old).length * 32);
    }
    // Honest pages answer through their 16-byte hashes, by ranges and from the bundle.
    const opened = await openPagedBundle(await bundleOf(v3), analyzer);
    expect((await opened!.library.search(PAGES_QUESTION, 'ppr', 800)).hits.length).toBeGreaterThan(0);
    await verifyBundleCopy(await bundleOf(v3));
  });

  it('a block hash changed under the top list as written is refused naming its hash page', async () => {
    // 512-byte blocks: nine pages of hashes, so that a question reads hash pages past the first.
    const honest = await honestPages(3, 512);
    const size = honest.directory.hashPages!.size;
    expect(honest.hashes.length).toBeGreaterThan(2 * size);
    const honestRun = await openPagedBundle(await bundleOf(honest), analyzer);
    expect((await honestRun!.library.search(PAGES_QUESTION, 'ppr', 800)).hits.length).toBeGreaterThan(0);
    // Page 0 holds the hashes of `open`'s blocks, read at opening.
    const first = honest.hashes.slice();
    first[0] ^= 1;
    await expect(openPagedBundle(await bundleOf({ ...honest, hashes: first }), analyzer)).rejects.toThrow(
      'crafted.bundle: corrupted (SHA-256 mismatch in hash page 0 of part pages.sha256)',
    );
    // The offline copy's check reads the hashes whole (their part's SHA-256 is the bundle writer's, right) and
    // finds the page against the directory's top list.
    await expect(verifyBundleCopy(await bundleOf({ ...honest, hashes: first }))).rejects.toMatchObject({
      part: 'pages.sha256',
      message: expect.stringContaining('a page of pages.sha256 does not match its SHA-256 in the directory'),
    });
    // Every later page changed: the library opens, and the question's first block past page 0 is refused.
    const later = honest.hashes.slice();
    for (let at = size; at < later.length; at += 16) later[at] ^= 1;
    const opened = await openPagedBundle(await bundleOf({ ...honest, hashes: later }), analyzer);
    await expect(opened!.library.search(PAGES_QUESTION, 'ppr', 800)).rejects.toThrow(
      /^crafted\.bundle: corrupted \(SHA-256 mismatch in hash page [1-9]\d* of part pages\.sha256\)$/,
    );
  });

  it('a directory giving bad hash pages is refused before a byte of the pages is read', async () => {
    const honest = await honestPages(3);
    const hp = honest.directory.hashPages!;
    const cases: Array<[unknown, string]> = [
      [{ ...hp, size: 100 }, 'has hash pages of 100 bytes'],
      [{ ...hp, size: 1000 }, 'has hash pages of 1000 bytes'],
      [{ ...hp, size: 2 ** 40 }, `has hash pages of ${2 ** 40} bytes`],
      [{ ...hp, size: '1024' }, 'has hash pages of 1024 bytes'],
      [{ ...hp, top: hp.top.slice(4) }, 'has a top list of hash pages that is not'],
      [{ ...hp, top: '!' + hp.top.slice(1) }, 'has a top list of hash pages that is not'],
      [{ ...hp, top: 7 }, 'has a top list of hash pages that is not'],
      ['yes', 'has hash pages it cannot have'],
    ];
    for (const [hashPages, why] of cases) {
      const crafted = { ...honest, directory: { ...honest.directory, hashPages } as PagesDirectory };
      const source = new MemoryRangeSource(crafted.data, 'crafted.bundle');
      await expect(openPages(crafted, source)).rejects.toThrow(`the pages part's directory ${why}`);
      expect(source.bytesRead).toBe(0);
      await expect(openPagedBundle(await bundleOf(crafted), analyzer)).rejects.toThrow(
        `the pages part's directory ${why}`,
      );
    }
    // Version 2 pages have no hash pages.
    const v2 = await honestPages(2);
    const crafted = { ...v2, directory: { ...v2.directory, hashPages: hp } };
    await expect(openPages(crafted)).rejects.toThrow(
      "the pages part's directory has hash pages it cannot have",
    );
  });

  it('a directory giving another hash length is refused before a byte of the pages is read', async () => {
    const honest = await honestPages(3);
    for (const value of [0, 8, 24, 64, -16, 16.5, '16', null]) {
      const crafted = {
        ...honest,
        directory: { ...honest.directory, hashBytes: value as number },
      };
      const source = new MemoryRangeSource(crafted.data, 'crafted.bundle');
      await expect(openPages(crafted, source)).rejects.toThrow(
        `the pages part's directory has block hashes of ${String(value)} bytes in pages.sha256 (this app reads 16 and 32)`,
      );
      expect(source.bytesRead).toBe(0);
      // The same directory in a bundle's manifest: refused by the library's open and by the offline copy's check.
      await expect(openPagedBundle(await bundleOf(crafted), analyzer)).rejects.toThrow(
        /directory has block hashes of .* bytes in pages\.sha256/,
      );
      await expect(verifyBundleCopy(await bundleOf(crafted))).rejects.toMatchObject({
        part: 'pages.bin',
        message: expect.stringMatching(/directory has block hashes of .* bytes in pages\.sha256/),
      });
    }
  });

  it('a hashes part of the wrong size for the length the directory gives is refused, naming pages.sha256', async () => {
    const honest = await honestPages(3);
    const blocks = blocksOf(honest).length;
    // 32-byte hashes under a directory that says 16, and 16-byte ones under one that says 32.
    const full = new BlockHasher(honest.directory.blockSize, 32);
    full.update(honest.data);
    const cases: Array<[WrittenPagesLike, number]> = [
      [{ ...honest, hashes: full.finish() }, 16],
      // (with a top list of as many pages as 32-byte hashes fill, else the directory's own check refuses it first)
      [
        {
          ...honest,
          directory: {
            ...honest.directory,
            hashBytes: 32,
            hashPages: hashPagesOf(new Uint8Array(blocks * 32)),
          },
        },
        32,
      ],
      [{ ...honest, hashes: honest.hashes.subarray(0, honest.hashes.length - 16) }, 16],
    ];
    for (const [crafted, hashBytes] of cases) {
      const expected = `expected ${blocks} blocks × ${hashBytes} bytes`;
      await expect(openPages(crafted)).rejects.toThrow(
        `crafted.bundle: pages.bin has ${crafted.hashes.length} bytes of block hashes in pages.sha256, ${expected}`,
      );
      await expect(openPagedBundle(await bundleOf(crafted), analyzer)).rejects.toThrow(expected);
      await expect(verifyBundleCopy(await bundleOf(crafted))).rejects.toMatchObject({
        part: 'pages.sha256',
        message: expect.stringContaining(
          `corrupted (pages.sha256 has ${crafted.hashes.length} bytes, ${expected})`,
        ),
      });
    }
  });

  it('a block whose truncated hash differs, in any of its 16 bytes, is refused naming the block', async () => {
    const honest = await honestPages(3);
    const last = blocksOf(honest).length - 1;
    expect(last).toBeGreaterThan(0);
    for (const [block, byte] of [
      [0, 0],
      [0, 15],
      [last, 15],
    ]) {
      const hashes = honest.hashes.slice();
      hashes[block * 16 + byte] ^= 1;
      // The top list of hash pages written for these hashes: the hash pages check out, the block does not.
      const crafted = {
        ...honest,
        hashes,
        directory: { ...honest.directory, hashPages: hashPagesOf(hashes) },
      };
      // Block 0 holds `open`, read at open; every block is checked by the offline copy's check.
      if (block === 0)
        await expect(openPagedBundle(await bundleOf(crafted), analyzer)).rejects.toThrow(
          'crafted.bundle: corrupted (SHA-256 mismatch in block 0 of part pages.bin)',
        );
      await expect(verifyBundleCopy(await bundleOf(crafted))).rejects.toMatchObject({
        part: 'pages.bin',
        message: expect.stringContaining(
          `corrupted (block ${block} of part pages.bin does not match its SHA-256)`,
        ),
      });
    }
    // A changed byte in the last block (its hash as written): the same refusal.
    const data = honest.data.slice();
    data[data.length - 1] ^= 1;
    await expect(verifyBundleCopy(await bundleOf({ ...honest, data }))).rejects.toMatchObject({
      part: 'pages.bin',
      message: expect.stringContaining(
        `corrupted (block ${last} of part pages.bin does not match its SHA-256)`,
      ),
    });
  });
});

// Version 7's tree of hash pages (format.ts, hashLevels): every block is still checked against a hash fixed by the
// manifest's digest, through the pages above it. A host or a redirect that changes a page of any level, moves one, or
// serves a tree whose top is not the directory's is refused naming the page and its level, before a block is used.
// The writer gives a library this small one level; the cases build two levels above the leaves (pages of 128 bytes,
// the large layout:
// 18 leaf pages, 3 pages above them, 1 above those) so that the levels below the top have pages past the first.
describe('a tree of hash pages (version 7)', () => {
  const analyzer = createTermAnalyzer();
  const bundleOf = craftedSource;
  const LEVELS = [128, 128];
  const treeOf = async (): Promise<WrittenPagesLike & { layout: HashLevel[] }> => {
    const honest = await honestPages(7, 512, 0);
    const leaves = honest.hashes.subarray(0, Math.ceil(honest.data.length / 512) * 16);
    const tree = hashTreeOf(leaves, LEVELS);
    const layout = hashLevels(leaves.length, tree.hashPages);
    return {
      ...honest,
      hashes: tree.bytes,
      directory: { ...honest.directory, hashPages: tree.hashPages },
      layout,
    };
  };
  const ask = (w: WrittenPagesLike) => askCrafted(w, analyzer);
  /** The part with `change` applied to a copy of its bytes. */
  const changed = (w: WrittenPagesLike, change: (bytes: Uint8Array) => void): WrittenPagesLike => {
    const hashes = w.hashes.slice();
    change(hashes);
    return { ...w, hashes };
  };
  const pageMismatch = (level: number, page = String.raw`[1-9]\d*`) =>
    new RegExp(
      String.raw`^crafted\.bundle: corrupted \(SHA-256 mismatch in hash page ${page}${level > 0 ? ` of level ${level}` : ''} of part pages\.sha256\)$`,
    );

  it('answers as one level of pages does, and the offline check passes', async () => {
    const tree = await treeOf();
    expect(tree.layout.map((l) => Math.ceil(l.length / l.pageSize))).toEqual([18, 3, 1]);
    expect(tree.directory.version).toBe(7);
    const oneLevel = await honestPages(7, 512, 0);
    expect(oneLevel.directory.hashPages?.levels).toEqual([]);
    const hits = await ask(tree);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits).toEqual(await ask(oneLevel));
    await verifyBundleCopy(await bundleOf(tree));
    // The part held whole (a library's own pages, stored beside their directory): its block hashes are used, and a
    // part without its levels is refused for its length.
    const location = { base: 0, length: tree.data.length, directory: tree.directory, hashes: tree.hashes };
    const whole = await PagedLibrary.open(new MemoryRangeSource(tree.data, 'held'), location, analyzer);
    expect((await whole.search(PAGES_QUESTION, 'ppr', 800)).hits).toEqual(hits);
    await expect(
      PagedLibrary.open(
        new MemoryRangeSource(tree.data, 'held'),
        { ...location, hashes: tree.hashes.subarray(0, tree.layout[0].length) },
        analyzer,
      ),
    ).rejects.toThrow(
      `held: pages.sha256 has ${tree.layout[0].length} bytes, expected ${tree.hashes.length}`,
    );
  });

  it('a changed block hash under the page above it as written is refused naming its leaf page', async () => {
    const tree = await treeOf();
    // Leaf page 0 holds the hashes of `open`'s first blocks, read at opening.
    await expect(ask(changed(tree, (h) => (h[0] ^= 1)))).rejects.toThrow(pageMismatch(0, '0'));
    // Every hash past the first leaf page changed: the library opens, the question's first leaf page past it fails.
    const later = changed(tree, (h) => {
      for (let at = 128; at < tree.layout[0].length; at += 16) h[at] ^= 1;
    });
    await expect(ask(later)).rejects.toThrow(pageMismatch(0));
    await expect(verifyBundleCopy(await bundleOf(later))).rejects.toMatchObject({
      part: 'pages.sha256',
      message: expect.stringContaining('a page of pages.sha256 does not match its SHA-256 in the directory'),
    });
  });

  it('a changed page of a level above is refused naming the page and its level', async () => {
    const tree = await treeOf();
    const [, one, two] = tree.layout;
    await expect(ask(changed(tree, (h) => (h[one.at] ^= 1)))).rejects.toThrow(pageMismatch(1, '0'));
    await expect(ask(changed(tree, (h) => (h[two.at + 5] ^= 1)))).rejects.toThrow(pageMismatch(2, '0'));
    // Level 1 past its first page: read by the question, not at opening.
    const later = changed(tree, (h) => {
      for (let at = one.at + 128; at < one.at + one.length; at += 16) h[at] ^= 1;
    });
    await expect(ask(later)).rejects.toThrow(pageMismatch(1));
    // A block changed with every level below the top made anew for it: the top list, fixed by the manifest's digest,
    // refuses the last level's page.
    const data = tree.data.slice();
    data[0] ^= 1;
    const hasher = new BlockHasher(512, 16);
    hasher.update(data);
    const forged = hashTreeOf(hasher.finish(), LEVELS);
    expect(forged.hashPages.top).not.toBe(tree.directory.hashPages!.top);
    await expect(ask({ ...tree, data, hashes: forged.bytes })).rejects.toThrow(pageMismatch(2, '0'));
  });

  it('a page moved to another place in its level is refused', async () => {
    const tree = await treeOf();
    const [leaves, one] = tree.layout;
    const swap = (h: Uint8Array, at: number, size: number, a: number, b: number) => {
      const pa = h.slice(at + a * size, at + (a + 1) * size);
      h.copyWithin(at + a * size, at + b * size, at + (b + 1) * size);
      h.set(pa, at + b * size);
    };
    // Leaf pages 0 and 1 swapped: each is an honest page, in the wrong place.
    await expect(ask(changed(tree, (h) => swap(h, leaves.at, 128, 0, 1)))).rejects.toThrow(
      pageMismatch(0, '0'),
    );
    // Pages 0 and 1 of level 1 swapped.
    await expect(ask(changed(tree, (h) => swap(h, one.at, 128, 0, 1)))).rejects.toThrow(pageMismatch(1, '0'));
  });

  it('a top list that lies, or levels that do not add up, are refused', async () => {
    const tree = await treeOf();
    const hp = tree.directory.hashPages!;
    // The top's one hash changed: as many bytes, in base64, the wrong ones.
    const top = decodeTop(hp.top)!.slice();
    top[15] ^= 1;
    const lying = { ...tree, directory: { ...tree.directory, hashPages: { ...hp, top: encodeTop(top) } } };
    await expect(ask(lying)).rejects.toThrow(pageMismatch(2, '0'));
    await expect(verifyBundleCopy(await bundleOf(lying))).rejects.toMatchObject({ part: 'pages.sha256' });
    // Checked against the part before a byte of the pages is read.
    const cases: Array<[unknown, string]> = [
      [{ ...hp, levels: [128] }, 'has a top list of hash pages that is not 3 hashes in base64'],
      [{ ...hp, levels: [] }, 'has a top list of hash pages that is not 18 hashes in base64'],
      [{ ...hp, levels: [64, 128] }, 'has a level of hash pages of 64 bytes'],
      [{ ...hp, levels: [128, 100] }, 'has a level of hash pages of 100 bytes'],
      [{ ...hp, levels: [128, '128'] }, 'has a level of hash pages of 128 bytes'],
      [{ ...hp, levels: [128, 128, 128, 128, 128] }, 'has hash page levels [128,128,128,128,128]'],
      [{ ...hp, levels: 128 }, 'has hash page levels 128'],
      [{ ...hp, size: 64 }, 'has hash pages of 64 bytes'],
    ];
    for (const [hashPages, why] of cases) {
      const crafted = { ...tree, directory: { ...tree.directory, hashPages } as PagesDirectory };
      const source = new MemoryRangeSource(crafted.data, 'crafted.bundle');
      await expect(
        PagedLibrary.open(
          source,
          { base: 0, length: crafted.data.length, directory: crafted.directory, hashes: crafted.hashes },
          analyzer,
        ),
      ).rejects.toThrow(`the pages part's directory ${why}`);
      expect(source.bytesRead).toBe(0);
      await expect(openPagedBundle(await bundleOf(crafted), analyzer)).rejects.toThrow(why);
    }
    // Levels before version 7, and the hashes part without its levels, are refused.
    const v6 = await honestPages(6, 512, 0);
    const old = {
      ...v6,
      directory: { ...v6.directory, hashPages: { ...v6.directory.hashPages!, levels: [] } },
    };
    await expect(openPagedBundle(await bundleOf(old), analyzer)).rejects.toThrow('has hash page levels []');
    const cut = { ...tree, hashes: tree.hashes.subarray(0, tree.layout[0].length) };
    await expect(openPagedBundle(await bundleOf(cut), analyzer)).rejects.toThrow(
      `pages.sha256 has ${tree.layout[0].length} bytes, expected ${tree.hashes.length}`,
    );
    await expect(verifyBundleCopy(await bundleOf(cut))).rejects.toMatchObject({ part: 'pages.sha256' });
  });
});

describe('blocks of a size of their own by section (version 8)', () => {
  const analyzer = createTermAnalyzer();
  const bundleOf = craftedSource;
  const ask = (w: WrittenPagesLike) => askCrafted(w, analyzer);
  // The large layout with its rows in 128-byte blocks (the fixture's rows are a few KB: many blocks of their own).
  const rowsIn128 = () => honestPages(8, 512, 0, { rows: 128 });

  it('answers as version 7 does, reads its rows in blocks of their own, and the offline check passes', async () => {
    const v8 = await rowsIn128();
    const v7 = await honestPages(7, 512, 0);
    expect([v8.directory.version, v8.directory.sectionBlocks]).toEqual([8, { rows: 128 }]);
    const hits = await ask(v8);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits).toEqual(await ask(v7));
    await verifyBundleCopy(await bundleOf(v8));
    // Held whole (a library's own pages): the same answer.
    const location = { base: 0, length: v8.data.length, directory: v8.directory, hashes: v8.hashes };
    const whole = await PagedLibrary.open(new MemoryRangeSource(v8.data, 'held'), location, analyzer);
    expect((await whole.search(PAGES_QUESTION, 'ppr', 800)).hits).toEqual(hits);
  });

  it('a changed byte of the rows is refused naming its block, counted across the zones', async () => {
    const v8 = await rowsIn128();
    const [rowsAt, rowsLength] = v8.directory.sections.rows;
    expect(rowsLength).toBeGreaterThan(128 * 4);
    // The rows' third block: every 512-byte block before the rows, then two of 128 bytes.
    const at = rowsAt + 2 * 128 + 5;
    const data = v8.data.slice();
    data[at] ^= 0xff;
    const damaged = { ...v8, data };
    const block = Math.ceil(rowsAt / 512) + 2;
    // The walk reads the rows of the chunks it needs; the offline check reads every block.
    await expect(verifyBundleCopy(await bundleOf(damaged))).rejects.toThrow(
      `block ${block} of part pages.bin does not match its SHA-256`,
    );
    // Read by ranges: the store reads that block alone (its bytes end where the next 128 start) and names it.
    const opened = await openPagedBundle(await bundleOf(damaged), analyzer);
    const store = opened!.library.reader.store;
    expect(store.bytes(at, 1)).toBeUndefined();
    await expect(store.load()).rejects.toThrow(
      `crafted.bundle: corrupted (SHA-256 mismatch in block ${block} of part pages.bin)`,
    );
    // Its neighbours (a fresh library) read and check out: the block before the damaged one, the one after it.
    const fresh = (await openPagedBundle(await bundleOf(damaged), analyzer))!.library.reader.store;
    expect(fresh.bytes(at - 128, 1)).toBeUndefined();
    expect(fresh.bytes(at + 128, 1)).toBeUndefined();
    await fresh.load();
    expect(fresh.bytes(at - 128, 1)).toEqual(data.subarray(at - 128, at - 127));
    expect(fresh.bytes(at + 128, 1)).toEqual(data.subarray(at + 128, at + 129));
  });

  it('a directory giving bad block sizes by section is refused before a byte of the pages is read', async () => {
    const v8 = await rowsIn128();
    const v7 = await honestPages(7, 512, 0);
    const cases: Array<[PagesDirectory, string]> = [
      [{ ...v8.directory, sectionBlocks: { rows: 127 } }, 'has sectionBlocks.rows 127'],
      [{ ...v8.directory, sectionBlocks: { rows: 1 } }, 'has sectionBlocks.rows 1'],
      [{ ...v8.directory, sectionBlocks: { rows: 0.5 } }, 'has sectionBlocks.rows 0.5'],
      [{ ...v8.directory, sectionBlocks: { rows: (1 << 20) + 1 } }, 'has sectionBlocks.rows 1048577'],
      [{ ...v8.directory, sectionBlocks: { rows: '128' } } as never, 'has sectionBlocks.rows 128'],
      [
        { ...v8.directory, sectionBlocks: { pages: 256 } } as never,
        'has sectionBlocks for "pages", which is no section',
      ],
      [
        { ...v8.directory, sectionBlocks: JSON.parse('{"__proto__": 256}') as never },
        'has sectionBlocks for "__proto__", which is no section',
      ],
      [{ ...v8.directory, sectionBlocks: [128] } as never, 'has sectionBlocks [128]'],
      [{ ...v8.directory, sectionBlocks: 128 } as never, 'has sectionBlocks 128'],
      [{ ...v7.directory, sectionBlocks: { rows: 128 } }, 'has sectionBlocks {"rows":128}'],
      // A valid size that is not the one the hashes were made for: the part's hashes are of another length.
      [{ ...v8.directory, sectionBlocks: { rows: 256 } }, 'has a top list of hash pages that is not'],
    ];
    for (const [directory, why] of cases) {
      const pages = directory.version === 7 ? v7 : v8;
      const source = new MemoryRangeSource(pages.data, 'crafted.bundle');
      await expect(
        PagedLibrary.open(
          source,
          { base: 0, length: pages.data.length, directory, hashes: pages.hashes },
          analyzer,
        ),
      ).rejects.toThrow(`the pages part's directory ${why}`);
      expect(source.bytesRead).toBe(0);
    }
  });
});

describe('the degree codes of concepts in one chunk left out of open (version 9)', () => {
  const analyzer = createTermAnalyzer();
  const bundleOf = craftedSource;
  const opened = (w: WrittenPagesLike) => openCrafted(w, analyzer);
  const layouts = [
    ['small', () => honestPages(9, 1024), () => honestPages(8, 1024)],
    ['large', () => honestPages(9, 512, 0, { rows: 128 }), () => honestPages(8, 512, 0, { rows: 128 })],
  ] as const;
  /** Version 9 pieces, `open` changed by `change` (its value as stored: codes of the concepts not in one chunk). */
  const changed = async (change: (open: Record<string, unknown>, df: Uint32Array) => void) => {
    const p = piecesOf(await honestPages(9, 1024));
    const v8 = piecesOf(await honestPages(8, 1024));
    change(
      p.open as unknown as Record<string, unknown>,
      (await opened(await honestPages(8, 1024))).library.reader.open.df,
    );
    expect(v8.open.degreeCodes.length).toBeGreaterThan(p.open.degreeCodes.length);
    return assemble(p);
  };

  for (const [layout, v9, v8] of layouts)
    it(`answers as version 8 does, draws the same Graph view, and the offline check passes (${layout} layout)`, async () => {
      const [nine, eight] = [await opened(await v9()), await opened(await v8())];
      expect(nine.library.directory.version).toBe(9);
      for (const mode of ['ppr', 'bm25', 'concept'] as const) {
        const hits = (await nine.library.search(PAGES_QUESTION, mode, 800)).hits;
        expect(hits.length).toBeGreaterThan(0);
        expect(hits).toEqual((await eight.library.search(PAGES_QUESTION, mode, 800)).hits);
      }
      // The Graph view's library-wide side ranks every concept by its degree (degreeRanks.ts, topByDegree).
      const [g9, g8] = [
        await conceptNeighbourhood(nine.library.reader, { limit: 40 }),
        await conceptNeighbourhood(eight.library.reader, { limit: 40 }),
      ];
      expect(g9.value.nodes.length).toBe(40);
      expect(g9.value).toEqual(g8.value);
      await verifyBundleCopy(await bundleOf(await v9()));
    });

  it('a singleCode that is not a degree code, or none, is refused at open naming it', async () => {
    for (const value of [256, -1, 1.5, '7', undefined]) {
      const w = await changed((open) => {
        if (value === undefined) delete open.singleCode;
        else open.singleCode = value;
      });
      await expect(opened(w)).rejects.toThrow(
        `crafted.bundle: pages.bin (open) has singleCode ${String(value)} (a degree code, 0 to 255)`,
      );
    }
  });

  it('degree codes for one concept more or fewer than those not in one chunk are refused at open', async () => {
    for (const extra of [1, -1]) {
      let kept = 0;
      const w = await changed((open) => {
        const codes = open.degreeCodes as Uint8Array;
        kept = codes.length;
        open.degreeCodes = extra > 0 ? Uint8Array.from([...codes, 3]) : codes.slice(0, -1);
      });
      await expect(opened(w)).rejects.toThrow(
        `crafted.bundle: pages.bin (open) has ${kept + extra} degreeCodes, expected ${kept} (one a concept not in one chunk)`,
      );
    }
  });

  it('a singleCode below the degree a one-chunk concept sums to from its row is refused naming it', async () => {
    const w = await changed((open) => {
      expect(open.singleCode).toBeGreaterThan(1);
      open.singleCode = 1;
    });
    const library = (await opened(w)).library;
    await expect(library.search(PAGES_QUESTION, 'ppr', 800)).rejects.toThrow(
      /crafted\.bundle: pages\.bin \(open\) bounds the walk degree of a concept in one chunk by 1 \(singleCode 1\), but concept \d+, in chunk \d+ alone, has [\d.]+/,
    );
  });

  it('a singleCode in a version 8 open is refused naming it', async () => {
    const p = piecesOf(await honestPages(8, 1024));
    (p.open as unknown as Record<string, unknown>).singleCode = 3;
    await expect(opened(assemble(p))).rejects.toThrow(
      'crafted.bundle: pages.bin (open) has singleCode, which version 8 does not have',
    );
  });
});

/** A stored array of varints (a coded array of `open`) read back, value by value. */
function varintsOf(bytes: unknown): number[] {
  expect(bytes).toBeInstanceOf(Uint8Array);
  const r = new ByteReader(bytes as Uint8Array);
  const out: number[] = [];
  while (r.at < (bytes as Uint8Array).length) out.push(r.varint());
  return out;
}

/** Values stored as an array of varints. */
function bytesOf(values: number[]): Uint8Array {
  const w = new ByteWriter();
  for (const x of values) w.varint(x);
  return w.take();
}

/** Honest pages of `version` and of the version before it, in the small layout and the large one (128-byte rows). */
function layoutsOf(version: number) {
  return [
    ['small', () => honestPages(version, 1024), () => honestPages(version - 1, 1024)],
    [
      'large',
      () => honestPages(version, 512, 0, { rows: 128 }),
      () => honestPages(version - 1, 512, 0, { rows: 128 }),
    ],
  ] as const;
}

/** A layout's pieces with `open` (as stored) and the directory changed by `change`, assembled again. */
async function changedPieces(
  pages: () => Promise<WrittenPagesLike>,
  change: (open: Record<string, unknown>, d: Record<string, unknown>) => void,
) {
  const p = piecesOf(await pages());
  change(p.open as unknown as Record<string, unknown>, p.directory as unknown as Record<string, unknown>);
  return assemble(p);
}

describe('tokens and row group sizes as residuals in open (version 10)', () => {
  const analyzer = createTermAnalyzer();
  const bundleOf = craftedSource;
  const opened = (w: WrittenPagesLike) => openCrafted(w, analyzer);
  const layouts = layoutsOf(10);
  /** Version 10 pieces of a layout, `open` (as stored) and the directory changed by `change`. */
  const changed = (
    layout: 0 | 1,
    change: (open: Record<string, unknown>, d: Record<string, unknown>) => void,
  ) => changedPieces(layouts[layout][1], change);

  for (const [layout, v10, v9] of layouts)
    it(`answers as version 9 does, draws the same Graph view, and the offline check passes (${layout} layout)`, async () => {
      const [ten, nine] = [await opened(await v10()), await opened(await v9())];
      expect(ten.library.directory.version).toBe(10);
      expect(ten.library.directory.openResiduals?.tokensPerLength).toBeGreaterThan(0);
      // (Version 10's records are coded anew, in groups of other sizes: recordCoding's describe compares them.)
      const { recordGroups: groups10, ...open10 } = ten.library.reader.open;
      const { recordGroups: groups9, ...open9 } = nine.library.reader.open;
      expect(open10).toEqual(open9);
      expect(groups10.length).toBe(groups9.length);
      for (const mode of ['ppr', 'bm25', 'concept'] as const) {
        const hits = (await ten.library.search(PAGES_QUESTION, mode, 800)).hits;
        expect(hits.length).toBeGreaterThan(0);
        expect(hits).toEqual((await nine.library.search(PAGES_QUESTION, mode, 800)).hits);
      }
      const [g10, g9] = [
        await conceptNeighbourhood(ten.library.reader, { limit: 40 }),
        await conceptNeighbourhood(nine.library.reader, { limit: 40 }),
      ];
      expect(g10.value).toEqual(g9.value);
      await verifyBundleCopy(await bundleOf(await v10()));
    });

  it('openResiduals that are not a slope 0 to 2^24, or in a version 9 directory, are refused before open is read', async () => {
    for (const value of [2 ** 24 + 1, -1, 1.5, '7', null]) {
      const w = await changed(0, (_open, d) => {
        d.openResiduals = { tokensPerLength: value };
      });
      await expect(opened(w)).rejects.toThrow(
        `the pages part's directory has openResiduals.tokensPerLength ${String(value)} (a whole number 0 to 2^24)`,
      );
    }
    // (A key without a value is no key once the manifest is JSON.)
    for (const value of [7, [], { tokensPerLength: 1, rows: 1 }, {}, { tokensPerLength: undefined }]) {
      const w = await changed(0, (_open, d) => {
        d.openResiduals = value;
      });
      await expect(opened(w)).rejects.toThrow(
        "the pages part's directory has openResiduals that are not { tokensPerLength }",
      );
    }
    const p = piecesOf(await honestPages(9, 1024));
    (p.directory as unknown as Record<string, unknown>).openResiduals = { tokensPerLength: 65536 };
    await expect(opened(assemble(p))).rejects.toThrow(
      "the pages part's directory has openResiduals, which version 9 does not have",
    );
  });

  it('a slope that lies gives tokens the records refuse when a card is read, naming them', async () => {
    for (const layout of [0, 1] as const) {
      const w = await changed(layout, (_open, d) => {
        const r = d.openResiduals as { tokensPerLength: number };
        d.openResiduals = { tokensPerLength: r.tokensPerLength + 65536 };
      });
      const library = (await opened(w)).library;
      // The Ask view's first page: the first hit's record read, the others' tokens from `open` alone.
      await expect(
        library.search(PAGES_QUESTION, 'ppr', 800, undefined, undefined, () => [0]),
      ).rejects.toThrow(/crafted\.bundle: pages\.bin's records give chunk \d+ \d+ tokens, open \d+/);
    }
  });

  it('residuals for one chunk or group more or fewer, or a token count below 0, are refused at open naming them', async () => {
    for (const layout of [0, 1] as const) {
      const n = (await layouts[layout][1]()).directory.chunkCount;
      for (const extra of [1, -1]) {
        const tokens = await changed(layout, (open) => {
          const values = varintsOf(open.tokens);
          open.tokens = bytesOf(extra > 0 ? [...values, 0] : values.slice(0, -1));
        });
        await expect(opened(tokens)).rejects.toThrow(
          `crafted.bundle: pages.bin (open) has ${n + extra} tokens, expected ${n}`,
        );
        let groups = 0;
        const rows = await changed(layout, (open) => {
          const values = varintsOf(open.rowGroups);
          groups = values.length;
          open.rowGroups = bytesOf(extra > 0 ? [...values, 0] : values.slice(0, -1));
        });
        await expect(opened(rows)).rejects.toThrow(
          `crafted.bundle: pages.bin (open) has ${groups + extra} rowGroups, expected ${groups}`,
        );
      }
      // The first chunk's residual far below its prediction: a count below 0.
      const below = await changed(layout, (open) => {
        const values = varintsOf(open.tokens);
        values[0] = 2 * 2 ** 40 - 1; // zigzag of −2^40
        open.tokens = bytesOf(values);
      });
      await expect(opened(below)).rejects.toThrow(
        /crafted\.bundle: pages\.bin \(open\) gives chunk 0 -\d+ tokens \(openResiduals\)/,
      );
    }
  });

  it('row group sizes that lie are refused: past the rows section, below 0, or cut where no row ends', async () => {
    // One group's size too large: the groups end past the rows section.
    for (const layout of [0, 1] as const) {
      const w = await changed(layout, (open) => {
        const values = varintsOf(open.rowGroups);
        values[values.length - 1] += 2;
        open.rowGroups = bytesOf(values);
      });
      await expect(opened(w)).rejects.toThrow('crafted.bundle: pages.bin rowGroups');
    }
    // The small layout's one gzip'd group (a zigzag residual) far below its chunks' counts: a size below 0.
    const below = await changed(0, (open) => {
      open.rowGroups = bytesOf([2 * 2 ** 40 - 1]);
    });
    await expect(opened(below)).rejects.toThrow(
      /crafted\.bundle: pages\.bin \(open\) gives row group 0 -\d+ bytes \(rowGroups\)/,
    );
    // The large layout: a byte moved from one chunk's row to the next (the sum right, both rows cut wrong).
    let g = -1;
    const moved = await changed(1, (open) => {
      const values = varintsOf(open.rowGroups);
      g = values.findIndex((x, i) => x > 0 && i + 1 < values.length);
      values[g] -= 1;
      values[g + 1] += 1;
      open.rowGroups = bytesOf(values);
    });
    expect(g).toBeGreaterThanOrEqual(0);
    const { reader } = (await opened(moved)).library;
    await expect(reader.readUntilComplete(() => reader.rowGroup(g))).rejects.toThrow(
      /crafted\.bundle: pages\.bin/,
    );
  });
});

describe('concept counts, group, list and document sizes coded smaller in open (version 11, openCoding)', () => {
  const analyzer = createTermAnalyzer();
  const opened = (w: WrittenPagesLike) => openCrafted(w, analyzer);
  const layouts = layoutsOf(11);
  /** Version 11 pieces of a layout, `open` (as stored) and the directory changed by `change`. */
  const changed = (
    layout: 0 | 1,
    change: (open: Record<string, unknown>, d: Record<string, unknown>) => void,
  ) => changedPieces(layouts[layout][1], change);
  const KEYS = [
    'countsPerLength',
    'rowBytesPerCount',
    'recordBytesPerLength',
    'listBytesPerBit',
    'documentRuns',
  ] as const;

  for (const [layout, v11, v10] of layouts)
    it(`answers as version 10 does, draws the same Graph view, and the offline check passes (${layout} layout)`, async () => {
      const [eleven, ten] = [await opened(await v11()), await opened(await v10())];
      const coding = eleven.library.directory.openCoding!;
      expect(eleven.library.directory.version).toBe(11);
      expect(coding.countsPerLength).toBeGreaterThan(0);
      expect(coding.documentRuns).toBe(1);
      expect(ten.library.directory.openCoding).toBeUndefined();
      expect(eleven.library.reader.open).toEqual(ten.library.reader.open);
      for (const mode of ['ppr', 'bm25', 'concept'] as const) {
        const hits = (await eleven.library.search(PAGES_QUESTION, mode, 800)).hits;
        expect(hits.length).toBeGreaterThan(0);
        expect(hits).toEqual((await ten.library.search(PAGES_QUESTION, mode, 800)).hits);
      }
      const [g11, g10] = [
        await conceptNeighbourhood(eleven.library.reader, { limit: 40 }),
        await conceptNeighbourhood(ten.library.reader, { limit: 40 }),
      ];
      expect(g11.value).toEqual(g10.value);
      await verifyBundleCopy(await craftedSource(await v11()));
    });

  it('openCoding of another shape, a slope not 0 to 2^24, documentRuns not 0 or 1, in a version 10 directory or without openResiduals, is refused before open is read', async () => {
    for (const key of KEYS)
      for (const value of [2 ** 24 + 1, -1, 1.5, '7', null]) {
        const w = await changed(1, (_open, d) => {
          d.openCoding = { ...(d.openCoding as object), [key]: value };
        });
        await expect(opened(w)).rejects.toThrow(
          `the pages part's directory has openCoding.${key} ${String(value)} (a whole number 0 to 2^24)`,
        );
      }
    for (const value of [2, 65536]) {
      const w = await changed(0, (_open, d) => {
        d.openCoding = { ...(d.openCoding as object), documentRuns: value };
      });
      await expect(opened(w)).rejects.toThrow(
        `the pages part's directory has openCoding.documentRuns ${value} (0 or 1)`,
      );
    }
    // The small layout keeps its lists in its rows: it has no list sizes to code.
    const lists = await changed(0, (_open, d) => {
      d.openCoding = { ...(d.openCoding as object), listBytesPerBit: 1 };
    });
    await expect(opened(lists)).rejects.toThrow(
      "the pages part's directory has openCoding.listBytesPerBit but keeps its lists in its rows",
    );
    // (A key without a value is no key once the manifest is JSON.)
    for (const value of [7, [], {}, { countsPerLength: 1 }, { tokensPerLength: 1 }]) {
      const w = await changed(0, (_open, d) => {
        d.openCoding = value;
      });
      await expect(opened(w)).rejects.toThrow(
        "the pages part's directory has openCoding that is not { countsPerLength, rowBytesPerCount, recordBytesPerLength, listBytesPerBit, documentRuns }",
      );
    }
    const extra = await changed(0, (_open, d) => {
      d.openCoding = { ...(d.openCoding as object), rows: 1 };
    });
    await expect(opened(extra)).rejects.toThrow("the pages part's directory has openCoding that is not {");
    const none = await changed(0, (_open, d) => {
      delete d.openResiduals;
    });
    await expect(opened(none)).rejects.toThrow(
      "the pages part's directory has openCoding without openResiduals",
    );
    const p = piecesOf(await honestPages(10, 1024));
    (p.directory as unknown as Record<string, unknown>).openCoding = (
      await honestPages(11, 1024)
    ).directory.openCoding;
    await expect(opened(assemble(p))).rejects.toThrow(
      "the pages part's directory has openCoding, which version 10 does not have",
    );
  });

  it('residuals for one chunk, group, concept or document more or fewer are refused at open naming them', async () => {
    for (const layout of [0, 1] as const) {
      const d = (await layouts[layout][1]()).directory;
      const n = d.chunkCount;
      for (const more of [1, -1]) {
        const edit = (values: number[]) => (more > 0 ? [...values, 0] : values.slice(0, -1));
        const counts = await changed(layout, (open) => {
          open.conceptCounts = bytesOf(edit(varintsOf(open.conceptCounts)));
        });
        await expect(opened(counts)).rejects.toThrow(
          `crafted.bundle: pages.bin (open) has ${n + more} conceptCounts, expected ${n}`,
        );
        const groups = Math.ceil(n / d.groups.records);
        const records = await changed(layout, (open) => {
          open.recordGroups = bytesOf(edit(varintsOf(open.recordGroups)));
        });
        await expect(opened(records)).rejects.toThrow(
          `crafted.bundle: pages.bin (open) has ${groups + more} recordGroups, expected ${groups}`,
        );
        const rowGroups = Math.ceil(n / d.groups.rows);
        const rows = await changed(layout, (open) => {
          open.rowGroups = bytesOf(edit(varintsOf(open.rowGroups)));
        });
        await expect(opened(rows)).rejects.toThrow(
          `crafted.bundle: pages.bin (open) has ${rowGroups + more} rowGroups, expected ${rowGroups}`,
        );
        // One document more (of one chunk) or fewer: the sizes no longer cover the chunks.
        let documents = 0;
        const docs = await changed(layout, (open) => {
          const sizes = varintsOf(open.documentChunks);
          documents = sizes.length;
          open.documentChunks = bytesOf(more > 0 ? [...sizes, 1] : sizes.slice(0, -1));
          const titles = varintsOf(open.titleChunks);
          open.titleChunks = bytesOf(more > 0 ? [...titles, 0] : titles.slice(0, -1));
        });
        await expect(opened(docs)).rejects.toThrow(
          more > 0
            ? `crafted.bundle: pages.bin (open) has documentChunks that do not cover its ${n} chunks (document ${documents})`
            : /crafted\.bundle: pages\.bin \(open\) has documentChunks that cover \d+ of its \d+ chunks/,
        );
        const titles = await changed(layout, (open) => {
          open.titleChunks = bytesOf(edit(varintsOf(open.titleChunks)));
        });
        await expect(opened(titles)).rejects.toThrow(
          `crafted.bundle: pages.bin (open) has ${documents + more} titleChunks, expected ${documents} (one a document)`,
        );
      }
      // A document of 0 chunks, or one of 2^40: refused before a chunk's value is written.
      for (const size of [0, 2 ** 40]) {
        const w = await changed(layout, (open) => {
          const sizes = varintsOf(open.documentChunks);
          sizes[0] = size;
          open.documentChunks = bytesOf(sizes);
        });
        await expect(opened(w)).rejects.toThrow(
          `crafted.bundle: pages.bin (open) has documentChunks that do not cover its ${n} chunks (document 0)`,
        );
      }
    }
    const nc = (await layouts[1][1]()).directory.conceptCount;
    const lists = await changed(1, (open) => {
      open.listSizes = bytesOf(varintsOf(open.listSizes).slice(0, -1));
    });
    await expect(opened(lists)).rejects.toThrow(
      `crafted.bundle: pages.bin (open) listSizes hold fewer than ${nc} values`,
    );
  });

  it('a df split that lies (dfOnes of another length, bits past the concepts, a df more or fewer, a df of 1 among the others) is refused at open naming it', async () => {
    for (const layout of [0, 1] as const) {
      const nc = (await layouts[layout][1]()).directory.conceptCount;
      const bytes = Math.ceil(nc / 8);
      for (const length of [bytes - 1, bytes + 1]) {
        const w = await changed(layout, (open) => {
          const ones = open.dfOnes as Uint8Array;
          const out = new Uint8Array(length);
          out.set(ones.subarray(0, Math.min(length, ones.length)));
          open.dfOnes = out;
        });
        await expect(opened(w)).rejects.toThrow(
          `crafted.bundle: pages.bin (open) has dfOnes of ${length} bytes, expected ${bytes} (a bit a concept)`,
        );
      }
      const none = await changed(layout, (open) => {
        delete open.dfOnes;
      });
      await expect(opened(none)).rejects.toThrow(
        `crafted.bundle: pages.bin (open) has dfOnes of no bytes, expected ${bytes}`,
      );
      if (nc % 8 !== 0) {
        const past = await changed(layout, (open) => {
          const ones = (open.dfOnes as Uint8Array).slice();
          ones[ones.length - 1] |= 0x80;
          open.dfOnes = ones;
        });
        await expect(opened(past)).rejects.toThrow(
          `crafted.bundle: pages.bin (open) has dfOnes set past its ${nc} concepts`,
        );
      }
      let others = 0;
      const fewer = await changed(layout, (open) => {
        const values = varintsOf(open.df);
        others = values.length;
        open.df = bytesOf(values.slice(0, -1));
      });
      await expect(opened(fewer)).rejects.toThrow(
        `crafted.bundle: pages.bin (open) has ${others - 1} df, expected ${others} (one a concept not in dfOnes)`,
      );
      const one = await changed(layout, (open) => {
        const values = varintsOf(open.df);
        values[0] = 1;
        open.df = bytesOf(values);
      });
      await expect(opened(one)).rejects.toThrow(
        /crafted\.bundle: pages\.bin \(open\) gives concept \d+ a df of 1 beside dfOnes/,
      );
      // A bit cleared: one df more is asked for than the others hold.
      const cleared = await changed(layout, (open) => {
        const ones = (open.dfOnes as Uint8Array).slice();
        const at = ones.findIndex((x) => x !== 0);
        ones[at] &= ones[at] - 1;
        open.dfOnes = ones;
      });
      await expect(opened(cleared)).rejects.toThrow(
        `crafted.bundle: pages.bin (open) has ${others} df, expected ${others + 1} (one a concept not in dfOnes)`,
      );
    }
  });

  it('a residual far below its prediction (a count or size below 0) is refused at open naming its array', async () => {
    const far = 2 * 2 ** 40 - 1; // zigzag of −2^40
    const first = (values: number[]) => [far, ...values.slice(1)];
    for (const layout of [0, 1] as const) {
      const counts = await changed(layout, (open) => {
        open.conceptCounts = bytesOf(first(varintsOf(open.conceptCounts)));
      });
      await expect(opened(counts)).rejects.toThrow(
        /crafted\.bundle: pages\.bin \(open\) gives chunk 0 -\d+ concepts \(openCoding\.countsPerLength\)/,
      );
      const records = await changed(layout, (open) => {
        open.recordGroups = bytesOf(first(varintsOf(open.recordGroups)));
      });
      await expect(opened(records)).rejects.toThrow(
        /crafted\.bundle: pages\.bin \(open\) gives record group 0 -\d+ bytes \(recordGroups\)/,
      );
      const rows = await changed(layout, (open) => {
        open.rowGroups = bytesOf(first(varintsOf(open.rowGroups)));
      });
      await expect(opened(rows)).rejects.toThrow(
        /crafted\.bundle: pages\.bin \(open\) gives row group 0 -\d+ bytes \(rowGroups\)/,
      );
      const titles = await changed(layout, (open) => {
        open.titleChunks = bytesOf(first(varintsOf(open.titleChunks)));
      });
      await expect(opened(titles)).rejects.toThrow(
        /crafted\.bundle: pages\.bin \(open\) gives document 0 -\d+ titleChunks/,
      );
    }
    const lists = await changed(1, (open) => {
      open.listSizes = bytesOf(first(varintsOf(open.listSizes)));
    });
    await expect(opened(lists)).rejects.toThrow(
      /crafted\.bundle: pages\.bin \(open\) gives concept \d+'s list -\d+ bytes more \(listSizes\)/,
    );
  });

  it('a slope that lies is refused at open, or answers within its bounds: never a loop or an allocation by it', async () => {
    for (const layout of [0, 1] as const)
      for (const key of KEYS.slice(0, 4)) {
        const w = await changed(layout, (_open, d) => {
          const c = d.openCoding as Record<string, number>;
          d.openCoding = { ...c, [key]: Math.min(2 ** 24, c[key] + 65536) };
        });
        if (layout === 0 && key === 'listBytesPerBit') {
          await expect(opened(w)).rejects.toThrow('listBytesPerBit but keeps its lists in its rows');
          continue;
        }
        await expect(opened(w)).rejects.toThrow(/crafted\.bundle: pages\.bin/);
      }
  });
});

describe('the rows in blocks of whole rows (version 10, rowBlocks)', () => {
  const analyzer = createTermAnalyzer();
  const bundleOf = craftedSource;
  const ask = (w: WrittenPagesLike) => askCrafted(w, analyzer);
  // The large layout (the lists in 128-byte blocks, as the writer gives them): the rows in blocks of whole rows of at
  // most 128 bytes, the writer's default (the fixture's rows are ~2 KB, a few rows a block).
  const v10 = () => honestPages(10, 512, 0, { lists: 128 });
  const v9 = () => honestPages(9, 512, 0, { lists: 128, rows: 128 });
  /** Each chunk's row as [from, to) in the part, from `open`'s row groups (one chunk a group). */
  const rowsOf = (w: WrittenPagesLike): Array<[number, number]> => {
    const offsets = rowOffsets(piecesOf(w))!;
    const at = w.directory.sections.rows[0];
    return offsets.slice(1).map((to, k) => [at + offsets[k], at + to]);
  };

  it('answers as version 9 does, reads each row in one block, and the offline check passes', async () => {
    const w = await v10();
    expect([w.directory.version, w.directory.rowBlocks?.size]).toEqual([10, 128]);
    const rows = rowsOf(w);
    expect(rows.length).toBe(w.directory.chunkCount);
    expect(w.directory.rowBlocks!.count).toBeLessThan(rows.length);
    const hits = await ask(w);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits).toEqual(await ask(await v9()));
    await verifyBundleCopy(await bundleOf(w));
    // A row alone: one block read, holding that row and its neighbours whole, at most 128 bytes unless the row is
    // longer; never a piece of a block beyond it.
    const opened = (await openPagedBundle(await bundleOf(w), analyzer))!;
    const { store } = opened.library.reader;
    let tried = 0;
    for (const k of [1, 3, 7, Math.floor(rows.length / 2), rows.length - 1]) {
      const [from, to] = rows[k];
      const before = store.bytesRead;
      // Read already with a neighbour (a block holds a few rows): nothing to measure.
      if (store.bytes(from, to - from) !== undefined) continue;
      tried++;
      await store.load();
      expect(store.bytes(from, to - from)).toEqual(w.data.subarray(from, to));
      const read = store.bytesRead - before;
      // The block's bytes and a leaf page of hashes at most (a page read once serves its neighbours).
      expect(read).toBeLessThanOrEqual(Math.max(128, to - from) + 128);
    }
    expect(tried).toBeGreaterThanOrEqual(3);
    // No row straddles two blocks: the store reads a row's bytes from one block (a row's first and last byte alone
    // are read with its block, so the row is then whole).
    for (const [from, to] of rows) {
      if (to === from) continue;
      if (store.bytes(to - 1, 1) === undefined) await store.load();
      expect(store.bytes(from, to - from)).toEqual(w.data.subarray(from, to));
      store.forget();
    }
    // Held whole (a library's own pages): the same answer.
    const location = { base: 0, length: w.data.length, directory: w.directory, hashes: w.hashes };
    const whole = await PagedLibrary.open(new MemoryRangeSource(w.data, 'held'), location, analyzer);
    expect((await whole.search(PAGES_QUESTION, 'ppr', 800)).hits).toEqual(hits);
  });

  it('a block of every row at the largest size (1 MiB) answers as the writer’s size does', async () => {
    const p = piecesOf(await v10());
    p.directory.rowBlocks = { size: 1 << 20, count: 0 };
    const w = assemble(p);
    expect(w.directory.rowBlocks).toEqual({ size: 1 << 20, count: 1 });
    expect(await ask(w)).toEqual(await ask(await v10()));
    await verifyBundleCopy(await bundleOf(w));
  });

  it('a directory giving bad blocks of whole rows is refused before a byte of the pages is read', async () => {
    const w = await v10();
    const rows = w.directory.rowBlocks!;
    const rowsLength = w.directory.sections.rows[1];
    const v9pages = await v9();
    const small = await honestPages(10, 1024);
    expect(small.directory.listsInRows).toBe(true);
    const cases: Array<[WrittenPagesLike, PagesDirectory, string]> = [
      [w, { ...w.directory, rowBlocks: { size: 63, count: rows.count } }, 'has rowBlocks.size 63'],
      [w, { ...w.directory, rowBlocks: { size: 2 ** 21, count: rows.count } }, 'has rowBlocks.size 2097152'],
      [w, { ...w.directory, rowBlocks: { size: 1e300, count: rows.count } }, 'has rowBlocks.size 1e+300'],
      [w, { ...w.directory, rowBlocks: { size: 128.5, count: rows.count } }, 'has rowBlocks.size 128.5'],
      [
        w,
        { ...w.directory, rowBlocks: { size: '128', count: rows.count } } as never,
        'has rowBlocks.size 128 (blocks of whole rows',
      ],
      [w, { ...w.directory, rowBlocks: { size: 128, count: -1 } }, 'has rowBlocks.count -1'],
      [
        w,
        { ...w.directory, rowBlocks: { size: 128, count: rowsLength + 1 } },
        `has rowBlocks.count ${rowsLength + 1} for a ${rowsLength}-byte rows section`,
      ],
      [w, { ...w.directory, rowBlocks: { size: 128, count: 0 } }, 'has rowBlocks.count 0 for a'],
      [
        w,
        { ...w.directory, rowBlocks: { size: 128, count: 2 ** 53 } },
        'has rowBlocks.count 9007199254740992',
      ],
      [w, { ...w.directory, rowBlocks: { size: 128 } } as never, 'has rowBlocks.count undefined'],
      [
        w,
        { ...w.directory, rowBlocks: { ...rows, first: 0 } } as never,
        'has rowBlocks {"size":128,"count":',
      ],
      [w, { ...w.directory, rowBlocks: [128, rows.count] } as never, 'has rowBlocks [128,'],
      [w, { ...w.directory, rowBlocks: 128 } as never, 'has rowBlocks 128 (version 10 gives an object'],
      [w, { ...w.directory, rowBlocks: null } as never, 'has rowBlocks null'],
      [
        w,
        { ...w.directory, sectionBlocks: { ...w.directory.sectionBlocks, rows: 128 } },
        'has rowBlocks and sectionBlocks.rows 128',
      ],
      // Only from version 10, and not for rows that keep the lists (one group, read whole).
      [v9pages, { ...v9pages.directory, rowBlocks: rows }, 'has rowBlocks {"size":128'],
      [
        small,
        { ...small.directory, rowBlocks: { size: 128, count: 1 } },
        'has rowBlocks but keeps its lists in its rows',
      ],
    ];
    for (const [pages, directory, why] of cases) {
      const source = new MemoryRangeSource(pages.data, 'crafted.bundle');
      await expect(
        PagedLibrary.open(
          source,
          { base: 0, length: pages.data.length, directory, hashes: pages.hashes },
          analyzer,
        ),
        why,
      ).rejects.toThrow(why.startsWith('crafted') ? why : `the pages part's directory ${why}`);
      expect(source.bytesRead).toBe(0);
    }
    // A valid count that is not the one the hashes were made for: the hashes part is of another length, or its tree
    // another top list (whichever the block count moves first).
    const source = new MemoryRangeSource(w.data, 'crafted.bundle');
    const other = { ...w.directory, rowBlocks: { size: 128, count: rows.count + 1 } };
    await expect(
      PagedLibrary.open(
        source,
        { base: 0, length: w.data.length, directory: other, hashes: w.hashes },
        analyzer,
      ),
    ).rejects.toThrow(
      /bytes of block hashes in pages\.sha256, expected \d+ blocks|a top list of hash pages that is not \d+ hashes/,
    );
    expect(source.bytesRead).toBe(0);
  });

  /** The honest pieces with one boundary of their row groups moved, the count of blocks it makes kept or changed. */
  const moved = async (sameCount: boolean) => {
    const honest = await v10();
    const p = piecesOf(honest);
    const offsets = rowOffsets(p)!;
    const size = honest.directory.rowBlocks!.size;
    const count = rowBlockStarts(offsets, size).length;
    const honestStarts = rowBlockStarts(offsets, size).join();
    for (let g = 1; g < offsets.length - 1; g++) {
      for (let at = offsets[g - 1] + 1; at < offsets[g + 1]; at++) {
        const lying = [...offsets];
        lying[g] = at;
        const starts = rowBlockStarts(lying, size);
        const lies = sameCount
          ? starts.length === count && starts.join() !== honestStarts
          : starts.length !== count;
        // (Version 10's open stores a group's size less its concept counts: a move has to keep that at 0 or above.)
        if (lies && storeRowOffsets(p, lying)) {
          // The hashes (and the directory's count) those of the honest groups: only `open` lies.
          return assemble(p, { keepRowBlocks: true, rowGroupsHashed: offsets });
        }
      }
    }
    throw new Error('no boundary to move');
  };

  it('row groups that make another count of blocks than the directory’s are refused at open, naming rowBlocks', async () => {
    const w = await moved(false);
    await expect(openPagedBundle(await bundleOf(w), analyzer)).rejects.toThrow(
      new RegExp(
        `crafted\\.bundle: the pages part's directory has rowBlocks\\.count ${w.directory.rowBlocks!.count}, but ` +
          `open's row groups make \\d+ blocks of at most 128 bytes`,
      ),
    );
    await expect(verifyBundleCopy(await bundleOf(w))).rejects.toMatchObject({ part: 'pages.bin' });
  });

  it('row groups that move a block’s boundary (the same count) are refused naming the block its hash does not match', async () => {
    const w = await moved(true);
    const opened = (await openPagedBundle(await bundleOf(w), analyzer))!;
    await expect(opened.library.search(PAGES_QUESTION, 'ppr', 800)).rejects.toThrow(
      /crafted\.bundle: corrupted \(SHA-256 mismatch in block \d+ of part pages\.bin\)/,
    );
    await expect(verifyBundleCopy(await bundleOf(w))).rejects.toThrow(
      /block \d+ of part pages\.bin does not match its SHA-256/,
    );
  });
});

// Version 10's records (recordCoding.ts): positional JSON deflated with a dictionary stored at the end of the records
// section. Every new value read from the bundle is checked before it is used and refused naming its field or group.
describe('records coded with a dictionary (version 10)', () => {
  const analyzer = createTermAnalyzer();
  const bundleOf = craftedSource;
  const opened = (w: WrittenPagesLike) => openCrafted(w, analyzer);
  const layouts = [
    ['small', () => honestPages(10, 1024), () => honestPages(9, 1024)],
    ['large', () => honestPages(10, 512, 0, { rows: 128 }), () => honestPages(9, 512, 0, { rows: 128 })],
  ] as const;
  const v10 = async () => piecesOf(await honestPages(10, 1024));
  /** The question's answer, or the message it is refused with. */
  const answer = async (w: WrittenPagesLike) =>
    (await opened(w)).library.search(PAGES_QUESTION, 'ppr', 800).then(
      (a) => a,
      (e: unknown) => {
        throw e;
      },
    );

  for (const [layout, ten, nine] of layouts)
    it(`answers as version 9 does, with the same records, and the offline check passes (${layout} layout)`, async () => {
      const [a, b] = [await opened(await ten()), await opened(await nine())];
      expect(a.library.directory.version).toBe(10);
      expect(a.library.directory.recordCoding!.dictionary).toBeGreaterThan(0);
      for (const mode of ['ppr', 'bm25'] as const) {
        const [x, y] = [
          await a.library.search(PAGES_QUESTION, mode, 800),
          await b.library.search(PAGES_QUESTION, mode, 800),
        ];
        expect(x.hits.length).toBeGreaterThan(0);
        expect(x.hits).toEqual(y.hits);
        expect([...x.records.values()].map((r) => JSON.stringify(r))).toEqual(
          [...y.records.values()].map((r) => JSON.stringify(r)),
        );
      }
      await verifyBundleCopy(await bundleOf(await ten()));
    });

  it('a recordCoding that is not { dictionary: bytes } within its bounds, or in a version 9 directory, is refused at open naming it', async () => {
    const p = await v10();
    const own = p.directory.sections.records[1];
    for (const value of [
      { dictionary: -1 },
      { dictionary: 1.5 },
      { dictionary: '7' },
      { dictionary: own + 1 },
      { dictionary: 64 * 1024 + 1 },
      {},
      7,
      null,
      [],
    ]) {
      const q = await v10();
      (q.directory as unknown as Record<string, unknown>).recordCoding = value;
      await expect(opened(assemble(q))).rejects.toThrow(/the pages part's directory has recordCoding/);
    }
    const nine = piecesOf(await honestPages(9, 1024));
    nine.directory.recordCoding = { dictionary: 0 };
    await expect(opened(assemble(nine))).rejects.toThrow(
      'the pages part\'s directory has recordCoding {"dictionary":0} (version 10 gives an object { dictionary })',
    );
  });

  it('a dictionary that inflates past 32 KiB, is cut short or is damaged is refused at the first record, naming it', async () => {
    const big = await v10();
    setStoredDictionary(big, deflateWithLength(new Uint8Array(32 * 1024 + 1)));
    await expect(answer(assemble(big))).rejects.toThrow(
      'crafted.bundle: pages.bin group kd does not decode (declares 32769 bytes inflated)',
    );
    const cut = await v10();
    setStoredDictionary(cut, storedDictionary(cut).slice(0, -5));
    await expect(answer(assemble(cut))).rejects.toThrow(
      /crafted\.bundle: pages\.bin group kd does not decode/,
    );
    // A dictionary of other bytes (deflated honestly): the groups deflated with the real one do not inflate to
    // records with it.
    const other = await v10();
    const changed = recordDictionary(other).slice();
    for (let i = 0; i < changed.length; i += 7) changed[i] ^= 0x55;
    setStoredDictionary(other, deflateWithLength(changed));
    await expect(answer(assemble(other))).rejects.toThrow(
      /crafted\.bundle: pages\.bin group k\d+ does not decode/,
    );
  });

  it('a group that declares more inflated bytes than 64× its own plus 1 MiB is refused before anything is allocated', async () => {
    const p = await v10();
    const honest = deflateWithLength(
      new TextEncoder().encode(JSON.stringify(recordGroup(p, 0))),
      recordDictionary(p),
    );
    // The same deflated bytes after a varint of 2^31 instead of their length.
    const head = new ByteReader(honest);
    head.varint();
    const forged = new Uint8Array(5 + honest.length - head.at);
    forged.set([0x80, 0x80, 0x80, 0x80, 0x08]);
    forged.set(honest.subarray(head.at), 5);
    const q = await v10();
    replaceRecordGroupBytes(q, 0, forged);
    await expect(answer(assemble(q))).rejects.toThrow(
      'crafted.bundle: pages.bin group k0 does not decode (declares 2147483648 bytes inflated)',
    );
  });

  it('positional records of the wrong shape are refused naming the record and its field', async () => {
    const cases: Array<[(r: unknown[]) => unknown, string]> = [
      [(r) => r.slice(0, 10), 'its record 0 is not a list of 11 fields'],
      [(r) => r.map((x, i) => (i === 0 ? 7 : x)), 'its record 0 has no "id" string'],
      [(r) => r.map((x, i) => (i === 1 ? 0 : x)), 'its record 0 has no "docId" string'],
      [(r) => r.map((x, i) => (i === 2 ? null : x)), 'its record 0 has no "title" string'],
      [(r) => r.map((x, i) => (i === 4 ? '7' : x)), 'its record 0 has no "tokens" count'],
      [(r) => r.map((x, i) => (i === 5 ? -1 : x)), 'its record 0 has no "start" count'],
      [
        (r) => r.map((x, i) => (i === 6 ? { length: 2e9 } : x)),
        'its record 0 has "sentences" that are not a list',
      ],
      [
        (r) => r.map((x, i) => (i === 6 ? [0, 1e300] : x)),
        'its record 0 has sentence gap 1 that is not a whole number',
      ],
      [
        (r) => r.map((x, i) => (i === 6 ? [0, -1] : x)),
        'its records 0 has sentence 0 that is not a [start, end] pair',
      ],
      [(r) => r.map((x, i) => (i === 7 ? 1 : x)), 'its record 0 has "path" the same as no record before it'],
      [(r) => r.map((x, i) => (i === 8 ? ['x'] : x)), 'its record 0 has a "pageStarts" that is not a list'],
      [(r) => r.map((x, i) => (i === 9 ? 0.5 : x)), 'its record 0 has a "pageStart" that is not a count'],
    ];
    for (const [change, message] of cases) {
      const p = await v10();
      const records = recordGroup(p, 0) as unknown[][];
      records[0] = change(records[0]) as unknown[];
      setRecordGroup(p, 0, records);
      await expect(answer(assemble(p))).rejects.toThrow(
        `crafted.bundle: pages.bin group k0 does not decode (${message}`,
      );
    }
    // A group a record short.
    const p = await v10();
    setRecordGroup(p, 0, recordGroup(p, 0).slice(1));
    await expect(answer(assemble(p))).rejects.toThrow(
      /crafted\.bundle: pages\.bin group k0 does not decode \(holds \d+ records, expected \d+\)/,
    );
  });
});

describe('the lists packed into blocks, open holding how many start in each (version 12, listCoding)', () => {
  const analyzer = createTermAnalyzer();
  const opened = (w: WrittenPagesLike) => openCrafted(w, analyzer);
  const layouts = layoutsOf(12);
  /** Version 12 pieces of the large layout (the small one has no lists section), changed by `change`. */
  const changed = (
    change: (
      open: Record<string, unknown>,
      d: Record<string, unknown>,
      p: ReturnType<typeof piecesOf>,
    ) => void,
  ) =>
    (async () => {
      const p = piecesOf(await layouts[1][1]());
      change(
        p.open as unknown as Record<string, unknown>,
        p.directory as unknown as Record<string, unknown>,
        p,
      );
      return assemble(p);
    })();
  /** Every concept's list read (one round after opening), or the error of the first that is refused. */
  const everyList = async (w: WrittenPagesLike) => {
    const { library } = await opened(w);
    const nc = library.directory.conceptCount;
    return library.reader.readUntilComplete(() =>
      Array.from({ length: nc }, (_, c) => library.reader.chunksOf(c)),
    );
  };

  for (const [layout, v12, v11] of layouts)
    it(`answers as version 11 does, draws the same Graph view, and the offline check passes (${layout} layout)`, async () => {
      const [twelve, eleven] = [await opened(await v12()), await opened(await v11())];
      expect(twelve.library.directory.version).toBe(12);
      expect(twelve.library.directory.listCoding).toEqual(
        layout === 'large' ? { blockBytes: 128 } : undefined,
      );
      for (const mode of ['ppr', 'bm25', 'concept'] as const) {
        const hits = (await twelve.library.search(PAGES_QUESTION, mode, 800)).hits;
        expect(hits.length).toBeGreaterThan(0);
        expect(hits).toEqual((await eleven.library.search(PAGES_QUESTION, mode, 800)).hits);
      }
      const [g12, g11] = [
        await conceptNeighbourhood(twelve.library.reader, { limit: 40 }),
        await conceptNeighbourhood(eleven.library.reader, { limit: 40 }),
      ];
      expect(g12.value).toEqual(g11.value);
      await verifyBundleCopy(await craftedSource(await v12()));
    });

  it('listCoding of another shape or size, beside lists in the rows, without openCoding, with list sizes or in a version 11 directory, is refused before open is read', async () => {
    for (const value of [15, 65537, 1.5, '128', null, -128]) {
      const w = await changed((_open, d) => {
        d.listCoding = { blockBytes: value };
      });
      await expect(opened(w)).rejects.toThrow(
        `the pages part's directory has listCoding.blockBytes ${String(value)} (a whole number 16 to 65536)`,
      );
    }
    for (const value of [7, [], {}, { blockBytes: 128, rows: 1 }, { bytes: 128 }]) {
      const w = await changed((_open, d) => {
        d.listCoding = value;
      });
      await expect(opened(w)).rejects.toThrow(
        "the pages part's directory has listCoding that is not { blockBytes }",
      );
    }
    const slope = await changed((_open, d) => {
      d.openCoding = { ...(d.openCoding as object), listBytesPerBit: 1 };
    });
    await expect(opened(slope)).rejects.toThrow(
      "the pages part's directory has openCoding.listBytesPerBit beside listCoding",
    );
    const uncoded = await changed((_open, d) => {
      delete d.openCoding;
    });
    await expect(opened(uncoded)).rejects.toThrow(
      "the pages part's directory has listCoding without openCoding",
    );
    const small = piecesOf(await layouts[0][1]());
    (small.directory as unknown as Record<string, unknown>).listCoding = { blockBytes: 128 };
    await expect(opened(assemble(small))).rejects.toThrow(
      "the pages part's directory has listCoding but keeps its lists in its rows",
    );
    const eleven = piecesOf(await layouts[1][2]());
    (eleven.directory as unknown as Record<string, unknown>).listCoding = { blockBytes: 128 };
    await expect(opened(assemble(eleven))).rejects.toThrow(
      "the pages part's directory has listCoding, which version 11 does not have",
    );
    // Version 12 without the field reads its lists as version 11 does: by the sizes a version 11 `open` holds.
    const plain = piecesOf(await layouts[1][2]());
    plain.directory.version = 12;
    expect((await opened(assemble(plain))).library.reader.open.listOffsets.length).toBe(
      plain.directory.conceptCount + 1,
    );
  });

  it('list starts for a block more or fewer, that do not add up to the concepts, or more lists in a block than it holds, are refused at open naming listStarts', async () => {
    const d = (await layouts[1][1]()).directory;
    const nc = d.conceptCount;
    const blocks = Math.ceil(d.sections.lists[1] / 128);
    const fewer = await changed((open) => {
      open.listStarts = bytesOf(varintsOf(open.listStarts).slice(0, -1));
    });
    await expect(opened(fewer)).rejects.toThrow(
      `crafted.bundle: pages.bin (open) has listStarts of ${blocks - 1} bytes for the lists' ${blocks} blocks (a varint each)`,
    );
    const more = await changed((open) => {
      open.listStarts = bytesOf([...varintsOf(open.listStarts), 0]);
    });
    await expect(opened(more)).rejects.toThrow(
      `crafted.bundle: pages.bin (open) listStarts hold more than ${blocks} values`,
    );
    const none = await changed((open) => {
      delete open.listStarts;
    });
    await expect(opened(none)).rejects.toThrow(
      `crafted.bundle: pages.bin (open) has no listStarts for the lists' ${blocks} blocks`,
    );
    const sizes = await changed((open) => {
      open.listSizes = new Uint8Array(nc);
    });
    await expect(opened(sizes)).rejects.toThrow(
      'crafted.bundle: pages.bin (open) has listSizes beside listCoding',
    );
    const short = await changed((open) => {
      const counts = varintsOf(open.listStarts);
      counts[counts.length - 1]--;
      open.listStarts = bytesOf(counts);
    });
    await expect(opened(short)).rejects.toThrow(
      `crafted.bundle: pages.bin (open) start ${nc - 1} lists, expected ${nc} (listStarts)`,
    );
    for (const count of [nc, 2 ** 40]) {
      const all = await changed((open) => {
        const counts = varintsOf(open.listStarts);
        counts[0] = count;
        open.listStarts = bytesOf(counts);
      });
      await expect(opened(all)).rejects.toThrow(
        /crafted\.bundle: pages\.bin \(open\) start .* \(listStarts\)/,
      );
    }
    // Every list in the first block but one: as many as the concepts, but more than 128 bytes hold.
    const crammed = await changed((open) => {
      const counts = varintsOf(open.listStarts).map(() => 0);
      counts[0] = nc - 1;
      counts[counts.length - 1] = 1;
      open.listStarts = bytesOf(counts);
    });
    await expect(opened(crammed)).rejects.toThrow(
      `crafted.bundle: pages.bin (open) start ${nc - 1} lists in block 0, more than its 128 bytes hold (listStarts)`,
    );
  });

  it('lists whose starts or bytes lie are refused naming the concept when read, within the bytes of their blocks', async () => {
    // Honest: every list read in one round after opening.
    expect((await everyList(await layouts[1][1]())).rounds).toBe(2);
    // Two blocks' counts swapped: refused at open (more lists in a block than it holds) or when a list is parsed
    // from the wrong first byte.
    const swapped = await changed((open) => {
      const counts = varintsOf(open.listStarts);
      const at = counts.findIndex((x, b) => b > 0 && x !== counts[0] && x > 0);
      [counts[0], counts[at]] = [counts[at], counts[0]];
      open.listStarts = bytesOf(counts);
    });
    await expect(everyList(swapped)).rejects.toThrow(/crafted\.bundle: pages\.bin/);
    // Every byte of the lists 0xff: a varint that never ends within a list's blocks.
    const unending = await changed((_open, _d, p) => {
      p.sections.lists = new Uint8Array(p.sections.lists.length).fill(0xff);
    });
    await expect(everyList(unending)).rejects.toThrow(
      "crafted.bundle: pages.bin's chunk list of concept 0 does not decode",
    );
    // Every byte 0x7f: each concept's first chunk is chunk 127, then a gap of 127 more each: past the chunk count, or
    // a count's code 15 runs on into the next list, named either way.
    const far = await changed((_open, _d, p) => {
      p.sections.lists = new Uint8Array(p.sections.lists.length).fill(0x7f);
    });
    await expect(everyList(far)).rejects.toThrow(/crafted\.bundle: pages\.bin's chunk list of concept \d+ /);
    // A df as large as the chunk count, for the concept of the first df stored: open refuses the lists section too
    // short for it, or its read runs past its blocks.
    const big = await changed((open, d) => {
      const df = varintsOf(open.df);
      df[0] = d.chunkCount as number;
      open.df = bytesOf(df);
    });
    await expect(everyList(big)).rejects.toThrow(/crafted\.bundle: pages\.bin/);
  });
});

/**
 * The large layout where the paths are written (rows in blocks of whole rows of at most 128 bytes, lists in blocks of
 * 128, under a tree of two levels), for the describes of version 13's and version 17's paths: `changed` gives the
 * directory of a version `version` part to a change; `expectReadsAs` says a part answers as a version `older` part of
 * the same library does.
 */
const pathedLayout = (analyzer: ReturnType<typeof createTermAnalyzer>, version: number) => {
  const opened = (w: WrittenPagesLike) => openCrafted(w, analyzer);
  const large = (v: number) => honestPages(v, 512, 0, { lists: 128 });
  const twoLevels = (p: ReturnType<typeof piecesOf>) => {
    p.directory.hashPages = { ...p.directory.hashPages!, levels: [128] };
    return p;
  };
  const changed = async (change: (d: Record<string, unknown>) => void) => {
    const p = twoLevels(piecesOf(await large(version)));
    change(p.directory as unknown as Record<string, unknown>);
    return assemble(p);
  };
  const expectReadsAs = async (part: ReturnType<typeof piecesOf>, older: number) => {
    const [a, b] = [
      await opened(assemble(part)),
      await opened(assemble(twoLevels(piecesOf(await large(older))))),
    ];
    expect((await a.library.search(PAGES_QUESTION, 'ppr', 800)).hits).toEqual(
      (await b.library.search(PAGES_QUESTION, 'ppr', 800)).hits,
    );
  };
  /** A change to the directory refused at opening, with `message`. */
  const expectRefused = async (change: (d: Record<string, unknown>) => void, message: string | RegExp) =>
    expect(opened(await changed(change))).rejects.toThrow(message);
  return { opened, large, twoLevels, changed, expectReadsAs, expectRefused };
};

describe('the rows’ blocks each followed by its path (version 13, blockPaths)', () => {
  const analyzer = createTermAnalyzer();
  const { opened, large, twoLevels, changed, expectReadsAs, expectRefused } = pathedLayout(analyzer, 13);

  it('answers as version 12 does, draws the same Graph view, and the offline check passes', async () => {
    const [w13, w12] = [
      assemble(twoLevels(piecesOf(await large(13)))),
      assemble(twoLevels(piecesOf(await large(12)))),
    ];
    expect(w13.directory.blockPaths).toEqual({ zones: ['rows'] });
    expect(w13.data.length).toBe(w12.data.length + w13.directory.rowBlocks!.count * 48);
    const [thirteen, twelve] = [await opened(w13), await opened(w12)];
    for (const mode of ['ppr', 'bm25', 'concept'] as const) {
      const hits = (await thirteen.library.search(PAGES_QUESTION, mode, 800)).hits;
      expect(hits.length).toBeGreaterThan(0);
      expect(hits).toEqual((await twelve.library.search(PAGES_QUESTION, mode, 800)).hits);
    }
    expect((await conceptNeighbourhood(thirteen.library.reader, { limit: 40 })).value).toEqual(
      (await conceptNeighbourhood(twelve.library.reader, { limit: 40 })).value,
    );
    await verifyBundleCopy(await craftedSource(w13));
  });

  it('a field of another shape, in a version 12 directory, without rowBlocks or over other hash pages, is refused naming blockPaths before the part is cut by it', async () => {
    for (const value of [
      null,
      'rows',
      [],
      {},
      { zones: [] },
      { zones: ['lists'] },
      { zones: ['rows'], bytes: 48 },
    ])
      await expectRefused((d) => {
        d.blockPaths = value;
      }, "the pages part's directory has blockPaths");
    await expectRefused((d) => {
      d.version = 12;
    }, `the pages part's directory has blockPaths {"zones":["rows"]} (version 13 gives`);
    await expectRefused((d) => {
      delete d.rowBlocks;
    }, "the pages part's directory has blockPaths but no rowBlocks");
    // A version 12 part given the field: the paths are written (assemble follows the field), the version refused.
    const p = twoLevels(piecesOf(await large(12)));
    (p.directory as unknown as Record<string, unknown>).blockPaths = { zones: ['rows'] };
    await expect(opened(assemble(p))).rejects.toThrow('has blockPaths {"zones":["rows"]} (version 13 gives');
    // Version 13 without the field reads as version 12 does.
    const plain = twoLevels(piecesOf(await large(12)));
    plain.directory.version = 13;
    await expectReadsAs(plain, 12);
  });

  it('a changed path, a changed row, or a part cut short of its paths is refused naming the block or the part', async () => {
    const w = await changed(() => undefined);
    const source = await craftedSource(w);
    const honest = await opened(w);
    const layout = (honest.library.reader.store as unknown as { layout: BlockLayout }).layout;
    await honest.library.search(PAGES_QUESTION, 'ppr', 800);
    const { first, count } = layout.paths!;
    // Every path's last byte changed: each row block read without its leaf page is refused.
    const paths = { ...w, data: w.data.slice() };
    for (let b = first; b < first + count; b++) paths.data[layout.storedEndOf(b) - 1] ^= 1;
    await expect((await opened(paths)).library.search(PAGES_QUESTION, 'ppr', 800)).rejects.toThrow(
      /corrupted \(SHA-256 mismatch in block \d+ of part pages\.bin\)/,
    );
    await expect(verifyBundleCopy(await craftedSource(paths))).rejects.toThrow(
      `the path of block ${first} of part pages.bin does not match its block hashes`,
    );
    // A directory whose part lacks the paths' bytes.
    const cut = { ...w, data: w.data.subarray(0, w.data.length - 48) };
    await expect(opened(cut)).rejects.toThrow(/of paths of a \d+-byte part/);
    expect(source).toBeDefined();
  });
});

describe('the lists’ blocks followed by their paths too (version 17, blockPaths zones lists and rows)', () => {
  const analyzer = createTermAnalyzer();
  const { opened, large, twoLevels, changed, expectReadsAs, expectRefused } = pathedLayout(analyzer, 17);
  /** The lists' blocks: those holding the lists section's bytes. */
  const listBlocks = (w: WrittenPagesLike, layout: BlockLayout) => {
    const [at, length] = w.directory.sections.lists;
    return { first: layout.blockOf(at), last: layout.blockOf(at + length - 1) };
  };

  it('answers as version 16 does, the part longer by a path a list block, and the offline check passes', async () => {
    const [w17, w16] = [
      assemble(twoLevels(piecesOf(await large(17)))),
      assemble(twoLevels(piecesOf(await large(16)))),
    ];
    expect(w17.directory.blockPaths).toEqual({ zones: ['lists', 'rows'] });
    expect(w16.directory.blockPaths).toEqual({ zones: ['rows'] });
    const [seventeen, sixteen] = [await opened(w17), await opened(w16)];
    const layout = (seventeen.library.reader.store as unknown as { layout: BlockLayout }).layout;
    const lists = listBlocks(w17, layout);
    expect(lists.last - lists.first + 1).toBeGreaterThan(8);
    expect(layout.paths).toEqual({
      first: lists.first,
      count: lists.last - lists.first + 1 + w17.directory.rowBlocks!.count,
      bytes: 48,
    });
    expect(w17.data.length).toBe(w16.data.length + (lists.last - lists.first + 1) * 48);
    for (const mode of ['ppr', 'bm25', 'concept'] as const) {
      const hits = (await seventeen.library.search(PAGES_QUESTION, mode, 800)).hits;
      expect(hits.length).toBeGreaterThan(0);
      expect(hits).toEqual((await sixteen.library.search(PAGES_QUESTION, mode, 800)).hits);
    }
    await verifyBundleCopy(await craftedSource(w17));
  });

  it('the lists’ zone in a version 16 directory, in another order or without the rows is refused naming blockPaths', async () => {
    for (const value of [
      { zones: ['rows', 'lists'] },
      { zones: ['lists'] },
      { zones: ['lists', 'rows', 'rows'] },
    ])
      await expectRefused((d) => {
        d.blockPaths = value;
      }, "the pages part's directory has blockPaths");
    await expectRefused((d) => {
      d.version = 16;
    }, `the pages part's directory has blockPaths {"zones":["lists","rows"]} (version 13 gives`);
    // Version 17 with the rows' paths only reads as version 16 does.
    const rowsOnly = twoLevels(piecesOf(await large(16)));
    rowsOnly.directory.version = 17;
    await expectReadsAs(rowsOnly, 16);
  });

  it('a changed path of a list block is refused naming the block, and the offline check names the path', async () => {
    const w = await changed(() => undefined);
    const honest = await opened(w);
    const layout = (honest.library.reader.store as unknown as { layout: BlockLayout }).layout;
    await honest.library.search(PAGES_QUESTION, 'ppr', 800);
    const lists = listBlocks(w, layout);
    // Every list block's path's last byte changed: a list read without its leaf page is refused.
    const paths = { ...w, data: w.data.slice() };
    for (let b = lists.first; b <= lists.last; b++) paths.data[layout.storedEndOf(b) - 1] ^= 1;
    await expect((await opened(paths)).library.search(PAGES_QUESTION, 'ppr', 800)).rejects.toThrow(
      /corrupted \(SHA-256 mismatch in block \d+ of part pages\.bin\)/,
    );
    await expect(verifyBundleCopy(await craftedSource(paths))).rejects.toThrow(
      `the path of block ${lists.first} of part pages.bin does not match its block hashes`,
    );
  });
});

describe('each word’s postings coded by a code of their own (version 14, postingsCoding)', () => {
  const analyzer = createTermAnalyzer();
  const opened = (w: WrittenPagesLike) => openCrafted(w, analyzer);
  const layouts = [
    ['small', () => honestPages(14), () => honestPages(13)],
    ['large', () => honestPages(14, 512, 0, { lists: 128 }), () => honestPages(13, 512, 0, { lists: 128 })],
  ] as const;
  /** Version 14 pieces of the small layout, changed by `change`. */
  const changed = async (change: (d: Record<string, unknown>, p: ReturnType<typeof piecesOf>) => void) => {
    const p = piecesOf(await honestPages(14));
    change(p.directory as unknown as Record<string, unknown>, p);
    return assemble(p);
  };

  for (const [layout, v14, v13] of layouts)
    it(`answers as version 13 does from a smaller postings section, and the offline check passes (${layout} layout)`, async () => {
      const [fourteen, thirteen] = [await opened(await v14()), await opened(await v13())];
      expect(fourteen.library.directory.postingsCoding).toEqual({ lists: 'rice' });
      expect(thirteen.library.directory.postingsCoding).toBeUndefined();
      expect(fourteen.library.directory.sections.postings[1]).toBeLessThan(
        thirteen.library.directory.sections.postings[1],
      );
      for (const mode of ['ppr', 'bm25', 'concept'] as const) {
        const hits = (await fourteen.library.search(PAGES_QUESTION, mode, 800)).hits;
        expect(hits.length).toBeGreaterThan(0);
        expect(hits).toEqual((await thirteen.library.search(PAGES_QUESTION, mode, 800)).hits);
      }
      await verifyBundleCopy(await craftedSource(await v14()));
    });

  it('a field of another shape, or in a version 13 directory, is refused naming postingsCoding; version 14 without it reads as 13', async () => {
    for (const value of [null, 'rice', [], {}, { lists: 'varint' }, { lists: 'rice', k: 1 }])
      await expect(
        opened(
          await changed((d) => {
            d.postingsCoding = value;
          }),
        ),
      ).rejects.toThrow("the pages part's directory has postingsCoding");
    await expect(
      opened(
        await changed((d) => {
          d.version = 13;
        }),
      ),
    ).rejects.toThrow("the pages part's directory has postingsCoding, which version 13 does not have");
    const plain = piecesOf(await honestPages(13));
    plain.directory.version = 14;
    expect((await (await opened(assemble(plain))).library.search(PAGES_QUESTION, 'bm25', 800)).hits).toEqual(
      (await (await opened(await honestPages(13))).library.search(PAGES_QUESTION, 'bm25', 800)).hits,
    );
  });

  it('postings that lie are refused naming the word when read: varint pairs under the field, every byte 0xff or 0', async () => {
    // Version 13's varint pairs given the field: each list's first varint read as a count, its second as codes.
    const pairs = piecesOf(await honestPages(13));
    pairs.directory.version = 14;
    (pairs.directory as unknown as Record<string, unknown>).postingsCoding = { lists: 'rice' };
    const cases = [
      assemble(pairs),
      await changed((_d, p) => {
        p.sections.postings = new Uint8Array(p.sections.postings.length).fill(0xff);
      }),
      await changed((_d, p) => {
        p.sections.postings = new Uint8Array(p.sections.postings.length);
      }),
    ];
    for (const w of cases) {
      const { library } = await opened(w);
      await expect(library.search(PAGES_QUESTION, 'bm25', 800)).rejects.toThrow(
        /crafted\.bundle: pages\.bin's postings of ".+" /,
      );
    }
  });
});

describe('each chunk’s concept ids coded as Rice codes (version 15, rowsCoding)', () => {
  const analyzer = createTermAnalyzer();
  const opened = (w: WrittenPagesLike) => openCrafted(w, analyzer);
  /** The large layout (rows without the lists, in blocks of whole rows with their paths) of `version`. */
  const large = (version: number) => honestPages(version, 512, 0, { lists: 128 });
  /** Version 15 pieces of the large layout, changed by `change`. */
  const changed = async (change: (d: Record<string, unknown>, p: ReturnType<typeof piecesOf>) => void) => {
    const p = piecesOf(await large(15));
    change(p.directory as unknown as Record<string, unknown>, p);
    return assemble(p);
  };

  it('answers as version 14 does from a smaller rows section, and the offline check passes', async () => {
    const [fifteen, fourteen] = [await opened(await large(15)), await opened(await large(14))];
    expect(fifteen.library.directory.rowsCoding).toEqual({ ids: 'rice' });
    expect(fourteen.library.directory.rowsCoding).toBeUndefined();
    expect(fifteen.library.directory.sections.rows[1]).toBeLessThan(
      fourteen.library.directory.sections.rows[1],
    );
    for (const mode of ['ppr', 'bm25', 'concept'] as const) {
      const hits = (await fifteen.library.search(PAGES_QUESTION, mode, 800)).hits;
      expect(hits.length).toBeGreaterThan(0);
      expect(hits).toEqual((await fourteen.library.search(PAGES_QUESTION, mode, 800)).hits);
    }
    await verifyBundleCopy(await craftedSource(await large(15)));
    // A library that keeps its lists in its rows has no rows of its own to code.
    expect((await honestPages(15)).directory.rowsCoding).toBeUndefined();
  });

  it('a field of another shape, in a version 14 directory or beside lists in the rows, is refused naming rowsCoding; version 15 without it reads as 14', async () => {
    for (const value of [null, 'rice', [], {}, { ids: 'varint' }, { ids: 'rice', k: 1 }])
      await expect(
        opened(
          await changed((d) => {
            d.rowsCoding = value;
          }),
        ),
      ).rejects.toThrow("the pages part's directory has rowsCoding");
    await expect(
      opened(
        await changed((d) => {
          d.version = 14;
        }),
      ),
    ).rejects.toThrow("the pages part's directory has rowsCoding, which version 14 does not have");
    const inRows = piecesOf(await honestPages(15));
    (inRows.directory as unknown as Record<string, unknown>).rowsCoding = { ids: 'rice' };
    await expect(opened(assemble(inRows))).rejects.toThrow(
      "the pages part's directory has rowsCoding but keeps its lists in its rows",
    );
    const plain = piecesOf(await large(14));
    plain.directory.version = 15;
    expect((await (await opened(assemble(plain))).library.search(PAGES_QUESTION, 'ppr', 800)).hits).toEqual(
      (await (await opened(await large(14))).library.search(PAGES_QUESTION, 'ppr', 800)).hits,
    );
  });

  it('rows that lie are refused naming the chunk when read: varints under the field, every byte 0xff or 0', async () => {
    // Version 14's varint rows given the field: their bytes read as Rice codes.
    const varints = piecesOf(await large(14));
    varints.directory.version = 15;
    (varints.directory as unknown as Record<string, unknown>).rowsCoding = { ids: 'rice' };
    const cases = [
      assemble(varints),
      await changed((_d, p) => {
        p.sections.rows = new Uint8Array(p.sections.rows.length).fill(0xff);
      }),
      await changed((_d, p) => {
        p.sections.rows = new Uint8Array(p.sections.rows.length);
      }),
    ];
    for (const w of cases) {
      const { library } = await opened(w);
      await expect(library.search(PAGES_QUESTION, 'ppr', 800)).rejects.toThrow(
        /crafted\.bundle: pages\.bin group r\d+ does not decode \((chunk \d+'s row (runs past its bytes|names concept \d+ of \d+|ends with bits that are not 0|holds \d+ concept ids in \d+ bytes)|it holds \d+ bytes past its chunks' \d+ concept ids)\)/,
      );
    }
  });
});

describe('rows that carry their own concept count (version 16, rowsDelimited)', () => {
  const analyzer = createTermAnalyzer();
  const opened = (w: WrittenPagesLike) => openCrafted(w, analyzer);
  /** The large layout (rows without the lists, in blocks of whole rows with their paths) of `version`. */
  const large = (version: number) => honestPages(version, 512, 0, { lists: 128 });
  /** Version 16 pieces of the large layout, `open` (as stored) and the directory changed by `change`. */
  const changed = (change: (open: Record<string, unknown>, d: Record<string, unknown>) => void) =>
    changedPieces(() => large(16), change);
  /** Version 16 pieces of the large layout, their sections changed by `change`. */
  const changedRows = async (change: (p: ReturnType<typeof piecesOf>) => void) => {
    const p = piecesOf(await large(16));
    change(p);
    return assemble(p);
  };

  it('answers as version 15 does with no concept counts or row groups in open, and the offline check passes', async () => {
    const [sixteen, fifteen] = [await opened(await large(16)), await opened(await large(15))];
    expect(sixteen.library.directory.rowsDelimited).toEqual({ countOrder: 5 });
    expect(fifteen.library.directory.rowsDelimited).toBeUndefined();
    expect(sixteen.library.reader.open.conceptCounts).toBeUndefined();
    expect(sixteen.library.reader.open.rowBlockFirsts!.length).toBe(
      sixteen.library.directory.rowBlocks!.count + 1,
    );
    for (const mode of ['ppr', 'bm25', 'concept'] as const) {
      const hits = (await sixteen.library.search(PAGES_QUESTION, mode, 800)).hits;
      expect(hits.length).toBeGreaterThan(0);
      expect(hits).toEqual((await fifteen.library.search(PAGES_QUESTION, mode, 800)).hits);
    }
    // The KG build's order (degreeRanks.ts) reads every row block: the same order and tokens.
    expect(await buildOrder(sixteen.library.reader)).toEqual(await buildOrder(fifteen.library.reader));
    await verifyBundleCopy(await craftedSource(await large(16)));
    // A library that keeps its lists in its rows has no blocks of rows to index.
    expect((await honestPages(16)).directory.rowsDelimited).toBeUndefined();
  });

  it('a field of another shape, in a version 15 directory, or without rowsCoding or zero count slopes, is refused naming rowsDelimited; version 16 without it reads as 15', async () => {
    for (const value of [null, 5, [], {}, { countOrder: 4 }, { countOrder: 5, k: 1 }])
      await expect(
        opened(
          await changed((_open, d) => {
            d.rowsDelimited = value;
          }),
        ),
      ).rejects.toThrow("the pages part's directory has rowsDelimited");
    await expect(
      opened(
        await changed((_open, d) => {
          d.version = 15;
        }),
      ),
    ).rejects.toThrow("the pages part's directory has rowsDelimited, which version 15 does not have");
    await expect(
      opened(
        await changed((_open, d) => {
          delete d.rowsCoding;
        }),
      ),
    ).rejects.toThrow("the pages part's directory has rowsDelimited without rowsCoding and rowBlocks");
    await expect(
      opened(
        await changed((_open, d) => {
          d.openCoding = { ...(d.openCoding as object), countsPerLength: 1 };
        }),
      ),
    ).rejects.toThrow(
      'has rowsDelimited without an openCoding whose countsPerLength and rowBytesPerCount are 0',
    );
    const plain = piecesOf(await large(15));
    plain.directory.version = 16;
    expect((await (await opened(assemble(plain))).library.search(PAGES_QUESTION, 'ppr', 800)).hits).toEqual(
      (await (await opened(await large(15))).library.search(PAGES_QUESTION, 'ppr', 800)).hits,
    );
  });

  it('a row block index that lies is refused at open naming its field and block, and offline', async () => {
    const d = (await large(16)).directory;
    const count = d.rowBlocks!.count;
    const cases: Array<[(open: Record<string, unknown>) => void, string | RegExp]> = [
      [
        (open) => void (open.rowBlockFirst = bytesOf([...varintsOf(open.rowBlockFirst), 1])),
        `more than ${count} values`,
      ],
      [(open) => void delete open.rowBlockSpare, 'has no rowBlockSpare (rowsDelimited)'],
      [
        (open) => void (open.rowBlockFirst = bytesOf([1, ...varintsOf(open.rowBlockFirst).slice(1)])),
        'puts row block 0 at chunk 1',
      ],
      [
        (open) =>
          void (open.rowBlockFirst = bytesOf(varintsOf(open.rowBlockFirst).map((x, b) => (b === 1 ? 0 : x)))),
        /puts row block 1 at chunk 0 /,
      ],
      [
        (open) =>
          void (open.rowBlockFirst = bytesOf(
            varintsOf(open.rowBlockFirst).map((x, b) => (b === 1 ? 2 ** 40 : x)),
          )),
        /puts row block 1 at chunk \d+ \(rowBlockFirst: ascending from 0, below \d+\)/,
      ],
      [
        (open) => void (open.rowBlockSpare = bytesOf(varintsOf(open.rowBlockSpare).map(() => 128))),
        'gives row block 0 0 bytes',
      ],
      // Every block at its most (128 bytes): the offsets pass the rows section.
      [
        (open) => void (open.rowBlockSpare = bytesOf(varintsOf(open.rowBlockSpare).map(() => 0))),
        'rowGroups do not cover their section',
      ],
      [
        (open) => void (open.rowBlockSpare = bytesOf(varintsOf(open.rowBlockSpare).map(() => 2 ** 45))),
        'rowGroups do not cover their section',
      ],
      [(open) => void (open.conceptCounts = bytesOf([1, 2, 3])), 'has conceptCounts beside rowsDelimited'],
      [(open) => void (open.rowGroups = bytesOf([1, 2, 3])), 'has rowGroups beside rowsDelimited'],
    ];
    // The part hashed in its honest blocks: only `open` lies.
    const honestRows = rowOffsets(piecesOf(await large(16)))!;
    for (const [change, message] of cases) {
      const p = piecesOf(await large(16));
      change(p.open as unknown as Record<string, unknown>);
      const w = assemble(p, { rowGroupsHashed: honestRows, keepRowBlocks: true });
      await expect(opened(w)).rejects.toThrow(message);
      await expect(verifyBundleCopy(await craftedSource(w))).rejects.toMatchObject({ part: 'pages.bin' });
    }
  });

  it('rows that lie are refused naming the block and chunk when read: every byte 0xff or 0, a count past the bytes', async () => {
    const cases = [
      await changedRows((p) => {
        p.sections.rows = new Uint8Array(p.sections.rows.length).fill(0xff);
      }),
      await changedRows((p) => {
        p.sections.rows = new Uint8Array(p.sections.rows.length);
      }),
      // The first row's count as 8 ones and a zero (a quotient of 8: a count of 2^13 − 32 or more).
      await changedRows((p) => {
        p.sections.rows = p.sections.rows.slice();
        p.sections.rows[0] = 0xff;
        p.sections.rows[1] = 0;
      }),
    ];
    for (const w of cases) {
      const { library } = await opened(w);
      await expect(library.search(PAGES_QUESTION, 'ppr', 800)).rejects.toThrow(
        /crafted\.bundle: pages\.bin group r\d+ does not decode \(row block \d+: (chunk \d+'s row (runs past its bytes|names concept \d+ of \d+|ends with bits that are not 0|holds \d+ concept ids in \d+ bytes|gives \d+ concepts of \d+|holds a count that runs past its bytes)|\d+ bytes past their \d+ rows)\)/,
      );
    }
  });
});
