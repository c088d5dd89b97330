// Notices an indexing stage that has stopped moving. A frozen progress bar reads as "still working" forever; after
// STALL_MS without progress the Library view says which stage is stalled and since when, so the user can cancel,
// reload or look for the cause (a hung parser, a model that never loads, a storage write the browser never
// finishes) instead of waiting.

/** A stage that reports no progress for this long is shown as stalled. */
export const STALL_MS = 60_000;

export interface Stall {
  /** The stage that last reported progress and then stopped ('parse', 'embed', 'store', 'graph'). */
  stage: string;
  /** When it last reported progress (Date.now()). */
  since: number;
  /** What the stage was working on when it went quiet (a file, a document's title), if it said. */
  item?: string;
}

/**
 * Call progress() on every progress report while a run is going, and stop() when it ends. onChange(stall) is
 * called with the stall when the last reported stage has been quiet for `stallMs`, and with null when progress
 * resumes or the run stops.
 */
export class StallWatchdog {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stage: string | null = null;
  private lastDone = Number.NaN;
  private item: string | undefined;
  private stalled = false;

  constructor(
    private readonly onChange: (stall: Stall | null) => void,
    private readonly stallMs: number = STALL_MS,
  ) {}

  /** A stage reported `done` items: progress only when the stage or the count changed (a repeat is not). */
  progress(stage: string, done: number, item?: string): void {
    if (stage === this.stage && done === this.lastDone && this.timer !== null) return;
    this.stage = stage;
    this.lastDone = done;
    this.item = item;
    this.arm();
  }

  /** The run ended (idle, cancelled, stopped by an error, or waiting for another tab). */
  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.stage = null;
    this.lastDone = Number.NaN;
    this.clear();
  }

  private arm(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.clear();
    const stage = this.stage ?? '';
    const item = this.item;
    const since = Date.now();
    this.timer = setTimeout(() => {
      this.stalled = true;
      this.onChange(item ? { stage, since, item } : { stage, since });
    }, this.stallMs);
  }

  private clear(): void {
    if (!this.stalled) return;
    this.stalled = false;
    this.onChange(null);
  }
}
