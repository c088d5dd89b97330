// What each stored document has, read straight from IndexedDB for the storage specs: documents, sentences and the
// vector records, with rows read from each record's bytes and encoding (schema v2 stores int8 rows with a float32
// scale each; v1 float32 rows), per-document problems, and the queue by file name.
import type { Page } from '@playwright/test';

export interface LayerCounts {
  /** A fingerprint of each vector record's bytes by document id: a rewritten record shows up as a change. */
  records: Record<string, string>;
  documents: number;
  sentences: number;
  vectorRecords: number;
  vectorRows: number;
  queued: string[];
  failed: string[];
  /** A document without chunks, whose sentences do not match its chunks, or whose vector rows do not match. */
  problems: string[];
}

/** Documents, sentences and vector rows in IndexedDB; vector rows read from each record's bytes and encoding. */
export async function layerCounts(page: Page): Promise<LayerCounts> {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open('conceptrag');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const all = <T>(store: string) =>
      new Promise<T[]>((resolve, reject) => {
        const r = db.transaction(store).objectStore(store).getAll();
        r.onsuccess = () => resolve(r.result as T[]);
        r.onerror = () => reject(r.error);
      });
    const docs = await all<{ id: string }>('documents');
    const chunks = await all<{ docId: string; sentenceCount: number }>('chunks');
    const sentences = await all<{ docId: string }>('sentences');
    const vectors = await all<{
      docId: string;
      dimension: number;
      encoding?: string;
      data: ArrayBuffer;
    }>('vectors');
    /** A short fingerprint of each vector record's bytes: a rewritten record would show up as a change. */
    const fingerprint = (data: ArrayBuffer) => {
      const bytes = new Uint8Array(data);
      let h = 2166136261;
      for (const b of bytes) h = Math.imul(h ^ b, 16777619);
      return `${bytes.length}:${(h >>> 0).toString(16)}`;
    };
    const pending = await all<{ name: string; status: string }>('pending');
    db.close();
    const perDoc = new Map<string, number>();
    for (const s of sentences) perDoc.set(s.docId, (perDoc.get(s.docId) ?? 0) + 1);
    const listed = new Map<string, number>();
    for (const c of chunks) listed.set(c.docId, (listed.get(c.docId) ?? 0) + c.sentenceCount);
    const problems: string[] = [];
    let vectorRows = 0;
    for (const d of docs) {
      if (!listed.has(d.id)) problems.push(`${d.id}: no chunks`);
      if ((perDoc.get(d.id) ?? 0) !== (listed.get(d.id) ?? 0))
        problems.push(`${d.id}: ${perDoc.get(d.id) ?? 0} sentences, chunks list ${listed.get(d.id)}`);
    }
    for (const v of vectors) {
      // int8 rows carry a float32 scale each; float32 rows are dimension × 4 bytes.
      const rows =
        v.encoding === 'i8' ? v.data.byteLength / (v.dimension + 4) : v.data.byteLength / 4 / v.dimension;
      if (rows !== (perDoc.get(v.docId) ?? -1))
        problems.push(`${v.docId}: ${rows} vectors for ${perDoc.get(v.docId)} sentences`);
      vectorRows += rows;
    }
    return {
      records: Object.fromEntries(vectors.map((v) => [v.docId, fingerprint(v.data)])),
      documents: docs.length,
      sentences: sentences.length,
      vectorRecords: vectors.length,
      vectorRows,
      queued: pending.filter((p) => p.status !== 'failed').map((p) => p.name),
      failed: pending.filter((p) => p.status === 'failed').map((p) => p.name),
      problems,
    };
  });
}

/**
 * The layers the Library view's document list shows, each distinct value once, sorted. The list is read from the
 * store a read after the header hears the run's last coverage report: a spec polls this until the list says what
 * it expects, rather than reading it once when the header changes.
 */
export async function listedLayers(page: Page): Promise<string[]> {
  const cells = await page
    .locator('[data-testid="documents"] td[data-layers]')
    .evaluateAll((tds) => tds.map((c) => c.getAttribute('data-layers') ?? ''));
  return [...new Set(cells)].sort();
}
