// The loopback host and Chromium a link bench asks through (link-timeline.ts, link-cpu-profile.ts): the e2e's static
// server answering ranges as a multi-range host does (`multipart`) or one range a request (`first`), over HTTP/1.1 or,
// with `http2`, HTTP/2 and TLS (Chromium told to accept its certificate); requests to other origins recorded, not
// stopped (browser.ts).
import { openHarness } from '../../e2e/lib/harness.ts';
import { certificateArgs, serveStatic, type StaticServer } from '../../e2e/lib/staticServer.ts';

export async function openLinkHost(
  dist: string,
  bench: string,
  multiRange: string,
  http2: boolean,
): Promise<{ server: StaticServer } & Awaited<ReturnType<typeof openHarness>>> {
  if (multiRange !== 'multipart' && multiRange !== 'first')
    throw new Error(`${bench}.ts: --multi-range is multipart or first`);
  const server = await serveStatic(dist, { ranges: true, multiRange, http2 });
  const opened = await openHarness(server.origin, dist, bench, false, certificateArgs(server));
  return { server, ...opened };
}
