// Where the page reads a bundle by ranges (src/core/paged): a URL of the app's own origin with HTTP Range requests
// (any static host that honours them), or a File dropped from disk (File.slice). Both count what they read.
import type { RangeSource } from '../../core/paged/index.ts';

/**
 * The mode of every range request: the app opens same-origin bundles only, and the service worker sends fetch()es of
 * this mode (no other fetch() of the app has it) to the network without its fetch event (src/sw/sw.ts).
 */
const SAME_ORIGIN: RequestMode = 'same-origin';

/** A bundle URL answered by Range requests; open() says undefined when the host sends whole files only. */
export class HttpRangeSource implements RangeSource {
  bytesRead = 0;

  private constructor(
    private readonly url: string,
    readonly size: number,
    private readonly fetcher: typeof fetch,
    /** ETag or Last-Modified of the first answer: a bundle replaced meanwhile is refused, not mixed. */
    private readonly version: string | null,
  ) {}

  get name(): string {
    return this.url;
  }

  static async open(url: string, fetcher: typeof fetch = fetch): Promise<HttpRangeSource | undefined> {
    const response = await fetcher(url, { headers: { Range: 'bytes=0-11' }, mode: SAME_ORIGIN });
    if (response.status === 200) {
      // No range support: the caller downloads the whole file instead (this body is not read).
      await response.body?.cancel();
      return undefined;
    }
    if (response.status !== 206) {
      throw new Error(`open bundle: ${url} answered ${response.status} ${response.statusText}`.trim());
    }
    const size = Number(/\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1] ?? NaN);
    await response.arrayBuffer();
    if (!Number.isSafeInteger(size)) {
      throw new Error(`open bundle: ${url} answered a range without the file's size (Content-Range)`);
    }
    const version = response.headers.get('etag') ?? response.headers.get('last-modified');
    return new HttpRangeSource(url, size, fetcher, version);
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    if (length === 0) return new Uint8Array(0);
    // Called unbound: a browser's fetch refuses to run as a method of another object.
    const get = this.fetcher;
    const response = await get(this.url, {
      headers: { Range: `bytes=${offset}-${offset + length - 1}` },
      mode: SAME_ORIGIN,
    });
    if (response.status !== 206) {
      throw new Error(
        `${this.url}: a range request answered ${response.status} (the host stopped serving ranges)`,
      );
    }
    const version = response.headers.get('etag') ?? response.headers.get('last-modified');
    if (this.version && version && version !== this.version) {
      throw new Error(`${this.url}: the bundle changed on the server since it was opened; reload the page`);
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length !== length) {
      throw new Error(`${this.url}: asked for ${length} bytes at ${offset}, got ${bytes.length}`);
    }
    this.bytesRead += length;
    return bytes;
  }
}

/** A dropped bundle file, read by slices (nothing of it is held but the blocks questions read). */
export class BlobRangeSource implements RangeSource {
  bytesRead = 0;

  constructor(
    private readonly blob: Blob,
    readonly name: string,
  ) {}

  get size(): number {
    return this.blob.size;
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    if (offset < 0 || length < 0 || offset + length > this.blob.size) {
      throw new Error(
        `${this.name}: ${length} bytes at ${offset} are past its end (${this.blob.size} bytes)`,
      );
    }
    const bytes = new Uint8Array(await this.blob.slice(offset, offset + length).arrayBuffer());
    this.bytesRead += length;
    return bytes;
  }
}
