// A queued file's bytes live in a table of their own (schema v5, pendingBytes), so the queue's status changes
// (working, queued again, failed) rewrite small records, never the file: a 100 MB drop's queue was written twice.
// The bytes leave with their record (stored, failed, removed, cancelled), and a record queued under v3 with its
// bytes inline is still read and drained after the upgrade.
import Dexie from 'dexie';
import { IDBFactory, IDBIndex, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import { IngestPipeline } from '../../../src/services/ingest/ingestPipeline.ts';
import { openDatabase, SCHEMA_V3 } from '../../../src/store/db.ts';
import { announceFiles, recordBytes } from '../../../src/store/intakeStore.ts';
import { Repo } from '../../../src/store/repo.ts';
import { bytes, fakeEmbedder, prepare } from '../services/ingest/ingestFixtures.ts';

let n = 0;
const deps = () => ({ indexedDB: new IDBFactory(), IDBKeyRange });
const text = (b: ArrayBuffer | undefined) => (b ? new TextDecoder().decode(b) : undefined);

describe('pending bytes in their own table', () => {
  it('keeps the pending records empty and the bytes apart, through start, requeue, failure and removal', async () => {
    const repo = new Repo(openDatabase(`pb-${n++}`, deps()));
    const ids = await repo.enqueue([
      { name: 'a.txt', bytes: bytes('a: A one.') },
      { name: 'b.txt', bytes: bytes('b: B one.') },
      { name: 'c.txt', bytes: bytes('c: C one.') },
    ]);
    const records = await repo.db.pending.bulkGet(ids);
    expect(records.map((r) => [r?.name, r?.size, r?.bytes.byteLength])).toEqual([
      ['a.txt', 9, 0],
      ['b.txt', 9, 0],
      ['c.txt', 9, 0],
    ]);
    expect((await repo.db.pendingBytes.bulkGet(ids)).map((r) => text(r?.bytes))).toEqual([
      'a: A one.',
      'b: B one.',
      'c: C one.',
    ]);

    // Marked working and queued again: the records change, the bytes stay as they were.
    expect(await repo.queue.startPendingMany(ids)).toEqual([1, 1, 1]);
    await repo.queue.requeuePending(ids[0], 0);
    expect((await repo.db.pending.bulkGet(ids)).map((r) => [r?.status, r?.bytes.byteLength])).toEqual([
      ['queued', 0],
      ['working', 0],
      ['working', 0],
    ]);
    expect(text((await repo.pendingFile(ids[1]))?.bytes)).toBe('b: B one.');
    expect((await Promise.all(ids.map((id) => repo.pendingFile(id)))).map((p) => text(p?.bytes))).toEqual([
      'a: A one.',
      'b: B one.',
      'c: C one.',
    ]);

    // Failed: the name and reason stay, the bytes go. Removed: both go.
    await repo.markFailed(ids[1], 'b.txt: broken');
    await repo.removePending(ids[2]);
    expect(await repo.db.pendingBytes.count()).toBe(1);
    expect((await repo.pendingSummary()).map((p) => [p.name, p.status])).toEqual([
      ['a.txt', 'queued'],
      ['b.txt', 'failed'],
    ]);

    // A cancel drops what waits with its bytes; the failed file stays listed.
    await repo.queue.clearWaitingPending();
    expect(await repo.db.pendingBytes.count()).toBe(0);
    expect((await repo.pendingSummary()).map((p) => p.name)).toEqual(['b.txt']);
  });

  it('stores a drop’s bytes beside its announced records, and a drained file leaves no bytes behind', async () => {
    const repo = new Repo(openDatabase(`pb-${n++}`, deps()));
    await repo.setSetting('sentenceVectors', false);
    const files = ['x: X one. X two.', 'y: Y one.', 'BAD file'];
    const ids = await announceFiles(
      repo.db,
      files.map((f, i) => ({ name: `f${i}.txt`, size: bytes(f).byteLength })),
    );
    expect(
      await recordBytes(
        repo.db,
        ids.map((id, i) => ({ id, bytes: bytes(files[i]) })),
      ),
    ).toEqual(ids);
    expect((await repo.db.pending.bulkGet(ids)).map((r) => [r?.status, r?.bytes.byteLength])).toEqual([
      ['queued', 0],
      ['queued', 0],
      ['queued', 0],
    ]);
    expect(await repo.db.pendingBytes.count()).toBe(3);

    const pipeline = new IngestPipeline({
      repo,
      prepare,
      embedder: async () => fakeEmbedder(),
      rebuildGraph: async () => undefined,
      emit: () => undefined,
    });
    await pipeline.ensureRunning();
    expect((await repo.counts()).documents).toBe(2);
    // The stored files left the queue with their bytes; the one that failed keeps its name, not its bytes.
    expect(await repo.db.pendingBytes.count()).toBe(0);
    expect((await repo.pendingSummary()).map((p) => [p.name, p.status])).toEqual([['f2.txt', 'failed']]);
  });

  it('counts the files waiting with one request, not a cursor step per file', async () => {
    const repo = new Repo(openDatabase(`pb-${n++}`, deps()));
    const ids = await repo.enqueue(
      Array.from({ length: 40 }, (_, i) => ({ name: `f${i}.txt`, bytes: bytes(`f${i}: F one.`) })),
    );
    await repo.queue.startPendingMany(ids.slice(0, 5));
    await repo.markFailed(ids[5], 'broken');
    await announceFiles(repo.db, [{ name: 'late.txt', size: 3 }]);
    const cursors = [
      vi.spyOn(IDBIndex.prototype, 'openCursor'),
      vi.spyOn(IDBIndex.prototype, 'openKeyCursor'),
    ];
    try {
      // 5 working and 34 queued; the failed and the announced files are not waiting.
      expect(await repo.waitingCount()).toBe(39);
      expect((await repo.counts()).pending).toBe(39);
      for (const spy of cursors) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of cursors) spy.mockRestore();
    }
  });

  it('reads and drains a file queued under schema v3 with its bytes inline', async () => {
    const storage = deps();
    const name = `pb-${n++}`;
    const v3 = new Dexie(name, storage);
    v3.version(3).stores(SCHEMA_V3);
    await v3.table('pending').add({
      id: 'old-1',
      name: 'old.txt',
      size: 9,
      bytes: bytes('o: O one.'),
      addedAt: 1,
      status: 'working',
      attempts: 1,
    });
    v3.close();

    const repo = new Repo(openDatabase(name, storage));
    expect(repo.db.verno).toBe(5);
    expect(text((await repo.pendingFile('old-1'))?.bytes)).toBe('o: O one.');
    await repo.setSetting('sentenceVectors', false);
    await new IngestPipeline({
      repo,
      prepare,
      embedder: async () => fakeEmbedder(),
      rebuildGraph: async () => undefined,
      emit: () => undefined,
    }).ensureRunning();
    expect((await repo.counts()).documents).toBe(1);
    expect(await repo.db.pending.count()).toBe(0);
  });
});
