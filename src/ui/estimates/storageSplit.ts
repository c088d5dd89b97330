// What this site keeps in the browser, split the way a person thinks of it: "your library" (IndexedDB: the
// documents, their index, the queue) and "the app (offline copy)" (the service worker's caches: the app's code,
// the embedding model, WASM). The browser's total alone counted the app's 40-odd MB as the library's.
/** Bytes of each part, and the quota the browser offers this site (0 when unknown). */
export interface StorageSplit {
  library: number;
  app: number;
  quota: number;
}

/** Chromium's estimate() also gives usage per kind of storage (not in the DOM typings). */
type DetailedEstimate = StorageEstimate & {
  usageDetails?: { indexedDB?: number; caches?: number; serviceWorkerRegistrations?: number };
};

/** The cached responses' sizes, for browsers whose estimate has no breakdown (their bodies are not read). */
async function cachesBytes(): Promise<number> {
  if (typeof caches === 'undefined') return 0;
  let total = 0;
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      const response = await cache.match(request);
      if (response) total += (await response.blob()).size;
    }
  }
  return total;
}

export async function storageSplit(
  storage: Pick<StorageManager, 'estimate'> | undefined = globalThis.navigator?.storage,
  cachedBytes: () => Promise<number> = cachesBytes,
): Promise<StorageSplit | null> {
  if (!storage?.estimate) return null;
  const estimate = (await storage.estimate()) as DetailedEstimate;
  const usage = estimate.usage ?? 0;
  const quota = estimate.quota ?? 0;
  const details = estimate.usageDetails;
  if (details) {
    const app = (details.caches ?? 0) + (details.serviceWorkerRegistrations ?? 0);
    return { library: details.indexedDB ?? Math.max(0, usage - app), app, quota };
  }
  const app = Math.min(usage, await cachedBytes().catch(() => 0));
  return { library: usage - app, app, quota };
}
