// A tiny static file server for the built app (dist/) with the cross-origin isolation headers that WASM threads
// need, on a free loopback port. Our own instead of `vite preview` so the runner controls its lifetime and port.
// Hand-written rather than a static-file package: the tests need to switch how it answers ranges (one range, several
// as multipart/byteranges, a host that ignores or refuses several) and to count what it sent and what was aborted.
import { createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  createSecureServer,
  type Http2SecureServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Session,
} from 'node:http2';
import { execFile } from 'node:child_process';
import { createHash, createPublicKey } from 'node:crypto';
import { mkdtemp, open, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { securityHeaders } from '../../../src/tools/csp.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.jsonl': 'application/jsonl; charset=utf-8',
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.webmanifest': 'application/manifest+json',
};

export interface StaticServer {
  origin: string;
  close(): Promise<void>;
  /** Body bytes sent per path (URL pathname), whole files and ranges alike (what the server set out to send). */
  served: Map<string, number>;
  /** Responses the client closed before their end (a download stopped on purpose, or a tab closed). */
  readonly aborted: number;
  /** Every request with a Range header, when `log` is on: a bench's timeline of reads. */
  requests: RangeLog[];
  /** The self-signed certificate (PEM) of an HTTP/2 server. */
  certificate?: string;
}

export interface RangeLog {
  path: string;
  /** performance.now() of the server when the request arrived and when its response ended or was closed. */
  start: number;
  end: number;
  /** Ranges asked for in the request, and body bytes sent (multipart headers included). */
  ranges: number;
  bytes: number;
  status: number;
}

/**
 * How a request for several ranges (`bytes=a-b,c-d`) is answered when ranges are on:
 * - 'multipart': 206 multipart/byteranges, one part a range in the order asked, as nginx and Apache do;
 * - 'first': 206 with the first range only (a host that honours one range a request);
 * - 'whole': 200 with the whole file (a host that ignores such a header, as S3 does);
 * - 'refuse': 416 Range Not Satisfiable.
 */
export type MultiRangeMode = 'multipart' | 'first' | 'whole' | 'refuse';

export interface ServeOptions {
  /**
   * Answer `Range: bytes=a-b` with 206 and that slice, as static hosts do (GitHub Pages, nginx, S3): a bundle with
   * pages is then read by ranges. Off: every file is sent whole (a host without range support).
   */
  ranges?: boolean;
  /** A fixed loopback port (default: a free one). IndexedDB is per origin, port included: a bench that reopens a
   * kept browser profile needs the origin it stored the library under. */
  port?: number;
  /** With ranges on, how several ranges in one request are answered; 'multipart' by default. */
  multiRange?: MultiRangeMode;
  /**
   * HTTP/2 over TLS with a self-signed certificate for 127.0.0.1 (what real static hosts speak to a browser; the
   * benches only: Chromium must be told to accept the certificate, see certificateArgs). HTTP/1.1 by default.
   */
  http2?: boolean;
  /** Keep a RangeLog of every range request (requests). */
  log?: boolean;
  /**
   * A link slower than loopback (the benches' static host far away): each response waits `latencyMs` (its round
   * trip) before its headers, and the bodies of all responses share `mbps` megabits a second, sent in 16 KiB
   * pieces. Done here rather than by Chromium's network emulation, which is set per target and is not known to
   * reach the query worker's reads through the service worker.
   */
  link?: { latencyMs: number; mbps: number };
}

/** Paces writes at `mbps` shared by every response: each piece waits until the link is free for it. */
function linkPacer(mbps: number): (bytes: number) => Promise<void> {
  let free = 0;
  return async (bytes) => {
    const now = performance.now();
    free = Math.max(free, now) + (bytes * 8) / (mbps * 1000);
    if (free > now) await new Promise((resolve) => setTimeout(resolve, free - now));
  };
}

/** Writes `pieces` to `res` through the link's pace, ending it; stops when the client has gone. */
async function sendPaced(
  res: ServerResponse | Http2ServerResponse,
  pieces: AsyncIterable<Buffer> | Iterable<Buffer>,
  pace: (bytes: number) => Promise<void>,
): Promise<void> {
  try {
    for await (const piece of pieces) {
      for (let at = 0; at < piece.length; at += 16_384) {
        const part = piece.subarray(at, at + 16_384);
        await pace(part.length);
        if (res.destroyed) return;
        if (!(res as ServerResponse).write(part))
          await new Promise((resolve) => (res as ServerResponse).once('drain', resolve));
      }
    }
  } catch (error) {
    // The file stream is destroyed when the client goes: nothing is left to answer.
    if (res.destroyed) return;
    throw error;
  }
  res.end();
}

/** At most this many ranges a request (Apache's MaxRanges default is 200); more is answered as 'refuse'. */
const MAX_RANGES = 1000;

/**
 * The ranges of a `bytes=a-b, c-d, …` header (each `a-b`, `a-` or `-n`) of a file of `size` bytes, in the order
 * asked; null when the header is not one, and [] when no range of it is satisfiable.
 */
function parseRanges(header: string | undefined, size: number): Array<[number, number]> | null {
  const m = header ? /^bytes=(.+)$/.exec(header.trim()) : null;
  if (!m) return null;
  const out: Array<[number, number]> = [];
  for (const spec of m[1].split(',')) {
    const r = /^\s*(\d*)-(\d*)\s*$/.exec(spec);
    if (!r || (r[1] === '' && r[2] === '')) return null;
    const start = r[1] === '' ? Math.max(0, size - Number(r[2])) : Number(r[1]);
    const end = r[1] === '' || r[2] === '' ? size - 1 : Math.min(size - 1, Number(r[2]));
    if (start <= end && start < size) out.push([start, end]);
  }
  return out;
}

/** A multipart/byteranges body as nginx writes it: CRLF, then per part a delimiter, headers, a blank line, data. */
async function multipartBody(
  path: string,
  ranges: ReadonlyArray<[number, number]>,
  size: number,
  type: string,
  boundary: string,
): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const pieces: Buffer[] = [];
    for (const [start, end] of ranges) {
      pieces.push(
        Buffer.from(
          `\r\n--${boundary}\r\nContent-Type: ${type}\r\nContent-Range: bytes ${start}-${end}/${size}\r\n\r\n`,
        ),
      );
      const data = Buffer.alloc(end - start + 1);
      await file.read(data, 0, data.length, start);
      pieces.push(data);
    }
    pieces.push(Buffer.from(`\r\n--${boundary}--\r\n`));
    return Buffer.concat(pieces);
  } finally {
    await file.close();
  }
}

/** `root` may be a function, read at every request: a spec can switch the same origin to another build. */
export async function serveStatic(
  root: string | (() => string),
  options: ServeOptions = {},
): Promise<StaticServer> {
  const served = new Map<string, number>();
  const requests: RangeLog[] = [];
  let aborted = 0;
  const multiRange = options.multiRange ?? 'multipart';
  const link = options.link;
  const pace = link ? linkPacer(link.mbps) : null;
  const handle = (
    req: IncomingMessage | Http2ServerRequest,
    res: ServerResponse | Http2ServerResponse,
  ): void => {
    // Whether the response reached its end: one closed before it was stopped by the client.
    let finished = false;
    res.on('finish', () => (finished = true));
    res.on('close', () => {
      if (!finished) aborted++;
    });
    void (async () => {
      const base = normalize(typeof root === 'function' ? root() : root);
      const url = new URL(req.url ?? '/', 'http://localhost');
      let path = normalize(join(base, decodeURIComponent(url.pathname)));
      if (path !== base && !path.startsWith(base + sep)) {
        res.writeHead(403).end();
        return;
      }
      let info = await stat(path).catch(() => null);
      if (info?.isDirectory()) {
        path = join(path, 'index.html');
        info = await stat(path).catch(() => null);
      }
      if (link) await new Promise((resolve) => setTimeout(resolve, link.latencyMs));
      if (!info?.isFile()) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
        return;
      }
      const type = TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
      const common = {
        ...(options.ranges ? { 'Accept-Ranges': 'bytes' } : {}),
        'Last-Modified': info.mtime.toUTCString(),
        'Cross-Origin-Opener-Policy': 'same-origin',
        'Cross-Origin-Embedder-Policy': 'require-corp',
        'Cross-Origin-Resource-Policy': 'same-origin',
        'Cache-Control': 'no-cache',
        // The deployed headers: the page's CSP with frame-ancestors, the workers' CSP on scripts.
        ...securityHeaders(path),
      };
      const header = req.headers.range;
      let ranges = options.ranges ? parseRanges(header, info.size) : null;
      let entry: RangeLog | undefined;
      if (ranges && options.log) {
        const logged: RangeLog = {
          path: url.pathname,
          start: performance.now(),
          end: 0,
          ranges: ranges.length,
          bytes: 0,
          status: 0,
        };
        entry = logged;
        requests.push(logged);
        res.on('close', () => {
          logged.end = performance.now();
          logged.status = res.statusCode;
        });
      }
      const count = (bytes: number): void => {
        served.set(url.pathname, (served.get(url.pathname) ?? 0) + bytes);
        if (entry) entry.bytes = bytes;
      };
      if (ranges && (ranges.length === 0 || ranges.length > MAX_RANGES)) {
        res.writeHead(416, { ...common, 'Content-Range': `bytes */${info.size}` }).end();
        return;
      }
      if (ranges && ranges.length > 1) {
        if (multiRange === 'refuse') {
          res.writeHead(416, { ...common, 'Content-Range': `bytes */${info.size}` }).end();
          return;
        }
        if (multiRange === 'whole') ranges = null;
        else if (multiRange === 'first') ranges = ranges.slice(0, 1);
        else {
          const boundary = `conceptrag${Math.random().toString(16).slice(2)}`;
          const body = await multipartBody(path, ranges, info.size, type, boundary);
          res.writeHead(206, {
            'Content-Type': `multipart/byteranges; boundary=${boundary}`,
            'Content-Length': body.length,
            ...common,
          });
          if (req.method === 'HEAD') {
            res.end();
            return;
          }
          count(body.length);
          if (pace) await sendPaced(res, [body], pace);
          else res.end(body);
          return;
        }
      }
      const range = ranges?.[0] ?? null;
      const [start, end] = range ?? [0, info.size - 1];
      const length = Math.max(0, end - start + 1);
      res.writeHead(range ? 206 : 200, {
        'Content-Type': type,
        'Content-Length': length,
        ...(range ? { 'Content-Range': `bytes ${start}-${end}/${info.size}` } : {}),
        ...common,
      });
      if (req.method === 'HEAD' || length === 0) {
        res.end();
        return;
      }
      count(length);
      const stream = createReadStream(path, { start, end });
      // A client that stops reading (an aborted download) must not leave the file open.
      res.on('close', () => stream.destroy());
      if (pace) await sendPaced(res, stream, pace);
      else stream.pipe(res as NodeJS.WritableStream);
    })().catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  };
  let server: Server | Http2SecureServer;
  const sessions = new Set<ServerHttp2Session>();
  let certificate: string | undefined;
  if (options.http2) {
    const { key, cert } = await selfSignedCertificate();
    certificate = cert;
    const secure = createSecureServer({ key, cert, allowHTTP1: true }, handle);
    secure.on('session', (session: ServerHttp2Session) => {
      sessions.add(session);
      session.on('close', () => sessions.delete(session));
    });
    server = secure;
  } else {
    server = createServer(handle);
  }
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    served,
    requests,
    get aborted() {
      return aborted;
    },
    certificate,
    origin: `${options.http2 ? 'https' : 'http'}://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        // HTTP/2 sessions stay open after their streams end: close() alone would wait for the browser to drop them.
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A key and certificate for 127.0.0.1, made by the openssl command for this server's life (Node has no API that
 * writes an X.509 certificate; a browser speaks HTTP/2 over TLS only).
 */
export async function selfSignedCertificate(): Promise<{ key: string; cert: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'conceptrag-h2-'));
  try {
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ]);
    return {
      key: await readFile(join(dir, 'key.pem'), 'utf8'),
      cert: await readFile(join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Chromium's flags that make it trust an HTTP/2 server's self-signed certificate (benches only): by its public key's
 * hash, so that the page counts as a secure origin and its service worker registers, plus the blanket switch.
 */
export function certificateArgs(server: StaticServer): string[] {
  if (!server.certificate) return [];
  const spki = createPublicKey(server.certificate).export({ type: 'spki', format: 'der' });
  return [
    `--ignore-certificate-errors-spki-list=${createHash('sha256').update(spki).digest('base64')}`,
    '--ignore-certificate-errors',
  ];
}
