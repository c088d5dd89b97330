// The requests a block store keeps out at once, shared by every load in flight (blockStore.ts). A question that
// shows the words' early evidence reads the walk's rows beside it (library.ts search): both loads' requests take
// slots of one pool, so the source never has more out than it said (RangeSource.inFlight: a browser keeps 6 a host
// over HTTP/1.1 and queues the rest in its own order, not ours). A foreground job (the early evidence's) is sent before
// any queued background one (the walk's): the early evidence's next stage does not wait behind a stage of rows. An ahead
// job (the words of a question still being typed: PagedLibrary.prepare) goes after both, and an idle job (the hash
// pages read once a link is open, before any question: BlockStore.readUpperPages) after all three.
// Hand-written rather than p-limit (in node_modules, no priorities) or p-queue (not a dependency): a queue of two
// classes (four: ahead, idle) and a drop of every queued job are a few lines here. Capping the background's slots while the early
// evidence is owed was measured and not kept (link-sim --virtual --shared, 100 MiB, 20 questions: at 1–5 slots of 6
// the settled answer came at 2,798–3,079 ms p50 for 2,755 uncapped, the first evidence at 827–893 for 945;
// docs/results/question-bytes.md, round twenty-six).

/** A job's class: foreground (false), background (true), ahead of a question ('ahead'), or idle. */
export type JobClass = boolean | 'ahead' | 'idle';
const CLASSES: readonly JobClass[] = [false, true, 'ahead', 'idle'];

interface Queued {
  job: () => Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class SlotPool {
  private running = 0;
  /** Queued jobs by class: foreground, background, ahead, idle. */
  private readonly queued: [Queued[], Queued[], Queued[], Queued[]] = [[], [], [], []];

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
  run(job: () => Promise<void>, background: JobClass = false): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queued[CLASSES.indexOf(background)].push({ job, resolve, reject });
      this.pump();
    });
  }

  /**
   * The ahead jobs still queued sent before any other queued job: a question has begun, and the blocks they carry
   * (its words, its first rows) are what it waits for first; behind its own requests it would wait on its own reads.
   */
  promoteAhead(): void {
    const [front, , ahead] = this.queued;
    front.unshift(...ahead.splice(0));
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
      const [front, back, ahead, idle] = this.queued;
      const next = front.shift() ?? back.shift() ?? ahead.shift() ?? idle.shift();
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
