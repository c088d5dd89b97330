// Runs a test-support function in a worker thread under a time limit, so that a case that never ends (a walk that
// diverges, a loop over a forged count: synchronous, so no test time-out can stop it in the test's own thread) is
// reported as such and stopped rather than hanging the suite. The worker loads TypeScript through tsx.
import { Worker } from 'node:worker_threads';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export type Bounded<T> =
  | { outcome: 'value'; value: T; ms: number }
  | { outcome: 'error'; message: string; ms: number }
  | { outcome: 'timeout'; ms: number };

/** Calls `fn` exported by `module` (a path from the repository's root) with `args`, stopped after `limitMs`. */
export function runBounded<T>(
  module: string,
  fn: string,
  args: unknown[],
  limitMs: number,
): Promise<Bounded<T>> {
  const url = pathToFileURL(resolve(module)).href;
  const source = `
    import { parentPort, workerData } from 'node:worker_threads';
    import { tsImport } from 'tsx/esm/api';
    const started = performance.now();
    try {
      const mod = await tsImport(workerData.url, workerData.url);
      const value = await mod[workerData.fn](...workerData.args);
      parentPort.postMessage({ outcome: 'value', value, ms: performance.now() - started });
    } catch (e) {
      parentPort.postMessage({ outcome: 'error', message: e instanceof Error ? e.message : String(e), ms: performance.now() - started });
    }`;
  return new Promise((done) => {
    const started = performance.now();
    const worker = new Worker(source, { eval: true, workerData: { url, fn, args } });
    const timer = setTimeout(() => {
      void worker.terminate();
      done({ outcome: 'timeout', ms: performance.now() - started });
    }, limitMs);
    worker.once('message', (m: Bounded<T>) => {
      clearTimeout(timer);
      void worker.terminate();
      done(m);
    });
    worker.once('error', (e) => {
      clearTimeout(timer);
      done({ outcome: 'error', message: e.message, ms: performance.now() - started });
    });
  });
}
