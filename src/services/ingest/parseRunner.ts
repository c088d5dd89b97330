// Runs prepareFile in a separate worker that can be stopped: a parse that overruns its time limit or is
// cancelled is ended by terminating that worker (JavaScript cannot interrupt a running synchronous parser any
// other way); the next file gets a fresh worker. The worker is kept between files, so pdf.js and mammoth load once.
// A worker that dies while parsing (out of memory in a parser) fails that file at once instead of at the time limit.
import { proxy, transfer, wrap, type Remote } from 'comlink';
import type { PrepareFn, PrepareManyFn } from './limitedParse.ts';
import type { ParseApi } from './parseService.ts';

export class WorkerParser {
  private worker: Worker | null = null;
  private remote: Remote<ParseApi> | null = null;
  /** Rejects the parse in progress when the worker reports an uncaught error. */
  private crashed: ((error: Error) => void) | null = null;

  constructor(private readonly spawn: () => Worker) {}

  readonly prepare: PrepareFn = (
    name,
    bytes,
    { maxChunkTokens, signal, onOcrProgress, ocrLanguage, onLoading, onStarted, onProgress },
  ) =>
    this.call(signal, { onLoading, onStarted }, (remote) => {
      const own = owned(bytes);
      return remote.prepare(
        name,
        transfer(own, [own.buffer]),
        { maxChunkTokens, ...(ocrLanguage ? { ocrLanguage } : {}) },
        onOcrProgress ? proxy(onOcrProgress) : undefined,
        onProgress ? proxy(onProgress) : undefined,
      );
    });

  /** Several small files in one round trip (see IngestDeps.prepareMany); the whole call stops as one. */
  readonly prepareMany: PrepareManyFn = (
    files,
    { maxChunkTokens, signal, onLoading, onStarted, onProgress },
  ) =>
    this.call(signal, { onLoading, onStarted }, (remote) => {
      const own = files.map((f) => ({ name: f.name, bytes: owned(f.bytes) }));
      return remote.prepareMany(
        transfer(
          own,
          own.map((f) => f.bytes.buffer),
        ),
        { maxChunkTokens },
        onProgress ? proxy(onProgress) : undefined,
      );
    });

  /** `onLoading`: a fresh worker loads its modules (until it answers `ready`); `onStarted`: it takes the call. */
  private async call<T>(
    signal: AbortSignal | undefined,
    { onLoading, onStarted }: { onLoading?: () => void; onStarted?: () => void },
    run: (remote: Remote<ParseApi>) => Promise<T>,
  ): Promise<T> {
    signal?.throwIfAborted();
    const fresh = !this.worker;
    if (!this.worker) {
      const worker = this.spawn();
      worker.addEventListener('error', (event: Event) => {
        const message = (event as ErrorEvent).message || 'the parser stopped unexpectedly';
        this.crashed?.(new Error(`the parser crashed (${message})`));
        if (this.worker === worker) this.terminate();
      });
      this.worker = worker;
      this.remote = wrap<ParseApi>(worker);
    }
    const remote = this.remote!;
    const stop = (): void => this.terminate();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      const crash = new Promise<never>((_resolve, reject) => (this.crashed = reject));
      // A fresh worker first loads its modules (1.4 MB of parsers): seconds on a busy machine, and after a reload
      // or a Cancel the first file pays it. The parse time limit is for the parse: it starts after that.
      if (fresh) {
        onLoading?.();
        await Promise.race([remote.ready(), crash]);
      }
      onStarted?.();
      return await Promise.race([run(remote), crash]);
    } finally {
      this.crashed = null;
      signal?.removeEventListener('abort', stop);
    }
  }

  /** Stops a parse in progress (its promise never settles; the caller races it against the abort). */
  terminate(): void {
    this.worker?.terminate();
    this.worker = null;
    this.remote = null;
  }
}

/** The bytes are not needed here afterwards: hand them over instead of copying (a copy when they are a view). */
function owned(bytes: Uint8Array): Uint8Array {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return whole ? bytes : bytes.slice();
}

/** The browser's parse worker. */
export function spawnParseWorker(): Worker {
  return new Worker(new URL('../../../workers/parse.worker.ts', import.meta.url), {
    type: 'module',
    name: 'parse',
  });
}
