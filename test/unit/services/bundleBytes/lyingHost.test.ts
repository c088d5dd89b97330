// The range reader against a host that lies (issue 43, LOW): each lie is refused with the URL and the reason, in
// bounded time, reading at most what was asked. Before: an endless 206 or a gzip bomb was read whole (2.5–2.8 GB),
// a silent host hung the question forever, and the multipart boundary had no cap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpRangeSource } from '../../../../src/services/bundleBytes/rangeSources.ts';
import { lyingHost, type LyingHost } from '../../../support/lyingHost.ts';

const bytes = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 31) & 0xff);
let host: LyingHost;
beforeAll(async () => {
  host = await lyingHost(bytes);
});
afterAll(() => host.close());

async function opened(): Promise<HttpRangeSource> {
  host.lie('none');
  const source = await HttpRangeSource.open(`${host.origin}/lib.bundle`);
  if (!source) throw new Error('no ranges');
  return source;
}

describe('the range reader against a lying host', () => {
  it('reads honest ranges', async () => {
    const source = await opened();
    expect(await source.read(1000, 50)).toEqual(bytes.subarray(1000, 1050));
  });

  it('stops an endless 206 at the length asked', async () => {
    const source = await opened();
    host.lie('endless');
    await expect(source.read(0, 100)).rejects.toThrow(
      /lib\.bundle: a range answer ran past the 100 bytes asked/,
    );
  });

  it('stops a gzip bomb at the length asked', async () => {
    const source = await opened();
    host.lie('gzip-bomb');
    await expect(source.read(0, 4096)).rejects.toThrow(/ran past the 4096 bytes asked/);
  });

  it('gives up on a host that does not answer, naming the time limit', async () => {
    const source = await opened();
    source.timeLimitMs = 300;
    host.lie('silent');
    await expect(source.read(0, 100)).rejects.toThrow(/lib\.bundle: no answer to a range request in 0\.3 s/);
  });

  it('stops at Cancel', async () => {
    const source = await opened();
    host.lie('silent');
    const cancel = new AbortController();
    const reading = source.read(0, 100, cancel.signal);
    cancel.abort();
    await expect(reading).rejects.toThrow();
  });

  it('refuses a multipart boundary longer than RFC 2046 allows', async () => {
    const source = await opened();
    host.lie('long-boundary');
    await expect(
      source.readRanges([
        [0, 10],
        [5000, 10],
      ]),
    ).rejects.toThrow(/a boundary of 4000 characters \(at most 70\)/);
  });

  it('refuses a wrong Content-Range, a short body and a bundle changed since it was opened', async () => {
    const source = await opened();
    host.lie('short');
    await expect(source.read(0, 100)).rejects.toThrow(/asked for 100 bytes at 0, got 99/);
    host.lie('changed');
    await expect(source.read(0, 100)).rejects.toThrow(/the bundle changed on the server/);
    host.lie('wrong-range');
    await expect(source.read(0, 100)).rejects.toThrow(/asked for bytes 0-99, answered 1-100/);
  });
});
