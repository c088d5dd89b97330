// Embedding a corpus through an OpenAI-compatible service (cli index --embedder openai:…) against the scripted
// loopback server: the cache's fill keeps at most N requests in flight, a 5xx or a dropped reply is retried, a
// 400 fails at once naming the endpoint, retries are bounded, a second run asks only for what is missing, a torn
// cache tail is cut, and the CLI prints throttled progress without the key. No timing is asserted.
import { appendFileSync, existsSync, mkdtempSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cacheFileName, cachedEmbedder, FillStoppedError } from '../../../src/cli/embeddingCache.ts';
import { formatFillProgress, throttled } from '../../../src/cli/embedProgress.ts';
import { readBundleFile } from '../../../src/cli/bundleIo.ts';
import { run as index } from '../../../src/cli/index.ts';
import { EMBEDDINGS_KEY_ENV } from '../../../src/cli/keys.ts';
import { createOpenAIEmbedder } from '../../../src/core/embed/openai.ts';
import {
  scriptedEmbedding,
  startScriptedLlmServer,
  type ScriptedLlmServer,
} from '../../support/scriptedLlmServer.ts';

const KEY = 'sk-service-test-key-0815';
const DIMENSION = 16;
const FAST_BACKOFF = { baseMs: 1, maxMs: 4 };

let server: ScriptedLlmServer;
let dir = '';
let savedKey: string | undefined;

/** The server's vector for a text, normalized in float64 (the client stores it normalized in float32). */
function serverVector(text: string): number[] {
  const v = scriptedEmbedding(text, DIMENSION);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function expectServerVectors(texts: string[], rows: Float32Array): void {
  texts.forEach((t, i) => {
    const want = serverVector(t);
    for (let j = 0; j < DIMENSION; j++) expect(rows[i * DIMENSION + j]).toBeCloseTo(want[j], 6);
  });
}

const sentences = (n: number, tag = 's'): string[] =>
  Array.from({ length: n }, (_, i) => `Sentence ${tag}${i} tells of river ${i % 7} and town ${i * 13}.`);

function endpoint(maxAttempts = 3) {
  return createOpenAIEmbedder({
    baseUrl: server.baseUrl,
    model: 'scripted-embedder',
    apiKey: KEY,
    batchSize: 1000,
    maxAttempts,
    backoff: FAST_BACKOFF,
  });
}

const embeddingRequests = () => server.requests.filter((r) => r.path === '/v1/embeddings');
const freshDir = (): string => mkdtempSync(join(dir, 'cache-'));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'conceptrag-embed-service-'));
  server = await startScriptedLlmServer({ apiKey: KEY, embeddingDimension: DIMENSION });
  savedKey = process.env[EMBEDDINGS_KEY_ENV];
});
afterAll(async () => {
  if (savedKey === undefined) delete process.env[EMBEDDINGS_KEY_ENV];
  else process.env[EMBEDDINGS_KEY_ENV] = savedKey;
  await server.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  server.reset();
  server.setEmbeddingLatency(0);
});

describe('filling the embedding cache from a service', () => {
  it('never has more than N requests in flight, and embeds every distinct text once', async () => {
    server.setEmbeddingLatency(15);
    const texts = sentences(90);
    const cache = cachedEmbedder(endpoint(), freshDir());
    const seen: number[] = [];
    const done = await cache.fill([...texts, ...texts.slice(0, 10)], {
      concurrency: 3,
      batchSize: 5,
      onProgress: (p) => seen.push(p.cached + p.embedded),
    });
    expect(done).toMatchObject({ total: 90, cached: 0, embedded: 90 });
    expect(embeddingRequests()).toHaveLength(18);
    expect(server.maxEmbeddingsInFlight()).toBeLessThanOrEqual(3);
    expect(server.maxEmbeddingsInFlight()).toBeGreaterThan(1);
    expect([...server.embeddedTexts].sort()).toEqual([...texts].sort());
    expect(seen.at(-1)).toBe(90);
    expectServerVectors(texts, await cache.embed(texts));
    expect(embeddingRequests()).toHaveLength(18);
  });

  it('retries a 500, a 503 with Retry-After and a dropped reply, then stores the vectors', async () => {
    server.scriptEmbeddings(
      { kind: 'server-error', status: 500 },
      { kind: 'drop' },
      { kind: 'rate-limit', retryAfterS: 0 },
    );
    const texts = sentences(12, 'r');
    const cache = cachedEmbedder(endpoint(4), freshDir());
    await cache.fill(texts, { concurrency: 1, batchSize: 12 });
    expect(embeddingRequests().map((r) => r.outcome)).toEqual(['server-error', 'drop', 'rate-limit', 'ok']);
    expectServerVectors(texts, await cache.embed(texts));
  });

  it('fails a 400 at once, naming the endpoint and the status', async () => {
    server.scriptEmbeddings({ kind: 'server-error', status: 400 });
    const cache = cachedEmbedder(endpoint(5), freshDir());
    await expect(cache.fill(sentences(4), { concurrency: 1, batchSize: 4 })).rejects.toThrow(
      `${server.baseUrl}/embeddings answered HTTP 400`,
    );
    expect(embeddingRequests()).toHaveLength(1);
  });

  it('gives up after the bounded number of attempts and says so', async () => {
    server.scriptEmbeddings(
      ...Array.from({ length: 3 }, () => ({ kind: 'server-error' as const, status: 503 })),
    );
    const cache = cachedEmbedder(endpoint(3), freshDir());
    await expect(cache.fill(sentences(4), { concurrency: 1, batchSize: 4 })).rejects.toThrow(
      /embeddings answered HTTP 503.*gave up after 3 attempts/,
    );
    expect(embeddingRequests()).toHaveLength(3);
  });

  it('keeps the batches stored before a failure, and a second run requests only the missing texts', async () => {
    const cacheDir = freshDir();
    const texts = sentences(50, 'm');
    // Two batches succeed, the third is refused: the run stops, the first 20 texts are on disk.
    server.scriptEmbeddings({ kind: 'ok' }, { kind: 'ok' }, { kind: 'unauthorized' });
    await expect(
      cachedEmbedder(endpoint(), cacheDir).fill(texts, { concurrency: 1, batchSize: 10 }),
    ).rejects.toThrow(/HTTP 401/);
    const firstRun = [...server.embeddedTexts];
    expect(firstRun).toEqual(texts.slice(0, 20));

    server.reset();
    const again = cachedEmbedder(endpoint(), cacheDir);
    expect(await again.missing(texts)).toEqual(texts.slice(20));
    const done = await again.fill(texts, { concurrency: 4, batchSize: 10 });
    expect(done).toMatchObject({ total: 50, cached: 20, embedded: 30 });
    expect([...server.embeddedTexts].sort()).toEqual(texts.slice(20).sort());
    expectServerVectors(texts, await again.embed(texts));
  });

  it('on stop starts no new request, stores every one in flight, and loses nothing the server embedded', async () => {
    server.setEmbeddingLatency(10);
    const cacheDir = freshDir();
    const texts = sentences(60, 'x');
    const stop = new AbortController();
    const first = cachedEmbedder(endpoint(), cacheDir);
    await expect(
      first.fill(texts, {
        concurrency: 3,
        batchSize: 5,
        stop: stop.signal,
        onProgress: (p) => {
          if (p.embedded >= 10) stop.abort();
        },
      }),
    ).rejects.toThrow(FillStoppedError);
    const embedded = [...server.embeddedTexts];
    expect(embedded.length).toBeLessThan(60);
    const again = cachedEmbedder(endpoint(), cacheDir);
    expect(await again.missing(texts)).toEqual(texts.filter((t) => !embedded.includes(t)));
  });

  it('with no cache directory (--no-cache) fills in memory and writes no file', async () => {
    const texts = sentences(9, 'n');
    const cache = cachedEmbedder(endpoint(), null);
    const done = await cache.fill(texts, { concurrency: 2, batchSize: 4 });
    expect(done).toMatchObject({ total: 9, embedded: 9 });
    expectServerVectors(texts, await cache.embed(texts));
    expect(embeddingRequests()).toHaveLength(3);
    expect(existsSync(join(process.cwd(), '.cache', 'embeddings', cacheFileName(cache.id)))).toBe(false);
  });

  it('names the cache file when the endpoint now answers with another dimension', async () => {
    const cacheDir = freshDir();
    const first = cachedEmbedder(endpoint(), cacheDir);
    await first.fill(['One old sentence.'], { concurrency: 1, batchSize: 1 });
    await first.dispose?.();
    const wider = await startScriptedLlmServer({ apiKey: KEY, embeddingDimension: DIMENSION + 4 });
    try {
      // Same id (same base URL and model name) but another model behind it: a scripted stand-in on another port
      // is reached through a fetch that rewrites the port.
      const changed = createOpenAIEmbedder({
        baseUrl: server.baseUrl,
        model: 'scripted-embedder',
        apiKey: KEY,
        fetch: (input, init) => fetch(String(input).replace(server.baseUrl, wider.baseUrl), init),
      });
      await expect(
        cachedEmbedder(changed, cacheDir).fill(['One new sentence.'], { concurrency: 1, batchSize: 1 }),
      ).rejects.toThrow(
        new RegExp(`${cacheFileName(changed.id).replace(/\./g, '\\.')} holds ${DIMENSION}-d vectors`),
      );
    } finally {
      await wider.close();
    }
  });

  it('cuts a torn tail left by a killed run and re-embeds only the torn record', async () => {
    const cacheDir = freshDir();
    const texts = sentences(6, 't');
    const first = cachedEmbedder(endpoint(), cacheDir);
    await first.fill(texts, { concurrency: 2, batchSize: 2 });
    await first.dispose?.();
    const file = join(cacheDir, cacheFileName(first.id));
    const whole = statSync(file).size;
    expect(whole).toBe(16 + 6 * (32 + 4 * DIMENSION));
    // Half of one more record, as a SIGKILL in the middle of an append leaves it.
    appendFileSync(file, Buffer.alloc(32 + 2 * DIMENSION, 9));
    server.reset();
    const next = cachedEmbedder(endpoint(), cacheDir);
    const more = [...texts, 'One sentence more.'];
    expect(await next.missing(more)).toEqual(['One sentence more.']);
    expect(statSync(file).size).toBe(whole);
    await next.fill(more, { concurrency: 2, batchSize: 2 });
    await next.dispose?.();
    expect(server.embeddedTexts).toEqual(['One sentence more.']);
    expect(statSync(file).size).toBe(whole + 32 + 4 * DIMENSION);
    const reread = cachedEmbedder(endpoint(), cacheDir);
    expectServerVectors(more, await reread.embed(more));
    expect(server.embeddedTexts).toEqual(['One sentence more.']);
  });
});

describe('progress lines', () => {
  it('gives texts done of the total, the rate of this run and the time left', () => {
    expect(formatFillProgress({ total: 1000, cached: 100, embedded: 400, seconds: 10 })).toBe(
      'embed 500/1,000 texts (100 cached), 40 texts/s, 13 s left',
    );
    expect(formatFillProgress({ total: 200_000, cached: 0, embedded: 2000, seconds: 4 })).toBe(
      'embed 2,000/200,000 texts, 500 texts/s, 6 min 36 s left',
    );
  });

  it('prints at most one line per interval', () => {
    let clock = 0;
    const lines: number[] = [];
    const report = throttled(
      (n: number) => lines.push(n),
      2000,
      () => clock,
    );
    for (let i = 0; i < 50; i++) {
      report(i);
      clock += 100;
    }
    expect(lines).toEqual([0, 20, 40]);
  });
});

describe('cli index --embedder openai: at scale', () => {
  async function capture(fn: () => Promise<number>): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((out += String(c)), true));
    const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((err += String(c)), true));
    try {
      return { code: await fn(), out, err };
    } finally {
      o.mockRestore();
      e.mockRestore();
    }
  }

  it('embeds with --concurrency and --batch, retries a 503, logs no key, and stores the server’s vectors', async () => {
    process.env[EMBEDDINGS_KEY_ENV] = KEY;
    const file = join(dir, 'rivers.txt');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(file, sentences(40, 'c').join(' '));
    server.scriptEmbeddings({ kind: 'ok' }, { kind: 'server-error', status: 503 });
    server.setEmbeddingLatency(5);
    const out = join(dir, 'service.bundle');
    const spec = `openai:${server.baseUrl}#scripted-embedder`;
    const args = [file, '--out', out, '--embedder', spec, '--vectors', 'f32', '--no-graph-mask'];
    const run = await capture(() =>
      index([...args, '--cache', freshDir(), '--concurrency', '2', '--batch', '3']),
    );
    expect(run.code).toBe(0);
    expect(run.err).toMatch(/retry 1\/5 in [\d.]+ s: openai embedder: .*answered HTTP 503/);
    expect(run.err).toMatch(/embedded 40 texts in [\d.]+ s/);
    expect(run.out + run.err).not.toContain(KEY);
    expect(server.maxEmbeddingsInFlight()).toBeLessThanOrEqual(2);
    for (const r of embeddingRequests()) {
      expect((r.body as { input: string[] }).input.length).toBeLessThanOrEqual(3);
    }
    const bundle = await readBundleFile(out);
    const ordered = [...bundle.sentences].sort((a, b) => a.index - b.index);
    expect(ordered).toHaveLength(40);
    expectServerVectors(
      ordered.map((s) => s.text),
      bundle.vectors.get(bundle.documents[0].id) as Float32Array,
    );
  });

  it('fails on a 400 with the endpoint and status named', async () => {
    process.env[EMBEDDINGS_KEY_ENV] = KEY;
    const file = join(dir, 'lakes.txt');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(file, sentences(5, 'l').join(' '));
    server.scriptEmbeddings({ kind: 'server-error', status: 400 });
    const spec = `openai:${server.baseUrl}#scripted-embedder`;
    await expect(
      capture(() =>
        index([
          file,
          '--out',
          join(dir, 'x.bundle'),
          '--embedder',
          spec,
          '--cache',
          freshDir(),
          '--no-graph-mask',
        ]),
      ),
    ).rejects.toThrow(`${server.baseUrl}/embeddings answered HTTP 400`);
    expect(embeddingRequests()).toHaveLength(1);
  });
});
