// The repository over the IndexedDB schema: the only place that writes index content. One part a table group —
// documents (documentsRepo.ts), sentence vectors (vectorsRepo.ts), the concept graph (graphRepo.ts), the pending
// queue (queueRepo.ts), settings (settingsRepo.ts) and the library as a whole: counts, the corpus read, emptying
// (libraryRepo.ts) — and `Repo` composes them, so a service holds one object over one database. The one write
// that spans two groups is here: a batch of parsed files stores its documents and leaves the queue in one
// transaction. Runs in the page and in workers (no DOM-only API).
import type { IndexParams, PreparedDocument } from '../core/types.ts';
import { DEFAULT_INDEX_PARAMS } from '../core/types.ts';
import type { ConceptDb } from './db.ts';
import { DocumentsRepo, type PutResult } from './documentsRepo.ts';
import { GraphRepo } from './graphRepo.ts';
import { LibraryRepo } from './libraryRepo.ts';
import { QueueRepo } from './queueRepo.ts';
import { SettingsRepo } from './settingsRepo.ts';
import { VectorsRepo } from './vectorsRepo.ts';

export type { PutResult } from './documentsRepo.ts';
export type { LoadedCorpus } from './libraryRepo.ts';
export { EmbedderMismatchError } from './vectorChecks.ts';

/**
 * Every method is its part's, called through the facade: callers (and tests that stand in for one method) see a
 * single object, and a method calling another of another group goes through `this` (putParsedFiles ->
 * putPreparedDocuments).
 */
export class Repo {
  readonly documents: DocumentsRepo;
  readonly vectors: VectorsRepo;
  readonly graph: GraphRepo;
  readonly queue: QueueRepo;
  readonly settings: SettingsRepo;
  readonly library: LibraryRepo;

  constructor(readonly db: ConceptDb) {
    this.documents = new DocumentsRepo(db);
    this.vectors = new VectorsRepo(db);
    this.graph = new GraphRepo(db);
    this.queue = new QueueRepo(db);
    this.settings = new SettingsRepo(db);
    this.library = new LibraryRepo(db);
  }

  // ---- documents ----

  /**
   * Stores one prepared document and its sentence vectors (sentences × dimension, row-major), as
   * putPreparedDocuments does.
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

  putPreparedDocuments(...args: Parameters<DocumentsRepo['putPreparedDocuments']>) {
    return this.documents.putPreparedDocuments(...args);
  }
  preparedDocuments(...args: Parameters<DocumentsRepo['preparedDocuments']>) {
    return this.documents.preparedDocuments(...args);
  }
  removeDocument(...args: Parameters<DocumentsRepo['removeDocument']>) {
    return this.documents.removeDocument(...args);
  }

  // ---- sentence vectors ----

  putDocumentVectors(...args: Parameters<VectorsRepo['putDocumentVectors']>) {
    return this.vectors.putDocumentVectors(...args);
  }
  documentsAwaitingVectors(...args: Parameters<VectorsRepo['documentsAwaitingVectors']>) {
    return this.vectors.documentsAwaitingVectors(...args);
  }
  nextDocumentsToEmbed(...args: Parameters<VectorsRepo['nextDocumentsToEmbed']>) {
    return this.vectors.nextDocumentsToEmbed(...args);
  }

  // ---- the concept graph ----

  getStoredGraph() {
    return this.graph.getStoredGraph();
  }
  putGraph(...args: Parameters<GraphRepo['putGraph']>) {
    return this.graph.putGraph(...args);
  }
  getThemes() {
    return this.graph.getThemes();
  }
  getGraphState() {
    return this.graph.getGraphState();
  }
  putGraphState(...args: Parameters<GraphRepo['putGraphState']>) {
    return this.graph.putGraphState(...args);
  }

  // ---- the pending queue ----

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
    const tables = [
      db.documents,
      db.sections,
      db.chunks,
      db.sentences,
      db.vectors,
      db.meta,
      db.pending,
      db.pendingBytes,
    ];
    return db.transaction('rw', tables, async () => {
      const items = files.flatMap((f) => f.documents.map((prepared) => ({ prepared })));
      const results = await this.putPreparedDocuments(items, null, params);
      await this.queue.settleParsed(
        files.map((f) => f.pendingId),
        failed,
      );
      let at = 0;
      return files.map((f) => results.slice(at, (at += f.documents.length)));
    });
  }

  enqueue(...args: Parameters<QueueRepo['enqueue']>) {
    return this.queue.enqueue(...args);
  }
  pendingQueue() {
    return this.queue.pendingQueue();
  }
  waitingIds() {
    return this.queue.waitingIds();
  }
  pendingFile(...args: Parameters<QueueRepo['pendingFile']>) {
    return this.queue.pendingFile(...args);
  }
  startPendingMany(...args: Parameters<QueueRepo['startPendingMany']>) {
    return this.queue.startPendingMany(...args);
  }
  startPending(...args: Parameters<QueueRepo['startPending']>) {
    return this.queue.startPending(...args);
  }
  requeuePending(...args: Parameters<QueueRepo['requeuePending']>) {
    return this.queue.requeuePending(...args);
  }
  clearWaitingPending() {
    return this.queue.clearWaitingPending();
  }
  pendingSummary() {
    return this.queue.pendingSummary();
  }
  failedPending() {
    return this.queue.failedPending();
  }
  waitingCount() {
    return this.queue.waitingCount();
  }
  queuedBytes() {
    return this.queue.queuedBytes();
  }
  markPending(...args: Parameters<QueueRepo['markPending']>) {
    return this.queue.markPending(...args);
  }
  removePending(...args: Parameters<QueueRepo['removePending']>) {
    return this.queue.removePending(...args);
  }
  clearFailedPending() {
    return this.queue.clearFailedPending();
  }

  // ---- settings (local only, never exported) ----

  getSetting<T>(key: string): Promise<T | undefined> {
    return this.settings.getSetting<T>(key);
  }
  setSetting(...args: Parameters<SettingsRepo['setSetting']>) {
    return this.settings.setSetting(...args);
  }

  // ---- the library as a whole ----

  getMeta() {
    return this.library.getMeta();
  }
  counts() {
    return this.library.counts();
  }
  checkTally() {
    return this.library.checkTally();
  }
  projectChunks(...args: Parameters<LibraryRepo['projectChunks']>) {
    return this.library.projectChunks(...args);
  }
  layerCounts() {
    return this.library.layerCounts();
  }
  chunkIds() {
    return this.library.chunkIds();
  }
  hasVectors() {
    return this.library.hasVectors();
  }
  chunkSizes() {
    return this.library.chunkSizes();
  }
  documentTitles(ids: readonly string[]) {
    return this.library.documentTitles(ids);
  }
  loadChunks(ids: string[]) {
    return this.library.loadChunks(ids);
  }
  loadCorpus(...args: Parameters<LibraryRepo['loadCorpus']>) {
    return this.library.loadCorpus(...args);
  }
  loadAdded(...args: Parameters<LibraryRepo['loadAdded']>) {
    return this.library.loadAdded(...args);
  }
  clearLibrary() {
    return this.library.clearLibrary();
  }
}
