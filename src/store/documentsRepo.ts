// Documents over IndexedDB (tables documents, sections, chunks, sentences): the only place that adds or removes a
// document. A document is written in ONE transaction (document, sections, chunks, sentences, meta) as soon as it is
// parsed, so it is either fully stored or absent and searchable by its words at once; its vectors may come with it
// or later (vectorsRepo.ts). Records are written in their stored form (storedForm.ts) and read back whole.
import type { IndexParams, PreparedDocument } from '../core/types.ts';
import { DEFAULT_INDEX_PARAMS } from '../core/types.ts';
import { withoutText } from '../core/bundle/index.ts';
import { removeAtomicDocument } from './atomicStore.ts';
import { SCHEMA_VERSION, type ConceptDb } from './db.ts';
import { allEmbedded, EMPTY_TALLY, emptyMeta, talliedAfter } from './indexMeta.ts';
import { removeKgChunks } from './kgStore.ts';
import { noteRemovedFromPages } from './pagesRepo.ts';
import { vectorRecord, withText } from './storedForm.ts';
import { batchDimension, checkEmbedder } from './vectorChecks.ts';

export type PutResult =
  { stored: true; docId: string } | { stored: false; docId: string; reason: 'duplicate' };

/** A document to store: parsed and chunked, with its sentence vectors when they are already known. */
export interface DocumentToStore {
  prepared: PreparedDocument;
  vectors?: Float32Array;
}

export class DocumentsRepo {
  constructor(private readonly db: ConceptDb) {}

  /**
   * Stores several documents in ONE transaction, all or none of them, so each document is either complete or
   * absent. Same content stored twice is kept once (reason 'duplicate'). Vectors are optional: the ingest pipeline
   * stores documents as soon as they are parsed (searchable by their words) and adds their vectors later
   * (VectorsRepo.putDocumentVectors); `embedderId` is needed only when some item carries vectors. Throws
   * EmbedderMismatchError when the library was built by another embedder, and leaves the store untouched on any
   * failure.
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
        const stored = await db.meta.get('index');
        const meta = stored ?? emptyMeta(params);
        // A new library starts its tally at nothing; one without a tally keeps none (IndexMeta).
        const tally = stored ? stored.sentenceTally : EMPTY_TALLY;
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
        const sentences = fresh.reduce((n, i) => n + i.prepared.sentences.length, 0);
        const chunks = fresh.reduce((n, i) => n + i.prepared.chunks.length, 0);
        await db.meta.put({
          ...meta,
          sentenceTally: talliedAfter(tally, { documents: fresh.length, sentences, chunks }),
          embedderId: embedded.length > 0 ? embedderId : meta.embedderId,
          dimension: dimension || meta.dimension,
          schemaVersion: SCHEMA_VERSION,
          layers: { lexical: true, semantic: await allEmbedded(db) },
          vectorRows: (meta.vectorRows ?? 0) + rows,
        });
        return results;
      },
    );
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
          .map((c) => withText(c, doc.text))
          .sort((a, b) => a.order - b.order);
        const sentences = (await db.sentences.where('docId').equals(doc.id).toArray())
          .map((x) => withText(x, doc.text))
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
        db.pages,
      ],
      async () => {
        const doc = await db.documents.get(docId);
        if (!doc) return false;
        // The pages index this document: it is noted beside them, and questions leave it out until the next drain
        // writes the library's pages again (a large library keeps answering from its pages meanwhile).
        await noteRemovedFromPages(db, docId);
        const chunkIds = (await db.chunks.where('docId').equals(docId).primaryKeys()) as string[];
        const vector = await db.vectors.get(docId);

        const sentences = await db.sentences.where('docId').equals(docId).count();
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
          await db.pages.clear();
        } else {
          const stored = await db.meta.get('index');
          if (stored) {
            // The graph still names the removed chunks: it is not the library's until the next refresh.
            const { graphBuiltAt: _stale, ...meta } = stored;
            await db.meta.put({
              ...meta,
              layers: { lexical: true, semantic: await allEmbedded(db) },
              vectorRows: Math.max(0, (meta.vectorRows ?? 0) - (vector?.count ?? 0)),
              sentenceTally: talliedAfter(meta.sentenceTally, {
                documents: -1,
                sentences: -sentences,
                chunks: -chunkIds.length,
              }),
            });
          }
        }
        return true;
      },
    );
  }
}
