// Runs prepareFile in the CLI's parse thread (parseThread.ts) under the browser's per-file time limit
// (PARSE_TIMEOUT_MS): a parser that runs past it, or past the thread's memory limit, is stopped by terminating the
// thread, the file gets a verdict in words, and the next file goes to a fresh thread. One thread serves every file
// until then, so a folder of small files pays its start-up once.
import { Worker } from 'node:worker_threads';
import {
  isOcrLanguageSetting,
  OCR_LANGUAGE_NAMES,
  OCR_PAGE_TIMEOUT_MS,
  PARSE_TIMEOUT_MS,
  type OcrLanguageSetting,
  type OcrProgress,
} from '../core/parse/index.ts';
import type { PrepareResult } from '../core/prepare.ts';
import type { ParseReply, ParseRequest } from './parseThread.ts';

/**
 * Old-generation heap of the parse thread. Far above what mammoth or pdf.js need for a file under the 20 MB cap,
 * far below what the 40 MB-of-XML .docx of issue 23 reached (4.3 GB in 300 s on the main thread).
 */
const PARSE_THREAD_HEAP_MB = 1536;

export interface ThreadParserOptions {
  timeoutMs?: number;
  /** Time limit of one recognised page (default OCR_PAGE_TIMEOUT_MS): it replaces the file's once OCR starts. */
  pageTimeoutMs?: number;
  ocrLanguage?: OcrLanguageSetting;
  /** Each page as its recognition starts ("recognising page 12 of 40"). */
  onOcrProgress?: (file: string, progress: OcrProgress) => void;
}

/**
 * pdf.js's two modules, loaded by Node itself in the thread before tsx's loader is registered, so that pdf.ts's
 * lazy imports of them find them loaded. Through tsx's loader (which transforms every module it loads, these 2 MB of
 * JavaScript included) they cost the thread 15 s and 480 MB at a load of 15, against 2.5 s and 50 MB.
 */
const PDFJS_MODULES = ['pdfjs-dist/legacy/build/pdf.worker.mjs', 'pdfjs-dist/legacy/build/pdf.mjs'];

/**
 * The thread runs TypeScript sources: it loads pdf.js, registers tsx's loader (the CLI runs under tsx; a worker does
 * not inherit the loader in Node 20), then imports the thread's module.
 */
function startThread(heapMb: number): Worker {
  const body = new URL('./parseThread.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const [pdfWorker, pdf] = PDFJS_MODULES.map((m) => JSON.stringify(import.meta.resolve(m)));
  const code =
    `import(${pdfWorker}).then(() => import(${pdf})).then(() => import(${JSON.stringify(tsx)}))` +
    `.then((m) => { m.register(); return import(${JSON.stringify(body)}); })`;
  return new Worker(code, { eval: true, resourceLimits: { maxOldGenerationSizeMb: heapMb } });
}

/** A recognised page's progress line on stderr: "cli: scan.pdf: recognising page 12 of 40 (English)". */
export function logOcrProgress(command: string): (file: string, progress: OcrProgress) => void {
  return (file, { page, pages, language }) =>
    process.stderr.write(
      `${command}: ${file}: recognising page ${page} of ${pages}` +
        `${language ? ` (${OCR_LANGUAGE_NAMES[language]})` : ' (telling the language)'}\n`,
    );
}

/** `--ocr-language` of `cli index` and `cli bench`: the setting, or undefined once stderr says why it is refused. */
export function ocrLanguageFlag(command: string, value: string | undefined): OcrLanguageSetting | undefined {
  if (isOcrLanguageSetting(value)) return value;
  process.stderr.write(`${command}: --ocr-language must be auto, eng or chi_sim, got ${value}\n`);
  return undefined;
}

/** The longest time-out Node's timers keep (a larger one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `--parse-timeout <seconds>` of `cli index` and `cli bench`: the per-file parse limit in ms, undefined when the flag
 * is not given (the browser's PARSE_TIMEOUT_MS), or null once stderr says why it is refused.
 */
export function parseTimeoutFlag(command: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  const ms = Number(value) * 1000;
  if (ms > 0 && ms <= MAX_TIMER_MS) return ms;
  process.stderr.write(
    `${command}: --parse-timeout wants seconds above 0 (at most ${Math.floor(MAX_TIMER_MS / 1000)}), got "${value}"\n`,
  );
  return null;
}

export class ThreadParser {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly timeoutMs: number;
  private readonly pageTimeoutMs: number;

  constructor(private readonly options: ThreadParserOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? PARSE_TIMEOUT_MS;
    this.pageTimeoutMs = options.pageTimeoutMs ?? OCR_PAGE_TIMEOUT_MS;
  }

  /**
   * prepareFile's result for one file; a time-out, a thread out of memory or a crash come back as the file's
   * error (never thrown), so the caller's run goes on.
   */
  async prepare(name: string, bytes: Uint8Array, maxChunkTokens: number): Promise<PrepareResult> {
    try {
      return await this.request({
        id: this.nextId++,
        name,
        bytes,
        maxChunkTokens,
        ocrLanguage: this.options.ocrLanguage,
      });
    } catch (error) {
      return { documents: [], errors: [{ file: name, reason: (error as Error).message }] };
    }
  }

  private request(request: ParseRequest): Promise<PrepareResult> {
    const worker = (this.worker ??= this.freshThread());
    const words = (ms: number): string => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);
    return new Promise<PrepareResult>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      // Stopped the way the browser stops its parse worker: the thread goes, a fresh one takes the next file.
      const stop = (reason: string): void => {
        done();
        if (this.worker === worker) this.worker = null;
        void worker.terminate();
        reject(new Error(reason));
      };
      let timer = setTimeout(
        () => stop(`took too long to parse (over ${words(this.timeoutMs)})`),
        this.timeoutMs,
      );
      const onMessage = (reply: ParseReply): void => {
        if (reply.id !== request.id) return;
        if ('progress' in reply) {
          // A scanned page starts: it gets the page's time, however long the pages before it took.
          clearTimeout(timer);
          const { page, pages } = reply.progress;
          timer = setTimeout(
            () =>
              stop(`took too long to recognise page ${page} of ${pages} (over ${words(this.pageTimeoutMs)})`),
            this.pageTimeoutMs,
          );
          this.options.onOcrProgress?.(request.name, reply.progress);
          return;
        }
        done();
        if ('error' in reply) reject(new Error(`could not read the file (${reply.error})`));
        else resolve(reply.result);
      };
      const onError = (error: Error & { code?: string }): void =>
        stop(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `needed more than ${PARSE_THREAD_HEAP_MB} MB of memory to parse; not read`
            : `the parser failed (${error.message})`,
        );
      const onExit = (code: number): void => stop(`the parser stopped (exit code ${code})`);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage(request);
    });
  }

  /** Ends the thread (the CLI would otherwise stay alive for it). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  /**
   * A fresh thread, with listeners for its whole life beside each file's. A thread can fail when no file is
   * listening: stopped at its time limit while running out of memory, it still reports ERR_WORKER_OUT_OF_MEMORY
   * after its file has its verdict, and an 'error' event without a listener throws in the process (a clean-clone
   * CI run failed on it once, on a quiet machine where the two limits came close together). Such a late error is
   * dropped, and a thread that ended between two files is replaced for the next one.
   */
  private freshThread(): Worker {
    const worker = startThread(PARSE_THREAD_HEAP_MB);
    worker.on('error', () => {});
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
    });
    return worker;
  }
}
