// The CLI's parse thread: prepareFile (parse → hash → chunk) in a worker_threads Worker of its own, as the
// browser's parse worker (workers/parse.worker.ts), so that a file that takes too long, or eats memory, is stopped
// by terminating this thread (threadParser.ts starts a fresh one for the next file).
import { parentPort } from 'node:worker_threads';
import { prepareFile } from '../core/prepare.ts';

export interface ParseRequest {
  id: number;
  name: string;
  bytes: Uint8Array;
  maxChunkTokens: number;
}

export type ParseReply =
  { id: number; result: Awaited<ReturnType<typeof prepareFile>> } | { id: number; error: string };

parentPort?.on('message', (request: ParseRequest) => {
  prepareFile(request.name, request.bytes, { maxChunkTokens: request.maxChunkTokens }).then(
    (result) => parentPort!.postMessage({ id: request.id, result } satisfies ParseReply),
    (error: unknown) =>
      parentPort!.postMessage({
        id: request.id,
        error: error instanceof Error ? error.message : String(error),
      } satisfies ParseReply),
  );
});
