// A shared index read by ranges, kept for offline use (src/services/bundleBytes/keptBundles.ts): kept part by part, a
// keep stopped half-way goes on from the parts it stored, a newer version replaces the copy only once complete, a
// cancelled keep leaves nothing, and with the host unreachable `?bundle=` opens the copy and answers as the file.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
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

/** The parts' tests keep random bytes, not a bundle: no digest chain to check (the bundles' tests below check it). */
const anyBytes = (): Promise<void> => Promise.resolve();

describe('KeptBundles', () => {
  it('keeps a bundle in parts and reads any range of it back, across parts', async () => {
    const bytes = randomBytes(10_500, 1);
    const store = new MapParts();
    const kept = new KeptBundles(store, 1000, anyBytes);
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
    const kept = new KeptBundles(store, 1000, anyBytes);
    const flaky = host(bytes, '"v1"', 3000);
    await expect(kept.keep(URL_A, flaky)).rejects.toThrow('connection reset');
    expect(await kept.status(URL_A)).toEqual({ state: 'partial', stored: 3000, size: 5000 });
    expect(await kept.source(URL_A)).toBeUndefined();
    // A new page (a reload): a new KeptBundles over the same store.
    const again = host(bytes, '"v1"');
    await new KeptBundles(store, 1000, anyBytes).keep(URL_A, again);
    expect(again.reads).toEqual([3000, 4000]);
    expect(await (await kept.source(URL_A))!.read(0, 5000)).toEqual(bytes);
  });

  it('a newer version replaces the copy only once it is complete; the old one answers until then', async () => {
    const v1 = randomBytes(4_000, 3);
    const v2 = randomBytes(4_500, 4);
    const store = new MapParts();
    const kept = new KeptBundles(store, 1000, anyBytes);
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
    const kept = new KeptBundles(store, 1000, anyBytes);
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
    const kept = new KeptBundles(new MapParts(), 1000, anyBytes);
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
    const kept = new KeptBundles(store, 1000, anyBytes);
    await kept.keep(URL_A, host(bytes, '"v1"'));
    await store.delete(store.parts()[1]);
    expect(await kept.source(URL_A)).toBeUndefined();
    // Opened, it is removed, saying why (else it would sit in the browser, neither readable nor listed).
    expect(await kept.open(URL_A)).toEqual({
      dropped: `The offline copy of ${URL_A} failed its check and was removed: a part of it is missing (the browser evicted it, or the keep did not store it)`,
    });
    expect(store.blobs.size).toBe(0);
    await kept.keep(URL_A, host(bytes, '"v1"'));
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
        read: (offset, length) => source.read(offset, length),
      });
      expect(store.parts().length).toBeGreaterThan(1);

      // Online, the host serving the version kept: read from the copy, the host sent only the opening's small reads.
      const servedBefore = server.served.get('/pages.bundle') ?? 0;
      const current = (await new BundleAtUrl(fetch, kept).pages(url))!;
      expect(current).toMatchObject({ fromOfflineCopy: true, offlineCopy: { state: 'kept', current: true } });
      await pagedHits(current.bundle.library, QUESTIONS);
      // Its 12 bytes, and the last 44 that tell the copy's manifest is the host's (the copy is current).
      expect((server.served.get('/pages.bundle') ?? 0) - servedBefore).toBe(12 + 44);

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

  /** Keeps the bundle at `url` in `kept` from its host (parts of 64 KiB: it spans several). */
  async function keepFromHost(kept: KeptBundles, url: string): Promise<void> {
    const source = (await HttpRangeSource.open(url))!;
    await kept.keep(url, {
      size: source.size,
      version: source.version,
      read: (offset, length) => source.read(offset, length),
    });
  }

  /** One byte of the stored copy changed, at `offset` of the bundle (the part that holds it is stored again). */
  async function damage(store: MapParts, offset: number, partSize: number): Promise<void> {
    const key = store.parts().find((k) => k.endsWith(`/${Math.floor(offset / partSize)}`))!;
    const bytes = new Uint8Array(await store.blobs.get(key)!.arrayBuffer());
    bytes[offset % partSize] ^= 0x5a;
    await store.put(key, new Blob([bytes]));
  }

  it('a damaged byte in a kept copy: removed when opened, naming the bundle and why, and the host answers', async () => {
    const server = await serveStatic(work, { ranges: true });
    try {
      const url = `${server.origin}/pages.bundle`;
      const file = await FileRangeSource.open(join(work, 'pages.bundle'));
      let honest: Awaited<ReturnType<typeof pagedHits>>;
      let middle: number;
      try {
        const bundle = (await openPagedBundle(file, createTermAnalyzer()))!;
        honest = await pagedHits(bundle.library, QUESTIONS);
        // A byte in the middle of the pages part: no block the opening reads (nor, likely, these questions).
        const pages = bundle.manifest.parts.find((p) => p.name === 'pages.bin')!;
        middle = pages.offset! + Math.floor(pages.length / 2);
      } finally {
        await file.close();
      }
      const partSize = 64 * 1024;
      for (const online of [true, false]) {
        const store = new MapParts();
        const kept = new KeptBundles(store, partSize);
        await keepFromHost(kept, url);
        await damage(store, middle, partSize);
        const offline: typeof fetch = () => Promise.reject(new TypeError('Failed to fetch'));
        const at = new BundleAtUrl(online ? fetch : offline, kept).pages(url);
        if (!online) {
          // Offline, the host cannot answer instead: the bundle does not open, and says why the copy went.
          await expect(at).rejects.toThrow(
            `The offline copy of ${url} failed its check and was removed: bundle: corrupted (block `,
          );
        } else {
          const opened = (await at)!;
          expect(opened.fromOfflineCopy, 'read from the damaged copy').toBeUndefined();
          expect(opened.offlineCopyDropped).toMatch(
            `The offline copy of ${url} failed its check and was removed: bundle: corrupted (block`,
          );
          expect(opened.offlineCopy).toMatchObject({ state: 'none' });
          // The host's answers, as the file's.
          expect(await pagedHits(opened.bundle.library, QUESTIONS)).toEqual(honest!);
        }
        expect(store.blobs.size, `${online ? 'online' : 'offline'}: parts left of the damaged copy`).toBe(0);
      }
    } finally {
      await server.close();
    }
  });

  it('a keep the host answers with a wrong byte is not kept, and says which part', async () => {
    const server = await serveStatic(work, { ranges: true });
    try {
      const url = `${server.origin}/pages.bundle`;
      const source = (await HttpRangeSource.open(url))!;
      const store = new MapParts();
      const kept = new KeptBundles(store, 64 * 1024);
      // The host sends one wrong byte in the last part (its manifest: the copy would not even open).
      const wrongAt = source.size - 100;
      const keeping = kept.keep(url, {
        size: source.size,
        version: source.version,
        read: async (offset, length) => {
          const bytes = (await source.read(offset, length)).slice();
          if (wrongAt >= offset && wrongAt < offset + length) bytes[wrongAt - offset] ^= 1;
          return bytes;
        },
      });
      await expect(keeping).rejects.toThrow(`${url}: the offline copy was not kept: bundle: corrupted (`);
      expect(await kept.status(url)).toEqual({ state: 'none' });
      expect(store.blobs.size).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('a same-size replacement under the same version is not current (its manifest differs): the host answers', async () => {
    // The bundle, and the same bundle stamped at another time: the same size, another manifest (its digest too).
    const bytesA = await readFile(join(work, 'pages.bundle'));
    const bytesB = restamped(bytesA, '2020-01-01T00:00:00.000Z');
    expect(bytesB.length, 'the two have one size').toBe(bytesA.length);
    expect(Buffer.compare(bytesA, bytesB), 'the two differ').not.toBe(0);
    const served = join(work, 'same.bundle');
    const stamp = new Date('2026-01-01T00:00:00Z');
    await writeFile(served, bytesA);
    await utimes(served, stamp, stamp);
    const server = await serveStatic(work, { ranges: true });
    try {
      const url = `${server.origin}/same.bundle`;
      const kept = new KeptBundles(new MapParts(), 64 * 1024);
      await keepFromHost(kept, url);
      const before = (await HttpRangeSource.open(url))!;
      expect(await kept.status(url, before)).toMatchObject({ state: 'kept', current: true });
      // Replaced in place: the same size and Last-Modified (the host's version), another bundle.
      await writeFile(served, bytesB);
      await utimes(served, stamp, stamp);
      const after = (await HttpRangeSource.open(url))!;
      expect([after.size, after.version]).toEqual([before.size, before.version]);
      expect(await kept.status(url, after)).toMatchObject({ state: 'kept', current: false });
      const opened = (await new BundleAtUrl(fetch, kept).pages(url))!;
      expect(opened.fromOfflineCopy, 'read from the stale copy').toBeUndefined();
      expect(opened.bundle.manifest.createdAt).toBe(JSON.parse(manifestJson(bytesB)).createdAt);
    } finally {
      await server.close();
    }
  });
});

/** Where a version 3 bundle's manifest JSON lies, found by its locator. */
function manifestAt(bytes: Uint8Array): { at: number; length: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const at = view.getUint32(bytes.length - 12, true) + view.getUint32(bytes.length - 8, true) * 2 ** 32;
  return { at: at + 12, length: view.getUint32(at + 4, true) };
}

/** The bundle with its manifest's createdAt replaced by one as long, and the manifest's SHA-256 written anew. */
function restamped(bytes: Uint8Array, createdAt: string): Uint8Array {
  const { at, length } = manifestAt(bytes);
  const manifest = JSON.parse(manifestJson(bytes)) as { createdAt: string };
  expect(createdAt.length).toBe(manifest.createdAt.length);
  const json = new TextEncoder().encode(JSON.stringify({ ...manifest, createdAt }));
  expect(json.length, 'the manifest rewritten as long').toBe(length);
  const out = Uint8Array.from(bytes);
  out.set(json, at);
  out.set(createHash('sha256').update(json).digest(), at + length);
  return out;
}

/** A version 3 bundle's manifest JSON, found by its locator. */
function manifestJson(bytes: Uint8Array): string {
  const { at, length } = manifestAt(bytes);
  return new TextDecoder().decode(bytes.subarray(at, at + length));
}
