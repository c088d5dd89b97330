// The progress of a drop as a whole, as the Library view shows it: files read, sentences stored, documents
// searchable by their words, documents with sentence vectors — each with its rate and the time left for
// everything queued. The ingest pipeline reports per-stage meters that restart with every batch of files and
// every embedding phase; a user who dropped a folder wants one answer to "how far along is all of it?", so this
// keeps its own tally from the pipeline's file verdicts and coverage counts (src/services/ingest/ingestProtocol.ts).
import type { LibraryCoverage } from '../../services/ingest/ingestProtocol.ts';

/** Rates are measured over this much recent time, so a pause (a graph rebuild) soon shows in the time left. */
const RATE_WINDOW_MS = 30_000;
/** A rate over less time than this is noise (one batch landing): none is shown yet. */
const MIN_RATE_SPAN_MS = 2_000;

/** Items per second over the last RATE_WINDOW_MS of samples. */
export class RateMeter {
  private samples: { t: number; v: number }[] = [];

  add(t: number, v: number): void {
    const n = this.samples.length;
    // A run of unchanged counts keeps its first and its latest sample: the window then spans a pause honestly
    // without holding a sample per report.
    if (n >= 2 && this.samples[n - 1].v === v && this.samples[n - 2].v === v) this.samples[n - 1] = { t, v };
    else this.samples.push({ t, v });
    while (this.samples.length > 2 && t - this.samples[1].t >= RATE_WINDOW_MS) this.samples.shift();
  }

  /** Items per second, or NaN while fewer than MIN_RATE_SPAN_MS of samples are known. */
  rate(now: number): number {
    const first = this.samples[0];
    const last = this.samples.at(-1);
    if (!first || !last) return Number.NaN;
    const span = Math.max(now, last.t) - first.t;
    if (span < MIN_RATE_SPAN_MS) return Number.NaN;
    return ((last.v - first.v) * 1000) / span;
  }
}

/** The time left follows its estimates with this time constant (an exponentially weighted moving average). */
const ETA_SMOOTHING_MS = 10_000;
/** It is shown only once estimates have come for this long… */
const ETA_SETTLE_MS = 10_000;
/** …and none has jumped for this long: a jump is an estimate that differs from the one before (counted down
 * by the time between them) by more than ETA_JUMP of it. */
const ETA_STEADY_MS = 3_000;
const ETA_JUMP = 0.25;

/**
 * A time left that settles: each estimate (items left / recent rate) moves the shown value only part of the way
 * (EWMA over ETA_SMOOTHING_MS, the shown value counting down meanwhile), and nothing is shown until estimates have
 * come for a while without jumping. A graph rebuild or the switch from reading to embedding changes the rate for
 * seconds; the raw estimate then swung from an hour to minutes and back.
 */
export class SettledEta {
  private smoothed = Number.NaN;
  private last = Number.NaN;
  private at = 0;
  private first = Number.NaN;
  private lastJump = Number.NEGATIVE_INFINITY;
  private settled = false;

  /** Feeds an estimate (seconds, NaN when unknown); returns the time left to show, NaN while unsettled. */
  update(estimate: number, now: number): number {
    if (Number.isFinite(estimate)) {
      if (Number.isNaN(this.smoothed)) {
        this.smoothed = estimate;
        this.first = now;
      } else {
        const dt = Math.max(0, now - this.at);
        const expected = Math.max(0, this.last - dt / 1000);
        if (Math.abs(estimate - expected) > ETA_JUMP * Math.max(expected, 10)) this.lastJump = now;
        const predicted = Math.max(0, this.smoothed - dt / 1000);
        const weight = 1 - Math.exp(-dt / ETA_SMOOTHING_MS);
        this.smoothed = predicted + weight * (estimate - predicted);
      }
      this.last = estimate;
      this.at = now;
    }
    if (Number.isNaN(this.smoothed)) return Number.NaN;
    // Once shown it stays (a later jump moves it only part of the way): a time left that comes and goes with
    // every batch reads worse than one that is a little late to follow.
    this.settled ||= now - this.first >= ETA_SETTLE_MS && now - this.lastJump >= ETA_STEADY_MS;
    return this.settled ? Math.max(0, this.smoothed - Math.max(0, now - this.at) / 1000) : Number.NaN;
  }
}

export type DropRowKey = 'files' | 'sentences' | 'searchable' | 'embedded';

export interface DropRow {
  key: DropRowKey;
  label: string;
  done: number;
  /** NaN while unknown (no file of the drop has been read yet, so nothing to project from). */
  total: number;
  /** The total is projected from the files read so far (sizes of the others). */
  approximate: boolean;
  rate: number;
  rateUnit: string;
  /** Seconds left for everything queued at the recent rate, NaN when unknown. */
  eta: number;
  /** The time left to show: `eta` smoothed, NaN until it has settled (SettledEta). */
  settledEta: number;
}

const EMPTY: LibraryCoverage = {
  documents: 0,
  sentences: 0,
  searchableDocuments: 0,
  searchableSentences: 0,
  embeddedDocuments: 0,
  embeddedSentences: 0,
};

const etaOf = (left: number, rate: number): number =>
  left <= 0 ? 0 : rate > 0 && Number.isFinite(rate) ? left / rate : Number.NaN;

/**
 * One drop (or several drops made while the first was indexing: the queue is one piece of work). Feed it the
 * files queued, their verdicts and the coverage reports; rows(now) gives what to show.
 */
export class DropTally {
  files = 0;
  filesDone = 0;
  /** Bytes of the files queued whose size is known (a queue resumed after a reload has none). */
  private bytes = 0;
  private bytesDone = 0;
  private sizes = new Map<string, number>();
  private latest: LibraryCoverage;
  private readonly meters = {
    files: new RateMeter(),
    sentences: new RateMeter(),
    documents: new RateMeter(),
    embedded: new RateMeter(),
  };
  private readonly etas: Record<DropRowKey, SettledEta> = {
    files: new SettledEta(),
    sentences: new SettledEta(),
    searchable: new SettledEta(),
    embedded: new SettledEta(),
  };

  constructor(
    /** The library when the drop started: the drop's own counts are measured from it. */
    private readonly base: LibraryCoverage = EMPTY,
    now = 0,
  ) {
    this.latest = base;
    this.sample(now);
  }

  /** A file of the drop reached the queue (size unknown for a queue resumed after a reload). */
  queued(name: string, size: number | null): void {
    this.files += 1;
    if (size !== null) {
      this.bytes += size;
      this.sizes.set(name, (this.sizes.get(name) ?? 0) + size);
    }
  }

  /** The worker gave its verdict on a file (indexed, duplicate or failed): it is read. */
  fileDone(name: string, now: number): void {
    this.filesDone = Math.min(this.files, this.filesDone + 1);
    const size = this.sizes.get(name);
    if (size !== undefined) {
      this.bytesDone += size;
      this.sizes.delete(name);
    }
    this.sample(now);
  }

  coverage(c: LibraryCoverage, now: number): void {
    this.latest = c;
    this.sample(now);
  }

  get current(): LibraryCoverage {
    return this.latest;
  }

  /** Documents and sentences this drop has stored so far. */
  private stored(): { documents: number; sentences: number } {
    return {
      documents: Math.max(0, this.latest.documents - this.base.documents),
      sentences: Math.max(0, this.latest.sentences - this.base.sentences),
    };
  }

  private sample(now: number): void {
    const c = this.latest;
    this.meters.files.add(now, this.filesDone);
    this.meters.sentences.add(now, c.sentences);
    this.meters.documents.add(now, c.documents);
    this.meters.embedded.add(now, c.embeddedSentences);
  }

  /**
   * What the drop will have stored when every file is read: its counts so far scaled by the bytes read, when the
   * sizes are known; exact once every file is read; NaN before any file was read.
   */
  private projected(): { documents: number; sentences: number; exact: boolean } {
    const stored = this.stored();
    if (this.filesDone >= this.files) return { ...stored, exact: true };
    if (this.bytesDone <= 0 || this.bytes <= 0) return { documents: NaN, sentences: NaN, exact: false };
    const scale = this.bytes / this.bytesDone;
    return {
      documents: Math.max(stored.documents, Math.round(stored.documents * scale)),
      sentences: Math.max(stored.sentences, Math.round(stored.sentences * scale)),
      exact: false,
    };
  }

  rows(now: number): DropRow[] {
    const c = this.latest;
    const stored = this.stored();
    const p = this.projected();
    const approximate = !p.exact;
    const fileRate = this.meters.files.rate(now);
    const sentenceRate = this.meters.sentences.rate(now);
    const documentRate = this.meters.documents.rate(now);
    const embedRate = this.meters.embedded.rate(now);
    // Everything queued: the drop's documents, and any stored earlier that still wait for their vectors.
    const awaitingBefore = Math.max(0, this.base.documents - this.base.embeddedDocuments);
    const embeddedDone = Math.max(0, c.embeddedDocuments - this.base.embeddedDocuments);
    const sentencesAll = c.sentences + (p.sentences - stored.sentences);
    const searchableDone = Math.max(0, c.searchableDocuments - this.base.searchableDocuments);
    const rows: Omit<DropRow, 'settledEta'>[] = [
      {
        key: 'files',
        label: 'Files read',
        done: this.filesDone,
        total: this.files,
        approximate: false,
        rate: fileRate,
        rateUnit: 'files/s',
        eta: etaOf(this.files - this.filesDone, fileRate),
      },
      {
        key: 'sentences',
        label: 'Sentences stored',
        done: stored.sentences,
        total: p.sentences,
        approximate,
        rate: sentenceRate,
        rateUnit: 'sentences/s',
        eta: etaOf(p.sentences - stored.sentences, sentenceRate),
      },
      {
        key: 'searchable',
        // A large library is searched through its pages, written during the drop in place of the graph: the
        // documents its latest pages hold are the searchable ones.
        label:
          c.searchableFrom === 'pages'
            ? 'Documents searchable (from the paged index)'
            : 'Documents searchable',
        done: searchableDone,
        total: p.documents,
        approximate,
        // Searchable counts jump at each graph refresh; the storing rate is what moves them forward.
        rate: documentRate,
        rateUnit: 'docs/s',
        eta: etaOf(p.documents - stored.documents, documentRate),
      },
      {
        key: 'embedded',
        label: 'Documents with vectors',
        done: embeddedDone,
        total: awaitingBefore + p.documents,
        approximate,
        rate: embedRate,
        rateUnit: 'sentences/s',
        eta: etaOf(sentencesAll - c.embeddedSentences, embedRate),
      },
    ];
    return rows.map((r) => ({ ...r, settledEta: this.etas[r.key].update(r.eta, now) }));
  }
}
