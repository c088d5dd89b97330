// OpenAI-compatible /v1/embeddings client against a scripted loopback server started by the test.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIEmbedder } from '../../../src/core/embed/openai.ts';

interface Seen {
  url: string;
  auth: string | undefined;
  body: { model: string; input: string[] };
}
let server: Server;
let baseUrl: string;
let seen: Seen[] = [];
let reply: (body: Seen['body'], res: ServerResponse) => void;

// Deterministic fake embedding: [len, vowels, 1] (unnormalized, so the client must normalize).
function fake(text: string): number[] {
  return [text.length, (text.match(/[aeiou]/g) ?? []).length, 1];
}
function okReply(body: Seen['body'], res: ServerResponse): void {
  const data = body.input.map((t, index) => ({ object: 'embedding', index, embedding: fake(t) }));
  res.writeHead(200, { 'Content-Type': 'application/json' });
  // Reversed on purpose: the client must order rows by `index`.
  res.end(JSON.stringify({ object: 'list', data: data.reverse(), model: body.model }));
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as Seen['body'];
      seen.push({ url: req.url ?? '', auth: req.headers.authorization, body });
      reply(body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  seen = [];
  reply = okReply;
});

describe('OpenAI-compatible embedder', () => {
  it('posts batches to <baseUrl>/embeddings, learns the dimension and normalizes rows in input order', async () => {
    const e = createOpenAIEmbedder({
      baseUrl: baseUrl + '/',
      model: 'm1',
      apiKey: 'sk-secret',
      batchSize: 2,
    });
    expect(e.id).toBe(`openai:${baseUrl}/#m1`);
    const m = await e.embed(['abc', 'hello', 'x']);
    expect(e.dimension).toBe(3);
    expect(seen.map((s) => s.url)).toEqual(['/v1/embeddings', '/v1/embeddings']);
    expect(seen.map((s) => s.body.input)).toEqual([['abc', 'hello'], ['x']]);
    expect(seen[0].auth).toBe('Bearer sk-secret');
    expect(seen[0].body.model).toBe('m1');
    // 'abc' → [3,1,1]/√11; 'hello' → [5,2,1]/√30; 'x' → [1,0,1]/√2
    const expected = [3, 1, 1]
      .map((v) => v / Math.sqrt(11))
      .concat(
        [5, 2, 1].map((v) => v / Math.sqrt(30)),
        [1, 0, 1].map((v) => v / Math.sqrt(2)),
      );
    expected.forEach((v, i) => expect(m[i]).toBeCloseTo(v, 6));
  });

  it('sends a repeated text once and returns identical rows for it', async () => {
    const e = createOpenAIEmbedder({ baseUrl, model: 'm1' });
    const m = await e.embed(['same', 'other', 'same']);
    expect(seen[0].body.input).toEqual(['same', 'other']);
    expect(seen[0].auth).toBeUndefined();
    expect(Array.from(m.subarray(6, 9))).toEqual(Array.from(m.subarray(0, 3)));
  });

  it('names the status and the server message on errors, never the API key', async () => {
    reply = (_b, res) => {
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Incorrect API key provided' } }));
    };
    const e = createOpenAIEmbedder({ baseUrl, model: 'm1', apiKey: 'sk-secret' });
    const err = await e.embed(['a']).catch((x: Error) => x);
    expect(String(err)).toMatch(/HTTP 401: Incorrect API key provided/);
    expect(String(err)).not.toContain('sk-secret');
  });

  it('makes one attempt by default (the app), and retries a 503 only when asked to, naming the attempts', async () => {
    reply = (_b, res) => {
      res.writeHead(503, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'overloaded' } }));
    };
    const once = createOpenAIEmbedder({ baseUrl, model: 'm1' });
    await expect(once.embed(['a'])).rejects.toThrow(/HTTP 503: overloaded$/);
    expect(seen).toHaveLength(1);
    const retries: number[] = [];
    const thrice = createOpenAIEmbedder({
      baseUrl,
      model: 'm1',
      maxAttempts: 3,
      backoff: { baseMs: 1, maxMs: 2 },
      onRetry: (r) => retries.push(r.attempt),
    });
    await expect(thrice.embed(['a'])).rejects.toThrow(/HTTP 503: overloaded \(gave up after 3 attempts\)/);
    expect(seen).toHaveLength(4);
    expect(retries).toEqual([1, 2]);
  });

  it('rejects a response with the wrong number of embeddings', async () => {
    reply = (_b, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ data: [{ index: 0, embedding: [1, 2] }] }));
    };
    const e = createOpenAIEmbedder({ baseUrl, model: 'm1' });
    await expect(e.embed(['a', 'b'])).rejects.toThrow(/returned 1 embeddings for 2 inputs/);
  });

  it('reports an unreachable endpoint and a bad base URL', async () => {
    const e = createOpenAIEmbedder({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm1' });
    await expect(e.embed(['a'])).rejects.toThrow(/127\.0\.0\.1:1\/v1\/embeddings is unreachable/);
    expect(() => createOpenAIEmbedder({ baseUrl: 'localhost:8080', model: 'm' })).toThrow(
      /must start with http/,
    );
  });

  it('stops before sending when the signal has fired', async () => {
    const ac = new AbortController();
    ac.abort();
    const e = createOpenAIEmbedder({ baseUrl, model: 'm1' });
    await expect(e.embed(['a'], ac.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toHaveLength(0);
  });
});
