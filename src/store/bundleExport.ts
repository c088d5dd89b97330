// Exports the library in IndexedDB as one bundle file: every index layer (documents, sections, chunks, sentences,
// sentence vectors, the concept graph, the KG and atomic-question tables), never the settings (API key) or the pending queue.
import {
  BUNDLE_EXTENSION,
  snapshotCounts,
  writeSnapshotBundle,
  bundleStream,
  type IndexSnapshot,
} from '../core/bundle/index.ts';
import type { VectorEncoding } from '../core/bundle/index.ts';
import type { ConceptDb } from './db.ts';
import { loadedVectors, withText } from './storedForm.ts';

/** The distilled layers (the KG, the atomic questions) travel as record tables under these store names. */
export const LAYER_TABLES = [
  'kgChunks',
  'kgEntities',
  'kgRelations',
  'atomicChunks',
  'atomicQuestions',
] as const;

export interface LibraryExportOptions {
  appVersion: string;
  /** int8 with a per-vector scale (default, about a quarter of the size) or exact Float32. */
  vectors?: VectorEncoding;
}

/**
 * Reads the whole library in ONE read transaction, so an export taken while indexing runs is still a consistent
 * set of layers (a document is in it with all its chunks, sentences and vectors, or not at all).
 */
export async function librarySnapshot(db: ConceptDb): Promise<IndexSnapshot> {
  const tables = [db.meta, db.documents, db.sections, db.chunks, db.sentences, db.vectors, db.graph];
  const layerTables = LAYER_TABLES.map((name) => db.table(name));
  return db.transaction('r', [...tables, ...layerTables], async () => {
    const meta = await db.meta.get('index');
    const vectors = new Map<string, Float32Array>();
    await db.vectors.each((v) => {
      if (v.count > 0) vectors.set(v.docId, loadedVectors(v));
    });
    // Records whole, as a bundle carries them: chunk and sentence text sliced back from the document text.
    const documents = await db.documents.toArray();
    const texts = new Map(documents.map((d) => [d.id, d.text]));
    const snapshot: IndexSnapshot = {
      embedder: meta?.embedderId ? { id: meta.embedderId, dimension: meta.dimension } : null,
      params: { ...(meta?.params ?? {}) },
      documents,
      sections: await db.sections.toArray(),
      chunks: (await db.chunks.toArray()).map((c) => withText(c, texts.get(c.docId))),
      sentences: (await db.sentences.toArray()).map((s) => withText(s, texts.get(s.docId))),
      vectors,
      graph: (await db.graph.get('concept'))?.graph as unknown as Record<string, unknown> | undefined,
      tables: {},
    };
    for (const t of layerTables) snapshot.tables[t.name] = await t.toArray();
    if (!snapshot.embedder) snapshot.vectors.clear();
    return snapshot;
  });
}

/** The bundle as a byte stream (for a Response, a file handle or a worker transfer). */
async function exportLibraryStream(
  db: ConceptDb,
  options: LibraryExportOptions,
): Promise<{ stream: ReadableStream<Uint8Array>; counts: Record<string, number> }> {
  const snapshot = await librarySnapshot(db);
  if (snapshot.documents.length === 0) throw new Error('bundle export: the library is empty');
  return {
    stream: bundleStream(
      writeSnapshotBundle(snapshot, { appVersion: options.appVersion, vectors: options.vectors }),
    ),
    counts: snapshotCounts(snapshot),
  };
}

/** The bundle as a Blob, ready for a download link (the browser may keep a large Blob on disk). */
export async function exportLibraryBlob(db: ConceptDb, options: LibraryExportOptions): Promise<Blob> {
  const { stream } = await exportLibraryStream(db, options);
  const parts: BlobPart[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value as Uint8Array<ArrayBuffer>);
  }
  return new Blob(parts, { type: 'application/octet-stream' });
}

/** A file name for the download: "conceptrag-<date>.bundle". */
export function bundleFileName(now = new Date()): string {
  return `conceptrag-${now.toISOString().slice(0, 10)}${BUNDLE_EXTENSION}`;
}
