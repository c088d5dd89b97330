// The IndexedDB schema of ConceptRAG (Dexie 4). Every `db.version(n)` declaration stays here forever so that
// a browser holding an older database upgrades in place; new versions add stores/indexes and an upgrade().
// Storage is injectable ({ indexedDB, IDBKeyRange }) so Node tests run on a fresh fake-indexeddb per test.
// Version 2 stores each thing once (see src/store/storedForm.ts): chunk and sentence text are slices of the
// document text and are not stored, sentence vectors are int8 with a per-row scale (the bundle codec), and the
// concept graph is kept only as its θsem keep-mask (the lexical graph is rebuilt from the text on load).
// Version 3 adds PIKE-RAG's atomic layer: the atomic questions of chunks and each chunk's atomizing state.
import Dexie, { type EntityTable, type Table } from 'dexie';
import type { CompactGraph, SerializedGraph } from '../core/graph/index.ts';
import type { AtomicChunkState, AtomicQuestion } from '../core/atomic/index.ts';
import type { KgEntity, KgRelation } from '../core/kg/index.ts';
import type {
  ChunkRecord,
  DocumentRecord,
  IndexParams,
  SectionRecord,
  SentenceRecord,
} from '../core/types.ts';
import { upgradeToV2 } from './upgradeV2.ts';

const DB_NAME = 'conceptrag';
export const SCHEMA_VERSION = 3;

/**
 * All sentence vectors of one document, rows in sentence-index order. Schema v2 writes `encoding: 'i8'`: count ×
 * f32 scales then count × dimension int8 codes (quantizeInt8 of src/core/bundle/codecs.ts), a quarter of the
 * Float32 size; a v1 record (no encoding) holds count × dimension float32 values and is converted by the upgrade.
 */
export interface VectorRecord {
  docId: string;
  embedderId: string;
  dimension: number;
  /** Number of rows (= the document's sentence count). */
  count: number;
  encoding?: 'i8';
  data: ArrayBuffer;
}

/** A chunk as stored: without its text when the text is the document text between start and end. */
export type StoredChunk = Omit<ChunkRecord, 'text'> & { text?: string };
/** A sentence as stored: without its text when the text is the document text between start and end. */
export type StoredSentence = Omit<SentenceRecord, 'text'> & { text?: string };

/** What built the index: the store never mixes vectors of two embedders. */
export interface IndexMeta {
  key: 'index';
  /** Null until the first vector set is written (a lexical-only index has no embedder yet). */
  embedderId: string | null;
  dimension: number;
  params: IndexParams;
  schemaVersion: number;
  layers: { lexical: boolean; semantic: boolean };
  /** Sentence vectors stored (kept here so counting never reads the vector blobs). */
  vectorRows: number;
  /** Counts of the stored concept graph. */
  concepts: number;
  edges: number;
}

/**
 * 'announced': the file's name and size are recorded but not its bytes yet (src/store/intakeStore.ts); the
 * worker drains only 'queued' (and interrupted 'working') files. A string on the existing status index: no schema
 * change.
 */
export type PendingStatus = 'announced' | 'queued' | 'working' | 'failed';

/** A file waiting to be indexed, with its bytes, so that a reload resumes the queue. */
export interface PendingRecord {
  id: string;
  name: string;
  size: number;
  bytes: ArrayBuffer;
  addedAt: number;
  status: PendingStatus;
  /** Why the file failed (status 'failed'). */
  reason?: string;
  /**
   * How often indexing of this file started. A file still in the queue with 2 starts was interrupted twice (the
   * page closed or crashed while on it): it is failed instead of being retried on every load. Not indexed, so no
   * schema change; older records without it count as 0.
   */
  attempts?: number;
}

/**
 * The concept graph. Schema v2 stores only what cannot be rebuilt in seconds from the text and the sentence
 * vectors: the compact graph (θsem keep-mask, src/core/graph/compactGraph.ts) of a graph with a semantic layer;
 * a lexical-only graph is not stored at all. Schema v1 stored the whole SerializedGraph (concept vectors and
 * per-edge cosines: most of a v1 database), which is still read.
 */
export interface GraphRecord {
  id: 'concept';
  builtAt: number;
  graph: SerializedGraph | CompactGraph;
}

export interface SettingRecord {
  key: string;
  value: unknown;
}

export interface KgChunkRecord {
  chunkId: string;
  status: 'done' | 'failed';
  reason?: string;
  entityIds: string[];
  relationIds: string[];
}

/**
 * A KG entity as the table holds it: the core record with its vector as bytes. Mentions and the vector's text are
 * optional here because records written before they existed lack them (src/store/kgStore.ts reads both forms).
 */
export type KgEntityRecord = Omit<KgEntity, 'vector' | 'mentions' | 'vectorText'> & { vector?: ArrayBuffer };

/** A KG relation as the table holds it (see KgEntityRecord). */
export type KgRelationRecord = Omit<KgRelation, 'vector' | 'mentions' | 'vectorText'> & {
  vector?: ArrayBuffer;
};

/** An atomic question as the table holds it: its vector (unit length, Float32) as bytes. */
export type AtomicQuestionRecord = Omit<AtomicQuestion, 'vector'> & { vector?: ArrayBuffer };

/** A chunk's atomizing state (done with its question count, or failed with the reason). */
export type AtomicChunkRecord = AtomicChunkState;

/** A Dexie database; constructed through openDatabase(). */
export type ConceptDb = Dexie & {
  documents: EntityTable<DocumentRecord, 'id'>;
  sections: EntityTable<SectionRecord, 'id'>;
  chunks: EntityTable<StoredChunk, 'id'>;
  sentences: EntityTable<StoredSentence, 'id'>;
  vectors: EntityTable<VectorRecord, 'docId'>;
  meta: Table<IndexMeta, 'index'>;
  pending: EntityTable<PendingRecord, 'id'>;
  graph: EntityTable<GraphRecord, 'id'>;
  settings: EntityTable<SettingRecord, 'key'>;
  kgChunks: EntityTable<KgChunkRecord, 'chunkId'>;
  kgEntities: EntityTable<KgEntityRecord, 'id'>;
  kgRelations: EntityTable<KgRelationRecord, 'id'>;
  atomicQuestions: EntityTable<AtomicQuestionRecord, 'id'>;
  atomicChunks: EntityTable<AtomicChunkRecord, 'chunkId'>;
};

/** Injected storage for Node tests (fake-indexeddb); the browser's globals are used when absent. */
export interface StorageDeps {
  indexedDB: IDBFactory;
  IDBKeyRange: typeof IDBKeyRange;
}

/** The stores of schema version 1 (primary key first; & = unique index, * = multi-entry index). */
export const SCHEMA_V1 = {
  documents: 'id, &hash, addedAt',
  sections: 'id, docId',
  chunks: 'id, docId',
  sentences: 'id, docId, chunkId',
  vectors: 'docId',
  meta: 'key',
  pending: 'id, addedAt, status',
  graph: 'id',
  settings: 'key',
  kgChunks: 'chunkId, status',
  kgEntities: 'id, name, *chunkIds',
  kgRelations: 'id, source, target, *chunkIds',
} as const;

/**
 * Schema version 2: the same stores; sentences lose their chunkId index (nothing looks sentences up by chunk:
 * a chunk lists its sentences by firstSentence/sentenceCount). The record forms change (see the module comment).
 */
export const SCHEMA_V2 = { ...SCHEMA_V1, sentences: 'id, docId' } as const;

/**
 * Schema version 3: the atomic layer (PIKE-RAG knowledge atomizing). Questions by chunk (a chunk's are replaced
 * together) and by document (removed with it); states by document and status (resume, "retry failed").
 */
export const SCHEMA_V3 = {
  ...SCHEMA_V2,
  atomicQuestions: 'id, chunkId, docId',
  atomicChunks: 'chunkId, docId, status',
} as const;

/** Every table that holds index content (what a reset or a bundle import replaces). */
export const CONTENT_TABLES = [
  'documents',
  'sections',
  'chunks',
  'sentences',
  'vectors',
  'meta',
  'graph',
  'kgChunks',
  'kgEntities',
  'kgRelations',
  'atomicQuestions',
  'atomicChunks',
] as const;

export function openDatabase(name: string = DB_NAME, deps?: StorageDeps): ConceptDb {
  const db = (deps ? new Dexie(name, deps) : new Dexie(name)) as ConceptDb;
  db.version(1).stores(SCHEMA_V1);
  db.version(2).stores(SCHEMA_V2).upgrade(upgradeToV2);
  // New tables only: nothing to convert.
  db.version(3).stores(SCHEMA_V3);
  return db;
}
