// The schema as IndexedDB sees it: every store and index of the current version (5) exists, and data written by
// one connection is read back by a new one (what a reload does). Opening a v1 database: upgradeV2.test.ts.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { openDatabase, SCHEMA_V3, SCHEMA_V4, SCHEMA_V5 } from '../../../src/store/db.ts';

describe('schema v5', () => {
  it('creates every store with its primary key and indexes', async () => {
    const indexedDB = new IDBFactory();
    const db = openDatabase('schema', { indexedDB, IDBKeyRange });
    await db.open();
    const stores = Object.fromEntries(
      db.tables.map((t) => [
        t.name,
        [t.schema.primKey.src, ...t.schema.indexes.map((i) => i.src)].join(', '),
      ]),
    );
    expect(stores).toEqual(SCHEMA_V5);
    expect(SCHEMA_V4).toEqual({ ...SCHEMA_V3, pages: 'id' });
    expect(SCHEMA_V5).toEqual({ ...SCHEMA_V4, pendingBytes: 'id' });
    expect(db.verno).toBe(5);
    db.close();
  });

  it('keeps data across connections, as after a page reload', async () => {
    const deps = { indexedDB: new IDBFactory(), IDBKeyRange };
    const first = openDatabase('reload', deps);
    await first.settings.put({ key: 'embedder', value: { kind: 'use' } });
    await first.pending.add({
      id: 'p1',
      name: 'a.txt',
      size: 2,
      bytes: new Uint8Array([104, 105]).buffer,
      addedAt: 1,
      status: 'working',
    });
    first.close();
    const second = openDatabase('reload', deps);
    expect(await second.settings.get('embedder')).toEqual({ key: 'embedder', value: { kind: 'use' } });
    const pending = await second.pending.get('p1');
    expect(new Uint8Array(pending!.bytes)).toEqual(new Uint8Array([104, 105]));
    expect(await second.pending.where('status').equals('working').count()).toBe(1);
    second.close();
  });
});
