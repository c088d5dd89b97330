// Version 13's `blockPaths` (blockPaths.ts, FORMAT.md "Version 13"): each block of the rows' zone stored followed by
// the path from its hash to its leaf page's hash, every leaf page's hash the Merkle root of its block hashes. The
// roots here are worked out with node:crypto from the rule as FORMAT.md states it (SHA-256 of 0x01 ‖ left ‖ right, cut
// to 16 bytes; a short page's missing hashes zeros), not with the code under test.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleBytes, writeBundle } from '../../../src/core/bundle/index.ts';
import { BlockLayout } from '../../../src/core/paged/blockLayout.ts';
import {
  leafRoots,
  leafRootsOf,
  pathOf,
  PATH_BYTES,
  rootsFromPaths,
} from '../../../src/core/paged/blockPaths.ts';
import { checkDirectory, type PagesDirectory } from '../../../src/core/paged/format.ts';
import { PagedLibrary } from '../../../src/core/paged/library.ts';
import { openPagedBundle, readManifestByRanges } from '../../../src/core/paged/openBundle.ts';
import { upgradeBundleParts } from '../../../src/core/paged/upgrade.ts';
import { MemoryRangeSource, type RangeSource } from '../../../src/core/paged/rangeSource.ts';
import { verifyBundleCopy } from '../../../src/core/paged/verifyCopy.ts';
import { pagesParts, writePagedIndex, type WrittenPages } from '../../../src/core/paged/write.ts';
import { RetrievalEngine } from '../../../src/core/retrieval/engine.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';
import { preparedCorpus } from '../../support/builtOnce.ts';
import { REPO_DOCS } from '../../support/repoDocs.ts';

const node = (a: Uint8Array, b: Uint8Array): Uint8Array =>
  new Uint8Array(createHash('sha256').update(Uint8Array.of(1)).update(a).update(b).digest()).subarray(0, 16);

/** The root of up to 8 hashes of 16 bytes, by the rule (zeros for the missing ones). */
function rootByRule(page: Uint8Array): Uint8Array {
  let level: Uint8Array[] = Array.from({ length: 8 }, (_, i) => {
    const h = new Uint8Array(16);
    if (i * 16 < page.length) h.set(page.subarray(i * 16, i * 16 + 16));
    return h;
  });
  while (level.length > 1) level = level.flatMap((_, i) => (i % 2 ? [] : [node(level[i], level[i + 1])]));
  return level[0];
}

const hashes = (n: number) => Uint8Array.from({ length: n * 16 }, (_, i) => (i * 37 + 11) & 255);

describe('block paths (version 13)', () => {
  it('make every leaf page’s root by the rule, from a whole page and from each of its blocks’ paths', async () => {
    // 8 + 3 hashes: a whole page and a short last one.
    const leaves = hashes(11);
    const expected = [rootByRule(leaves.subarray(0, 128)), rootByRule(leaves.subarray(128))];
    expect(leafRootsOf(leaves, 128)).toEqual(new Uint8Array([...expected[0], ...expected[1]]));
    expect(leafRoots([leaves.subarray(0, 128), leaves.subarray(128)])).toEqual(expected);
    const blocks = Array.from({ length: 11 }, (_, b) => b);
    const roots = rootsFromPaths(
      blocks.map((b) => leaves.subarray(b * 16, b * 16 + 16)),
      blocks.map((b) => pathOf(leaves, b)),
      blocks.map((b) => b % 8),
    );
    blocks.forEach((b) => expect(roots[b], `block ${b}`).toEqual(expected[b < 8 ? 0 : 1]));
    // Block 5's path, by hand: its sibling 4, then the node of 6 and 7, then the node of 0..3.
    const h = (i: number) => leaves.subarray(i * 16, i * 16 + 16);
    expect(pathOf(leaves, 5)).toEqual(
      new Uint8Array([...h(4), ...node(h(6), h(7)), ...node(node(h(0), h(1)), node(h(2), h(3)))]),
    );
    // Another hash of the block, or a sibling changed, makes another root.
    const wrong = rootsFromPaths([h(4)], [pathOf(leaves, 5)], [5]);
    expect(wrong[0]).not.toEqual(expected[0]);
  });

  it('lay a zone’s blocks out with their paths after them, and every block after the zone after all of them', () => {
    // 256 bytes in 128-byte blocks (0, 1), rows cut at 0 and 120 of 130 (2, 3), 100 bytes in 64-byte blocks (4, 5).
    const layout = new BlockLayout(
      [
        [256, 128],
        [130, { count: 2, starts: [0, 120] }],
        [100, 64],
      ],
      512,
    ).withPaths(['rows'], PATH_BYTES);
    expect(layout.paths).toEqual({ first: 2, count: 2, bytes: 48 });
    expect(layout.pathsLength).toBe(96);
    expect([0, 1, 2, 3, 4, 5].map((b) => [layout.storedStartOf(b), layout.storedEndOf(b)])).toEqual([
      [0, 128],
      [128, 256],
      [256, 256 + 120 + 48],
      [424, 424 + 10 + 48],
      [482, 546],
      [546, 582],
    ]);
    // The sections' offsets are without the paths.
    expect([layout.startOf(4), layout.blockOf(400)]).toEqual([386, 4]);
  });
});

describe('a library whose rows carry their paths (version 13, the large layout)', () => {
  let v12: WrittenPages;
  let v13: WrittenPages;
  /** Version 14 (postingsCoding.ts), upgraded with its words' sections copied. */
  let v14: WrittenPages;
  /** The writers' version 15 (rowsCoding.ts), which `cli upgrade` makes of versions 12, 13 and 14. */
  let v15: WrittenPages;
  const analyzer = createTermAnalyzer();
  const base = { appVersion: 'test', embedder: null, createdAt: '2026-12-06T00:00:00.000Z' };
  beforeAll(async () => {
    const corpus = await preparedCorpus(REPO_DOCS, 1200);
    const engine = RetrievalEngine.build(
      { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
      analyzer,
    );
    const parts = engine.lexicalParts();
    const doc = (docId: string) => ({ title: docId });
    // Lists not in the rows: rows in blocks of whole rows, where the paths are written.
    v12 = await writePagedIndex(parts, doc, undefined, 12, undefined, 0);
    v13 = await writePagedIndex(parts, doc, undefined, 13, undefined, 0);
    v14 = await writePagedIndex(parts, doc, undefined, 14, undefined, 0);
    v15 = await writePagedIndex(parts, doc, undefined, undefined, undefined, 0);
  }, 240_000);

  /** A source that records every range read past `from`. */
  class Recording extends MemoryRangeSource {
    reads: Array<[number, number]> = [];
    override async read(offset: number, length: number): Promise<Uint8Array> {
      this.reads.push([offset, length]);
      return super.read(offset, length);
    }
  }
  /** Opened from memory, or (`gapBytes`) as a host answering one range a request that reads across gaps says it. */
  const openedOf = async (bytes: Uint8Array, gapBytes = 0) => {
    const source = new Recording(bytes, 'paths.bundle');
    const host: RangeSource = {
      name: source.name,
      size: source.size,
      gapBytes,
      inFlight: 64,
      rangesARequest: 1,
      get bytesRead() {
        return source.bytesRead;
      },
      read: (offset, length) => source.read(offset, length),
    };
    const opened = (await openPagedBundle(gapBytes > 0 ? host : source, analyzer))!;
    const hashesAt = opened.manifest.parts.find((p) => p.name === 'pages.sha256')!.offset!;
    return { source, library: opened.library, hashesAt };
  };
  const Q = 'What did the heap measurements show?';

  it('writes each row block followed by its path, the part longer by 48 bytes a row block', () => {
    const d = v13.directory;
    expect([d.version, d.blockPaths]).toEqual([13, { zones: ['rows'] }]);
    expect(v12.directory.blockPaths).toBeUndefined();
    const count = d.rowBlocks!.count;
    expect(count).toBeGreaterThan(8);
    expect(v13.data.length).toBe(v12.data.length + count * PATH_BYTES);
    expect(d.sections).toEqual(v12.directory.sections);
    // Before the rows, the same bytes; the rows' first block, then its path from the block hashes.
    const [rowsAt] = d.sections.rows;
    expect(v13.data.subarray(0, rowsAt)).toEqual(v12.data.subarray(0, rowsAt));
    // The degrees (after every path) are version 12's bytes.
    const [degAt, degLength] = d.sections.degrees;
    const stored = degAt + count * PATH_BYTES;
    expect(v13.data.subarray(stored, stored + degLength)).toEqual(
      v12.data.subarray(degAt, degAt + degLength),
    );
  });

  it('has each row block’s path after it, what the block hashes give, and leaf pages hashed as their roots', async () => {
    const opened = await openedOf(await bundleBytes(writeBundle(pagesParts(v13), base)));
    const layout = (opened.library.reader.store as unknown as { layout: BlockLayout }).layout;
    const { first, count } = layout.paths!;
    const leaves = v13.hashes.subarray(0, layout.count * 16);
    const [rowsAt] = v13.directory.sections.rows;
    expect(layout.startOf(first)).toBe(rowsAt);
    for (const b of [first, first + 1, first + count - 1]) {
      const end = layout.storedEndOf(b);
      expect(v13.data.subarray(end - PATH_BYTES, end), `block ${b}`).toEqual(pathOf(leaves, b));
      // The block's own bytes are version 12's.
      expect(v13.data.subarray(layout.storedStartOf(b), end - PATH_BYTES)).toEqual(
        v12.data.subarray(layout.startOf(b), layout.endOf(b)),
      );
    }
    // The level above the leaves (or the top list) holds each leaf page's root.
    const levels = v13.directory.hashPages!.levels!;
    const roots = levels.length
      ? v13.hashes.subarray(leaves.length, leaves.length + Math.ceil(leaves.length / 128) * 16)
      : Uint8Array.from(atob(v13.directory.hashPages!.top), (c) => c.charCodeAt(0));
    expect(roots.subarray(0, 16)).toEqual(rootByRule(leaves.subarray(0, 128)));
    const p = Math.floor(first / 8);
    expect(roots.subarray(p * 16, p * 16 + 16)).toEqual(rootByRule(leaves.subarray(p * 128, p * 128 + 128)));
  });

  it('answers as version 12, reading fewer bytes of block hashes, and the offline check passes', async () => {
    const [a, b] = [
      await openedOf(await bundleBytes(writeBundle(pagesParts(v12), base))),
      await openedOf(await bundleBytes(writeBundle(pagesParts(v13), base))),
    ];
    a.source.reads = [];
    b.source.reads = [];
    const [ra, rb] = [await a.library.search(Q, 'ppr', 12_000), await b.library.search(Q, 'ppr', 12_000)];
    expect(rb.hits.length).toBeGreaterThan(0);
    expect(rb.hits).toEqual(ra.hits);
    const hashBytes = (o: Awaited<ReturnType<typeof openedOf>>) =>
      o.source.reads.filter(([at]) => at >= o.hashesAt).reduce((n, [, l]) => n + l, 0);
    expect(hashBytes(b)).toBeLessThan(hashBytes(a));
    await verifyBundleCopy(new MemoryRangeSource(await bundleBytes(writeBundle(pagesParts(v13), base))));
  });

  it('answers from its pages held whole in memory (the library’s own, its hashes whole) as version 12 does', async () => {
    const openHeld = (w: WrittenPages) =>
      PagedLibrary.open(
        new MemoryRangeSource(w.data, 'held pages'),
        { base: 0, length: w.data.length, directory: w.directory, hashes: w.hashes, held: w.data },
        analyzer,
      );
    const [a, b] = [await openHeld(v12), await openHeld(v13)];
    for (const mode of ['ppr', 'bm25'] as const) {
      const hits = (await b.search(Q, mode, 12_000)).hits;
      expect(hits.length).toBeGreaterThan(0);
      expect(hits).toEqual((await a.search(Q, mode, 12_000)).hits);
    }
  });

  it('refuses a row block whose path or bytes were changed, naming the block, and so does the offline check', async () => {
    const bytes = await bundleBytes(writeBundle(pagesParts(v13), base));
    const clean = await openedOf(bytes);
    const pagesAt = clean.library.reader.store as unknown as { base: number };
    const d = v13.directory;
    // Every row block's path changed in its first byte.
    const layout = (clean.library.reader.store as unknown as { layout: BlockLayout }).layout;
    const { first, count } = layout.paths!;
    const damaged = bytes.slice();
    for (let b = first; b < first + count; b++)
      damaged[pagesAt.base + layout.storedEndOf(b) - PATH_BYTES] ^= 1;
    const opened = await openedOf(damaged);
    await expect(opened.library.search(Q, 'ppr', 12_000)).rejects.toThrow(
      /paths\.bundle: corrupted \(SHA-256 mismatch in block \d+ of part pages\.bin\)/,
    );
    await expect(verifyBundleCopy(new MemoryRangeSource(damaged))).rejects.toThrow(
      `the path of block ${first} of part pages.bin does not match its block hashes`,
    );
    // A byte of every row block changed (its path as written).
    const rows = bytes.slice();
    for (let b = first; b < first + count; b++) rows[pagesAt.base + layout.storedStartOf(b)] ^= 1;
    await expect((await openedOf(rows)).library.search(Q, 'ppr', 12_000)).rejects.toThrow(
      /corrupted \(SHA-256 mismatch in block \d+ of part pages\.bin\)/,
    );
    expect(d.rowBlocks!.count).toBe(count);
  });

  /** The store of a freshly opened v13 bundle, and a leaf page of the rows' zone that opening did not touch. */
  const rowPage = async (bytes: Uint8Array, gapBytes = 0) => {
    const opened = await openedOf(bytes, gapBytes);
    const store = opened.library.reader.store as unknown as {
      layout: BlockLayout;
      base: number;
      bytes(offset: number, length: number): Uint8Array | undefined;
      load(): Promise<void>;
    };
    const { first, count } = store.layout.paths!;
    // A whole leaf page (8 blocks) in the middle of the zone, none of its blocks read at opening.
    const page = Math.floor((first + count / 2) / 8);
    const blocks = Array.from({ length: 8 }, (_, i) => page * 8 + i);
    expect(blocks.every((b) => b >= first && b < first + count)).toBe(true);
    const held = (opened.library.reader.store as unknown as { blocks: Map<number, Uint8Array> }).blocks;
    expect(blocks.filter((b) => held.has(b))).toEqual([]);
    /** Reads block b alone; the bytes of blocks read (hash pages, after the pages part, not counted). */
    const read = async (b: number) => {
      opened.source.reads = [];
      store.bytes(store.layout.startOf(b), 1);
      await store.load();
      return opened.source.reads.filter(([at]) => at < opened.hashesAt).reduce((n, [, l]) => n + l, 0);
    };
    /** Reads blocks [b, c] in one run. */
    const readRun = async (b: number, c: number) => {
      opened.source.reads = [];
      store.bytes(store.layout.startOf(b), store.layout.endOf(c) - store.layout.startOf(b));
      await store.load();
      return opened.source.reads.filter(([at]) => at < opened.hashesAt).reduce((n, [, l]) => n + l, 0);
    };
    const size = (b: number) => store.layout.endOf(b) - store.layout.startOf(b);
    return { store, blocks, read, readRun, size };
  };

  it('reads a row whose leaf page a checked path touched with its path only up to a node that path proved', async () => {
    const { blocks, read, size } = await rowPage(await bundleBytes(writeBundle(pagesParts(v13), base)));
    const [b0, b1, b2, b3, b4, , b6, b7] = blocks;
    // The first row of the page: its whole path (3 siblings of 16 bytes).
    expect(await read(b0)).toBe(size(b0) + 48);
    // Its pair's other block: its hash was b0's first sibling: no path.
    expect(await read(b1)).toBe(size(b1));
    // The other pair of the half: their parent was b0's second sibling: one sibling (b3's hash).
    expect(await read(b2)).toBe(size(b2) + 16);
    // b3's hash was b2's sibling.
    expect(await read(b3)).toBe(size(b3));
    // The other half: its root was b0's third sibling: two siblings.
    expect(await read(b6)).toBe(size(b6) + 32);
    expect(await read(b7)).toBe(size(b7));
    expect(await read(b4)).toBe(size(b4) + 16);
  });

  it('makes a leaf page from a run’s blocks and the hashes paths proved, reading no path after the run', async () => {
    const { blocks, read, readRun, size } = await rowPage(
      await bundleBytes(writeBundle(pagesParts(v13), base)),
    );
    const [b0, , b2, , b4, b5, b6, b7] = blocks;
    expect(await read(b0)).toBe(size(b0) + 48);
    expect(await read(b2)).toBe(size(b2) + 16);
    expect(await read(b4)).toBe(size(b4) + 16 * 2);
    // Blocks 0–5's hashes are proven: b6 and b7 complete the page, which checks them both (b6's path read between).
    expect(await readRun(b6, b7)).toBe(size(b6) + 48 + size(b7));
    // The page is here: b5 with no path.
    expect(await read(b5)).toBe(size(b5));
  });

  it('reads a row block with its path alone across a host’s gap, not its leaf page’s other blocks', async () => {
    // A host answering one range a request (HTTP/2, gap 4 KiB) reads a wanted block's neighbours within the gap as one
    // range; a run was also widened to its whole leaf page (8 row blocks and their paths) so that the page was made
    // from the blocks, which a block that carries its path does not need (round twenty-eight: 1.3 MB of rows a cold
    // question at 100 MiB).
    const { blocks, read, size } = await rowPage(await bundleBytes(writeBundle(pagesParts(v13), base)), 4096);
    const b3 = blocks[3];
    // Its whole path (nothing of its page proven yet), and no other block of the page.
    expect(await read(b3)).toBe(size(b3) + 48);
  });

  it('refuses a row read with part of its path that does not fold into the node proved, naming the block', async () => {
    const bytes = await bundleBytes(writeBundle(pagesParts(v13), base));
    const clean = await rowPage(bytes);
    const { layout, base: pagesAt } = clean.store;
    const [b0, b1, b2] = clean.blocks;
    // b1's own bytes changed (its path as written): read with no path, its digest is not the hash b0's path proved.
    const rowChanged = bytes.slice();
    rowChanged[pagesAt + layout.storedStartOf(b1)] ^= 1;
    const a = await rowPage(rowChanged);
    expect(await a.read(b0)).toBe(a.size(b0) + 48);
    await expect(a.read(b1)).rejects.toThrow(`corrupted (SHA-256 mismatch in block ${b1} of part pages.bin)`);
    // b2's first sibling (b3's hash) changed: b2 read with it alone folds into another node than b0's path proved.
    const pathChanged = bytes.slice();
    pathChanged[pagesAt + layout.storedEndOf(b2) - 48] ^= 1;
    const c = await rowPage(pathChanged);
    expect(await c.read(b0)).toBe(c.size(b0) + 48);
    await expect(c.read(b2)).rejects.toThrow(`corrupted (SHA-256 mismatch in block ${b2} of part pages.bin)`);
  });

  it('is what `cli upgrade` makes of the version 12, 13 and 14 parts (their sections but the words and rows copied), at the writers’ defaults only', async () => {
    const written = Buffer.from(await bundleBytes(writeBundle(pagesParts(v15), base)));
    expect(v15.directory.rowsCoding).toEqual({ ids: 'rice' });
    expect(v14.directory.rowsCoding).toBeUndefined();
    for (const [version, pages] of [
      [12, v12],
      [13, v13],
      [14, v14],
    ] as const) {
      const source = new MemoryRangeSource(
        await bundleBytes(writeBundle(pagesParts(pages), base)),
        `v${version}.bundle`,
      );
      const manifest = (await readManifestByRanges(source))!;
      const upgraded = await upgradeBundleParts(source, manifest, 0);
      expect([upgraded.from, upgraded.to]).toEqual([version, 17]);
      expect(
        Buffer.from(await bundleBytes(writeBundle(upgraded.parts, upgraded.base))).equals(written),
        `version ${version}`,
      ).toBe(true);
      // Other evidence blocks than the writers' would need version 12's lists and tokens decoded: refused by name.
      await expect(upgradeBundleParts(source, manifest, 0, undefined, undefined, 16)).rejects.toThrow(
        `v${version}.bundle: its pages are version ${version}, whose sections but the words' and the rows' version 17 keeps: ` +
          "upgraded at the writers' defaults only",
      );
    }
  });

  it('refuses a directory whose field lies, naming it, before the part is cut by it', () => {
    const d = v13.directory;
    const length = v13.data.length;
    const with_ = (change: Record<string, unknown>) => ({ ...d, ...change }) as unknown as PagesDirectory;
    expect(checkDirectory(d, length).blockPaths).toEqual({ zones: ['rows'] });
    const cases: Array<[Record<string, unknown>, string | RegExp]> = [
      [{ version: 12 }, 'has blockPaths {"zones":["rows"]} (version 13 gives'],
      [{ blockPaths: { zones: ['lists'] } }, 'has blockPaths {"zones":["lists"]}'],
      [{ blockPaths: { zones: ['rows', 'rows'] } }, 'has blockPaths'],
      [{ blockPaths: { zones: ['rows'], bytes: 48 } }, 'has blockPaths'],
      [{ blockPaths: [] }, 'has blockPaths []'],
      [{ blockPaths: null }, 'has blockPaths null'],
      [{ blockPaths: 'rows' }, 'has blockPaths "rows"'],
      [{ rowBlocks: undefined }, 'has blockPaths but no rowBlocks'],
      [
        { hashPages: { ...d.hashPages!, size: 256 } },
        /has blockPaths with hashes of 16 bytes in pages of 256/,
      ],
      [{ hashPages: undefined }, /has blockPaths with hashes of 16 bytes in pages of undefined/],
    ];
    for (const [change, why] of cases)
      expect(() => checkDirectory(with_(change), length), JSON.stringify(change)).toThrow(why);
    // The part without its paths, or the field left out of a part that has them.
    expect(() => checkDirectory(d, length - PATH_BYTES)).toThrow(/of paths of a \d+-byte part/);
    expect(() => checkDirectory(with_({ blockPaths: undefined }), length)).toThrow(/covers \d+ bytes of a/);
  });
});
