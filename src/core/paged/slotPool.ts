// The requests a block store keeps out at once, shared by every load in flight (blockStore.ts). A question that
// shows the words' early evidence reads the walk's rows beside it (library.ts search): both loads' requests take
// slots of one pool, so the source never has more out than it said (RangeSource.inFlight: a browser keeps 6 a host
// over HTTP/1.1 and queues the rest in its own order, not ours). A foreground job (the early evidence's) is sent before
// any queued background one (the walk's): the early evidence's next stage does not wait behind a stage of rows. An idle
// job (the hash pages read once a link is open, before any question: BlockStore.readUpperPages) goes after both.
// Hand-written rather than p-limit (in node_modules, no priorities) or p-queue (not a dependency): a queue of two
// classes (three: idle) and a drop of every queued job are a few lines here. Capping the background's slots while the early
// evidence is owed was measured and not kept (link-sim --virtual --shared, 100 MiB, 20 questions: at 1–5 slots of 6
// the settled answer came at 2,798–3,079 ms p50 for 2,755 uncapped, the first evidence at 827–893 for 945;
// docs/results/question-bytes.md, round twenty-six).

interface Queued {
  job: () => Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class SlotPool {
  private running = 0;
  /** Queued jobs by class: foreground, background, idle. */
  private readonly queued: [Queued[], Queued[], Queued[]] = [[], [], []];

  constructor(
    /**
     * Requests out at once, asked each time a slot may be taken: a source says more once it knows its host (an
     * HTTP/2 host answering one range a request keeps 100 out, known after its first responses: rangeSources.ts).
     */
    private readonly slotsOf: () => number,
  ) {}

  /** Requests out at once now. */
  get slots(): number {
    return this.slotsOf();
  }

  /**
   * Runs `job` in a slot once one is free to its class (every queued job of a class before it goes first); first
   * come, first served within a class.
   */
  run(job: () => Promise<void>, background: boolean | 'idle' = false): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queued[background === 'idle' ? 2 : background ? 1 : 0].push({ job, resolve, reject });
      this.pump();
    });
  }

  /**
   * Refuses every job still queued, of any class, with `error`: a refused block stops every load's next sends
   * (a stranger's bundle is not read further once one of its blocks fails its hash).
   */
  drop(error: unknown): void {
    for (const queue of this.queued) for (const q of queue.splice(0)) q.reject(error);
  }

  private pump(): void {
    while (this.running < this.slots) {
      const [front, back, idle] = this.queued;
      const next = front.shift() ?? back.shift() ?? idle.shift();
      if (!next) return;
      this.running++;
      void next
        .job()
        .then(next.resolve, next.reject)
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }
}
