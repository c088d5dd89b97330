// Runs prepareFile in a separate worker that can be stopped: a parse that overruns its time limit or is
// cancelled is ended by terminating that worker (JavaScript cannot interrupt a running synchronous parser any
// other way); the next file gets a fresh worker. The worker is kept between files, so pdf.js and mammoth load once.
import { transfer, wrap, type Remote } from 'comlink';
import type { PrepareFn } from './ingestPipeline.ts';
import type { ParseApi } from './parse.worker.ts';

export class WorkerParser {
  private worker: Worker | null = null;
  private remote: Remote<ParseApi> | null = null;

  constructor(private readonly spawn: () => Worker) {}

  readonly prepare: PrepareFn = async (name, bytes, { maxChunkTokens, signal }) => {
    signal?.throwIfAborted();
    this.worker ??= this.spawn();
    this.remote ??= wrap<ParseApi>(this.worker);
    const remote = this.remote;
    const stop = (): void => this.terminate();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      // The bytes are not needed here afterwards: hand them over instead of copying (a copy when they are a view).
      const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      const own = whole ? bytes : bytes.slice();
      return await remote.prepare(name, transfer(own, [own.buffer]), { maxChunkTokens });
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  };

  /** Stops a parse in progress (its promise never settles; the caller races it against the abort). */
  terminate(): void {
    this.worker?.terminate();
    this.worker = null;
    this.remote = null;
  }
}

/** The browser's parse worker. */
export function spawnParseWorker(): Worker {
  return new Worker(new URL('./parse.worker.ts', import.meta.url), { type: 'module', name: 'parse' });
}
