// Library state: the file queue and per-file outcomes, the progress of a drop as a whole (src/ui/state/
// dropProgress.ts), counts and storage. Before a drop is queued its space is checked against what the browser
// offers (storageEstimate.ts), and its memory against what the tab can use (memoryEstimate.ts); when the store
// fills up anyway the run's stop is shown with the queue kept and a Resume; a stage that stops moving is shown as
// stalled (watchdog.ts). It talks to the ingest worker (events arrive through a Comlink proxy) and reads counts
// from IndexedDB.
import { proxy } from 'comlink';
import type { DocumentRecord, OcrLanguageSource, RecognisedText, Stage } from '../../core/types.ts';
import type { PendingRecord } from '../../store/db.ts';
import type { StoreCounts } from '../../store/libraryRepo.ts';
import {
  SENTENCE_VECTORS_SETTING,
  type FileOutcome,
  type IngestEvent,
  type IngestStopCause,
  type LibraryCoverage,
} from '../../services/ingest/ingestProtocol.ts';
import {
  nextGroup,
  readGroup,
  screenFiles,
  withOutcomes,
  removedOutcomes,
  boundedOutcomes,
  type PickedFile,
  type Screened,
} from '../intake.ts';
import {
  announceFiles,
  announcedFiles,
  forgetAnnounced,
  matchAnnounced,
  recordBytes,
  type AnnouncedFile,
} from '../../store/intakeStore.ts';
import { isQuotaError } from '../../services/ingest/storageGuard.ts';
import { pagesLibrary } from '../../services/library/pagesThreshold.ts';
import { queryParam } from '../url.ts';
import { ingestWorker, queryWorker } from '../workers.ts';
import { crossTab } from './crossTab.svelte.ts';
import { offlineCopy } from './offlineCopy.svelte.ts';
import { sharedProgress } from './sharedProgress.svelte.ts';
import { pageRepo } from './db.ts';
import { kgApi } from './kg.ts';
import { DropTally, type DropRow } from './dropProgress.ts';
import {
  browserStorage,
  checkSpace,
  estimateDrop,
  type SpaceShortfall,
} from '../estimates/storageEstimate.ts';
import {
  browserMemoryBudget,
  checkMemory,
  droppedFolder,
  type MemoryShortfall,
} from '../estimates/memoryEstimate.ts';
import {
  checkBundleFit,
  readBundleFacts,
  wholeBundleRefusal,
  type BundleShortfall,
} from '../estimates/bundleFit.ts';
import { StallWatchdog, type Stall } from './watchdog.ts';
import { PendingChoice } from './pendingChoice.svelte.ts';
import { storageSplit, type StorageSplit } from '../estimates/storageSplit.ts';
import { libraryStamp } from './libraryStamp.ts';
import { rememberAddedPdfs } from '../pdfPage.ts';

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

/** The run stopped because the browser refused or did not finish a write; the queue is kept. */
interface StorageStop {
  cause: IngestStopCause;
  /** The file being stored, when the pipeline named one. */
  file: string | null;
  /** Files still in the queue (names), for the user to see that nothing was lost. */
  queued: string[];
  /** A file the store refused to queue at all (its bytes could not be kept): it must be added again. */
  notQueued: string | null;
}

/** Files whose names carry a directory (folder picks) keep it, so two "notes.md" stay apart. */
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
/**
 * The worker's per-file events (a verdict and a progress report per file) reach the view at most this often: a
 * 20,000-file drop re-rendered the progress rows and the list of outcomes for every one of them.
 */
const EVENT_FLUSH_MS = 250;

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
 * @public Exported only so that eslint-plugin-svelte's prefer-svelte-reactivity reads its fields (the rule passes
 * over a class that is not exported); the app uses the one instance, `library`.
 */
export class LibraryState {
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
  outcomes = $state<FileOutcome[]>([]);
  /** Indexed files no longer listed in `outcomes` (src/ui/intake.ts INDEXED_OUTCOMES_SHOWN). */
  outcomesHidden = $state(0);
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
  /** The current drop as a whole: files, sentences, searchable documents, documents with vectors. */
  dropRows = $state<DropRow[]>([]);
  /** What the pipeline reported working on last (stage and item), while indexing. */
  activity = $state<{ stage: Stage; item?: string } | null>(null);
  /** The stage that has reported no progress for a minute while indexing, if any. */
  stall = $state<Stall | null>(null);
  /**
   * A drop that will not fit in storage, or in the tab's memory, waiting for the user's choice before anything is
   * queued: index it all anyway, the lexical layer only, or nothing.
   */
  readonly space = new PendingChoice<SpaceShortfall, 'full' | 'lexical'>();
  readonly memory = new PendingChoice<MemoryShortfall, 'full' | 'lexical'>();
  /** A bundle about to be imported that the tab will likely not hold (bundleFit.ts): read-only by ranges, or import. */
  readonly bundleFit = new PendingChoice<BundleShortfall, 'read-only' | 'import'>();
  /** The run stopped on a full (or stuck) store; cleared by Resume. */
  storageStop = $state<StorageStop | null>(null);
  /** The library keeps to its lexical layer: sentence vectors are off (SENTENCE_VECTORS_SETTING). */
  vectorsOff = $state(false);
  /** A bundle opened read-only from ?bundle=…: nothing is indexed or stored, questions go to the bundle. */
  readOnly = $state<{
    url: string;
    counts: Record<string, number>;
    embedderId: string | null;
    /** Read by HTTP ranges (a bundle with pages): each question fetches only the blocks it needs. */
    byRanges?: boolean;
    /** Its pages are read from one whole download kept out of the tab's memory (its host sent no ranges). */
    downloaded?: boolean;
    /** Read by ranges from the copy kept for offline use (its host could not be reached). */
    fromOfflineCopy?: boolean;
    /** Its documents (read whole: listed in the Library view), the first ones by title, and how many it has. */
    documents?: { total: number; documents: { id: string; title: string; source: string }[] } | null;
  } | null>(null);
  /** Export/import in progress, with what it is doing. */
  bundleBusy = $state<string | null>(null);
  /** The shared index this page opens read-only (?bundle=…), known from the first render on; else null. */
  readonly bundleUrl: string | null = typeof location === 'undefined' ? null : queryParam('bundle');
  /** ?bundle=…: why the shared index could not be opened (null while it loads or once it is open). */
  bundleError = $state<string | null>(null);
  /** ?bundle=…: bytes of the shared index downloaded so far, and its size when the server states it. */
  bundleDownload = $state<{ received: number; total: number | null } | null>(null);
  /**
   * Files dropped in an earlier page whose names and sizes were recorded but whose bytes never reached the
   * store (the page was closed or reloaded within seconds of the drop): named in the Library view, to pick again.
   */
  notRead = $state<AnnouncedFile[]>([]);

  private refreshTimer: ReturnType<typeof setTimeout> | null = null;
  /** Drops still being screened, recorded or read into the store; Cancel stops the reading too. */
  private feeding = 0;
  /** This page's dropped files recorded by name and size whose bytes are still to be stored (id → file). */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- bookkeeping of the intake, never rendered
  private readonly unread = new Map<string, { name: string; file: Pick<File, 'size' | 'arrayBuffer'> }>();
  /** The group of unread files being read and stored, if any. */
  private filling: Promise<void> | null = null;
  private stopFeeding = false;
  private started = false;
  private tally: DropTally | null = null;
  private readonly watchdog = new StallWatchdog((stall) => (this.stall = stall));

  /** The store was read and holds nothing (before it is read, nothing is known: never "empty"). */
  get isEmpty(): boolean {
    return (
      this.read &&
      this.counts.documents === 0 &&
      this.waiting === 0 &&
      this.failed.length === 0 &&
      this.notRead.length === 0 &&
      !this.running
    );
  }

  /** Connects to the worker and resumes a queue left by a reload; with ?bundle=… opens that bundle read-only. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.bundleUrl) {
      await this.openReadOnly(this.bundleUrl);
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
    await worker.subscribe(proxy((event: IngestEvent) => this.onEvent(event)));
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
      if (!this.tally && this.feeding === 0 && !crossTab.elsewhere.ingest) {
        const tally = this.newDrop();
        for (let i = 0; i < this.waiting; i++) tally.queued('', null);
      }
      void worker.resume();
    }
    this.connected = true;
  }

  /** Verdicts and the latest activity heard since the view was last updated (flushEvents), newest last. */
  private heard: { outcomes: FileOutcome[]; activity: { stage: Stage; item?: string } | null } = {
    outcomes: [],
    activity: null,
  };
  private flushTimer: ReturnType<typeof setTimeout> | null = null;

  /** Updates the view with what the worker reported since the last flush, at most every EVENT_FLUSH_MS. */
  private scheduleFlush(): void {
    this.flushTimer ??= setTimeout(() => this.flushEvents(), EVENT_FLUSH_MS);
  }

  private flushEvents(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const { outcomes, activity } = this.heard;
    this.heard = { outcomes: [], activity: null };
    if (outcomes.length > 0) {
      // Newest first, a file named twice once (its latest verdict), as one event at a time would leave it.
      // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a lookup for this flush, never state
      const named = new Set<string>();
      const newest = outcomes.reverse().filter((o) => !named.has(o.file) && Boolean(named.add(o.file)));
      this.showOutcomes(withOutcomes(newest, this.outcomes));
    }
    if (activity) this.activity = activity;
    this.updateDrop();
  }

  private onEvent(event: IngestEvent): void {
    switch (event.type) {
      case 'progress': {
        const p = event.progress;
        this.running = true;
        this.watchdog.progress(p.stage, p.done, p.item);
        this.heard.activity = { stage: p.stage, item: p.item };
        this.scheduleFlush();
        break;
      }
      case 'file':
        this.heard.outcomes.push(event.outcome);
        this.listStale = true;
        this.tally?.fileDone(event.outcome.file, performance.now());
        this.scheduleFlush();
        break;
      case 'coverage':
        // Stored vectors are announced by coverage alone, not 'changed' (a refresh bumps `version`, and the Ask
        // view would reload its library every batch): the counts come from the event, the list's flags from keys.
        // Between the store's counts read while this tab indexes (RUNNING_COUNTS_MS), the worker's.
        if (this.running) {
          const { documents, sentences } = event.coverage;
          // Chunks, concepts and edges grow with the run too (they read 0 for a whole drop when only the
          // store's seldom counts set them); a library answered from its pages shows its pages' concepts.
          const chunks = event.coverage.chunks ?? this.counts.chunks;
          const concepts = event.coverage.concepts ?? this.counts.concepts;
          const edges = event.coverage.edges ?? this.counts.edges;
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
        if (event.coverage.embeddedDocuments !== this.coverage?.embeddedDocuments) {
          this.counts = {
            ...this.counts,
            vectors: event.coverage.embeddedSentences,
            embeddedDocuments: event.coverage.embeddedDocuments,
          };
          this.vectorsStale = true;
          this.scheduleFlags();
        }
        this.coverage = event.coverage;
        this.tally?.coverage(event.coverage, performance.now());
        this.updateDrop();
        break;
      case 'changed':
        this.scheduleRefresh();
        break;
      case 'waiting':
        this.running = false;
        this.watchdog.stop();
        break;
      case 'idle':
        // Every verdict is shown before the library says idle.
        this.flushEvents();
        // A drop still being recorded keeps the library busy: its files are not all in the queue yet.
        this.running = this.feeding > 0;
        if (!this.running) sharedProgress.publish(this.dropRows, false);
        this.watchdog.stop();
        this.activity = null;
        this.removing = null;
        if (event.cancelled) this.notice = 'Indexing cancelled. Documents already stored are complete.';
        this.scheduleRefresh();
        break;
      case 'error':
        if (event.cause) {
          // Said plainly by the Library view, with the queue listed and Resume (the worker's own message tells
          // a worker-only reader to reload; here there is a button).
          this.watchdog.stop();
          void this.stoppedByStorage(event.cause, event.file ?? null);
        } else this.message = event.message;
        break;
    }
  }

  /** Starts the tally of a new drop from the library as it stands (when nothing is being indexed). */
  private newDrop(): DropTally {
    const tally = new DropTally(this.coverage ?? this.coverageFromCounts(), performance.now());
    this.tally = tally;
    this.dropRows = tally.rows(performance.now());
    return tally;
  }

  private updateDrop(): void {
    if (!this.tally) return;
    this.dropRows = this.tally.rows(performance.now());
    sharedProgress.publish(this.dropRows, this.running);
  }

  /** Coverage as the page can read it from the store's counts (before the worker has reported any). */
  private coverageFromCounts(): LibraryCoverage {
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

  /** The store refused (or never finished) a write: the run stopped; lists the queue that is kept. */
  private async stoppedByStorage(
    cause: IngestStopCause,
    file: string | null,
    notQueued: string | null = null,
  ): Promise<void> {
    const pending = await pageRepo()
      .pendingSummary()
      .catch(() => []);
    this.storageStop = {
      cause,
      file,
      queued: pending.filter((p) => p.status !== 'failed').map((p) => p.name),
      notQueued,
    };
  }

  /** After a full store: the user freed space (or raised the quota); the kept queue and embedding go on. */
  async resume(): Promise<void> {
    this.storageStop = null;
    this.message = null;
    this.notice = null;
    this.running = !crossTab.elsewhere.ingest;
    if (!this.tally) this.newDrop();
    // Files of this page's drop whose bytes the full store refused: stored now, before the queue goes on.
    if (this.unread.size > 0) {
      this.feeding += 1;
      this.stopFeeding = false;
      try {
        await this.fillBytes();
      } finally {
        await this.doneFeeding();
      }
    }
    await ingestWorker().resume();
  }

  /** Turns sentence vectors back on and embeds what the library stored without them. */
  async embedSentences(): Promise<void> {
    await pageRepo().setSetting(SENTENCE_VECTORS_SETTING, true);
    this.vectorsOff = false;
    this.running = !crossTab.elsewhere.ingest;
    this.newDrop();
    await ingestWorker().resume();
  }

  /**
   * Re-reads the store at most every RUNNING_REFRESH_MS while indexing (the page must not compete with the worker
   * for the two cores, nor for the store: its counts are count()s that Chromium answers by walking each store, so at
   * twice a second they took more of a large drop's time with every document; the drop's progress comes from the
   * worker's events meanwhile), and the document list only when a file finished or indexing stopped.
   */
  private scheduleRefresh(): void {
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(
      () => {
        this.refreshTimer = null;
        // While this tab indexes, documents are only added: the list reads the new ones (see readList).
        void this.refresh(!this.running || this.listStale, this.running);
      },
      // Another tab's run sends a change per stored batch: the same pace as this tab's own.
      this.running || crossTab.elsewhere.ingest ? RUNNING_REFRESH_MS : 100,
    );
  }

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
  get hasWorkLeft(): boolean {
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
    if (read) this.counts = read;
    const counts = this.counts;
    this.storage = storage;
    this.failed = failed;
    this.waiting = waiting;
    // This page's own unread files are being stored right now; the others were left by a closed page.
    this.notRead = announced.filter((a) => !this.unread.has(a.id));
    this.layers = {
      lexical: (meta?.concepts ?? 0) > 0 || counts.chunks > 0,
      semantic: meta?.layers.semantic ?? false,
      embedderId: meta?.embedderId ?? null,
    };
    // Without a run reporting, the store's counts are the coverage (another tab's run, a reload).
    if (!this.running) {
      this.coverage = this.coverageFromCounts();
      this.tally?.coverage(this.coverage, performance.now());
      this.updateDrop();
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

  /**
   * Takes a drop: busy at once (a folder's walk, the space check and the reading come before the worker has
   * anything to report, and "idle" then would be false), refuses unsupported and oversized files by name and
   * size (each gets its verdict, nothing is read), then records the whole drop in the store before anything is
   * parsed: every file's name and size in one transaction, then the bytes in a few large transactions
   * (src/store/intakeStore.ts). A file picked again after a reload fills its recorded place.
   */
  async addFiles(input: PickedFile[] | Promise<PickedFile[]>): Promise<void> {
    // Files dropped while a drop is indexing join it, until its files are all read (see record()).
    const joining = this.running;
    this.feeding += 1;
    this.stopFeeding = false;
    this.running = !crossTab.elsewhere.ingest;
    try {
      const files = await input;
      if (files.length === 0) return;
      this.message = null;
      this.notice = null;
      this.storageStop = null;
      const { accepted, refused, summary } = screenFiles(files);
      if (refused.length > 0) this.outcomes = withOutcomes(refused, this.outcomes);
      if (summary) this.message = summary;
      if (accepted.length === 0) return;
      rememberAddedPdfs(accepted);
      // Before anything is read or queued: will the index of these files fit in what the browser offers here?
      const estimate = estimateDrop(accepted.map(({ name, file }) => ({ name, size: file.size })));
      const shortfall = checkSpace(estimate, await browserStorage());
      const which = accepted.length === 1 ? 'the file was' : `${accepted.length} files were`;
      const notQueued = `${summary ? `${summary} ` : ''}Nothing was indexed: ${which} not queued.`;
      const freeSpace = `${notQueued} Free space or remove documents, or open the app in a normal (not private) window, then add them again.`;
      if (shortfall && !(await this.goOn(this.space, shortfall, freeSpace))) return;
      // And will the tab's memory hold the library this drop makes (memoryEstimate.ts)?
      const memory = checkMemory(estimate, {
        storedSentences: this.counts.sentences,
        vectors: !this.vectorsOff,
        budget: browserMemoryBudget(),
        folder: droppedFolder(accepted.map((a) => a.name)),
      });
      const outside = (command: string) =>
        `${notQueued} To index them outside the browser: ${command}, then open library.bundle here with Import bundle….`;
      if (memory && !(await this.goOn(this.memory, memory, outside(memory.command)))) return;
      if (!(await this.record(accepted, joining))) return;
      await this.fillBytes();
      if (summary) this.message = summary;
    } finally {
      await this.doneFeeding();
    }
  }

  /**
   * Asks the user about a drop that will not fit; false when they chose not to index it (`refused` is then the
   * message). Without sentence vectors, the library's setting is turned off first.
   */
  private async goOn<F>(
    question: PendingChoice<F, 'full' | 'lexical'>,
    found: F,
    refused: string,
  ): Promise<boolean> {
    const choice = await question.ask(found);
    if (choice === 'stop') this.message = refused;
    else if (choice === 'lexical') {
      await pageRepo().setSetting(SENTENCE_VECTORS_SETTING, false);
      this.vectorsOff = true;
    }
    return choice !== 'stop';
  }

  /**
   * Records the accepted files by name and size, in one transaction (announced ones of an earlier page matched
   * by name and size are reused), and counts them in this drop's progress. False when the store refused.
   */
  private async record(accepted: Screened['accepted'], joining: boolean): Promise<boolean> {
    const db = pageRepo().db;
    const leftovers = (await announcedFiles(db)).filter((a) => !this.unread.has(a.id));
    const { matched, fresh } = matchAnnounced(
      accepted.map((a) => ({ ...a, size: a.file.size })),
      leftovers,
    );
    let ids: string[];
    try {
      ids = await announceFiles(
        db,
        fresh.map((f) => ({ name: f.name, size: f.size })),
      );
    } catch (error) {
      if (!isQuotaError(error)) throw error;
      this.stopFeeding = true;
      await this.stoppedByStorage('storage-full', accepted[0].name, accepted[0].name);
      return false;
    }
    // A drop after the last one's files were all read is a drop of its own: its counts are its files only.
    if (!joining || !this.tally || this.tally.filesDone >= this.tally.files) this.newDrop();
    const entries = [
      ...matched.map((m) => ({ id: m.id, f: m.file })),
      ...fresh.map((f, k) => ({ id: ids[k], f })),
    ];
    for (const { id, f } of entries) {
      this.unread.set(id, { name: f.name, file: f.file });
      this.tally?.queued(f.name, f.size);
    }
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a lookup for this drop, never state
    const taken = new Set(matched.map((m) => m.id));
    this.notRead = this.notRead.filter((n) => !taken.has(n.id));
    this.updateDrop();
    return true;
  }

  /** Stores the bytes of this page's unread files, a group per transaction, telling the worker after each. */
  private async fillBytes(): Promise<void> {
    // A drop made while another's group is being stored waits for it, then goes on with what is left.
    while (this.unread.size > 0 && !this.stopFeeding && !this.storageStop) {
      this.filling ??= this.fillGroups().finally(() => (this.filling = null));
      await this.filling;
    }
  }

  private async fillGroups(): Promise<void> {
    const repo = pageRepo();
    while (this.unread.size > 0 && !this.stopFeeding) {
      const group = nextGroup([...this.unread].map(([id, u]) => ({ id, ...u })));
      const read = await readGroup(group);
      if (this.stopFeeding) return;
      const items: { id: string; bytes: ArrayBuffer }[] = [];
      for (const r of read) if ('bytes' in r) items.push({ id: r.item.id, bytes: r.bytes });
      try {
        await recordBytes(repo.db, items);
      } catch (error) {
        if (!isQuotaError(error)) throw error;
        // The store is full: the files stay recorded by name (and in this page, ready for Resume).
        await this.stoppedByStorage('storage-full', group[0].name, group[0].name);
        return;
      }
      for (const r of read) {
        this.unread.delete(r.item.id);
        if ('reason' in r) {
          const outcome: FileOutcome = {
            file: r.item.name,
            status: 'failed',
            documents: 0,
            reason: r.reason,
          };
          await repo.markPending(r.item.id, 'failed', r.reason);
          this.showOutcomes([outcome, ...this.outcomes]);
          this.tally?.fileDone(r.item.name, performance.now());
        }
      }
      this.updateDrop();
      // Drained by the running drain, or by one started now.
      await ingestWorker().notifyQueued();
    }
  }

  /**
   * A drop is in the store (or stopped): the library stays busy if the worker is draining. Asked after the worker
   * was told of the last group, so its answer covers the drain that takes them; until it answers, the drop still
   * counts as feeding, so an 'idle' of a drain that ended just before cannot show the library idle.
   */
  private async doneFeeding(): Promise<void> {
    if (this.feeding > 1) {
      this.feeding -= 1;
      return;
    }
    const running = await ingestWorker()
      .isRunning()
      .catch(() => false);
    this.feeding -= 1;
    this.running = this.feeding > 0 || (running && !crossTab.elsewhere.ingest);
  }

  /** Forgets the files a closed page recorded but never read (the person will not pick them again). */
  async forgetNotRead(): Promise<void> {
    await forgetAnnounced(
      pageRepo().db,
      this.notRead.map((n) => n.id),
    );
    this.notRead = [];
    await this.refresh(false);
  }

  /** Fetches the sample documents shipped with the app (public/samples/) and adds them as a drop. */
  async loadSamples(): Promise<void> {
    await this.addFiles(
      (async () => {
        const index = await fetch('samples/index.json');
        if (!index.ok) throw new Error(`samples: could not load samples/index.json (HTTP ${index.status})`);
        const list = (await index.json()) as { file: string; title: string }[];
        return Promise.all(
          list.map(async (entry): Promise<PickedFile> => {
            const response = await fetch(`samples/${encodeURIComponent(entry.file)}`);
            if (!response.ok) throw new Error(`samples: ${entry.file}: HTTP ${response.status}`);
            return { name: entry.file, file: await response.blob() };
          }),
        );
      })(),
    );
  }

  private async openReadOnly(url: string): Promise<void> {
    this.bundleBusy = `Opening ${url}…`;
    this.bundleDownload = { received: 0, total: null };
    const onProgress = (received: number, total: number | null) => {
      this.bundleDownload = { received, total };
    };
    try {
      // Both workers are told in this same task, before any question can be asked, so neither ever answers
      // from the local library (a question asked while the bundle downloads waits for it).
      // Read whole, the bundle's documents header is checked against this tab's memory before their text is read.
      const fit = (library: { textBytes: number; vectors: boolean }) =>
        wholeBundleRefusal(url, library, browserMemoryBudget());
      const [opened] = await Promise.all([
        queryWorker().openBundle(url, proxy(onProgress), proxy(fit)),
        kgApi().useBundle(),
      ]);
      // Its documents, listed like the library's own (a bundle read by ranges has none to list up front).
      const documents = await queryWorker()
        .bundleDocuments()
        .catch(() => null);
      this.showReadOnly({ ...opened, documents }, opened.counts.vectors ?? 0);
      offlineCopy.opened(url, opened.offlineCopy, opened.fromOfflineCopy, opened.offlineCopyDropped);
    } catch (error) {
      this.bundleError = error instanceof Error ? error.message : String(error);
      // A copy kept for offline use stays removable although the bundle did not open (LibraryOpening).
      void offlineCopy.failedToOpen(url);
      throw error;
    } finally {
      this.bundleBusy = null;
      this.bundleDownload = null;
    }
  }

  /** Questions go to a bundle opened read-only; the views show its counts and layers. */
  private showReadOnly(opened: NonNullable<LibraryState['readOnly']>, vectors: number): void {
    this.readOnly = opened;
    this.counts = { ...this.counts, ...opened.counts, vectors, pending: 0 };
    this.layers = { lexical: true, semantic: vectors > 0, embedderId: opened.embedderId };
    this.version += 1;
    this.read = true;
  }

  /** Downloads the library as one bundle file. */
  async exportBundle(): Promise<void> {
    this.message = null;
    this.notice = null;
    this.bundleBusy = 'Exporting…';
    try {
      const { blob, fileName } = await ingestWorker().exportBundle();
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = fileName;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      this.notice = `Exported ${fileName} (${(blob.size / 1024 / 1024).toFixed(1)} MB).`;
    } finally {
      this.bundleBusy = null;
    }
  }

  /**
   * Opens a bundle file read-only, read by ranges (a bundle from `cli index --pages`): nothing is imported or
   * stored, questions read only the blocks they need. The page stays read-only until it is reloaded.
   */
  async openBundleFile(file: File): Promise<void> {
    this.message = null;
    this.notice = null;
    this.bundleBusy = `Opening ${file.name}…`;
    try {
      const [opened] = await Promise.all([
        queryWorker().openBundleFile(file, file.name),
        kgApi().useBundle(),
      ]);
      this.showReadOnly(opened, 0);
    } catch (error) {
      this.message = `Bundle ${file.name} not opened: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      this.bundleBusy = null;
    }
  }

  /**
   * Imports a bundle file: validated completely first; a refused bundle leaves the library untouched. One the tab
   * will likely not hold once imported is asked about first (bundleFit.ts): with pages it can be opened read-only.
   */
  async importBundle(file: File): Promise<void> {
    this.message = null;
    this.notice = null;
    const facts = await readBundleFacts(file);
    const shortfall =
      facts &&
      checkBundleFit(facts, { storedSentences: this.counts.sentences, budget: browserMemoryBudget() });
    if (shortfall) {
      const choice = await this.bundleFit.ask(shortfall);
      if (choice === 'stop') {
        this.message = `${file.name} was not imported: your library is unchanged.`;
        return;
      }
      if (choice === 'read-only') return this.openBundleFile(file);
    }
    this.bundleBusy = `Importing ${file.name}…`;
    try {
      const result = await ingestWorker().importBundle(file);
      this.notice =
        `Imported ${file.name}: ${result.added.documents} document(s) added` +
        (result.skippedDocuments > 0 ? `, ${result.skippedDocuments} already in the library.` : '.');
    } catch (error) {
      this.message = `Bundle ${file.name} refused: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      this.bundleBusy = null;
      await this.refresh();
    }
  }

  async cancel(): Promise<void> {
    this.stopFeeding = true;
    // This page's files not yet stored are dropped with the queue (a closed page's leftovers stay named).
    const ids = [...this.unread.keys()];
    this.unread.clear();
    await forgetAnnounced(pageRepo().db, ids);
    await ingestWorker().cancel();
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
    this.tally = null;
    this.dropRows = [];
    try {
      const removed = await ingestWorker().removeDocuments([...docIds]);
      if (removed === 0) this.removing = null;
    } catch (error) {
      this.removing = null;
      throw error;
    }
    this.outcomes = removedOutcomes(this.outcomes, bySource);
    await this.refresh();
  }

  /** Removes every document of the library (the Library view asks first). */
  async removeAll(): Promise<void> {
    const ids = (await pageRepo().db.documents.toCollection().primaryKeys()) as string[];
    await this.remove(ids);
  }

  /** Lists these outcomes, the indexed ones beyond the newest INDEXED_OUTCOMES_SHOWN counted, not listed. */
  private showOutcomes(list: FileOutcome[]): void {
    const { outcomes, hidden } = boundedOutcomes(list);
    this.outcomes = outcomes;
    this.outcomesHidden += hidden;
  }

  async clearFailed(): Promise<void> {
    await ingestWorker().clearFailed();
    this.outcomes = this.outcomes.filter((o) => o.status !== 'failed');
  }
}

export const library = new LibraryState();
