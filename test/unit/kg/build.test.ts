// The KG build is the distillation build with the KG part alone (buildDistilled, kinds { kg }): one extraction call
// per chunk, resumable, cancellable, failed chunks retried only on request, no chunk ever sent twice.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DistillChunkInput } from '../../../src/core/atomic/index.ts';
import { MemoryKgStore } from '../../../src/core/kg/store.ts';
import { buildKgOnly } from '../../support/buildKgOnly.ts';
import { scriptedClient } from '../../support/scriptedClient.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scriptedLlmServer.ts';

let server: ScriptedLlmServer;
// Priced, so that the summary's cost can be checked against its tokens.
const client = () => scriptedClient(server, { priceInPerM: 1, priceOutPerM: 2 });

const chunks: DistillChunkInput[] = Array.from({ length: 8 }, (_, i) => ({
  id: `d${i % 2}#0000#${String(i).padStart(4, '0')}`,
  docId: `d${i % 2}`,
  text: `Chunk ${i} says Ada Lovelace met Charles Babbage in London${i}.`,
}));

beforeAll(async () => {
  server = await startScriptedLlmServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** Resolves once the server has seen no new request for 200 ms. */
async function settled(server: { requests: unknown[] }): Promise<void> {
  let seen = -1;
  while (seen !== server.requests.length) {
    seen = server.requests.length;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('the KG-only build', () => {
  it('extracts every chunk once, merges entities by normalized name and links both ways', async () => {
    const store = new MemoryKgStore();
    const s = await buildKgOnly({ chunks, store, client: client() });
    expect(s).toMatchObject({
      selected: 8,
      skipped: 0,
      finished: 8,
      kg: { done: 8, failed: 0 },
      atomic: { done: 0, failed: 0, questions: 0 },
      remaining: 0,
      cancelled: false,
      calls: 8,
    });
    expect(server.extractionTexts().sort()).toEqual(chunks.map((c) => c.text).sort());
    const ada = store.entityMap.get('ada lovelace')!;
    expect(ada.chunkIds).toEqual(chunks.map((c) => c.id).sort());
    expect(ada.name).toBe('Ada Lovelace');
    // Each chunk's state lists the items it produced. The scripted extractor takes runs of capitalized words
    // ("London3" is not one, its digit ends the run at "London") and links each to the next.
    const st = store.stateMap.get(chunks[3].id)!;
    expect(st.entityIds.sort()).toEqual(['ada lovelace', 'charles babbage', 'chunk', 'london']);
    expect(st.relationIds).toEqual([
      'chunk→ada lovelace',
      'ada lovelace→charles babbage',
      'charles babbage→london',
    ]);
    const rel = store.relationMap.get('ada lovelace→charles babbage')!;
    expect(rel.chunkIds).toHaveLength(8);
    expect(rel.weight).toBe(5);
    expect(s.inputTokens).toBeGreaterThan(0);
    expect(s.cost).toBeCloseTo((s.inputTokens * 1 + s.outputTokens * 2) / 1e6, 12);
  });

  it('cancelled midway then resumed: no chunk is sent twice and the result equals an uninterrupted build', async () => {
    server.setLatency(40);
    const store = new MemoryKgStore();
    const controller = new AbortController();
    const first = await buildKgOnly({
      chunks,
      store,
      client: client(),
      concurrency: 2,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.done === 3) controller.abort();
      },
    });
    server.setLatency(0);
    expect(first.cancelled).toBe(true);
    expect(first.kg.done).toBeGreaterThanOrEqual(3);
    expect(first.kg.done).toBeLessThan(8);
    // Every state in the store is a finished chunk with its items present: nothing half-built.
    for (const st of store.stateMap.values()) {
      for (const id of st.entityIds) expect(store.entityMap.get(id)!.chunkIds).toContain(st.chunkId);
    }
    const second = await buildKgOnly({ chunks, store, client: client() });
    expect(second.skipped).toBe(first.kg.done);
    expect(second.kg.done).toBe(8 - first.kg.done);
    const sent = server.extractionTexts();
    expect(sent).toHaveLength(8);
    expect(new Set(sent).size).toBe(8);

    const fresh = new MemoryKgStore();
    await buildKgOnly({ chunks, store: fresh, client: client() });
    const shape = (s: MemoryKgStore) =>
      [...s.entityMap.values()]
        .map((e) => [e.id, e.chunkIds.join(',')])
        .sort((a, b) => (a[0] < b[0] ? -1 : 1));
    expect(shape(store)).toEqual(shape(fresh));
  });

  it('a hard abort drops in-flight calls without committing anything for them', async () => {
    server.setLatency(100);
    const store = new MemoryKgStore();
    const hard = new AbortController();
    setTimeout(() => hard.abort(), 30);
    const s = await buildKgOnly({ chunks, store, client: client(), hardSignal: hard.signal });
    // The server still reads the bodies of the cut requests; let them arrive now, or on a busy machine one of them
    // takes a fault the next test scripts for its own request.
    await settled(server);
    server.setLatency(0);
    expect(s.cancelled).toBe(true);
    expect(s.kg.done).toBe(0);
    expect(store.stateMap.size).toBe(0);
    expect(store.entityMap.size).toBe(0);
  });

  it('malformed JSON is retried once; twice malformed marks the chunk failed with the reason', async () => {
    const store = new MemoryKgStore();
    server.script(
      { kind: 'malformed', when: 'Chunk 1 says' },
      { kind: 'malformed', when: 'Chunk 2 says' },
      { kind: 'malformed', when: 'Chunk 2 says' },
    );
    const s = await buildKgOnly({ chunks: chunks.slice(0, 3), store, client: client(), concurrency: 1 });
    expect(s.kg).toEqual({ done: 2, failed: 1 });
    expect(s.calls).toBe(5);
    expect(s.failures).toHaveLength(1);
    expect(s.failures[0]).toMatchObject({ chunkId: chunks[2].id, part: 'kg' });
    expect(s.failures[0].reason).toMatch(/malformed output twice: the reply is not valid JSON/);
    const failed = store.stateMap.get(chunks[2].id)!;
    expect(failed.status).toBe('failed');
    expect(failed.entityIds).toEqual([]);
    // The repair turn carried the bad reply and the problem back to the model.
    const repair = server.requests.filter((r) => r.extractedText?.startsWith('Chunk 1 says'))[1];
    expect(repair.body!.messages!.at(-1)!.content).toMatch(/not valid: the reply is not valid JSON/);
    // A failed chunk is not retried silently, but is on request.
    const again = await buildKgOnly({ chunks: chunks.slice(0, 3), store, client: client() });
    expect(again.skipped).toBe(3);
    const retried = await buildKgOnly({
      chunks: chunks.slice(0, 3),
      store,
      client: client(),
      retryFailed: true,
    });
    expect(retried.kg.done).toBe(1);
    expect(store.stateMap.get(chunks[2].id)!.status).toBe('done');
  });

  it('stops on an endpoint error without marking chunks failed, and says why', async () => {
    const store = new MemoryKgStore();
    const bad = scriptedClient(server, { model: 'missing', concurrency: 1 }, { maxRetries: 0 });
    const s = await buildKgOnly({ chunks, store, client: bad, concurrency: 1 });
    expect(s.error).toMatch(/HTTP 404: unknown model "missing"/);
    expect(s.kg.done + s.kg.failed).toBe(0);
    expect(s.remaining).toBe(8);
    expect(store.stateMap.size).toBe(0);
  });

  it('recovers from 429 and 500 inside a build', async () => {
    const store = new MemoryKgStore();
    server.script({ kind: 'rate-limit', retryAfterS: 0.05 }, { kind: 'server-error' }, { kind: 'drop' });
    const s = await buildKgOnly({ chunks, store, client: client() });
    expect(s.kg.done).toBe(8);
    expect(new Set(server.extractionTexts()).size).toBe(8);
  });

  it('removing a document removes its share: shared entities shrink, its own entities vanish', async () => {
    const store = new MemoryKgStore();
    await buildKgOnly({ chunks, store, client: client() });
    expect(store.entityMap.has('london')).toBe(true);
    await store.removeDocument('d1');
    const ada = store.entityMap.get('ada lovelace')!;
    expect(ada.chunkIds.every((id) => id.startsWith('d0#'))).toBe(true);
    expect(ada.chunkIds).toHaveLength(4);
    expect([...store.stateMap.keys()].every((id) => id.startsWith('d0#'))).toBe(true);
    await store.removeDocument('d0');
    expect(store.entityMap.size).toBe(0);
    expect(store.relationMap.size).toBe(0);
  });

  it('is incremental: chunks of newly added documents are extracted, earlier ones are not sent again', async () => {
    const store = new MemoryKgStore();
    await buildKgOnly({ chunks: chunks.filter((c) => c.docId === 'd0'), store, client: client() });
    server.reset();
    const s = await buildKgOnly({ chunks, store, client: client() });
    expect(s).toMatchObject({ skipped: 4, kg: { done: 4 } });
    expect(server.extractionTexts().sort()).toEqual(
      chunks
        .filter((c) => c.docId === 'd1')
        .map((c) => c.text)
        .sort(),
    );
    expect(store.entityMap.get('ada lovelace')!.chunkIds).toHaveLength(8);
  });
});
