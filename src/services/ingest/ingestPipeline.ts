// The indexing pipeline behind the ingest worker, with its dependencies injected (store, parser, embedder,
// graph rebuild) so it runs in Node tests on fake-indexeddb as well as in the worker. Lexical first: a pending file
// is parsed and chunked, and its documents are stored at once (one transaction per slice of documents, each
// document complete), so the concept graph refreshed after the queue's files are stored answers `ppr`/`bm25`
// questions within seconds. Sentence embedding then follows from the store: documents without vectors, oldest
// first, in rounds whose batches span documents (core embedDocuments), each finished document's vectors in one
// transaction. Because the store says which documents still lack vectors, a reload resumes embedding where it
// stopped and no sentence is embedded twice. Files wait in the pending table with their bytes until their
// documents are stored, so a reload resumes the queue too. Every write goes through guardWrite: a full disk or a
// write that hangs stops the run with a clear message and keeps the rest of the queue.
import type { Embedder, PreparedDocument, Stage } from '../../core/types.ts';
import { embedDocuments } from '../../core/pipeline/index.ts';
import { EmbedderMismatchError, type PutResult, type Repo } from '../../store/repo.ts';
import type { CrossTabLock } from '../library/crossTab.ts';
import { type IngestEvent, type LibraryCoverage, SENTENCE_VECTORS_SETTING } from './ingestProtocol.ts';
import { readEmbedderChoice, type EmbedderChoice } from '../embed/embedderChoice.ts';
import { describeError, guardWrite, StorageStopError } from './storageGuard.ts';
import { QueueStore, StageMeter, type QueueDeps } from './queueStore.ts';
import { pagesDue, writeLibraryPages } from './pagesWrite.ts';
import { pagesLibrary } from '../library/pagesThreshold.ts';
import { PagesRepo } from '../../store/pagesRepo.ts';
import { DropProjection } from './dropProjection.ts';

/** Sentences per embedder call: USE-lite sorts each call by length, so larger calls are faster (see EmbedLoopOptions). */
export const EMBED_BATCH = 128;
/**
 * While files keep arriving the lexical graph is refreshed at most this often (and always once the queue's
 * files are stored), so questions are answered from the documents stored so far. The graph is rebuilt once more
 * when every document has its vectors.
 */
const GRAPH_REFRESH_MS = 60_000;
/**
 * A refresh during a drop re-snapshots the whole graph (and, with vectors, reads the whole library), so its cost
 * grows with the library: at a fixed interval a large drop spent most of its time refreshing (10 MiB in the tab: 7
 * documents per second at first, 1 past 1,500 documents; docs/results/tab-scale.md). The next refresh therefore
 * also waits this many times as long as the last one took: refreshes take at most a quarter of a drop's time,
 * their number grows with the logarithm of the drop's length, and the drop's time stays linear in its text. The
 * graph lags the store by at most a few refresh times (the page shows how many documents are searchable).
 */
export const GRAPH_REFRESH_SPACING = 4;
/**
 * Sentences per embedding round. Between rounds newly queued files are parsed and stored first, so a file
 * dropped while a large library is being embedded becomes searchable within a round (about 10–20 s of USE-lite).
 */
const EMBED_ROUND_SENTENCES = 1024;
/**
 * While files are stored, the page hears the layers' counts at most this often (and always after a graph
 * refresh). They are the counts the drain keeps itself (KeptCounts), not IndexedDB count()s: Chromium answers a
 * count() by walking the store, so a count every 2 s took more of a large drop's time with every document.
 */
const STORED_COVERAGE_MS = 2000;

/** The layers' counts as IndexedDB last gave them, plus what this drain stored since. */
type KeptCounts = Awaited<ReturnType<Repo['layerCounts']>>;

/**
 * A drop projected past the pages threshold writes its first pages by the time it has stored this share of the
 * threshold's chunks, even before its first refresh is due: storing waits while pages are written, so the library
 * cannot pass the threshold without pages, where the query worker would no longer load it and would have to refuse
 * a question until they are written (storedPages.ts `PagesAwaited`).
 */
const FIRST_PAGES_SHARE = 0.5;
export interface IngestDeps extends QueueDeps {
  embedder(choice: EmbedderChoice): Promise<Embedder>;
  /**
   * Frees the model `embedder` loaded (EmbedderHolder.dispose): called once no document is left to embed, so the
   * semantic layer's build, the drain's peak of memory, does not run beside the model, nor does the library idle
   * with it. The next files load it again while they are parsed.
   */
  releaseEmbedder?(): Promise<void>;
  rebuildGraph(repo: Repo, signal: AbortSignal): Promise<void>;
  /**
   * Lets go of what `rebuildGraph` keeps in memory between refreshes (IncrementalGraphRefresh.release): called when
   * a library answered from its pages gets its pages refreshed instead of the graph.
   */
  releaseGraph?(): void;
  /**
   * Told around the coverage a drop's last refresh reports (no file waits in the queue): `coming` just before it,
   * `settled` just after, so the graph is handed to the query worker (graphHandOver.ts) when the first question
   * after "searchable" needs it, and the copy is made after the page was told, not before.
   */
  graphSettled?: { coming(): void; settled(): void };
  emit(event: IngestEvent): void;
  /** The library's cross-tab lock (workers/crossTab.ts): one tab at a time drains the shared queue. */
  lock?: Pick<CrossTabLock, 'run'>;
  /** The clock the graph refresh is scheduled by, in ms (default performance.now; tests give their own). */
  now?: () => number;
  /** Writes a large library's pages at the end of a drain (default src/services/ingest/pagesWrite.ts). */
  pages?: { due: typeof pagesDue; write: typeof writeLibraryPages };
}

/** The progress of writing the pages reaches the page at most this often (a document takes well under 1 ms). */
const PAGES_PROGRESS_MS = 250;

export class IngestPipeline {
  private running: Promise<void> | null = null;
  private controller: AbortController | null = null;
  /** Set by enqueue(): files may have arrived after the running drain last read an empty queue. */
  private wake = false;
  /** When the graph was last rebuilt during the current drain (the clock's ms). */
  private lastGraph = 0;
  /** When the counts were last reported after a store write (the clock's ms). */
  private lastStoredCoverage = Number.NEGATIVE_INFINITY;
  /** How long the last graph refresh took (ms): the next one during a drop waits GRAPH_REFRESH_SPACING times as long. */
  private lastGraphCost = 0;
  /** Documents were stored since the graph was last rebuilt (it does not cover them yet). */
  private storedSinceGraph = false;
  /** Documents were removed since the graph was last rebuilt: a drain that starts refreshes it first. */
  private graphStale = false;
  /** Vectors were stored since the graph was last rebuilt (its semantic layer may be missing them). */
  private embeddedSinceGraph = false;
  /** What the graph as last rebuilt covers: the page's "searchable" counts. */
  private searchable = { documents: 0, sentences: 0 };
  /**
   * The layers' counts kept by the drain (counted once, then added to as it stores documents), or null when
   * something else changed the store (a removal) and they must be counted again.
   */
  private kept: KeptCounts | null = null;
  /** The embedder of the current drain, loaded once, while the first files are parsed. */
  private embedder: Promise<Embedder> | null = null;
  /** Embedding cannot go on in this drain (no embedder, another embedder's library, an endpoint error). */
  private embedStopped = false;
  /** Progress of the current embedding phase (reset when new documents arrive). */
  private embedMeter: { meter: StageMeter; done: number } | null = null;
  /** Aborts waiting for the cross-tab lock. */
  private lockWait: AbortController | null = null;
  /** Another tab holds the lock: this one waits while that tab drains the shared queue. */
  private waitingElsewhere = false;
  /** The library may need its pages (re)written: set when a drain starts and after every graph refresh. */
  private pagesToCheck = false;
  /**
   * The library is answered from its pages (pagesThreshold.ts), so a refresh during the drop writes its pages, not
   * the graph: the page's status says "searchable (from the library's pages)".
   */
  private searchableFromPages = false;
  /** The drain's bytes per chunk and what its queue will add (dropProjection.ts). */
  private projection = new DropProjection();
  /**
   * Stored chunks at which the first pages of a drop projected past the threshold are due, whatever the refresh
   * spacing (FIRST_PAGES_SHARE), or null: not projected past it, or pages are stored already.
   */
  private firstPagesAt: number | null = null;
  /** The library's chunks when the projection was last written (the drain adds projection.storedChunks since). */
  private chunksAtProjection = 0;
  private chunksStoredAtProjection = 0;
  /** The index record holds this drain's projection (IndexMeta.projectedChunks), to be cleared once nothing waits. */
  private projecting = false;

  /** Takes the queue's files, parses and stores them, and settles their records. */
  private readonly queue: QueueStore;

  constructor(
    private readonly deps: IngestDeps,
    private readonly graphRefreshMs = GRAPH_REFRESH_MS,
  ) {
    this.queue = new QueueStore(deps, {
      emit: (event) => this.emit(event),
      stored: (documents, results) => this.keepStored(documents, results),
      settled: (bytes) => this.projection.fileSettled(bytes),
      afterWrite: () => this.reportStoredCoverage(),
      afterFiles: (signal) => this.refreshIfDue(signal),
    });
  }

  get isRunning(): boolean {
    return this.running !== null;
  }

  private emit(event: IngestEvent): void {
    try {
      this.deps.emit(event);
    } catch {
      // A closed page must not stop indexing: the queue is in IndexedDB and the next page resumes it.
    }
  }

  private meter(stage: Stage, total: number): StageMeter {
    return new StageMeter((e) => this.emit(e), stage, total);
  }

  /** Queues files and starts indexing (resolves once they are queued, not indexed). */
  async enqueue(files: { name: string; bytes: ArrayBuffer }[]): Promise<void> {
    await this.deps.repo.enqueue(files);
    this.notifyQueued();
  }

  /**
   * Files were queued in the store by someone else (the page records a drop's bytes itself,
   * src/store/intakeStore.ts): drain them, in the running drain if there is one (it reads the queue again before it
   * can end), else in a new one.
   */
  notifyQueued(): void {
    this.wake = true;
    this.emit({ type: 'changed' });
    void this.ensureRunning();
    // Another tab is draining the queue: it indexes these files too (this tab says so instead of "indexing").
    if (this.waitingElsewhere) this.emit({ type: 'waiting' });
  }

  /**
   * Starts a drain when the library's pages are due (a large library without pages of its present documents: a
   * reload in the middle of writing them, or an older app's library): called when the worker starts.
   */
  async resumePages(): Promise<void> {
    if (this.running) return;
    if (await this.pages.due(this.deps.repo).catch(() => false)) await this.ensureRunning();
  }

  private get pages(): NonNullable<IngestDeps['pages']> {
    return this.deps.pages ?? { due: pagesDue, write: writeLibraryPages };
  }

  /** Runs the queue (including files left by a reload) until it is empty. */
  ensureRunning(): Promise<void> {
    this.running ??= this.deps.lock ? this.drainExclusively(this.deps.lock) : this.drain();
    return this.running;
  }

  /**
   * Drains holding the cross-tab lock: two tabs that both find the queue on load (or both get files) must not
   * index the same files, so a tab whose lock another tab holds waits, and then drains whatever is left.
   */
  private async drainExclusively(lock: Pick<CrossTabLock, 'run'>): Promise<void> {
    const wait = new AbortController();
    this.lockWait = wait;
    let drained = false;
    try {
      const drain = () => {
        drained = true;
        this.lockWait = null;
        this.waitingElsewhere = false;
        return this.drain();
      };
      const onWait = () => {
        this.waitingElsewhere = true;
        this.emit({ type: 'waiting' });
      };
      await lock.run(drain, { signal: wait.signal, onWait });
    } catch (error) {
      // drain() reports its own errors: this is the wait failing (not cancelled) before it ran.
      if (!wait.signal.aborted) this.emit({ type: 'error', message: `ingest: ${describeError(error)}` });
    } finally {
      this.lockWait = null;
      this.waitingElsewhere = false;
      if (!drained) {
        this.running = null;
        this.emit({ type: 'idle', cancelled: wait.signal.aborted });
      }
    }
  }

  /** Stops indexing and drops the queue; documents already stored stay (each one is complete). */
  async cancel(): Promise<void> {
    // Only waiting for another tab: its run is not this tab's to cancel, nor its queue to drop.
    const onlyWaiting = this.waitingElsewhere;
    this.lockWait?.abort(new Error('ingest: cancelled by the user'));
    this.controller?.abort(new Error('ingest: cancelled by the user'));
    await this.running;
    if (onlyWaiting) return;
    await this.deps.repo.clearWaitingPending();
    // Nothing waits now: a library that the queue projected past the threshold but that is small goes back to
    // memory, with every mode (its pages of the refreshes so far are no longer read, pagesThreshold.ts).
    await this.deps.repo.projectChunks(undefined);
    this.emit({ type: 'changed' });
  }

  /**
   * Removes documents and everything derived from them (each in one transaction, src/store/documentsRepo.ts), then
   * lets a drain refresh the concept graph and the pages of what remains: the removal's work is a run like any
   * other, with its progress and its 'idle' at the end (a rebuild reported outside a run left the page saying
   * "indexing…" for good, and its watchdog "stalled"). Resolves with how many were removed, once they are gone
   * from the store (the refresh goes on in the drain: the running one, or one started here).
   */
  async removeDocuments(docIds: readonly string[]): Promise<number> {
    const { repo, lock } = this.deps;
    const remove = async () => {
      let removed = 0;
      for (const id of docIds) if (await repo.removeDocument(id)) removed += 1;
      return removed;
    };
    // This tab's own drain holds the lock already; otherwise the removal waits for any other tab's work.
    const removed = lock && !this.controller ? await lock.run(remove) : await remove();
    if (removed > 0) {
      this.kept = null;
      // The graph and pages no longer match the store: the running drain refreshes them before it ends, or the
      // drain started here does (it starts from graphStale, see drain()).
      this.graphStale = true;
      this.storedSinceGraph = true;
      this.wake = true;
    }
    this.emit({ type: 'changed' });
    if (removed > 0) void this.ensureRunning();
    return removed;
  }

  /** Tells the page how far each layer reaches (after a store write or a graph refresh). */
  private async reportCoverage(counted?: KeptCounts): Promise<void> {
    const counts = counted ?? (await this.deps.repo.layerCounts());
    this.kept = { ...counts };
    // The layers' counts as they are, and what the graph (or the pages) last covered of them.
    const coverage: LibraryCoverage = {
      ...counts,
      searchableDocuments: Math.min(this.searchable.documents, counts.documents),
      searchableSentences: Math.min(this.searchable.sentences, counts.sentences),
      ...(this.searchableFromPages ? { searchableFrom: 'pages' as const } : {}),
    };
    this.emit({ type: 'coverage', coverage });
  }

  /** After a store write: the counts (kept, see KeptCounts), at most every STORED_COVERAGE_MS. */
  private async reportStoredCoverage(): Promise<void> {
    const now = this.now();
    if (now - this.lastStoredCoverage < STORED_COVERAGE_MS) return;
    this.lastStoredCoverage = now;
    await this.reportCoverage(this.kept ?? undefined);
  }

  /**
   * A store write of this drain: the kept counts follow without a count() (duplicates are not stored), and the
   * graph and the embedding's progress no longer cover the library. Returns how many documents were stored.
   */
  private keepStored(documents: readonly PreparedDocument[], results: readonly PutResult[]): number {
    const added = { documents: 0, sentences: 0, chunks: 0 };
    results.forEach((r, i) => {
      if (!r.stored) return;
      added.documents += 1;
      added.sentences += documents[i]?.sentences.length ?? 0;
      added.chunks += documents[i]?.chunks.length ?? 0;
    });
    this.projection.chunksStored(added.chunks);
    if (added.documents > 0) {
      this.storedSinceGraph = true;
      this.embedMeter = null;
    }
    if (this.kept) {
      this.kept.documents += added.documents;
      this.kept.sentences += added.sentences;
      this.kept.chunks += added.chunks;
    }
    return added.documents;
  }

  private async drain(): Promise<void> {
    const { repo } = this.deps;
    this.controller = new AbortController();
    const { signal } = this.controller;
    this.lastGraph = this.now();
    this.lastGraphCost = 0;
    this.storedSinceGraph = this.graphStale;
    this.embeddedSinceGraph = false;
    this.embedder = null;
    this.embedStopped = false;
    this.embedMeter = null;
    this.pagesToCheck = true;
    this.projection = new DropProjection();
    let cancelled = false;
    try {
      // What is stored already is in the library the query worker loads: searchable.
      const before = await repo.layerCounts();
      this.kept = { ...before };
      this.searchable = { documents: before.documents, sentences: before.sentences };
      // The queue is known from the start: a drop that will pass the threshold writes pages from its first refresh.
      const rule = await this.project();
      this.searchableFromPages = rule.pages && (await new PagesRepo(repo.db).storedStamp()) !== undefined;
      for (;;) {
        this.wake = false;
        // Ids only: each file's bytes are read from the store when its turn comes, not the whole queue at once.
        const queue = await repo.waitingIds();
        if (queue.length > 0) {
          // The model loads while the files are parsed and stored: the lexical layer does not wait for it.
          this.loadEmbedder();
          await this.queue.store(queue, signal);
          continue;
        }
        if (this.wake) continue;
        // Nothing waits: the projection is the store itself. A library refreshed by its pages that ends under the
        // threshold after all (its last files failed, or were duplicates) gets its graph now, and every mode.
        if (this.projecting) {
          const rule = await this.project();
          if (this.searchableFromPages && !rule.pages) this.storedSinceGraph = true;
        }
        // The queue's files are stored: the lexical graph covers them before any embedding starts. Once, not per
        // file: the page queues picked files one at a time (src/ui/intake.ts).
        if (this.storedSinceGraph) {
          await this.rebuildGraph(signal);
          continue;
        }
        // A large library gets its pages before embedding starts: a reload then answers from them at once.
        if (this.pagesToCheck) {
          this.pagesToCheck = false;
          await this.writePagesIfDue(signal);
          continue;
        }
        if (!this.embedStopped && (await this.embedRound(signal))) continue;
        await this.releaseEmbedder();
        // Every document has its vectors (or embedding cannot go on): the graph gains its semantic layer.
        if (this.embeddedSinceGraph) {
          await this.rebuildGraph(signal, 'embedded');
          continue;
        }
        // Files queued since the queue was last read (notifyQueued): this drain takes them rather than end
        // with them waiting (the page would see 'idle' while its drop is in the queue).
        if (this.wake) continue;
        break;
      }
    } catch (error) {
      if (signal.aborted) cancelled = true;
      else if (error instanceof StorageStopError) {
        this.emit({
          type: 'error',
          message: `ingest: ${error.message}`,
          cause: error.kind,
          file: error.file,
        });
      } else this.emit({ type: 'error', message: `ingest: ${describeError(error)}` });
    } finally {
      this.controller = null;
      this.running = null;
      this.embedder = null;
      this.emit({ type: 'changed' });
      this.emit({ type: 'idle', cancelled });
    }
  }

  /**
   * While files keep being stored the lexical graph is refreshed every graphRefreshMs, or GRAPH_REFRESH_SPACING
   * times as long as the last refresh took, whichever is longer; and at once when nothing is searchable yet
   * (firstSearchableDue).
   */
  private async refreshIfDue(signal: AbortSignal): Promise<void> {
    const wait = Math.max(this.graphRefreshMs, GRAPH_REFRESH_SPACING * this.lastGraphCost);
    const firstPages = this.firstPagesAt !== null && this.chunksNow() >= this.firstPagesAt;
    if (
      this.storedSinceGraph &&
      (firstPages || this.firstSearchableDue() || this.now() - this.lastGraph >= wait)
    ) {
      await this.rebuildGraph(signal);
    }
  }

  /**
   * A drop into a library with nothing searchable gets its first graph as soon as its first batch is stored, not a
   * refresh interval (or, for a drop stored within one, its whole queue) later. Before, a question asked during a
   * first drop waited for the one refresh after the last file, over every document at once: on the Vue docs "What is
   * this about?" was answered 6.5-23 s after every document was stored (docs/results/themes.md). Now it is
   * answered over the first documents, said to be so, and asked again as refreshes take in the rest
   * (src/ui/state/askAgain.ts). A graph over one batch costs little, and the refreshes after it are spaced as
   * before. Not for a drop headed for pages (firstPagesAt): its first pages have their own point.
   */
  private firstSearchableDue(): boolean {
    return this.searchable.documents === 0 && this.firstPagesAt === null && !this.searchableFromPages;
  }

  /** The library's chunks now: as read at the last projection, plus what this drain stored since. */
  private chunksNow(): number {
    return this.chunksAtProjection + this.projection.storedChunks - this.chunksStoredAtProjection;
  }

  /**
   * Projects what the drop will store (dropProjection.ts) into the index record, where both workers' rule reads it
   * (pagesLibrary), and returns the rule's answer. One read of the queue's record sizes (no bytes).
   */
  private async project(): Promise<Awaited<ReturnType<typeof pagesLibrary>>> {
    const { repo } = this.deps;
    const before = await pagesLibrary(repo.db);
    const projected = this.projection.project(before.chunks, await repo.queuedBytes());
    this.projecting = projected !== undefined && projected > before.chunks;
    await repo.projectChunks(this.projecting ? projected : undefined);
    const rule = await pagesLibrary(repo.db);
    this.chunksAtProjection = rule.chunks;
    this.chunksStoredAtProjection = this.projection.storedChunks;
    const noPages = (await new PagesRepo(repo.db).storedStamp()) === undefined;
    // A library with nothing stored yet has no index record to hold the projection, nor pages by the rule, but the
    // first pages of a drop that will be large are due all the same.
    const headed = rule.pages || (rule.chunks === 0 && (projected ?? 0) >= rule.min);
    this.firstPagesAt = headed && noPages ? Math.floor(rule.min * FIRST_PAGES_SHARE) : null;
    return rule;
  }

  private now(): number {
    return this.deps.now?.() ?? performance.now();
  }

  /** Starts loading the configured embedder (once per drain); its failure is reported when embedding starts. */
  private loadEmbedder(): Promise<Embedder> {
    if (!this.embedder) {
      const { repo } = this.deps;
      this.embedder = readEmbedderChoice(repo).then((choice) => this.deps.embedder(choice));
      this.embedder.catch(() => undefined);
    }
    return this.embedder;
  }

  /** Frees this drain's embedder, if it loaded one (see IngestDeps.releaseEmbedder). */
  private async releaseEmbedder(): Promise<void> {
    if (!this.embedder || !this.deps.releaseEmbedder) return;
    this.embedder = null;
    await this.deps.releaseEmbedder();
  }

  /**
   * Embeds one round of the documents stored without vectors and stores each finished document's vectors in
   * one transaction. Returns false when nothing is left, or when embedding cannot go on in this drain (the
   * reason is reported; the documents stay searchable by their words and wait for a later run).
   */
  private async embedRound(signal: AbortSignal): Promise<boolean> {
    const { repo } = this.deps;
    // Sentence vectors are off (lexical layer only): the documents wait without vectors until they are turned on.
    if ((await repo.getSetting<boolean>(SENTENCE_VECTORS_SETTING)) === false) return false;
    const round = await repo.preparedDocuments(await repo.nextDocumentsToEmbed(EMBED_ROUND_SENTENCES));
    if (round.length === 0) return false;
    let embedder: Embedder;
    try {
      embedder = await this.loadEmbedder();
    } catch (error) {
      this.stopEmbedding(error);
      return false;
    }
    if (!this.embedMeter) {
      const counts = await repo.layerCounts();
      const meter = this.meter('embed', counts.sentences - counts.embeddedSentences);
      this.embedMeter = { meter, done: 0 };
    }
    const progress = this.embedMeter;
    const base = progress.done;
    try {
      await embedDocuments(round, embedder, {
        batchSize: EMBED_BATCH,
        signal,
        onProgress: (p) => {
          progress.done = base + p.done;
          progress.meter.report(progress.done, round[0]?.doc.sourceName);
        },
        onDocuments: async (completed) => {
          const file = completed[0]?.prepared.doc.sourceName ?? '';
          const written = await this.queue.write(
            file,
            () =>
              repo.putDocumentVectors(
                completed.map((c) => ({ docId: c.prepared.doc.id, vectors: c.vectors })),
                embedder.id,
              ),
            `the vectors of "${file}"`,
          );
          if (written.length > 0) this.embeddedSinceGraph = true;
          // 'coverage', not 'changed': vectors change no answer until the rebuild that follows the last of them
          // (the engine stays lexical while any document lacks vectors), and a 'changed' per batch made the page
          // reload the query worker's library every second of a drop, so questions waited for the embedding.
          await this.reportCoverage();
        },
      });
    } catch (error) {
      if (signal.aborted || error instanceof StorageStopError) throw error;
      this.stopEmbedding(error);
      return false;
    }
    return true;
  }

  /** Embedding cannot go on in this drain: say why; the documents keep their lexical layer and wait. */
  private stopEmbedding(error: unknown): void {
    this.embedStopped = true;
    const reason = error instanceof EmbedderMismatchError ? error.message : describeError(error);
    this.emit({
      type: 'error',
      message: `ingest: documents are stored and searchable by their words, but their sentences cannot be embedded: ${reason}`,
    });
  }

  /**
   * Brings what answers questions up to the store: the concept graph (IncrementalGraphRefresh), or, for a library
   * answered from its pages (pagesThreshold.ts: from PAGES_MIN_CHUNKS chunks, lexical only), its pages. Such a library
   * is never loaded by the query worker, so refreshing its incremental graph during a drop only cost memory (3.3 GB
   * of the ingest worker's heap at 100 MiB, docs/results/tab-pages.md): the graph is let go and the pages written
   * in its place, spaced by their own cost as the graph was (~15 CPU s per 10 MiB). Decided at every refresh from
   * the chunks stored so far: a drop that passes the threshold switches at its first refresh past it. The rebuild
   * after embedding (`embedded`) builds the graph's semantic layer and always takes the graph path.
   */
  private async rebuildGraph(signal: AbortSignal, after: 'stored' | 'embedded' = 'stored'): Promise<void> {
    const started = this.now();
    this.lastGraph = started;
    // What the rebuild reads: documents stored during it are covered by the next one. Counted, not kept: a
    // refresh is spaced by its own cost, and this count sets the kept counts right again.
    const counts = await this.deps.repo.layerCounts();
    // Decided from what the drop will store (the projection, written for the query worker too), not only from what
    // it has stored: a drop that will pass the threshold never builds the incremental graph.
    const byPages = after === 'stored' && (await this.project()).pages;
    this.storedSinceGraph = false;
    this.graphStale = false;
    this.searchableFromPages = byPages;
    if (byPages) {
      // The vectors stored meanwhile still wait for the semantic layer's rebuild (not done by pages).
      this.deps.releaseGraph?.();
      await this.writePagesIfDue(signal);
      this.pagesToCheck = false;
      this.firstPagesAt = null;
    } else {
      this.embeddedSinceGraph = false;
      const meter = this.meter('graph', 1);
      // Named, so a stall says what it waited for.
      meter.report(0, `${counts.documents.toLocaleString('en')} documents`);
      // Quota only: a rebuild computes for seconds (minutes on a slow machine) before its one write.
      await guardWrite(
        () => this.deps.rebuildGraph(this.deps.repo, signal),
        { subject: 'the concept graph' },
        Infinity,
      );
      this.pagesToCheck = true;
      meter.report(1);
    }
    // Counted from the start: the spacing is measured from it too (lastGraph), so the rule bounds the share.
    this.lastGraphCost = this.now() - started;
    this.searchable = { documents: counts.documents, sentences: counts.sentences };
    this.emit({ type: 'changed' });
    // A drop's last refresh (nothing waits in the queue): its graph is handed to the query worker (graphSettled).
    const last =
      after === 'stored' && !byPages && this.deps.graphSettled && (await this.deps.repo.waitingCount()) === 0;
    const handing = last ? this.deps.graphSettled : undefined;
    handing?.coming();
    try {
      await this.reportCoverage();
    } finally {
      handing?.settled();
    }
  }

  /**
   * Writes the library's pages when they are due (pagesWrite.ts: a library of PAGES_MIN_CHUNKS chunks or more,
   * lexical only, without pages of its present documents), showing "writing pages n/N" (documents, both passes).
   * Cancel stops it and stores nothing; the old pages (of another stamp) are then never read.
   */
  private async writePagesIfDue(signal: AbortSignal): Promise<void> {
    const { repo } = this.deps;
    const { pages } = this;
    if (!(await pages.due(repo))) return;
    const meter = this.meter('pages', 0);
    let last = Number.NEGATIVE_INFINITY;
    const report = (done: number, total: number): void => {
      const now = this.now();
      if (done < total && now - last < PAGES_PROGRESS_MS) return;
      last = now;
      meter.total = total;
      meter.report(done, `${done}/${total}`);
    };
    report(0, 0);
    // Quota only: the build computes for seconds (minutes for a large library) before its one write.
    await guardWrite(
      () => pages.write(repo, { signal, onProgress: report }),
      { subject: "the library's pages" },
      Infinity,
    );
    this.emit({ type: 'changed' });
  }
}
