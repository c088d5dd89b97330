// The stored LLM key and a script in the page (issue 23, item 4): a page script can start the app's own KG worker
// and call its API, so the API never hands the key out and never sends it to a URL the page names. getSettings
// leaves the key out; testConnection and saveSettings use the stored key only with the stored base URL. Two
// scripted servers on loopback: the person's endpoint (which requires the key) and a stranger recording every
// Authorization header it is sent.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LlmClient, type LlmSettings } from '../../../../src/core/llm/index.ts';
import { KgBuildService } from '../../../../src/services/llm/kgBuild.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { DexieKgStore } from '../../../../src/store/kgStore.ts';
import { Repo } from '../../../../src/store/repo.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../../support/scriptedLlmServer.ts';

const KEY = 'sk-stored-secret-key-4242';
let endpoint: ScriptedLlmServer;
let stranger: ScriptedLlmServer;
let kg: KgBuildService;
let repo: Repo;

const settings = (baseUrl: string, apiKey = ''): LlmSettings => ({
  baseUrl,
  model: 'scripted-model',
  apiKey,
  priceInPerM: 0,
  priceOutPerM: 0,
  concurrency: 1,
});

beforeAll(async () => {
  endpoint = await startScriptedLlmServer({ apiKey: KEY });
  stranger = await startScriptedLlmServer({});
});
afterAll(async () => {
  await endpoint.close();
  await stranger.close();
});
beforeEach(async () => {
  endpoint.reset();
  stranger.reset();
  repo = new Repo(openDatabase('key-scope', { indexedDB: new IDBFactory(), IDBKeyRange }));
  kg = new KgBuildService({
    repo,
    store: new DexieKgStore(repo.db),
    embedders: { get: () => Promise.reject(new Error('unused')), dispose: () => Promise.resolve() },
    llmClient: (s) => new LlmClient(s),
    lock: { tryRun: async (run) => ({ ran: true as const, value: await run() }) },
  });
  await kg.saveSettings(settings(endpoint.baseUrl, KEY));
});

const sentKeys = (server: ScriptedLlmServer): string[] =>
  server.requests.map((r) => r.authorization ?? '(none)');

describe('the stored LLM key stays with its endpoint', () => {
  it('getSettings tells the page a key is stored, never the key', async () => {
    const seen = await kg.getSettings();
    expect(seen).toMatchObject({ baseUrl: endpoint.baseUrl, apiKey: '', keyStored: true });
    expect(JSON.stringify(seen)).not.toContain(KEY);
  });

  it('testConnection sends the stored key to the stored URL only', async () => {
    expect((await kg.testConnection(settings(endpoint.baseUrl))).ok).toBe(true);
    expect(sentKeys(endpoint).every((h) => h === `Bearer ${KEY}`)).toBe(true);

    // A page script names another URL and no key: the request goes out without one.
    await kg.testConnection(settings(stranger.baseUrl));
    expect(stranger.requests.length).toBeGreaterThan(0);
    expect(sentKeys(stranger).join(' ')).not.toContain(KEY);
  });

  it('saveSettings does not carry the stored key over to another URL', async () => {
    expect(await kg.saveSettings(settings(endpoint.baseUrl))).toEqual({ keyKept: true });
    expect((await repo.getSetting<LlmSettings>('llm'))?.apiKey).toBe(KEY);

    expect(await kg.saveSettings(settings(stranger.baseUrl))).toEqual({ keyKept: false });
    expect((await repo.getSetting<LlmSettings>('llm'))?.apiKey).toBe('');
    // Back to the first URL: the key is gone, it is not resurrected.
    await kg.testConnection(settings(endpoint.baseUrl));
    expect(sentKeys(endpoint).join(' ')).not.toContain(KEY);
  });

  it('a key typed in the form is the page’s own and is used as typed', async () => {
    await kg.testConnection(settings(stranger.baseUrl, 'sk-typed-by-the-person'));
    expect(sentKeys(stranger)).toContain('Bearer sk-typed-by-the-person');
  });
});
