// The recogniser behind src/core/parse/ocr.ts: Tesseract (tesseract.js, Apache-2.0) in a worker of its own — a
// Web Worker inside the browser's parse worker, a worker_threads thread inside the CLI's parse thread. Its WASM
// core and language data come from where the caller says (the app's own /tesseract/ folder, or node_modules),
// never from the library's default CDN: every path is set here, and the library's cache in IndexedDB is off (the
// service worker keeps the files for offline use; the CLI reads them from disk).
import { createWorker, OEM, type Worker as TesseractWorker } from 'tesseract.js';
import type { OcrEngine, OcrLanguage, OcrLine } from '../../core/parse/index.ts';

export interface TesseractPaths {
  /** tesseract.js's worker script (browser only; Node uses the package's own). */
  workerPath?: string;
  /** Folder of tesseract.js-core's scripts (the one matching the CPU's SIMD support is picked). */
  corePath?: string;
  /** The folder (a URL in a browser, a path in Node) of a language's `<lang>.traineddata.gz`. */
  langPath(language: OcrLanguage): string;
  /** The encoded image as the library takes it on this platform (a Blob in a browser, a Buffer in Node). */
  image(bytes: Uint8Array): Blob | Buffer;
}

/**
 * One Tesseract worker per language, each started on first need and kept until close. Not one worker switched
 * between languages: with the language told from each document (the Chinese model reads a band of the first page,
 * then the English model reads an English document), a switching worker reloaded both models for every English
 * document of a folder.
 */
export function tesseractEngine(paths: TesseractPaths): OcrEngine & { close(): Promise<void> } {
  const workers = new Map<OcrLanguage, Promise<TesseractWorker>>();
  const ready = (language: OcrLanguage): Promise<TesseractWorker> => {
    let worker = workers.get(language);
    if (!worker) {
      worker = createWorker(language, OEM.LSTM_ONLY, {
        ...(paths.workerPath ? { workerPath: paths.workerPath } : {}),
        ...(paths.corePath ? { corePath: paths.corePath } : {}),
        langPath: paths.langPath(language),
        cacheMethod: 'none',
        gzip: true,
        workerBlobURL: false,
        // A picture the decoder cannot read rejects its job; without a handler the library also throws it
        // where nothing catches it, and the whole parse worker (or thread) would go down with it.
        errorHandler: () => {},
      });
      workers.set(language, worker);
    }
    return worker;
  };
  return {
    async recognize(image: Uint8Array, language: OcrLanguage): Promise<OcrLine[]> {
      const w = await ready(language);
      const { data } = await w.recognize(paths.image(image), {}, { blocks: true, text: false });
      const lines: OcrLine[] = [];
      for (const block of data.blocks ?? []) {
        for (const paragraph of block.paragraphs) {
          for (const line of paragraph.lines) {
            lines.push({
              text: line.text.replace(/\n$/, ''),
              x0: line.bbox.x0,
              y0: line.bbox.y0,
              x1: line.bbox.x1,
              y1: line.bbox.y1,
              rowHeight: line.rowAttributes?.rowHeight ?? 0,
              words: line.words.map((word) => ({
                text: word.text,
                x0: word.bbox.x0,
                y0: word.bbox.y0,
                x1: word.bbox.x1,
                y1: word.bbox.y1,
              })),
            });
          }
        }
      }
      return lines;
    },
    async close(): Promise<void> {
      const all = [...workers.values()];
      workers.clear();
      await Promise.all(all.map(async (w) => (await w.catch(() => undefined))?.terminate()));
    },
  };
}
