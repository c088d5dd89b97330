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
import {
  pagesDue,
  PAGES_MIN_CHUNKS_SETTING,
  writeLibraryPages,
} from '../../../../src/services/ingest/pagesWrite.ts';
import { openStoredPages } from '../../../../src/services/library/storedPages.ts';
import { QueryService } from '../../../../src/services/questions/queryService.ts';
import type { AskResult } from '../../../../src/services/questions/queryProtocol.ts';
import { DexieKgStore } from '../../../../src/store/kgStore.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { Repo } from '../../../../src/store/repo.ts';
import { bytes, fakeEmbedder, prepare } from './ingestFixtures.ts';

const PARSE_MS = 1000;
const PAGES_MS_PER_DOCUMENT = 100;
const FILES = 60;
/** The lowered threshold: the drop passes it at its 20th document (one chunk each). */
const THRESHOLD = 20;

/** Words that make each document findable by its own name. */
const PLACES = ['Arden', 'Brisk', 'Corran', 'Dunmore', 'Elsby', 'Fenwick', 'Garth', 'Holm', 'Ivel', 'Jarrow'];
function text(i: number): string {
  const place = `${PLACES[i % PLACES.length]}${String.fromCharCode(97 + Math.floor(i / PLACES.length))}ville`;
  return `doc${i}: The river mill of ${place} grinds barley. Farmers of ${place} sell flour at the market.`;
}

interface Refresh {
  kind: 'graph' | 'pages';
  start: number;
  cost: number;
  chunks: number;
  /** The incremental graph was held when the refresh started. */
  graphHeld: boolean;
}

async function drop(threshold: number | undefined) {
  const repo = new Repo(openDatabase('drop-pages', { indexedDB: new IDBFactory(), IDBKeyRange }));
  await repo.setSetting('sentenceVectors', false);
  if (threshold !== undefined) await repo.setSetting(PAGES_MIN_CHUNKS_SETTING, threshold);
  let clock = 0;
  const graph = new IncrementalGraphRefresh();
  const refreshes: Refresh[] = [];
  const events: IngestEvent[] = [];
  let corpusLoads = 0;
  const service = new QueryService({
    library: {
      loadCorpus: () => {
        corpusLoads += 1;
        return repo.loadCorpus();
      },
      getSetting: (key) => repo.getSetting(key),
      getMeta: () => repo.getMeta(),
    },
    kgStore: new DexieKgStore(repo.db),
    embedders: {
      get: () => Promise.reject(new Error('no embedder in this test')),
      dispose: async () => undefined,
    } as never,
    openBundle: () => Promise.reject(new Error('no bundle in this test')),
    llmClient: () => {
      throw new Error('no LLM in this test');
    },
    storedPages: (reuse) => openStoredPages(repo.db, reuse),
  });
  /** Questions asked during the drop: before the first pages (refused) and after each write (answered). */
  const asked: Array<{ pagesDocuments: number; result?: AskResult; refused?: string }> = [];
  const ask = async (pagesDocuments: number): Promise<void> => {
    service.invalidate('library');
    await service.warmUp();
    try {
      asked.push({
        pagesDocuments,
        result: await service.ask({ question: 'Where is barley ground?', mode: 'ppr', budget: 400 }),
      });
    } catch (error) {
      asked.push({ pagesDocuments, refused: (error as Error).message });
    }
  };
  const pipeline = new IngestPipeline(
    {
      repo,
      prepare: async (name, data, options) => {
        clock += PARSE_MS;
        return prepare(name, data, options);
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
        write: async (r, options) => {
          const { chunks, documents } = await r.counts();
          const first = (await r.db.pages.count()) === 0;
          if (first) await ask(0);
          refreshes.push({ kind: 'pages', start: clock, cost: 0, chunks, graphHeld: graph.held });
          const written = await writeLibraryPages(r, options);
          const cost = PAGES_MS_PER_DOCUMENT * documents;
          refreshes.at(-1)!.cost = cost;
          clock += cost;
          await ask(written.documents);
          return written;
        },
      },
      emit: (e) => events.push(e),
      now: () => clock,
    },
    5000,
  );
  await pipeline.enqueue(
    Array.from({ length: FILES }, (_, i) => ({ name: `f${i}.txt`, bytes: bytes(text(i)) })),
  );
  await pipeline.ensureRunning();
  const coverage = events.flatMap((e) => (e.type === 'coverage' ? [e.coverage] : []));
  return { repo, graph, refreshes, asked, corpusLoads: () => corpusLoads, coverage, events, service };
}

describe('a drop past the pages threshold', () => {
  it('writes pages during the drop in place of the incremental graph, and answers from them', async () => {
    const { repo, graph, refreshes, asked, corpusLoads, coverage } = await drop(THRESHOLD);
    const graphs = refreshes.filter((r) => r.kind === 'graph');
    const pages = refreshes.filter((r) => r.kind === 'pages');
    // Below the threshold the graph is refreshed (and held between refreshes); past it, pages instead.
    expect(graphs.length).toBeGreaterThanOrEqual(1);
    for (const r of graphs) expect(r.chunks).toBeLessThan(THRESHOLD);
    expect(pages.length, 'pages written during the drop and at its end').toBeGreaterThanOrEqual(3);
    for (const r of pages) {
      expect(r.chunks).toBeGreaterThanOrEqual(THRESHOLD);
      expect(r.graphHeld, `graph held at the pages write of ${r.chunks} chunks`).toBe(false);
    }
    expect(refreshes.findIndex((r) => r.kind === 'pages')).toBe(graphs.length);
    // No graph is held once the drop is done, and the last pages hold every document.
    expect(graph.held).toBe(false);
    const stored = await openStoredPages(repo.db);
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
    // Before the first pages the library (past the threshold) is not loaded: the question is refused plainly.
    expect(asked[0].refused).toMatch(/answered from its pages .* not written yet/);
    for (const a of asked.slice(1)) {
      expect(a.result?.from, `asked after pages of ${a.pagesDocuments} documents`).toBe('pages');
      expect(a.result!.evidence.length).toBeGreaterThan(0);
      // Evidence only from the documents the pages hold (the first ones stored: doc0 … doc{n-1}).
      for (const e of a.result!.evidence) expect(Number(e.docTitle?.slice(3))).toBeLessThan(a.pagesDocuments);
    }
    expect(corpusLoads(), 'the query side read the corpus').toBe(0);
    // The page's status says where searchable documents come from.
    expect(coverage.at(-1)).toMatchObject<Partial<LibraryCoverage>>({
      searchableFrom: 'pages',
      searchableDocuments: FILES,
    });
  }, 120_000);

  it('a small library keeps the incremental graph and gets no pages', async () => {
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
