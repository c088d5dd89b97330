// An indexing run as the page follows it: the ingest worker's events (verdicts per file, progress, coverage, idle,
// errors), the progress of the drop as a whole (src/ui/estimates/dropProgress.ts), a stage that stops moving shown
// as stalled (watchdog.ts), a stop on a full store shown with the queue kept and a Resume, and Cancel. The library's
// own state (counts, list, coverage) is LibraryState's; this part patches it as the worker reports.
import type { Stage } from '../../core/types.ts';
import {
  SENTENCE_VECTORS_SETTING,
  type FileOutcome,
  type IngestEvent,
  type IngestStopCause,
} from '../../services/ingest/ingestProtocol.ts';
import { withOutcomes, boundedOutcomes } from '../intake.ts';
import { ingestWorker } from '../workers.ts';
import { crossTab } from './crossTab.svelte.ts';
import { sharedProgress } from './sharedProgress.svelte.ts';
import { pageRepo } from './db.ts';
import { DropTally, type DropRow } from '../estimates/dropProgress.ts';
import { StallWatchdog, type Stall } from './watchdog.ts';
import type { LibraryHost, StorageStop } from './libraryHost.ts';

/**
 * The worker's per-file events (a verdict and a progress report per file) reach the view at most this often: a
 * 20,000-file drop re-rendered the progress rows and the list of outcomes for every one of them.
 */
const EVENT_FLUSH_MS = 250;

export class IndexingRun {
  outcomes = $state<FileOutcome[]>([]);
  /** Indexed files no longer listed in `outcomes` (src/ui/intake.ts INDEXED_OUTCOMES_SHOWN). */
  outcomesHidden = $state(0);
  /** The current drop as a whole: files, sentences, searchable documents, documents with vectors. */
  dropRows = $state<DropRow[]>([]);
  /** What the pipeline reported working on last (stage and item), while indexing. */
  activity = $state<{ stage: Stage; item?: string } | null>(null);
  /** The stage that has reported no progress for a minute while indexing, if any. */
  stall = $state<Stall | null>(null);
  /** The run stopped on a full (or stuck) store; cleared by Resume. */
  storageStop = $state<StorageStop | null>(null);
  /** The tally of the current drop (null before one, and after a removal: its bars describe another library). */
  tally: DropTally | null = null;

  private readonly watchdog = new StallWatchdog((stall) => (this.stall = stall));
  /** Verdicts and the latest activity heard since the view was last updated (flushEvents), newest last. */
  private heard: { outcomes: FileOutcome[]; activity: { stage: Stage; item?: string } | null } = {
    outcomes: [],
    activity: null,
  };
  private flushTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly library: LibraryHost) {}

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

  onEvent(event: IngestEvent): void {
    const library = this.library;
    switch (event.type) {
      case 'progress': {
        const p = event.progress;
        library.running = true;
        this.watchdog.progress(p.stage, p.done, p.item);
        this.heard.activity = { stage: p.stage, item: p.item };
        this.scheduleFlush();
        break;
      }
      case 'file':
        this.heard.outcomes.push(event.outcome);
        library.fileStored();
        this.tally?.fileDone(event.outcome.file, performance.now());
        this.scheduleFlush();
        break;
      case 'coverage':
        library.heardCoverage(event.coverage);
        this.tally?.coverage(event.coverage, performance.now());
        this.updateDrop();
        break;
      case 'changed':
        library.scheduleRefresh();
        break;
      case 'waiting':
        library.running = false;
        this.watchdog.stop();
        break;
      case 'idle':
        // Every verdict is shown before the library says idle.
        this.flushEvents();
        // A drop still being recorded keeps the library busy: its files are not all in the queue yet.
        library.running = library.intake.feeding > 0;
        if (!library.running) sharedProgress.publish(this.dropRows, false);
        this.watchdog.stop();
        this.activity = null;
        library.removing = null;
        if (event.cancelled) library.notice = 'Indexing cancelled. Documents already stored are complete.';
        library.scheduleRefresh();
        break;
      case 'error':
        if (event.cause) {
          // Said plainly by the Library view, with the queue listed and Resume (the worker's own message tells
          // a worker-only reader to reload; here there is a button).
          this.watchdog.stop();
          void this.stoppedByStorage(event.cause, event.file ?? null);
        } else library.message = event.message;
        break;
    }
  }

  /** Starts the tally of a new drop from the library as it stands (when nothing is being indexed). */
  newDrop(): DropTally {
    const tally = new DropTally(
      this.library.coverage ?? this.library.coverageFromCounts(),
      performance.now(),
    );
    this.tally = tally;
    this.dropRows = tally.rows(performance.now());
    return tally;
  }

  /** The bars follow the tally; another tab shows them too (sharedProgress). */
  updateDrop(): void {
    if (!this.tally) return;
    this.dropRows = this.tally.rows(performance.now());
    sharedProgress.publish(this.dropRows, this.library.running);
  }

  /** Forgets the drop's bars: documents were removed, and the refresh shows its own stage. */
  forgetDrop(): void {
    this.tally = null;
    this.dropRows = [];
  }

  /** The store refused (or never finished) a write: the run stopped; lists the queue that is kept. */
  async stoppedByStorage(
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
    const library = this.library;
    this.storageStop = null;
    library.message = null;
    library.notice = null;
    library.running = !crossTab.elsewhere.ingest;
    if (!this.tally) this.newDrop();
    // Files of this page's drop whose bytes the full store refused: stored now, before the queue goes on.
    await library.intake.storeUnread();
    await ingestWorker().resume();
  }

  /** Turns sentence vectors back on and embeds what the library stored without them. */
  async embedSentences(): Promise<void> {
    await pageRepo().setSetting(SENTENCE_VECTORS_SETTING, true);
    this.library.vectorsOff = false;
    this.library.running = !crossTab.elsewhere.ingest;
    this.newDrop();
    await ingestWorker().resume();
  }

  async cancel(): Promise<void> {
    await this.library.intake.stopReading();
    await ingestWorker().cancel();
  }

  /** Lists these outcomes, the indexed ones beyond the newest INDEXED_OUTCOMES_SHOWN counted, not listed. */
  showOutcomes(list: FileOutcome[]): void {
    const { outcomes, hidden } = boundedOutcomes(list);
    this.outcomes = outcomes;
    this.outcomesHidden += hidden;
  }

  async clearFailed(): Promise<void> {
    await ingestWorker().clearFailed();
    this.outcomes = this.outcomes.filter((o) => o.status !== 'failed');
  }
}
