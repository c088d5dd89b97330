// Library state: the file queue and per-file outcomes, stage progress with rate and ETA, counts and storage.
// It talks to the ingest worker (events arrive through a Comlink proxy) and reads counts from IndexedDB.
import { proxy, transfer } from 'comlink';
import type { DocumentRecord, Progress, Stage } from '../../core/types.ts';
import type { PendingRecord } from '../../store/db.ts';
import type { StoreCounts } from '../../store/repo.ts';
import type { FileOutcome, IngestEvent } from '../../services/protocol.ts';
import { readOneByOne, screenFiles, withOutcomes, type PickedFile } from '../intake.ts';
import { queryParam } from '../url.ts';
import { ingestWorker, queryWorker } from '../workers.ts';
import { crossTab } from './crossTab.svelte.ts';
import { pageRepo } from './db.ts';
import { kgApi } from './kg.ts';

export interface StageView extends Progress {
  /** Seconds left at the current rate, NaN when unknown. */
  eta: number;
}

export type DocumentSummary = Pick<
  DocumentRecord,
  'id' | 'title' | 'sourceName' | 'mime' | 'size' | 'addedAt'
>;

/** Files whose names carry a directory (folder picks) keep it, so two "notes.md" stay apart. */
export type { PickedFile } from '../intake.ts';

const STAGE_ORDER: Stage[] = ['parse', 'embed', 'store', 'graph'];
const DOCUMENT_LIST_LIMIT = 500;

const EMPTY_COUNTS: StoreCounts = {
  documents: 0,
  sections: 0,
  chunks: 0,
  sentences: 0,
  vectors: 0,
  concepts: 0,
  edges: 0,
  pending: 0,
  kgEntities: 0,
  kgRelations: 0,
};

export class LibraryState {
  counts = $state<StoreCounts>({ ...EMPTY_COUNTS });
  storage = $state<{ usage: number; quota: number } | null>(null);
  documents = $state<DocumentSummary[]>([]);
  /** Files that failed (name and reason); their bytes are gone. */
  failed = $state<Omit<PendingRecord, 'bytes'>[]>([]);
  /** Files waiting in the queue (queued, or interrupted by a reload). */
  waiting = $state(0);
  outcomes = $state<FileOutcome[]>([]);
  stages = $state<Partial<Record<Stage, StageView>>>({});
  running = $state(false);
  message = $state<string | null>(null);
  layers = $state<{ lexical: boolean; semantic: boolean; embedderId: string | null }>({
    lexical: false,
    semantic: false,
    embedderId: null,
  });
  /** Increments whenever the store changes, so the Ask view knows to reload its engine. */
  version = $state(0);
  /** A bundle opened read-only from ?bundle=…: nothing is indexed or stored, questions go to the bundle. */
  readOnly = $state<{ url: string; counts: Record<string, number>; embedderId: string | null } | null>(null);
  /** Export/import in progress, with what it is doing. */
  bundleBusy = $state<string | null>(null);

  private refreshTimer: ReturnType<typeof setTimeout> | null = null;
  /** Picked files still being read and queued one by one (intake.ts); Cancel stops the reading too. */
  private feeding = 0;
  private stopFeeding = false;
  private started = false;

  get stageList(): StageView[] {
    return STAGE_ORDER.map((s) => this.stages[s]).filter((s): s is StageView => s !== undefined);
  }

  get isEmpty(): boolean {
    return this.counts.documents === 0 && this.waiting === 0 && this.failed.length === 0 && !this.running;
  }

  /** Connects to the worker and resumes a queue left by a reload; with ?bundle=… opens that bundle read-only. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const bundle = queryParam('bundle');
    if (bundle) {
      await this.openReadOnly(bundle);
      return;
    }
    // Ask the browser not to evict the library under storage pressure (granted silently for installed or
    // frequently used sites; a refusal only means best-effort storage, as before).
    void navigator.storage?.persist?.().catch(() => false);
    // Before this tab's worker can take a lock: another tab's work is then known, and shown, from the start.
    await crossTab.start();
    crossTab.listen((work, event) => {
      if (work === 'ingest' && event === 'done') void this.afterOtherTab();
      else this.scheduleRefresh();
    });
    const worker = ingestWorker();
    await worker.subscribe(proxy((event: IngestEvent) => this.onEvent(event)));
    await this.refresh();
    if (this.waiting > 0) {
      // The worker resumes the queue, or waits while another tab indexes it (it says so with 'waiting').
      this.running = !crossTab.elsewhere.ingest;
      void worker.resume();
    }
  }

  private onEvent(event: IngestEvent): void {
    switch (event.type) {
      case 'progress': {
        const p = event.progress;
        const eta = p.rate > 0 ? (p.total - p.done) / p.rate : Number.NaN;
        this.stages = { ...this.stages, [p.stage]: { ...p, eta } };
        this.running = true;
        break;
      }
      case 'file':
        this.outcomes = [event.outcome, ...this.outcomes.filter((o) => o.file !== event.outcome.file)];
        this.listStale = true;
        break;
      case 'changed':
        this.scheduleRefresh();
        break;
      case 'waiting':
        this.running = false;
        break;
      case 'idle':
        this.running = this.feeding > 0;
        if (event.cancelled) this.message = 'Indexing cancelled. Documents already stored are complete.';
        this.scheduleRefresh();
        break;
      case 'error':
        this.message = event.message;
        break;
    }
  }

  /**
   * Re-reads the store at most twice a second while indexing (the page must not compete with the worker for the
   * two cores), and the document list only when a file finished or indexing stopped.
   */
  private scheduleRefresh(): void {
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(
      () => {
        this.refreshTimer = null;
        void this.refresh(!this.running || this.listStale);
      },
      // Another tab's run sends a change per stored batch: the same pace as this tab's own.
      this.running || crossTab.elsewhere.ingest ? 500 : 100,
    );
  }

  private listStale = true;

  /**
   * Another tab's indexing ended: re-read the library, and resume what that tab left in the queue (it was closed
   * or crashed mid-run). The lock keeps this from repeating work another tab has taken up meanwhile.
   */
  private async afterOtherTab(): Promise<void> {
    await this.refresh();
    if (this.waiting > 0 && !this.running && !crossTab.elsewhere.ingest) {
      this.running = true;
      void ingestWorker().resume();
    }
  }

  async refresh(withList = true): Promise<void> {
    const repo = pageRepo();
    const [counts, storage, meta, failed, waiting, docs] = await Promise.all([
      repo.counts(),
      repo.storageUsed(),
      repo.getMeta(),
      repo.failedPending(),
      repo.waitingCount(),
      withList ? repo.db.documents.orderBy('addedAt').reverse().limit(DOCUMENT_LIST_LIMIT).toArray() : null,
    ]);
    this.counts = counts;
    this.storage = storage;
    this.failed = failed;
    this.waiting = waiting;
    this.layers = {
      lexical: (meta?.concepts ?? 0) > 0 || counts.chunks > 0,
      semantic: meta?.layers.semantic ?? false,
      embedderId: meta?.embedderId ?? null,
    };
    if (docs) {
      this.listStale = false;
      this.documents = docs.map(({ id, title, sourceName, mime, size, addedAt }) => ({
        id,
        title,
        sourceName,
        mime,
        size,
        addedAt,
      }));
    }
    this.version += 1;
  }

  /**
   * Refuses unsupported and oversized files by name and size (each gets its verdict, nothing is read), then reads
   * the others one at a time and queues each before reading the next (src/ui/intake.ts).
   */
  async addFiles(files: PickedFile[]): Promise<void> {
    if (files.length === 0) return;
    const { accepted, refused, summary } = screenFiles(files);
    if (refused.length > 0) this.outcomes = withOutcomes(refused, this.outcomes);
    if (accepted.length > 0) {
      await this.queue(readOneByOne(accepted, (outcome) => (this.outcomes = [outcome, ...this.outcomes])));
    }
    if (summary) this.message = summary;
  }

  /** Fetches the sample documents shipped with the app (public/samples/) and queues them. */
  async loadSamples(): Promise<void> {
    const index = await fetch('samples/index.json');
    if (!index.ok) throw new Error(`samples: could not load samples/index.json (HTTP ${index.status})`);
    const list = (await index.json()) as { file: string; title: string }[];
    await this.queue(
      (async function* () {
        for (const entry of list) {
          const response = await fetch(`samples/${encodeURIComponent(entry.file)}`);
          if (!response.ok) throw new Error(`samples: ${entry.file}: HTTP ${response.status}`);
          yield { name: entry.file, bytes: await response.arrayBuffer() };
        }
      })(),
    );
  }

  /**
   * Marks the library busy at once (so nobody sees a false "idle"), then hands the files to the worker as they
   * are read, one at a time (their buffers are transferred, not copied).
   */
  private async queue(items: AsyncIterable<{ name: string; bytes: ArrayBuffer }>): Promise<void> {
    this.message = null;
    this.running = !crossTab.elsewhere.ingest;
    this.stages = {};
    // While files are still being read the library is busy, even when the worker has emptied the queue so far.
    this.feeding += 1;
    this.stopFeeding = false;
    try {
      for await (const item of items) {
        if (this.stopFeeding) break;
        await ingestWorker().enqueue(transfer([item], [item.bytes]));
      }
    } finally {
      this.feeding -= 1;
      // The worker may have gone idle before the last file was queued (its idle event then left us busy).
      if (this.feeding === 0) this.running = await ingestWorker().isRunning();
    }
  }

  private async openReadOnly(url: string): Promise<void> {
    this.bundleBusy = `Opening ${url}…`;
    try {
      // Both workers are told in this same task, before any question can be asked, so neither ever answers
      // from the local library (a question asked while the bundle downloads waits for it).
      const [opened] = await Promise.all([queryWorker().openBundle(url), kgApi().useBundle(url)]);
      this.readOnly = opened;
      const c = opened.counts;
      this.counts = { ...this.counts, ...c, vectors: c.vectors ?? 0, pending: 0 };
      this.layers = { lexical: true, semantic: (c.vectors ?? 0) > 0, embedderId: opened.embedderId };
      this.version += 1;
    } finally {
      this.bundleBusy = null;
    }
  }

  /** Downloads the library as one bundle file. */
  async exportBundle(): Promise<void> {
    this.message = null;
    this.bundleBusy = 'Exporting…';
    try {
      const { blob, fileName } = await ingestWorker().exportBundle();
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = fileName;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      this.message = `Exported ${fileName} (${(blob.size / 1024 / 1024).toFixed(1)} MB).`;
    } finally {
      this.bundleBusy = null;
    }
  }

  /** Imports a bundle file: validated completely first; a refused bundle leaves the library untouched. */
  async importBundle(file: File): Promise<void> {
    this.message = null;
    this.bundleBusy = `Importing ${file.name}…`;
    try {
      const result = await ingestWorker().importBundle(file);
      this.message =
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
    await ingestWorker().cancel();
  }

  async remove(docId: string): Promise<void> {
    await ingestWorker().removeDocument(docId);
    await this.refresh();
  }

  async clearFailed(): Promise<void> {
    await ingestWorker().clearFailed();
    this.outcomes = this.outcomes.filter((o) => o.status !== 'failed');
  }
}

export const library = new LibraryState();
