// Two tabs, one library: the work that writes the library (indexing and the concept-graph rebuilds that go with
// it, bundle import, document removal; a KG build) runs under a Web Lock, so a second tab never resumes or
// repeats the same queue, and the lock outlives nothing (a closed or crashed tab releases it). While it holds the
// lock, a worker tells the other tabs over a BroadcastChannel ("busy", "changed", "done"), so they can say that
// the work runs elsewhere and re-read the library when it changes. The page side is src/ui/state/crossTab.svelte.ts.

/** The kinds of work that take a lock; each has its own, so one tab can index while it builds a KG. */
export type SharedWork = 'ingest' | 'kg';

export const LOCK_NAMES: Record<SharedWork, string> = {
  ingest: 'conceptrag:ingest',
  kg: 'conceptrag:kg-build',
};

export const CROSS_TAB_CHANNEL = 'conceptrag:library';

export interface CrossTabMessage {
  type: 'busy' | 'changed' | 'done';
  work: SharedWork;
  /** The page that started the worker (its messages are for the other tabs). */
  tab: string;
}

/** Workers are named "<kind>@<tab id>" by the page (src/ui/state/crossTab.svelte.ts), so messages say whose they are. */
function tabOfWorker(name: string): string {
  return name.split('@')[1] ?? 'unknown';
}

/** The subset of LockManager used here (navigator.locks; tests pass their own). */
export interface Locks {
  request<T>(
    name: string,
    options: { ifAvailable?: boolean; signal?: AbortSignal },
    callback: (lock: unknown) => Promise<T> | T,
  ): Promise<T>;
}

/** The subset of BroadcastChannel used here. */
export interface Channel {
  postMessage(message: CrossTabMessage): void;
}

export interface RunOptions {
  /** Aborts waiting for the lock (not the work once it holds it: the work has its own signal). */
  signal?: AbortSignal;
  /** Called once if another tab holds the lock, before this one waits for it. */
  onWait?: () => void;
}

export class CrossTabLock {
  constructor(
    private readonly work: SharedWork,
    private readonly tab: string,
    private readonly locks: Locks,
    private readonly channel: Channel,
  ) {}

  private post(type: CrossTabMessage['type']): void {
    this.channel.postMessage({ type, work: this.work, tab: this.tab });
  }

  /** The library changed under this lock (documents stored, graph rebuilt): other tabs re-read it. */
  changed(): void {
    this.post('changed');
  }

  private async holding<T>(run: () => Promise<T>): Promise<T> {
    this.post('busy');
    try {
      return await run();
    } finally {
      this.post('done');
    }
  }

  /** Runs `run` holding the lock, waiting for another tab to finish first (onWait says so). */
  async run<T>(run: () => Promise<T>, options: RunOptions = {}): Promise<T> {
    const name = LOCK_NAMES[this.work];
    const held = await this.tryRun(run);
    if (held.ran) return held.value;
    options.onWait?.();
    return this.locks.request(name, { signal: options.signal }, () => this.holding(run));
  }

  /** Runs `run` if no tab holds the lock; otherwise returns at once with ran = false. */
  async tryRun<T>(run: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    return this.locks.request(LOCK_NAMES[this.work], { ifAvailable: true }, async (lock) =>
      lock ? { ran: true as const, value: await this.holding(run) } : { ran: false as const },
    );
  }
}

/** Where Web Locks are missing (browsers before 2022), work runs as it did before: unguarded, one tab assumed. */
const NO_LOCKS: Locks = {
  request: async (_name, _options, callback) => callback({}),
};

/** The lock for this worker's kind of work, over the browser's Web Locks and BroadcastChannel. */
export function browserCrossTabLock(work: SharedWork, workerName: string): CrossTabLock {
  const locks: Locks = typeof navigator !== 'undefined' && navigator.locks ? navigator.locks : NO_LOCKS;
  const channel: Channel =
    typeof BroadcastChannel === 'undefined'
      ? { postMessage: () => undefined }
      : new BroadcastChannel(CROSS_TAB_CHANNEL);
  return new CrossTabLock(work, tabOfWorker(workerName), locks, channel);
}
