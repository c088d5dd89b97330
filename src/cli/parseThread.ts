// The CLI's parse thread: prepareFile (parse → hash → chunk) in a worker_threads Worker of its own, as the
// browser's parse worker (workers/parse.worker.ts), so that a file that takes too long, or eats memory, is stopped
// by terminating this thread (threadParser.ts starts a fresh one for the next file).
import { parentPort } from 'node:worker_threads';
import type { OcrLanguageSetting, OcrProgress } from '../core/parse/index.ts';
import { prepareFile } from '../core/prepare.ts';
import { nodeOcrEngine } from './ocrEngine.ts';
import { messageOf } from '../core/errors.ts';

export interface ParseRequest {
  id: number;
  name: string;
  bytes: Uint8Array;
  maxChunkTokens: number;
  /** The language of scanned pages and pictures (default 'auto': from the document's text or first page). */
  ocrLanguage?: OcrLanguageSetting;
}

/** A page being recognised: the parent's time limit starts again for it (a limit per page, not per file). */
export type ParseReply =
  | { id: number; result: Awaited<ReturnType<typeof prepareFile>> }
  | { id: number; error: string }
  | { id: number; progress: OcrProgress };

/** Loaded on the first scanned page only; kept for the thread's next files. */
let engine: ReturnType<typeof nodeOcrEngine> | undefined;

parentPort?.on('message', (request: ParseRequest) => {
  prepareFile(request.name, request.bytes, {
    maxChunkTokens: request.maxChunkTokens,
    ocr: {
      engine: async () => (engine ??= nodeOcrEngine()),
      language: request.ocrLanguage ?? 'auto',
      onProgress: (progress) => parentPort!.postMessage({ id: request.id, progress } satisfies ParseReply),
    },
  }).then(
    (result) => parentPort!.postMessage({ id: request.id, result } satisfies ParseReply),
    (error: unknown) =>
      parentPort!.postMessage({
        id: request.id,
        error: messageOf(error),
      } satisfies ParseReply),
  );
});
