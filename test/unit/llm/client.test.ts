import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LlmClient } from '../../../src/core/llm/client.ts';
import { LlmError } from '../../../src/core/llm/errors.ts';
import type { LlmSettings } from '../../../src/core/llm/settings.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scriptedLlmServer.ts';

const KEY = 'sk-test-0123456789abcdefSECRET';
let server: ScriptedLlmServer;

function settings(over: Partial<LlmSettings> = {}): LlmSettings {
  return {
    baseUrl: server.url, // without /v1: the client adds it
    model: 'scripted-model',
    apiKey: KEY,
    priceInPerM: 2,
    priceOutPerM: 8,
    concurrency: 2,
    ...over,
  };
}

const fast = { backoff: { baseMs: 5, maxMs: 20 }, random: () => 0.5 };
const answerMsg = [
  { role: 'user' as const, content: 'Context:\n[1] (doc)\nAda wrote notes. More.\n\nQuestion: who?' },
];

beforeAll(async () => {
  server = await startScriptedLlmServer({ apiKey: KEY });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

describe('LlmClient', () => {
  it('returns the reply with the usage the server reported and its cost', async () => {
    const client = new LlmClient(settings(), fast);
    const r = await client.chat({ messages: answerMsg });
    expect(r.text).toBe('Ada wrote notes. [1]');
    expect(r.usage.estimated).toBe(false);
    expect(r.usage.outputTokens).toBe(4); // the scripted server counts words
    const inTok = r.usage.inputTokens;
    expect(r.usage.cost).toBeCloseTo((inTok * 2 + 4 * 8) / 1e6, 12);
    expect(client.totals).toMatchObject({ calls: 1, failedCalls: 0, outputTokens: 4 });
    expect(server.requests[0].authorization).toBe(`Bearer ${KEY}`);
  });

  it('streams deltas in order and assembles the same text', async () => {
    const client = new LlmClient(settings(), fast);
    const deltas: string[] = [];
    const r = await client.chat({ messages: answerMsg, stream: true, onDelta: (d) => deltas.push(d) });
    expect(deltas).toEqual(['Ada ', 'wrote ', 'notes. ', '[1]']);
    expect(r.text).toBe('Ada wrote notes. [1]');
    expect(r.usage.estimated).toBe(false);
    expect(r.finishReason).toBe('stop');
  });

  it('waits for Retry-After on 429 and then succeeds', async () => {
    server.script({ kind: 'rate-limit', retryAfterS: 0.3 });
    const client = new LlmClient(settings(), fast);
    const t0 = Date.now();
    const r = await client.chat({ messages: answerMsg });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(r.attempts).toBe(2);
    expect(server.requests.map((q) => q.outcome)).toEqual(['rate-limit', 'ok']);
  });

  it('retries 500, a non-JSON body and a dropped connection, then succeeds', async () => {
    server.script({ kind: 'server-error' }, { kind: 'not-json-body' }, { kind: 'drop' });
    const client = new LlmClient(settings(), fast);
    const r = await client.chat({ messages: answerMsg });
    expect(r.attempts).toBe(4);
    expect(r.text).toBe('Ada wrote notes. [1]');
    expect(server.requests.map((q) => q.outcome)).toEqual(['server-error', 'not-json-body', 'drop', 'ok']);
  });

  it('gives up on persistent 500 with a message naming the endpoint and the attempts', async () => {
    server.script(...Array.from({ length: 3 }, () => ({ kind: 'server-error' as const })));
    const client = new LlmClient(settings(), { ...fast, maxRetries: 2 });
    const err = await client.chat({ messages: answerMsg }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).kind).toBe('server');
    expect((err as Error).message).toMatch(/HTTP 500.*gave up after 3 attempts/);
    expect((err as Error).message).toContain(`${server.url}/v1/chat/completions`);
    expect(client.totals.failedCalls).toBe(1);
  });

  it('aborts a stalled stream after the stall timeout and retries it', async () => {
    server.script({ kind: 'stall', afterDeltas: 0 });
    const client = new LlmClient(settings(), { ...fast, stallTimeoutMs: 200 });
    const t0 = Date.now();
    const r = await client.chat({ messages: answerMsg, stream: true, onDelta: () => undefined });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
    expect(r.text).toBe('Ada wrote notes. [1]');
    expect(server.requests.map((q) => q.outcome)).toEqual(['stall', 'ok']);
  });

  it('does not retry a stream that stalls after text was delivered (no duplicated tokens)', async () => {
    server.script({ kind: 'stall', afterDeltas: 2 });
    const client = new LlmClient(settings(), { ...fast, stallTimeoutMs: 200 });
    const deltas: string[] = [];
    const err = await client
      .chat({ messages: answerMsg, stream: true, onDelta: (d) => deltas.push(d) })
      .catch((e: unknown) => e);
    expect((err as LlmError).kind).toBe('stall');
    expect((err as Error).message).toMatch(/stalled \(no data for 200 ms\)/);
    expect(deltas).toEqual(['Ada ', 'wrote ']);
    expect(server.requests).toHaveLength(1);
  });

  it('times out a non-streamed call that never completes', async () => {
    server.script({ kind: 'stall' });
    const client = new LlmClient(settings(), { ...fast, requestTimeoutMs: 200, maxRetries: 0 });
    const err = await client.chat({ messages: answerMsg }).catch((e: unknown) => e);
    expect((err as LlmError).kind).toBe('timeout');
    expect((err as Error).message).toContain('within 200 ms');
  });

  it('fails 401 at once with a message that does not contain the key', async () => {
    const client = new LlmClient(settings({ apiKey: 'sk-wrong-key-99887766554433' }), fast);
    const err = await client.chat({ messages: answerMsg }).catch((e: unknown) => e);
    expect((err as LlmError).kind).toBe('auth');
    expect((err as Error).message).toMatch(/HTTP 401: the API key was refused/);
    // The server echoed "Bearer sk-wrong-key-…": the client must have redacted it.
    expect((err as Error).message).not.toContain('sk-wrong-key');
    expect((err as Error).message).not.toContain('554433');
    expect(server.requests).toHaveLength(1);
  });

  it('reports an unknown model as 404 with the model name', async () => {
    const client = new LlmClient(settings({ model: 'nope' }), fast);
    const err = await client.chat({ messages: answerMsg }).catch((e: unknown) => e);
    expect((err as LlmError).kind).toBe('not-found');
    expect((err as Error).message).toContain('unknown model "nope"');
  });

  it('falls back to plain prompting when the server rejects JSON mode, and remembers it', async () => {
    server.script({ kind: 'reject-json-mode' }, { kind: 'reject-json-mode' });
    const client = new LlmClient(settings(), fast);
    await client.chat({ messages: answerMsg, json: true });
    await client.chat({ messages: answerMsg, json: true });
    const formats = server.requests.map((q) => q.body?.response_format !== undefined);
    expect(formats).toEqual([true, false, false]);
  });

  it('cancels an in-flight request through the AbortSignal', async () => {
    server.script({ kind: 'delay', ms: 2000 });
    const client = new LlmClient(settings(), fast);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const t0 = Date.now();
    const err = await client
      .chat({ messages: answerMsg, signal: controller.signal })
      .catch((e: unknown) => e);
    expect((err as LlmError).kind).toBe('aborted');
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    server.setLatency(60);
    const client = new LlmClient(settings({ concurrency: 2 }), fast);
    const t0 = Date.now();
    await Promise.all(Array.from({ length: 4 }, () => client.chat({ messages: answerMsg })));
    const elapsed = Date.now() - t0;
    server.setLatency(0);
    // 4 calls of ≥60 ms two at a time take at least two rounds.
    expect(elapsed).toBeGreaterThanOrEqual(115);
    expect(client.totals.calls).toBe(4);
  });

  it('estimates usage with cl100k when the server reports none', async () => {
    const fetchNoUsage: typeof fetch = async () =>
      new Response(
        JSON.stringify({ choices: [{ message: { content: 'hello world' }, finish_reason: 'stop' }] }),
        {
          status: 200,
        },
      );
    const client = new LlmClient(settings({ priceInPerM: 0, priceOutPerM: 1_000_000 }), {
      fetch: fetchNoUsage,
    });
    const r = await client.chat({ messages: [{ role: 'user', content: 'hi' }] });
    expect(r.usage.estimated).toBe(true);
    expect(r.usage.outputTokens).toBe(2); // "hello world" = 2 cl100k tokens
    expect(r.usage.inputTokens).toBe(1 + 3 + 3); // "hi" + per-message framing + reply priming
    expect(r.usage.cost).toBe(2);
  });

  it('reports an unreachable server as a network error after retries', async () => {
    const client = new LlmClient(settings({ baseUrl: 'http://127.0.0.1:9' }), { ...fast, maxRetries: 1 });
    const err = await client.chat({ messages: answerMsg }).catch((e: unknown) => e);
    expect((err as LlmError).kind).toBe('network');
    expect((err as Error).message).toMatch(
      /could not be reached at http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions/,
    );
  });

  it('drops stream_options once for a server that rejects it, and estimates the usage instead', async () => {
    const bodies: Array<Record<string, unknown>> = [];
    const strict: typeof fetch = async (_url, init) => {
      const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
      bodies.push(body);
      if (body.stream_options) {
        return new Response(JSON.stringify({ error: { message: 'unknown field: stream_options' } }), {
          status: 400,
        });
      }
      const sse =
        'data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
      return new Response(sse, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
    };
    const client = new LlmClient(settings(), { fetch: strict });
    const r = await client.chat({ messages: answerMsg, stream: true });
    await client.chat({ messages: answerMsg, stream: true });
    expect(r.text).toBe('hi');
    expect(r.usage.estimated).toBe(true);
    expect(bodies.map((b) => b.stream_options !== undefined)).toEqual([true, false, false]);
  });
});
