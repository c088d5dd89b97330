// Storage as a person reads it (src/ui/estimates/storageSplit.ts): the library (IndexedDB) apart from the app's
// offline copy (the service worker's caches), from the browser's breakdown when it gives one, else from the
// cached responses' sizes.
import { describe, expect, it } from 'vitest';
import { storageSplit } from '../../../src/ui/estimates/storageSplit.ts';

const MB = 1024 * 1024;

describe('storageSplit', () => {
  it("splits Chromium's usage details: IndexedDB is the library, caches and the worker are the app", async () => {
    const split = await storageSplit({
      estimate: async () =>
        ({
          usage: 46 * MB,
          quota: 1000 * MB,
          usageDetails: { indexedDB: 6 * 1024, caches: 45 * MB, serviceWorkerRegistrations: 0.5 * MB },
        }) as StorageEstimate,
    });
    expect(split).toEqual({ library: 6 * 1024, app: 45.5 * MB, quota: 1000 * MB });
  });

  it('without a breakdown, takes the cached bytes out of the total', async () => {
    const split = await storageSplit(
      { estimate: async () => ({ usage: 50 * MB, quota: 100 * MB }) },
      async () => 42 * MB,
    );
    expect(split).toEqual({ library: 8 * MB, app: 42 * MB, quota: 100 * MB });
  });

  it('says nothing when the browser has no estimate', async () => {
    expect(await storageSplit(undefined)).toBeNull();
  });
});
