// The Library view's "Keep for offline use" of a shared index read by ranges (?bundle= of a bundle with pages):
// its bytes are kept part by part in this browser (src/services/bundleBytes/keptBundles.ts), and the query worker reads
// that copy when the host cannot be reached. The keep runs on this page (it only moves bytes from the network to
// Cache Storage), shows its progress, can be cancelled, and after a reload goes on from the parts it stored.
import { cacheStorageParts, KeptBundles, type KeptStatus } from '../../services/bundleBytes/keptBundles.ts';
import { HttpRangeSource } from '../../services/bundleBytes/rangeSources.ts';
import { sameOriginBundleUrl } from '../../services/bundleBytes/bundleFetch.ts';
import { formatBytes } from '../format.ts';
import { browserStorage } from '../estimates/storageEstimate.ts';
import { messageOf } from '../../core/errors.ts';

/** Why a keep cannot start: the bytes still to store against what the browser offers this site; null if it fits. */
function keepShortfall(need: number, storage: { usage: number; quota: number } | null): string | null {
  if (!storage || storage.quota <= 0) return null;
  const available = Math.max(0, storage.quota - storage.usage);
  if (need <= available) return null;
  return (
    `Keeping this bundle for offline use needs ${formatBytes(need)} more of storage; this browser offers ` +
    `${formatBytes(available)} here (a private window gives less). It is still read by ranges while online.`
  );
}

class OfflineCopyState {
  /** What is kept of the open bundle; null when it is not read by ranges from a host (nothing to keep). */
  status = $state<KeptStatus | null>(null);
  /** The open bundle is read from its offline copy (the host could not be reached, or serves the same version). */
  fromCopy = $state(false);
  /** A keep running: bytes stored so far of the bundle's size. */
  keeping = $state<{ stored: number; size: number } | null>(null);
  /** Why the last keep stopped (a failure or a refusal), until the next one starts. */
  error = $state<string | null>(null);
  /** The copy failed its check when the bundle opened and was removed (the host answers): why, naming the bundle. */
  dropped = $state<string | null>(null);

  private url: string | null = null;
  private stop: AbortController | null = null;
  private readonly kept = typeof caches === 'undefined' ? null : new KeptBundles(cacheStorageParts());

  /** The bundle is open: what is kept of it. A keep that a reload or a lost connection stopped goes on. */
  opened(
    bundleUrl: string,
    status: KeptStatus | undefined,
    fromCopy: boolean | undefined,
    dropped?: string,
  ): void {
    if (!status || !this.kept) return;
    this.url = sameOriginBundleUrl(bundleUrl, location.origin).href;
    this.status = status;
    this.fromCopy = fromCopy === true;
    this.dropped = dropped ?? null;
    if (status.state === 'partial' && !this.fromCopy) void this.keep();
  }

  /**
   * The bundle did not open: what is kept of it, so that a copy (or part of one) can still be removed. Nothing is
   * kept or resumed from here.
   */
  async failedToOpen(bundleUrl: string): Promise<void> {
    const { kept } = this;
    if (!kept) return;
    let url: string;
    try {
      url = sameOriginBundleUrl(bundleUrl, location.origin).href;
    } catch {
      return; // not a link this app opens: nothing of it was ever kept
    }
    const status = await kept.status(url).catch(() => null);
    if (!status || status.state === 'none') return;
    this.url = url;
    this.status = status;
    this.fromCopy = false;
  }

  /** Keeps the open bundle for offline use, from the first part not yet stored. */
  async keep(): Promise<void> {
    const { url, kept } = this;
    // `stop` is set before the first await: a second click meanwhile starts nothing.
    if (!url || !kept || this.stop) return;
    this.error = null;
    const stop = new AbortController();
    this.stop = stop;
    try {
      const host = await HttpRangeSource.open(url);
      if (!host) throw new Error('its host no longer answers range requests');
      const stored = this.status?.state === 'partial' ? this.status.stored : 0;
      const shortfall = keepShortfall(host.size - stored, await browserStorage());
      if (shortfall) {
        this.error = shortfall;
        return;
      }
      this.keeping = { stored, size: host.size };
      this.status = await kept.keep(url, host, {
        signal: stop.signal,
        onProgress: (storedNow, size) => (this.keeping = { stored: storedNow, size }),
      });
    } catch (error) {
      if (stop.signal.aborted) this.status = await kept.discardPending(url);
      else {
        this.error = `Not kept for offline use: ${messageOf(error)}`;
        this.status = await kept.status(url);
      }
    } finally {
      this.keeping = null;
      this.stop = null;
    }
  }

  /** Stops a keep and deletes what it stored (a copy kept before stays). */
  cancel(): void {
    this.stop?.abort(new Error('cancelled'));
  }

  /**
   * Deletes the offline copy; one the page reads is deleted, then the page is loaded again to read the host (with
   * the host unreachable, the bundle then does not open: the page says so before Remove is chosen).
   */
  async remove(): Promise<void> {
    const { url, kept } = this;
    if (!url || !kept || this.stop) return;
    await kept.remove(url);
    this.status = { state: 'none' };
    if (this.fromCopy) location.reload();
  }
}

export const offlineCopy = new OfflineCopyState();
