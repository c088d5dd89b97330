// A same-origin bundle link whose host answers 302 to another origin (issue 43, MED 6): the range probe, a range read
// after a good probe, and the whole download each refuse the answer by the URL it came from, naming both; the foreign
// bundle is never opened under the link's name. Two loopback hosts: the app's, and a stranger's serving a real bundle.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleAtUrl } from '../../../../src/services/bundleBytes/bundleAtUrl.ts';
import { HttpRangeSource } from '../../../../src/services/bundleBytes/rangeSources.ts';
import { openBundleReadOnly } from '../../../../src/services/bundleBytes/bundleFetch.ts';
import { honestPages, pagesBundle } from '../../../support/hostilePages.ts';

let bundle: Uint8Array;
let stranger: Server;
let app: Server;
let strangerOrigin = '';
let appOrigin = '';
/** What the app's host does with the bundle path: serve it (probe first), or redirect to the stranger. */
let redirectAfter = 0;
let answered = 0;
let strangerRequests = 0;

function listen(server: Server): Promise<string> {
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () => done(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

/** Serves `bundle` with single ranges (206) or whole (200), to any origin. */
function serve(
  req: { headers: Record<string, string | string[] | undefined> },
  res: import('node:http').ServerResponse,
) {
  const range = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range ?? ''));
  const headers = { 'access-control-allow-origin': '*', etag: '"same"' };
  if (!range) {
    res.writeHead(200, { ...headers, 'content-length': bundle.length });
    res.end(bundle);
    return;
  }
  const [from, to] = [Number(range[1]), Math.min(Number(range[2]), bundle.length - 1)];
  res.writeHead(206, { ...headers, 'content-range': `bytes ${from}-${to}/${bundle.length}` });
  res.end(bundle.subarray(from, to + 1));
}

beforeAll(async () => {
  bundle = await pagesBundle(await honestPages());
  stranger = createServer((req, res) => {
    strangerRequests++;
    serve(req, res);
  });
  strangerOrigin = await listen(stranger);
  // localhost, not 127.0.0.1: another origin on the same machine.
  strangerOrigin = strangerOrigin.replace('127.0.0.1', 'localhost');
  app = createServer((req, res) => {
    if (answered++ >= redirectAfter) {
      res.writeHead(302, { location: `${strangerOrigin}/lib.bundle` });
      res.end();
    } else serve(req, res);
  });
  appOrigin = await listen(app);
});
afterAll(() => {
  stranger.close();
  app.close();
});

const redirected =
  /redirected to http:\/\/localhost:\d+, another origin; a bundle link is read from this app's origin only/;

/**
 * fetch as a runtime that ignores the `same-origin` mode (follows the redirect): what the check on response.url is
 * for. The platform's own fetch refuses such a redirect before it reaches the stranger (checked first below).
 */
const followingFetch: typeof fetch = (input, init) => fetch(input, { ...init, mode: undefined });

describe('a bundle link redirected to another origin', () => {
  it('is refused by the range probe, and the stranger is not asked for a byte', async () => {
    redirectAfter = answered;
    const before = strangerRequests;
    await expect(HttpRangeSource.open(`${appOrigin}/lib.bundle`)).rejects.toThrow();
    expect(strangerRequests).toBe(before);
    await expect(HttpRangeSource.open(`${appOrigin}/lib.bundle`, followingFetch)).rejects.toThrow(redirected);
  });

  it('is refused by a range read after a good probe (the host changed between requests)', async () => {
    redirectAfter = answered + 1;
    const source = await HttpRangeSource.open(`${appOrigin}/lib.bundle`, followingFetch);
    expect(source?.size).toBe(bundle.length);
    await expect(source!.read(0, 100)).rejects.toThrow(redirected);
  });

  it('is refused by the Library view’s open and by the whole download', async () => {
    redirectAfter = answered;
    await expect(new BundleAtUrl().pages(`${appOrigin}/lib.bundle`)).rejects.toThrow(redirected);
    redirectAfter = answered;
    await expect(openBundleReadOnly('/lib.bundle', appOrigin)).rejects.toThrow(redirected);
  });
});
