// The ingest pipeline's graph refresh with the incremental concept graph (src/services/ingest/graphBuild.ts,
// IncrementalGraphRefresh): the graph the query path loads equals a from-scratch build over the same library,
// after batches and a removal, and a pipeline restarted over the same database continues from the stored state.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import {
  buildLexicalGraph,
  chunkConceptLists,
  compactGraph,
  deserializeGraph,
  isCompactGraph,
  type ConceptGraphIndex,
} from '../../../../src/core/graph/index.ts';
import { RetrievalEngine, layoutCorpus, resolveParams } from '../../../../src/core/retrieval/index.ts';
import {
  buildEngine,
  loadEngine,
  retrievalInput,
  termAnalyzer,
} from '../../../../src/services/library/engine.ts';
import { IncrementalGraphRefresh } from '../../../../src/services/ingest/graphBuild.ts';
import { IngestPipeline } from '../../../../src/services/ingest/ingestPipeline.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { Repo } from '../../../../src/store/repo.ts';
import { bytes, fakeEmbedder, prepare } from './ingestFixtures.ts';

let n = 0;

const BATCHES = [
  'alpha: Paris is the capital of France. The Seine flows through Paris.\nbeta: Berlin is the capital of Germany. The Spree flows through Berlin.',
  'gamma: Rome is the capital of Italy. The Tiber flows through Rome.\ndelta: Madrid is the capital of Spain. The Prado is in Madrid.',
  'epsilon: Vienna is the capital of Austria. The Danube flows through Vienna.\nzeta: Budapest is on the Danube. Budapest is the capital of Hungary.',
];
const QUESTIONS = ['Which river flows through the capital of France?', 'Danube capital', 'Rome Tiber Italy'];

function pipelineOver(repo: Repo, refresh: IncrementalGraphRefresh): IngestPipeline {
  const embedder = fakeEmbedder();
  return new IngestPipeline({
    repo,
    prepare,
    embedder: async () => embedder,
    rebuildGraph: refresh.refresh,
    emit: () => undefined,
  });
}

function graphOf(engine: RetrievalEngine): ConceptGraphIndex {
  return deserializeGraph(engine.exportGraph());
}

async function expectFreshEquivalent(repo: Repo, refresh: IncrementalGraphRefresh): Promise<void> {
  const corpus = await repo.loadCorpus();
  const loaded = loadEngine(corpus);
  const fresh = RetrievalEngine.build(retrievalInput(corpus), termAnalyzer());
  const a = graphOf(loaded);
  const b = graphOf(fresh);
  expect(a.chunkIds).toEqual(b.chunkIds);
  expect(a.table.terms).toEqual(b.table.terms);
  expect(Array.from(a.cooccurrence.targets)).toEqual(Array.from(b.cooccurrence.targets));
  expect(Array.from(a.graph.targets)).toEqual(Array.from(b.graph.targets));
  expect(a.conceptRank.length).toBe(b.conceptRank.length);
  for (let i = 0; i < a.conceptRank.length; i++) {
    expect(Math.abs(a.conceptRank[i] - b.conceptRank[i])).toBeLessThan(1e-3);
  }
  for (const text of QUESTIONS) {
    const top = (e: RetrievalEngine) =>
      e
        .rank({ text }, 'ppr')
        .slice(0, 10)
        .map((c) => a.chunkIds[c.chunk]);
    expect(top(loaded), text).toEqual(top(fresh));
  }
  // The refresh's own lexical snapshot (what a lexical-only library would have) is the fresh lexical graph.
  const lexical = buildLexicalGraph(
    a.chunkIds,
    chunkConceptLists(
      termAnalyzer(),
      layoutCorpus(retrievalInput(corpus).chunks, []).chunks,
      resolveParams(),
    ),
    resolveParams(),
  );
  const snapshot = refresh.lastSnapshot!;
  expect(snapshot.chunkIds).toEqual(lexical.chunkIds);
  expect(snapshot.table.terms).toEqual(lexical.table.terms);
  expect(Array.from(snapshot.cooccurrence.targets)).toEqual(Array.from(lexical.cooccurrence.targets));
  expect(Array.from(snapshot.cooccurrence.weights)).toEqual(Array.from(lexical.cooccurrence.weights));
  for (let i = 0; i < lexical.conceptRank.length; i++) {
    expect(Math.abs(snapshot.conceptRank[i] - lexical.conceptRank[i])).toBeLessThan(1e-3);
  }
  // With vectors, the store keeps the compact graph (keep-mask and table) the full engine's export gives, bit for
  // bit, though the refresh builds no engine for it.
  if (corpus.vectors.size > 0) {
    const stored = corpus.graph!.graph;
    if (!isCompactGraph(stored)) throw new Error('the graph stored with vectors is not a compact graph');
    const expected = compactGraph(fresh.exportGraph())!;
    expect(Array.from(stored.keepMask)).toEqual(Array.from(expected.keepMask));
    expect({ ...stored, keepMask: null }).toEqual({ ...expected, keepMask: null });
  }
  // The counts the Library view shows come from the refreshed graph.
  const meta = corpus.meta!;
  const stats = fresh.stats();
  expect({ concepts: meta.concepts, edges: meta.edges }).toEqual({
    concepts: stats.concepts,
    edges: stats.edges,
  });
}

describe('ingest pipeline: incremental concept graph', () => {
  it('after three batches and a removal, stores the graph a from-scratch build gives; a restart continues', async () => {
    const repo = new Repo(
      openDatabase(`graph-incremental-${n++}`, { indexedDB: new IDBFactory(), IDBKeyRange }),
    );
    let builds = 0;
    const counted = (corpus: Parameters<typeof buildEngine>[0]) => {
      builds += 1;
      return buildEngine(corpus);
    };
    const refresh = new IncrementalGraphRefresh(counted);
    const pipeline = pipelineOver(repo, refresh);
    for (const [i, text] of BATCHES.entries()) {
      await pipeline.enqueue([{ name: `batch-${i}.txt`, bytes: bytes(text) }]);
      await pipeline.ensureRunning();
    }
    // No refresh built an engine: the first, over no state, added every chunk to an empty graph (one analysis).
    expect(builds).toBe(0);
    expect(await repo.getGraphState()).toBeDefined();
    await expectFreshEquivalent(repo, refresh);

    expect(await pipeline.removeDocuments(['d-gamma'])).toBe(1);
    await pipeline.ensureRunning();
    expect(builds).toBe(0);
    expect((await repo.getGraphState())!.docIds).not.toContain('d-gamma');
    await expectFreshEquivalent(repo, refresh);

    // A new pipeline (a reload, another tab) over the same database: no full build, the same graph.
    let rebuilt = 0;
    const again = new IncrementalGraphRefresh((corpus) => {
      rebuilt += 1;
      return buildEngine(corpus);
    });
    const restarted = pipelineOver(repo, again);
    await restarted.enqueue([
      {
        name: 'late.txt',
        bytes: bytes('eta: Prague is the capital of Czechia. The Vltava flows through Prague.'),
      },
    ]);
    await restarted.ensureRunning();
    expect(rebuilt).toBe(0);
    await expectFreshEquivalent(repo, again);
  });

  it('after release (the ingest service’s, at the end of each drain) continues from the stored state', async () => {
    const repo = new Repo(
      openDatabase(`graph-incremental-${n++}`, { indexedDB: new IDBFactory(), IDBKeyRange }),
    );
    let builds = 0;
    const refresh = new IncrementalGraphRefresh((corpus) => {
      builds += 1;
      return buildEngine(corpus);
    });
    const pipeline = pipelineOver(repo, refresh);
    await pipeline.enqueue([{ name: 'a.txt', bytes: bytes(`${BATCHES[0]}\n${BATCHES[1]}`) }]);
    await pipeline.ensureRunning();
    refresh.release();
    expect(refresh.lastSnapshot).toBeNull();
    // One document more (under the quarter that makes a restored state stale): no full build.
    await pipeline.enqueue([
      {
        name: 'late.txt',
        bytes: bytes('eta: Prague is the capital of Czechia. The Vltava flows through Prague.'),
      },
    ]);
    await pipeline.ensureRunning();
    expect(builds).toBe(0);
    await expectFreshEquivalent(repo, refresh);
  });

  it('lexical only: refreshes from the new chunks alone (no whole-library read) to the graph a fresh build gives', async () => {
    const repo = new Repo(
      openDatabase(`graph-incremental-${n++}`, { indexedDB: new IDBFactory(), IDBKeyRange }),
    );
    await repo.setSetting('sentenceVectors', false);
    let builds = 0;
    const refresh = new IncrementalGraphRefresh((corpus) => {
      builds += 1;
      return buildEngine(corpus);
    });
    const pipeline = pipelineOver(repo, refresh);
    // Counts the refreshes' whole-library reads (none: the first refresh, over no state, reads the chunks as new).
    let wholeReads = 0;
    const loadCorpus = repo.loadCorpus.bind(repo);
    repo.loadCorpus = (...args) => {
      wholeReads += 1;
      return loadCorpus(...args);
    };
    for (const [i, text] of BATCHES.entries()) {
      await pipeline.enqueue([{ name: `batch-${i}.txt`, bytes: bytes(text) }]);
      await pipeline.ensureRunning();
    }
    expect(await repo.hasVectors()).toBe(false);
    expect({ builds, wholeReads }).toEqual({ builds: 0, wholeReads: 0 });
    await expectFreshEquivalent(repo, refresh);

    expect(await pipeline.removeDocuments(['d-gamma'])).toBe(1);
    await pipeline.ensureRunning();
    wholeReads = 0;
    await expectFreshEquivalent(repo, refresh);

    // A restart continues from the stored state, reading only the new document's chunks.
    const again = new IncrementalGraphRefresh((corpus) => {
      builds += 1;
      return buildEngine(corpus);
    });
    const restarted = pipelineOver(repo, again);
    await restarted.enqueue([
      {
        name: 'late.txt',
        bytes: bytes('eta: Prague is the capital of Czechia. The Vltava flows through Prague.'),
      },
    ]);
    wholeReads = 0;
    await restarted.ensureRunning();
    expect({ builds, wholeReads }).toEqual({ builds: 0, wholeReads: 0 });
    await expectFreshEquivalent(repo, again);
  });

  it('builds from scratch when the stored state was made with other parameters', async () => {
    const repo = new Repo(
      openDatabase(`graph-incremental-${n++}`, { indexedDB: new IDBFactory(), IDBKeyRange }),
    );
    const pipeline = pipelineOver(repo, new IncrementalGraphRefresh());
    await pipeline.enqueue([{ name: 'a.txt', bytes: bytes(BATCHES[0]) }]);
    await pipeline.ensureRunning();
    const state = (await repo.getGraphState())!;
    await repo.putGraphState({ ...state, options: { ...state.options, maxDfFraction: 0.5 } });
    let builds = 0;
    const refresh = new IncrementalGraphRefresh((corpus) => {
      builds += 1;
      return buildEngine(corpus);
    });
    const other = pipelineOver(repo, refresh);
    await other.enqueue([{ name: 'b.txt', bytes: bytes(BATCHES[1]) }]);
    await other.ensureRunning();
    expect(builds).toBe(1);
    await expectFreshEquivalent(repo, refresh);
  });
});
