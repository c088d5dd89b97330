// The browser's recogniser and its page store, for the parse worker. Every file comes from the app's own origin
// (public/tesseract, copied from node_modules by src/tools/copy-assets.mjs; the service worker keeps them for offline
// use once fetched): tesseract.js's own worker is started from there as a Web Worker inside the parse worker.
import type { OcrPage, OcrPageStore } from '../../core/parse/index.ts';
import { tesseractEngine } from './tesseract.ts';

/** A path of the app's origin, from a worker whose script sits in /assets/ (built) or /workers/ (dev). */
function appUrl(path: string): string {
  return new URL(`../${path}`, self.location.href).href;
}

export function browserOcrEngine(): ReturnType<typeof tesseractEngine> {
  return tesseractEngine({
    workerPath: appUrl('tesseract/worker.min.js'),
    corePath: appUrl('tesseract/core/'),
    langPath: () => appUrl('tesseract/lang'),
    image: (bytes) => new Blob([bytes as Uint8Array<ArrayBuffer>]),
  });
}

type Made = { canvas: OffscreenCanvas | null; context: OffscreenCanvasRenderingContext2D | null };

/**
 * pdf.js's canvases in a worker (its default makes them with `document`, which a worker has not): a page whose text
 * is drawn as outlines is drawn here to be recognised. Same methods as pdf.js's BaseCanvasFactory.
 */
export class OffscreenCanvasFactory {
  create(width: number, height: number): Made {
    if (width <= 0 || height <= 0) throw new Error('Invalid canvas size');
    const canvas = new OffscreenCanvas(width, height);
    return { canvas, context: canvas.getContext('2d', { willReadFrequently: true }) };
  }

  reset(made: Made, width: number, height: number): void {
    if (!made.canvas) throw new Error('Canvas is not specified');
    made.canvas.width = width;
    made.canvas.height = height;
  }

  destroy(made: Made): void {
    if (made.canvas) {
      made.canvas.width = 0;
      made.canvas.height = 0;
    }
    made.canvas = null;
    made.context = null;
  }
}

const DB_NAME = 'conceptrag-ocr';
const STORE = 'pages';

/**
 * Recognised pages in an IndexedDB database of their own, keyed by the file's content hash, language and page:
 * a file whose parse a reload interrupted is parsed again (the ingest queue resumes it) and takes the pages already
 * recognised from here. A file's pages are forgotten once all of them are recognised.
 */
export class IdbOcrPageStore implements OcrPageStore {
  private db: Promise<IDBDatabase> | undefined;

  private open(): Promise<IDBDatabase> {
    this.db ??= new Promise((resolve, reject) => {
      const request = indexedDB.open(DB_NAME, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('the page store could not be opened'));
    });
    return this.db;
  }

  private async run<T>(mode: IDBTransactionMode, act: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
    const db = await this.open();
    return new Promise<T>((resolve, reject) => {
      const request = act(db.transaction(STORE, mode).objectStore(STORE));
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('the page store failed'));
    });
  }

  async get(key: string): Promise<OcrPage | undefined> {
    // A store that cannot be read only costs the pages being recognised again.
    return this.run('readonly', (s) => s.get(key) as IDBRequest<OcrPage | undefined>).catch(() => undefined);
  }

  async put(key: string, page: OcrPage): Promise<void> {
    await this.run('readwrite', (s) => s.put(page, key)).catch(() => undefined);
  }

  async forget(prefix: string): Promise<void> {
    await this.run('readwrite', (s) => s.delete(IDBKeyRange.bound(prefix, `${prefix}\uffff`))).catch(
      () => undefined,
    );
  }
}
