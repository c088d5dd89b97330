// The concept graph the ingest worker built at a drop's last refresh, handed to the query worker's next library load
// through a real MessageChannel (as the page joins the two workers): the graph worker is not started, the engine
// walks the handed arrays, and every answer is the one a library opened without it gives. A graph made for other
// chunks (another tab's refresh since) is refused, and the graph worker builds it as before.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareFile } from '../../../../src/core/prepare.ts';
import { isConceptTableGraph } from '../../../../src/core/graph/index.ts';
import { IncrementalGraphRefresh } from '../../../../src/services/ingest/graphBuild.ts';
import { IngestPipeline } from '../../../../src/services/ingest/ingestPipeline.ts';
import { SENTENCE_VECTORS_SETTING } from '../../../../src/services/ingest/ingestProtocol.ts';
import type { IngestDeps } from '../../../../src/services/ingest/ingestPipeline.ts';
import {
  graphHandOverTo,
  HandedGraphs,
  tableGraphFromHanded,
  type HandedLexicalGraph,
} from '../../../../src/services/library/graphHandOver.ts';
import { createGraphPrebuilder } from '../../../../src/services/library/graphPrebuild.ts';
import type { PrebuildRequest } from '../../../../src/services/library/graphPrebuild.ts';
import type { QuestionLibrary } from '../../../../src/services/library/questionLibrary.ts';
import { LibrarySession } from '../../../../src/services/library/session.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { Repo } from '../../../../src/store/repo.ts';

const MUSIQUE_300 = join(import.meta.dirname, '../../../fixtures/musique-300/corpus.jsonl');
const PASSAGES = readFileSync(MUSIQUE_300, 'utf8')
  .trim()
  .split('\n')
  .slice(0, 60)
  .map((line) => JSON.parse(line) as { id: string; text: string });
const QUESTIONS = [
  'Who was the father of Lothair II?',
  'When was the stadium opened?',
  'Which family is the actress a member of?',
];
const MODES = ['ppr', 'bm25', 'rrf:ppr+bm25'];

let repo: Repo;
const ports: MessagePort[] = [];

beforeEach(async () => {
  repo = new Repo(openDatabase('graph-hand-over', { indexedDB: new IDBFactory(), IDBKeyRange }));
  // Lexical, as a drop is until its vectors exist: the graph is stored as its concept table.
  await repo.setSetting(SENTENCE_VECTORS_SETTING, false);
});

afterEach(() => {
  for (const port of ports.splice(0)) port.close();
});

/**
 * Stores these passages as the ingest worker does, its graph refreshed by `refresh` (the ingest worker's own);
 * `graphSettled`: what the pipeline tells around its last refresh's coverage, and `events` the order of it all.
 */
async function drop(
  passages: typeof PASSAGES,
  refresh: IncrementalGraphRefresh,
  graphSettled?: IngestDeps['graphSettled'],
  events: string[] = [],
): Promise<void> {
  const pipeline = new IngestPipeline({
    repo,
    prepare: (name, bytes, options) => prepareFile(name, bytes, { maxChunkTokens: options.maxChunkTokens }),
    embedder: async () => {
      throw new Error('no embedder: the library is lexical only');
    },
    rebuildGraph: refresh.refresh,
    graphSettled: graphSettled && {
      coming: () => (events.push('coming'), graphSettled.coming()),
      settled: () => (events.push('settled'), graphSettled.settled()),
    },
    emit: (event) => {
      if (event.type === 'coverage') events.push(`coverage ${event.coverage.searchableDocuments}`);
    },
  });
  await pipeline.enqueue(
    passages.map((p) => ({
      name: `${p.id}.txt`,
      bytes: new TextEncoder().encode(p.text).buffer as ArrayBuffer,
    })),
  );
  await pipeline.ensureRunning();
}

/**
 * The two ends of a channel as the page joins the workers: the ingest worker's, handing over `refresh`'s graph, and
 * the query worker's. `delivered()` resolves once the graph handed last has crossed.
 */
function joined(refresh: IncrementalGraphRefresh): {
  ingest: IngestDeps['graphSettled'];
  query: HandedGraphs;
  delivered: () => Promise<void>;
} {
  const { port1, port2 } = new MessageChannel();
  ports.push(port1, port2);
  const query = new HandedGraphs();
  let crossed = 0;
  const waiting: Array<() => void> = [];
  port2.onmessage = (event: MessageEvent<unknown>) => {
    query.receive(event.data);
    if ((event.data as { type: string }).type === 'graph') {
      crossed++;
      for (const done of waiting.splice(0)) done();
    }
  };
  let seen = 0;
  const delivered = () =>
    new Promise<void>((done) => {
      const check = () => (crossed > seen ? ((seen = crossed), done()) : waiting.push(check));
      check();
    });
  return { ingest: graphHandOverTo(port1, refresh.handOver), query, delivered };
}

function session(
  handedGraph?: () => Promise<HandedLexicalGraph | null> | undefined,
  asked: PrebuildRequest[] = [],
): LibrarySession {
  const prebuilder = createGraphPrebuilder(repo);
  return new LibrarySession({
    library: {
      loadCorpus: (mark) => repo.loadCorpus(mark),
      loadAdded: (held, mark) => repo.loadAdded(held, mark),
      getMeta: () => repo.getMeta(),
    },
    kgStore: { entities: async () => [], relations: async () => [] },
    openBundle: () => Promise.reject(new Error('no bundles here')),
    // The graph worker's service on this thread, sent as a worker sends it (structured-cloned).
    prebuildGraph: async (request) => (
      asked.push(request),
      structuredClone(await prebuilder.prebuild(request))
    ),
    handedGraph,
  });
}

/** A library opened with neither a graph worker nor a hand-over: the graph made from the table on this thread. */
function plainSession(): LibrarySession {
  return new LibrarySession({
    library: { loadCorpus: (mark) => repo.loadCorpus(mark), getMeta: () => repo.getMeta() },
    kgStore: { entities: async () => [], relations: async () => [] },
    openBundle: () => Promise.reject(new Error('no bundles here')),
  });
}

function answers(library: QuestionLibrary): unknown {
  return QUESTIONS.flatMap((text) =>
    MODES.map((mode) =>
      library.engine.search({ text }, mode, 1500).map((r) => [r.chunkId, r.score, r.bestSentences]),
    ),
  );
}

describe("the ingest worker's graph handed to the query worker", () => {
  it('is taken in place of the graph worker after a first drop and after the next, with the same answers', async () => {
    const refresh = new IncrementalGraphRefresh();
    const { ingest, query, delivered } = joined(refresh);
    const events: string[] = [];
    await drop(PASSAGES.slice(0, 40), refresh, ingest, events);
    // Around the coverage of the drop's last refresh only: told it is coming before the page hears of it, sent after.
    expect(events.slice(-3)).toEqual(['coming', 'coverage 40', 'settled']);
    expect(events.filter((e) => e === 'coming')).toHaveLength(1);
    await delivered();
    const asked: PrebuildRequest[] = [];
    const held = session(() => query.take(), asked);
    const first = await held.library();
    expect(held.loadTimings()?.handedUsed).toBe(1);
    expect(asked).toEqual([]);
    // The very arrays the graph worker would have built from the stored concept table.
    const prebuilt = await createGraphPrebuilder(repo).prebuild({ compact: true });
    expect(prebuilt?.table).toBeDefined();
    expect(first.engine.graph.graph.targets).toEqual(prebuilt?.table?.graph.targets);
    expect(first.engine.graph.graph.weights).toEqual(prebuilt?.table?.graph.weights);
    expect(answers(first)).toEqual(answers(await plainSession().library()));

    await drop(PASSAGES.slice(40), refresh, ingest);
    await delivered();
    held.invalidate('library');
    const after = await held.library();
    expect(held.loadTimings()?.incremental).toBe(1);
    expect(held.loadTimings()?.handedUsed).toBe(1);
    expect(asked).toEqual([]);
    expect(after.documents.size).toBe(PASSAGES.length);
    expect(answers(after)).toEqual(answers(await plainSession().library()));
    // Its ranks are computed here from a uniform start, as the graph worker computes them, not the refresh's
    // PageRank, which started from the ranks before it.
    const again = await createGraphPrebuilder(repo).prebuild({ compact: true });
    expect(after.engine.graph.conceptRank).toEqual(again?.table?.conceptRank);
    expect(after.engine.graph.chunkRank).toEqual(again?.table?.chunkRank);
    // Taken once: the next load has none (the engine holds it), and the graph worker is asked again.
    expect(query.take()).toBeUndefined();
  });

  it('is waited for when it is on its way as a load begins', async () => {
    const refresh = new IncrementalGraphRefresh();
    await drop(PASSAGES.slice(0, 30), refresh);
    const query = new HandedGraphs();
    query.receive({ type: 'coming' });
    const asked: PrebuildRequest[] = [];
    const held = session(() => query.take(), asked);
    const loading = held.library();
    // The load reads the library meanwhile; the graph arrives later, as a copy.
    await new Promise((resolve) => setTimeout(resolve, 0));
    query.receive(structuredClone({ type: 'graph', graph: refresh.handOver() }));
    await loading;
    expect(held.loadTimings()?.handedUsed).toBe(1);
    expect(asked).toEqual([]);
  });

  it('is refused when it was made for other chunks, and the graph worker builds the stored one', async () => {
    // The graph handed after a drop, then another tab's drop and refresh before the next load.
    const stale = new IncrementalGraphRefresh();
    const { ingest, query, delivered } = joined(stale);
    await drop(PASSAGES.slice(0, 30), stale, ingest);
    await delivered();
    await drop(PASSAGES.slice(30), new IncrementalGraphRefresh());
    const asked: PrebuildRequest[] = [];
    const held = session(() => query.take(), asked);
    const library = await held.library();
    expect(held.loadTimings()?.handedUsed).toBe(0);
    expect(held.loadTimings()?.prebuiltUsed).toBe(1);
    expect(asked).toHaveLength(1);
    expect(library.documents.size).toBe(PASSAGES.length);
    expect(answers(library)).toEqual(answers(await plainSession().library()));
  });

  it('starts the graph worker at once when none is held nor coming, or none could be handed', async () => {
    const refresh = new IncrementalGraphRefresh();
    await drop(PASSAGES.slice(0, 20), refresh);
    const query = new HandedGraphs();
    const asked: PrebuildRequest[] = [];
    const held = session(() => query.take(), asked);
    await held.library();
    expect(held.loadTimings()?.handedUsed).toBeUndefined();
    expect(held.loadTimings()?.prebuiltUsed).toBe(1);
    expect(asked).toHaveLength(1);
    // A drain's end lets the incremental graph go: what is handed then is null.
    refresh.release();
    query.receive({ type: 'coming' });
    query.receive(structuredClone({ type: 'graph', graph: refresh.handOver() }));
    held.invalidate('library');
    await drop(PASSAGES.slice(20, 30), refresh);
    held.invalidate('library');
    await held.library();
    expect(held.loadTimings()?.prebuiltUsed).toBe(1);
    expect(asked).toHaveLength(2);
  });

  it('checks the shape of what arrives before anything walks it', async () => {
    const refresh = new IncrementalGraphRefresh();
    await drop(PASSAGES.slice(0, 20), refresh);
    const stored = (await repo.getStoredGraph())?.graph;
    if (!isConceptTableGraph(stored)) throw new Error('a lexical library stores its concept table');
    const handed = structuredClone(refresh.handOver());
    if (!handed) throw new Error('the refresh holds its graph');
    expect(tableGraphFromHanded(handed, stored)).toBeDefined();
    const cut = structuredClone(handed);
    cut.graph.targets = cut.graph.targets.subarray(1);
    expect(tableGraphFromHanded(cut, stored)).toBeUndefined();
    const offsets = structuredClone(handed);
    offsets.graph.offsets = offsets.graph.offsets.subarray(1);
    expect(tableGraphFromHanded(offsets, stored)).toBeUndefined();
    const options = structuredClone(handed);
    options.options = { ...options.options, thetaCo: options.options.thetaCo + 1 };
    expect(tableGraphFromHanded(options, stored)).toBeUndefined();
    const ids = structuredClone(handed);
    ids.chunkIds = [...ids.chunkIds].reverse();
    expect(tableGraphFromHanded(ids, stored)).toBeUndefined();
  });
});
