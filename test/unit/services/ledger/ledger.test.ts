// The network ledger's recorder against the scripted OpenAI-compatible server on loopback: one entry per request
// the server received (method, path, count), body sizes as sent and received, status, the tokens the client
// counted on its own call, failures recorded too — and never the key, a query string or a body.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmClient } from '../../../../src/core/llm/client.ts';
import { testConnection } from '../../../../src/core/llm/testConnection.ts';
import { createOpenAIEmbedder } from '../../../../src/core/embed/openai.ts';
import type { LedgerEntry } from '../../../../src/services/ledger/ledgerProtocol.ts';
import { NetworkLedger } from '../../../../src/services/ledger/ledger.ts';
import { LedgerStore } from '../../../../src/store/ledgerStore.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../../support/scriptedLlmServer.ts';

const KEY = 'sk-ledger-secret-987654';
let server: ScriptedLlmServer;

beforeAll(async () => {
  server = await startScriptedLlmServer({ apiKey: KEY });
});
afterAll(async () => {
  await server.close();
});

/** Entries by id, last version wins (an entry is re-sent when its usage arrives). */
function collector() {
  const byId = new Map<string, LedgerEntry>();
  return {
    sink: (e: LedgerEntry) => byId.set(e.id, e),
    entries: () => [...byId.values()],
    settle: () => new Promise((r) => setTimeout(r, 50)),
  };
}

const settings = (concurrency = 1) => ({
  baseUrl: server.baseUrl,
  model: 'scripted-model',
  apiKey: KEY,
  concurrency,
  priceInPerM: 1,
  priceOutPerM: 2,
});

describe('NetworkLedger', () => {
  it('records each request the server received, with sizes, status and the call’s tokens, and never the key', async () => {
    const before = server.requests.length;
    const c = collector();
    const ledger = new NetworkLedger(c.sink, 'test');
    const diagnosis = await testConnection(settings(), { fetch: ledger.fetch('connection test') });
    expect(diagnosis.status).toBe('ok');
    const client = new LlmClient(settings(), ledger.clientOptions('answer'));
    const streamed = await client.chat({
      messages: [{ role: 'user', content: 'Question: who?\n\nContext:\n[1] Ada wrote it.' }],
      stream: true,
      onDelta: () => undefined,
    });
    const plain = await client.chat({ messages: [{ role: 'user', content: 'Say something.' }] });
    const embedder = createOpenAIEmbedder({
      baseUrl: server.baseUrl,
      model: 'scripted-embedder',
      apiKey: KEY,
      fetch: ledger.fetch('embeddings'),
    });
    await embedder.embed(['one sentence', 'another sentence']);
    await c.settle();

    const received = server.requests.slice(before).map((r) => `${r.method} ${r.path}`);
    const entries = c.entries();
    expect(entries.map((e) => `${e.method} ${e.path}`).sort()).toEqual([...received].sort());
    // The connection test probes the model list and one tiny chat; then two answers and one embedding batch.
    expect(entries.map((e) => `${e.purpose}: ${e.method} ${e.path}`).sort()).toEqual([
      'answer: POST /v1/chat/completions',
      'answer: POST /v1/chat/completions',
      'connection test: GET /v1/models',
      'connection test: POST /v1/chat/completions',
      'embeddings: POST /v1/embeddings',
    ]);
    for (const e of entries) {
      expect(e.status, JSON.stringify(e)).toBe(200);
      expect(e.host).toBe(new URL(server.url).host);
      expect(e.bytesIn).toBeGreaterThan(0);
    }
    const chats = entries.filter((e) => e.purpose === 'answer');
    expect(chats).toHaveLength(2);
    // The chat bodies as the client sent them: at least the prompt's bytes, and the stream's larger (SSE framing).
    for (const e of chats) expect(e.bytesOut).toBeGreaterThan(20);
    const tokens = chats.map((e) => [e.inputTokens, e.outputTokens]).sort();
    expect(tokens).toEqual(
      [
        [streamed.usage.inputTokens, streamed.usage.outputTokens],
        [plain.usage.inputTokens, plain.usage.outputTokens],
      ].sort(),
    );
    expect(chats.every((e) => typeof e.cost === 'number' && e.cost > 0)).toBe(true);
    const text = JSON.stringify(entries);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('Ada wrote it');
  });

  it('puts each call’s usage on the request it was reported with, not on the one that finished last', async () => {
    const c = collector();
    const ledger = new NetworkLedger(c.sink, 'test');
    const options = ledger.clientOptions('answer', () => Promise.resolve(new Response('{}')));
    const first: RequestInit = { method: 'POST', body: 'first request' };
    const second: RequestInit = { method: 'POST', body: 'the second request, longer' };
    // Both requests finish before either usage arrives, as overlapping calls of a client at concurrency 2 do.
    await options.fetch(`${server.baseUrl}/chat/completions`, first);
    await options.fetch(`${server.baseUrl}/chat/completions`, second);
    await c.settle();
    options.onUsage({ inputTokens: 11, outputTokens: 1, estimated: false, cost: 0 }, first);
    options.onUsage({ inputTokens: 22, outputTokens: 2, estimated: false, cost: 0 }, second);
    await c.settle();
    const bySize = c.entries().sort((a, b) => a.bytesOut - b.bytesOut);
    expect(bySize.map((e) => [e.bytesOut, e.inputTokens, e.outputTokens])).toEqual([
      [13, 11, 1],
      [26, 22, 2],
    ]);
  });

  it('counts the bytes of a response body exactly and drops the query string', async () => {
    const c = collector();
    const ledger = new NetworkLedger(c.sink, 'test');
    const body = JSON.stringify({ model: 'scripted-embedder', input: ['é'] }); // 2-byte character: bytes, not chars
    const res = await ledger.fetch('embeddings')(`${server.baseUrl}/embeddings?api_key=${KEY}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
      body,
    });
    const received = new Uint8Array(await res.arrayBuffer()).byteLength;
    await c.settle();
    const [e] = c.entries();
    expect(e.path).toBe('/v1/embeddings');
    expect(e.bytesOut).toBe(new TextEncoder().encode(body).length);
    expect(e.bytesOut).toBe(body.length + 1);
    expect(e.bytesIn).toBe(received);
    expect(JSON.stringify(e)).not.toContain(KEY);
  });

  it('records a request that got no response, and an HTTP error', async () => {
    const c = collector();
    const ledger = new NetworkLedger(c.sink, 'test');
    await expect(ledger.fetch('answer')('http://127.0.0.1:1/v1/models')).rejects.toThrow();
    const unauthorized = await ledger.fetch('connection test')(`${server.baseUrl}/models`);
    await unauthorized.text();
    await c.settle();
    const [failed, denied] = c.entries();
    expect(failed).toMatchObject({ status: 0, error: 'network error', path: '/v1/models', bytesIn: 0 });
    expect(denied).toMatchObject({ status: 401, purpose: 'connection test' });
  });

  it('keeps one stored entry per request: its usage replaces the first version, oldest first', async () => {
    const store = new LedgerStore('ledger-test', { indexedDB: new IDBFactory(), IDBKeyRange });
    const writes: Array<Promise<void>> = [];
    const ledger = new NetworkLedger((e) => writes.push(store.put(e)), 'test');
    const client = new LlmClient(settings(), ledger.clientOptions('KG build'));
    await client.chat({ messages: [{ role: 'user', content: 'One.' }] });
    await client.chat({ messages: [{ role: 'user', content: 'Two, a little longer.' }] });
    await new Promise((r) => setTimeout(r, 50));
    await Promise.all(writes);
    // Each request was written at least twice (on its end, and with its usage), and is stored once.
    expect(writes.length).toBeGreaterThanOrEqual(2);
    const stored = await store.list();
    expect(stored).toHaveLength(2);
    expect(stored.map((e) => e.purpose)).toEqual(['KG build', 'KG build']);
    expect(stored.every((e) => (e.inputTokens ?? 0) > 0 && e.status === 200)).toBe(true);
    expect(stored[0].at <= stored[1].at).toBe(true);
    await store.clear();
    expect(await store.list()).toEqual([]);
    store.close();
  });
});
