// A shared index read by ranges, kept for offline use (src/services/bundleBytes/keptBundles.ts): kept part by part, a
// keep stopped half-way goes on from the parts it stored, a newer version replaces the copy only once complete, a
// cancelled keep leaves nothing, and with the host unreachable `?bundle=` opens the copy and answers as the file.
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileRangeSource } from '../../../../src/cli/fileRangeSource.ts';
import { run as index } from '../../../../src/cli/index.ts';
import { openPagedBundle } from '../../../../src/core/paged/index.ts';
import { createTermAnalyzer } from '../../../../src/core/text/index.ts';
import { BundleAtUrl } from '../../../../src/services/bundleBytes/bundleAtUrl.ts';
import {
  KeptBundles,
  type KeepSource,
  type PartStore,
} from '../../../../src/services/bundleBytes/keptBundles.ts';
import { HttpRangeSource } from '../../../../src/services/bundleBytes/rangeSources.ts';
import { captureCli as capture } from '../../../support/captureCli.ts';
import { pagedHits } from '../../../support/pagedLibraries.ts';
import { seededRandom } from '../../../support/seededRandom.ts';
import { serveStatic } from '../../../e2e/lib/staticServer.ts';
import { RANGES_PAGE } from '../../../support/repoDocs.ts';

/** Parts in memory, as Cache Storage holds them in the browser; counts what is asked of it. */
class MapParts implements PartStore {
  readonly blobs = new Map<string, Blob>();
  async get(key: string): Promise<Blob | undefined> {
    return this.blobs.get(key);
  }
  async put(key: string, blob: Blob): Promise<void> {
    this.blobs.set(key, blob);
  }
  async delete(key: string): Promise<void> {
    this.blobs.delete(key);
  }
  /** Part keys (every key but the index). */
  parts(): string[] {
    return [...this.blobs.keys()].filter((k) => !k.endsWith('/index'));
  }
}

/** A host's bytes with its version; fails once at `failAt` (a part's offset), counting each read's offset. */
function host(bytes: Uint8Array, version: string | null, failAt?: number): KeepSource & { reads: number[] } {
  let failed = false;
  const reads: number[] = [];
  return {
    size: bytes.length,
    version,
    reads,
    async read(offset, length) {
      if (offset === failAt && !failed) {
        failed = true;
        throw new Error('connection reset');
      }
      reads.push(offset);
      return bytes.slice(offset, offset + length);
    },
  };
}

function randomBytes(n: number, seed: number): Uint8Array {
  const random = seededRandom(seed);
  return Uint8Array.from({ length: n }, () => Math.floor(random() * 256));
}

const URL_A = 'https://example.test/team/shared.bundle';

describe('KeptBundles', () => {
  it('keeps a bundle in parts and reads any range of it back, across parts', async () => {
    const bytes = randomBytes(10_500, 1);
    const store = new MapParts();
    const kept = new KeptBundles(store, 1000);
    expect(await kept.status(URL_A, { size: bytes.length, version: '"v1"' })).toEqual({
      state: 'none',
      size: bytes.length,
    });
    const progress: number[] = [];
    const status = await kept.keep(URL_A, host(bytes, '"v1"'), {
      onProgress: (stored) => progress.push(stored),
    });
    expect(status).toMatchObject({ state: 'kept', size: bytes.length, current: true });
    expect(store.parts()).toHaveLength(11);
    expect(progress.at(-1)).toBe(bytes.length);
    const source = (await kept.source(URL_A))!;
    expect(source.size).toBe(bytes.length);
    for (const [offset, length] of [
      [0, 12],
      [990, 20],
      [1500, 3000],
      [10_000, 500],
      [0, 10_500],
      [4321, 0],
    ]) {
      expect(await source.read(offset, length), `${length} bytes at ${offset}`).toEqual(
        bytes.subarray(offset, offset + length),
      );
    }
    await expect(source.read(10_400, 200)).rejects.toThrow('200 bytes at 10400 are past its end');
    // The host states the same bundle: current; another version or size: not; no version: not known.
    expect(await kept.status(URL_A, { size: bytes.length, version: '"v1"' })).toMatchObject({
      current: true,
    });
    expect(await kept.status(URL_A, { size: bytes.length, version: '"v2"' })).toMatchObject({
      current: false,
    });
    expect(await kept.status(URL_A, { size: 99, version: '"v1"' })).toMatchObject({ current: false });
    expect(await kept.status(URL_A, { size: bytes.length, version: null })).toMatchObject({ current: null });
    expect(await kept.status(URL_A)).toMatchObject({ state: 'kept', current: null });
  });

  it('a keep stopped half-way goes on from the parts it stored, reading none of them again', async () => {
    const bytes = randomBytes(5_000, 2);
    const store = new MapParts();
    const kept = new KeptBundles(store, 1000);
    const flaky = host(bytes, '"v1"', 3000);
    await expect(kept.keep(URL_A, flaky)).rejects.toThrow('connection reset');
    expect(await kept.status(URL_A)).toEqual({ state: 'partial', stored: 3000, size: 5000 });
    expect(await kept.source(URL_A)).toBeUndefined();
    // A new page (a reload): a new KeptBundles over the same store.
    const again = host(bytes, '"v1"');
    await new KeptBundles(store, 1000).keep(URL_A, again);
    expect(again.reads).toEqual([3000, 4000]);
    expect(await (await kept.source(URL_A))!.read(0, 5000)).toEqual(bytes);
  });

  it('a newer version replaces the copy only once it is complete; the old one answers until then', async () => {
    const v1 = randomBytes(4_000, 3);
    const v2 = randomBytes(4_500, 4);
    const store = new MapParts();
    const kept = new KeptBundles(store, 1000);
    await kept.keep(URL_A, host(v1, '"v1"'));
    const partsV1 = store.parts();
    await expect(kept.keep(URL_A, host(v2, '"v2"', 2000))).rejects.toThrow('connection reset');
    // Offline meanwhile: the complete copy of v1 opens.
    expect(await (await kept.source(URL_A))!.read(0, 4000)).toEqual(v1);
    expect(await kept.status(URL_A)).toMatchObject({ state: 'kept', size: 4000 });
    expect(await kept.status(URL_A, { size: 4500, version: '"v2"' })).toEqual({
      state: 'partial',
      stored: 2000,
      size: 4500,
    });
    await kept.keep(URL_A, host(v2, '"v2"'));
    expect(await (await kept.source(URL_A))!.read(0, 4500)).toEqual(v2);
    // v1's parts are gone, v2's five remain.
    expect(store.parts().filter((k) => partsV1.includes(k))).toEqual([]);
    expect(store.parts()).toHaveLength(5);
  });

  it('a cancelled keep leaves nothing of itself; Remove deletes the copy', async () => {
    const bytes = randomBytes(3_000, 5);
    const store = new MapParts();
    const kept = new KeptBundles(store, 1000);
    const stop = new AbortController();
    const keeping = kept.keep(URL_A, host(bytes, null), {
      onProgress: (stored) => {
        if (stored >= 1000) stop.abort(new Error('cancelled'));
      },
      signal: stop.signal,
    });
    await expect(keeping).rejects.toThrow('cancelled');
    expect(await kept.discardPending(URL_A)).toEqual({ state: 'none' });
    expect(store.blobs.size).toBe(0);
    await kept.keep(URL_A, host(bytes, null));
    await kept.remove(URL_A);
    expect(store.blobs.size).toBe(0);
    expect(await kept.source(URL_A)).toBeUndefined();
  });

  it('Cancel stops the part on its way, not only the parts after it', async () => {
    const kept = new KeptBundles(new MapParts(), 1000);
    const stop = new AbortController();
    // A host that never answers, cancelled once the first part is asked for: only the signal ends that read.
    const silent: KeepSource = {
      size: 3000,
      version: null,
      read: (_offset, _length, signal) => {
        setTimeout(() => stop.abort(new Error('cancelled')), 0);
        return new Promise((_, reject) =>
          signal?.addEventListener('abort', () => reject(signal.reason as Error)),
        );
      },
    };
    await expect(kept.keep(URL_A, silent, { signal: stop.signal })).rejects.toThrow('cancelled');
  });

  it('a part the browser lost: the copy does not open (it is not read short)', async () => {
    const bytes = randomBytes(3_000, 6);
    const store = new MapParts();
    const kept = new KeptBundles(store, 1000);
    await kept.keep(URL_A, host(bytes, '"v1"'));
    await store.delete(store.parts()[1]);
    expect(await kept.source(URL_A)).toBeUndefined();
    // A damaged index is no copy at all.
    for (const key of store.blobs.keys()) {
      if (key.endsWith('/index')) await store.put(key, new Blob(['{"url": 12']));
    }
    expect(await kept.status(URL_A)).toEqual({ state: 'none' });
  });
});

describe('?bundle= of a kept bundle with its host unreachable', () => {
  let work = '';
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'kept-bundles-'));
    const built = await capture(() =>
      index([RANGES_PAGE, '--out', join(work, 'pages.bundle'), '--embedder', 'none', '--pages', '--quiet']),
    );
    if (built.code !== 0) throw new Error(`cli index: ${built.err}`);
  }, 120_000);
  afterAll(() => rm(work, { recursive: true, force: true }));

  const QUESTIONS = [
    'How is a bundle read by ranges checked against damage?',
    'Which host answers several ranges?',
  ];

  it('reads the copy kept from its host by ranges while current, and whenever the host is unreachable; unkept, it says so', async () => {
    const server = await serveStatic(work, { ranges: true });
    try {
      const url = `${server.origin}/pages.bundle`;
      const store = new MapParts();
      // Parts of 64 KiB: the bundle spans several, so the opening and the questions read across parts.
      const kept = new KeptBundles(store, 64 * 1024);
      const online = await new BundleAtUrl(fetch, kept).pages(url);
      expect(online).toMatchObject({ downloaded: false, offlineCopy: { state: 'none' } });
      const source = (await HttpRangeSource.open(url))!;
      await kept.keep(url, {
        size: source.size,
        version: source.version,
        read: (offset, length) => source.readUncached(offset, length),
      });
      expect(store.parts().length).toBeGreaterThan(1);

      // Online, the host serving the version kept: read from the copy, the host sent only the probe's 12 bytes.
      const servedBefore = server.served.get('/pages.bundle') ?? 0;
      const current = (await new BundleAtUrl(fetch, kept).pages(url))!;
      expect(current).toMatchObject({ fromOfflineCopy: true, offlineCopy: { state: 'kept', current: true } });
      await pagedHits(current.bundle.library, QUESTIONS);
      expect((server.served.get('/pages.bundle') ?? 0) - servedBefore).toBe(12);

      // Offline: no request gets an answer (the service worker has no copy of a bundle read by ranges).
      const offline: typeof fetch = () => Promise.reject(new TypeError('Failed to fetch'));
      const served = server.served.get('/pages.bundle');
      const at = (await new BundleAtUrl(offline, kept).pages(url))!;
      expect(at).toMatchObject({ downloaded: false, fromOfflineCopy: true, offlineCopy: { state: 'kept' } });
      const file = await FileRangeSource.open(join(work, 'pages.bundle'));
      try {
        const fromFile = await pagedHits(
          (await openPagedBundle(file, createTermAnalyzer()))!.library,
          QUESTIONS,
        );
        expect(await pagedHits(at.bundle.library, QUESTIONS)).toEqual(fromFile);
      } finally {
        await file.close();
      }
      expect(server.served.get('/pages.bundle')).toBe(served);
      // The host's file changes (its Last-Modified): online, the host is read and the copy is of an older version;
      // offline, the copy still answers.
      const later = new Date(Date.now() + 60_000);
      await utimes(join(work, 'pages.bundle'), later, later);
      const changed = (await new BundleAtUrl(fetch, kept).pages(url))!;
      expect(changed.fromOfflineCopy).toBeUndefined();
      expect(changed.offlineCopy).toMatchObject({ state: 'kept', current: false });
      expect(await new BundleAtUrl(offline, kept).pages(url)).toMatchObject({ fromOfflineCopy: true });
      // Not kept: the whole download is tried (a service worker's copy), and fails as the network does.
      await kept.remove(url);
      await expect(new BundleAtUrl(offline, kept).pages(url)).rejects.toThrow(
        `${url} cannot be reached (is the network off?), and this browser keeps no copy of it`,
      );
    } finally {
      await server.close();
    }
  });
});
