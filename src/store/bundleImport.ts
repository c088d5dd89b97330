// Imports a bundle into the library in IndexedDB (opening one read-only from a URL is services/bundleBytes/bundleFetch.ts).
// Everything is validated first (bytes, digests, manifest, embedder, cross-layer consistency) with nothing
// written; then the whole import is ONE read-write transaction, so a refused or failed import leaves the store
// exactly as it was.
import { forgetThemes, storedGraph } from './graphRepo.ts';
import {
  BundleError,
  readIndexBundle,
  snapshotCounts,
  type ByteInput,
  type EmbedderInfo,
  type IndexSnapshot,
} from '../core/bundle/index.ts';
import {
  kgChunkIds,
  layerRecordKey,
  layerRecordsToMerge,
  layerStateTable,
  mergeDocuments,
  mergedGraph,
  mergeLayerRecord,
  withoutText,
  type MergeBase,
} from '../core/bundle/index.ts';
import { isCompactGraph, isConceptTableGraph } from '../core/graph/index.ts';
import type { SerializedGraph } from '../core/graph/index.ts';
import { DEFAULT_INDEX_PARAMS, type IndexParams, type ProgressCallback } from '../core/types.ts';
import { LAYER_TABLES } from './bundleExport.ts';
import { SCHEMA_VERSION, type ConceptDb, type IndexMeta, type VectorRecord } from './db.ts';
import { EMPTY_TALLY, talliedAfter } from './indexMeta.ts';
import type { LoadedCorpus } from './libraryRepo.ts';
import { vectorRecord, withText } from './storedForm.ts';

export interface ImportResult {
  /** 'new' when the library was empty, 'merge' when documents were added to an existing library. */
  mode: 'new' | 'merge';
  added: { documents: number; chunks: number; sentences: number; vectors: number };
  /** Documents of the bundle already in the library, or earlier in the bundle (same id or content), kept once. */
  skippedDocuments: number;
  /** True when the stored concept graph no longer matches the chunks and must be rebuilt (after a merge). */
  graphStale: boolean;
  /** Parts of layers this app version does not store (kept out, reported). */
  ignoredTables: string[];
}

/** The embedder a library's index record names, if any. */
function embedderOf(meta: IndexMeta | undefined): EmbedderInfo | null {
  return meta?.embedderId ? { id: meta.embedderId, dimension: meta.dimension } : null;
}

function indexParams(params: Record<string, unknown>): IndexParams {
  const max = params.maxChunkTokens;
  return typeof max === 'number' && max > 0
    ? { ...DEFAULT_INDEX_PARAMS, maxChunkTokens: max }
    : DEFAULT_INDEX_PARAMS;
}

function graphCounts(graph: Record<string, unknown> | undefined): { concepts: number; edges: number } {
  // A compact graph (keep-mask) is stored as is: the query worker expands it on load (workers/engineFactory.ts).
  if (isCompactGraph(graph)) return { concepts: graph.concepts, edges: graph.keptEdges };
  if (isConceptTableGraph(graph)) return { concepts: graph.concepts, edges: graph.edges };
  const terms = graph?.terms;
  const targets = graph?.edgeTargets;
  return {
    concepts: Array.isArray(terms) ? terms.length : 0,
    edges: targets instanceof Uint32Array ? targets.length / 2 : 0,
  };
}

export interface ImportOptions {
  /** Progress of the import: stage 'bundle', done/total in bytes while reading, then the write. */
  onProgress?: ProgressCallback;
  /**
   * Size of the input in bytes when known (a File's size): the progress total, and the reader refuses a part
   * that declares more bytes than the file has.
   */
  totalBytes?: number;
}

/**
 * Validates `input` completely, then writes it in one transaction: into an empty library as is, or merged into
 * a library built with the same embedder (documents already present are kept once). Throws BundleError (the
 * store untouched) for a truncated, corrupted, unknown-version, other-embedder or inconsistent bundle.
 */
export async function importBundle(
  db: ConceptDb,
  input: ByteInput,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const started = performance.now();
  let received = 0;
  const report = (done: number): void => {
    received = done;
    const total = Math.max(options.totalBytes ?? 0, done);
    const seconds = (performance.now() - started) / 1000;
    options.onProgress?.({ stage: 'bundle', done, total, rate: seconds > 0 ? done / seconds : 0 });
  };
  const snapshot = await readIndexBundle(input, embedderOf(await db.meta.get('index')), {
    onBytes: options.onProgress ? report : undefined,
    totalBytes: options.totalBytes,
  });
  const result = await writeSnapshot(db, snapshot);
  report(received);
  return result;
}

/**
 * Writes an already validated snapshot: into an empty library as is, else merged by the rule of
 * src/core/bundle/merge.ts (the one `cli index --into` uses). Exported for tests and for callers that read the
 * bundle elsewhere.
 */
export async function writeSnapshot(db: ConceptDb, snapshot: IndexSnapshot): Promise<ImportResult> {
  const layerTables = LAYER_TABLES.map((name) => db.table(name));
  const ignoredTables = Object.keys(snapshot.tables).filter(
    (name) => !(LAYER_TABLES as readonly string[]).includes(name),
  );
  const tables = [
    db.meta,
    db.documents,
    db.sections,
    db.chunks,
    db.sentences,
    db.vectors,
    db.graph,
    ...layerTables,
  ];
  return db.transaction('rw', tables, async (): Promise<ImportResult> => {
    const meta = await db.meta.get('index');
    // Checked again inside the transaction: an ingest may have set the embedder since the bundle was read.
    const current = embedderOf(meta);
    if (
      current &&
      snapshot.embedder &&
      (current.id !== snapshot.embedder.id || current.dimension !== snapshot.embedder.dimension)
    ) {
      throw new BundleError(
        'embedder-mismatch',
        `built with embedder ${snapshot.embedder.id} (dimension ${snapshot.embedder.dimension}) but this library uses ${current.id} (dimension ${current.dimension})`,
      );
    }
    const existingCount = await db.documents.count();
    const mode = existingCount === 0 ? 'new' : 'merge';
    // The base documents the merge rule must see (same id or content hash), with their chunks: two bulk look-ups,
    // not two awaits per document (with real IndexedDB the latter dominated the import time).
    const base: MergeBase = { documents: [], chunks: [], withVectors: new Set() };
    if (existingCount > 0) {
      const byId = await db.documents.bulkGet(snapshot.documents.map((d) => d.id));
      const byHash = await db.documents
        .where('hash')
        .anyOf(snapshot.documents.map((d) => d.hash))
        .toArray();
      const found = new Map([...byId, ...byHash].filter((d) => d !== undefined).map((d) => [d.id, d]));
      base.documents = [...found.values()];
      base.chunks = (
        await db.chunks
          .where('docId')
          .anyOf([...found.keys()])
          .toArray()
      ).map((c) => withText(c, found.get(c.docId)?.text));
      base.withVectors = new Set(
        (await db.vectors
          .where('docId')
          .anyOf([...found.keys()])
          .primaryKeys()) as string[],
      );
    }
    const merge = mergeDocuments(base, snapshot);
    const { documents, sections, chunks, sentences } = merge;
    await db.documents.bulkAdd(documents);
    await db.sections.bulkAdd(sections);
    const texts = new Map(documents.map((d) => [d.id, d.text]));
    // Stored form (src/store/storedForm.ts): text a slice of the document text gives back is not stored twice.
    await db.chunks.bulkAdd(chunks.map((c) => withoutText(c, texts.get(c.docId) ?? '')));
    await db.sentences.bulkAdd(sentences.map((x) => withoutText(x, texts.get(x.docId) ?? '')));
    let vectorRows = 0;
    const embedder = snapshot.embedder;
    if (embedder) {
      const records: VectorRecord[] = [];
      for (const [docId, v] of merge.vectors) {
        records.push(vectorRecord(docId, embedder.id, embedder.dimension, v));
        vectorRows += v.length / embedder.dimension;
      }
      await db.vectors.bulkAdd(records);
    }

    // The KG already built for any chunk the bundle's KG would land on: that chunk keeps its own extraction.
    const landing = [...new Set(merge.chunkIds.values())];
    const baseStates = {
      kgChunks: kgChunkIds((await db.kgChunks.bulkGet(landing)).filter((r) => r !== undefined)),
      // Likewise for the atomic layer: a chunk the library has atomized keeps its own questions.
      atomicChunks: kgChunkIds((await db.atomicChunks.bulkGet(landing)).filter((r) => r !== undefined)),
    };
    for (const t of layerTables) {
      const incoming = layerRecordsToMerge(
        t.name,
        snapshot.tables[t.name] ?? [],
        merge,
        baseStates[layerStateTable(t.name)],
      );
      const keys = incoming.map((r) => layerRecordKey(t.name, r));
      const existing = (await t.bulkGet(keys)) as unknown[];
      const writes = incoming
        .map((r, i) => mergeLayerRecord(t.name, existing[i], r))
        .filter((r) => r !== undefined);
      await t.bulkPut(writes);
    }

    // The stored graph is not read (it can be ~150 MB): the rule keeps it only when nothing is added, and then
    // nothing is written here.
    const { graph, stale: graphStale } = mergedGraph(existingCount, merge, undefined, snapshot.graph);
    const keepGraph = mode === 'new' && graph !== undefined;
    const kept = keepGraph ? storedGraph(graph) : undefined;
    const builtAt = Date.now();
    if (kept) {
      await db.graph.put({ id: 'concept', builtAt, graph: kept });
    } else if (graphStale) {
      await db.graph.delete('concept');
    }
    // The themes stored were computed from the graph before: the next refresh computes them again.
    if (kept || graphStale) await forgetThemes(db);
    const counts = keepGraph
      ? graphCounts(graph)
      : { concepts: meta?.concepts ?? 0, edges: meta?.edges ?? 0 };
    const semantic =
      embedder !== null &&
      (mode === 'new' ? vectorRows === sentences.length : (meta?.layers.semantic ?? false));
    const nextMeta: IndexMeta = {
      key: 'index',
      embedderId: current?.id ?? embedder?.id ?? null,
      dimension: current?.dimension ?? embedder?.dimension ?? 0,
      params: meta?.params ?? indexParams(snapshot.params),
      schemaVersion: SCHEMA_VERSION,
      layers: { lexical: true, semantic },
      vectorRows: (meta?.vectorRows ?? 0) + vectorRows,
      concepts: graphStale ? 0 : counts.concepts,
      edges: graphStale ? 0 : counts.edges,
    };
    // The graph record's builtAt (IndexMeta.graphBuiltAt): the one written here, or the one kept as it was.
    const graphBuiltAt = kept ? builtAt : graphStale ? undefined : meta?.graphBuiltAt;
    if (graphBuiltAt !== undefined) nextMeta.graphBuiltAt = graphBuiltAt;
    // The tally (IndexMeta), from the library's own when it has one: what this import added, on top.
    const tally = talliedAfter(mode === 'new' ? EMPTY_TALLY : meta?.sentenceTally, {
      documents: documents.length,
      sentences: sentences.length,
      chunks: chunks.length,
    });
    if (tally) nextMeta.sentenceTally = tally;
    if (merge.fresh.size > 0 || !meta) await db.meta.put(nextMeta);
    return {
      mode,
      added: {
        documents: documents.length,
        chunks: chunks.length,
        sentences: sentences.length,
        vectors: vectorRows,
      },
      skippedDocuments: merge.skipped,
      graphStale,
      ignoredTables,
    };
  });
}

/** The corpus shape the query worker's engine factory takes, straight from a bundle (no IndexedDB involved). */
export function snapshotToCorpus(snapshot: IndexSnapshot): LoadedCorpus {
  const byId = <T extends { id: string }>(a: T, b: T): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const { concepts, edges } = graphCounts(snapshot.graph);
  const rows = snapshotCounts(snapshot).vectors;
  return {
    meta: {
      key: 'index',
      embedderId: snapshot.embedder?.id ?? null,
      dimension: snapshot.embedder?.dimension ?? 0,
      params: indexParams(snapshot.params),
      schemaVersion: SCHEMA_VERSION,
      layers: { lexical: true, semantic: snapshot.embedder !== null && rows === snapshot.sentences.length },
      vectorRows: rows,
      concepts,
      edges,
    },
    // IndexedDB returns records in primary-key order; the same order here gives the engine identical input.
    documents: [...snapshot.documents].sort(byId),
    sections: [...snapshot.sections].sort(byId),
    chunks: [...snapshot.chunks].sort(byId),
    sentences: [...snapshot.sentences].sort(byId),
    vectors: snapshot.vectors,
    graph: snapshot.graph
      ? { id: 'concept', builtAt: 0, graph: snapshot.graph as unknown as SerializedGraph }
      : undefined,
  };
}
