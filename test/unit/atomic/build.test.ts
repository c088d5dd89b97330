// Atomizing through the scripted server: strict JSON with one repair call then a per-chunk failure with its reason,
// cancel and resume with no chunk sent twice, and one pass (KG and atomic questions in a single call per chunk).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  buildDistilled,
  MemoryAtomicStore,
  type DistillBuildOptions,
} from '../../../src/core/atomic/index.ts';
import { MemoryKgStore } from '../../../src/core/kg/index.ts';
import { scriptedClient } from '../../support/scriptedClient.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../support/scriptedLlmServer.ts';
import { scriptedPike } from '../../support/scriptedPike.ts';

let server: ScriptedLlmServer;
const client = () => scriptedClient(server);

const chunks = [
  { id: 'd1#0', docId: 'd1', text: 'Lothair II was a king. His mother was Ermengarde of Tours.' },
  { id: 'd2#0', docId: 'd2', text: 'Ermengarde of Tours died on 20 March 851.' },
  { id: 'd3#0', docId: 'd3', text: 'Port of Spain is the capital of Trinidad and Tobago.' },
  { id: 'd4#0', docId: 'd4', text: 'Teutberga was a queen of Lotharingia.' },
];

beforeAll(async () => {
  server = await startScriptedLlmServer({ responders: [scriptedPike()] });
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  server.setLatency(0);
});

/** Atomizes every chunk (the four above unless `more` names others) into `store`: atomic questions only, no KG. */
const atomizeInto = (
  store: MemoryAtomicStore,
  more: Partial<Omit<DistillBuildOptions, 'kinds' | 'atomic' | 'client'>> = {},
) => buildDistilled({ chunks, kinds: { kg: false, atomic: true }, atomic: store, client: client(), ...more });

const atomizeRequests = () =>
  server.requests.filter((r) => r.body?.messages?.[0]?.content.includes('You write atomic questions'));

describe('atomizing', () => {
  it('stores each chunk’s questions with its chunk id, at temperature 0.7, capped', async () => {
    const store = new MemoryAtomicStore();
    const s = await atomizeInto(store, { maxQuestions: 1 });
    expect(s).toMatchObject({
      selected: 4,
      finished: 4,
      calls: 4,
      atomic: { done: 4, failed: 0, questions: 4 },
    });
    // Capped at 1: the first sentence's question of each chunk.
    const byChunk = Object.fromEntries((await store.questions()).map((q) => [q.chunkId, q.text]));
    expect(byChunk).toEqual({
      'd1#0': 'What about Lothair II was a king?',
      'd2#0': 'What about Ermengarde of Tours died on 20 March 851?',
      'd3#0': 'What about Port of Spain is the capital of Trinidad and Tobago?',
      'd4#0': 'What about Teutberga was a queen of Lotharingia?',
    });
    expect(atomizeRequests().map((r) => r.body?.temperature)).toEqual([0.7, 0.7, 0.7, 0.7]);
  });

  it('repairs a malformed reply once, and fails the chunk with the reason when the repair is malformed too', async () => {
    const store = new MemoryAtomicStore();
    // d2: malformed then fine (repaired). d3: malformed twice (failed, reason kept).
    server.script(
      { kind: 'malformed', when: 'died on 20 March' },
      { kind: 'malformed', when: 'Port of Spain' },
      { kind: 'malformed', when: 'Port of Spain' },
    );
    const s = await atomizeInto(store, { concurrency: 1 });
    // One question per sentence: d1#0 has two, d2#0 and d4#0 one each; d3#0 failed.
    expect(s.atomic).toEqual({ done: 3, failed: 1, questions: 4 });
    expect(s.calls).toBe(4 + 1 + 1);
    expect(s.failures).toHaveLength(1);
    expect(s.failures[0]).toMatchObject({ chunkId: 'd3#0', part: 'atomic' });
    expect(s.failures[0].reason).toMatch(/^atomizing: malformed output twice/);
    const states = await store.getStates(['d2#0', 'd3#0']);
    expect(states.get('d2#0')).toMatchObject({ status: 'done', questions: 1, attempts: 2 });
    expect(states.get('d3#0')).toMatchObject({ status: 'failed', questions: 0, attempts: 2 });
    // The repair turn tells the model what was wrong.
    const repair = atomizeRequests().find((r) => (r.body?.messages?.length ?? 0) > 2)!;
    expect(repair.body!.messages!.at(-1)!.content).toMatch(/^That reply was not valid: /);
    // Nothing of the failed chunk is stored; "retry failed" sends it (and only it) again.
    expect((await store.questions()).some((q) => q.chunkId === 'd3#0')).toBe(false);
    server.reset();
    const again = await atomizeInto(store, { retryFailed: true });
    expect(again).toMatchObject({ skipped: 3, finished: 1, atomic: { done: 1, failed: 0 } });
    expect(server.extractionTexts()).toEqual([chunks[2].text]);
  });

  it('cancelled midway keeps the paid chunks, and the resumed build sends only the rest: no chunk twice', async () => {
    const store = new MemoryAtomicStore();
    server.setLatency(60);
    const stop = new AbortController();
    const first = await atomizeInto(store, {
      concurrency: 1,
      signal: stop.signal,
      onProgress: (p) => {
        if (p.done === 1) stop.abort();
      },
    });
    expect(first).toMatchObject({ cancelled: true, finished: 1, remaining: 3 });
    server.setLatency(0);
    const second = await atomizeInto(store);
    expect(second).toMatchObject({ skipped: 1, finished: 3, remaining: 0, cancelled: false });
    const sent = server.extractionTexts();
    expect(sent).toHaveLength(4);
    expect(new Set(sent).size).toBe(4);
    expect((await store.states()).filter((s) => s.status === 'done')).toHaveLength(4);
  });

  it('one pass: KG and atomic questions from a single call per chunk; separate passes make two', async () => {
    const kg = new MemoryKgStore();
    const atomic = new MemoryAtomicStore();
    const one = await buildDistilled({
      chunks,
      kinds: { kg: true, atomic: true },
      kg,
      atomic,
      client: client(),
    });
    // The scripted model writes one question per sentence: d1#0 has two sentences, the others one.
    expect(one).toMatchObject({ finished: 4, calls: 4, kg: { done: 4 }, atomic: { done: 4, questions: 5 } });
    expect(
      server.requests.filter((r) => r.body?.messages?.[0]?.content.includes('Also add the field')),
    ).toHaveLength(4);
    expect((await kg.entities()).map((e) => e.name)).toContain('Teutberga');
    server.reset();
    const two = await buildDistilled({
      chunks,
      kinds: { kg: true, atomic: true },
      onePass: false,
      kg: new MemoryKgStore(),
      atomic: new MemoryAtomicStore(),
      client: client(),
    });
    expect(two).toMatchObject({ finished: 4, calls: 8, kg: { done: 4 }, atomic: { done: 4, questions: 5 } });
    // Already extracted for the KG: adding the atomic layer later atomizes only.
    server.reset();
    const fresh = await buildDistilled({
      chunks,
      kinds: { kg: true, atomic: true },
      kg,
      atomic: new MemoryAtomicStore(),
      client: client(),
    });
    expect(fresh).toMatchObject({ finished: 4, calls: 4, kg: { done: 0 }, atomic: { done: 4 } });
    expect(atomizeRequests()).toHaveLength(4);
  });

  it('an endpoint error stops the build without marking any chunk failed; a hard abort commits nothing', async () => {
    const store = new MemoryAtomicStore();
    server.script({ kind: 'unauthorized' });
    const s = await atomizeInto(store, { concurrency: 1 });
    expect(s.error).toMatch(/401|key|unauthori/i);
    expect(s).toMatchObject({ finished: 0, remaining: 4, atomic: { done: 0, failed: 0 } });
    expect(await store.states()).toEqual([]);
    // Closing the app mid-call: the call is dropped and its chunk stays undone (sent again on resume).
    server.setLatency(300);
    const hard = new AbortController();
    setTimeout(() => hard.abort(), 100);
    const cut = await atomizeInto(store, { concurrency: 1, hardSignal: hard.signal });
    expect(cut).toMatchObject({ cancelled: true, finished: 0, remaining: 4 });
    expect(await store.states()).toEqual([]);
  });

  it('a one-pass reply malformed twice fails both parts of the chunk with the same reason', async () => {
    const kg = new MemoryKgStore();
    const atomic = new MemoryAtomicStore();
    server.script({ kind: 'malformed', when: 'Teutberga' }, { kind: 'malformed', when: 'Teutberga' });
    const s = await buildDistilled({
      chunks,
      kinds: { kg: true, atomic: true },
      kg,
      atomic,
      client: client(),
    });
    expect(s).toMatchObject({ kg: { done: 3, failed: 1 }, atomic: { done: 3, failed: 1 } });
    expect(s.failures.map((f) => [f.chunkId, f.part])).toEqual([
      ['d4#0', 'kg'],
      ['d4#0', 'atomic'],
    ]);
    expect(s.failures[0].reason).toMatch(/^one-pass distillation: malformed output twice/);
    expect((await kg.getStates(['d4#0'])).get('d4#0')?.status).toBe('failed');
    expect((await atomic.getStates(['d4#0'])).get('d4#0')?.status).toBe('failed');
  });
});

describe('chunks given without their text', () => {
  // 150 chunks, each with its own sentence: more than two batches of texts.
  const many = Array.from({ length: 150 }, (_, i) => ({ id: `m${i}#0`, docId: `m${i}` }));
  const textOf = (id: string) => `Harbour ${id.replace('#0', '')} was built in the year ${1700 + id.length}.`;

  it('reads their texts a batch at a time as the lanes reach them, never all at once, and sends each once', async () => {
    const asked: string[][] = [];
    // Chunks finished when each batch was asked for: a batch is read when the lanes reach the one before it.
    const finishedAtAsk: number[] = [];
    let finished = 0;
    const store = new MemoryAtomicStore();
    const s = await atomizeInto(store, {
      chunks: many,
      concurrency: 4,
      texts: (part) => {
        asked.push(part.map((c) => c.id));
        finishedAtAsk.push(finished);
        return Promise.resolve(part.map((c) => textOf(c.id)));
      },
      onProgress: ({ done }) => (finished = done),
    });
    expect(s).toMatchObject({ selected: 150, finished: 150, calls: 150 });
    expect(asked.map((a) => a.length)).toEqual([64, 64, 22]);
    expect(asked.flat()).toEqual(many.map((c) => c.id));
    // The first two at the start; the third once a lane took a chunk of the second (4 lanes: 60 finished at least).
    expect(finishedAtAsk.slice(0, 2)).toEqual([0, 0]);
    expect(finishedAtAsk[2]).toBeGreaterThanOrEqual(64 - 4);
    const sent = atomizeRequests().map((r) => r.body?.messages?.at(-1)?.content ?? '');
    for (const c of many) expect(sent.filter((m) => m.includes(textOf(c.id)))).toHaveLength(1);
  });

  it('a failed read of texts stops the build with its reason; what was sent is kept', async () => {
    const store = new MemoryAtomicStore();
    const s = await atomizeInto(store, {
      chunks: many,
      concurrency: 1,
      texts: (part) =>
        part[0].id === 'm64#0'
          ? Promise.reject(new Error('the pages could not be read'))
          : Promise.resolve(part.map((c) => textOf(c.id))),
    });
    expect(s.error).toBe('the pages could not be read');
    expect(s.finished).toBe(64);
    expect((await store.states()).length).toBe(64);
  });

  it('without a reader, a chunk without text stops the build and names the chunk', async () => {
    const s = await atomizeInto(new MemoryAtomicStore(), { chunks: many.slice(0, 3) });
    expect(s.error).toBe('distillation: chunk m0#0 has no text, and none is read');
    expect(atomizeRequests()).toHaveLength(0);
  });
});
