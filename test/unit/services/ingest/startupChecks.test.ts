// The ingest worker's checks of the store at its start (src/services/ingest/ingest.ts): the tally against a count
// of the documents, then whether pages are due. They walk every document, and at a reopening of a large library
// those walks held the query worker's first reads back, so they wait STARTUP_CHECKS_DELAY_MS after the worker starts.
// Meanwhile the counts trust the tally; the check then sets a wrong one right and tells the page.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { prepareFile } from '../../../../src/core/prepare.ts';
import { createIngestService } from '../../../../src/services/ingest/ingest.ts';
import type { IngestEvent } from '../../../../src/services/ingest/ingestProtocol.ts';
import { CrossTabLock, type Locks } from '../../../../src/services/library/crossTab.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { Repo } from '../../../../src/store/repo.ts';

/** Every lock granted at once: one tab. */
const oneTab: Locks = { request: async (_name, _options, callback) => await callback({}) };

async function document(name: string, words: string) {
  return (await prepareFile(name, new TextEncoder().encode(`# ${name}\n\n${words}\n`))).documents;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the ingest worker’s start-up checks', () => {
  it('wait seconds after the start, then count a tally left wrong and tell the page', async () => {
    const db = openDatabase(`startup-${Math.random()}`, { indexedDB: new IDBFactory(), IDBKeyRange });
    const repo = new Repo(db);
    const stored = await Promise.all([
      document('one.md', 'The first document speaks of rivers and their deltas.'),
      document('two.md', 'The second document speaks of mountains and glaciers.'),
    ]);
    await repo.putPreparedDocuments(stored.flat().map((prepared) => ({ prepared })));
    const right = await repo.counts();
    expect(right.documents).toBe(2);
    // A document removed behind the tally (an app from before it): the counts still show two, counting nothing.
    const [gone] = (await db.documents.toCollection().primaryKeys()) as string[];
    await db.documents.delete(gone);
    await db.chunks.where('docId').equals(gone).delete();
    await db.sentences.where('docId').equals(gone).delete();
    expect((await repo.counts()).documents).toBe(2);

    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const posted: string[] = [];
    const service = createIngestService({
      repo,
      prepare: () => Promise.reject(new Error('nothing is parsed here')),
      embedders: { get: () => Promise.reject(new Error('no embedder here')), dispose: async () => undefined },
      lock: new CrossTabLock('ingest', 'tab', oneTab, { postMessage: (m) => posted.push(m.type) }),
      appVersion: 'test',
    });
    const events: IngestEvent[] = [];
    service.subscribe((event) => events.push(event));
    // Nothing is checked at the start: the first reads of the page and the query worker have the store.
    await vi.advanceTimersByTimeAsync(9_000);
    expect((await repo.counts()).documents).toBe(2);
    expect(events.filter((e) => e.type === 'changed')).toHaveLength(0);
    // Then the check counts the library again, and the page and other tabs hear that it changed.
    await vi.advanceTimersByTimeAsync(1_000);
    vi.useRealTimers();
    await vi.waitFor(async () => expect((await repo.counts()).documents).toBe(1));
    await vi.waitFor(() => expect(events.filter((e) => e.type === 'changed')).toHaveLength(1));
    expect(posted).toContain('changed');
    expect(await repo.counts()).toMatchObject({
      chunks: await db.chunks.count(),
      sentences: await db.sentences.count(),
    });
    expect((await repo.counts()).chunks).toBeLessThan(right.chunks);
  });
});
