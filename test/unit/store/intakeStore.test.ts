// A drop recorded before anything is parsed (src/store/intakeStore.ts): names and sizes first, in one transaction,
// then the bytes in groups; the pipeline drains only files whose bytes are stored, drains them when told even if
// its drain is about to end, and files left without bytes (a reload) are listed, matched when picked again, or
// forgotten.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { IngestPipeline } from '../../../src/services/ingest/ingestPipeline.ts';
import { SENTENCE_VECTORS_SETTING, type IngestEvent } from '../../../src/services/ingest/ingestProtocol.ts';
import { openDatabase } from '../../../src/store/db.ts';
import {
  announceFiles,
  announcedFiles,
  forgetAnnounced,
  matchAnnounced,
  recordBytes,
} from '../../../src/store/intakeStore.ts';
import { Repo } from '../../../src/store/repo.ts';
import { bytes, fakeEmbedder, prepare } from '../services/ingest/ingestFixtures.ts';

let n = 0;
const freshRepo = () => new Repo(openDatabase(`intake-${n++}`, { indexedDB: new IDBFactory(), IDBKeyRange }));

const names = (count: number) => Array.from({ length: count }, (_, i) => `pages/p${i}.txt`);
const text = (i: number) => `d${i}: S${i} one. S${i} two.`;

describe('a drop recorded before it is parsed', () => {
  it('keeps every name and size of a drop, in drop order, none of them in the queue until its bytes are stored', async () => {
    const repo = freshRepo();
    const ids = await announceFiles(
      repo.db,
      names(300).map((name, i) => ({ name, size: bytes(text(i)).byteLength })),
    );
    expect(ids).toHaveLength(300);
    expect((await announcedFiles(repo.db)).map((a) => a.name)).toEqual(names(300));
    expect(await repo.waitingIds()).toEqual([]);
    expect(await repo.waitingCount()).toBe(0);
    expect((await repo.counts()).pending).toBe(0);

    // The first 120 files' bytes land: those, and only those, are queued, in drop order.
    const queued = await recordBytes(
      repo.db,
      ids.slice(0, 120).map((id, i) => ({ id, bytes: bytes(text(i)) })),
    );
    expect(queued).toEqual(ids.slice(0, 120));
    expect(await repo.waitingIds()).toEqual(ids.slice(0, 120));
    expect((await announcedFiles(repo.db)).map((a) => a.name)).toEqual(names(300).slice(120));
    const first = await repo.pendingFile(ids[0]);
    expect([first?.status, new TextDecoder().decode(first?.bytes)]).toEqual(['queued', text(0)]);
  });

  it('does not queue bytes for a record that is no longer announced (cancelled, or filled already)', async () => {
    const repo = freshRepo();
    const [a, b] = await announceFiles(repo.db, [
      { name: 'a.txt', size: 3 },
      { name: 'b.txt', size: 3 },
    ]);
    await forgetAnnounced(repo.db, [a]);
    expect(await recordBytes(repo.db, [{ id: b, bytes: bytes('bbb') }])).toEqual([b]);
    expect(
      await recordBytes(repo.db, [
        { id: a, bytes: bytes('aaa') },
        { id: b, bytes: bytes('BBB') },
      ]),
    ).toEqual([]);
    expect(new TextDecoder().decode((await repo.pendingFile(b))?.bytes)).toBe('bbb');
    expect(await repo.pendingFile(a)).toBeUndefined();
  });

  it('matches files picked again to the names left without bytes, each place once, by name and size', () => {
    const announced = [
      { id: '1', name: 'docs/a.md', size: 10, addedAt: 1 },
      { id: '2', name: 'docs/a.md', size: 10, addedAt: 2 },
      { id: '3', name: 'docs/b.md', size: 20, addedAt: 3 },
    ];
    const picked = [
      { name: 'docs/a.md', size: 10 },
      { name: 'docs/b.md', size: 21 },
      { name: 'docs/a.md', size: 10 },
      { name: 'docs/a.md', size: 10 },
    ];
    const { matched, fresh } = matchAnnounced(picked, announced);
    expect(matched.map((m) => m.id)).toEqual(['1', '2']);
    // A changed size is another file; a third copy has no place left.
    expect(fresh).toEqual([
      { name: 'docs/b.md', size: 21 },
      { name: 'docs/a.md', size: 10 },
    ]);
  });

  it('drains files queued by the page just as its drain would end, in that drain (no idle with files waiting)', async () => {
    const repo = freshRepo();
    const events: IngestEvent[] = [];
    const pipeline = new IngestPipeline({
      repo,
      prepare,
      embedder: async () => fakeEmbedder(),
      rebuildGraph: async () => undefined,
      emit: (e) => events.push(e),
    });
    // Lexical only: the drain's last step before it ends is reading this setting.
    await repo.setSetting(SENTENCE_VECTORS_SETTING, false);
    const ids = await announceFiles(
      repo.db,
      names(4).map((name) => ({ name, size: 1 })),
    );
    await recordBytes(repo.db, [{ id: ids[0], bytes: bytes(text(0)) }]);
    // The page stores the other files' bytes and tells the worker while the drain, its queue read empty, is
    // on its last step.
    const getSetting = repo.getSetting.bind(repo);
    let told = false;
    repo.getSetting = async <T>(key: string): Promise<T | undefined> => {
      const value = await getSetting<T>(key);
      if (key === SENTENCE_VECTORS_SETTING && !told) {
        told = true;
        await recordBytes(
          repo.db,
          ids.slice(1).map((id, i) => ({ id, bytes: bytes(text(i + 1)) })),
        );
        pipeline.notifyQueued();
      }
      return value;
    };
    pipeline.notifyQueued();
    await pipeline.ensureRunning();
    expect(told).toBe(true);
    expect(await repo.waitingCount()).toBe(0);
    expect((await repo.counts()).documents).toBe(4);
    // One drain: a single idle, after every file.
    expect(events.filter((e) => e.type === 'idle')).toHaveLength(1);
  });
});
