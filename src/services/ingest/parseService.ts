// What the parse worker serves (workers/parse.worker.ts only exposes it): prepareFile (parse → hash → chunk) in a
// thread of its own, so that parseRunner.ts can stop a file that takes too long, or a Cancel, by terminating it.
import type {
  OcrEngine,
  OcrLanguageSetting,
  OcrPageStore,
  OcrProgress,
  ParseProgress,
} from '../../core/parse/index.ts';
import { prepareFile } from '../../core/prepare.ts';
import { messageOf } from '../../core/errors.ts';

/** What recognises scanned pages in this worker: loaded on the first file that needs it. */
export interface ParseOcr {
  engine: () => Promise<OcrEngine>;
  store?: OcrPageStore;
  /** pdf.js's canvas factory for pages drawn to be recognised (see OcrOptions.CanvasFactory). */
  CanvasFactory?: unknown;
}

export function createParseService(ocr?: ParseOcr) {
  return {
    /** Answers once the worker has loaded (parseRunner.ts starts a file's time limit from here). */
    ready: () => true,
    /**
     * `onOcrProgress` (a Comlink proxy) hears each scanned page as its recognition starts, `onProgress` (one too)
     * each page read and the documents chunked: the pipeline's time limit is on a parse that stops progressing.
     */
    prepare(
      name: string,
      bytes: Uint8Array,
      options: { maxChunkTokens: number; ocrLanguage?: OcrLanguageSetting },
      onOcrProgress?: (progress: OcrProgress) => void,
      onProgress?: (progress: ParseProgress) => void,
    ) {
      const language = options.ocrLanguage ?? 'auto';
      return prepareFile(name, bytes, {
        maxChunkTokens: options.maxChunkTokens,
        ...(ocr ? { ocr: { ...ocr, language, onProgress: onOcrProgress } } : {}),
        ...(onProgress ? { onProgress } : {}),
      });
    },
    /**
     * Several small files in one call (one round trip instead of one per file); a file that cannot be read gets
     * its own error and the others their documents.
     */
    async prepareMany(
      files: Array<{ name: string; bytes: Uint8Array }>,
      options: { maxChunkTokens: number },
      /** Hears each file of the batch as it is done (as documents of the batch), and each file's own progress. */
      onProgress?: (progress: ParseProgress) => void,
    ) {
      const out: Array<Awaited<ReturnType<typeof prepareFile>> | { error: string }> = [];
      for (const [k, { name, bytes }] of files.entries()) {
        try {
          out.push(
            await prepareFile(name, bytes, {
              ...options,
              ...(ocr ? { ocr } : {}),
              ...(onProgress ? { onProgress } : {}),
            }),
          );
        } catch (error) {
          out.push({ error: messageOf(error) });
        }
        onProgress?.({ unit: 'document', done: k + 1, total: files.length });
      }
      return out;
    },
  };
}

/** The parse worker's API as parseRunner.ts calls it. */
export type ParseApi = ReturnType<typeof createParseService>;
