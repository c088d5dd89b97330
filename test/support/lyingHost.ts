// A loopback host that lies about a bundle (issue 43): it serves `bytes` by single and multiple ranges, and can be
// told, request by request, to answer wrongly: a wrong Content-Range, an endless 206 body, a gzip'd body that inflates
// far past what was asked, no answer at all, a redirect to another origin, an over-long multipart boundary, or
// another bundle than the one it served before. Used by test/unit/services/library/lyingHost.test.ts and the fuzzer.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export type Lie =
  | 'none'
  | 'wrong-range'
  | 'short'
  | 'endless'
  | 'gzip-bomb'
  | 'silent'
  | 'redirect'
  | 'long-boundary'
  | 'changed'
  | 'whole';

export interface LyingHost {
  origin: string;
  /** The lie told to every request from now on (the first `honest` requests are answered truly). */
  lie(lie: Lie, honest?: number): void;
  requests: number;
  close(): Promise<void>;
}

const ZEROS = new Uint8Array(1 << 16);
/** A gzip member of 64 MB of zeros (~64 KB): sent as the body of a 206 with Content-Encoding: gzip. */
let bomb: Uint8Array | undefined;

export async function lyingHost(bytes: Uint8Array): Promise<LyingHost> {
  let current: Lie = 'none';
  let honestLeft = 0;
  const open = new Set<ServerResponse>();
  const host: LyingHost = {
    origin: '',
    requests: 0,
    lie(lie, honest = 0) {
      current = lie;
      honestLeft = honest;
    },
    close: () =>
      new Promise((done) => {
        for (const res of open) res.destroy();
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    host.requests++;
    open.add(res);
    res.on('close', () => open.delete(res));
    const lie = honestLeft > 0 ? (honestLeft--, 'none') : current;
    answer(req, res, lie);
  });
  const answer = (req: IncomingMessage, res: ServerResponse, lie: Lie): void => {
    const data = lie === 'changed' ? bytes.map((b) => b ^ 0xff) : bytes;
    const etag = lie === 'changed' ? '"other"' : '"one"';
    if (lie === 'silent') return; // never answers
    if (lie === 'redirect') {
      res.writeHead(302, { location: `http://localhost:1/elsewhere.bundle` });
      res.end();
      return;
    }
    const ranges = /^bytes=(.*)$/.exec(String(req.headers.range ?? ''))?.[1]?.split(',');
    if (!ranges || lie === 'whole') {
      res.writeHead(200, { 'content-length': data.length, etag });
      res.end(data);
      return;
    }
    const spans = ranges.map((r) => {
      const [a, b] = r.trim().split('-').map(Number);
      return [a, Math.min(b, data.length - 1)] as const;
    });
    if (lie === 'endless') {
      const [a, b] = spans[0];
      res.writeHead(206, { 'content-range': `bytes ${a}-${b}/${data.length}`, etag });
      const more = (): void => {
        while (res.write(ZEROS)) if (res.destroyed) return;
        res.once('drain', more);
      };
      more();
      return;
    }
    if (lie === 'gzip-bomb') {
      const [a, b] = spans[0];
      bomb ??= new Uint8Array(gzipSync(new Uint8Array(64 << 20)));
      res.writeHead(206, {
        'content-range': `bytes ${a}-${b}/${data.length}`,
        'content-encoding': 'gzip',
        etag,
      });
      res.end(bomb);
      return;
    }
    if (spans.length > 1) {
      const boundary = lie === 'long-boundary' ? 'b'.repeat(4000) : 'LIE';
      const pieces: Uint8Array[] = [];
      const enc = new TextEncoder();
      for (const [a, b] of spans) {
        pieces.push(enc.encode(`\r\n--${boundary}\r\nContent-Range: bytes ${a}-${b}/${data.length}\r\n\r\n`));
        pieces.push(data.subarray(a, b + 1));
      }
      pieces.push(enc.encode(`\r\n--${boundary}--\r\n`));
      res.writeHead(206, { 'content-type': `multipart/byteranges; boundary=${boundary}`, etag });
      res.end(Buffer.concat(pieces));
      return;
    }
    const [a, b] = spans[0];
    const claimed =
      lie === 'wrong-range' ? `bytes ${a + 1}-${b + 1}/${data.length}` : `bytes ${a}-${b}/${data.length}`;
    res.writeHead(206, { 'content-range': claimed, etag });
    res.end(lie === 'short' ? data.subarray(a, b) : data.subarray(a, b + 1));
  };
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  host.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return host;
}
