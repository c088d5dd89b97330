// The record types of the IndexedDB tables (what each table holds), apart from the schema in db.ts: the stored
// form (storedForm.ts) and the v1 → v2 upgrade (upgradeV2.ts) read and write these records, and db.ts runs the
// upgrade, so the types stand below all three.
import type { CompactGraph, ConceptTableGraph, SerializedGraph } from '../core/graph/index.ts';
import type { AtomicChunkState, AtomicQuestion } from '../core/atomic/index.ts';
import type { KgEntity, KgRelation } from '../core/kg/index.ts';
import type { PagesDirectory } from '../core/paged/index.ts';
import type { LibraryThemes } from '../core/themes/index.ts';
import type { ChunkRecord, IndexParams, SentenceRecord } from '../core/types.ts';

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
  /**
   * The `builtAt` of the stored graph record, written with it (GraphRepo.putGraph) and dropped when a removal leaves
   * the graph stale: the query worker tells from this one small record that documents were only added since its
   * library was read, the graph the same, and keeps that library (src/services/library/session.ts). Absent: unknown.
   */
  graphBuiltAt?: number;
  /**
   * The sentences stored, kept by every write of documents, with the documents counted at the same time: counting a
   * large library's sentences walks the store (1.4 s for 1.2 M at 100 MiB, on the browser's IndexedDB thread, which
   * every read of the page and both workers then waits behind); absent (an import, a library from before it) until
   * the ingest worker counts it (LibraryRepo.checkTally).
   * `chunks`: the chunks stored, kept by the same writes. The query worker asks at every question of a library in
   * memory whether it has grown past the pages threshold (pagesThreshold.ts), and a count() of 9,002 chunks walked
   * the store for 13–15 ms of its time each time (docs/results/ranges.md, "The pages re-check per question").
   * A tally with its chunks is trusted by every count (keptTally), the documents' own included: a write by an app
   * from the sentence tally on but before the chunks rebuilds the tally without them, and the layers are then
   * counted. An app from before the sentence tally, left open in another tab, keeps it as it was: the ingest worker
   * checks it against a count of the documents seconds after each start, and counts again where it is wrong.
   */
  sentenceTally?: { documents: number; sentences: number; chunks?: number };
  /**
   * The chunks the library will hold once the ingest worker's queue is stored: the chunks stored plus the queued
   * files' bytes at the drop's own bytes per chunk (src/services/ingest/dropProjection.ts). Written by the ingest
   * worker at each refresh of a drop, absent once nothing waits (the drop ended or was cancelled). The pages
   * threshold compares the larger of it and the chunks stored (pagesThreshold.ts): a drop that will be large is
   * answered from its pages from its first refresh on, and the query worker, which cannot see the queue, learns
   * it here.
   */
  projectedChunks?: number;
}

/**
 * 'announced': the file's name and size are recorded but not its bytes yet (src/store/intakeStore.ts); the
 * worker drains only 'queued' (and interrupted 'working') files. A string on the existing status index: no schema
 * change.
 */
type PendingStatus = 'announced' | 'queued' | 'working' | 'failed';

/** A file waiting to be indexed, with its bytes, so that a reload resumes the queue. */
export interface PendingRecord {
  id: string;
  name: string;
  size: number;
  /**
   * The file's bytes. Stored empty since schema v5: they are in the pendingBytes table (PendingBytesRecord), so
   * that marking a file working, failed or queued again rewrites a small record, not the file; a record queued
   * before v5 still holds them here, and QueueRepo.pendingFile reads either.
   */
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

/** A queued file's bytes (schema v5), keyed by its pending record's id; removed with the record. */
export interface PendingBytesRecord {
  id: string;
  bytes: ArrayBuffer;
}

/**
 * The concept graph. Schema v2 stores only what cannot be rebuilt in seconds from the text and the sentence
 * vectors: the compact graph (θsem keep-mask, src/core/graph/compactGraph.ts) of a graph with a semantic layer;
 * the concept table of a lexical-only graph (src/core/graph/conceptTableGraph.ts: choosing the keyphrases again is
 * most of opening a library). Schema v1 stored the whole SerializedGraph (concept vectors and per-edge cosines:
 * most of a v1 database), which is still read.
 */
export interface GraphRecord {
  id: 'concept';
  builtAt: number;
  graph: SerializedGraph | CompactGraph | ConceptTableGraph;
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

/**
 * The library's pages (src/core/paged/format.ts): its lexical index as the part a bundle's `pages.bin` holds, read by
 * ranges. One record, replaced whole by one put, so a reload or crash while new pages are written leaves the old
 * record (or none), never half of one. `stamp` names the library it was built from (pagesRepo.ts: libraryStamp);
 * pages of another stamp are not read.
 */
export interface PagesRecord {
  id: 'library';
  stamp: string;
  builtAt: number;
  documents: number;
  chunks: number;
  directory: PagesDirectory;
  /** SHA-256 of every block of `data`, 32 bytes each. */
  hashes: Uint8Array;
  data: Blob;
  /** The library's themes, computed by the pages' build (absent: pages written before them, or none computed). */
  themes?: LibraryThemes;
}

/**
 * The documents removed since the pages were written (the record beside them in the same table, `builtAt` naming
 * the pages it applies to): questions keep reading those pages, their evidence from these documents left out, until
 * the next pages are written. Rewriting the pages' Blob at each removal would copy the whole index (120 MB at 100 MiB)
 * per document; clearing them sent every question to the words for minutes (issue 44).
 */
export interface PagesRemovedRecord {
  id: 'removed';
  builtAt: number;
  docIds: string[];
}
