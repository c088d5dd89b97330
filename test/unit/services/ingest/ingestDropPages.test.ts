// A drop whose library is answered from its pages (src/services/library/pagesThreshold.ts) refreshes the pages
// during the drop in place of the incremental concept graph (IngestPipeline.rebuildGraph), and lets the graph go:
// at 100 MiB the graph held 3.3 GB of the ingest worker's heap (docs/results/tab-pages.md). On a scripted clock
// (parsing a file takes 1 s, writing pages 0.1 s per stored document), with the real graph refresh, the real pages
// writer and the real query service over fake-indexeddb: the refreshes below the lowered threshold build the graph,
// the ones past it write pages (the graph no longer held), spaced by their own cost as the graph was; questions asked
// during the drop are answered from the latest pages without reading the corpus (or refused plainly before the first
// pages); the last pages hold every document. A small library keeps the graph and gets no pages.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { IncrementalGraphRefresh } from '../../../../src/services/ingest/graphBuild.ts';
import { GRAPH_REFRESH_SPACING, IngestPipeline } from '../../../../src/services/ingest/ingestPipeline.ts';
import type { IngestEvent, LibraryCoverage } from '../../../../src/services/ingest/ingestProtocol.ts';
import { pagesDue, writeLibraryPages } from '../../../../src/services/ingest/pagesWrite.ts';
import { PAGES_MIN_CHUNKS_SETTING } from '../../../../src/services/library/pagesThreshold.ts';
import { openStoredPages } from '../../../../src/services/library/storedPages.ts';
import { resolveParams } from '../../../../src/core/retrieval/index.ts';
import { askByWords } from '../../../support/askOver.ts';
import { QueryService } from '../../../../src/services/query/queryService.ts';
import type { AskResult } from '../../../../src/services/questions/queryProtocol.ts';
import { openDatabase, type ConceptDb } from '../../../../src/store/db.ts';
import { Repo } from '../../../../src/store/repo.ts';
import { bytes, fakeEmbedder, prepare } from './ingestFixtures.ts';
import { storedPagesQueryService } from '../../../support/storedPagesQueryService.ts';
import { pagesLagging } from '../../../support/pagesLagging.ts';

/** The stored pages as they open, with whether they lag the library (their stamp against the library's). */
async function settledPages(db: ConceptDb): Promise<object | undefined> {
  const state = await openStoredPages(db);
  return state && !('awaiting' in state) ? { ...state, lagging: await pagesLagging(db, state) } : state;
}

const PARSE_MS = 1000;
const PAGES_MS_PER_DOCUMENT = 100;
const FILES = 60;
/** The lowered threshold: the drop passes it at its 20th document (one chunk each). */
const THRESHOLD = 20;

/** Words that make each document findable by its own name. */
const PLACES = ['Arden', 'Brisk', 'Corran', 'Dunmore', 'Elsby', 'Fenwick', 'Garth', 'Holm', 'Ivel', 'Jarrow'];
function text(i: number, size: 'small' | 'bench'): string {
  const place = `${PLACES[i % PLACES.length]}${String.fromCharCode(97 + Math.floor(i / PLACES.length))}ville`;
  // doc7 alone has a tannery: the gold passage of TANNERY.
  const tannery = i === 7 ? ' The tannery by the weir cures hides.' : '';
  const line = `doc${i}: The river mill of ${place} grinds barley. Farmers of ${place} sell flour at the market.${tannery}`;
  // 'bench': about the scale corpus's bytes per chunk (dropProjection.ts BENCH_BYTES_PER_CHUNK), so the queue of a
  // drop projects its chunks; 'small': a tenth of it, so the queue projects far fewer chunks than it will store.
  if (size === 'small') return line;
  return (
    line + ` The ledger of ${place} notes the weather, the tolls and the dates of the harvest.`.repeat(11)
  );
}

/** A question one document answers (doc7), for the questions answered by words before the first pages. */
const TANNERY = 'Which town has a tannery?';

/** A question asked while the library waits for its first pages: answered by words, its gold passage first. */
function expectByWords(result: AskResult | undefined, when: string): void {
  expect(result?.from, when).toBe('words');
  expect(result!.evidence[0]?.docTitle, when).toBe('doc7');
  expect(result!.evidence[0]?.text, when).toContain('tannery');
  // Its sentences are read for the evidence shown only: the best one is the tannery's.
  const { bestSentences, text: shown, chunkStart } = result!.evidence[0];
  expect(bestSentences[0], when).toBeDefined();
  const best = shown.slice(bestSentences[0].start - chunkStart, bestSentences[0].end - chunkStart);
  expect(best, when).toContain('tannery');
}

interface Refresh {
  kind: 'graph' | 'pages';
  start: number;
  cost: number;
  chunks: number;
  /** The incremental graph was held when the refresh started. */
  graphHeld: boolean;
  /** The index record's projected chunks when the refresh started. */
  projected?: number;
}

interface DropOptions {
  /** The files' size per chunk (see text). */
  size?: 'small' | 'bench';
  /** Files from this index on fail to parse. */
  failFrom?: number;
  /** Cancel the drop once this many pages writes are stored. */
  cancelAfterPages?: number;
  /** Ask a question every this many files parsed (besides before and after each pages write). */
  askEvery?: number;
  /** The pipeline's refresh interval (ms of the scripted clock). */
  refreshMs?: number;
  /** The question asked (default: one every document answers). */
  question?: string;
  /** Each file in a drop of its own (the next queued once the last drain is over). */
  oneAtATime?: boolean;
  /** The files dropped (default: FILES files of one document each). */
  files?: Array<{ name: string; bytes: ArrayBuffer }>;
}

async function drop(threshold: number | undefined, options: DropOptions = {}) {
  const size = options.size ?? 'small';
  const repo = new Repo(openDatabase('drop-pages', { indexedDB: new IDBFactory(), IDBKeyRange }));
  await repo.setSetting('sentenceVectors', false);
  if (threshold !== undefined) await repo.setSetting(PAGES_MIN_CHUNKS_SETTING, threshold);
  let clock = 0;
  const graph = new IncrementalGraphRefresh();
  const refreshes: Refresh[] = [];
  const events: IngestEvent[] = [];
  let corpusLoads = 0;
  const service = storedPagesQueryService(repo, {
    loadCorpus: () => {
      corpusLoads += 1;
      return repo.loadCorpus();
    },
  });
  /**
   * Questions asked during the drop: before the first pages and after each write, and every `askEvery` files.
   * `pagesDocuments`: the documents of the latest pages (0: none yet); `stored`: the documents stored when asked.
   */
  const asked: Array<{ pagesDocuments: number; stored: number; result?: AskResult; refused?: string }> = [];
  let pagesDocuments = 0;
  const ask = async (): Promise<void> => {
    const stored = (await repo.counts()).documents;
    service.invalidate('library');
    await service.warmUp();
    try {
      asked.push({
        pagesDocuments,
        stored,
        result: await service.ask({
          question: options.question ?? 'Where is barley ground?',
          mode: 'ppr',
          budget: 400,
        }),
      });
    } catch (error) {
      asked.push({ pagesDocuments, stored, refused: (error as Error).message });
    }
  };
  let parsed = 0;
  let pagesWrites = 0;
  let cancelling: Promise<void> | undefined;
  const pipeline: IngestPipeline = new IngestPipeline(
    {
      repo,
      prepare: async (name, data, prepareOptions) => {
        clock += PARSE_MS;
        parsed += 1;
        if (options.askEvery && parsed % options.askEvery === 0 && (await repo.counts()).documents > 0)
          await ask();
        const index = Number(name.slice(1, -4));
        if (options.failFrom !== undefined && index >= options.failFrom)
          return prepare(name, new TextEncoder().encode(`BAD ${name}`), prepareOptions);
        return prepare(name, data, prepareOptions);
      },
      batchFiles: 1,
      embedder: async () => fakeEmbedder(),
      rebuildGraph: async (r, signal) => {
        const { chunks } = await r.counts();
        refreshes.push({ kind: 'graph', start: clock, cost: 0, chunks, graphHeld: graph.held });
        await graph.refresh(r, signal);
      },
      releaseGraph: () => graph.release(),
      pages: {
        due: pagesDue,
        write: async (r, writeOptions) => {
          const { chunks, documents } = await r.counts();
          const first = (await r.db.pages.count()) === 0;
          if (first) await ask();
          const projected = (await r.getMeta())?.projectedChunks;
          refreshes.push({ kind: 'pages', start: clock, cost: 0, chunks, graphHeld: graph.held, projected });
          const written = await writeLibraryPages(r, writeOptions);
          const cost = PAGES_MS_PER_DOCUMENT * documents;
          refreshes.at(-1)!.cost = cost;
          clock += cost;
          pagesDocuments = written.documents;
          await ask();
          pagesWrites += 1;
          if (pagesWrites === options.cancelAfterPages) cancelling = pipeline.cancel();
          return written;
        },
      },
      emit: (e) => events.push(e),
      now: () => clock,
    },
    options.refreshMs ?? 5000,
  );
  const files =
    options.files ??
    Array.from({ length: FILES }, (_, i) => ({ name: `f${i}.txt`, bytes: bytes(text(i, size)) }));
  for (const batch of options.oneAtATime ? files.map((f) => [f]) : [files]) {
    await pipeline.enqueue(batch);
    await pipeline.ensureRunning();
  }
  await cancelling;
  const coverage = events.flatMap((e) => (e.type === 'coverage' ? [e.coverage] : []));
  return {
    repo,
    graph,
    refreshes,
    asked,
    corpusLoads: () => corpusLoads,
    coverage,
    events,
    service,
    pipeline,
  };
}

describe('a drop past the pages threshold', () => {
  it('whose queue does not project past it: the graph until the refresh past it, then pages', async () => {
    const { repo, graph, refreshes, asked, corpusLoads, coverage } = await drop(THRESHOLD, {
      question: TANNERY,
    });
    const graphs = refreshes.filter((r) => r.kind === 'graph');
    const pages = refreshes.filter((r) => r.kind === 'pages');
    // Below the threshold the graph is refreshed (and held between refreshes); past it, pages instead.
    expect(graphs.length).toBeGreaterThanOrEqual(1);
    for (const r of graphs) expect(r.chunks).toBeLessThan(THRESHOLD);
    expect(pages.length, 'pages written during the drop and at its end').toBeGreaterThanOrEqual(3);
    for (const r of pages) {
      // Past it by its chunks, or by the queue projected at its bytes once the chunks are near it (the first
      // refresh of an empty library comes at its first file: the later ones fall at 6, 11, 16 chunks, and at 16 the
      // 44 files left project 4 more).
      expect(Math.max(r.chunks, r.projected ?? 0)).toBeGreaterThanOrEqual(THRESHOLD);
      expect(r.graphHeld, `graph held at the pages write of ${r.chunks} chunks`).toBe(false);
    }
    expect(refreshes.findIndex((r) => r.kind === 'pages')).toBe(graphs.length);
    // No graph is held once the drop is done, and the last pages hold every document.
    expect(graph.held).toBe(false);
    const stored = await settledPages(repo.db);
    expect(stored).toMatchObject({ documents: FILES, chunks: FILES, lagging: false });
    // Spaced by their own cost: the next refresh waits GRAPH_REFRESH_SPACING times the last one (or the interval).
    for (let k = 1; k < refreshes.length - 1; k++) {
      const gap = refreshes[k].start - refreshes[k - 1].start;
      expect(gap).toBeGreaterThanOrEqual(Math.max(5000, GRAPH_REFRESH_SPACING * refreshes[k - 1].cost));
    }
    // Pages written during the drop hold a part of the library: questions are answered from them meanwhile.
    const during = pages.slice(0, -1);
    expect(during.length).toBeGreaterThanOrEqual(2);
    expect(during[0].chunks).toBeLessThan(FILES);
    // Before the first pages the library is past the threshold by its projection only (16 chunks stored): small
    // enough to be loaded, it is answered from memory (storedPages.ts), not refused, the tannery first.
    expect(asked[0].refused).toBeUndefined();
    expect(asked[0].stored).toBeLessThan(THRESHOLD);
    expect(asked[0].result?.from).toBeUndefined();
    expect(asked[0].result?.evidence[0]?.docTitle).toBe('doc7');
    for (const a of asked.slice(1)) {
      expect(a.result?.from, `asked after pages of ${a.pagesDocuments} documents`).toBe('pages');
      expect(a.result!.evidence.length).toBeGreaterThan(0);
      // Evidence only from the documents the pages hold (the first ones stored: doc0 … doc{n-1}).
      for (const e of a.result!.evidence) expect(Number(e.docTitle?.slice(3))).toBeLessThan(a.pagesDocuments);
    }
    expect(corpusLoads(), 'the query side read the corpus after the first pages').toBe(1);
    // The page's status says where searchable documents come from.
    expect(coverage.at(-1)).toMatchObject<Partial<LibraryCoverage>>({
      searchableFrom: 'pages',
      searchableDocuments: FILES,
    });
  }, 120_000);

  it('a small library keeps the incremental graph and gets no pages', async () => {
    // The queue projects 60 chunks at the bench's bytes per chunk: far under the default threshold.
    const { repo, graph, refreshes, events, coverage } = await drop(undefined, { size: 'bench' });
    expect(refreshes.every((r) => r.kind === 'graph')).toBe(true);
    expect(refreshes.length).toBeGreaterThanOrEqual(3);
    expect(refreshes.slice(1).every((r) => r.graphHeld)).toBe(true);
    expect(graph.lastSnapshot?.chunkIds.length).toBe(FILES);
    expect(await repo.db.pages.count()).toBe(0);
    expect((await repo.getMeta())?.projectedChunks).toBeUndefined();
    expect(events.some((e) => e.type === 'progress' && e.progress.stage === 'pages')).toBe(false);
    expect(coverage.at(-1)?.searchableFrom).toBeUndefined();
  }, 120_000);

  it('a small library of small files keeps the incremental graph and gets no pages', async () => {
    const { repo, graph, refreshes, events, coverage } = await drop(undefined);
    expect(refreshes.every((r) => r.kind === 'graph')).toBe(true);
    expect(refreshes.length).toBeGreaterThanOrEqual(3);
    // Held between the refreshes of the drain (let go when it ends, by the ingest service on 'idle').
    expect(refreshes.slice(1).every((r) => r.graphHeld)).toBe(true);
    expect(graph.lastSnapshot?.chunkIds.length).toBe(FILES);
    expect(await repo.db.pages.count()).toBe(0);
    expect(events.some((e) => e.type === 'progress' && e.progress.stage === 'pages')).toBe(false);
    expect(coverage.at(-1)?.searchableFrom).toBeUndefined();
    expect(coverage.at(-1)?.searchableDocuments).toBe(FILES);
  }, 120_000);
});

/** Asks in every mode a lexical library answers in memory; each must answer from memory, with evidence. */
async function answersInMemory(service: QueryService): Promise<void> {
  service.invalidate('library');
  for (const mode of ['ppr', 'bm25', 'concept'] as const) {
    // A place of one document (doc1): a concept walk needs a keyphrase that is not in every passage.
    const question = 'Where do the farmers of Briskaville sell flour?';
    const result = await service.ask({ question, mode, budget: 400 });
    expect(result.from, `mode ${mode}`).toBeUndefined();
    expect(result.evidence.length, `mode ${mode}`).toBeGreaterThan(0);
  }
  // The Graph view ranks by PageRank: the library's concept graph in memory, not its pages.
  expect((await service.topConcepts({ limit: 5 })).measure).toBe('pagerank');
}

describe('a drop whose queue projects past the pages threshold', () => {
  it('writes pages from its first refresh, never builds the graph, and refuses no question', async () => {
    const { repo, graph, refreshes, asked, coverage } = await drop(THRESHOLD, { size: 'bench', askEvery: 3 });
    expect(refreshes.length).toBeGreaterThanOrEqual(3);
    expect(refreshes.map((r) => r.kind)).toEqual(refreshes.map(() => 'pages'));
    // The first pages come while the library is still under the threshold: decided from the queue's projection.
    expect(refreshes[0].chunks).toBeLessThan(THRESHOLD);
    expect(refreshes[0].projected).toBeGreaterThanOrEqual(THRESHOLD);
    expect(refreshes.every((r) => !r.graphHeld)).toBe(true);
    expect(graph.lastSnapshot, 'no incremental graph built').toBeNull();
    expect(await repo.db.graph.count()).toBe(0);
    // Every question of the drop is answered: in memory before the first pages, from the latest pages after.
    expect(asked.length).toBeGreaterThanOrEqual(FILES / 3);
    for (const a of asked) {
      const when = `asked with ${a.stored} documents stored, pages of ${a.pagesDocuments}`;
      expect(a.refused, when).toBeUndefined();
      expect(a.result!.evidence.length, when).toBeGreaterThan(0);
      expect(a.result!.from, when).toBe(a.pagesDocuments > 0 ? 'pages' : undefined);
      if (a.pagesDocuments > 0)
        for (const e of a.result!.evidence)
          expect(Number(e.docTitle?.slice(3))).toBeLessThan(a.pagesDocuments);
    }
    expect(asked.some((a) => a.pagesDocuments === 0)).toBe(true);
    // The drop is over: nothing is projected, and the last pages hold every document.
    expect((await repo.getMeta())?.projectedChunks).toBeUndefined();
    expect(await settledPages(repo.db)).toMatchObject({ documents: FILES, chunks: FILES, lagging: false });
    expect(coverage.at(-1)).toMatchObject<Partial<LibraryCoverage>>({
      searchableFrom: 'pages',
      searchableDocuments: FILES,
    });
  }, 120_000);

  it('writes its first pages by half the threshold even before the first refresh is due', async () => {
    const { refreshes, asked } = await drop(THRESHOLD, { size: 'bench', askEvery: 1, refreshMs: 600_000 });
    expect(refreshes[0]).toMatchObject({ kind: 'pages', chunks: THRESHOLD / 2 });
    expect(refreshes.every((r) => r.kind === 'pages')).toBe(true);
    // The library never passes the threshold without pages: no question is refused.
    expect(asked.filter((a) => a.refused)).toEqual([]);
    expect(asked.filter((a) => a.stored >= THRESHOLD).every((a) => a.result?.from === 'pages')).toBe(true);
  }, 120_000);

  it('cancelled after its first pages, small after all: answered in memory with every mode', async () => {
    const { repo, refreshes, service } = await drop(THRESHOLD, { size: 'bench', cancelAfterPages: 1 });
    expect(refreshes.map((r) => r.kind)).toEqual(['pages']);
    const { documents } = await repo.counts();
    expect(documents).toBeGreaterThan(0);
    expect(documents).toBeLessThan(THRESHOLD);
    expect(await repo.waitingCount()).toBe(0);
    expect((await repo.getMeta())?.projectedChunks).toBeUndefined();
    // Its pages stay stored but are not read: the library is small.
    expect(await repo.db.pages.count()).toBe(1);
    expect(await openStoredPages(repo.db)).toBeUndefined();
    await answersInMemory(service);
  }, 120_000);

  it('whose files fail, small after all: the graph at its last refresh, answered in memory', async () => {
    const { repo, graph, refreshes, service } = await drop(THRESHOLD, { size: 'bench', failFrom: 8 });
    expect(refreshes[0].kind).toBe('pages');
    expect(refreshes.at(-1)!.kind).toBe('graph');
    expect(graph.lastSnapshot?.chunkIds.length).toBe(8);
    expect((await repo.counts()).documents).toBe(8);
    expect((await repo.getMeta())?.projectedChunks).toBeUndefined();
    expect(await openStoredPages(repo.db)).toBeUndefined();
    await answersInMemory(service);
  }, 120_000);
});

describe('a library past the threshold before its first pages is answered by words, never refused', () => {
  it('files added one at a time, each drop projecting under the threshold', async () => {
    const { refreshes, asked } = await drop(THRESHOLD, { question: TANNERY, oneAtATime: true });
    // Each one-file drop projects one file's chunks: the graph until the library passes the threshold.
    expect(refreshes[0].kind).toBe('graph');
    const first = refreshes.findIndex((r) => r.kind === 'pages');
    expect(refreshes[first].chunks).toBe(THRESHOLD);
    // Asked as the first pages were about to be written: past the threshold, no pages, no drop left to project.
    expect(asked[0].pagesDocuments).toBe(0);
    expect(asked[0].refused).toBeUndefined();
    expectByWords(asked[0].result, 'asked before the first pages');
    for (const a of asked.slice(1)) expect(a.result?.from).toBe('pages');
  }, 120_000);

  it('one file of more documents than half the threshold (a .jsonl of passages)', async () => {
    // 30 one-passage documents in one file: the library passes the threshold of 20 at once.
    const lines = Array.from({ length: 30 }, (_, i) => text(i, 'small')).join('\n');
    const { refreshes, asked } = await drop(THRESHOLD, {
      question: TANNERY,
      files: [{ name: 'f0.txt', bytes: bytes(lines) }],
    });
    expect(refreshes.map((r) => r.kind)).toEqual(['pages']);
    expect(refreshes[0].chunks).toBe(30);
    expect(asked.map((a) => a.pagesDocuments)).toEqual([0, 30]);
    expect(asked.filter((a) => a.refused)).toEqual([]);
    expectByWords(asked[0].result, 'asked before the first pages');
    expect(asked[1].result?.from).toBe('pages');
  }, 120_000);

  it('a stored library without pages (an older app’s): by words, in bounded batches, until resumePages writes them', async () => {
    // Stored under the default threshold (the graph, no pages), then the threshold lowered: large, without pages,
    // and no drop running, as an older app's library of 10,000 chunks opens.
    const { repo, service, pipeline, asked } = await drop(undefined, { question: TANNERY });
    expect(await repo.db.pages.count()).toBe(0);
    await repo.setSetting(PAGES_MIN_CHUNKS_SETTING, THRESHOLD);
    service.invalidate('library');
    const result = await service.ask({ question: TANNERY, mode: 'bm25', budget: 400 });
    expectByWords(result, 'bm25 before resumePages');
    expectByWords(
      await service.ask({ question: TANNERY, mode: 'ppr', budget: 400 }),
      'the default mode before resumePages',
    );
    // Read a few documents at a time: no batch holds more than it was given; past it, only the chunks holding a
    // question word are kept, as keys (here fewer than the candidates).
    const awaited = await openStoredPages(repo.db);
    if (!awaited || !('awaiting' in awaited))
      throw new Error(`not awaiting pages: ${JSON.stringify(awaited)}`);
    const batches: number[] = [];
    const kept: number[] = [];
    const small = await askByWords(
      awaited,
      { question: TANNERY, mode: 'ppr', budget: 400 },
      {
        documentsPerRead: 4,
        onBatch: (chunks, k) => {
          batches.push(chunks);
          kept.push(k);
        },
      },
    );
    expect(batches.reduce((n, b) => n + b, 0)).toBe(FILES);
    expect(Math.max(...batches)).toBe(4);
    expect(Math.max(...kept)).toBeLessThanOrEqual(resolveParams().candidates);
    expect(small.result.evidence.map((e) => e.chunkId)).toEqual(result.evidence.map((e) => e.chunkId));
    // The ingest worker's start (resumePages) writes the pages; a question during the write is answered by words
    // (the harness asks before the first pages), the next one from the pages.
    const before = asked.length;
    await pipeline.resumePages();
    expect(await settledPages(repo.db)).toMatchObject({ documents: FILES, lagging: false });
    expect(asked.length).toBe(before + 2);
    expectByWords(asked[before].result, 'asked while resumePages wrote the pages');
    service.invalidate('library');
    const paged = await service.ask({ question: TANNERY, mode: 'ppr', budget: 400 });
    expect(paged.from).toBe('pages');
    expect(paged.evidence[0]?.docTitle).toBe('doc7');
  }, 120_000);
});
