// How long the ingest pipeline lets one parse run. A wall-time limit failed good files on a busy machine: a 24-page
// PDF passed 30 s at load ~50, MuSiQue's 3.5 MB .jsonl at load 25–30 (docs/results/trust.md), while each was still
// reading page after page, document after document. So the limit measures lack of progress: the parser reports each
// page and document it finishes (ParseProgress), and the parse is stopped only when nothing is reported for the
// limit. A parse that never reports (a decompression or XML bomb inside one document, a parser that hangs) is stopped
// after the limit as before; one that keeps reporting is stopped at a ceiling of PARSE_CEILING_FACTOR times the
// limit, so a file cannot hold the queue for ever by crawling. Recognising scanned pages has a limit per page instead.

import type { ParseProgress } from '../../core/parse/index.ts';
import { seconds } from './storageGuard.ts';

/** A parse that keeps reporting progress is still stopped after this many times the no-progress limit. */
const PARSE_CEILING_FACTOR = 10;

/** `2 of 24 pages`: what the parse had done when it stopped making progress. */
function progressText(progress: ParseProgress): string {
  return `${progress.unit} ${progress.done} of ${progress.total}`;
}

/** The timers of one parse; `abort` stops it with the error that names why. */
export class ParseWatch {
  private idle: ReturnType<typeof setTimeout> | undefined;
  private ceiling: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly abort: (reason: Error) => void,
    /** The no-progress limit of the file's own parse. */
    private readonly limitMs: number,
  ) {}

  /** A limit that starts (again) now; if it passes, the parse fails with `reason (over …)`. */
  restart(limitMs: number, reason: string): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.abort(new Error(`${reason} (over ${seconds(limitMs)})`)), limitMs);
  }

  /** A fresh parser loads first (seconds on a busy machine): its own limit, and no ceiling yet. */
  loading(limitMs: number): void {
    clearTimeout(this.ceiling);
    this.ceiling = undefined;
    this.restart(limitMs, 'the parser did not load');
  }

  /** The parser begins the file: the no-progress limit starts, and the ceiling on the whole parse. */
  started(): void {
    this.restart(this.limitMs, 'took too long to parse');
    clearTimeout(this.ceiling);
    const ceilingMs = PARSE_CEILING_FACTOR * this.limitMs;
    this.ceiling = setTimeout(
      () => this.abort(new Error(`took too long to parse (over ${seconds(ceilingMs)} in all, still going)`)),
      ceilingMs,
    );
  }

  /** The parser finished a page or a document: the no-progress limit starts again. */
  progressed(progress: ParseProgress): void {
    this.restart(this.limitMs, `took too long to parse: no progress after ${progressText(progress)}`);
  }

  /** Scanned pages are being recognised: each has `pageLimitMs`, and the ceiling no longer applies. */
  recognising(pageLimitMs: number, reason: string): void {
    clearTimeout(this.ceiling);
    this.ceiling = undefined;
    this.restart(pageLimitMs, reason);
  }

  stop(): void {
    clearTimeout(this.idle);
    clearTimeout(this.ceiling);
  }
}
