// The store of recognised pages (IndexedDB `conceptrag-ocr`), apart from the recogniser so that the ingest worker
// can forget a removed document's pages without loading tesseract.js.
import type { OcrPage, OcrPageStore } from '../../core/parse/index.ts';

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
