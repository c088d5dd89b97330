// A tiny static file server for the built app (dist/) with the cross-origin isolation headers that WASM threads
// need, on a free loopback port. Our own instead of `vite preview` so the runner controls its lifetime and port.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
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
  /** Body bytes sent per path (URL pathname), whole files and ranges alike. */
  served: Map<string, number>;
}

export interface ServeOptions {
  /**
   * Answer `Range: bytes=a-b` with 206 and that slice, as static hosts do (GitHub Pages, nginx, S3): a bundle with
   * pages is then read by ranges. Off: every file is sent whole (a host without range support).
   */
  ranges?: boolean;
  /** A fixed loopback port (default: a free one). IndexedDB is per origin, port included: a bench that reopens a
   * kept browser profile needs the origin it stored the library under. */
  port?: number;
}

/** One `bytes=a-b` (or `a-`, `-n`) range of a file of `size` bytes, or null when the header is not one. */
function parseRange(header: string | undefined, size: number): [number, number] | null {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === '' && m[2] === '')) return null;
  const start = m[1] === '' ? Math.max(0, size - Number(m[2])) : Number(m[1]);
  const end = m[1] === '' || m[2] === '' ? size - 1 : Math.min(size - 1, Number(m[2]));
  return start <= end && start < size ? [start, end] : null;
}

/** `root` may be a function, read at every request: a spec can switch the same origin to another build. */
export async function serveStatic(
  root: string | (() => string),
  options: ServeOptions = {},
): Promise<StaticServer> {
  const served = new Map<string, number>();
  const server: Server = createServer((req, res) => {
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
      if (!info?.isFile()) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
        return;
      }
      const range = options.ranges ? parseRange(req.headers.range, info.size) : null;
      const [start, end] = range ?? [0, info.size - 1];
      const length = Math.max(0, end - start + 1);
      res.writeHead(range ? 206 : 200, {
        'Content-Type': TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
        'Content-Length': length,
        ...(options.ranges ? { 'Accept-Ranges': 'bytes' } : {}),
        ...(range ? { 'Content-Range': `bytes ${start}-${end}/${info.size}` } : {}),
        'Last-Modified': info.mtime.toUTCString(),
        'Cross-Origin-Opener-Policy': 'same-origin',
        'Cross-Origin-Embedder-Policy': 'require-corp',
        'Cross-Origin-Resource-Policy': 'same-origin',
        'Cache-Control': 'no-cache',
        // The deployed headers: the page's CSP with frame-ancestors, the workers' CSP on scripts.
        ...securityHeaders(path),
      });
      if (req.method === 'HEAD' || length === 0) {
        res.end();
        return;
      }
      served.set(url.pathname, (served.get(url.pathname) ?? 0) + length);
      createReadStream(path, { start, end }).pipe(res);
    })().catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    served,
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
