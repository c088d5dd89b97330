// The library's pages in IndexedDB (schema v4, table `pages`): a large library's lexical index as one Blob, read by
// ranges by the query worker (src/services/library/storedPages.ts) instead of loading the whole corpus, and written by
// the ingest worker from the stored documents (src/services/ingest/pagesWrite.ts). The pages name the library they
// were built from by a stamp (the document ids and the chunk count): pages of another library are never read. A
// removed document is noted beside them (PagesRemovedRecord, documentsRepo.ts) until the next pages are written.
import { Sha256, toHex } from '../core/bundle/index.ts';
import type { PagesSourceInput } from '../core/paged/index.ts';
import type { DocumentRecord } from '../core/types.ts';
import type { ConceptDb } from './db.ts';
import { talliedChunks } from './indexMeta.ts';
import type { PagesRecord, PagesRemovedRecord } from './records.ts';
import { withText } from './storedForm.ts';

/** What the library is, as the pages were built from it: its documents (ids) and chunk count. */
export interface LibraryStamp {
  stamp: string;
  documents: number;
  chunks: number;
}

const encoder = new TextEncoder();

/** Documents read per transaction when the pages are built (their text, sections, chunks and sentences). */
const DOCUMENTS_PER_READ = 64;

export class PagesRepo {
  constructor(private readonly db: ConceptDb) {}

  /**
   * The library's stamp: a hash of its document ids (keys only, no record read) and its chunk count (the tally's,
   * else counted). Any document added or removed changes it; a document's content never changes under its id (the
   * id is a hash of the text).
   */
  async libraryStamp(): Promise<LibraryStamp> {
    const db = this.db;
    return db.transaction('r', [db.documents, db.chunks, db.meta], async () => {
      const [ids, meta] = await Promise.all([
        db.documents.toCollection().primaryKeys() as Promise<string[]>,
        db.meta.get('index'),
      ]);
      // The same number as a count() (talliedChunks), so pages stamped before are still current.
      const chunks = talliedChunks(meta, ids.length) ?? (await db.chunks.count());
      const hash = new Sha256();
      for (const id of ids) hash.update(encoder.encode(`${id}\n`));
      return { stamp: `${ids.length}:${chunks}:${toHex(hash.digest())}`, documents: ids.length, chunks };
    });
  }

  /** The stored pages (any stamp), or undefined. */
  async get(): Promise<PagesRecord | undefined> {
    return this.db.pages.get('library');
  }

  /** The documents removed since the pages named by its `builtAt` were written (PagesRemovedRecord), if any. */
  async removed(): Promise<PagesRemovedRecord | undefined> {
    return removedTable(this.db).get('removed');
  }

  /** The stored pages' stamp alone (the record is small apart from its Blob, which is not read by this). */
  async storedStamp(): Promise<string | undefined> {
    return (await this.db.pages.get('library'))?.stamp;
  }

  /**
   * Stores new pages in place of the old, in one put: a reload or crash before it commits leaves the old pages, and
   * the stamp says which library they index.
   */
  async put(record: Omit<PagesRecord, 'id'>): Promise<void> {
    await this.db.pages.put({ id: 'library', ...record });
  }

  async remove(): Promise<void> {
    await this.db.pages.clear();
  }

  /** The chunk count of the library (what the pages threshold compares). */
  async chunkCount(): Promise<number> {
    return this.db.chunks.count();
  }

  /**
   * Every stored document with its sections, chunks (text sliced back) and sentences, in id order, DOCUMENTS_PER_READ
   * documents a transaction: the text of the whole library is never held at once.
   */
  async *documents(): AsyncGenerator<PagesSourceInput> {
    for await (const batch of this.documentBatches()) yield* batch;
  }

  /**
   * The same documents as documents(), as the batches they are read in (`perRead` documents a transaction): a
   * question scored over the stored chunks (src/services/questions/askByWords.ts) holds one batch at a time, and
   * reads them without their sentences (`sentences: false`), which only the evidence shown needs (documentsOf):
   * they are most of the records read.
   */
  async *documentBatches(
    perRead = DOCUMENTS_PER_READ,
    options: { sentences?: boolean } = {},
  ): AsyncGenerator<PagesSourceInput[]> {
    const db = this.db;
    const withSentences = options.sentences ?? true;
    let after: string | undefined;
    for (;;) {
      const page = await db.transaction(
        'r',
        [db.documents, db.sections, db.chunks, db.sentences],
        async () => {
          const docs = await (
            after === undefined ? db.documents.orderBy(':id') : db.documents.where(':id').above(after)
          )
            .limit(perRead)
            .toArray();
          return this.withParts(docs, withSentences);
        },
      );
      if (page.length === 0) return;
      after = page[page.length - 1].doc.id;
      yield page;
      if (page.length < perRead) return;
    }
  }

  /**
   * These documents with their sections, chunks and sentences, in one transaction; a document no longer stored is
   * left out. A question scored by words reads the documents of its best chunks again this way (askByWords.ts).
   */
  async documentsOf(docIds: readonly string[]): Promise<PagesSourceInput[]> {
    const db = this.db;
    return db.transaction('r', [db.documents, db.sections, db.chunks, db.sentences], async () => {
      const docs = await db.documents.bulkGet([...new Set(docIds)]);
      return this.withParts(
        docs.filter((d) => d !== undefined),
        true,
      );
    });
  }

  /** The documents' sections, chunks (text sliced back) and sentences, inside the caller's transaction. */
  private async withParts(docs: DocumentRecord[], withSentences: boolean): Promise<PagesSourceInput[]> {
    const db = this.db;
    // One indexed read per document and table, all asked at once (anyOf over many keys is far slower in
    // fake-indexeddb).
    const parts = await Promise.all(
      docs.map((d) =>
        Promise.all([
          db.sections.where('docId').equals(d.id).toArray(),
          db.chunks.where('docId').equals(d.id).toArray(),
          withSentences ? db.sentences.where('docId').equals(d.id).toArray() : [],
        ]),
      ),
    );
    return docs.map((doc, i): PagesSourceInput => {
      const [sections, chunks, sentences] = parts[i];
      return {
        doc,
        sections,
        chunks: chunks.map((c) => withText(c, doc.text)),
        // Offsets only: the records keep sentences as [start, end] pairs into the chunk's document.
        sentences,
      };
    });
  }
}

/** The pages table read as the record of removed documents beside the pages (PagesRemovedRecord). */
function removedTable(db: ConceptDb) {
  return db.table<PagesRemovedRecord, 'removed'>('pages');
}

/**
 * Notes in the pages table that `docId` was removed (inside the caller's transaction over `pages`): the stored pages
 * stay and answer without it until the next pages are written.
 */
export async function noteRemovedFromPages(db: ConceptDb, docId: string): Promise<void> {
  const pages = await db.pages.get('library');
  if (!pages) return;
  const table = removedTable(db);
  const before = await table.get('removed');
  const docIds = before && before.builtAt === pages.builtAt ? before.docIds : [];
  await table.put({ id: 'removed', builtAt: pages.builtAt, docIds: [...docIds, docId] });
}
