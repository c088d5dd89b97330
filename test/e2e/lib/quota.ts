// Lowers the browser's storage quota for the app's origin, for the specs of a full store (issues 14 and 15).
// The quota is enforced by the browser through CDP (Storage.overrideQuotaForOrigin): IndexedDB writes past it fail
// with QuotaExceededError as they would on a full disk or in a small private window. This Chromium's
// navigator.storage.estimate() does not report an overridden quota (CDP's own Storage.getUsageAndQuota says
// overrideActive with the new quota while estimate() still says 10 GB), so the page's estimate() is made to report
// the same quota — what a browser that really offers this little would say. It holds until the page reloads.
import type { CDPSession, Page } from '@playwright/test';

export interface StorageEstimate {
  usage: number;
  quota: number;
}

/** What the browser reports for the page's origin. */
export async function estimate(page: Page): Promise<StorageEstimate> {
  return page.evaluate(async () => {
    const { usage = 0, quota = 0 } = await navigator.storage.estimate();
    return { usage, quota };
  });
}

/**
 * Waits until the app's own usage (service worker precache, database) has stopped growing: two readings half a
 * second apart agree. No limit of its own (the test's time-out bounds it): it used to return its reading after 20 s
 * as settled even while the usage still grew, and a quota set from a reading taken while the app still writes
 * offers less room than the spec says.
 */
export async function settledUsage(page: Page): Promise<number> {
  await page.evaluate(() => navigator.serviceWorker?.ready.then(() => undefined));
  let last = -1;
  for (;;) {
    const { usage } = await estimate(page);
    if (usage === last) return usage;
    last = usage;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * How long Chromium's IndexedDB may go on approving writes from the room it last heard of (content/browser/
 * indexed_db BucketContext::kBucketSpaceCacheTimeLimit: the quota manager's answer is cached and decays over
 * 30 s, and is asked again only when a transaction needs more than the decayed allotment). A quota lowered while
 * the app writes is therefore enforced only up to 30 s later — after the whole drop, when it is small. Waiting this
 * long with no write after the override makes the next transaction ask, and see it.
 */
export const IDB_SPACE_CACHE_MS = 31_000;

/**
 * Sets the origin's quota through CDP (enforced by the browser) and, unless `reportToPage` is false, makes the
 * page's estimate() report it too; returns the CDP session.
 */
export async function lowerQuota(
  page: Page,
  origin: string,
  quota: number,
  { reportToPage = true }: { reportToPage?: boolean } = {},
): Promise<CDPSession> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: quota });
  const enforced = (await cdp.send('Storage.getUsageAndQuota', { origin })) as {
    quota: number;
    overrideActive: boolean;
  };
  if (!enforced.overrideActive || enforced.quota !== quota) {
    throw new Error(
      `quota.ts: Chromium did not take the quota override for ${origin} (${JSON.stringify(enforced)}); ` +
        'the storage specs need Storage.overrideQuotaForOrigin',
    );
  }
  if (reportToPage) await reportQuota(page, quota);
  return cdp;
}

/** Makes the page's estimate() report `quota` (what a browser that really offers this little would say). */
export async function reportQuota(page: Page, quota: number): Promise<void> {
  await page.evaluate((quota) => {
    const storage = navigator.storage;
    const real = storage.estimate.bind(storage);
    storage.estimate = async () => ({ ...(await real()), quota });
  }, quota);
}

/** Lifts the override: the browser's own quota again. */
export async function restoreQuota(page: Page, cdp: CDPSession, origin: string): Promise<void> {
  await cdp.send('Storage.overrideQuotaForOrigin', { origin });
  await page.evaluate(() => {
    // The page's estimate() reports the browser's quota again (the patched one is an own property).
    delete (navigator.storage as { estimate?: unknown }).estimate;
  });
}
