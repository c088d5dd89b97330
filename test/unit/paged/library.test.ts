// A library read by ranges answers as the engine in memory it was written from: the same chunks, scores and
// evidence, in the default mode and bm25, on this repository's own documentation (Markdown with headings: BM25F and
// section windows) and, when ../shared is present, on MuSiQue's passages (the walk decides). Its blocks are checked:
// a damaged byte is named, never used.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { bundleBytes, writeBundle, readBundle } from '../../../src/core/bundle/index.ts';
import { BlockStore } from '../../../src/core/paged/blockStore.ts';
import { blockLayoutOf, hashBytesOf } from '../../../src/core/paged/format.ts';
import { PagedLibrary, type PagedAnswer } from '../../../src/core/paged/library.ts';
import { openPagedBundle } from '../../../src/core/paged/openBundle.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import { pagesParts, writePagedIndex } from '../../../src/core/paged/write.ts';
import { RetrievalEngine } from '../../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';
import { BENCH_DIR, missingSharedData } from '../../support/sharedData.ts';
import { REPO_DOCS, REPO_RESULTS } from '../../support/repoDocs.ts';
import { preparedCorpus } from '../../support/builtOnce.ts';
import { openWrittenPages } from '../../support/pagedLibraries.ts';

/** Each corpus's engine, built once for the whole file (the tests only read it). */
const engines = new Map<string, ReturnType<typeof buildEngine>>();
function engineOf(path: string, limit?: number) {
  const key = `${path} ${limit ?? ''}`;
  if (!engines.has(key)) engines.set(key, buildEngine(path, limit));
  return engines.get(key)!;
}

async function buildEngine(path: string, limit?: number) {
  const corpus = await preparedCorpus(path, 1200);
  const keep = limit ? new Set(corpus.retrievalChunks.slice(0, limit).map((c) => c.id)) : undefined;
  const chunks = keep ? corpus.retrievalChunks.filter((c) => keep.has(c.id)) : corpus.retrievalChunks;
  const sentences = keep ? corpus.sentences.filter((s) => keep.has(s.chunkId)) : corpus.sentences;
  const analyzer = createTermAnalyzer();
  return { engine: RetrievalEngine.build({ chunks, sentences }, analyzer), analyzer };
}

async function pagedOf(
  engine: RetrievalEngine,
  analyzer: ReturnType<typeof createTermAnalyzer>,
  blockSize = 4096,
) {
  const written = await writePagedIndex(
    engine.lexicalParts(),
    (docId) => ({ title: `title of ${docId}` }),
    blockSize,
  );
  const { source, library } = await openWrittenPages(written, 'pages', analyzer);
  return { written, source, library };
}

const DOC_QUESTIONS = [
  'How do I open a bundle from a URL?',
  'What does the keep-mask store for the concept graph?',
  'Which parts of a bundle are gzip compressed and why?',
  'How is the question blend between words and walk decided?',
  'What limits protect the reader from a hostile bundle?',
];

describe('a library read by ranges', () => {
  // It ranks and shows what the engine in memory does (this repo's docs: Markdown with headings; the default mode at
  // 1,000 and 6,000 tokens, bm25): the LibrarySource contract (test/unit/services/source/librarySource.contract.test.ts,
  // its `docs` library), evidence by evidence.

  it('reads a small share of the part for a question, and nothing again for the same question', async () => {
    const { engine, analyzer } = await engineOf(REPO_DOCS);
    const { library, source, written } = await pagedOf(engine, analyzer);
    // Markdown with headings: the pages hold the heading copies BM25F reads.
    expect(written.directory.headingCopies).toBeGreaterThan(0);
    const first = await library.search(DOC_QUESTIONS[0], 'ppr', 1000);
    expect(first.bytes).toBeGreaterThan(0);
    expect(first.bytes).toBeLessThan(written.data.length);
    const again = await library.search(DOC_QUESTIONS[0], 'ppr', 1000);
    expect(again.bytes).toBe(0);
    expect(again.rounds).toBe(1);
    // What the open and the two questions read, and nothing else.
    expect(source.bytesRead).toBeLessThan(written.data.length);
  }, 240_000);

  it('shows the words’ evidence early while the walk still reads, and the walk’s answer is unchanged in no more rounds', async () => {
    const { engine, analyzer } = await engineOf(REPO_DOCS);
    const { library } = await pagedOf(engine, analyzer);
    const { library: plain } = await pagedOf(engine, analyzer);
    let earlySent = 0;
    for (const q of DOC_QUESTIONS) {
      const early: PagedAnswer[] = [];
      const answer = await library.search(q, 'ppr', 1000, undefined, (a) => early.push(a));
      const alone = await plain.search(q, 'ppr', 1000);
      expect(answer.hits).toEqual(engine.search({ text: q }, 'ppr', 1000));
      // The words' reads go before the walk's, not instead of them: the walk takes no more rounds than without them.
      expect(answer.rounds).toBeLessThanOrEqual(alone.rounds);
      expect(early.length).toBeLessThanOrEqual(1);
      if (early.length === 0) continue;
      earlySent++;
      // The words' ranking, bit for bit, with the records it shows.
      expect(early[0].hits).toEqual(engine.search({ text: q }, 'bm25', 1000));
      for (const h of early[0].hits) expect(early[0].records.get(h.chunkId)?.docId).toBe(h.docId);
    }
    // A fresh library's walk waits on reads: its first question shows the words early at least.
    expect(earlySent).toBeGreaterThan(0);
    // bm25 itself is never staged.
    const words: PagedAnswer[] = [];
    await library.search(DOC_QUESTIONS[4], 'bm25', 1000, undefined, (a) => words.push(a));
    expect(words).toEqual([]);
  }, 240_000);

  it('answers from pages held in memory in one run, as the engine does, without reading the source', async () => {
    const { engine, analyzer } = await engineOf(REPO_DOCS);
    const written = await writePagedIndex(
      engine.lexicalParts(),
      (docId) => ({ title: `title of ${docId}` }),
      4096,
    );
    const source = new MemoryRangeSource(written.data, 'held pages');
    const openHeld = () =>
      PagedLibrary.open(
        source,
        {
          base: 0,
          length: written.data.length,
          directory: written.directory,
          hashes: written.hashes,
          held: written.data,
        },
        analyzer,
      );
    const held = await openHeld();
    for (const q of DOC_QUESTIONS) {
      for (const [mode, budget] of [
        ['ppr', 1000],
        ['bm25', 2000],
      ] as const) {
        const answer = await held.search(q, mode, budget);
        expect(answer.hits).toEqual(engine.search({ text: q }, mode, budget));
        expect(answer.rounds).toBe(1);
        expect(answer.waitMs).toBe(0);
      }
    }
    // Held pages are read in place: the source is never asked, and what a question touched is still counted.
    expect(source.bytesRead).toBe(0);
    const fresh = await openHeld();
    const first = await fresh.search(DOC_QUESTIONS[1], 'ppr', 1000);
    expect(first.bytes).toBeGreaterThan(0);
    expect(first.bytes).toBeLessThan(written.data.length);
    expect((await fresh.search(DOC_QUESTIONS[1], 'ppr', 1000)).bytes).toBe(0);
  }, 240_000);

  const musique = `${BENCH_DIR}/musique/corpus.jsonl`;
  const skip = missingSharedData(musique, 'the paged walk on MuSiQue');
  it.skipIf(skip !== null)(
    'walks the concept graph as the engine does (MuSiQue passages)',
    async () => {
      const { engine, analyzer } = await engineOf(musique, 1500);
      const { library } = await pagedOf(engine, analyzer);
      const questions = (await readFile(`${BENCH_DIR}/musique/questions.jsonl`, 'utf8'))
        .trim()
        .split('\n')
        .slice(0, 8)
        .map((l) => (JSON.parse(l) as { question: string }).question);
      for (const q of questions) {
        const answer = await library.search(q, 'ppr', 2000);
        expect(answer.hits).toEqual(engine.search({ text: q }, 'ppr', 2000));
      }
    },
    240_000,
  );
});

describe('a version 3 bundle with pages', () => {
  it('opens by ranges, still reads whole, and names a damaged block', async () => {
    const { engine, analyzer } = await engineOf(REPO_RESULTS);
    const written = await writePagedIndex(engine.lexicalParts(), (docId) => ({ title: docId }));
    const bytes = await bundleBytes(writeBundle(pagesParts(written), { appVersion: 'test', embedder: null }));
    const whole = await readBundle(bytes);
    expect(whole.manifest.formatVersion).toBe(3);
    expect(whole.parts.get('pages.bin')?.length).toBe(written.data.length);

    const source = new MemoryRangeSource(bytes, 'x.bundle');
    const opened = await openPagedBundle(source, analyzer);
    expect(opened).toBeDefined();
    const q = 'What did the heap measurements show?';
    expect((await opened!.library.search(q, 'ppr', 1000)).hits).toEqual(
      engine.search({ text: q }, 'ppr', 1000),
    );

    // One byte changed inside the pages part: the block holding it is refused by name, whenever it is read (the
    // `open` section at open; any other block when a question needs it, here read directly through the store).
    const entry = whole.manifest.parts.find((p) => p.name === 'pages.bin')!;
    const damage = (at: number): Uint8Array => {
      const copy = bytes.slice();
      copy[entry.offset! + at] ^= 0xff;
      return copy;
    };
    // Version 8 cuts the part into blocks by section (blockLayout.ts): a byte's block is the layout's.
    const layout = blockLayoutOf(written.directory, written.data.length);
    const refusal = (at: number): string =>
      `x.bundle: corrupted (SHA-256 mismatch in block ${layout.blockOf(at)} of part pages.bin)`;
    await expect(openPagedBundle(new MemoryRangeSource(damage(10), 'x.bundle'), analyzer)).rejects.toThrow(
      refusal(10),
    );
    const deep = written.directory.sections.rows[0] + 5;
    const source2 = new MemoryRangeSource(damage(deep), 'x.bundle');
    const store = new BlockStore(
      source2,
      entry.offset!,
      entry.length,
      layout,
      // The block hashes (the tree's levels above them follow when they are more than 64 pages).
      written.hashes.subarray(0, layout.count * hashBytesOf(written.directory)),
      'pages.bin',
      undefined,
      written.directory.hashBytes,
    );
    expect(store.bytes(deep, 1)).toBeUndefined();
    await expect(store.load()).rejects.toThrow(refusal(deep));
  }, 240_000);
});

describe('the text analyzer a library read by ranges was built with', () => {
  const texts = [
    'A watcher runs a callback when its source changes.',
    'Deep watchers traverse every nested property of the source.',
    'Lists render one item per entry, keyed by id.',
  ];
  const chunks = texts.map((text, i) => ({ id: `d${i}#0#0`, docId: `d${i}`, text, tokens: 12, start: 0 }));
  const sentences = texts.map((text, i) => ({
    chunkId: `d${i}#0#0`,
    index: 0,
    start: 0,
    end: text.length,
    text,
  }));
  const pagesOf = async (version: number) => {
    const engine = RetrievalEngine.build({ chunks, sentences }, createTermAnalyzer(version));
    return { engine, written: await writePagedIndex(engine.lexicalParts(), (docId) => ({ title: docId })) };
  };
  const open = (written: Awaited<ReturnType<typeof writePagedIndex>>, directory = written.directory) =>
    PagedLibrary.open(
      new MemoryRangeSource(written.data, 'old.bundle'),
      { base: 0, length: written.data.length, directory, hashes: written.hashes },
      createTermAnalyzer(),
    );
  const q = 'How do I stop a watcher?';

  it('is recorded, and a part without the record (written before stemming) is questioned as built', async () => {
    const v2 = await pagesOf(2);
    expect(v2.written.directory.analyzer).toBe(2);
    expect((await (await open(v2.written)).search(q, 'bm25', 800)).hits).toEqual(
      v2.engine.search({ text: q }, 'bm25', 800),
    );
    // A part of before: no `analyzer` in its directory. Opened by today's app, it answers as version 1 built it
    // (the stem "~watcher" it does not hold is never asked for), not as a version 2 library would.
    const v1 = await pagesOf(1);
    const { analyzer: _, ...before } = v1.written.directory;
    const old = await open(v1.written, before);
    for (const mode of ['bm25', 'ppr']) {
      expect((await old.search(q, mode, 800)).hits).toEqual(v1.engine.search({ text: q }, mode, 800));
    }
    expect((await old.search(q, 'bm25', 800)).hits.map((h) => h.docId)).toEqual(['d0']);
    expect((await (await open(v2.written)).search(q, 'bm25', 800)).hits.map((h) => h.docId)).toEqual([
      'd0',
      'd1',
    ]);
  });

  it('refuses a part built with an analyzer this app does not know, naming the file', async () => {
    const { written } = await pagesOf(2);
    await expect(open(written, { ...written.directory, analyzer: 7 })).rejects.toThrow(
      /old\.bundle: pages\.bin was built with text analyzer version 7/,
    );
    await expect(open(written, { ...written.directory, analyzer: -1 })).rejects.toThrow(
      /bad analyzer version/,
    );
  });
});

describe('passages that share a title, read by ranges', () => {
  // One paragraph a document, all under the paper's title: the blend reads them as one text (titleGroupSizes),
  // from the part's titleChunks, as the engine in memory does.
  const texts = [
    'The concept graph links two concepts when they occur together in a chunk of text.',
    'PageRank ranks the concepts of the graph; degree centrality ranked hubs first in our trials.',
    'Two retrieval paths that find the same chunk keep it once, with the better of its two scores.',
    'Chunk identifiers join the document hash, the section index and the chunk index.',
    'The walk restarts at the concepts named in the question, weighted by their rarity.',
  ];
  const chunks = texts.map((text, i) => ({
    id: `p${i}#0#0`,
    docId: `p${i}`,
    text,
    tokens: 20,
    start: 0,
    path: ['Paper › Method'],
  }));
  const sentences = texts.map((text, i) => ({
    chunkId: `p${i}#0#0`,
    index: 0,
    start: 0,
    end: text.length,
    text,
  }));

  it('answers as the engine in memory, the blend reading the title’s chunks', async () => {
    const analyzer = createTermAnalyzer();
    const engine = RetrievalEngine.build({ chunks, sentences }, analyzer);
    const { library } = await pagedOf(engine, analyzer);
    const q = 'Which chunk do two retrieval paths keep when they find the same one?';
    expect((await library.search(q, 'ppr', 4000)).hits).toEqual(engine.search({ text: q }, 'ppr', 4000));
  });
});
