// Opening a schema v1 database (written as v1 wrote it: chunk and sentence text stored, Float32 vectors, the whole
// serialized concept graph) with schema v2: the upgrade keeps every record readable as before, stores each thing
// once (no derivable text, int8 vectors, the graph as its keep-mask) and the engine loads the same library.
import Dexie from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { isCompactGraph } from '../../../src/core/graph/compactGraph.ts';
import type { SerializedGraph } from '../../../src/core/graph/conceptGraph.ts';
import { buildEngine, loadEngine } from '../../../src/services/library/engine.ts';
import { openDatabase, SCHEMA_V1, SCHEMA_V5, type IndexMeta } from '../../../src/store/db.ts';
import { Repo, type LoadedCorpus } from '../../../src/store/repo.ts';
import { DOCS, EMBEDDER, fakeVector, prepared } from '../bundle/fixtures.ts';

const parts = DOCS.map(prepared);

/** The fixture library as a v1 page held it in memory. */
function v1Corpus(): LoadedCorpus {
  const meta: IndexMeta = {
    key: 'index',
    embedderId: EMBEDDER.id,
    dimension: EMBEDDER.dimension,
    params: { maxChunkTokens: 1200 },
    schemaVersion: 1,
    layers: { lexical: true, semantic: true },
    vectorRows: parts.reduce((n, p) => n + p.sentences.length, 0),
    concepts: 0,
    edges: 0,
  };
  return {
    meta,
    documents: parts.map((p) => p.doc),
    sections: parts.flatMap((p) => p.sections),
    chunks: parts.flatMap((p) => p.chunks),
    sentences: parts.flatMap((p) => p.sentences),
    vectors: new Map(parts.map((p) => [p.doc.id, p.vectors])),
    graph: undefined,
  };
}

/** Writes a database exactly as schema v1 did (its own Dexie declaration, records in v1 form). */
async function writeV1(
  deps: { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange },
  graph?: SerializedGraph,
) {
  const v1 = new Dexie('upgrade', deps);
  v1.version(1).stores(SCHEMA_V1);
  const corpus = v1Corpus();
  await v1.table('meta').put(corpus.meta);
  await v1.table('documents').bulkAdd(corpus.documents);
  await v1.table('sections').bulkAdd(corpus.sections);
  await v1.table('chunks').bulkAdd(corpus.chunks);
  await v1.table('sentences').bulkAdd(corpus.sentences);
  await v1.table('vectors').bulkAdd(
    parts.map((p) => ({
      docId: p.doc.id,
      embedderId: EMBEDDER.id,
      dimension: EMBEDDER.dimension,
      count: p.sentences.length,
      data: p.vectors.slice().buffer,
    })),
  );
  if (graph) await v1.table('graph').put({ id: 'concept', builtAt: 1, graph });
  await v1.table('settings').put({ key: 'embedder', value: { spec: 'use' } });
  await v1.table('pending').add({
    id: 'p1',
    name: 'later.txt',
    size: 2,
    bytes: new Uint8Array([104, 105]).buffer,
    addedAt: 1,
    status: 'queued',
  });
  v1.close();
}

const ranking = (corpus: LoadedCorpus, engineOf: typeof loadEngine) => {
  const engine = engineOf(corpus);
  const question = 'Who was the mother of Lothair II?';
  return engine
    .search({ text: question, vector: fakeVector(question) }, 'ppr', 100_000)
    .map((h) => `${h.chunkId} ${h.score}`);
};

describe('schema v1 → v2', () => {
  it('upgrades a v1 library in place: same records read back, each thing stored once, same rankings', async () => {
    const deps = { indexedDB: new IDBFactory(), IDBKeyRange };
    const fullGraph = buildEngine(v1Corpus()).exportGraph();
    expect(fullGraph.semantic?.conceptVectors.length).toBeGreaterThan(0);
    await writeV1(deps, fullGraph);

    const db = openDatabase('upgrade', deps);
    await db.open();
    // Versions 3 (the atomic layer), 4 (the library's pages) and 5 (the queue's bytes apart) follow at once: new
    // tables only.
    expect(db.verno).toBe(5);
    const stores = Object.fromEntries(
      db.tables.map((t) => [
        t.name,
        [t.schema.primKey.src, ...t.schema.indexes.map((i) => i.src)].join(', '),
      ]),
    );
    expect(stores).toEqual(SCHEMA_V5);

    // Stored once: text only in the documents, int8 codes plus a scale per row, the graph as its keep-mask.
    expect((await db.chunks.toArray()).every((c) => c.text === undefined)).toBe(true);
    expect((await db.sentences.toArray()).every((s) => s.text === undefined)).toBe(true);
    for (const v of await db.vectors.toArray()) {
      expect(v.encoding).toBe('i8');
      expect(v.data.byteLength).toBe(v.count * (4 + EMBEDDER.dimension));
    }
    const graph = (await db.graph.get('concept'))?.graph;
    expect(isCompactGraph(graph)).toBe(true);
    expect((await db.meta.get('index'))?.schemaVersion).toBe(2);

    // Read back whole, as v1 consumers saw it.
    const repo = new Repo(db);
    const loaded = await repo.loadCorpus();
    const before = v1Corpus();
    expect(loaded.documents).toEqual(before.documents);
    expect(loaded.sections).toEqual(before.sections);
    expect(loaded.chunks).toEqual(before.chunks);
    expect(loaded.sentences).toEqual(before.sentences);
    for (const [docId, v] of before.vectors) {
      const w = loaded.vectors.get(docId)!;
      for (let r = 0; r < v.length / EMBEDDER.dimension; r++) {
        let dot = 0;
        for (let i = 0; i < EMBEDDER.dimension; i++) dot += v[r * 8 + i] * w[r * 8 + i];
        expect(dot).toBeGreaterThan(0.999);
      }
    }
    // The engine loaded from the upgraded store is the one the v1 graph gave.
    expect(loadEngine(loaded).stats()).toEqual(buildEngine(before).stats());
    const got = ranking(loaded, loadEngine).map((r) => r.split(' ')[0]);
    expect(got).toEqual(ranking(before, (c) => buildEngine(c)).map((r) => r.split(' ')[0]));
    expect(got.length).toBeGreaterThan(0);

    // Settings and the queue are untouched.
    expect(await repo.getSetting('embedder')).toEqual({ spec: 'use' });
    expect(await repo.waitingIds()).toEqual(['p1']);
    expect(await repo.counts()).toMatchObject({ documents: 3, vectors: 7, embeddedDocuments: 3 });
    db.close();
  });

  it('drops a lexical-only v1 graph (rebuilt from the text on load) and keeps its counts', async () => {
    const deps = { indexedDB: new IDBFactory(), IDBKeyRange };
    const lexical = buildEngine({ ...v1Corpus(), vectors: new Map(), meta: undefined }).exportGraph();
    expect(lexical.semantic).toBeUndefined();
    await writeV1(deps, lexical);
    const db = openDatabase('upgrade', deps);
    expect(await db.graph.count()).toBe(0);
    expect(await db.documents.count()).toBe(3);
    db.close();
  });
});
