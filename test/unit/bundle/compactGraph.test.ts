// The compact concept graph (θsem keep-mask) that bundles carry by default: written in place of the full graph,
// validated on read, and expanded on load into the same walk graph and rankings as a fresh build.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import {
  bundleBytes,
  readBundle,
  readIndexBundle,
  writeSnapshotBundle,
} from '../../../src/core/bundle/index.ts';
import {
  compactGraph,
  compactGraphMismatch,
  isCompactGraph,
  maskedGraphIndex,
  type CompactGraph,
} from '../../../src/core/graph/compactGraph.ts';
import { lexicalLayers } from '../../../src/core/graph/conceptGraph.ts';
import { resolveParams } from '../../../src/core/retrieval/params.ts';
import type { RetrievalEngine } from '../../../src/core/retrieval/engine.ts';
import { exportLibraryBlob } from '../../../src/store/bundleExport.ts';
import { importBundle, snapshotToCorpus } from '../../../src/store/bundleImport.ts';
import { openDatabase } from '../../../src/store/db.ts';
import { Repo } from '../../../src/store/repo.ts';
import { buildEngine, loadEngine } from '../../../src/services/library/engine.ts';
import { DIM, DOCS, EMBEDDER, fakeVector, prepared, snapshotOf } from './fixtures.ts';
import { putPreparedDocument } from '../../support/putOneDocument.ts';

const QUESTION = 'Who was the mother of Lothair II?';

function ranking(engine: RetrievalEngine, mode: string): string[] {
  return engine
    .search({ text: QUESTION, vector: fakeVector(QUESTION) }, mode, 100_000)
    .map((h) => `${h.chunkId} ${h.score}`);
}

async function roundTrip(graph: 'compact' | 'full' | undefined) {
  const snapshot = snapshotOf();
  const fresh = buildEngine(snapshotToCorpus(snapshot));
  const withGraph = { ...snapshot, graph: fresh.exportGraph() as unknown as Record<string, unknown> };
  const bytes = await bundleBytes(
    writeSnapshotBundle(withGraph, { appVersion: '0.1.0', vectors: 'f32', graph }),
  );
  return { fresh, back: await readIndexBundle(bytes, EMBEDDER), bytes };
}

describe('compact concept graph in bundles', () => {
  it('is what a bundle carries by default, and loads into the fresh graph and the same rankings', async () => {
    const { fresh, back } = await roundTrip(undefined);
    const stats = fresh.stats();
    // A real filter: θsem drops some co-occurrence edges and keeps others.
    expect(stats.edges).toBeGreaterThan(0);
    expect(stats.edges).toBeLessThan(stats.cooccurrenceEdges);
    expect(isCompactGraph(back.graph)).toBe(true);
    const compact = back.graph as unknown as CompactGraph;
    expect(compact.keepMask.length).toBe(Math.ceil(stats.cooccurrenceEdges / 8));
    expect(compact).toMatchObject({
      concepts: stats.concepts,
      edges: stats.cooccurrenceEdges,
      dimension: DIM,
    });
    expect(compact.keptEdges).toBe(stats.edges);
    expect(back.graph).not.toHaveProperty('edgeTargets');

    const loaded = loadEngine(snapshotToCorpus(back));
    expect(loaded.stats()).toEqual(stats);
    expect(Array.from(loaded.graph.graph.targets)).toEqual(Array.from(fresh.graph.graph.targets));
    expect(Array.from(loaded.graph.semantic!.conceptVectors)).toEqual(
      Array.from(fresh.graph.semantic!.conceptVectors),
    );
    for (const mode of ['ppr', 'concept', 'dense', 'bm25']) {
      expect(ranking(loaded, mode)).toEqual(ranking(fresh, mode));
    }
    // Another θsem than the mask's: the cosines are computed after all, as a fresh engine would.
    expect(ranking(loaded.withParams({ thetaSem: 0.2 }), 'ppr')).toEqual(
      ranking(fresh.withParams({ thetaSem: 0.2 }), 'ppr'),
    );
  });

  it("keeps the whole graph with graph: 'full'", async () => {
    const { fresh, back } = await roundTrip('full');
    expect(back.graph?.format).toBe('conceptrag-graph');
    expect(Array.from(back.graph?.edgeTargets as Uint32Array)).toEqual(
      Array.from(fresh.graph.cooccurrence.targets),
    );
  });

  it('is not applied to other chunks, options, dimension or counts, with the reason', () => {
    const two = snapshotOf(DOCS.slice(0, 2));
    const compact = compactGraph(buildEngine(snapshotToCorpus(two)).exportGraph())!;
    // Loading a library of three documents with the mask of two: a fresh build, not a wrong graph.
    const three = snapshotToCorpus(snapshotOf());
    const loaded = loadEngine({ ...three, graph: { id: 'concept', builtAt: 0, graph: compact as never } });
    expect(ranking(loaded, 'ppr')).toEqual(ranking(buildEngine(three), 'ppr'));

    const fresh = buildEngine(snapshotToCorpus(two));
    const g = fresh.graph;
    const input = { chunkIds: g.chunkIds, options: resolveParams(), dimension: DIM };
    // The refusals an opening library meets (RetrievalEngine.fromCompact), each with its reason.
    const why = (c: CompactGraph, i = input) => compactGraphMismatch(c, i.chunkIds, i.options, i.dimension);
    expect(why(compact, { ...input, chunkIds: ['x#0000#0000'] })).toBe(
      'it was built for another set of chunks',
    );
    expect(why(compact, { ...input, options: resolveParams({ thetaCo: 2 }) })).toContain(
      'option thetaCo is 2, the mask was made with 1',
    );
    expect(why(compact, { ...input, options: resolveParams({ phrases: !input.options.phrases }) })).toContain(
      'option phrases is',
    );
    expect(why(compact, { ...input, dimension: 4 })).toBe(
      `vectors have dimension 4, the mask was made with ${DIM}`,
    );
    expect(why({ ...compact, keepMask: new Uint8Array(1) })).toContain(
      `keepMask has 1 bytes for ${compact.edges} edges`,
    );
    // Empty term lists rebuild a graph of 0 concepts: not the one the mask indexes.
    const empty = lexicalLayers(
      g.chunkIds,
      g.chunkIds.map(() => []),
      input.options,
    );
    expect(() => maskedGraphIndex(compact, empty, new Float32Array(0))).toThrow(
      `compact graph: cannot apply the keep-mask: the rebuilt graph has 0 concepts and 0 edges, the mask ${compact.concepts} and ${compact.edges}`,
    );
  });

  it('refuses a bundle whose compact graph is damaged', async () => {
    const snapshot = snapshotOf();
    const compact = compactGraph(buildEngine(snapshotToCorpus(snapshot)).exportGraph())!;
    for (const [graph, reason] of [
      [{ ...compact, keepMask: new Uint8Array(compact.keepMask.length + 1) }, 'keepMask has'],
      [{ ...compact, dimension: DIM * 2 }, `made with vectors of dimension ${DIM * 2}`],
    ] as const) {
      const bytes = await bundleBytes(
        writeSnapshotBundle(
          { ...snapshot, graph: graph as unknown as Record<string, unknown> },
          {
            appVersion: '0.1.0',
          },
        ),
      );
      await expect(readIndexBundle(bytes, EMBEDDER)).rejects.toThrow(reason);
    }
  });

  it('goes from a library export to an import as is: not stale, counted, and ranking as the source', async () => {
    let n = 0;
    const db = () => openDatabase(`compact-graph-${n++}`, { indexedDB: new IDBFactory(), IDBKeyRange });
    const source = db();
    const repo = new Repo(source);
    for (const d of DOCS) {
      const p = prepared(d);
      await putPreparedDocument(
        repo,
        { doc: p.doc, sections: p.sections, chunks: p.chunks, sentences: p.sentences },
        p.vectors,
        EMBEDDER.id,
      );
    }
    const engine = buildEngine(await repo.loadCorpus());
    const stats = engine.stats();
    await repo.putGraph(engine.exportGraph(), { concepts: stats.concepts, edges: stats.edges });
    const blob = await exportLibraryBlob(source, { appVersion: '0.1.0', vectors: 'f32' });
    // The bundle counts the edges the library counts (the walk's, θsem-kept), not its co-occurrence edges: the
    // read-only view of the bundle shows these (issue 44: 468,708 for a library of 414,406).
    expect(stats.edges).toBeLessThan(stats.cooccurrenceEdges);
    const { manifest } = await readBundle(new Uint8Array(await blob.arrayBuffer()));
    expect(manifest.counts).toMatchObject({ concepts: stats.concepts, edges: stats.edges });

    const target = db();
    const result = await importBundle(target, new Uint8Array(await blob.arrayBuffer()));
    expect(result.graphStale).toBe(false);
    expect(isCompactGraph((await target.graph.get('concept'))?.graph)).toBe(true);
    expect(await target.meta.get('index')).toMatchObject({ concepts: stats.concepts, edges: stats.edges });
    const imported = loadEngine(await new Repo(target).loadCorpus());
    expect(imported.stats()).toEqual(stats);
    // The same chunks in the same order; scores equal up to the int8 store's re-quantization (≈1e-8).
    for (const mode of ['ppr', 'concept']) {
      const got = ranking(imported, mode).map((r) => r.split(' '));
      const want = ranking(engine, mode).map((r) => r.split(' '));
      expect(got.map(([id]) => id)).toEqual(want.map(([id]) => id));
      got.forEach(([, score], i) => expect(Number(score)).toBeCloseTo(Number(want[i][1]), 6));
    }
  });
});
