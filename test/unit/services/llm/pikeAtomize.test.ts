// Atomizing the library in the app's KG build service over fake-indexeddb, against the scripted server on loopback:
// the estimate before any call (one pass vs separate passes), a one-pass build committing both parts, cancel and
// resume with no chunk sent twice, the query service reading the atomic layer (and reloading it after a build), and
// the atomic layer gone with its document.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LlmClient } from '../../../../src/core/llm/index.ts';
import type { LlmSettings } from '../../../../src/core/llm/index.ts';
import { DexieAtomicStore } from '../../../../src/store/atomicStore.ts';
import { openDatabase, type ConceptDb } from '../../../../src/store/db.ts';
import { DexieKgStore } from '../../../../src/store/kgStore.ts';
import { Repo } from '../../../../src/store/repo.ts';
import { KgBuildService } from '../../../../src/services/llm/kgBuild.ts';
import { QueryService } from '../../../../src/services/query/queryService.ts';
import { LOTHAIR_PASSAGES, preparePassages } from '../../../support/passages.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../../support/scriptedLlmServer.ts';
import { scriptedPike } from '../../../support/scriptedPike.ts';

let server: ScriptedLlmServer;
let db: ConceptDb;
let repo: Repo;

const settings = (): LlmSettings => ({
  baseUrl: server.baseUrl,
  model: 'scripted-model',
  apiKey: '',
  priceInPerM: 1,
  priceOutPerM: 2,
  concurrency: 1,
});

function buildService() {
  return new KgBuildService({
    repo,
    store: new DexieKgStore(db),
    embedders: {
      get: () => Promise.reject(new Error('no embedder in this test')),
      dispose: () => Promise.resolve(),
    },
    llmClient: (s) => new LlmClient(s, { backoff: { baseMs: 5, maxMs: 20 } }),
    lock: { tryRun: async (run) => ({ ran: true as const, value: await run() }) },
  });
}

beforeAll(async () => {
  server = await startScriptedLlmServer({ responders: [scriptedPike()] });
});
afterAll(() => server.close());
beforeEach(async () => {
  server.reset();
  server.setLatency(0);
  db = openDatabase('pike', { indexedDB: new IDBFactory(), IDBKeyRange });
  repo = new Repo(db);
  const documents = await preparePassages(LOTHAIR_PASSAGES);
  await repo.putPreparedDocuments(documents.map((prepared) => ({ prepared })));
});

const both = { kg: true, atomic: true };

describe('atomizing in the KG build service', () => {
  it('estimates before any call: one pass costs one call per chunk and fewer input tokens than two passes', async () => {
    const kg = buildService();
    const e = await kg.estimate(1, both);
    expect(server.requests).toHaveLength(0);
    expect(e.selected.calls).toBe(4);
    expect(e.pendingCalls).toBe(4);
    expect(e.passes!.separate.calls).toBe(8);
    expect(e.passes!.onePass.inputTokens).toBeLessThan(e.passes!.separate.inputTokens);
    // Atomic questions alone, for a library whose KG exists: one call per chunk again.
    expect((await kg.estimate(0.5, { kg: false, atomic: true })).pendingCalls).toBe(2);
    await expect(kg.estimate(1, { kg: false, atomic: false })).rejects.toThrow(/choose what to build/);
  });

  it('one pass: each chunk sent once, its entities and questions committed together; the query service reads them', async () => {
    const kg = buildService();
    await kg.saveSettings(settings());
    const result = await kg.build({ kappa: 1, parts: both });
    expect(result).toMatchObject({
      done: 4,
      failed: 0,
      calls: 4,
      kg: { done: 4 },
      atomic: { done: 4, questions: 5 },
    });
    expect(server.extractionTexts()).toHaveLength(4);
    const status = await kg.status();
    expect(status).toMatchObject({ done: 4, atomic: { done: 4, failed: 0, questions: 5, embedded: 0 } });
    expect(status.entities).toBeGreaterThan(0);

    const query = new QueryService({
      library: repo,
      kgStore: new DexieKgStore(db),
      atomicStore: new DexieAtomicStore(db),
      embedders: { get: () => Promise.reject(new Error('none')), dispose: () => Promise.resolve() },
      openBundle: () => Promise.reject(new Error('none')),
      llmClient: (s) => new LlmClient(s),
    });
    const r = await query.ask({
      question: 'What about Ermengarde of Tours died on 20 March 851 in Tours?',
      mode: 'atomic',
      budget: 4000,
    });
    expect(r.evidence[0].provenance.via).toBe(
      'What about Ermengarde of Tours died on 20 March 851 in Tours?',
    );

    // Removing the document removes its questions; the query service reloads the layer after invalidate.
    const doc = (await db.documents.toArray()).find((d) => d.title === 'Ermengarde of Tours')!;
    await repo.removeDocument(doc.id);
    expect((await kg.status()).atomic.questions).toBe(4);
    query.invalidate('library');
    const after = await query.ask({
      question: 'What about Ermengarde of Tours died on 20 March 851 in Tours?',
      mode: 'atomic',
      budget: 4000,
    });
    expect(after.evidence.some((e) => e.docId === doc.id)).toBe(false);
  });

  it('cancelled after the first chunk, then resumed: no chunk is sent twice, KG-done chunks are only atomized', async () => {
    const kg = buildService();
    await kg.saveSettings(settings());
    // The KG of half the chunks first (KG only, as before this feature).
    const kgOnly = await kg.build({ kappa: 0.5 });
    expect(kgOnly).toMatchObject({ done: 2, calls: 2, atomic: { done: 0 } });
    server.reset();
    server.setLatency(80);
    const progress: number[] = [];
    const first = kg.build({ kappa: 1, parts: both }, (p) => {
      progress.push(p.done);
      if (p.done === 1) kg.cancelBuild();
    });
    const stopped = await first;
    expect(stopped.cancelled).toBe(true);
    expect(stopped.remaining).toBeGreaterThan(0);
    server.setLatency(0);
    const resumed = await kg.build({ kappa: 1, parts: both });
    expect(resumed.cancelled).toBe(false);
    expect(resumed.remaining).toBe(0);
    // Every chunk's text went out once in this feature's calls: 2 atomize-only (KG done) + 2 one-pass.
    const texts = server.extractionTexts();
    expect(texts).toHaveLength(4);
    expect(new Set(texts).size).toBe(4);
    const atomizeOnly = server.requests.filter((r) =>
      r.body?.messages?.[0]?.content.startsWith('You write atomic questions'),
    );
    expect(atomizeOnly).toHaveLength(2);
    expect((await kg.status()).atomic).toMatchObject({ done: 4, failed: 0 });
    expect((await kg.estimate(1, both)).pendingCalls).toBe(0);
  });
  it('a document removed while its chunk is being distilled leaves nothing of it behind (no orphan)', async () => {
    const kg = buildService();
    await kg.saveSettings(settings());
    const doc = (await db.documents.toArray()).find((d) => d.title === 'Teutberga')!;
    let removing: Promise<boolean> | undefined;
    server.addResponder((messages) => {
      if (messages.some((m) => m.content.includes('Teutberga was a queen')))
        removing ??= repo.removeDocument(doc.id);
      return undefined;
    });
    server.setLatency(150);
    await kg.build({ kappa: 1, parts: both });
    expect(await removing).toBe(true);
    expect((await db.kgEntities.toArray()).some((e) => e.name === 'Teutberga')).toBe(false);
    expect(await db.atomicQuestions.where('docId').equals(doc.id).count()).toBe(0);
    expect(await db.atomicChunks.where('docId').equals(doc.id).count()).toBe(0);
    expect((await kg.status()).atomic.done).toBe(3);
  });
});
