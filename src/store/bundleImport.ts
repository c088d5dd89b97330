// Imports a bundle into the library in IndexedDB, or opens one read-only from a URL.
// Everything is validated first (bytes, digests, manifest, embedder, cross-layer consistency) with nothing
// written; then the whole import is ONE read-write transaction, so a refused or failed import leaves the store
// exactly as it was.
import {
  BundleError,
  readIndexBundle,
  snapshotCounts,
  type BundleHead,
  type ByteInput,
  type EmbedderInfo,
  type IndexSnapshot,
  type PartEntry,
} from '../core/bundle/index.ts';
import {
  kgChunkIds,
  layerRecordKey,
  layerRecordsToMerge,
  layerStateTable,
  mergeDocuments,
  mergedGraph,
  mergeLayerRecord,
  type MergeBase,
} from '../core/bundle/index.ts';
import {
  compactGraph,
  conceptTableGraph,
  isCompactGraph,
  isConceptTableGraph,
  type CompactGraph,
  type ConceptTableGraph,
} from '../core/graph/index.ts';
import type { SerializedGraph } from '../core/graph/index.ts';
import { DEFAULT_INDEX_PARAMS, type IndexParams, type ProgressCallback } from '../core/types.ts';
import { LAYER_TABLES } from './bundleExport.ts';
import { SCHEMA_VERSION, type ConceptDb, type IndexMeta, type VectorRecord } from './db.ts';
import { EMPTY_TALLY, talliedAfter } from './indexMeta.ts';
import type { LoadedCorpus } from './libraryRepo.ts';
import { loadedChunk, vectorRecord as storedVectors, withoutText } from './storedForm.ts';

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

async function libraryEmbedder(db: ConceptDb): Promise<EmbedderInfo | null> {
  const meta = await db.meta.get('index');
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

function vectorRecord(docId: string, embedder: EmbedderInfo, v: Float32Array): VectorRecord {
  return storedVectors(docId, embedder.id, embedder.dimension, v);
}

/**
 * The graph as the store keeps it (see Repo.putGraph): a compact graph or a concept table as is, a full one with
 * a semantic layer as its keep-mask, a lexical-only one as its concept table.
 */
function storedGraph(graph: Record<string, unknown>): CompactGraph | ConceptTableGraph | undefined {
  if (isCompactGraph(graph) || isConceptTableGraph(graph)) return graph;
  const full = graph as unknown as SerializedGraph;
  try {
    return full.semantic ? compactGraph(full) : conceptTableGraph(full);
  } catch {
    return undefined;
  }
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
  const snapshot = await readIndexBundle(input, await libraryEmbedder(db), {
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
    const current = meta?.embedderId ? { id: meta.embedderId, dimension: meta.dimension } : null;
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
      ).map((c) => loadedChunk(c, found.get(c.docId)?.text));
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
        records.push(vectorRecord(docId, embedder, v));
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
    if (kept) {
      await db.graph.put({ id: 'concept', builtAt: Date.now(), graph: kept });
    } else if (graphStale) {
      await db.graph.delete('concept');
    }
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

export interface ReadOnlyBundle {
  corpus: LoadedCorpus;
  /** The bundle's other layers (the KG: kgEntities, kgRelations, kgChunks), records as the store keeps them. */
  tables: Record<string, unknown[]>;
  counts: Record<string, number>;
  embedder: EmbedderInfo | null;
  /** Where the bundle came from (resolved, same-origin). */
  url: string;
}

/**
 * Opens a bundle from `?bundle=<path or URL>` read-only: nothing is written to IndexedDB. Only the app's own
 * origin is allowed, so a link cannot make the app fetch from elsewhere.
 */
/** Bytes of a bundle downloaded so far, and its size when the server states it (else null). */
export type DownloadProgress = (received: number, total: number | null) => void;

/**
 * Asked, before a bundle opened whole is read past its documents' header, whether the library it holds fits this
 * tab: the page answers from its memory model (src/ui/state/bundleFit.ts) with the message to show, or null.
 */
export type WholeBundleFit = (library: {
  /** The documents' text (the decoded size of documents.jsonl). */
  textBytes: number;
  /** Whether it carries sentence vectors. */
  vectors: boolean;
}) => Promise<string | null> | string | null;

/** The body as it arrives, with each piece counted (the Library view shows "3.1 of 9.5 MB"). */
/**
 * The body's size, when the server states it for the bytes we read (not for a compressed transfer): every length the
 * bundle declares is then checked against it before anything is allocated.
 */
export function statedLength(response: Response): number | undefined {
  const length = Number(response.headers.get('content-length') ?? NaN);
  const plain = !response.headers.get('content-encoding');
  return plain && Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/** The body, its bytes so far told to `onProgress` as they pass. */
export function counted(
  body: ReadableStream<Uint8Array>,
  total: number | null,
  onProgress: DownloadProgress,
): ReadableStream<Uint8Array> {
  let received = 0;
  onProgress(0, total);
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received += chunk.byteLength;
        onProgress(received, total);
        controller.enqueue(chunk);
      },
    }),
  );
}

/** A ?bundle= path or URL resolved against the app's origin; anything on another origin is refused. */
export function sameOriginBundleUrl(url: string, origin: string): URL {
  let resolved: URL;
  try {
    resolved = new URL(url, origin || undefined);
  } catch {
    throw new Error(`open bundle: "${url}" is not a valid path or URL`);
  }
  if (resolved.origin !== origin) {
    throw new Error(
      `open bundle: ${resolved.href} is not on this site (${origin}); only same-origin bundles open`,
    );
  }
  return resolved;
}

/**
 * Refuses an answer that came from another origin than the bundle URL asked (a redirect the browser or Node
 * followed): only the app's own origin serves its bundles, so a same-origin link that answers 302 to a stranger's host
 * must not open that host's bundle under the link's name (nor have the service worker keep it). Checked on the URL the
 * response came from, for the range probe, every range read and every whole download.
 */
export function checkAnsweredFrom(requested: string, response: Response): void {
  if (response.type === 'opaqueredirect')
    throw new Error(`open bundle: ${requested} answered with a redirect; link the bundle's own address`);
  if (!response.url) return; // a response made in the page (a download kept in memory), not fetched
  const from = new URL(response.url).origin;
  if (from !== new URL(requested).origin) {
    void response.body?.cancel().catch(() => undefined);
    throw new Error(
      `open bundle: ${requested} redirected to ${from}, another origin; a bundle link is read from this app's ` +
        'origin only',
    );
  }
}

export async function openBundleReadOnly(
  url: string,
  origin: string = globalThis.location?.origin ?? '',
  fetcher: typeof fetch = fetch,
  onProgress?: DownloadProgress,
  fit?: WholeBundleFit,
): Promise<ReadOnlyBundle> {
  const resolved = sameOriginBundleUrl(url, origin);
  const response = await fetcher(resolved.href);
  checkAnsweredFrom(resolved.href, response);
  if (!response.ok || !response.body) {
    throw new Error(
      `open bundle: ${resolved.href} answered ${response.status} ${response.statusText}`.trim(),
    );
  }
  const totalBytes = statedLength(response);
  const body = onProgress ? counted(response.body, totalBytes ?? null, onProgress) : response.body;
  // The documents' header states their text before it is read: a library the tab cannot hold stops the download
  // there, with the page's reason, instead of filling the tab until it reloads.
  const onPart = async (entry: PartEntry, head: BundleHead): Promise<void> => {
    if (!fit || entry.name !== 'documents.jsonl') return;
    const refusal = await fit({ textBytes: entry.rawLength, vectors: head.embedder !== null });
    if (refusal) throw new Error(refusal);
  };
  const snapshot = await readIndexBundle(body, undefined, { totalBytes, onPart });
  return {
    corpus: snapshotToCorpus(snapshot),
    tables: snapshot.tables,
    counts: snapshotCounts(snapshot),
    embedder: snapshot.embedder,
    url: resolved.href,
  };
}
