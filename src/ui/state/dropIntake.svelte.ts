// What a drop does before ingest: refuses unsupported and oversized files by name, checks the drop's space against
// what the browser offers (storageEstimate.ts) and its memory against what the tab can use (memoryEstimate.ts),
// asking the user when it will not fit, records every file by name and size, then stores the bytes a group at a
// time and tells the ingest worker (src/store/intakeStore.ts). Files a closed page recorded but never read are
// named, to pick again or forget.
import type { FileOutcome } from '../../services/ingest/ingestProtocol.ts';
import { SENTENCE_VECTORS_SETTING } from '../../services/ingest/ingestProtocol.ts';
import {
  nextGroup,
  readGroup,
  screenFiles,
  withOutcomes,
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
import { ingestWorker } from '../workers.ts';
import { crossTab } from './crossTab.svelte.ts';
import { pageRepo } from './db.ts';
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
import { PendingChoice } from './pendingChoice.svelte.ts';
import { rememberAddedPdfs } from '../pdfPage.ts';
import type { LibraryHost } from './libraryHost.ts';

export class DropIntake {
  /**
   * A drop that will not fit in storage, or in the tab's memory, waiting for the user's choice before anything is
   * queued: index it all anyway, the lexical layer only, or nothing.
   */
  readonly space = new PendingChoice<SpaceShortfall, 'full' | 'lexical'>();
  readonly memory = new PendingChoice<MemoryShortfall, 'full' | 'lexical'>();
  /**
   * Files dropped in an earlier page whose names and sizes were recorded but whose bytes never reached the
   * store (the page was closed or reloaded within seconds of the drop): named in the Library view, to pick again.
   */
  notRead = $state<AnnouncedFile[]>([]);
  /** Drops still being screened, recorded or read into the store; Cancel stops the reading too. */
  feeding = 0;

  /** This page's dropped files recorded by name and size whose bytes are still to be stored (id → file). */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- bookkeeping of the intake, never rendered
  private readonly unread = new Map<string, { name: string; file: Pick<File, 'size' | 'arrayBuffer'> }>();
  /** The group of unread files being read and stored, if any. */
  private filling: Promise<void> | null = null;
  private stopFeeding = false;

  constructor(private readonly library: LibraryHost) {}

  /** What the store lists as recorded but unread, less this page's own files (their bytes are being stored now). */
  leftBehind(announced: readonly AnnouncedFile[]): void {
    this.notRead = announced.filter((a) => !this.unread.has(a.id));
  }

  /**
   * Takes a drop: busy at once (a folder's walk, the space check and the reading come before the worker has
   * anything to report, and "idle" then would be false), refuses unsupported and oversized files by name and
   * size (each gets its verdict, nothing is read), then records the whole drop in the store before anything is
   * parsed: every file's name and size in one transaction, then the bytes in a few large transactions
   * (src/store/intakeStore.ts). A file picked again after a reload fills its recorded place.
   */
  async addFiles(input: PickedFile[] | Promise<PickedFile[]>): Promise<void> {
    const library = this.library;
    const run = library.run;
    // Files dropped while a drop is indexing join it, until its files are all read (see record()).
    const joining = library.running;
    this.feeding += 1;
    this.stopFeeding = false;
    library.running = !crossTab.elsewhere.ingest;
    try {
      const files = await input;
      if (files.length === 0) return;
      library.message = null;
      library.notice = null;
      run.storageStop = null;
      const { accepted, refused, summary } = screenFiles(files);
      if (refused.length > 0) run.outcomes = withOutcomes(refused, run.outcomes);
      if (summary) library.message = summary;
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
        storedSentences: library.counts.sentences,
        vectors: !library.vectorsOff,
        budget: browserMemoryBudget(),
        folder: droppedFolder(accepted.map((a) => a.name)),
      });
      const outside = (command: string) =>
        `${notQueued} To index them outside the browser: ${command}, then open library.bundle here with Import bundle….`;
      if (memory && !(await this.goOn(this.memory, memory, outside(memory.command)))) return;
      if (!(await this.record(accepted, joining))) return;
      await this.fillBytes();
      if (summary) library.message = summary;
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
    if (choice === 'stop') this.library.message = refused;
    else if (choice === 'lexical') {
      await pageRepo().setSetting(SENTENCE_VECTORS_SETTING, false);
      this.library.vectorsOff = true;
    }
    return choice !== 'stop';
  }

  /**
   * Records the accepted files by name and size, in one transaction (announced ones of an earlier page matched
   * by name and size are reused), and counts them in this drop's progress. False when the store refused.
   */
  private async record(accepted: Screened['accepted'], joining: boolean): Promise<boolean> {
    const run = this.library.run;
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
      await run.stoppedByStorage('storage-full', accepted[0].name, accepted[0].name);
      return false;
    }
    // A drop after the last one's files were all read is a drop of its own: its counts are its files only.
    if (!joining || !run.tally || run.tally.filesDone >= run.tally.files) run.newDrop();
    const entries = [
      ...matched.map((m) => ({ id: m.id, f: m.file })),
      ...fresh.map((f, k) => ({ id: ids[k], f })),
    ];
    for (const { id, f } of entries) {
      this.unread.set(id, { name: f.name, file: f.file });
      run.tally?.queued(f.name, f.size);
    }
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a lookup for this drop, never state
    const taken = new Set(matched.map((m) => m.id));
    this.notRead = this.notRead.filter((n) => !taken.has(n.id));
    run.updateDrop();
    return true;
  }

  /** Stores the bytes of this page's unread files, a group per transaction, telling the worker after each. */
  private async fillBytes(): Promise<void> {
    // A drop made while another's group is being stored waits for it, then goes on with what is left.
    while (this.unread.size > 0 && !this.stopFeeding && !this.library.run.storageStop) {
      this.filling ??= this.fillGroups().finally(() => (this.filling = null));
      await this.filling;
    }
  }

  private async fillGroups(): Promise<void> {
    const run = this.library.run;
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
        await run.stoppedByStorage('storage-full', group[0].name, group[0].name);
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
          await repo.markFailed(r.item.id, r.reason);
          run.showOutcomes([outcome, ...run.outcomes]);
          run.tally?.fileDone(r.item.name, performance.now());
        }
      }
      run.updateDrop();
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
    this.library.running = this.feeding > 0 || (running && !crossTab.elsewhere.ingest);
  }

  /** On Resume: the files of this page's drop whose bytes the full store refused are stored now. */
  async storeUnread(): Promise<void> {
    if (this.unread.size === 0) return;
    this.feeding += 1;
    this.stopFeeding = false;
    try {
      await this.fillBytes();
    } finally {
      await this.doneFeeding();
    }
  }

  /** On Cancel: this page's files not yet stored are dropped with the queue (a closed page's leftovers stay named). */
  async stopReading(): Promise<void> {
    this.stopFeeding = true;
    const ids = [...this.unread.keys()];
    this.unread.clear();
    await forgetAnnounced(pageRepo().db, ids);
  }

  /** Forgets the files a closed page recorded but never read (the person will not pick them again). */
  async forgetNotRead(): Promise<void> {
    await forgetAnnounced(
      pageRepo().db,
      this.notRead.map((n) => n.id),
    );
    this.notRead = [];
    await this.library.refresh(false);
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
}
