// The repository over the IndexedDB schema: the only place that writes index content. One part a table group —
// documents (documentsRepo.ts), sentence vectors (vectorsRepo.ts), the concept graph (graphRepo.ts), the pending
// queue (queueRepo.ts), settings (settingsRepo.ts) and the library as a whole: counts, the corpus read
// (libraryRepo.ts) — and `Repo` composes them, so a service holds one object over one database. The one write
// that spans two groups is here: a batch of parsed files stores its documents and leaves the queue in one
// transaction. Runs in the page and in workers (no DOM-only API).
import type { PreparedDocument } from '../core/types.ts';
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

/** The methods each part lends the facade, called on the part as they are. */
const FORWARDED = {
  documents: ['putPreparedDocuments', 'preparedDocuments', 'removeDocument'],
  vectors: ['putDocumentVectors', 'documentsAwaitingVectors', 'nextDocumentsToEmbed'],
  graph: ['getStoredGraph', 'putGraph', 'getGraphState', 'putGraphState'],
  queue: [
    'enqueue',
    'waitingIds',
    'pendingFile',
    'startPendingMany',
    'startPending',
    'requeuePending',
    'clearWaitingPending',
    'pendingSummary',
    'failedPending',
    'waitingCount',
    'queuedBytes',
    'markFailed',
    'removePending',
    'clearFailedPending',
  ],
  settings: ['getSetting', 'setSetting'],
  library: [
    'getMeta',
    'counts',
    'checkTally',
    'projectChunks',
    'layerCounts',
    'chunkIds',
    'hasVectors',
    'chunkSizes',
    'documentTitles',
    'storedDocuments',
    'passageRecords',
    'loadChunks',
    'loadCorpus',
    'loadAdded',
  ],
} as const satisfies { [P in Part]: readonly (keyof RepoParts[P])[] };

type Part = 'documents' | 'vectors' | 'graph' | 'queue' | 'settings' | 'library';
type Lent<P extends Part> = Pick<RepoParts[P], Extract<(typeof FORWARDED)[P][number], keyof RepoParts[P]>>;
type Forwarded = Lent<'documents'> &
  Lent<'vectors'> &
  Lent<'graph'> &
  Lent<'queue'> &
  Lent<'settings'> &
  Lent<'library'>;

/**
 * The parts and the writes that span two of them. Every other method is its part's, lent to the facade (FORWARDED,
 * on the prototype) rather than written out once more a method: callers (and tests that stand in for one method)
 * see a single object, and a method calling another of another group goes through `this` (putParsedFiles ->
 * putPreparedDocuments).
 */
class RepoParts {
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

  /**
   * Stores the documents of several parsed files and settles their queue records in ONE transaction: a stored
   * file leaves the queue with its documents, a failed one is marked failed with its reason (its bytes dropped),
   * so a reload finds each file either done or still queued, never half. Returns each file's put results.
   */
  async putParsedFiles(
    this: Repo,
    files: Array<{ pendingId: string; documents: PreparedDocument[] }>,
    failed: Array<{ pendingId: string; reason: string }> = [],
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
      const results = await this.putPreparedDocuments(items);
      await this.queue.settleParsed(
        files.map((f) => f.pendingId),
        failed,
      );
      let at = 0;
      return files.map((f) => results.slice(at, (at += f.documents.length)));
    });
  }
}

for (const [part, names] of Object.entries(FORWARDED)) {
  for (const name of names) {
    Object.defineProperty(RepoParts.prototype, name, {
      value(this: Record<string, Record<string, (...args: unknown[]) => unknown>>, ...args: unknown[]) {
        return this[part][name](...args);
      },
      writable: true,
      configurable: true,
    });
  }
}

export type Repo = RepoParts & Forwarded;
export const Repo = RepoParts as new (db: ConceptDb) => Repo;
