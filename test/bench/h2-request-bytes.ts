// What a range request costs on the wire over HTTP/2 beyond its data (issue 47, round twenty-three: a host answering one
// range a request over HTTP/2 multiplexes many on one connection, where a request costs its headers rather than a
// round trip). Counted on the TCP socket under TLS (what the link carries: TLS records, HTTP/2 frames, HPACK-coded
// headers), after a warm-up that fills both HPACK tables with the headers every request repeats:
// - up: bytes the client sent a request (its HEADERS frame and TLS record, the connection's WINDOW_UPDATEs);
// - down: bytes the server sent a request less the range's data (its HEADERS, the DATA frames' headers, TLS records).
// Two hosts: the e2e's static server over HTTP/2 (test/e2e/lib/staticServer.ts: our security headers, Last-Modified)
// and one answering with the headers of an answer from Amazon CloudFront in front of S3 (names and shapes as a
// CloudFront answer carries them: x-amz-cf-id a new random id each answer, x-cache, via, x-amz-cf-pop, age), whose
// per-answer values HPACK cannot index. The request's headers are those Chromium sends for the app's range fetch()
// from a dedicated worker (mode same-origin, cache no-store), its range a new value each time.
// Requests are sent one at a time (each its own TLS records) and `--parallel` at once (frames share records).
// Usage: node --import tsx test/bench/h2-request-bytes.ts [--n 400] [--length 2048] [--parallel 64]
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect as http2Connect, createSecureServer, type IncomingHttpHeaders } from 'node:http2';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { selfSignedCertificate, serveStatic } from '../e2e/lib/staticServer.ts';
import { arg } from './lib/args.ts';

const N = Number(arg('n', '400'));
const LENGTH = Number(arg('length', '2048'));
const PARALLEL = Number(arg('parallel', '64'));
const FILE_BYTES = 64 << 20;

/** Chromium 156's headers for the app's fetch(url, { headers: { Range }, mode: 'same-origin', cache: 'no-store' }). */
function chromiumHeaders(origin: string, path: string, range: string): Record<string, string> {
  return {
    ':method': 'GET',
    ':authority': new URL(origin).host,
    ':scheme': 'https',
    ':path': path,
    pragma: 'no-cache',
    'cache-control': 'no-cache',
    'sec-ch-ua-platform': '"Linux"',
    'user-agent':
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
    'sec-ch-ua': '"Not)A;Brand";v="8", "Chromium";v="156"',
    'sec-ch-ua-mobile': '?0',
    range,
    accept: '*/*',
    'sec-fetch-site': 'same-origin',
    'sec-fetch-mode': 'same-origin',
    'sec-fetch-dest': 'empty',
    referer: `${origin}/assets/queryWorker-abc123.js`,
    'accept-encoding': 'gzip, deflate, br, zstd',
    'accept-language': 'en-US,en;q=0.9',
    priority: 'u=1, i',
  };
}

/** A server answering ranges with the headers of CloudFront in front of S3 (one range a request). */
async function cloudFrontLike(file: Uint8Array): Promise<{ origin: string; close(): Promise<void> }> {
  const { key, cert } = await selfSignedCertificate();
  const server = createSecureServer({ key, cert }, (req, res) => {
    const m = /^bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
    const [start, end] = m ? [Number(m[1]), Number(m[2])] : [0, file.length - 1];
    res.writeHead(206, {
      'content-type': 'application/octet-stream',
      'content-length': end - start + 1,
      'content-range': `bytes ${start}-${end}/${file.length}`,
      date: new Date().toUTCString(),
      'last-modified': 'Sun, 06 Dec 2026 12:00:00 GMT',
      etag: '"3f9a0c1e5b7d2a4c6e8f0a1b2c3d4e5f"',
      'x-amz-server-side-encryption': 'AES256',
      'accept-ranges': 'bytes',
      server: 'AmazonS3',
      'x-cache': 'Hit from cloudfront',
      // One edge serves a connection: the same via each answer.
      via: '1.1 4f1c9e2b7a3d5e6f8a9b0c1d2e3f4a5b.cloudfront.net (CloudFront)',
      'x-amz-cf-pop': 'FRA56-P5',
      'x-amz-cf-id': randomBytes(42).toString('base64url').slice(0, 56),
      age: String(Math.floor(Math.random() * 5000)),
    });
    res.end(file.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `https://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Counted {
  up: number;
  down: number;
  data: number;
}

async function measure(origin: string, path: string): Promise<{ serial: Counted; parallel: Counted }> {
  const { port } = new URL(origin);
  const raw: Socket = netConnect(Number(port), '127.0.0.1');
  await new Promise((resolve) => raw.once('connect', resolve));
  const secure = tlsConnect({ socket: raw, ALPNProtocols: ['h2'], rejectUnauthorized: false });
  await new Promise((resolve) => secure.once('secureConnect', resolve));
  const session = http2Connect(origin, { createConnection: () => secure });
  let at = 0;
  const get = (length: number) =>
    new Promise<number>((resolve, reject) => {
      // A new offset each request, as a question's ranges are.
      const start = (at = (at + 7_919 * 4096 + 13) % (FILE_BYTES - length));
      const stream = session.request(chromiumHeaders(origin, path, `bytes=${start}-${start + length - 1}`));
      let bytes = 0;
      stream.on('response', (headers: IncomingHttpHeaders) => {
        if (Number(headers[':status']) !== 206)
          reject(new Error(`${origin}: answered ${headers[':status']}`));
      });
      stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
      stream.on('end', () => resolve(bytes));
      stream.on('error', reject);
      stream.end();
    });
  // Warm-up: the HPACK tables learn what repeats (the first request's headers cost their full text).
  for (let i = 0; i < 20; i++) await get(LENGTH);
  const count = async (run: () => Promise<number>): Promise<Counted> => {
    const up = raw.bytesWritten;
    const down = raw.bytesRead;
    const data = await run();
    // Let the last frames (WINDOW_UPDATE, SETTINGS acks) land before counting.
    await new Promise((resolve) => setTimeout(resolve, 100));
    return { up: raw.bytesWritten - up, down: raw.bytesRead - down, data };
  };
  const serial = await count(async () => {
    let data = 0;
    for (let i = 0; i < N; i++) data += await get(LENGTH);
    return data;
  });
  const parallel = await count(async () => {
    let data = 0;
    for (let i = 0; i < N; i += PARALLEL) {
      const got = await Promise.all(Array.from({ length: Math.min(PARALLEL, N - i) }, () => get(LENGTH)));
      data += got.reduce((a, b) => a + b, 0);
    }
    return data;
  });
  session.close();
  secure.destroy();
  return { serial, parallel };
}

function line(name: string, c: Counted): string {
  return (
    `${name}: up ${(c.up / N).toFixed(0)} B a request, down ${((c.down - c.data) / N).toFixed(0)} B a request ` +
    `beyond its ${LENGTH} B of data (total ${((c.up + c.down - c.data) / N).toFixed(0)} B)`
  );
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'conceptrag-h2-bytes-'));
  const file = randomBytes(FILE_BYTES);
  await writeFile(join(dir, 'lib.bundle'), file);
  console.log(
    `h2-request-bytes: ${N} range requests of ${LENGTH} B each, one at a time and ${PARALLEL} at once, over TLS ` +
      `(counted on the TCP socket); load ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
  );
  const ours = await serveStatic(dir, { ranges: true, multiRange: 'first', http2: true });
  const cf = await cloudFrontLike(file);
  try {
    const a = await measure(ours.origin, '/lib.bundle');
    console.log(line('e2e static server, one at a time', a.serial));
    console.log(line(`e2e static server, ${PARALLEL} at once`, a.parallel));
    const b = await measure(cf.origin, '/lib.bundle');
    console.log(line('CloudFront-like headers, one at a time', b.serial));
    console.log(line(`CloudFront-like headers, ${PARALLEL} at once`, b.parallel));
  } finally {
    await ours.close();
    await cf.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
