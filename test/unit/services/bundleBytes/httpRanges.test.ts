// A bundle read over HTTP by ranges (src/services/bundleBytes/rangeSources.ts) against the loopback static server
// (test/e2e/lib/staticServer.ts) in each of its ways of answering a request for several ranges: as nginx and Apache
// do (206 multipart/byteranges), one range only, the whole file (200, as a host that ignores the header), 416.
// Every way gives the bytes single-range reads give; a host without multi-range is remembered and read one range a
// request; a whole-file answer is aborted before its body is downloaded. The block store's reads over it take one
// request a batch of runs and check every block.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { BlockStore, PagesError } from '../../../../src/core/paged/blockStore.ts';
import { HttpRangeSource } from '../../../../src/services/bundleBytes/rangeSources.ts';
import { serveStatic, type MultiRangeMode } from '../../../e2e/lib/staticServer.ts';

const root = mkdtempSync(join(tmpdir(), 'conceptrag-http-ranges-'));
// 24 MiB: a whole-file answer that were read to its end would take far longer than the abort.
const SIZE = 24 << 20;
const data = new Uint8Array(SIZE);
for (let i = 0; i < SIZE; i++) data[i] = (i * 31 + (i >> 11)) & 0xff;
writeFileSync(join(root, 'lib.bundle'), data);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Scattered ranges, the last one far larger than a block. */
const RANGES: Array<[number, number]> = [
  [0, 12],
  [4096, 4096],
  [1_000_003, 777],
  [SIZE - 5000, 5000],
  [12_345_678, 65_536],
];

async function opened(mode: MultiRangeMode) {
  const server = await serveStatic(root, { ranges: true, multiRange: mode, log: true });
  const source = await HttpRangeSource.open(`${server.origin}/lib.bundle`);
  if (!source) throw new Error('the server did not answer a range');
  return { server, source };
}

/** fetch() counting the most requests it had out at once (`most.at`, which a test may reset). */
function countingFetch(): { counting: typeof fetch; most: { at: number } } {
  let out = 0;
  const most = { at: 0 };
  const counting: typeof fetch = async (input, init) => {
    most.at = Math.max(most.at, ++out);
    try {
      return await fetch(input, init);
    } finally {
      out--;
    }
  };
  return { counting, most };
}

function expected([offset, length]: [number, number]): Uint8Array {
  return data.subarray(offset, offset + length);
}

describe('HttpRangeSource.readRanges', () => {
  it('reads several ranges in one multipart request, the same bytes as single reads', async () => {
    const { server, source } = await opened('multipart');
    try {
      const before = source.requests;
      const many = await source.readRanges(RANGES);
      expect(source.requests - before).toBe(1);
      expect(source.multiRange).toBe(true);
      const single = await Promise.all(RANGES.map(([o, l]) => source.read(o, l)));
      for (let i = 0; i < RANGES.length; i++) {
        expect(many[i]).toEqual(expected(RANGES[i]));
        expect(many[i]).toEqual(single[i]);
      }
      expect(server.requests.filter((r) => r.ranges === RANGES.length).map((r) => r.status)).toEqual([206]);
    } finally {
      await server.close();
    }
  });

  it('measures what a part costs on the wire from a multipart answer, and counts none once read range by range', async () => {
    const { server, source } = await opened('multipart');
    try {
      // Before any multipart answer: nginx's part.
      expect(source.partBytes).toBe(90);
      await source.readRanges(RANGES);
      const [answer] = server.requests.filter((r) => r.ranges === RANGES.length);
      const data = RANGES.reduce((n, [, length]) => n + length, 0);
      // The body the server sent, less the data, a part each (the last delimiter shared among them).
      expect(source.partBytes).toBe(Math.floor((answer.bytes - data) / RANGES.length));
      expect(source.partBytes).toBeGreaterThan(60);
    } finally {
      await server.close();
    }
    const first = await opened('first');
    try {
      await first.source.readRanges(RANGES);
      expect(first.source.multiRange).toBe(false);
      expect(first.source.partBytes).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('falls back to one range a request when the host answers only the first, and remembers it', async () => {
    const { server, source } = await opened('first');
    try {
      const before = source.requests;
      const many = await source.readRanges(RANGES);
      many.forEach((bytes, i) => expect(bytes).toEqual(expected(RANGES[i])));
      // The first range came with the multi-range answer, the others one a request.
      expect(source.requests - before).toBe(RANGES.length);
      expect(source.multiRange).toBe(false);
      const again = source.requests;
      const two = await source.readRanges(RANGES.slice(0, 2));
      two.forEach((bytes, i) => expect(bytes).toEqual(expected(RANGES[i])));
      // Bytes 0–11 and 4096–8191 are 4,084 bytes apart, less than a round trip's worth (32 KiB): one request.
      expect(source.requests - again).toBe(1);
      expect(source.gapBytes).toBe(32 * 1024);
      expect(server.requests.filter((r) => r.ranges > 1)).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('aborts a whole-file (200) answer before downloading it, then reads one range a request', async () => {
    const { server, source } = await opened('whole');
    try {
      const many = await source.readRanges(RANGES);
      many.forEach((bytes, i) => expect(bytes).toEqual(expected(RANGES[i])));
      expect(source.multiRange).toBe(false);
      // The server sees the whole-file response closed before its end.
      await vi.waitFor(() => expect(server.aborted).toBe(1), { timeout: 10_000 });
      const whole = server.requests.find((r) => r.status === 200);
      expect(whole?.ranges).toBe(RANGES.length);
      // The ranges as read one a request: the first two as one, with the 4,084 bytes between them.
      expect(source.bytesRead).toBe(RANGES.reduce((n, [, l]) => n + l, 0) + 4084);
    } finally {
      await server.close();
    }
  });

  it('every request of a bundle read by ranges goes past the HTTP cache (issue 43: a replaced bundle is read anew)', async () => {
    // Before, the probe read past the cache and later reads through it: after the host replaced a cacheable bundle,
    // the probe saw the new version and the cached ranges the old one, so "reload the page" could not help.
    const server = await serveStatic(root, { ranges: true, multiRange: 'multipart' });
    const inits: RequestInit[] = [];
    const spy: typeof fetch = (input, init) => {
      inits.push(init ?? {});
      return fetch(input, init);
    };
    try {
      const source = (await HttpRangeSource.open(`${server.origin}/lib.bundle`, spy))!;
      await source.read(4096, 4096);
      await source.readRanges(RANGES);
      await source.read(12, 12);
      expect(inits.length).toBeGreaterThanOrEqual(4);
      expect(inits.map((init) => init.cache)).toEqual(inits.map(() => 'no-store'));
    } finally {
      await server.close();
    }
  });

  it('a host without ranges: open() says so, its probe stopped and sent past the HTTP cache', async () => {
    const server = await serveStatic(root, { ranges: false });
    const inits: RequestInit[] = [];
    const spy: typeof fetch = (input, init) => {
      inits.push(init ?? {});
      return fetch(input, init);
    };
    try {
      expect(await HttpRangeSource.open(`${server.origin}/lib.bundle`, spy)).toBeUndefined();
      await vi.waitFor(() => expect(server.aborted).toBe(1), { timeout: 10_000 });
      // In a browser the whole-file answer's start would be cached as a partial entry, and the download that follows
      // sent as a range to complete it: the probe must not be kept.
      expect(inits).toHaveLength(1);
      expect(inits[0].cache).toBe('no-store');
      expect(new Headers(inits[0].headers).get('range')).toBe('bytes=0-11');
    } finally {
      await server.close();
    }
  });

  it('falls back when the host refuses several ranges (416)', async () => {
    const { server, source } = await opened('refuse');
    try {
      const many = await source.readRanges(RANGES);
      many.forEach((bytes, i) => expect(bytes).toEqual(expected(RANGES[i])));
      expect(source.multiRange).toBe(false);
      // The probe, the refused request, then the five ranges in four requests (the first two as one).
      expect(server.requests.map((r) => r.status)).toEqual([206, 416, 206, 206, 206, 206]);
    } finally {
      await server.close();
    }
  });
});

describe('HttpRangeSource over HTTP/2 or HTTP/3 (its protocol)', () => {
  // What the source asks of the block store, by the host's protocol (nextHopProtocol) and whether it answers several
  // ranges a request (multiRange, learnt by the first readRanges): [gapBytes, inFlight, rangesARequest].
  const OVER_HTTP1: [number, undefined, undefined] = [32 * 1024, undefined, undefined];
  const OVER_STREAMS: [number, number, number] = [4096, 100, 1];
  const cases: Array<[string, MultiRangeMode, [number, number | undefined, number | undefined]]> = [
    ['h2', 'first', OVER_STREAMS],
    ['h3', 'first', OVER_STREAMS],
    ['h3-29', 'whole', OVER_STREAMS],
    ['http/1.1', 'first', OVER_HTTP1],
    ['', 'first', OVER_HTTP1],
    ['h2', 'multipart', [0, undefined, undefined]],
    ['http/1.1', 'multipart', [0, undefined, undefined]],
    ['', 'multipart', [0, undefined, undefined]],
  ];
  it.each(cases)(
    'protocol "%s", several ranges answered %s',
    async (protocol, mode, [gap, inFlight, perRequest]) => {
      const { server, source } = await opened(mode);
      try {
        source.protocol = protocol;
        // Not yet asked several ranges: thought to answer them, whatever the protocol (today's reads).
        expect([source.gapBytes, source.inFlight, source.rangesARequest]).toEqual([0, undefined, undefined]);
        await source.readRanges(RANGES);
        expect([source.gapBytes, source.inFlight, source.rangesARequest]).toEqual([
          gap,
          inFlight,
          perRequest,
        ]);
        if (mode === 'multipart') expect(source.partBytes).toBeGreaterThan(0);
      } finally {
        await server.close();
      }
    },
  );

  it('reads ranges more than a request apart one a request, all at once, from a one-range host over HTTP/2', async () => {
    const { server, source } = await opened('first');
    const { counting, most } = countingFetch();
    const h2 = await HttpRangeSource.open(`${server.origin}/lib.bundle`, counting);
    try {
      h2!.protocol = 'h2';
      h2!.multiRange = false;
      source.multiRange = false;
      // Two ranges 12,188 bytes apart, then two far apart.
      const ranges: Array<[number, number]> = [
        [4096, 100],
        [16_384, 100],
        [1_000_003, 777],
        [12_345_678, 65_536],
      ];
      const read = async (s: HttpRangeSource) => {
        const before = s.requests;
        const got = await s.readRanges(ranges);
        got.forEach((bytes, i) => expect(bytes).toEqual(expected(ranges[i])));
        return s.requests - before;
      };
      // The first two as one request over HTTP/1.1 (less than a round trip's worth apart), two over HTTP/2 (more than
      // a request's cost apart there), all four sent together.
      expect(await read(source)).toBe(3);
      expect(await read(h2!)).toBe(4);
      expect(most.at).toBe(4);
      expect(h2!.bytesRead).toBe(ranges.reduce((n, [, l]) => n + l, 0));
    } finally {
      await server.close();
    }
  });
});

describe('BlockStore over HTTP', () => {
  const BLOCK = 4096;
  const BASE = 8192;
  const LENGTH = 16 << 20;
  const hashes = new Uint8Array((LENGTH / BLOCK) * 32);
  for (let b = 0; b < LENGTH / BLOCK; b++) {
    const at = BASE + b * BLOCK;
    hashes.set(
      createHash('sha256')
        .update(data.subarray(at, at + BLOCK))
        .digest(),
      b * 32,
    );
  }
  // 300 blocks 11 apart, too far to merge (8): 300 runs.
  const distinct = Array.from({ length: 300 }, (_, i) => i * 12);

  it('reads a round of scattered blocks in a few multi-range requests, every block checked', async () => {
    const { server, source } = await opened('multipart');
    try {
      const store = new BlockStore(source, BASE, LENGTH, BLOCK, hashes, 'pages.bin');
      for (const b of distinct) expect(store.bytes(b * BLOCK + 5, 10)).toBeUndefined();
      const before = source.requests;
      await store.load();
      // 300 runs, at most 100 ranges a request and 6 in flight: 6 requests.
      expect(source.requests - before).toBe(6);
      for (const b of distinct) {
        expect(store.bytes(b * BLOCK + 5, 10)).toEqual(
          data.subarray(BASE + b * BLOCK + 5, BASE + b * BLOCK + 15),
        );
      }
    } finally {
      await server.close();
    }
  });

  it('reads the same blocks one range a request from a host without multi-range', async () => {
    const { server, source } = await opened('first');
    try {
      const store = new BlockStore(source, BASE, LENGTH, BLOCK, hashes, 'pages.bin');
      for (const b of distinct) expect(store.bytes(b * BLOCK, 4)).toBeUndefined();
      await store.load();
      for (const b of distinct) {
        expect(store.bytes(b * BLOCK, 4)).toEqual(data.subarray(BASE + b * BLOCK, BASE + b * BLOCK + 4));
      }
      expect(source.multiRange).toBe(false);
    } finally {
      await server.close();
    }
  });

  // 60 blocks 2 apart: within the old fixed gap (8 blocks) of each other, so that a gap read shows.
  const near = Array.from({ length: 60 }, (_, i) => 3000 + i * 2);

  it('reads no gap from a host answering multi-range requests: only the blocks wanted', async () => {
    const { server, source } = await opened('multipart');
    try {
      const store = new BlockStore(source, BASE, LENGTH, BLOCK, hashes, 'pages.bin');
      for (const b of near) store.bytes(b * BLOCK, 4);
      const before = source.bytesRead;
      await store.load();
      expect(source.gapBytes).toBe(0);
      expect(source.bytesRead - before).toBe(near.length * BLOCK);
      // The blocks between were not read.
      expect(store.bytes((near[0] + 1) * BLOCK, 4)).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('from a host without multi-range, reads ranges a round trip apart as one, then asks the store for gaps', async () => {
    const { server, source } = await opened('first');
    try {
      const store = new BlockStore(source, BASE, LENGTH, BLOCK, hashes, 'pages.bin');
      for (const b of near) store.bytes(b * BLOCK, 4);
      const before = source.requests;
      await store.load();
      // 60 runs in 6 batches, each sent as one multi-range request (answered with its first range) and the rest of
      // its ranges, 4 KiB apart, in one more request: 12, not 60.
      expect(source.requests - before).toBe(12);
      for (const b of near)
        expect(store.bytes(b * BLOCK, 4)).toEqual(data.subarray(BASE + b * BLOCK, BASE + b * BLOCK + 4));
      expect(source.gapBytes).toBe(32 * 1024);
      // Found out, the host gets runs with their gaps from the store: 60 blocks 2 apart elsewhere are one range.
      const later = near.map((b) => b + 500);
      for (const b of later) store.bytes(b * BLOCK, 4);
      const again = source.requests;
      await store.load();
      expect(source.requests - again).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('over HTTP/2, one range a request: the same blocks, a range a request, many at once', async () => {
    const { server } = await opened('first');
    const { counting, most } = countingFetch();
    const source = (await HttpRangeSource.open(`${server.origin}/lib.bundle`, counting))!;
    try {
      source.protocol = 'h2';
      // Found out already (as after a question's first multi-range request).
      await source.readRanges(RANGES);
      most.at = 0;
      const store = new BlockStore(source, BASE, LENGTH, BLOCK, hashes, 'pages.bin');
      // Blocks 12 apart (44 KiB between) and blocks 3 apart (8 KiB between: more than a request's cost over HTTP/2,
      // read through over HTTP/1.1).
      const wanted = [...distinct.slice(0, 100), ...Array.from({ length: 50 }, (_, i) => 2000 + 3 * i)];
      for (const b of wanted) store.bytes(b * BLOCK, 4);
      const before = source.requests;
      const read = source.bytesRead;
      await store.load();
      // A request a block, not 6 batches whose ranges are read one after another.
      expect(source.requests - before).toBe(wanted.length);
      expect(source.bytesRead - read).toBe(wanted.length * BLOCK);
      expect(most.at).toBeGreaterThan(6);
      expect(most.at).toBeLessThanOrEqual(100);
      for (const b of wanted)
        expect(store.bytes(b * BLOCK, 4)).toEqual(data.subarray(BASE + b * BLOCK, BASE + b * BLOCK + 4));
    } finally {
      await server.close();
    }
  });

  it('refuses a block whose bytes do not match its hash', async () => {
    const { server, source } = await opened('multipart');
    try {
      const bad = hashes.slice();
      bad[distinct[100] * 32] ^= 1;
      const store = new BlockStore(source, BASE, LENGTH, BLOCK, bad, 'pages.bin');
      for (const b of distinct) store.bytes(b * BLOCK, 4);
      const failed = store.load();
      await expect(failed).rejects.toThrow(PagesError);
      await expect(failed).rejects.toThrow(`SHA-256 mismatch in block ${distinct[100]} of part pages.bin`);
      // Nothing of the run that failed is kept.
      expect(store.bytes(distinct[100] * BLOCK, 4)).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
