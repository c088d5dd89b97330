// Library state: what the store holds as the views show it (counts, the document list, layers, storage), read
// again as the ingest worker reports changes, and the library's removal. Its other jobs are parts of their own:
// an indexing run as the page follows it (indexingRun.svelte.ts), what a drop does before ingest
// (dropIntake.svelte.ts) and bundles exported, imported or opened read-only (libraryBundles.svelte.ts).
import { proxy } from 'comlink';
import type { DocumentRecord, OcrLanguageSource, RecognisedText } from '../../core/types.ts';
import type { PendingRecord } from '../../store/db.ts';
import type { StoreCounts } from '../../store/libraryRepo.ts';
import {
  SENTENCE_VECTORS_SETTING,
  type IngestEvent,
  type LibraryCoverage,
} from '../../services/ingest/ingestProtocol.ts';
import { removedOutcomes } from '../intake.ts';
import { announcedFiles } from '../../store/intakeStore.ts';
import { pagesLibrary } from '../../services/library/pagesThreshold.ts';
import { ingestWorker } from '../workers.ts';
import { crossTab } from './crossTab.svelte.ts';
import { sharedProgress } from './sharedProgress.svelte.ts';
import { pageRepo } from './db.ts';
import { storageSplit, type StorageSplit } from '../estimates/storageSplit.ts';
import { libraryStamp } from './libraryStamp.ts';
import { IndexingRun } from './indexingRun.svelte.ts';
import { DropIntake } from './dropIntake.svelte.ts';
import { LibraryBundles } from './libraryBundles.svelte.ts';
import type { LibraryHost, ReadOnlyLibrary } from './libraryHost.ts';

type DocumentSummary = Pick<DocumentRecord, 'id' | 'title' | 'sourceName' | 'mime' | 'size' | 'addedAt'> & {
  /**
   * Position in the order the documents were stored (0 = oldest). The graph is rebuilt over every stored
   * document, so the ones it covers are the oldest `searchableDocuments`.
   */
  order: number;
  /** Its sentence vectors are stored: found by meaning too. */
  vectors: boolean;
  /** Its text was recognised from pictures: on how many pages, in which language, decided how. */
  recognised?: { pages: number; language: RecognisedText['language']; languageFrom?: OcrLanguageSource };
};

/** A stored document as the list shows it, before its place and layers are known. */
type ListedDocument = Omit<DocumentSummary, 'order' | 'vectors'>;

/** A stored document's line in the list: its names and size, and the recognition it went through if any. */
function listed({ id, title, sourceName, mime, size, addedAt, ocr }: DocumentRecord): ListedDocument {
  const doc: ListedDocument = { id, title, sourceName, mime, size, addedAt };
  if (ocr) {
    doc.recognised = { pages: ocr.pages.length, language: ocr.language };
    if (ocr.languageFrom) doc.recognised.languageFrom = ocr.languageFrom;
  }
  return doc;
}

/** Which of these documents have their sentence vectors stored (keys only: the records hold the vectors). */
async function withVectors(documents: readonly { id: string }[]): Promise<Set<string>> {
  const ids = documents.map((d) => d.id);
  return new Set((await pageRepo().db.vectors.where(':id').anyOf(ids).primaryKeys()) as string[]);
}

/** The Library view lists the newest documents only (a library of 20,000 would be a page of them). */
const DOCUMENT_LIST_LIMIT = 500;
/** How often the page re-reads the store while files are being indexed (see scheduleRefresh). */
const RUNNING_REFRESH_MS = 3000;
/**
 * While this tab indexes, the store's counts (count()s, which Chromium answers by walking each store, so each costs
 * more with every document stored) are read at most this often, and at most once per COUNT_SPACING times as long
 * as the last read took: a 100 MB drop spent a growing share of its time counting. Meanwhile the documents and
 * sentences come from the worker's coverage (counts it keeps as it stores), and the counts are read in full again
 * when the run ends.
 */
const RUNNING_COUNTS_MS = 30_000;
const COUNT_SPACING = 20;

const EMPTY_COUNTS: StoreCounts = {
  documents: 0,
  chunks: 0,
  sentences: 0,
  vectors: 0,
  concepts: 0,
  edges: 0,
  pending: 0,
  kgEntities: 0,
  kgRelations: 0,
};

/**
 * The layers as the worker's coverage reports them, the store's index record's own rules applied to the counts it
 * carries (indexMeta.ts allEmbedded: every document has its vectors; the lexical layer: chunks or concepts stored).
 * The header took them from the store's read alone, read at the run's pace: it said "semantic —" for ~3 s after the
 * Library view said "Indexing — done". `known`: what is kept where the report has no counts of its own.
 */
function layersOf(
  coverage: LibraryCoverage,
  known: { lexical: boolean; semantic: boolean },
): { lexical: boolean; semantic: boolean } {
  return {
    lexical:
      coverage.chunks === undefined ? known.lexical : coverage.chunks > 0 || (coverage.concepts ?? 0) > 0,
    semantic: coverage.documents > 0 && coverage.embeddedDocuments === coverage.documents,
  };
}

/** The store's counts with the figures a newer coverage report carries (documents, sentences, the graph's). */
function withCoverage(counts: StoreCounts, coverage: LibraryCoverage): StoreCounts {
  return {
    ...counts,
    documents: coverage.documents,
    sentences: coverage.sentences,
    chunks: coverage.chunks ?? counts.chunks,
    concepts: coverage.concepts ?? counts.concepts,
    edges: coverage.edges ?? counts.edges,
    vectors: coverage.embeddedSentences,
    embeddedDocuments: coverage.embeddedDocuments,
  };
}

/**
 * @public Exported so that eslint-plugin-svelte's prefer-svelte-reactivity reads its fields (the rule passes over a
 * class that is not exported); the app uses the one instance, `library`. Its parts (run, intake, bundles) are given
 * it as a LibraryHost (libraryHost.ts), so that they need not import this file. Its members a part calls and no view
 * reads: refresh, scheduleRefresh, fileStored, heardCoverage, coverageFromCounts, showReadOnly.
 */
export class LibraryState implements LibraryHost {
  counts = $state<StoreCounts>({ ...EMPTY_COUNTS });
  /**
   * The concepts of the pages a large library is answered from (pagesThreshold.ts), or null when it is answered in
   * memory. Such a library builds no concept graph after its first pages (a drop that will be large, none at all), so
   * the index record's concept and edge counts are not its own: the Library view shows the pages' concepts, and no
   * edge count (the walk graph's edges are counted from the pages per question, never stored).
   */
  pagesConcepts = $state<number | null>(null);
  /** What this site keeps in the browser: the library (IndexedDB) apart from the app's offline copy. */
  storage = $state<StorageSplit | null>(null);
  documents = $state<DocumentSummary[]>([]);
  /** Files that failed (name and reason); their bytes are gone. */
  failed = $state<Omit<PendingRecord, 'bytes'>[]>([]);
  /** Files waiting in the queue (queued, or interrupted by a reload). */
  waiting = $state(0);
  running = $state(false);
  /** Documents just removed: the worker refreshes the graph and pages of what remains (cleared on its idle). */
  removing = $state<{ documents: number } | null>(null);
  message = $state<string | null>(null);
  /** What went well (an export, an import, a cancel asked for): shown as news, not as an alert like `message`. */
  notice = $state<string | null>(null);
  layers = $state<{ lexical: boolean; semantic: boolean; embedderId: string | null }>({
    lexical: false,
    semantic: false,
    embedderId: null,
  });
  /**
   * Increments whenever what questions read has changed in the store (libraryStamp), so the Ask view knows to
   * reload its engine. Not on the first read: the query worker reads the store itself, and a load it began
   * before that read (a question asked as the app opens) is of the same library, not one to load again (each
   * load of a large library takes seconds).
   */
  version = $state(0);
  /** What the store held at the last refresh, as far as questions are concerned (null before the first). */
  private stamp: string | null = null;
  /** The store has been read once: until then `layers` and `counts` are the empty defaults, not the library's. */
  read = $state(false);
  /**
   * start() has finished: this tab's worker is connected and a queue left in the store was resumed (or is waiting for
   * another tab). A spec that drops files in another tab waits for it, so the two starts do not race.
   */
  connected = $state(false);
  /** How far each layer reaches, as the worker last reported (null until it reports, or from another tab). */
  coverage = $state<LibraryCoverage | null>(null);
  /** The library keeps to its lexical layer: sentence vectors are off (SENTENCE_VECTORS_SETTING). */
  vectorsOff = $state(false);
  /** A bundle opened read-only (?bundle=… or a file): nothing is indexed or stored, questions go to the bundle. */
  readOnly = $state<ReadOnlyLibrary | null>(null);

  // Typed: `this` is checked against LibraryHost, which names run and intake (TypeScript would not infer them).
  readonly run: IndexingRun = new IndexingRun(this);
  readonly intake: DropIntake = new DropIntake(this);
  readonly bundles = new LibraryBundles(this);

  private refreshTimer: ReturnType<typeof setTimeout> | null = null;
  private started = false;

  /** The store was read and holds nothing (before it is read, nothing is known: never "empty"). */
  get isEmpty(): boolean {
    return (
      this.read &&
      this.counts.documents === 0 &&
      this.waiting === 0 &&
      this.failed.length === 0 &&
      this.intake.notRead.length === 0 &&
      !this.running
    );
  }

  /** Connects to the worker and resumes a queue left by a reload; with ?bundle=… opens that bundle read-only. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.bundles.bundleUrl) {
      await this.bundles.openReadOnly(this.bundles.bundleUrl);
      return;
    }
    // The store is read first, beside everything else: the views say "Opening your library…" until it is, and
    // show the library as soon as it is (the ingest worker's start, seconds on a busy machine, is not waited for).
    const opened = this.refresh();
    // Ask the browser not to evict the library under storage pressure (granted silently for installed or
    // frequently used sites; a refusal only means best-effort storage, as before).
    void navigator.storage?.persist?.().catch(() => false);
    // Before this tab's worker can take a lock: another tab's work is then known, and shown, from the start.
    await crossTab.start();
    sharedProgress.start();
    crossTab.listen((work, event) => {
      if (work === 'ingest' && event === 'done') void this.afterOtherTab();
      else this.scheduleRefresh();
    });
    const worker = ingestWorker();
    await worker.subscribe(proxy((event: IngestEvent) => this.run.onEvent(event)));
    await opened;
    // Changes made while the worker started (another tab's run) are in this second read (counts only: the list
    // was read by the first).
    await this.refresh(false);
    if (this.hasWorkLeft) {
      // The worker resumes the queue and the embedding of documents stored without vectors, or waits while
      // another tab indexes (it says so with 'waiting').
      this.running = !crossTab.elsewhere.ingest;
      // A queue left by a reload is a drop of its own (names and sizes unknown here); files picked while the
      // page was still starting are already counted by their own drop. Another tab's run is shown with that
      // tab's own progress (sharedProgress), not a tally of files this tab never saw.
      if (!this.run.tally && this.intake.feeding === 0 && !crossTab.elsewhere.ingest) {
        const tally = this.run.newDrop();
        for (let i = 0; i < this.waiting; i++) tally.queued('', null);
      }
      void worker.resume();
    }
    this.connected = true;
  }

  /** A stored file's verdict came: the list has documents to read at the next refresh. */
  fileStored(): void {
    this.listStale = true;
  }

  /** The worker's coverage: how far each layer reaches, with the counts it keeps as it stores. */
  heardCoverage(coverage: LibraryCoverage): void {
    // Stored vectors are announced by coverage alone, not 'changed' (a refresh bumps `version`, and the Ask view
    // would reload its library every batch): the counts come from the event, the list's flags from keys.
    // Between the store's counts read while this tab indexes (RUNNING_COUNTS_MS), the worker's.
    if (this.running) {
      const { documents, sentences } = coverage;
      // Chunks, concepts and edges grow with the run too (they read 0 for a whole drop when only the store's
      // seldom counts set them); a library answered from its pages shows its pages' concepts.
      const chunks = coverage.chunks ?? this.counts.chunks;
      const concepts = coverage.concepts ?? this.counts.concepts;
      const edges = coverage.edges ?? this.counts.edges;
      const c = this.counts;
      if (
        documents !== c.documents ||
        sentences !== c.sentences ||
        chunks !== c.chunks ||
        concepts !== c.concepts ||
        edges !== c.edges
      )
        this.counts = { ...c, documents, sentences, chunks, concepts, edges };
    }
    const layers = layersOf(coverage, this.layers);
    if (layers.lexical !== this.layers.lexical || layers.semantic !== this.layers.semantic)
      this.layers = { ...this.layers, ...layers };
    if (coverage.embeddedDocuments !== this.coverage?.embeddedDocuments) {
      this.counts = {
        ...this.counts,
        vectors: coverage.embeddedSentences,
        embeddedDocuments: coverage.embeddedDocuments,
      };
      this.vectorsStale = true;
      this.scheduleFlags();
    }
    this.coverage = coverage;
    this.coverageHeard += 1;
  }

  /** Coverage as the page can read it from the store's counts (before the worker has reported any). */
  coverageFromCounts(): LibraryCoverage {
    const c = this.counts;
    return {
      documents: c.documents,
      sentences: c.sentences,
      // The query worker builds its graph from every stored document when it loads the library.
      searchableDocuments: c.documents,
      searchableSentences: c.sentences,
      embeddedDocuments: c.embeddedDocuments ?? 0,
      embeddedSentences: c.vectors,
    };
  }

  /**
   * Re-reads the store at most every RUNNING_REFRESH_MS while indexing (the page must not compete with the worker
   * for the two cores, nor for the store: its counts are count()s that Chromium answers by walking each store, so at
   * twice a second they took more of a large drop's time with every document; the drop's progress comes from the
   * worker's events meanwhile), and the document list only when a file finished or indexing stopped.
   */
  scheduleRefresh(): void {
    // Another tab's run sends a change per stored batch: the same pace as this tab's own.
    const delay = this.running || crossTab.elsewhere.ingest ? RUNNING_REFRESH_MS : 100;
    const due = performance.now() + delay;
    if (this.refreshTimer) {
      // A read already due sooner serves this change too. One set at the run's pace is brought forward when the
      // run has ended: the idle's read waited behind the last 'changed' of the run for up to RUNNING_REFRESH_MS,
      // and with it the embedder's name, the storage and the Ask view's reload (the library's `version`).
      if (due >= this.refreshDue) return;
      clearTimeout(this.refreshTimer);
    }
    this.refreshDue = due;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      // While this tab indexes, documents are only added: the list reads the new ones (see readList).
      void this.refresh(!this.running || this.listStale, this.running);
    }, delay);
  }

  /** When the scheduled read is due (performance.now()). */
  private refreshDue = 0;
  /**
   * How many coverage reports were heard: a store read begun before the latest one is older than it, and does not
   * undo what it said (the header read "semantic —" again after the last vectors were reported).
   */
  private coverageHeard = 0;

  private listStale = true;
  /** When the store's counts were last read (performance.now()), and how long that took (ms). */
  private lastCounted = Number.NEGATIVE_INFINITY;
  private lastCountCost = 0;
  private flagsTimer: ReturnType<typeof setTimeout> | null = null;

  /** Re-reads which listed documents have vectors, at most once a second, without a full refresh. */
  private scheduleFlags(): void {
    if (this.flagsTimer) return;
    this.flagsTimer = setTimeout(() => {
      this.flagsTimer = null;
      if (!this.vectorsStale || this.documents.length === 0) return;
      this.vectorsStale = false;
      void withVectors(this.documents)
        .then(
          (embedded) => (this.documents = this.documents.map((d) => ({ ...d, vectors: embedded.has(d.id) }))),
        )
        .catch(() => undefined);
    }, 1000);
  }
  /** Vectors were stored since the list's vector flags were read. */
  private vectorsStale = false;

  /**
   * Work a run left unfinished: files in the queue, or documents stored without their sentence vectors (the
   * page was closed or reloaded while they were embedded, or the tab that embedded them closed).
   */
  private get hasWorkLeft(): boolean {
    const c = this.counts;
    return this.waiting > 0 || (!this.vectorsOff && c.documents > (c.embeddedDocuments ?? c.documents));
  }

  /**
   * Indexing is on, but only embedding is left: no file is waiting, and the concept graph covers
   * every stored document. The library questions read will not change until the semantic layer is built, so the
   * Ask view may load it now (a MuSiQue drop spends about 400 s here). Derived, so that an effect reading it
   * runs again when it turns, not at every embedded batch.
   */
  readonly onlyEmbedding = $derived.by(() => {
    const c = this.coverage;
    return (
      this.running &&
      this.waiting === 0 &&
      c !== null &&
      c.documents > 0 &&
      c.searchableDocuments >= c.documents &&
      c.embeddedDocuments < c.documents
    );
  });

  /**
   * The lexical layer answers: the one status the header and the views read (the header once said "lexical —"
   * while the Ask view said it was ready). During a run, as soon as the graph or pages cover a document.
   */
  get lexicalReady(): boolean {
    return this.layers.lexical || this.counts.chunks > 0 || (this.running && this.searchableDocuments > 0);
  }

  /** How many documents (the oldest) the concept graph covers: searchable by their words and concepts. */
  get searchableDocuments(): number {
    return this.coverage && this.running
      ? Math.min(this.coverage.searchableDocuments, this.counts.documents)
      : this.counts.documents;
  }

  /**
   * Another tab's indexing ended: re-read the library, and resume what that tab left in the queue (it was closed
   * or crashed mid-run). The lock keeps this from repeating work another tab has taken up meanwhile.
   */
  private async afterOtherTab(): Promise<void> {
    await this.refresh();
    if (this.hasWorkLeft && !this.running && !crossTab.elsewhere.ingest) {
      this.running = true;
      void ingestWorker().resume();
    }
  }

  /**
   * Reads the store: first the counts, the queue and the index record (small reads: once they are in, the views
   * show the library, never the empty state before), then the document list and its vector flags.
   */
  async refresh(withList = true, whileRunning = false): Promise<void> {
    const repo = pageRepo();
    const started = performance.now();
    const heard = this.coverageHeard;
    const counting =
      !whileRunning ||
      started - this.lastCounted >= Math.max(RUNNING_COUNTS_MS, COUNT_SPACING * this.lastCountCost);
    const timedCounts = async (): Promise<StoreCounts> => {
      const counts = await repo.counts();
      this.lastCounted = started;
      this.lastCountCost = performance.now() - started;
      return counts;
    };
    const [read, storage, meta, failed, waiting, announced, vectorsSetting, newest, pages, byPages] =
      await Promise.all([
        // Between two reads while this tab indexes, the counts as the worker's coverage last patched them.
        counting ? timedCounts() : null,
        storageSplit().catch(() => null),
        repo.getMeta(),
        repo.failedPending(),
        repo.waitingCount(),
        announcedFiles(repo.db),
        repo.getSetting<boolean>(SENTENCE_VECTORS_SETTING),
        repo.db.documents.orderBy('addedAt').lastKey(),
        // The pages a large library is answered from: written during and after a drop without changing any count.
        repo.db.pages
          .get('library')
          .then((r) => (r ? { stamp: `${r.stamp}@${r.builtAt}`, concepts: r.directory.conceptCount } : null)),
        pagesLibrary(repo.db),
      ]);
    this.vectorsOff = vectorsSetting === false;
    // The worker reported coverage while the store was read: its figures are the newer ones.
    const newer = this.coverage && this.coverageHeard !== heard ? this.coverage : null;
    if (read) this.counts = newer && this.running ? withCoverage(read, newer) : read;
    const counts = this.counts;
    this.storage = storage;
    this.failed = failed;
    this.waiting = waiting;
    // This page's own unread files are being stored right now; the others were left by a closed page.
    this.intake.leftBehind(announced);
    const stored = {
      lexical: (meta?.concepts ?? 0) > 0 || counts.chunks > 0,
      semantic: meta?.layers.semantic ?? false,
    };
    this.layers = { ...(newer ? layersOf(newer, stored) : stored), embedderId: meta?.embedderId ?? null };
    // Without a run reporting, the store's counts are the coverage (another tab's run, a reload).
    if (!this.running) {
      this.coverage = this.coverageFromCounts();
      this.run.tally?.coverage(this.coverage, performance.now());
      this.run.updateDrop();
    }
    this.pagesConcepts = pages && byPages.pages ? pages.concepts : null;
    const stamp = libraryStamp(counts, meta, newest, pages?.stamp ?? null);
    if (this.stamp !== null && stamp !== this.stamp) this.version += 1;
    this.stamp = stamp;
    this.read = true;

    const docs = withList ? await this.readList(whileRunning) : null;
    // Keys only: which of the listed documents have their vectors (the records hold the vectors themselves);
    // while embedding runs, the flags of the list already shown are read again the same way.
    const listed = docs ?? (this.vectorsStale ? this.documents : null);
    this.vectorsStale = false;
    const embedded = listed ? await withVectors(listed) : null;
    if (docs && embedded) {
      this.listStale = false;
      this.documents = docs.map((d, k) => ({
        ...d,
        // The list is newest first.
        order: counts.documents - 1 - k,
        vectors: embedded.has(d.id),
      }));
    } else if (embedded) {
      this.documents = this.documents.map((d) => ({ ...d, vectors: embedded.has(d.id) }));
    }
  }

  /**
   * The newest DOCUMENT_LIST_LIMIT documents, newest first. While this tab indexes, documents are only added (a
   * removal refreshes in full): only those added since the newest listed are read, and the rest of the list is
   * kept. Reading the whole list every few seconds read 500 documents with their text each time, one cursor step
   * each, on the page's thread and the store's.
   */
  private async readList(whileRunning: boolean): Promise<ListedDocument[]> {
    const documents = pageRepo().db.documents;
    const top = this.documents[0];
    if (!whileRunning || !top)
      return (await documents.orderBy('addedAt').reverse().limit(DOCUMENT_LIST_LIMIT).toArray()).map(listed);
    // From the newest listed one's time on (documents stored in one batch may share it), newest first.
    const added = await documents
      .where('addedAt')
      .aboveOrEqual(top.addedAt)
      .reverse()
      .limit(DOCUMENT_LIST_LIMIT)
      .toArray();
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a lookup for this read, never state
    const fresh = new Set(added.map((d) => d.id));
    return [...added.map(listed), ...this.documents.filter((d) => !fresh.has(d.id))].slice(
      0,
      DOCUMENT_LIST_LIMIT,
    );
  }

  /** Questions go to a bundle opened read-only; the views show its counts and layers. */
  showReadOnly(opened: ReadOnlyLibrary, vectors: number): void {
    this.readOnly = opened;
    this.counts = { ...this.counts, ...opened.counts, vectors, pending: 0 };
    this.layers = { lexical: true, semantic: vectors > 0, embedderId: opened.embedderId };
    this.version += 1;
    this.read = true;
  }

  /**
   * Removes documents and everything derived from them. The worker then refreshes the concept graph and pages of
   * what remains as a run of its own (progress, then idle): the header says "updating…" meanwhile. The Files list
   * follows: a file whose documents are all gone reads "removed", not "indexed".
   */
  async remove(docIds: readonly string[]): Promise<void> {
    if (docIds.length === 0) return;
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a lookup for this removal, never state
    const ids = new Set(docIds);
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a lookup for this removal, never state
    const bySource = new Map<string, number>();
    for (const d of this.documents)
      if (ids.has(d.id)) bySource.set(d.sourceName, (bySource.get(d.sourceName) ?? 0) + 1);
    this.removing = { documents: docIds.length };
    // The last drop's bars describe a library that no longer is: the refresh shows its own stage.
    this.run.forgetDrop();
    try {
      const removed = await ingestWorker().removeDocuments([...docIds]);
      if (removed === 0) this.removing = null;
    } catch (error) {
      this.removing = null;
      throw error;
    }
    this.run.outcomes = removedOutcomes(this.run.outcomes, bySource);
    await this.refresh();
  }

  /** Removes every document of the library (the Library view asks first). */
  async removeAll(): Promise<void> {
    const ids = (await pageRepo().db.documents.toCollection().primaryKeys()) as string[];
    await this.remove(ids);
  }
}

export const library = new LibraryState();
