// Sentence vectors over IndexedDB (table vectors: one record a document, int8 rows as storedForm.ts writes them).
// A document's vectors follow its text in one transaction of their own, and documentsAwaitingVectors() says which
// are missing, so a reload resumes embedding where it stopped and a stored vector is never computed twice. The
// store refuses vectors from an embedder other than the one that built it (vectorChecks.ts).
import { DEFAULT_INDEX_PARAMS } from '../core/types.ts';
import type { ConceptDb } from './db.ts';
import { allEmbedded, emptyMeta } from './indexMeta.ts';
import { vectorRecord } from './storedForm.ts';
import { batchDimension, checkEmbedder } from './vectorChecks.ts';

export class VectorsRepo {
  constructor(private readonly db: ConceptDb) {}

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
        layers: { lexical: true, semantic: await allEmbedded(db) },
        vectorRows: (meta.vectorRows ?? 0) + fresh.reduce((n, f) => n + f.rows, 0),
      });
      return fresh.map((f) => f.docId);
    });
  }

  /**
   * Ids of stored documents without sentence vectors, oldest first (addedAt, then id): what the embedding
   * stage has left to do. Reads keys only.
   */
  async documentsAwaitingVectors(): Promise<string[]> {
    const db = this.db;
    return db.transaction('r', [db.documents, db.vectors], async () => {
      const embedded = new Set(await db.vectors.toCollection().primaryKeys());
      const ids = await db.documents.orderBy('addedAt').primaryKeys();
      return ids.filter((id) => !embedded.has(id));
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
}
