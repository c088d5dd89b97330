// Where a pages write spends its time (test/bench/pages-write.ts): the write interleaves reading the store, choosing
// keyphrases, gzip and hashing document by document, so one timer per phase would not add up. Each mark charges the
// time since the previous mark to the phase named, so the phases always sum to the write's time. The time is wall
// time by default; a bench on a loaded machine gives the process's CPU time instead (`now`), which the load
// stretches far less.

export class PhaseClock {
  /** Milliseconds charged to each phase, in the order the phases were first met. */
  readonly ms: Record<string, number> = {};
  private at: number;

  /** `now`: the clock in ms (default performance.now). */
  constructor(private readonly now: () => number = () => performance.now()) {
    this.at = now();
  }

  /** Charges the time since the last mark (or since the clock was made) to `phase`. */
  mark(phase: string): void {
    const now = this.now();
    this.ms[phase] = (this.ms[phase] ?? 0) + (now - this.at);
    this.at = now;
  }
}
