// Static hosts that are not ours, for the benches that open `?bundle=` in Chromium: nginx (Debian's package, as a
// team would serve the app and its bundle) and Python's http.server (what people type to share a folder; it sends
// whole files only, no ranges). Each serves a folder on a free loopback port and reports what it sent in the shape of
// our own test server (test/e2e/lib/staticServer.ts), read from its own log: nginx's access log, Python's stderr.
// Our server stays the one for tests (it can be told how to answer several ranges and counts aborted downloads);
// these answer the question our server cannot: does the app read a bundle by ranges from a host as deployed?
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { securityHeaders } from '../../../src/tools/csp.ts';
import { selfSignedCertificate, type RangeLog, type StaticServer } from '../../e2e/lib/staticServer.ts';

export type RealHost = 'nginx' | 'nginx-bare' | 'python';

/** A free loopback port (the host programs take a port, not 0). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Waits until something accepts connections on the port, or the program has exited. */
async function listening(port: number, child: ChildProcess, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode} before listening`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
      socket.connect(port, '127.0.0.1');
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not listen on ${port}`);
}

async function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** nginx `add_header` lines for a location: the headers the README asks a deployer to send for such files. */
function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `      add_header ${name} "${value}" always;`)
    .join('\n');
}

/**
 * nginx serving `root`: with the README's headers ('nginx'), or with none of its own ('nginx-bare': a host where the
 * deployer can set no header, as on GitHub Pages). Ranges, several a request as multipart/byteranges, are nginx's
 * own defaults. HTTP/2 over TLS with a self-signed certificate where `http2`.
 */
async function serveWithNginx(
  root: string,
  options: { bare?: boolean; http2?: boolean } = {},
): Promise<StaticServer> {
  const dir = await mkdtemp(join(tmpdir(), 'conceptrag-nginx-'));
  await mkdir(join(dir, 'temp'));
  const port = await freePort();
  const log = join(dir, 'access.log');
  let certificate: string | undefined;
  let listen = `listen 127.0.0.1:${port};`;
  if (options.http2) {
    const { key, cert } = await selfSignedCertificate();
    certificate = cert;
    await writeFile(join(dir, 'key.pem'), key);
    await writeFile(join(dir, 'cert.pem'), cert);
    listen =
      `listen 127.0.0.1:${port} ssl http2;\n    ssl_certificate ${dir}/cert.pem;\n` +
      `    ssl_certificate_key ${dir}/key.pem;`;
  }
  const isolation = {
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Embedder-Policy': 'require-corp',
  };
  // nginx's add_header of a location replaces the server's: each location repeats the isolation headers.
  const locations = options.bare
    ? ''
    : `
    location = / {
${headerLines({ ...isolation, ...securityHeaders('/') })}
      try_files /index.html =404;
    }
    location ~ \\.html$ {
${headerLines({ ...isolation, ...securityHeaders('/index.html') })}
    }
    location ~ \\.m?js$ {
${headerLines({ ...isolation, ...securityHeaders('/x.js') })}
    }
    location / {
${headerLines(isolation)}
    }`;
  const conf = `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 512; }
http {
  include /etc/nginx/mime.types;
  types { text/javascript mjs; application/manifest+json webmanifest; }
  default_type application/octet-stream;
  client_body_temp_path ${dir}/temp;
  proxy_temp_path ${dir}/temp;
  fastcgi_temp_path ${dir}/temp;
  uwsgi_temp_path ${dir}/temp;
  scgi_temp_path ${dir}/temp;
  sendfile on;
  log_format ranges '$msec $request_time $status $body_bytes_sent "$uri" "$http_range"';
  access_log ${log} ranges;
  server {
    ${listen}
    root ${normalize(root)};
    index index.html;${locations}
  }
}
`;
  await writeFile(join(dir, 'nginx.conf'), conf);
  await writeFile(log, '');
  const child = spawn('nginx', ['-c', join(dir, 'nginx.conf'), '-p', dir, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  await listening(port, child, `nginx (${stderr.trim()})`).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  const served = new Map<string, number>();
  const requests: RangeLog[] = [];
  let read = 0;
  // The access log is written as each response ends: read on demand, before every count the bench takes.
  const refresh = (): void => {
    const text = readFileSync(log, 'utf8');
    const lines = text.slice(read).split('\n');
    const whole = lines.pop() ?? '';
    read = text.length - whole.length;
    for (const line of lines) {
      const m = /^(\d+\.\d+) (\d+\.\d+) (\d+) (\d+) "([^"]*)" "([^"]*)"$/.exec(line);
      if (!m) continue;
      const [, msec, took, status, bytes, path, range] = m;
      served.set(path, (served.get(path) ?? 0) + Number(bytes));
      if (range && range !== '-') {
        const end = Number(msec) * 1000;
        requests.push({
          path,
          start: end - Number(took) * 1000,
          end,
          ranges: range.split(',').length,
          bytes: Number(bytes),
          status: Number(status),
        });
      }
    }
  };
  return {
    origin: `${options.http2 ? 'https' : 'http'}://127.0.0.1:${port}`,
    served: liveMap(served, refresh),
    requests: liveArray(requests, refresh),
    aborted: 0,
    certificate,
    close: async () => {
      await stopped(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Python's http.server serving `root`: no Range support, so every file goes whole (200), the bundle too. What it sent
 * is the size of each file it answered with 200, from the lines it logs to stderr (what it set out to send, as our
 * server counts it: a response closed early is counted whole, and counted as aborted).
 */
async function serveWithPython(root: string): Promise<StaticServer> {
  const port = await freePort();
  const child = spawn(
    'python3',
    ['-u', '-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', root],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const served = new Map<string, number>();
  let aborted = 0;
  let pending = '';
  child.stderr?.on('data', (d: Buffer) => {
    pending += d.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      // A response the browser closed before its end (the probe for ranges, answered whole) ends in a traceback.
      if (/^(ConnectionResetError|BrokenPipeError)/.test(line)) aborted++;
      const m = /"(?:GET|HEAD) (\S+) HTTP\/[\d.]+" 200 /.exec(line);
      if (!m || line.includes('"HEAD ')) continue;
      const path = decodeURIComponent(new URL(m[1], 'http://x').pathname);
      const size = (() => {
        try {
          const info = statSync(join(root, path));
          return info.isFile() ? info.size : 0;
        } catch {
          return 0;
        }
      })();
      served.set(path, (served.get(path) ?? 0) + size);
    }
  });
  await listening(port, child, 'python3 -m http.server');
  return {
    origin: `http://127.0.0.1:${port}`,
    served,
    requests: [],
    get aborted() {
      return aborted;
    },
    close: () => stopped(child),
  };
}

/** A map whose reads first take in what the host has logged since. */
function liveMap(map: Map<string, number>, refresh: () => void): Map<string, number> {
  return new Proxy(map, {
    get(target, key) {
      if (key === 'get' || key === 'has' || key === 'entries') refresh();
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** An array whose length and slices first take in what the host has logged since. */
function liveArray(array: RangeLog[], refresh: () => void): RangeLog[] {
  return new Proxy(array, {
    get(target, key) {
      if (key === 'length' || key === 'slice') refresh();
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The host a bench's `--host` names, serving `root`. */
export async function serveWithHost(
  host: RealHost,
  root: string,
  options: { http2?: boolean } = {},
): Promise<StaticServer> {
  if (host === 'python') {
    if (options.http2) throw new Error('python3 -m http.server speaks HTTP/1.1 only');
    return serveWithPython(root);
  }
  return serveWithNginx(root, { bare: host === 'nginx-bare', http2: options.http2 });
}
