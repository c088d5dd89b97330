// Parsing a queued file, or a batch of small ones, for the ingest pipeline under the parse time limits
// (parseWatch.ts): a parser's load has a limit of its own, the parse limit restarts at every page or document the
// parser reports, a scanned page has a limit per page, and Cancel stops it all. The result is awaited beside the
// abort, so a parser that never returns cannot hold the queue (the browser's parse worker is terminated on it).
import type { FileError, PreparedDocument, Recognised } from '../../core/types.ts';
import { DEFAULT_INDEX_PARAMS } from '../../core/types.ts';
import {
  formatOf,
  isOcrLanguageSetting,
  OCR_LANGUAGE_NAMES,
  OCR_PAGE_TIMEOUT_MS,
  PARSE_TIMEOUT_MS,
  type OcrLanguageSetting,
  type OcrProgress,
  type ParseProgress,
} from '../../core/parse/index.ts';
import type { Repo } from '../../store/repo.ts';
import { OCR_LANGUAGE_SETTING, type IngestEvent } from './ingestProtocol.ts';
import { ParseWatch } from './parseWatch.ts';
import { describeError } from './storageGuard.ts';

/** How the parser begins a file and reports its progress: what the parse time limits listen to. */
interface ParserStart {
  /**
   * The parser is loading first (a fresh parse worker): its start is not counted as parsing. `onStarted`: it
   * begins this file, and the parse time limit starts from here.
   */
  onLoading?: () => void;
  onStarted?: () => void;
  /** The parser finished a page or a document (of a batch: a file too): the parse time limit starts again. */
  onProgress?: (progress: ParseProgress) => void;
}

/**
 * `signal` aborts on Cancel and on the parse time limit; an implementation that can stop should. `onOcrProgress`
 * hears each scanned page as its recognition starts (the time limit then starts again, for that page).
 */
export type PrepareFn = (
  name: string,
  bytes: Uint8Array,
  options: ParserStart & {
    maxChunkTokens: number;
    signal?: AbortSignal;
    onOcrProgress?: (progress: OcrProgress) => void;
    /** The language scanned pages are read in (the user's setting; absent: 'auto'). */
    ocrLanguage?: OcrLanguageSetting;
  },
) => Promise<{
  documents: PreparedDocument[];
  errors: FileError[];
  recognised?: Recognised;
}>;

/** What parsing one file gives. */
export type PreparedFile = Awaited<ReturnType<PrepareFn>>;

/**
 * Parses several files in one call: per file its documents, or the reason it could not be read. `signal` aborts
 * the whole call (the time limit of the batch, or Cancel).
 */
export type PrepareManyFn = (
  files: Array<{ name: string; bytes: Uint8Array }>,
  options: ParserStart & { maxChunkTokens: number; signal?: AbortSignal },
) => Promise<Array<PreparedFile | { error: string }>>;

/** What parsing under the limits takes of the pipeline's dependencies (IngestDeps). */
export interface ParseDeps {
  repo: Pick<Repo, 'getSetting'>;
  prepare: PrepareFn;
  /** Parses a batch of small files in one call; without it they are parsed one by one with `prepare`. */
  prepareMany?: PrepareManyFn;
  /** A parse is stopped after this long without progress (default PARSE_TIMEOUT_MS; see parseWatch.ts). */
  parseTimeoutMs?: number;
}

/**
 * How long a fresh parser may take to load (the browser's parse worker: 1.4 MB of parsers to compile, seconds on a
 * busy machine, after every reload and Cancel). Not the parse time limit, which is for the file's own parse: a slow
 * start is not hostile input. Bounded still, so a worker that never loads cannot hold the queue.
 */
const PARSER_LOAD_TIMEOUT_MS = 300_000;

/**
 * PDFs and pictures may need their text recognised, page by page under a limit per page and with progress: they are
 * parsed alone, never in a batch (whose one limit covers all its files).
 */
export function mayNeedOcr(name: string): boolean {
  const mime = formatOf(name)?.mime ?? '';
  return mime === 'application/pdf' || mime.startsWith('image/');
}

export class LimitedParse {
  constructor(
    private readonly deps: ParseDeps,
    private readonly emit: (event: IngestEvent) => void,
  ) {}

  /** Parses one file within the time limit; a scan's pages are reported as they are recognised. */
  async file(name: string, bytes: Uint8Array, signal: AbortSignal): Promise<PreparedFile> {
    const ocrLanguage = mayNeedOcr(name) ? await this.ocrLanguage() : undefined;
    return this.within(signal, (limited, watch) =>
      this.deps.prepare(name, bytes, {
        maxChunkTokens: DEFAULT_INDEX_PARAMS.maxChunkTokens,
        signal: limited,
        ...parserStart(watch),
        ...(ocrLanguage ? { ocrLanguage } : {}),
        onOcrProgress: ({ page, pages, language }) => {
          watch.recognising(OCR_PAGE_TIMEOUT_MS, `took too long to recognise page ${page} of ${pages}`);
          const what = language ? OCR_LANGUAGE_NAMES[language] : 'telling the language';
          this.emit({
            type: 'progress',
            progress: {
              stage: 'parse',
              done: page - 1,
              total: pages,
              rate: 0,
              item: `${name}: recognising page ${page} of ${pages} (${what})`,
            },
          });
        },
      }),
    );
  }

  /** Parses a batch within the parse time limit (one limit for the batch; Cancel stops it too). */
  async batch(
    files: ReadonlyArray<{ name: string; bytes: ArrayBuffer }>,
    signal: AbortSignal,
  ): Promise<Array<PreparedFile | { error: string }>> {
    const { prepareMany } = this.deps;
    if (!prepareMany) {
      // No batch parser (tests, the CLI): one call per file, each with its own limit; a file's error stays its own.
      const out: Array<PreparedFile | { error: string }> = [];
      for (const f of files) {
        try {
          out.push(await this.file(f.name, new Uint8Array(f.bytes), signal));
        } catch (error) {
          if (signal.aborted) throw error;
          out.push({ error: describeError(error) });
        }
      }
      return out;
    }
    return this.within(signal, (limited, watch) =>
      prepareMany(
        files.map((f) => ({ name: f.name, bytes: new Uint8Array(f.bytes) })),
        { maxChunkTokens: DEFAULT_INDEX_PARAMS.maxChunkTokens, signal: limited, ...parserStart(watch) },
      ),
    );
  }

  /** The recognition language set in Settings; a stored value this version does not know reads as 'auto'. */
  private async ocrLanguage(): Promise<OcrLanguageSetting> {
    const value = await this.deps.repo.getSetting<unknown>(OCR_LANGUAGE_SETTING);
    return isOcrLanguageSetting(value) ? value : 'auto';
  }

  /**
   * Runs a parse that must keep making progress (ParseWatch: no page or document finished within the parse time
   * limit stops it); Cancel stops it too.
   */
  private async within<T>(
    signal: AbortSignal,
    parse: (limited: AbortSignal, watch: ParseWatch) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    const watch = new ParseWatch(
      (reason) => controller.abort(reason),
      this.deps.parseTimeoutMs ?? PARSE_TIMEOUT_MS,
    );
    watch.started();
    const onCancel = (): void => controller.abort(signal.reason);
    signal.addEventListener('abort', onCancel, { once: true });
    try {
      controller.signal.throwIfAborted();
      return await new Promise<T>((resolve, reject) => {
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
        parse(controller.signal, watch).then(resolve, reject);
      });
    } finally {
      watch.stop();
      signal.removeEventListener('abort', onCancel);
    }
  }
}

/** A parser's load has a limit of its own; the parse limit starts once the parser begins the file. */
function parserStart(watch: ParseWatch): Required<ParserStart> {
  return {
    onLoading: () => watch.loading(PARSER_LOAD_TIMEOUT_MS),
    onStarted: () => watch.started(),
    onProgress: (progress) => watch.progressed(progress),
  };
}
