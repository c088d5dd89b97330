// A shared index read by ranges (?bundle= of a bundle with pages), kept in this browser for offline use: the Library
// view's "Keep for offline use". A range never goes through the service worker (src/sw/sw.ts), which keeps the
// bundles it downloads whole only, so such an index did not open with the network off. Its bytes are kept here in
// parts, each stored as it arrives: a keep stopped by a reload or a dropped connection goes on from the first part
// missing instead of from the start (a gigabyte is 147 parts). Offline, the copy is read by slices of those parts
// (Blobs the browser keeps on disk), as a file picked from disk is, and its blocks are checked against their hashes
// as any range is. Online, a copy of the version the host serves (its size and ETag or Last-Modified, and its
// manifest's digest: the bundle's last 44 bytes) is read too: nothing of a question then goes over the network; any
// other copy waits for the host to be unreachable. A copy is checked whole by its digest chain when its keep
// completes and each time it is opened (verifyBundleCopy): one that fails is removed, and the host is read instead.
import { verifyBundleCopy, type RangeSource } from '../../core/paged/index.ts';
import { BlobRangeSource } from './rangeSources.ts';
import { messageOf } from '../../core/errors.ts';

/** Bytes a part: small enough to hold one in memory on the way, large enough that a gigabyte is ~150 stores. */
const KEPT_PART_SIZE = 8 * 1024 * 1024;

/** Where the parts and their index are stored: Cache Storage in the browser (cacheStorageParts), a Map in tests. */
export interface PartStore {
  get(key: string): Promise<Blob | undefined>;
  put(key: string, blob: Blob): Promise<void>;
  delete(key: string): Promise<void>;
}

/** One copy of a bundle: its size and version as the host stated them when it was kept. */
interface KeptCopy {
  /** Names its parts (a new version is kept beside the old one, which is deleted only once it is complete). */
  token: string;
  size: number;
  /** The host's ETag or Last-Modified (null: it sends neither). */
  version: string | null;
  partSize: number;
}

/** What is kept of one URL: the complete copy, and a newer one being kept. */
interface KeptIndex {
  url: string;
  complete?: KeptCopy & { keptAt: number };
  pending?: KeptCopy;
}

/** What the Library view says about a bundle's offline copy. */
export type KeptStatus =
  /** Nothing kept; `size`: the bundle's, as its host states it (when asked with it). */
  | { state: 'none'; size?: number }
  /** A keep stopped before its end (a reload, a failure): `stored` of `size` bytes are kept. */
  | { state: 'partial'; stored: number; size: number }
  /**
   * Complete. `current`: the host states the same size and version and, where it was read, ends with the same
   * manifest (null: not known, offline, or no version and no read).
   */
  | { state: 'kept'; size: number; keptAt: number; current: boolean | null };

/**
 * The host as the bundle's opening found it: its size and version, and a reader of its bytes (past the HTTP cache)
 * with which "current" also compares the manifest's digest.
 */
export interface KeptHost {
  readonly size: number;
  readonly version: string | null;
  read?(offset: number, length: number): Promise<Uint8Array>;
}

/**
 * A version 3 bundle's last bytes: its manifest's SHA-256 (32), the manifest's locator (8) and "END." (4). Two
 * bundles that end alike have the same manifest, which gives every part's digest: a host that replaced the bundle
 * with another of the same size under the same ETag still ends otherwise (one small read tells).
 */
const MANIFEST_TAIL = 44;

/** A copy opened for reading: its checked source, or why it was removed (it failed its check). */
export type OpenedCopy = { source: RangeSource } | { dropped: string };

/** The source a keep reads: the host, by ranges, with the version it states. */
export interface KeepSource {
  readonly size: number;
  readonly version: string | null;
  /** `signal`: the keep's, so that Cancel stops the part on its way too. */
  read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array>;
}

export interface KeepOptions {
  onProgress?: (stored: number, size: number) => void;
  signal?: AbortSignal;
}

const indexKey = (url: string): string => `${encodeURIComponent(url)}/index`;
const partKey = (url: string, token: string, part: number): string =>
  `${encodeURIComponent(url)}/${token}/${part}`;

function partCount(copy: Pick<KeptCopy, 'size' | 'partSize'>): number {
  return Math.ceil(copy.size / copy.partSize);
}

function partLength(copy: Pick<KeptCopy, 'size' | 'partSize'>, part: number): number {
  return Math.min(copy.partSize, copy.size - part * copy.partSize);
}

/** The bundle the host states: the same size and version (ETag or Last-Modified; none equals none). */
function sameAs(copy: KeptCopy, host: { size: number; version: string | null }): boolean {
  return copy.size === host.size && copy.version === host.version;
}

function isCopy(value: unknown): value is KeptCopy {
  const c = value as KeptCopy | null;
  return (
    typeof c === 'object' &&
    c !== null &&
    typeof c.token === 'string' &&
    Number.isSafeInteger(c.size) &&
    c.size >= 0 &&
    (c.version === null || typeof c.version === 'string') &&
    Number.isSafeInteger(c.partSize) &&
    c.partSize > 0
  );
}

export class KeptBundles {
  constructor(
    private readonly store: PartStore,
    /** Bytes a part of a new copy (a copy kept with another size is read with its own). */
    private readonly partSize: number = KEPT_PART_SIZE,
    /** Checks a whole copy, throwing why it is wrong: its digest chain (tests of the parts alone keep any bytes). */
    private readonly verify: (copy: RangeSource) => Promise<void> = verifyBundleCopy,
  ) {}

  /**
   * What is kept of `url`; `host` (the size and version it states now) tells whether the copy is current: the same
   * size and version, and where the host can be read, the same manifest (its last 44 bytes, one read).
   */
  async status(url: string, host?: KeptHost): Promise<KeptStatus> {
    const index = await this.index(url);
    if (index.complete && !(index.pending && host && sameAs(index.pending, host))) {
      const { complete } = index;
      let current: boolean | null = null;
      if (host?.read) current = sameAs(complete, host) && (await this.sameManifest(url, complete, host));
      else if (host) current = host.version === null ? null : sameAs(complete, host);
      return { state: 'kept', size: complete.size, keptAt: complete.keptAt, current };
    }
    if (index.pending) {
      return { state: 'partial', stored: await this.stored(url, index.pending), size: index.pending.size };
    }
    return host ? { state: 'none', size: host.size } : { state: 'none' };
  }

  /**
   * Keeps the bundle at `url` from `source`, part by part, going on from a keep of the same size and version that
   * stopped before its end. The complete copy replaces the one kept before (which stays readable until then).
   * Throws the source's error, or the signal's reason, with the parts stored so far kept.
   */
  async keep(url: string, source: KeepSource, options: KeepOptions = {}): Promise<KeptStatus> {
    const index = await this.index(url);
    let copy = index.pending;
    if (!copy || !sameAs(copy, source)) {
      if (copy) await this.deleteParts(url, copy);
      copy = {
        token: `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`,
        size: source.size,
        version: source.version,
        partSize: this.partSize,
      };
      index.pending = copy;
      await this.writeIndex(index);
    }
    let stored = await this.stored(url, copy);
    options.onProgress?.(stored, copy.size);
    for (let part = 0; part < partCount(copy); part++) {
      if (await this.store.get(partKey(url, copy.token, part))) continue;
      options.signal?.throwIfAborted();
      const length = partLength(copy, part);
      const bytes = await source.read(part * copy.partSize, length, options.signal);
      if (bytes.length !== length) {
        throw new Error(
          `${url}: part ${part} of the offline copy came back with ${bytes.length} of ${length} bytes`,
        );
      }
      options.signal?.throwIfAborted();
      await this.store.put(partKey(url, copy.token, part), new Blob([bytes as Uint8Array<ArrayBuffer>]));
      stored += length;
      options.onProgress?.(stored, copy.size);
    }
    // Checked whole before it counts as kept: a byte the host sent wrong (or the store lost) would otherwise be
    // found by some later question, offline, with no host to turn to.
    const failed = await this.check(url, copy);
    if (failed) {
      await this.discardPending(url);
      throw new Error(`${url}: the offline copy was not kept: ${failed}`);
    }
    const before = index.complete;
    index.complete = { ...copy, keptAt: Date.now() };
    delete index.pending;
    await this.writeIndex(index);
    if (before && before.token !== copy.token) await this.deleteParts(url, before);
    return { state: 'kept', size: copy.size, keptAt: index.complete.keptAt, current: true };
  }

  /** The complete copy of `url`, read by slices of its parts, unchecked; undefined when none is kept whole. */
  async source(url: string): Promise<RangeSource | undefined> {
    const { complete } = await this.index(url);
    return complete && this.copySource(url, complete);
  }

  /**
   * The complete copy of `url` checked whole by its digest chain; one that fails (a damaged byte, a part the browser
   * evicted) is removed, and the reason, naming the bundle, is returned instead. Undefined when none is kept whole.
   */
  async open(url: string): Promise<OpenedCopy | undefined> {
    const { complete } = await this.index(url);
    if (!complete) return undefined;
    const failed = await this.check(url, complete);
    if (!failed) return { source: (await this.copySource(url, complete))! };
    await this.forget(url, 'complete');
    return { dropped: `The offline copy of ${url} failed its check and was removed: ${failed}` };
  }

  /** Deletes what a stopped keep stored; the complete copy, if any, stays. */
  async discardPending(url: string): Promise<KeptStatus> {
    await this.forget(url, 'pending');
    return this.status(url);
  }

  /** Deletes every part and the index of `url` (a keep in progress is stopped by its signal first). */
  async remove(url: string): Promise<void> {
    const index = await this.index(url);
    for (const copy of [index.complete, index.pending]) if (copy) await this.deleteParts(url, copy);
    await this.store.delete(indexKey(url));
  }

  /** Why `copy` fails its check (a part missing, a digest that differs), or null when every byte is right. */
  private async check(url: string, copy: KeptCopy): Promise<string | null> {
    const source = await this.copySource(url, copy);
    if (!source) return 'a part of it is missing (the browser evicted it, or the keep did not store it)';
    try {
      await this.verify(source);
      return null;
    } catch (error) {
      return messageOf(error);
    }
  }

  private async copySource(url: string, copy: KeptCopy): Promise<RangeSource | undefined> {
    const parts: Blob[] = [];
    for (let part = 0; part < partCount(copy); part++) {
      const blob = await this.store.get(partKey(url, copy.token, part));
      // A part the browser evicted or lost: the copy cannot answer (the host, or a new keep, is needed).
      if (!blob || blob.size !== partLength(copy, part)) return undefined;
      parts.push(blob);
    }
    return new BlobRangeSource(parts, `${url} (kept for offline use)`, copy.partSize);
  }

  /** The host's bundle ends as the copy does: the same manifest, hence the same parts (MANIFEST_TAIL). */
  private async sameManifest(url: string, copy: KeptCopy, host: KeptHost): Promise<boolean> {
    if (copy.size < MANIFEST_TAIL || !host.read) return false;
    const mine = await (await this.copySource(url, copy))?.read(copy.size - MANIFEST_TAIL, MANIFEST_TAIL);
    if (!mine) return false;
    // A host that cannot answer these bytes is not known to serve the copy's bundle: it is read, and says why.
    const theirs = await host.read(host.size - MANIFEST_TAIL, MANIFEST_TAIL).catch(() => undefined);
    return theirs?.length === MANIFEST_TAIL && theirs.every((b, i) => b === mine[i]);
  }

  /** Deletes the complete copy, or the one a keep is storing; the other, if any, stays. */
  private async forget(url: string, which: 'complete' | 'pending'): Promise<void> {
    const index = await this.index(url);
    const copy = index[which];
    if (!copy) return;
    await this.deleteParts(url, copy);
    delete index[which];
    if (index.complete || index.pending) await this.writeIndex(index);
    else await this.store.delete(indexKey(url));
  }

  private async index(url: string): Promise<KeptIndex> {
    const blob = await this.store.get(indexKey(url));
    if (!blob) return { url };
    let value: unknown;
    try {
      value = JSON.parse(await blob.text());
    } catch {
      return { url };
    }
    const v = value as Partial<KeptIndex> | null;
    if (typeof v !== 'object' || v === null || v.url !== url) return { url };
    const complete = isCopy(v.complete) && Number.isFinite(v.complete.keptAt) ? v.complete : undefined;
    return { url, complete, pending: isCopy(v.pending) ? v.pending : undefined };
  }

  private writeIndex(index: KeptIndex): Promise<void> {
    return this.store.put(
      indexKey(index.url),
      new Blob([JSON.stringify(index)], { type: 'application/json' }),
    );
  }

  /** Bytes of `copy` stored so far. */
  private async stored(url: string, copy: KeptCopy): Promise<number> {
    let bytes = 0;
    for (let part = 0; part < partCount(copy); part++) {
      if (await this.store.get(partKey(url, copy.token, part))) bytes += partLength(copy, part);
    }
    return bytes;
  }

  private async deleteParts(url: string, copy: KeptCopy): Promise<void> {
    for (let part = 0; part < partCount(copy); part++)
      await this.store.delete(partKey(url, copy.token, part));
  }
}

/** Cache Storage of the app's origin (the page's or a worker's), under names no request of the app uses. */
export function cacheStorageParts(origin: string = self.location.origin): PartStore {
  const CACHE = 'conceptrag-kept-bundles';
  const request = (key: string): string => `${origin}/.kept-bundles/${key}`;
  return {
    async get(key) {
      const response = await (await caches.open(CACHE)).match(request(key));
      return response ? response.blob() : undefined;
    },
    async put(key, blob) {
      await (await caches.open(CACHE)).put(request(key), new Response(blob));
    },
    async delete(key) {
      await (await caches.open(CACHE)).delete(request(key));
    },
  };
}
