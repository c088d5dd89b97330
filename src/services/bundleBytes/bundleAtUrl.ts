// Where `?bundle=<url>` gets its bytes. By HTTP Range requests where the host answers them (rangeSources.ts). Else
// the bundle is downloaded once, whole, to a Blob, which the browser keeps out of the JS heap (on disk when large). A
// bundle with pages is then read by slices of that Blob, as a file picked from disk is, and one without is read whole
// from it, not downloaded again. Before, a host without ranges (`python3 -m http.server`, what people type to share a
// folder) could not open a pages-only bundle (`cli index --stream`) at all, and a bundle with pages and documents was
// read whole into the tab (docs/results/real-hosts.md).
import { openPagedBundle, type PagedBundle } from '../../core/paged/index.ts';
import { createTermAnalyzer } from '../../core/text/index.ts';
import { checkAnsweredFrom, counted, statedLength, type DownloadProgress } from './bundleFetch.ts';
import type { KeptBundles, KeptStatus } from './keptBundles.ts';
import { BlobRangeSource, HttpRangeSource } from './rangeSources.ts';

/** A bundle's pages, and whether they are read from its whole download (the host sent no ranges). */
export interface PagesAtUrl {
  bundle: PagedBundle;
  /** Its pages are read from its one whole download: the host sent no ranges. */
  downloaded: boolean;
  /** Read by ranges: what this browser keeps of it for offline use, and whether it is read from that copy. */
  offlineCopy?: KeptStatus;
  fromOfflineCopy?: boolean;
  /** The offline copy failed its check when opened and was removed: why, naming the bundle. */
  offlineCopyDropped?: string;
}

export class BundleAtUrl {
  /** Whole downloads without pages, by URL, each taken once by the whole reader (fetch below). */
  private readonly downloads = new Map<string, Blob>();

  constructor(
    private readonly fetcher: typeof fetch = fetch,
    /** The copies kept for offline use (keptBundles.ts): read when the host cannot be reached. */
    private readonly kept?: KeptBundles,
  ) {}

  /**
   * The bundle's pages, read by ranges from its host or by slices of its whole download; undefined when it has none
   * (then `fetch` gives the whole reader that download, where there was one).
   */
  async pages(url: string, onProgress?: DownloadProgress): Promise<PagesAtUrl | undefined> {
    let unreachable = false;
    const byRanges = await HttpRangeSource.open(url, this.fetcher).catch((error: unknown) => {
      // No answer at all (offline): a range never goes through the service worker, but the whole download does, and
      // it keeps a copy of each bundle opened whole. A host that answered, however badly, is reported as it was.
      if (error instanceof TypeError) {
        unreachable = true;
        return undefined;
      }
      throw error;
    });
    if (byRanges) {
      let offlineCopy = await this.kept?.status(url, byRanges);
      // A copy kept of the version the host serves now: read from disk, the questions send nothing to the host,
      // which would otherwise see which parts of the index each one reads (its words' dictionary groups among them).
      // Checked whole first: a damaged copy is removed, and the host answers.
      const opened =
        offlineCopy?.state === 'kept' && offlineCopy.current ? await this.kept!.open(url) : undefined;
      if (opened && 'source' in opened) {
        const fromCopy = await openPagedBundle(opened.source, createTermAnalyzer());
        if (fromCopy) return { bundle: fromCopy, downloaded: false, offlineCopy, fromOfflineCopy: true };
      }
      const offlineCopyDropped = opened && 'dropped' in opened ? opened.dropped : undefined;
      if (offlineCopyDropped) offlineCopy = await this.kept!.status(url, byRanges);
      const bundle = await openPagedBundle(byRanges, createTermAnalyzer());
      return bundle && { bundle, downloaded: false, offlineCopy, offlineCopyDropped };
    }
    // Kept for offline use by the Library view: read from that copy, as a file picked from disk is, whatever the
    // version the host would serve; checked whole first, as online.
    const opened = unreachable ? await this.kept?.open(url) : undefined;
    const fromCopy =
      opened && 'source' in opened && (await openPagedBundle(opened.source, createTermAnalyzer()));
    if (fromCopy) {
      const offlineCopy = await this.kept!.status(url);
      return { bundle: fromCopy, downloaded: false, offlineCopy, fromOfflineCopy: true };
    }
    const dropped = opened && 'dropped' in opened ? `. ${opened.dropped}` : '';
    const whole = await this.download(url, onProgress).catch((error: unknown) => {
      if (unreachable && error instanceof TypeError) {
        throw new Error(
          `${url} cannot be reached (is the network off?), and this browser keeps no copy of it: open it once ` +
            `online and choose "Keep for offline use" in the Library view${dropped}`,
        );
      }
      throw error;
    });
    const bundle = await openPagedBundle(new BlobRangeSource(whole, url), createTermAnalyzer());
    if (!bundle) this.downloads.set(url, whole);
    return bundle && { bundle, downloaded: true };
  }

  /**
   * fetch() for the whole reader (openBundleReadOnly): a URL this downloaded whole is answered from its Blob, once,
   * and forgotten; any other request goes to the network.
   */
  readonly fetch: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const whole = this.downloads.get(url);
    // Called unbound: a browser's fetch refuses to run as a method of another object.
    const get = this.fetcher;
    if (!whole) return get(input, init);
    this.downloads.delete(url);
    return new Response(whole, { headers: { 'content-length': String(whole.size) } });
  };

  /** The whole file to a Blob, its bytes counted on the way (they pass through the heap a chunk at a time). */
  private async download(url: string, onProgress?: DownloadProgress): Promise<Blob> {
    // Through the service worker, as the whole reader's download is: it keeps the bundle for offline use.
    const get = this.fetcher;
    const response = await get(url);
    checkAnsweredFrom(url, response);
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw new Error(`open bundle: ${url} answered ${response.status} ${response.statusText}`.trim());
    }
    const body = onProgress
      ? counted(response.body, statedLength(response) ?? null, onProgress)
      : response.body;
    return new Response(body).blob();
  }
}
