// The progress of a drop, shared with the other tabs of this browser: the tab that indexes posts its drop's rows
// (src/ui/estimates/dropProgress.ts) at most once a second, and a tab that waits while another indexes shows them
// under "Indexing in another tab" (it has no tally of its own: the files were dropped elsewhere, and it showed
// "Indexing — done 0").
import type { DropRow } from '../estimates/dropProgress.ts';
import { TAB_ID } from './crossTab.svelte.ts';

const CHANNEL = 'conceptrag:drop-progress';
/** Rows are posted at most this often (each post is a structured clone in every other tab). */
const POST_EVERY_MS = 1000;

interface ProgressMessage {
  tab: string;
  rows: DropRow[];
  running: boolean;
}

class SharedProgress {
  /** The rows another tab last posted while it indexed (null when none is indexing, or none posted). */
  rows = $state<DropRow[] | null>(null);
  private channel: BroadcastChannel | null = null;
  private lastPost = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private latest: ProgressMessage | null = null;

  start(): void {
    if (this.channel || typeof BroadcastChannel === 'undefined') return;
    this.channel = new BroadcastChannel(CHANNEL);
    this.channel.onmessage = (event: MessageEvent<ProgressMessage>) => {
      if (event.data.tab === TAB_ID) return;
      this.rows = event.data.running ? event.data.rows : null;
    };
  }

  /** This tab's drop as it stands; the last state of a run (running false) is posted at once. */
  publish(rows: DropRow[], running: boolean): void {
    if (!this.channel) return;
    this.latest = { tab: TAB_ID, rows: $state.snapshot(rows) as DropRow[], running };
    const wait = POST_EVERY_MS - (performance.now() - this.lastPost);
    if (!running || wait <= 0) this.post();
    else this.timer ??= setTimeout(() => this.post(), wait);
  }

  private post(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.latest || !this.channel) return;
    this.lastPost = performance.now();
    this.channel.postMessage(this.latest);
  }
}

export const sharedProgress = new SharedProgress();
