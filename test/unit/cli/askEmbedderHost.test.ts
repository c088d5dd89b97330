// `ask` never builds a network embedder from bundle data (issue 9, item 1): a bundle whose embedder id names
// another host (a loopback server here, standing in for https://other-host) gets no request at all — not the
// question, not a key, not a model download. Only an explicit --embedder may name a URL, and then the
// embeddings key (its own variable or file) goes there, never the LLM's. Keys never come from argv.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeSnapshotBundle } from '../../../src/core/bundle/index.ts';
import { run as ask } from '../../../src/cli/ask.ts';
import { run as index } from '../../../src/cli/index.ts';
import { writeBundleFile } from '../../../src/cli/bundleIo.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scriptedLlmServer.ts';
import { DIM, snapshotOf } from '../bundle/fixtures.ts';

interface Seen {
  method: string;
  path: string;
  authorization?: string;
}

/** The "other host": records every request; answers /v1/embeddings with DIM-d vectors, anything else 404. */
async function otherHost(): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization });
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/embeddings') {
        const input = (JSON.parse(body) as { input: string[] }).input;
        const data = input.map((_, index) => ({
          index,
          embedding: Array.from({ length: DIM }, (_, j) => (j === index % DIM ? 1 : 0.1)),
        }));
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ data }));
      } else {
        res.writeHead(404).end('not found');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function capture(fn: () => Promise<number>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err += String(chunk);
    return true;
  });
  try {
    return { code: await fn(), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

const KEYS = {
  OPENAI_API_KEY: 'sk-openai-should-never-travel-111111',
  CONCEPTRAG_LLM_API_KEY: 'sk-llm-only-for-the-llm-222222',
  CONCEPTRAG_EMBEDDINGS_API_KEY: 'sk-embed-only-for-embeddings-333333',
};

let dir = '';
let host: Awaited<ReturnType<typeof otherHost>>;
const saved: Record<string, string | undefined> = {};

async function bundleWithEmbedder(name: string, id: string): Promise<string> {
  const path = join(dir, name);
  const snapshot = { ...snapshotOf(), embedder: { id, dimension: DIM } };
  await writeBundleFile(path, writeSnapshotBundle(snapshot, { appVersion: 'x' }));
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conceptrag-ask-host-'));
  host = await otherHost();
  for (const [k, v] of Object.entries(KEYS)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
});

afterEach(() => {
  host.seen.length = 0;
});

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await host.close();
  await rm(dir, { recursive: true, force: true });
});

describe('ask and the embedder a bundle names', () => {
  it('makes no request to an openai: endpoint named by the bundle, and says what to do', async () => {
    const bundle = await bundleWithEmbedder('openai.bundle', `openai:${host.url}/v1#m`);
    const outcome = await ask([bundle, 'Who married Teutberga?']).then(
      () => 'answered',
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    expect(outcome).toMatch(
      /ask: the bundle was built with the embedder openai:http:\/\/127\.0\.0\.1:\d+\/v1#m/,
    );
    expect(outcome).toMatch(/--embedder <spec>/);
    expect(outcome).toMatch(/--mode bm25/);
    expect(host.seen).toEqual([]);
  });

  it('downloads nothing from an hf: URL named by the bundle', async () => {
    const bundle = await bundleWithEmbedder('hf.bundle', `hf:${host.url}/tiny-bert`);
    await expect(ask([bundle, 'Who married Teutberga?', '--mode', 'dense'])).rejects.toThrow(
      /names a model or an endpoint/,
    );
    expect(host.seen).toEqual([]);
  });

  it('still answers such a bundle lexically (bm25) without contacting anyone', async () => {
    const bundle = await bundleWithEmbedder('openai2.bundle', `openai:${host.url}/v1#m`);
    const { code, out } = await capture(() =>
      ask([bundle, 'Who married Teutberga?', '--mode', 'bm25', '--json']),
    );
    expect(code).toBe(0);
    expect((JSON.parse(out) as { context: unknown[] }).context).toHaveLength(1);
    expect(host.seen).toEqual([]);
  });

  it('uses an endpoint the user names with --embedder, sending only the embeddings key', async () => {
    const spec = `openai:${host.url}/v1#m`;
    const bundle = await bundleWithEmbedder('explicit.bundle', spec);
    const { code } = await capture(() =>
      ask([bundle, 'Who married Teutberga?', '--embedder', spec, '--json']),
    );
    expect(code).toBe(0);
    expect(host.seen).toEqual([
      {
        method: 'POST',
        path: '/v1/embeddings',
        authorization: `Bearer ${KEYS.CONCEPTRAG_EMBEDDINGS_API_KEY}`,
      },
    ]);
  });

  it('refuses an explicit --embedder whose id differs from the bundle before sending the question', async () => {
    const bundle = await bundleWithEmbedder('other.bundle', `openai:${host.url}/v1#m`);
    await expect(ask([bundle, 'q', '--embedder', `openai:${host.url}/v1#another-model`])).rejects.toThrow(
      /but the question embedder is openai:.*#another-model/,
    );
    expect(host.seen).toEqual([]);
  });
});

describe('index and the embeddings key', () => {
  it('sends the key of --embed-key-file to the endpoint named by --embedder, never the LLM key', async () => {
    const doc = join(dir, 'doc.txt');
    await writeFile(doc, 'Lothair II was king of Lotharingia. He married Teutberga.\n');
    const keyFile = join(dir, 'embed.key');
    await writeFile(keyFile, 'sk-embed-from-file-555555\n');
    const out = join(dir, 'indexed.bundle');
    const spec = `openai:${host.url}/v1#m`;
    const code = await index([
      doc,
      '--out',
      out,
      '--embedder',
      spec,
      '--embed-key-file',
      keyFile,
      '--no-cache',
      '--quiet',
    ]);
    expect(code).toBe(0);
    expect(host.seen.length).toBeGreaterThan(0);
    expect(new Set(host.seen.map((s) => s.authorization))).toEqual(
      new Set(['Bearer sk-embed-from-file-555555']),
    );
  });
});

describe('ask and API keys', () => {
  let llm: ScriptedLlmServer;
  const FILE_KEY = 'sk-from-a-file-444444444444';

  beforeAll(async () => {
    llm = await startScriptedLlmServer({ apiKey: FILE_KEY });
  });
  afterAll(async () => {
    await llm.close();
  });

  it('refuses --llm-key on the command line, naming the variable and --llm-key-file', async () => {
    const bundle = await bundleWithEmbedder('k.bundle', 'use-lite@1');
    const { code, err } = await capture(() =>
      ask([bundle, 'q', '--mode', 'bm25', '--llm-base-url', llm.baseUrl, '--llm-key', 'sk-typed-in']),
    );
    expect(code).toBe(2);
    expect(err).toMatch(/--llm-key is no longer accepted/);
    expect(err).toMatch(/CONCEPTRAG_LLM_API_KEY/);
    expect(err).toMatch(/--llm-key-file <path>/);
    expect(err).not.toContain('sk-typed-in');
    expect(llm.requests).toEqual([]);
  });

  it('reads the LLM key from --llm-key-file and sends it (and only it) to the LLM endpoint', async () => {
    const bundle = await bundleWithEmbedder('k2.bundle', 'use-lite@1');
    const keyFile = join(dir, 'llm.key');
    await writeFile(keyFile, `${FILE_KEY}\n`, { mode: 0o600 });
    const { code, out } = await capture(() =>
      ask([
        bundle,
        'Who married Teutberga?',
        '--mode',
        'bm25',
        '--json',
        '--llm-base-url',
        llm.baseUrl,
        '--llm-model',
        'scripted-model',
        '--llm-key-file',
        keyFile,
      ]),
    );
    expect(code).toBe(0);
    expect((JSON.parse(out) as { answer?: string }).answer).toBeTruthy();
    expect(llm.requests.length).toBeGreaterThan(0);
    expect(new Set(llm.requests.map((r) => r.authorization))).toEqual(new Set([`Bearer ${FILE_KEY}`]));
  });

  it('takes the LLM key from CONCEPTRAG_LLM_API_KEY, not from OPENAI_API_KEY', async () => {
    llm.reset();
    const bundle = await bundleWithEmbedder('k3.bundle', 'use-lite@1');
    // The scripted server wants the file's key, so this answer is refused (401): what was sent is the point.
    await capture(() =>
      ask([bundle, 'Who married Teutberga?', '--mode', 'bm25', '--json', '--llm-base-url', llm.baseUrl]),
    ).catch(() => undefined);
    expect(llm.requests.length).toBeGreaterThan(0);
    const sent = new Set(llm.requests.map((r) => r.authorization));
    expect(sent).toEqual(new Set([`Bearer ${KEYS.CONCEPTRAG_LLM_API_KEY}`]));
  });

  it('names an empty or missing key file', async () => {
    const bundle = await bundleWithEmbedder('k4.bundle', 'use-lite@1');
    const empty = join(dir, 'empty.key');
    await writeFile(empty, '\n');
    await expect(
      ask([bundle, 'q', '--mode', 'bm25', '--llm-base-url', llm.baseUrl, '--llm-key-file', empty]),
    ).rejects.toThrow(`key file ${empty} is empty`);
    await expect(
      ask([
        bundle,
        'q',
        '--mode',
        'bm25',
        '--llm-base-url',
        llm.baseUrl,
        '--llm-key-file',
        join(dir, 'nope'),
      ]),
    ).rejects.toThrow(/key file .*nope cannot be read \(ENOENT\)/);
  });
});
