// Repository functions over the IndexedDB schema: the only place that writes index content.
// A document is written in ONE transaction (document, sections, chunks, sentences, vectors, meta) so it is
// either fully stored or absent, and the store refuses vectors from an embedder other than the one that
// built it. Runs in the page and in workers (no DOM-only API).
import type { SerializedGraph } from '../core/graph/index.ts';
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
  type VectorRecord,
} from './db.ts';
import { removeKgChunks } from './kgStore.ts';

/** Counts shown in the Library view (and checked by the end-to-end tests). */
export interface StoreCounts {
  documents: number;
  sections: number;
  chunks: number;
  sentences: number;
  /** Sentence vectors stored (rows, not documents). */
  vectors: number;
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
  /** Sentence vectors per document (rows in sentence-index order). */
  vectors: Map<string, Float32Array>;
  graph: GraphRecord | undefined;
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

/** Checks the vector set of a prepared document; returns its dimension (0 for a document without sentences). */
function vectorDimension(prepared: PreparedDocument, vectors: Float32Array): number {
  const rows = prepared.sentences.length;
  if (rows === 0) {
    if (vectors.length !== 0) {
      throw new Error(
        `store: document "${prepared.doc.sourceName}" has no sentences but ${vectors.length} floats`,
      );
    }
    return 0;
  }
  if (vectors.length === 0 || vectors.length % rows !== 0) {
    throw new Error(
      `store: document "${prepared.doc.sourceName}": ${vectors.length} floats do not split into ${rows} sentence vectors`,
    );
  }
  return vectors.length / rows;
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
   * Stores several documents in ONE transaction (the ingest pipeline writes each embedding batch's finished
   * documents together: one transaction per document cost about 10% of the ingest rate). All or none of them
   * are stored, so each document is still either complete or absent.
   */
  async putPreparedDocuments(
    items: { prepared: PreparedDocument; vectors: Float32Array }[],
    embedderId: string,
    params: IndexParams = DEFAULT_INDEX_PARAMS,
  ): Promise<PutResult[]> {
    if (items.length === 0) return [];
    const dims = items.map((i) => vectorDimension(i.prepared, i.vectors));
    const dimension = dims.find((d) => d > 0) ?? 0;
    const odd = items.findIndex((_, k) => dims[k] !== 0 && dims[k] !== dimension);
    if (odd >= 0) {
      throw new Error(
        `store: document "${items[odd].prepared.doc.sourceName}": vectors of dimension ${dims[odd]}, ` +
          `the others of the batch have ${dimension}`,
      );
    }
    const db = this.db;
    return db.transaction(
      'rw',
      [db.documents, db.sections, db.chunks, db.sentences, db.vectors, db.meta],
      async (): Promise<PutResult[]> => {
        const meta = (await db.meta.get('index')) ?? emptyMeta(params);
        if (meta.embedderId !== null && meta.embedderId !== embedderId) {
          throw new EmbedderMismatchError(meta.embedderId, embedderId);
        }
        if (dimension !== 0 && meta.dimension !== 0 && meta.dimension !== dimension) {
          throw new Error(
            `store: document "${items[0].prepared.doc.sourceName}": vectors of dimension ${dimension}, ` +
              `library holds ${meta.dimension}`,
          );
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
        const fresh: typeof items = [];
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
        await db.chunks.bulkAdd(fresh.flatMap((i) => i.prepared.chunks));
        await db.sentences.bulkAdd(fresh.flatMap((i) => i.prepared.sentences));
        await db.vectors.bulkAdd(
          fresh.map((i): VectorRecord => ({
            docId: i.prepared.doc.id,
            embedderId,
            dimension,
            count: i.prepared.sentences.length,
            // Copy into a tight buffer: the caller's array may be a view into a larger (or transferred) buffer.
            data: i.vectors.slice().buffer,
          })),
        );
        const rows = fresh.reduce((n, i) => n + i.prepared.sentences.length, 0);
        await db.meta.put({
          ...meta,
          embedderId,
          dimension: dimension || meta.dimension,
          layers: { lexical: true, semantic: true },
          vectorRows: (meta.vectorRows ?? 0) + rows,
        });
        return results;
      },
    );
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
          concepts: meta?.concepts ?? 0,
          edges: meta?.edges ?? 0,
          pending: await db.pending.where('status').anyOf('queued', 'working').count(),
          kgEntities: await db.kgEntities.count(),
          kgRelations: await db.kgRelations.count(),
        };
      },
    );
  }

  /** Bytes used by this origin's storage, or null where the estimate API is missing (Node, old browsers). */
  async storageUsed(): Promise<{ usage: number; quota: number } | null> {
    const storage = (globalThis as { navigator?: { storage?: StorageManager } }).navigator?.storage;
    if (!storage?.estimate) return null;
    const estimate = await storage.estimate();
    return { usage: estimate.usage ?? 0, quota: estimate.quota ?? 0 };
  }

  /** Loads the whole corpus for the query worker. */
  async loadCorpus(): Promise<LoadedCorpus> {
    const db = this.db;
    return db.transaction(
      'r',
      [db.meta, db.documents, db.sections, db.chunks, db.sentences, db.vectors, db.graph],
      async () => {
        const vectors = new Map<string, Float32Array>();
        await db.vectors.each((v) => {
          vectors.set(v.docId, new Float32Array(v.data));
        });
        return {
          meta: await db.meta.get('index'),
          documents: await db.documents.toArray(),
          sections: await db.sections.toArray(),
          chunks: await db.chunks.toArray(),
          sentences: await db.sentences.toArray(),
          vectors,
          graph: await db.graph.get('concept'),
        };
      },
    );
  }

  /** Stores the serialized concept graph and its counts (shown in the Library view). */
  async putGraph(graph: SerializedGraph, stats: { concepts: number; edges: number }): Promise<void> {
    const db = this.db;
    await db.transaction('rw', [db.graph, db.meta], async () => {
      await db.graph.put({ id: 'concept', builtAt: Date.now(), graph });
      const meta = (await db.meta.get('index')) ?? emptyMeta(DEFAULT_INDEX_PARAMS);
      await db.meta.put({ ...meta, concepts: stats.concepts, edges: stats.edges });
    });
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
    return all.filter((p) => p.status !== 'failed');
  }

  /**
   * Ids of the files still to index (queued, or 'working' ones interrupted by a reload), oldest first. Reads
   * keys only: the records (with their bytes) are read one at a time with pendingFile().
   */
  async waitingIds(): Promise<string[]> {
    const ids = await this.db.pending.orderBy('addedAt').primaryKeys();
    const failed = new Set(await this.db.pending.where('status').equals('failed').primaryKeys());
    return ids.filter((id) => !failed.has(id));
  }

  /** One pending file with its bytes (undefined when it is gone, e.g. after a cancel). */
  async pendingFile(id: string): Promise<PendingRecord | undefined> {
    return this.db.pending.get(id);
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

  /** Drops every file still waiting (a cancel); failed ones stay listed with their reasons. */
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
