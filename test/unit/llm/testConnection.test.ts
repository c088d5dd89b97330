import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LlmSettings } from '../../../src/core/llm/settings.ts';
import { testConnection } from '../../../src/core/llm/testConnection.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scriptedLlmServer.ts';

const KEY = 'sk-conn-test-abcdefghijkl';
let server: ScriptedLlmServer;
const s = (over: Partial<LlmSettings> = {}): LlmSettings => ({
  baseUrl: server.baseUrl,
  model: 'scripted-model',
  apiKey: KEY,
  priceInPerM: 0,
  priceOutPerM: 0,
  concurrency: 1,
  ...over,
});

beforeAll(async () => {
  server = await startScriptedLlmServer({ apiKey: KEY, models: ['scripted-model', 'other'] });
});
afterAll(() => server.close());

describe('testConnection', () => {
  it('says OK with the latency and the listed models', async () => {
    const d = await testConnection(s());
    expect(d.status).toBe('ok');
    expect(d.ok).toBe(true);
    expect(d.models).toEqual(['scripted-model', 'other']);
    expect(d.message).toMatch(/model "scripted-model" answered in \d+ ms/);
  });

  it('diagnoses a refused key without echoing it', async () => {
    const d = await testConnection(s({ apiKey: 'sk-bad-key-zyxwvutsrq' }));
    expect(d.status).toBe('auth');
    expect(d.message).toContain('HTTP 401');
    expect(d.message).not.toContain('zyxwvutsrq');
  });

  it('diagnoses an unknown model and lists what the server offers', async () => {
    const d = await testConnection(s({ model: 'llama9' }));
    expect(d.status).toBe('unknown-model');
    expect(d.message).toContain('"llama9"');
    expect(d.message).toContain('scripted-model, other');
  });

  it('diagnoses an unreachable server from Node', async () => {
    const d = await testConnection(s({ baseUrl: 'http://127.0.0.1:9/v1' }));
    expect(d.status).toBe('unreachable');
    expect(d.message).toMatch(/Cannot reach http:\/\/127\.0\.0\.1:9\/v1/);
  });

  it('explains CORS with the fixes for Ollama, LM Studio and llama.cpp when a page fetch fails', async () => {
    const browserLikeFetch: typeof fetch = async () => {
      throw new TypeError('Failed to fetch');
    };
    const d = await testConnection(s({ baseUrl: 'http://127.0.0.1:11434' }), {
      fetch: browserLikeFetch,
      pageOrigin: 'http://127.0.0.1:4173',
    });
    expect(d.status).toBe('cors');
    expect(d.message).toContain('OLLAMA_ORIGINS=http://127.0.0.1:4173');
    expect(d.message).toContain('Enable CORS');
    expect(d.message).toContain('llama.cpp');
  });

  it('refuses invalid settings before any request', async () => {
    const before = server.requests.length;
    const d = await testConnection(s({ baseUrl: 'not a url' }));
    expect(d.status).toBe('invalid-settings');
    expect(server.requests.length).toBe(before);
  });
});
