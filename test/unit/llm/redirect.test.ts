// Requests that carry an API key do not follow redirects (issue 9, item 8): a base URL that answers 307 to another
// origin gets a clear error and the other origin gets nothing — not the body, not the key. Without a key the
// redirect is followed as before. Embedding-endpoint errors are redacted like the LLM client's.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIEmbedder } from '../../../src/core/embed/openai.ts';
import { LlmClient } from '../../../src/core/llm/client.ts';
import { DEFAULT_LLM_SETTINGS } from '../../../src/core/llm/settings.ts';
import { testConnection } from '../../../src/core/llm/testConnection.ts';

const KEY = 'sk-redirect-test-SECRET-0123456789';

interface Seen {
  path: string;
  authorization?: string;
}

let target: Server;
let redirector: Server;
let targetUrl = '';
let redirectorUrl = '';
const reachedTarget: Seen[] = [];

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  // The place a redirect points to: records what arrives, answers embeddings for the no-key case.
  target = createServer((req, res) => {
    reachedTarget.push({ path: req.url ?? '', authorization: req.headers.authorization });
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ data: [{ index: 0, embedding: [1, 0, 0] }] }));
    });
  });
  targetUrl = await listen(target);
  // The configured base URL: redirects everything, keeping the path.
  redirector = createServer((req, res) => {
    req.resume();
    res.writeHead(307, { Location: `${targetUrl}${req.url ?? '/'}` }).end();
  });
  redirectorUrl = await listen(redirector);
});

beforeEach(() => {
  reachedTarget.length = 0;
});

afterAll(async () => {
  await new Promise<void>((resolve) => target.close(() => resolve()));
  await new Promise<void>((resolve) => redirector.close(() => resolve()));
});

const settings = () => ({ ...DEFAULT_LLM_SETTINGS, baseUrl: `${redirectorUrl}/v1`, model: 'm', apiKey: KEY });

describe('keyed requests and redirects', () => {
  it('the LLM client refuses a redirect, names where it pointed, and sends nothing there', async () => {
    const client = new LlmClient(settings(), { maxRetries: 0 });
    const error = await client.chat({ messages: [{ role: 'user', content: 'hello' }] }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(
      new RegExp(
        `answered with a redirect to ${targetUrl}/v1/chat/completions; requests carrying the API key`,
      ),
    );
    expect(error?.message).not.toContain(KEY);
    expect(reachedTarget).toEqual([]);
  });

  it('the embeddings client refuses a redirect and sends nothing there', async () => {
    const e = createOpenAIEmbedder({ baseUrl: `${redirectorUrl}/v1`, model: 'm', apiKey: KEY });
    await expect(e.embed(['text'])).rejects.toThrow(/answered with a redirect to .*\/v1\/embeddings/);
    expect(reachedTarget).toEqual([]);
  });

  it('"Test connection" reports the redirect instead of following it', async () => {
    const d = await testConnection(settings());
    expect(d.ok).toBe(false);
    expect(d.message).toMatch(/answered with a redirect/);
    expect(reachedTarget).toEqual([]);
  });

  it('follows a redirect when no key is involved', async () => {
    const e = createOpenAIEmbedder({ baseUrl: `${redirectorUrl}/v1`, model: 'm' });
    expect(Array.from(await e.embed(['text']))).toEqual([1, 0, 0]);
    expect(reachedTarget).toEqual([{ path: '/v1/embeddings', authorization: undefined }]);
  });
});

describe('embedding endpoint errors are redacted', () => {
  let echo: Server;
  let echoUrl = '';
  beforeAll(async () => {
    // Like real servers: the refused key is echoed back, whole or in part.
    echo = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(401, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({ error: { message: `Incorrect API key provided: ${req.headers.authorization}` } }),
        );
      });
    });
    echoUrl = await listen(echo);
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => echo.close(() => resolve()));
  });

  it('never puts the key (or its head or tail) in the error message', async () => {
    const e = createOpenAIEmbedder({ baseUrl: `${echoUrl}/v1`, model: 'm', apiKey: KEY });
    const error = await e.embed(['x']).then(
      () => null,
      (err: unknown) => err as Error,
    );
    expect(error?.message).toMatch(/answered HTTP 401: Incorrect API key provided: Bearer \*\*\*/);
    expect(error?.message).not.toContain(KEY);
    expect(error?.message).not.toContain(KEY.slice(0, 8));
    expect(error?.message).not.toContain(KEY.slice(-6));
  });
});
