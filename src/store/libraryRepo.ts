// The library as a whole over IndexedDB: its index record, its counts, and the whole corpus read at once for the
// query worker. Reads span every content table; writes of single tables are the other repos'.
import { pagesRecords, type PagedChunkRecord } from '../core/paged/index.ts';
import type { ChunkRecord, DocumentRecord, SectionRecord, SentenceRecord } from '../core/types.ts';
import type { ConceptDb } from './db.ts';
import { PagesRepo } from './pagesRepo.ts';
import { waitingFiles } from './queueRepo.ts';
import { keptTally } from './indexMeta.ts';
import type { GraphRecord, IndexMeta } from './records.ts';
import { loadedVectors, withText } from './storedForm.ts';

/** Counts shown in the Library view (and checked by the end-to-end tests). */
export interface StoreCounts {
  documents: number;
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

export class LibraryRepo {
  constructor(private readonly db: ConceptDb) {}

  async getMeta(): Promise<IndexMeta | undefined> {
    return this.db.meta.get('index');
  }

  async counts(): Promise<StoreCounts> {
    const db = this.db;
    return db.transaction(
      'r',
      [db.documents, db.chunks, db.sentences, db.vectors, db.meta, db.pending, db.kgEntities, db.kgRelations],
      async () => {
        const { embeddedSentences, ...layers } = await this.layerCounts();
        return {
          ...layers,
          vectors: embeddedSentences,
          pending: await waitingFiles(db).count(),
          kgEntities: await db.kgEntities.count(),
          kgRelations: await db.kgRelations.count(),
        };
      },
    );
  }

  /**
   * Documents, chunks and sentences stored, how many of them have their vectors, and the concept graph's counts as
   * last written (counts only, no records read: the index record's tally).
   */
  async layerCounts(): Promise<{
    documents: number;
    chunks: number;
    sentences: number;
    embeddedDocuments: number;
    embeddedSentences: number;
    concepts: number;
    edges: number;
  }> {
    const db = this.db;
    return db.transaction('r', [db.documents, db.chunks, db.sentences, db.vectors, db.meta], async () => {
      const meta = await db.meta.get('index');
      const { documents, chunks, sentences } = await documentCounts(db, meta);
      return {
        documents,
        chunks,
        sentences,
        embeddedDocuments: await db.vectors.count(),
        embeddedSentences: meta?.vectorRows ?? 0,
        concepts: meta?.concepts ?? 0,
        edges: meta?.edges ?? 0,
      };
    });
  }

  /**
   * Sets the index record's tally right, counting the documents, sentences and chunks where it has none, one without
   * the chunks (a library from before them, or imported by an app from before them), or one of other documents (an
   * app from before the tally wrote or removed documents behind it). The counts trust a tally with its chunks
   * (keptTally) and never count: this is the check, run by the ingest worker seconds after it starts, once the first
   * question had the store to itself (ingest.ts). Returns whether the tally changed.
   */
  async checkTally(): Promise<boolean> {
    const db = this.db;
    return db.transaction('rw', [db.documents, db.chunks, db.sentences, db.meta], async () => {
      const meta = await db.meta.get('index');
      if (!meta) return false;
      const documents = await db.documents.count();
      const tally = meta.sentenceTally;
      if (tally?.documents === documents && tally.chunks !== undefined) return false;
      const [sentences, chunks] = await Promise.all([db.sentences.count(), db.chunks.count()]);
      await db.meta.put({ ...meta, sentenceTally: { documents, sentences, chunks } });
      return true;
    });
  }

  /**
   * Writes the index record's projected chunks (IndexMeta.projectedChunks; undefined: nothing waits), when they
   * changed. A library without an index record (nothing stored yet) has nothing to project onto: the first refresh
   * of a drop comes after its first documents. Returns whether the record changed.
   */
  async projectChunks(projected: number | undefined): Promise<boolean> {
    const db = this.db;
    return db.transaction('rw', db.meta, async () => {
      const meta = await db.meta.get('index');
      if (!meta || meta.projectedChunks === projected) return false;
      const { projectedChunks: _old, ...rest } = meta;
      await db.meta.put(projected === undefined ? rest : { ...rest, projectedChunks: projected });
      return true;
    });
  }

  /**
   * Loads the whole corpus for the query worker, records whole (texts sliced back, vectors as Float32). `mark` is
   * called as each table arrives, with its name (the first-question bench times them). Every read is asked for at
   * once: the browser reads them in order while this thread decodes each as it comes.
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
          chunks: chunkRecords.map((c) => withText(c, texts.get(c.docId))),
          sentences: sentenceRecords.map((s) => withText(s, texts.get(s.docId))),
          vectors,
          graph,
        };
      },
    );
  }

  /**
   * The corpus as loadCorpus reads it, from `held` (a corpus read before) and the records of the documents stored
   * since: only those are read, with the index record and the graph. Vectors are read only when every sentence has
   * its vector (the engine takes none before: retrievalInput), and then for every document. Null when a document of
   * `held` is gone (a removal: the caller reads the whole library). Every list is in id order, as loadCorpus's.
   */
  async loadAdded(held: LoadedCorpus, mark?: (step: string) => void): Promise<LoadedCorpus | null> {
    const db = this.db;
    return db.transaction(
      'r',
      [db.meta, db.documents, db.sections, db.chunks, db.sentences, db.vectors, db.graph],
      async () => {
        const [meta, ids] = await Promise.all([
          db.meta.get('index'),
          db.documents.toCollection().primaryKeys() as Promise<string[]>,
        ]);
        const stored = new Set(ids);
        if (held.documents.some((d) => !stored.has(d.id))) return null;
        const known = new Set(held.documents.map((d) => d.id));
        const added = ids.filter((id) => !known.has(id));
        // One indexed read per document, all asked at once (as loadChunks).
        const byDocument = <T>(read: (docId: string) => Promise<T[]>) =>
          Promise.all(added.map(read)).then((lists) => lists.flat());
        const tally = meta?.sentenceTally;
        const allVectors = tally !== undefined && (meta?.vectorRows ?? 0) >= tally.sentences;
        const [documents, sections, chunkRecords, sentenceRecords, graph, vectorRecords] = await Promise.all([
          db.documents.bulkGet(added),
          byDocument((id) => db.sections.where('docId').equals(id).toArray()),
          byDocument((id) => db.chunks.where('docId').equals(id).toArray()),
          byDocument((id) => db.sentences.where('docId').equals(id).toArray()),
          db.graph.get('concept'),
          allVectors ? db.vectors.toArray() : Promise.resolve([]),
        ]);
        mark?.('added');
        const present = documents.filter((d) => d !== undefined);
        const texts = new Map(present.map((d) => [d.id, d.text]));
        return {
          meta,
          documents: mergeById(held.documents, present),
          sections: mergeById(held.sections, sections),
          chunks: mergeById(
            held.chunks,
            chunkRecords.map((c) => withText(c, texts.get(c.docId))),
          ),
          sentences: mergeById(
            held.sentences,
            sentenceRecords.map((c) => withText(c, texts.get(c.docId))),
          ),
          vectors: new Map(vectorRecords.map((v) => [v.docId, loadedVectors(v)])),
          graph,
        };
      },
    );
  }

  /** Every stored chunk's id, in id order (the keys only: no record is read). */
  async chunkIds(): Promise<string[]> {
    return (await this.db.chunks.toCollection().primaryKeys()) as string[];
  }

  /**
   * Every stored chunk's document and tokens, in id order (the records without their text): what a graph refresh
   * sizes the library's themes by, without reading the documents.
   */
  async chunkSizes(): Promise<Map<string, { docId: string; tokens: number }>> {
    const records = await this.db.chunks.toArray();
    return new Map(records.map((c) => [c.id, { docId: c.docId, tokens: c.tokens }]));
  }

  /**
   * Which of these documents are still stored (absent: removed), from the primary keys alone: no record is read. Stale
   * early evidence is checked so before it is sent (QueryService.staleEvidence); a bulkGet of the whole records read
   * each cited document's text (and a scanned PDF's recognised words) only to learn that it exists.
   */
  async storedDocuments(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    return new Set(
      (await this.db.documents
        .where(':id')
        .anyOf([...ids])
        .primaryKeys()) as string[],
    );
  }

  /** The titles of these documents (absent: removed), by id. */
  async documentTitles(ids: readonly string[]): Promise<Map<string, string>> {
    const documents = await this.db.documents.bulkGet([...ids]);
    return new Map(documents.filter((d) => d !== undefined).map((d) => [d.id, d.title]));
  }

  /**
   * The records of these chunks as the evidence reads them (text, title, section path, sentences), built from their
   * documents; a chunk no longer stored is left out. The passages a themes answer shows are read so when the graph
   * refresh stores them with the themes (graphRepo.ts), so that the answer itself reads no document.
   */
  async passageRecords(chunkIds: readonly string[]): Promise<Map<string, PagedChunkRecord>> {
    const wanted = new Set(chunkIds);
    const chunks = await this.db.chunks.bulkGet([...wanted]);
    const found = new Map<string, PagedChunkRecord>();
    const documents = await new PagesRepo(this.db).documentsOf(chunks.flatMap((c) => (c ? [c.docId] : [])));
    for (const d of documents) {
      for (const record of pagesRecords(d).records) if (wanted.has(record.id)) found.set(record.id, record);
    }
    return found;
  }

  /** Whether any document has its sentence vectors stored (one key read at most). */
  async hasVectors(): Promise<boolean> {
    return (await this.db.vectors.limit(1).primaryKeys()).length > 0;
  }

  /**
   * The chunks of these ids with their documents and those documents' sections (texts sliced back; chunks in id
   * order, as loadCorpus gives them): what a graph refresh analyses of the documents stored since the last one,
   * without reading the rest of the library.
   */
  async loadChunks(ids: string[]): Promise<Pick<LoadedCorpus, 'documents' | 'sections' | 'chunks'>> {
    const db = this.db;
    return db.transaction('r', [db.documents, db.sections, db.chunks], async () => {
      const chunkRecords = (await db.chunks.bulkGet(ids)).filter((c) => c !== undefined);
      const docIds = [...new Set(chunkRecords.map((c) => c.docId))];
      const [documents, sections] = await Promise.all([
        db.documents.bulkGet(docIds),
        // One indexed read per document, all asked at once (anyOf over many keys is far slower in fake-indexeddb).
        Promise.all(docIds.map((id) => db.sections.where('docId').equals(id).toArray())).then((l) =>
          l.flat(),
        ),
      ]);
      const present = documents.filter((d) => d !== undefined);
      const texts = new Map(present.map((d) => [d.id, d.text]));
      const chunks = chunkRecords
        .map((c) => withText(c, texts.get(c.docId)))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return { documents: present, sections, chunks };
    });
  }
}

/**
 * The documents, chunks and sentences stored: the index record's tally when it has the chunks (keptTally), else
 * counted, with the sentences of a tally from before the chunks while its documents match (IndexMeta.sentenceTally).
 * Inside a transaction over documents, chunks, sentences and meta.
 */
async function documentCounts(
  db: ConceptDb,
  meta: IndexMeta | undefined,
): Promise<{ documents: number; chunks: number; sentences: number }> {
  const kept = keptTally(meta);
  if (kept) return kept;
  const documents = await db.documents.count();
  const tally = meta?.sentenceTally;
  return {
    documents,
    chunks: await db.chunks.count(),
    sentences: tally?.documents === documents ? tally.sentences : await db.sentences.count(),
  };
}

/** Two lists of records into one in id order (`held` is in id order already), as a read of the table gives them. */
function mergeById<T extends { id: string }>(held: readonly T[], added: T[]): T[] {
  if (added.length === 0) return [...held];
  added.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const out: T[] = new Array<T>(held.length + added.length);
  let i = 0;
  let j = 0;
  for (let k = 0; k < out.length; k++) {
    out[k] = j >= added.length || (i < held.length && held[i].id < added[j].id) ? held[i++] : added[j++];
  }
  return out;
}
