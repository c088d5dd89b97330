// The IndexedDB schema of ConceptRAG (Dexie 4). Every `db.version(n)` declaration stays here forever so that
// a browser holding an older database upgrades in place; new versions add stores/indexes and an upgrade().
// Storage is injectable ({ indexedDB, IDBKeyRange }) so Node tests run on a fresh fake-indexeddb per test.
// Version 2 stores each thing once (see src/store/storedForm.ts): chunk and sentence text are slices of the
// document text and are not stored, sentence vectors are int8 with a per-row scale (the bundle codec), and the
// concept graph is kept only as its θsem keep-mask (the lexical graph is rebuilt from the text on load).
// Version 3 adds PIKE-RAG's atomic layer: the atomic questions of chunks and each chunk's atomizing state.
// Version 4 adds the library's pages (src/store/pagesRepo.ts): a large library's lexical index as one Blob the query
// worker reads by ranges instead of loading the corpus.
import Dexie, { type EntityTable, type Table } from 'dexie';
import type { DocumentRecord, SectionRecord } from '../core/types.ts';
import type {
  AtomicChunkRecord,
  AtomicQuestionRecord,
  GraphRecord,
  IndexMeta,
  KgChunkRecord,
  KgEntityRecord,
  KgRelationRecord,
  PagesRecord,
  PendingBytesRecord,
  PendingRecord,
  SettingRecord,
  StoredChunk,
  StoredSentence,
  VectorRecord,
} from './records.ts';
import { upgradeToV2 } from './upgradeV2.ts';

// The tables' record types are the schema's too: importers of the schema find them here.
export type * from './records.ts';

const DB_NAME = 'conceptrag';
export const SCHEMA_VERSION = 5;

/** A Dexie database; constructed through openDatabase(). */
export type ConceptDb = Dexie & {
  documents: EntityTable<DocumentRecord, 'id'>;
  sections: EntityTable<SectionRecord, 'id'>;
  chunks: EntityTable<StoredChunk, 'id'>;
  sentences: EntityTable<StoredSentence, 'id'>;
  vectors: EntityTable<VectorRecord, 'docId'>;
  meta: Table<IndexMeta, 'index'>;
  pending: EntityTable<PendingRecord, 'id'>;
  pendingBytes: EntityTable<PendingBytesRecord, 'id'>;
  graph: EntityTable<GraphRecord, 'id'>;
  settings: EntityTable<SettingRecord, 'key'>;
  kgChunks: EntityTable<KgChunkRecord, 'chunkId'>;
  kgEntities: EntityTable<KgEntityRecord, 'id'>;
  kgRelations: EntityTable<KgRelationRecord, 'id'>;
  atomicQuestions: EntityTable<AtomicQuestionRecord, 'id'>;
  atomicChunks: EntityTable<AtomicChunkRecord, 'chunkId'>;
  pages: EntityTable<PagesRecord, 'id'>;
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

/** Schema version 4: the library's pages, one record (written whole in one put: never half written). */
export const SCHEMA_V4 = { ...SCHEMA_V3, pages: 'id' } as const;

/**
 * Schema version 5 (intake): a queued file's bytes in a table of their own, keyed by its pending id. The pending
 * records stay small, so marking a file working (its start counted) or failed rewrites the record, not the file:
 * a 100 MB drop's queue was written twice, once when stored and again when its files were marked working. Records
 * queued before v5 keep their bytes inline and are read as they are (QueueRepo.pendingFile): no upgrade step.
 */
export const SCHEMA_V5 = { ...SCHEMA_V4, pendingBytes: 'id' } as const;

export function openDatabase(name: string = DB_NAME, deps?: StorageDeps): ConceptDb {
  const db = (deps ? new Dexie(name, deps) : new Dexie(name)) as ConceptDb;
  db.version(1).stores(SCHEMA_V1);
  db.version(2).stores(SCHEMA_V2).upgrade(upgradeToV2);
  // New tables only: nothing to convert.
  db.version(3).stores(SCHEMA_V3);
  // New tables only (pending records of v4 keep their bytes inline and are read as they are).
  db.version(4).stores(SCHEMA_V4);
  db.version(5).stores(SCHEMA_V5);
  return db;
}
