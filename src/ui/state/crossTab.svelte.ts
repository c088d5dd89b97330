// What the other tabs of this browser are doing to the shared library (the worker side is workers/crossTab.ts):
// which work runs elsewhere (indexing, a KG build), so the views say so instead of offering to start it, and
// callbacks when another tab changed the library or finished, so this tab re-reads it without a reload.
import {
  CROSS_TAB_CHANNEL,
  LOCK_NAMES,
  type CrossTabMessage,
  type SharedWork,
} from '../../services/library/crossTab.ts';

/** This tab's id; its workers carry it in their names, so this tab can ignore its own workers' messages. */
export const TAB_ID = crypto.randomUUID();

/** The name to give a worker of this tab (workers/crossTab.ts reads the tab id back from it). */
export function workerName(kind: string): string {
  return `${kind}@${TAB_ID}`;
}

type Listener = (work: SharedWork, event: 'changed' | 'done') => void;

class CrossTabState {
  /** Work that another tab of this browser is running on the library right now. */
  elsewhere = $state<Record<SharedWork, boolean>>({ ingest: false, kg: false });
  private readonly listeners = new Set<Listener>();
  private started: Promise<void> | null = null;
  /** Bumped by every "busy", so an older wait for the lock cannot clear a newer run. */
  private generation: Record<SharedWork, number> = { ingest: 0, kg: 0 };

  /** Subscribes to another tab's changes and ends; returns the unsubscribe function. */
  listen(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Starts listening and learns which locks other tabs already hold. Call before this tab's workers start any
   * work: a lock held at that moment can only be another tab's.
   */
  start(): Promise<void> {
    this.started ??= this.connect();
    return this.started;
  }

  private async connect(): Promise<void> {
    if (typeof BroadcastChannel === 'undefined' || !navigator.locks) return;
    const channel = new BroadcastChannel(CROSS_TAB_CHANNEL);
    channel.onmessage = (event: MessageEvent<CrossTabMessage>) => this.onMessage(event.data);
    const { held = [] } = await navigator.locks.query();
    for (const work of Object.keys(LOCK_NAMES) as SharedWork[]) {
      if (held.some((lock) => lock.name === LOCK_NAMES[work])) this.markBusy(work);
    }
  }

  private onMessage(message: CrossTabMessage): void {
    if (message.tab === TAB_ID || !(message.work in LOCK_NAMES)) return;
    if (message.type === 'busy') this.markBusy(message.work);
    else if (message.type === 'done') this.markDone(message.work);
    else this.notify(message.work, 'changed');
  }

  private markBusy(work: SharedWork): void {
    const generation = ++this.generation[work];
    this.elsewhere[work] = true;
    // A tab that is closed or crashes mid-run sends no "done", but its lock is released: wait for that too.
    // (A shared request is granted once the exclusive holder lets go, and holds nothing afterwards.)
    void navigator.locks.request(LOCK_NAMES[work], { mode: 'shared' }, () => {
      if (this.generation[work] === generation) this.markDone(work);
    });
  }

  private markDone(work: SharedWork): void {
    if (!this.elsewhere[work]) return;
    this.elsewhere[work] = false;
    this.notify(work, 'done');
  }

  private notify(work: SharedWork, event: 'changed' | 'done'): void {
    for (const listener of this.listeners) listener(work, event);
  }
}

export const crossTab = new CrossTabState();
