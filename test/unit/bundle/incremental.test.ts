// Incremental indexing: add A, B, C, remove B must equal a fresh build of A and C — every stored record, the
// counts, the KG items only B supported gone, and the concept graph and rankings rebuilt from the store.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { isCompactGraph } from '../../../src/core/graph/compactGraph.ts';
import { openDatabase, type ConceptDb } from '../../../src/store/db.ts';
import { DexieKgStore } from '../../../src/store/kgStore.ts';
import { Repo } from '../../../src/store/repo.ts';
import { buildEngine } from '../../../src/services/library/engine.ts';
import { DOCS, EMBEDDER, fakeVector, prepared, type FixtureDoc } from './fixtures.ts';
import { putPreparedDocument } from '../../support/putOneDocument.ts';

let n = 0;
async function store(docs: FixtureDoc[]): Promise<{ db: ConceptDb; repo: Repo }> {
  const db = openDatabase(`incremental-${n++}`, { indexedDB: new IDBFactory(), IDBKeyRange });
  const repo = new Repo(db);
  for (const d of docs) {
    const p = prepared(d);
    await putPreparedDocument(
      repo,
      { doc: p.doc, sections: p.sections, chunks: p.chunks, sentences: p.sentences },
      p.vectors,
      EMBEDDER.id,
    );
    // One KG entity per document, plus one shared by every document (it must survive B's removal).
    const chunkId = p.chunks[0].id;
    await db.kgEntities.put({
      id: `e:${d.title.toLowerCase()}`,
      name: d.title,
      type: 'topic',
      description: d.title,
      chunkIds: [chunkId],
      vector: fakeVector(d.title).buffer as ArrayBuffer,
    });
    const shared = await db.kgEntities.get('e:lothair');
    await db.kgEntities.put({
      id: 'e:lothair',
      name: 'Lothair',
      type: 'person',
      description: 'a king',
      chunkIds: [...(shared?.chunkIds ?? []), chunkId],
    });
    await db.kgChunks.put({
      chunkId,
      status: 'done',
      entityIds: [`e:${d.title.toLowerCase()}`],
      relationIds: [],
    });
  }
  await rebuild(repo);
  return { db, repo };
}

async function rebuild(repo: Repo): Promise<void> {
  const engine = buildEngine(await repo.loadCorpus());
  const stats = engine.stats();
  await repo.putGraph(engine.exportGraph(), { concepts: stats.concepts, edges: stats.edges });
}

async function contents(db: ConceptDb): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of ['documents', 'sections', 'chunks', 'sentences', 'vectors', 'kgChunks']) {
    out[name] = await db.table(name).toArray();
  }
  // The KG as its readers see it: a removal rewrites the records it trims in the KG store's own form.
  const kg = new DexieKgStore(db);
  out.kgEntities = await kg.entities();
  out.kgRelations = await kg.relations();
  // When the graph was last written is a timestamp, not content: a removal drops it until the next refresh.
  const { graphBuiltAt: _written, ...meta } = (await db.meta.get('index')) ?? {};
  out.meta = meta;
  return out;
}

describe('incremental indexing', () => {
  it('add A, B, C then remove B equals a fresh build of A and C', async () => {
    const [a, b, c] = DOCS;
    const incremental = await store([a, b, c]);
    expect(await incremental.repo.removeDocument(b.id)).toBe(true);
    await rebuild(incremental.repo);
    const fresh = await store([a, c]);

    const got = await contents(incremental.db);
    const want = await contents(fresh.db);
    // The shared entity lists its chunks in insertion order; compare as sets.
    const norm = (x: Record<string, unknown>): Record<string, unknown> => ({
      ...x,
      kgEntities: (x.kgEntities as Array<{ chunkIds: string[] }>).map((e) => ({
        ...e,
        chunkIds: [...e.chunkIds].sort(),
      })),
    });
    expect(norm(got)).toEqual(norm(want));
    expect((got.kgEntities as Array<{ id: string }>).map((e) => e.id).sort()).toEqual([
      'e:lothair',
      'e:port of spain',
    ]);

    // The store keeps the graph as its θsem keep-mask (schema v2): the same mask for the same chunks.
    const g1 = (await incremental.db.graph.get('concept'))!.graph;
    const g2 = (await fresh.db.graph.get('concept'))!.graph;
    if (!isCompactGraph(g1) || !isCompactGraph(g2)) throw new Error('expected compact stored graphs');
    expect(g1.chunkIds).toEqual(g2.chunkIds);
    expect([g1.concepts, g1.edges, g1.keptEdges]).toEqual([g2.concepts, g2.edges, g2.keptEdges]);
    expect(Array.from(g1.keepMask)).toEqual(Array.from(g2.keepMask));
    const l1 = buildEngine(await incremental.repo.loadCorpus()).exportGraph();
    const l2 = buildEngine(await fresh.repo.loadCorpus()).exportGraph();
    expect(l1.terms).toEqual(l2.terms);
    expect(Array.from(l1.edgeTargets)).toEqual(Array.from(l2.edgeTargets));
    const w2 = Array.from(l2.edgeWeights);
    Array.from(l1.edgeWeights).forEach((w, i) => expect(w).toBeCloseTo(w2[i], 9));

    const e1 = buildEngine(await incremental.repo.loadCorpus());
    const e2 = buildEngine(await fresh.repo.loadCorpus());
    expect(e1.stats()).toEqual(e2.stats());
    // A real graph, not two empty ones: the fixtures share terms ("lothair", "capital", …).
    expect(e1.stats().concepts).toBeGreaterThan(10);
    expect(e1.stats().cooccurrenceEdges).toBeGreaterThan(10);
    for (const mode of ['ppr', 'bm25', 'dense']) {
      const q = { text: 'Who was the capital of Trinidad?', vector: fakeVector('capital of Trinidad') };
      const r1 = e1.search(q, mode, 1000);
      const r2 = e2.search(q, mode, 1000);
      expect(
        r1.map((r) => r.chunkId),
        mode,
      ).toEqual(r2.map((r) => r.chunkId));
      r1.forEach((r, i) => expect(r.score).toBeCloseTo(r2[i].score, 6));
    }
  });
});
