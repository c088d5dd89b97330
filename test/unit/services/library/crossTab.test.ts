// Two tabs, one library: two ingest pipelines over the same IndexedDB (fake-indexeddb, two Dexie connections
// like two tabs) and one lock manager. The queue found by both is indexed once, by the tab holding the lock; the
// other says it waits, broadcasts nothing of its own meanwhile, cannot drop the other tab's queue, and drains
// whatever is left afterwards.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import type { Embedder, PreparedDocument } from '../../../../src/core/types.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { Repo } from '../../../../src/store/repo.ts';
import { CrossTabLock, type CrossTabMessage, type Locks } from '../../../../src/services/library/crossTab.ts';
import { IngestPipeline } from '../../../../src/services/ingest/ingestPipeline.ts';
import type { PrepareFn } from '../../../../src/services/ingest/limitedParse.ts';
import type { IngestEvent } from '../../../../src/services/ingest/ingestProtocol.ts';

/** Web Locks' exclusive mode in one process: FIFO per name, `ifAvailable`, and an abortable wait. */
class MemoryLocks implements Locks {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly busy = new Map<string, number>();
  /** How many callbacks run now, holding their lock: what a test waits on instead of a sleep. */
  held = 0;

  async request<T>(
    name: string,
    options: { ifAvailable?: boolean; signal?: AbortSignal },
    callback: (lock: unknown) => Promise<T> | T,
  ): Promise<T> {
    if (options.ifAvailable && (this.busy.get(name) ?? 0) > 0) return callback(null);
    this.busy.set(name, (this.busy.get(name) ?? 0) + 1);
    const previous = this.tails.get(name) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    this.tails.set(
      name,
      previous.then(() => mine),
    );
    const done = () => {
      this.busy.set(name, this.busy.get(name)! - 1);
      release();
    };
    const aborted = new Promise<never>((_, reject) => {
      options.signal?.addEventListener('abort', () => reject(options.signal!.reason), { once: true });
    });
    try {
      await Promise.race([previous, aborted]);
    } catch (error) {
      void previous.then(done);
      throw error;
    }
    this.held++;
    try {
      return await callback({ name });
    } finally {
      this.held--;
      done();
    }
  }
}

/** One document per file: "title: sentence. sentence." */
const prepare: PrepareFn = async (name, bytes) => {
  const [title, body] = new TextDecoder().decode(bytes).split(': ');
  const id = `d-${title}`;
  const chunkId = `${id}#0000#0000`;
  let at = 0;
  const sentences = body.split(/(?<=\.) /).map((text, index) => {
    const start = body.indexOf(text, at);
    at = start + text.length;
    return { id: `${id}:${index}`, docId: id, chunkId, index, start, end: at, text };
  });
  const document: PreparedDocument = {
    doc: {
      id,
      title,
      sourceName: name,
      mime: 'text/plain',
      size: body.length,
      hash: id,
      addedAt: 0,
      text: body,
    },
    sections: [{ id: `${id}#0000`, docId: id, index: 0, heading: '', level: 0, start: 0, end: body.length }],
    chunks: [
      {
        id: chunkId,
        docId: id,
        sectionIndex: 0,
        position: 0,
        order: 0,
        start: 0,
        end: body.length,
        text: body,
        tokens: 5,
        firstSentence: 0,
        sentenceCount: sentences.length,
      },
    ],
    sentences,
  };
  return { documents: [document], errors: [] };
};

/** Counts every text it embeds; waits for `gate` (if any) before answering. */
function embedder(gate?: Promise<void>): Embedder & { texts: number } {
  const e = {
    id: 'fake@1',
    dimension: 2,
    texts: 0,
    async embed(texts: string[]) {
      e.texts += texts.length;
      if (gate) await gate;
      return Float32Array.from(texts.flatMap((t) => [t.length, 1]));
    },
  };
  return e;
}

/**
 * Waits until `seen()` holds, a macrotask at a time (the pipeline's steps are IndexedDB requests, answered as
 * macrotasks); fails naming `what` if it never does, so a wait cannot hang.
 */
async function until(seen: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 10_000 && !seen(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!seen()) throw new Error(`${what}: not seen`);
}

function tab(name: string, factory: IDBFactory, locks: Locks, messages: CrossTabMessage[], e: Embedder) {
  const repo = new Repo(openDatabase('library', { indexedDB: factory, IDBKeyRange }));
  const events: IngestEvent[] = [];
  const lock = new CrossTabLock('ingest', name, locks, { postMessage: (m) => messages.push(m) });
  const pipeline = new IngestPipeline({
    repo,
    prepare,
    embedder: async () => e,
    rebuildGraph: async () => undefined,
    lock,
    emit: (event) => events.push(event),
  });
  return { repo, events, pipeline };
}

const bytes = (text: string) => new TextEncoder().encode(text).buffer as ArrayBuffer;
const FILES = [
  { name: 'a.txt', bytes: bytes('a: A one. A two.') },
  { name: 'b.txt', bytes: bytes('b: B one. B two. B three.') },
  { name: 'c.txt', bytes: bytes('c: C one.') },
];
const fileEvents = (events: IngestEvent[]) =>
  events.filter((e) => e.type === 'file' || e.type === 'progress');

describe('CrossTabLock', () => {
  it('refuses tryRun (a KG build, an import) while another tab holds the lock, and tells the other tabs', async () => {
    const locks = new MemoryLocks();
    const messages: CrossTabMessage[] = [];
    const channel = { postMessage: (m: CrossTabMessage) => messages.push(m) };
    const first = new CrossTabLock('kg', 'A', locks, channel);
    const second = new CrossTabLock('kg', 'B', locks, channel);
    let open!: () => void;
    const running = first.tryRun(() => new Promise<string>((resolve) => (open = () => resolve('built'))));
    await until(() => locks.held === 1, 'A holds the kg lock');
    expect(await second.tryRun(async () => 'built twice')).toEqual({ ran: false });
    // Another kind of work has its own lock.
    expect(await new CrossTabLock('ingest', 'B', locks, channel).tryRun(async () => 'indexed')).toEqual({
      ran: true,
      value: 'indexed',
    });
    open();
    expect(await running).toEqual({ ran: true, value: 'built' });
    expect(await second.tryRun(async () => 'built later')).toEqual({ ran: true, value: 'built later' });
    expect(messages.map((m) => `${m.tab}:${m.work}:${m.type}`)).toEqual([
      'A:kg:busy',
      'B:ingest:busy',
      'B:ingest:done',
      'A:kg:done',
      'B:kg:busy',
      'B:kg:done',
    ]);
  });
});

describe('two tabs on one library', () => {
  it('index a queue both of them resume exactly once, in the tab that holds the lock', async () => {
    const factory = new IDBFactory();
    const locks = new MemoryLocks();
    const messages: CrossTabMessage[] = [];
    let open!: () => void;
    const embedA = embedder(new Promise<void>((resolve) => (open = resolve)));
    const embedB = embedder();
    const a = tab('A', factory, locks, messages, embedA);
    const b = tab('B', factory, locks, messages, embedB);
    // Files left in the queue (a reload mid-indexing); both tabs load and resume it.
    await a.repo.enqueue(FILES);
    const runA = a.pipeline.ensureRunning();
    await until(() => locks.held === 1, 'A holds the ingest lock');
    const runB = b.pipeline.ensureRunning();
    await until(() => b.events.length > 0, 'B says something');
    expect(b.events).toEqual([{ type: 'waiting' }]);
    open();
    await Promise.all([runA, runB]);

    expect(embedA.texts).toBe(6);
    expect(embedB.texts).toBe(0);
    expect(fileEvents(b.events)).toEqual([]);
    expect(
      a.events.filter((e) => e.type === 'file').map((e) => e.type === 'file' && e.outcome.status),
    ).toEqual(['indexed', 'indexed', 'indexed']);
    expect(await b.repo.counts()).toMatchObject({ documents: 3, sentences: 6, vectors: 6, pending: 0 });
    // A said it was busy and done before B took the lock (B then found the queue empty).
    expect(messages.map((m) => `${m.tab}:${m.type}`)).toEqual(['A:busy', 'A:done', 'B:busy', 'B:done']);
  });

  it('files added in the waiting tab are indexed (by the tab that holds the lock or after it)', async () => {
    const factory = new IDBFactory();
    const locks = new MemoryLocks();
    let open!: () => void;
    const a = tab('A', factory, locks, [], embedder(new Promise<void>((resolve) => (open = resolve))));
    const b = tab('B', factory, locks, [], embedder());
    await a.pipeline.enqueue(FILES.slice(0, 1));
    await until(() => locks.held === 1, 'A holds the ingest lock');
    await b.pipeline.enqueue(FILES.slice(1));
    await until(() => b.events.some((e) => e.type === 'waiting'), 'B waiting for the lock');
    expect(b.events.filter((e) => e.type === 'waiting').length).toBeGreaterThan(0);
    open();
    await Promise.all([a.pipeline.ensureRunning(), b.pipeline.ensureRunning()]);
    expect(await a.repo.counts()).toMatchObject({ documents: 3, sentences: 6, pending: 0 });
  });

  it("Cancel in the waiting tab stops waiting and leaves the other tab's queue alone", async () => {
    const factory = new IDBFactory();
    const locks = new MemoryLocks();
    let open!: () => void;
    const a = tab('A', factory, locks, [], embedder(new Promise<void>((resolve) => (open = resolve))));
    const b = tab('B', factory, locks, [], embedder());
    await a.pipeline.enqueue(FILES);
    await until(() => locks.held === 1, 'A holds the ingest lock');
    const runB = b.pipeline.ensureRunning();
    await until(() => b.events.some((e) => e.type === 'waiting'), 'B waiting for the lock');
    await b.pipeline.cancel();
    await runB;
    expect(b.events.at(-1)).toEqual({ type: 'idle', cancelled: true });
    expect(b.pipeline.isRunning).toBe(false);
    open();
    await a.pipeline.ensureRunning();
    expect(await a.repo.counts()).toMatchObject({ documents: 3, sentences: 6, pending: 0 });
  });
});
