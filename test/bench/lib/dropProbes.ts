// Page-side probes for test/bench/drop.ts: the library's state read straight from IndexedDB (counts only, so a
// poll copies no records), a timed question in the Ask view, and the JS memory of the page and its workers.
// Every function here is serialized by Playwright and runs in the page: no imports, no closures.

export interface LibraryProbe {
  /** False until the app has created its stores (nothing is counted before, and no connection stays open). */
  ready: boolean;
  documents: number;
  /** -1 when not counted (a light probe). */
  chunks: number;
  sentences: number;
  /** Files still queued or being indexed (the pending store's status index). */
  pendingWaiting: number;
  pendingFailed: number;
  /** What the app shows on <body data-indexing>: 'idle', 'running' or 'elsewhere'. */
  indexing: string;
}

/**
 * Counts in IndexedDB plus the app's indexing flag. Opens the database only once it exists. A light probe counts
 * the documents by their addedAt index (small entries, not the records with their text) and leaves chunks and
 * sentences uncounted (-1): a store's count() walks it, and while it does the app's writes to it wait, so a full
 * probe every few seconds of a 100 MB drop took a growing share of the drop's time.
 */
export async function probeLibrary(light = false): Promise<LibraryProbe> {
  const indexing = document.querySelector('[data-indexing]')?.getAttribute('data-indexing') ?? '';
  const empty = {
    ready: false,
    documents: 0,
    chunks: 0,
    sentences: 0,
    pendingWaiting: 0,
    pendingFailed: 0,
    indexing,
  };
  // Opening a database that does not exist yet would create it empty, under the app's upgrade.
  const names = await indexedDB.databases();
  if (!names.some((d) => d.name === 'conceptrag')) return empty;
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const r = indexedDB.open('conceptrag');
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
  try {
    if (!db.objectStoreNames.contains('pending')) return empty;
    const request = <T>(r: IDBRequest<T>) =>
      new Promise<T>((resolve, reject) => {
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
    const tx = db.transaction(
      light ? ['documents', 'pending'] : ['documents', 'chunks', 'sentences', 'pending'],
    );
    const status = tx.objectStore('pending').index('status');
    const [documents, chunks, sentences, pendingWaiting, pendingFailed] = await Promise.all([
      request(
        light ? tx.objectStore('documents').index('addedAt').count() : tx.objectStore('documents').count(),
      ),
      light ? -1 : request(tx.objectStore('chunks').count()),
      light ? -1 : request(tx.objectStore('sentences').count()),
      request(status.count(IDBKeyRange.bound('queued', 'working'))),
      request(status.count(IDBKeyRange.only('failed'))),
    ]);
    return { ready: true, documents, chunks, sentences, pendingWaiting, pendingFailed, indexing };
  } finally {
    db.close();
  }
}

/** Documents that have at least one chunk (distinct docId keys of the chunks store's docId index). */
export async function documentsWithChunks(): Promise<number> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const r = indexedDB.open('conceptrag');
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
  try {
    return await new Promise<number>((resolve, reject) => {
      let n = 0;
      const r = db
        .transaction('chunks')
        .objectStore('chunks')
        .index('docId')
        .openKeyCursor(null, 'nextunique');
      r.onsuccess = () => {
        const cursor = r.result;
        if (!cursor) return resolve(n);
        n += 1;
        cursor.continue();
      };
      r.onerror = () => reject(r.error);
    });
  } finally {
    db.close();
  }
}

/**
 * The chunks the stored concept graph was made for, against the chunks stored: the app calls a document searchable
 * once the graph covers it (LibraryCoverage.searchableDocuments), which during a drop is after its chunks are
 * stored. `seen`: the index record's graph counts at the last call; the graph record (megabytes) is read only when
 * they changed. Null when nothing is stored yet.
 */
export async function graphCoverage(
  seen: string,
): Promise<{ stamp: string; graphChunks: number | null; chunks: number } | null> {
  const names = await indexedDB.databases();
  if (!names.some((d) => d.name === 'conceptrag')) return null;
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const r = indexedDB.open('conceptrag');
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
  try {
    if (!db.objectStoreNames.contains('graph')) return null;
    const request = <T>(r: IDBRequest<T>) =>
      new Promise<T>((resolve, reject) => {
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
    const tx = db.transaction(['meta', 'chunks', 'graph']);
    const [meta, chunks] = await Promise.all([
      request(
        tx.objectStore('meta').get('index') as IDBRequest<{ concepts?: number; edges?: number } | undefined>,
      ),
      request(tx.objectStore('chunks').count()),
    ]);
    const stamp = JSON.stringify([meta?.concepts ?? 0, meta?.edges ?? 0]);
    if (stamp === seen) return { stamp, graphChunks: null, chunks };
    const graph = (await request(tx.objectStore('graph').get('concept'))) as
      { graph?: { chunkIds?: unknown[] } } | undefined;
    return { stamp, graphChunks: graph?.graph?.chunkIds?.length ?? 0, chunks };
  } finally {
    db.close();
  }
}

/** Sentence vectors (rows = floats / dimension, summed over the per-document vector records) and sentences. */
export async function vectorRows(): Promise<{ vectors: number; sentences: number }> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const r = indexedDB.open('conceptrag');
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
  try {
    const tx = db.transaction(['vectors', 'sentences']);
    const sentences = await new Promise<number>((resolve, reject) => {
      const r = tx.objectStore('sentences').count();
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const vectors = await new Promise<number>((resolve, reject) => {
      let rows = 0;
      const r = tx.objectStore('vectors').openCursor();
      r.onsuccess = () => {
        const cursor = r.result;
        if (!cursor) return resolve(rows);
        const v = cursor.value as { dimension: number; encoding?: string; data: ArrayBuffer };
        // Schema v2 rows are int8 codes with a float32 scale each (dimension + 4 bytes), v1 rows float32.
        const rowBytes = v.encoding === 'i8' ? v.dimension + 4 : v.dimension * 4;
        rows += v.dimension > 0 ? v.data.byteLength / rowBytes : 0;
        cursor.continue();
      };
      r.onerror = () => reject(r.error);
    });
    return { vectors, sentences };
  } finally {
    db.close();
  }
}

/** UTF-8 bytes of every stored document's extracted text. */
export async function storedTextBytes(): Promise<{ documents: number; bytes: number }> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const r = indexedDB.open('conceptrag');
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
  try {
    return await new Promise((resolve, reject) => {
      const encoder = new TextEncoder();
      let documents = 0;
      let bytes = 0;
      const r = db.transaction('documents').objectStore('documents').openCursor();
      r.onsuccess = () => {
        const cursor = r.result;
        if (!cursor) return resolve({ documents, bytes });
        documents += 1;
        bytes += encoder.encode((cursor.value as { text?: string }).text ?? '').length;
        cursor.continue();
      };
      r.onerror = () => reject(r.error);
    });
  } finally {
    db.close();
  }
}

export interface AskProbe {
  /** To the result: the app no longer searching. */
  ms: number;
  /** To the first evidence card on screen: early lexical evidence, or the result when none came first. */
  firstEvidenceMs: number;
  /** The first evidence was early (lexical, refined after), and stale (from the library before a change). */
  firstEvidenceStage: 'early' | 'stale' | 'result' | 'none';
  evidence: number;
  error: string | null;
  /** Nothing was asked: the Ask view says the library is empty, or the button is disabled. */
  empty: boolean;
  /**
   * The query worker's own time for the result (its `milliseconds`), and for a library read by ranges the part of
   * it spent waiting on reads and the rounds of reads; null where the app does not say.
   */
  worker: { ms: number; waitMs: number | null; rounds: number | null } | null;
  /** When the Ask button was clicked, ms since the epoch (performance.timeOrigin + now: comparable across realms). */
  clickedAt: number;
}

/**
 * Clicks Ask (the question is already typed) and waits, on DOM mutations, until the app is no longer searching
 * and shows results or an error. `ms` runs from just before the click to that moment, in the page's clock.
 */
export async function timedAsk(timeoutMs: number): Promise<AskProbe> {
  const button = document.querySelector<HTMLButtonElement>('[data-testid="ask"]');
  if (!button) throw new Error('drop bench: no Ask button in the page');
  const form = button.closest('form');
  const empty = Boolean(form && /library is empty/i.test(form.textContent ?? ''));
  if (empty || button.disabled) {
    return {
      ms: 0,
      firstEvidenceMs: 0,
      firstEvidenceStage: 'none',
      evidence: 0,
      error: null,
      empty: true,
      worker: null,
      clickedAt: performance.timeOrigin + performance.now(),
    };
  }
  const t0 = performance.now();
  button.click();
  // The click sets busy and clears the old result; Svelte writes that to the DOM in a microtask.
  await new Promise((resolve) => setTimeout(resolve, 0));
  let first: { ms: number; stage: AskProbe['firstEvidenceStage'] } | null = null;
  const done = () => {
    if (!first) {
      const early = document.querySelector('[data-testid="evidence-early"]');
      const card = early ?? document.querySelector('[data-testid="evidence"]');
      if (card) {
        const stale = Boolean(early && document.querySelector('[data-testid="results"][data-stale="true"]'));
        first = { ms: performance.now() - t0, stage: early ? (stale ? 'stale' : 'early') : 'result' };
      }
    }
    const b = document.querySelector<HTMLButtonElement>('[data-testid="ask"]');
    // Not settled while the question waits for the library, is searched, or shows early evidence being refined.
    if (!b || /Searching|Refining|Waiting/.test(b.textContent ?? '')) return null;
    const alert = document.querySelector('[role="alert"]');
    const results = document.querySelector('[data-testid="results"]');
    if (!results && !alert) return null;
    const ms = performance.now() - t0;
    const number = (el: Element | null, name: string): number | null => {
      const v = el?.getAttribute(name);
      return v == null || v === '' ? null : Number(v);
    };
    const workerMs = number(results, 'data-ms');
    const reads = document.querySelector('[data-testid="results"] [data-testid="reads"]');
    return {
      ms,
      worker:
        workerMs === null
          ? null
          : { ms: workerMs, waitMs: number(reads, 'data-wait-ms'), rounds: number(reads, 'data-rounds') },
      firstEvidenceMs: first?.ms ?? ms,
      firstEvidenceStage: first?.stage ?? ('none' as const),
      evidence: document.querySelectorAll('[data-testid="results"] [data-testid="evidence"]').length,
      error: results ? null : (alert?.textContent ?? '').trim(),
      empty: false,
      clickedAt: performance.timeOrigin + t0,
    };
  };
  const settled = done();
  if (settled) return settled;
  return new Promise<AskProbe>((resolve, reject) => {
    const observer = new MutationObserver(() => {
      const r = done();
      if (!r) return;
      observer.disconnect();
      clearTimeout(timer);
      resolve(r);
    });
    const timer = setTimeout(() => {
      observer.disconnect();
      reject(new Error(`drop bench: no answer ${Math.round(timeoutMs / 1000)} s after clicking Ask`));
    }, timeoutMs);
    observer.observe(document.body, {
      childList: true,
      subtree: true,
      characterData: true,
      attributes: true,
    });
  });
}

export interface MemoryProbe {
  /** Bytes attributed to JavaScript, page and workers together. */
  js: number;
  total: number;
  /**
   * JavaScript bytes per realm: 'page', or a dedicated worker named by its script's file name without the build's
   * hash (embed.worker, query.worker, …); workers of one script are summed, with their number in `workers`.
   */
  realms: { realm: string; bytes: number; workers: number }[];
}

/**
 * performance.measureUserAgentSpecificMemory (cross-origin isolated pages only): the JS heap of the page and its
 * dedicated workers, in total and per realm (the breakdown's attribution). Null where the API is missing or
 * refuses.
 */
export async function measureMemory(): Promise<MemoryProbe | null> {
  const perf = performance as Performance & {
    measureUserAgentSpecificMemory?: () => Promise<{
      bytes: number;
      breakdown: {
        bytes: number;
        types: string[];
        attribution: { url: string; scope: string }[];
      }[];
    }>;
  };
  if (!crossOriginIsolated || typeof perf.measureUserAgentSpecificMemory !== 'function') return null;
  try {
    const m = await perf.measureUserAgentSpecificMemory();
    const js = m.breakdown.filter((b) => b.types.includes('JavaScript'));
    const realms = new Map<string, { realm: string; bytes: number; workers: number }>();
    for (const b of js) {
      const a = b.attribution[0];
      let realm = 'other';
      if (a && a.scope === 'Window') realm = 'page';
      else if (a) {
        // Vite names a worker's chunk <name>-<hash>.js: the name is the realm.
        const file = a.url.split('?')[0].split('/').pop() ?? a.url;
        realm = file.replace(/-[\w-]{8}\.js$/, '').replace(/\.js$/, '');
      }
      const r = realms.get(realm) ?? { realm, bytes: 0, workers: 0 };
      r.bytes += b.bytes;
      if (realm !== 'page') r.workers += 1;
      realms.set(realm, r);
    }
    return {
      js: js.reduce((n, b) => n + b.bytes, 0),
      total: m.bytes,
      realms: [...realms.values()].sort((x, y) => y.bytes - x.bytes),
    };
  } catch {
    return null;
  }
}

/**
 * In the page: the performance.now() (ms since this document's navigation) at which the first evidence card
 * showed (early lexical evidence or the result) and at which the result settled (Ask no longer searching).
 * Self-contained like timedAsk, whose watching it repeats: page.evaluate sends the page this function alone.
 */
export async function watchEvidence(timeoutMs: number): Promise<{
  firstEvidenceMs: number;
  firstEvidenceStage: string;
  resultMs: number;
  evidence: number;
  layer: string | null;
}> {
  let first: { ms: number; stage: string } | null = null;
  const check = () => {
    if (!first) {
      const card = document.querySelector('[data-testid="evidence-early"], [data-testid="evidence"]');
      if (card) first = { ms: performance.now(), stage: card.getAttribute('data-testid') ?? '' };
    }
    const button = document.querySelector('[data-testid="ask"]');
    const results = document.querySelector('[data-testid="results"]');
    const alert = document.querySelector('[role="alert"]');
    if (alert) throw new Error(`bundle-open bench: the app says: ${alert.textContent?.trim()}`);
    if (!results || !button || (button.textContent ?? '').includes('Searching') || !first) return null;
    return {
      firstEvidenceMs: first.ms,
      firstEvidenceStage: first.stage,
      resultMs: performance.now(),
      evidence: document.querySelectorAll('[data-testid="evidence"]').length,
      layer: results.getAttribute('data-layer'),
    };
  };
  // Already on screen (a fast answer can render before this runs).
  const now = check();
  if (now) return now;
  return new Promise((resolve, reject) => {
    const observer = new MutationObserver(() => {
      try {
        const r = check();
        if (!r) return;
        observer.disconnect();
        clearTimeout(timer);
        resolve(r);
      } catch (error) {
        observer.disconnect();
        reject(error);
      }
    });
    const timer = setTimeout(() => {
      observer.disconnect();
      reject(new Error('bench: no result in time'));
    }, timeoutMs);
    observer.observe(document.body, {
      childList: true,
      subtree: true,
      characterData: true,
      attributes: true,
    });
  });
}

/**
 * Writes one record of the app's settings table ({ key, value }, src/store/settingsRepo.ts), once the app has
 * created its stores. drop.ts --lexical sets 'sentenceVectors' to false with it before the drop: the library then
 * keeps to its lexical layer, as when a user chooses "lexical layer only" (the ingest pipeline reads the setting
 * at each drain).
 */
export async function putSetting(setting: { key: string; value: unknown }): Promise<boolean> {
  const names = await indexedDB.databases();
  if (!names.some((d) => d.name === 'conceptrag')) return false;
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const r = indexedDB.open('conceptrag');
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
  try {
    if (!db.objectStoreNames.contains('settings')) return false;
    const tx = db.transaction('settings', 'readwrite');
    tx.objectStore('settings').put(setting);
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
    });
    return true;
  } finally {
    db.close();
  }
}

/**
 * The query worker's share of a series of questions (AskProbe.worker): its p50 time and, for a library read by ranges,
 * the p50 of its wait on reads and of its rounds; the rest of the click-to-result time is the page and the messages.
 */
export function workerShare(probes: ReadonlyArray<AskProbe['worker']>): string {
  const p50 = (xs: number[]): string => {
    if (xs.length === 0) return '–';
    const sorted = [...xs].sort((a, b) => a - b);
    return sorted[Math.ceil(sorted.length / 2) - 1].toFixed(0);
  };
  const given = probes.filter((w): w is NonNullable<AskProbe['worker']> => w !== null);
  if (given.length === 0) return 'the app did not say its worker time';
  const waits = given.flatMap((w) => (w.waitMs === null ? [] : [w.waitMs]));
  const rounds = given.flatMap((w) => (w.rounds === null ? [] : [w.rounds]));
  return (
    `in the query worker p50 ${p50(given.map((w) => w.ms))} ms` +
    (waits.length > 0 ? `, of which waiting on reads p50 ${p50(waits)} ms, rounds p50 ${p50(rounds)}` : '')
  );
}
