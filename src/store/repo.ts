// Repository functions over the IndexedDB schema: the only place that writes index content.
// A document is written in ONE transaction (document, sections, chunks, sentences, meta) as soon as it is parsed,
// so it is either fully stored or absent and searchable by its words at once; its sentence vectors follow later
// in one transaction of their own (putDocumentVectors), and documentsAwaitingVectors() says which are missing, so
// a reload resumes embedding where it stopped. The store refuses vectors from an embedder other than the one that
// built it. Records are written in their stored form (src/store/storedForm.ts) and read back whole.
// Runs in the page and in workers (no DOM-only API).
import { compactGraph, isCompactGraph, type CompactGraph } from '../core/graph/index.ts';
import type { SerializedGraph } from '../core/graph/index.ts';
import type { IncrementalGraphState } from '../core/graph/index.ts';
import type { Table } from 'dexie';
import type {
  ChunkRecord,
  DocumentRecord,
  IndexParams,
  PreparedDocument,
  SectionRecord,
  SentenceRecord,
} from '../core/types.ts';
import { DEFAULT_INDEX_PARAMS } from '../core/types.ts';
import {
  CONTENT_TABLES,
  SCHEMA_VERSION,
  type ConceptDb,
  type GraphRecord,
  type IndexMeta,
  type PendingRecord,
} from './db.ts';
import { removeAtomicDocument } from './atomicStore.ts';
import { removeKgChunks } from './kgStore.ts';
import { loadedChunk, loadedSentence, loadedVectors, vectorRecord, withoutText } from './storedForm.ts';

/** The graph table's record of the incremental concept graph's state (beside the 'concept' graph record). */
export const GRAPH_STATE_ID = 'incremental';

interface GraphStateRecord {
  id: typeof GRAPH_STATE_ID;
  builtAt: number;
  state: IncrementalGraphState;
}

/** Counts shown in the Library view (and checked by the end-to-end tests). */
export interface StoreCounts {
  documents: number;
  sections: number;
  chunks: number;
  sentences: number;
  /** Sentence vectors stored (rows, not documents). */
  vectors: number;
  /** Documents whose sentence vectors are stored (the rest wait for the embedder). */
  embeddedDocuments?: number;
  concepts: number;
  edges: number;
  pending: number;
  kgEntities: number;
  kgRelations: number;
}

export type PutResult =
  { stored: true; docId: string } | { stored: false; docId: string; reason: 'duplicate' };

/** Everything the query worker needs to build its retrieval engine. */
export interface LoadedCorpus {
  meta: IndexMeta | undefined;
  documents: DocumentRecord[];
  /** Headings of every document, so results can show (and rank by) document › heading › subheading. */
  sections: SectionRecord[];
  chunks: ChunkRecord[];
  sentences: SentenceRecord[];
  /** Sentence vectors per document (rows in sentence-index order); documents still waiting have none. */
  vectors: Map<string, Float32Array>;
  graph: GraphRecord | undefined;
}

/** A document to store: parsed and chunked, with its sentence vectors when they are already known. */
export interface DocumentToStore {
  prepared: PreparedDocument;
  vectors?: Float32Array;
}

/** Thrown when a write would mix two embedders in one store. */
export class EmbedderMismatchError extends Error {
  constructor(
    readonly stored: string,
    readonly offered: string,
  ) {
    super(
      `store: refusing vectors from embedder "${offered}": this library was built with "${stored}"; ` +
        'remove all documents (or start a new library) to switch embedders',
    );
    this.name = 'EmbedderMismatchError';
  }
}

function emptyMeta(params: IndexParams): IndexMeta {
  return {
    key: 'index',
    embedderId: null,
    dimension: 0,
    params,
    schemaVersion: SCHEMA_VERSION,
    layers: { lexical: false, semantic: false },
    vectorRows: 0,
    concepts: 0,
    edges: 0,
  };
}

/** Checks a document's vector set against its sentence count; returns its dimension (0 without sentences). */
function vectorDimension(name: string, rows: number, vectors: Float32Array): number {
  if (rows === 0) {
    if (vectors.length !== 0) {
      throw new Error(`store: document "${name}" has no sentences but ${vectors.length} floats`);
    }
    return 0;
  }
  if (vectors.length === 0 || vectors.length % rows !== 0) {
    throw new Error(
      `store: document "${name}": ${vectors.length} floats do not split into ${rows} sentence vectors`,
    );
  }
  return vectors.length / rows;
}

/** The one dimension of a batch of vector sets (0 when none has rows); throws when two disagree. */
function batchDimension(sets: { name: string; rows: number; vectors: Float32Array }[]): number {
  const dims = sets.map((v) => vectorDimension(v.name, v.rows, v.vectors));
  const dimension = dims.find((d) => d > 0) ?? 0;
  const odd = dims.findIndex((d) => d !== 0 && d !== dimension);
  if (odd >= 0) {
    throw new Error(
      `store: document "${sets[odd].name}": vectors of dimension ${dims[odd]}, ` +
        `the others of the batch have ${dimension}`,
    );
  }
  return dimension;
}

/** Refuses vectors the library cannot hold beside its own (another embedder, another dimension). */
function checkEmbedder(meta: IndexMeta, embedderId: string, dimension: number, name: string): void {
  if (meta.embedderId !== null && meta.embedderId !== embedderId) {
    throw new EmbedderMismatchError(meta.embedderId, embedderId);
  }
  if (dimension !== 0 && meta.dimension !== 0 && meta.dimension !== dimension) {
    throw new Error(
      `store: document "${name}": vectors of dimension ${dimension}, library holds ${meta.dimension}`,
    );
  }
}

/** The stored form of a full graph: its keep-mask when it has a semantic layer, else nothing. */
function storableGraph(graph: SerializedGraph): CompactGraph | undefined {
  try {
    return graph.semantic ? compactGraph(graph) : undefined;
  } catch {
    return undefined;
  }
}

export class Repo {
  constructor(readonly db: ConceptDb) {}

  async getMeta(): Promise<IndexMeta | undefined> {
    return this.db.meta.get('index');
  }

  /**
   * Stores a prepared document and its sentence vectors (sentences × dimension, row-major) in one transaction.
   * Same content stored twice is kept once (returns reason 'duplicate'). Throws EmbedderMismatchError when the
   * library was built by another embedder, and leaves the store untouched on any failure.
   */
  async putPreparedDocument(
    prepared: PreparedDocument,
    sentenceVectors: Float32Array,
    embedderId: string,
    params: IndexParams = DEFAULT_INDEX_PARAMS,
  ): Promise<PutResult> {
    const [result] = await this.putPreparedDocuments(
      [{ prepared, vectors: sentenceVectors }],
      embedderId,
      params,
    );
    return result;
  }

  /**
   * Stores several documents in ONE transaction, all or none of them, so each document is either complete or
   * absent. Vectors are optional: the ingest pipeline stores documents as soon as they are parsed (searchable by
   * their words) and adds their vectors later with putDocumentVectors; `embedderId` is needed only when some
   * item carries vectors.
   */
  async putPreparedDocuments(
    items: DocumentToStore[],
    embedderId: string | null = null,
    params: IndexParams = DEFAULT_INDEX_PARAMS,
  ): Promise<PutResult[]> {
    if (items.length === 0) return [];
    const withVectors = items.filter((i) => i.vectors !== undefined);
    const dimension = batchDimension(
      withVectors.map((i) => ({
        name: i.prepared.doc.sourceName,
        rows: i.prepared.sentences.length,
        vectors: i.vectors as Float32Array,
      })),
    );
    if (withVectors.length > 0 && embedderId === null) {
      throw new Error('store: vectors given without the id of the embedder that made them');
    }
    const db = this.db;
    return db.transaction(
      'rw',
      [db.documents, db.sections, db.chunks, db.sentences, db.vectors, db.meta],
      async (): Promise<PutResult[]> => {
        const meta = (await db.meta.get('index')) ?? emptyMeta(params);
        if (embedderId !== null && withVectors.length > 0) {
          checkEmbedder(meta, embedderId, dimension, withVectors[0].prepared.doc.sourceName);
        }
        const docs = items.map((i) => i.prepared.doc);
        const byId = await db.documents.bulkGet(docs.map((d) => d.id));
        const byHash = new Map<string, string>();
        await db.documents
          .where('hash')
          .anyOf(docs.map((d) => d.hash))
          .each((d) => {
            byHash.set(d.hash, d.id);
          });
        const results: PutResult[] = [];
        const fresh: DocumentToStore[] = [];
        items.forEach((item, k) => {
          const doc = item.prepared.doc;
          const existing = byId[k]?.id ?? byHash.get(doc.hash);
          if (existing !== undefined) {
            results.push({ stored: false, docId: existing, reason: 'duplicate' });
            return;
          }
          // The same content twice within the batch is stored once too.
          byHash.set(doc.hash, doc.id);
          fresh.push(item);
          results.push({ stored: true, docId: doc.id });
        });
        if (fresh.length === 0) return results;
        await db.documents.bulkAdd(fresh.map((i) => i.prepared.doc));
        await db.sections.bulkAdd(fresh.flatMap((i) => i.prepared.sections));
        await db.chunks.bulkAdd(
          fresh.flatMap((i) => i.prepared.chunks.map((c) => withoutText(c, i.prepared.doc.text))),
        );
        await db.sentences.bulkAdd(
          fresh.flatMap((i) => i.prepared.sentences.map((s) => withoutText(s, i.prepared.doc.text))),
        );
        const embedded = fresh.filter((i) => i.vectors !== undefined);
        if (embedded.length > 0 && embedderId !== null) {
          await db.vectors.bulkAdd(
            embedded.map((i) =>
              vectorRecord(i.prepared.doc.id, embedderId, dimension, i.vectors as Float32Array),
            ),
          );
        }
        const rows = embedded.reduce((n, i) => n + i.prepared.sentences.length, 0);
        await db.meta.put({
          ...meta,
          embedderId: embedded.length > 0 ? embedderId : meta.embedderId,
          dimension: dimension || meta.dimension,
          schemaVersion: SCHEMA_VERSION,
          layers: { lexical: true, semantic: await this.allEmbedded() },
          vectorRows: (meta.vectorRows ?? 0) + rows,
        });
        return results;
      },
    );
  }

  /** True when every document has its vectors (inside a transaction over documents and vectors). */
  private async allEmbedded(): Promise<boolean> {
    const documents = await this.db.documents.count();
    return documents > 0 && (await this.db.vectors.count()) === documents;
  }

  /**
   * Stores the sentence vectors of documents already stored, in ONE transaction (all or none). A document
   * removed meanwhile, or whose vectors another run already stored, is skipped; returns the ids written.
   */
  async putDocumentVectors(
    items: { docId: string; vectors: Float32Array }[],
    embedderId: string,
  ): Promise<string[]> {
    if (items.length === 0) return [];
    const db = this.db;
    return db.transaction('rw', [db.documents, db.sentences, db.vectors, db.meta], async () => {
      const docs = await db.documents.bulkGet(items.map((i) => i.docId));
      const have = await db.vectors.bulkGet(items.map((i) => i.docId));
      const fresh: { docId: string; name: string; rows: number; vectors: Float32Array }[] = [];
      for (const [k, item] of items.entries()) {
        const doc = docs[k];
        if (!doc || have[k]) continue;
        const rows = await db.sentences.where('docId').equals(item.docId).count();
        fresh.push({ ...item, name: doc.sourceName, rows });
      }
      if (fresh.length === 0) return [];
      const dimension = batchDimension(fresh);
      const meta = (await db.meta.get('index')) ?? emptyMeta(DEFAULT_INDEX_PARAMS);
      checkEmbedder(meta, embedderId, dimension, fresh[0].name);
      await db.vectors.bulkAdd(fresh.map((f) => vectorRecord(f.docId, embedderId, dimension, f.vectors)));
      await db.meta.put({
        ...meta,
        embedderId,
        dimension: dimension || meta.dimension,
        layers: { lexical: true, semantic: await this.allEmbedded() },
        vectorRows: (meta.vectorRows ?? 0) + fresh.reduce((n, f) => n + f.rows, 0),
      });
      return fresh.map((f) => f.docId);
    });
  }

  /**
   * Ids of stored documents without sentence vectors, oldest first (addedAt, then id): what the embedding
   * stage has left to do. Reads keys only.
   */
  async documentsAwaitingVectors(limit = Infinity): Promise<string[]> {
    const db = this.db;
    return db.transaction('r', [db.documents, db.vectors], async () => {
      const embedded = new Set(await db.vectors.toCollection().primaryKeys());
      const ids = await db.documents.orderBy('addedAt').primaryKeys();
      const out: string[] = [];
      for (const id of ids) {
        if (out.length >= limit) break;
        if (!embedded.has(id)) out.push(id);
      }
      return out;
    });
  }

  /**
   * The next documents without vectors, oldest first, until they hold at least `sentences` sentences (at least one
   * document): one embedding round. Counts sentences on the index (no record is read), so a round never loads a
   * large document it does not embed.
   */
  async nextDocumentsToEmbed(sentences: number): Promise<string[]> {
    const db = this.db;
    const ids = await this.documentsAwaitingVectors();
    return db.transaction('r', [db.sentences], async () => {
      const out: string[] = [];
      let total = 0;
      for (const id of ids) {
        if (out.length > 0 && total >= sentences) break;
        out.push(id);
        total += await db.sentences.where('docId').equals(id).count();
      }
      return out;
    });
  }

  /** Stored documents read back whole (text of chunks and sentences included), in the order of `ids`. */
  async preparedDocuments(ids: string[]): Promise<PreparedDocument[]> {
    const db = this.db;
    return db.transaction('r', [db.documents, db.sections, db.chunks, db.sentences], async () => {
      const out: PreparedDocument[] = [];
      for (const doc of await db.documents.bulkGet(ids)) {
        if (!doc) continue;
        // One getAll per index range: a cursor walk over a document of 100k sentences is far slower.
        const sections = (await db.sections.where('docId').equals(doc.id).toArray()).sort(
          (a, b) => a.index - b.index,
        );
        const chunks = (await db.chunks.where('docId').equals(doc.id).toArray())
          .map((c) => loadedChunk(c, doc.text))
          .sort((a, b) => a.order - b.order);
        const sentences = (await db.sentences.where('docId').equals(doc.id).toArray())
          .map((x) => loadedSentence(x, doc.text))
          .sort((a, b) => a.index - b.index);
        out.push({ doc, sections, chunks, sentences });
      }
      return out;
    });
  }

  /**
   * Removes a document and everything derived from it, in ONE transaction: sections, chunks, sentences, vectors
   * and its chunks' share of the KG (removeKgChunks: mentions, build states, entities and relations supported
   * only by it). The only way a document leaves the library; the concept graph is rebuilt by the caller.
   */
  async removeDocument(docId: string): Promise<boolean> {
    const db = this.db;
    return db.transaction(
      'rw',
      [
        db.documents,
        db.sections,
        db.chunks,
        db.sentences,
        db.vectors,
        db.meta,
        db.graph,
        db.kgChunks,
        db.kgEntities,
        db.kgRelations,
        db.atomicQuestions,
        db.atomicChunks,
      ],
      async () => {
        const doc = await db.documents.get(docId);
        if (!doc) return false;
        const chunkIds = (await db.chunks.where('docId').equals(docId).primaryKeys()) as string[];
        const vector = await db.vectors.get(docId);

        await db.documents.delete(docId);
        await db.sections.where('docId').equals(docId).delete();
        await db.chunks.where('docId').equals(docId).delete();
        await db.sentences.where('docId').equals(docId).delete();
        await db.vectors.delete(docId);
        await removeKgChunks(db, chunkIds);
        // The atomic layer: every question and state of the document's chunks.
        await removeAtomicDocument(db, docId);

        const remaining = await db.documents.count();
        if (remaining === 0) {
          // An empty library forgets its embedder, so the user may switch embedders.
          await db.meta.delete('index');
          await db.graph.clear();
        } else {
          const meta = await db.meta.get('index');
          if (meta)
            await db.meta.put({
              ...meta,
              layers: { lexical: true, semantic: await this.allEmbedded() },
              vectorRows: Math.max(0, (meta.vectorRows ?? 0) - (vector?.count ?? 0)),
            });
        }
        return true;
      },
    );
  }

  async counts(): Promise<StoreCounts> {
    const db = this.db;
    return db.transaction(
      'r',
      [
        db.documents,
        db.sections,
        db.chunks,
        db.sentences,
        db.vectors,
        db.meta,
        db.pending,
        db.kgEntities,
        db.kgRelations,
      ],
      async () => {
        const meta = await db.meta.get('index');
        return {
          documents: await db.documents.count(),
          sections: await db.sections.count(),
          chunks: await db.chunks.count(),
          sentences: await db.sentences.count(),
          vectors: meta?.vectorRows ?? 0,
          embeddedDocuments: await db.vectors.count(),
          concepts: meta?.concepts ?? 0,
          edges: meta?.edges ?? 0,
          pending: await db.pending.where('status').anyOf('queued', 'working').count(),
          kgEntities: await db.kgEntities.count(),
          kgRelations: await db.kgRelations.count(),
        };
      },
    );
  }

  /** Documents and sentences stored, and how many of them have their vectors (counts only, no records read). */
  async layerCounts(): Promise<{
    documents: number;
    sentences: number;
    embeddedDocuments: number;
    embeddedSentences: number;
  }> {
    const db = this.db;
    return db.transaction('r', [db.documents, db.sentences, db.vectors, db.meta], async () => ({
      documents: await db.documents.count(),
      sentences: await db.sentences.count(),
      embeddedDocuments: await db.vectors.count(),
      embeddedSentences: (await db.meta.get('index'))?.vectorRows ?? 0,
    }));
  }

  /** Bytes used by this origin's storage, or null where the estimate API is missing (Node, old browsers). */
  async storageUsed(): Promise<{ usage: number; quota: number } | null> {
    const storage = (globalThis as { navigator?: { storage?: StorageManager } }).navigator?.storage;
    if (!storage?.estimate) return null;
    const estimate = await storage.estimate();
    return { usage: estimate.usage ?? 0, quota: estimate.quota ?? 0 };
  }

  /** Loads the whole corpus for the query worker, records whole (texts sliced back, vectors as Float32). */
  /**
   * `mark` is called as each table arrives, with its name (the first-question bench times them). Every read is
   * asked for at once: the browser reads them in order while this thread decodes each as it comes.
   */
  async loadCorpus(mark?: (step: string) => void): Promise<LoadedCorpus> {
    const db = this.db;
    return db.transaction(
      'r',
      [db.meta, db.documents, db.sections, db.chunks, db.sentences, db.vectors, db.graph],
      async () => {
        const read = <T>(step: string, reading: Promise<T>): Promise<T> =>
          reading.then((value) => {
            mark?.(step);
            return value;
          });
        const [meta, documents, sections, chunkRecords, sentenceRecords, graph, vectorRecords] =
          await Promise.all([
            db.meta.get('index'),
            read('documents', db.documents.toArray()),
            read('sections', db.sections.toArray()),
            read('chunks', db.chunks.toArray()),
            read('sentences', db.sentences.toArray()),
            read('graph', db.graph.get('concept')),
            read('vectors', db.vectors.toArray()),
          ]);
        const texts = new Map(documents.map((d) => [d.id, d.text]));
        const vectors = new Map(vectorRecords.map((v) => [v.docId, loadedVectors(v)]));
        mark?.('decoded');
        return {
          meta,
          documents,
          sections,
          chunks: chunkRecords.map((c) => loadedChunk(c, texts.get(c.docId))),
          sentences: sentenceRecords.map((s) => loadedSentence(s, texts.get(s.docId))),
          vectors,
          graph,
        };
      },
    );
  }

  /** The stored concept graph record alone (the graph worker builds its walk graph while the corpus is read). */
  async getStoredGraph(): Promise<GraphRecord | undefined> {
    return this.db.graph.get('concept');
  }

  /**
   * Stores the concept graph and its counts (shown in the Library view). Only what a load cannot rebuild in
   * seconds is kept: a graph with a semantic layer as its θsem keep-mask (a few hundred KB, where the full graph
   * with concept vectors and edge cosines was most of the database), a lexical-only graph not at all (any stored
   * one is dropped: it would describe other chunks).
   */
  async putGraph(
    graph: SerializedGraph | CompactGraph,
    stats: { concepts: number; edges: number },
  ): Promise<void> {
    const db = this.db;
    const stored = isCompactGraph(graph) ? graph : storableGraph(graph);
    await db.transaction('rw', [db.graph, db.meta], async () => {
      if (stored) await db.graph.put({ id: 'concept', builtAt: Date.now(), graph: stored });
      else await db.graph.delete('concept');
      const meta = (await db.meta.get('index')) ?? emptyMeta(DEFAULT_INDEX_PARAMS);
      await db.meta.put({ ...meta, concepts: stats.concepts, edges: stats.edges });
    });
  }

  /**
   * The incremental concept graph's state (src/core/graph/incremental.ts, toJSON), kept in the graph table under
   * its own id so a reload or another tab continues from it (src/services/graphBuild.ts). Removing the last
   * document clears the graph table, this record with it.
   */
  async getGraphState(): Promise<IncrementalGraphState | undefined> {
    const record = await this.graphStates().get(GRAPH_STATE_ID);
    return record?.state;
  }

  async putGraphState(state: IncrementalGraphState): Promise<void> {
    await this.graphStates().put({ id: GRAPH_STATE_ID, builtAt: Date.now(), state });
  }

  private graphStates(): Table<GraphStateRecord, string> {
    return this.db.graph as unknown as Table<GraphStateRecord, string>;
  }

  // ---- the pending queue: files with their bytes, so a reload resumes indexing ----

  async enqueue(files: { name: string; bytes: ArrayBuffer }[]): Promise<string[]> {
    const now = Date.now();
    const records: PendingRecord[] = files.map((f, i) => ({
      id: `${now.toString(36)}-${i.toString().padStart(5, '0')}-${Math.random().toString(36).slice(2, 8)}`,
      name: f.name,
      size: f.bytes.byteLength,
      bytes: f.bytes,
      addedAt: now + i,
      status: 'queued',
    }));
    await this.db.pending.bulkAdd(records);
    return records.map((r) => r.id);
  }

  /** Files still to index, oldest first ('working' ones were interrupted by a reload and run again). */
  async pendingQueue(): Promise<PendingRecord[]> {
    const all = await this.db.pending.orderBy('addedAt').toArray();
    return all.filter((p) => p.status === 'queued' || p.status === 'working');
  }

  /**
   * Ids of the files still to index (queued, or 'working' ones interrupted by a reload), oldest first. Reads
   * keys only: the records (with their bytes) are read one at a time with pendingFile().
   */
  async waitingIds(): Promise<string[]> {
    const ids = await this.db.pending.orderBy('addedAt').primaryKeys();
    // Failed files, and announced ones whose bytes are not stored yet (src/store/intakeStore.ts), are not drained.
    const skipped = new Set(await this.db.pending.where('status').anyOf('failed', 'announced').primaryKeys());
    return ids.filter((id) => !skipped.has(id));
  }

  /** One pending file with its bytes (undefined when it is gone, e.g. after a cancel). */
  async pendingFile(id: string): Promise<PendingRecord | undefined> {
    return this.db.pending.get(id);
  }

  /**
   * Stores the documents of several parsed files and settles their queue records in ONE transaction: a stored
   * file leaves the queue with its documents, a failed one is marked failed with its reason (its bytes dropped),
   * so a reload finds each file either done or still queued, never half. Returns each file's put results.
   */
  async putParsedFiles(
    files: Array<{ pendingId: string; documents: PreparedDocument[] }>,
    failed: Array<{ pendingId: string; reason: string }> = [],
    params: IndexParams = DEFAULT_INDEX_PARAMS,
  ): Promise<PutResult[][]> {
    const db = this.db;
    const tables = [db.documents, db.sections, db.chunks, db.sentences, db.vectors, db.meta, db.pending];
    return db.transaction('rw', tables, async () => {
      const items = files.flatMap((f) => f.documents.map((prepared) => ({ prepared })));
      const results = await this.putPreparedDocuments(items, null, params);
      for (const f of files) await db.pending.delete(f.pendingId);
      for (const f of failed) {
        await db.pending.update(f.pendingId, {
          status: 'failed',
          reason: f.reason,
          bytes: new ArrayBuffer(0),
        });
      }
      let at = 0;
      return files.map((f) => results.slice(at, (at += f.documents.length)));
    });
  }

  /** Marks several files 'working' and counts their starts, in one transaction (see startPending). */
  async startPendingMany(ids: readonly string[]): Promise<number[]> {
    return this.db.transaction('rw', this.db.pending, async () => {
      const records = await this.db.pending.bulkGet([...ids]);
      const attempts = records.map((r) => (r?.attempts ?? 0) + 1);
      for (const [i, id] of ids.entries()) {
        await this.db.pending.update(id, { status: 'working', attempts: attempts[i] });
      }
      return attempts;
    });
  }

  /** Marks a file 'working' and counts the start; returns the starts so far (this one included). */
  async startPending(id: string): Promise<number> {
    return this.db.transaction('rw', this.db.pending, async () => {
      const record = await this.db.pending.get(id);
      const attempts = (record?.attempts ?? 0) + 1;
      await this.db.pending.update(id, { status: 'working', attempts });
      return attempts;
    });
  }

  /**
   * Puts a file back in the queue as it was before its start (a write the browser refused stopped indexing: the
   * file is not at fault, so the start is not counted towards the crash-loop limit).
   */
  async requeuePending(id: string, attempts: number): Promise<void> {
    await this.db.pending.update(id, { status: 'queued', attempts });
  }

  /**
   * Drops every file still waiting (a cancel); failed ones stay listed with their reasons, and announced ones
   * (bytes not stored) are the page's to forget (src/store/intakeStore.ts).
   */
  async clearWaitingPending(): Promise<void> {
    await this.db.pending.where('status').anyOf('queued', 'working').delete();
  }

  /** Name/size/status of every pending file, without their bytes. */
  async pendingSummary(): Promise<Omit<PendingRecord, 'bytes'>[]> {
    const out: Omit<PendingRecord, 'bytes'>[] = [];
    await this.db.pending.orderBy('addedAt').each((p) => {
      out.push({
        id: p.id,
        name: p.name,
        size: p.size,
        addedAt: p.addedAt,
        status: p.status,
        reason: p.reason,
      });
    });
    return out;
  }

  /** Files that failed, with their reasons (their bytes were dropped when they failed, so this read is cheap). */
  async failedPending(): Promise<Omit<PendingRecord, 'bytes'>[]> {
    const failed = await this.db.pending.where('status').equals('failed').sortBy('addedAt');
    return failed.map(({ id, name, size, addedAt, status, reason }) => ({
      id,
      name,
      size,
      addedAt,
      status,
      reason,
    }));
  }

  /** Files still waiting or interrupted (a count: reads no bytes). */
  async waitingCount(): Promise<number> {
    return this.db.pending.where('status').anyOf('queued', 'working').count();
  }

  /** Marks a pending file; a failed file keeps its name and reason but drops its bytes (they are not needed). */
  async markPending(id: string, status: PendingRecord['status'], reason?: string): Promise<void> {
    const changes: Partial<PendingRecord> = { status, reason };
    if (status === 'failed') changes.bytes = new ArrayBuffer(0);
    await this.db.pending.update(id, changes);
  }

  async removePending(id: string): Promise<void> {
    await this.db.pending.delete(id);
  }

  async clearFailedPending(): Promise<void> {
    await this.db.pending.where('status').equals('failed').delete();
  }

  // ---- settings (local only, never exported) ----

  async getSetting<T>(key: string): Promise<T | undefined> {
    return (await this.db.settings.get(key))?.value as T | undefined;
  }

  async setSetting(key: string, value: unknown): Promise<void> {
    await this.db.settings.put({ key, value });
  }

  /** Empties the library (documents and everything derived); keeps settings and the pending queue. */
  async clearLibrary(): Promise<void> {
    const db = this.db;
    const tables = CONTENT_TABLES.map((name) => db.table(name));
    await db.transaction('rw', tables, async () => {
      for (const t of tables) await t.clear();
    });
  }
}
