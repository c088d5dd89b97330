// Removing documents forgets their recognised pages (src/services/ingest/ingest.ts): the store of recognised pages
// (IndexedDB `conceptrag-ocr`, src/services/ocr/ocrPageStore.ts) keeps a file's pages while its recognition may be
// resumed after a reload. A removed document's pages go with it, a library emptied or a Cancel clears them all.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareFile } from '../../../../src/core/prepare.ts';
import { createIngestService } from '../../../../src/services/ingest/ingest.ts';
import { CrossTabLock, type Locks } from '../../../../src/services/library/crossTab.ts';
import { IdbOcrPageStore } from '../../../../src/services/ocr/ocrPageStore.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { Repo } from '../../../../src/store/repo.ts';

const oneTab: Locks = { request: async (_name, _options, callback) => await callback({}) };
const page = { width: 10, height: 10, lines: [] };

async function prepared(name: string, words: string, key?: string) {
  const [doc] = (await prepareFile(name, new TextEncoder().encode(`# ${name}\n\n${words}\n`))).documents;
  if (key) doc.doc.ocr = { language: 'eng', key, pages: [] };
  return doc;
}

const saved = { indexedDB: globalThis.indexedDB, IDBKeyRange: globalThis.IDBKeyRange };
beforeEach(() => {
  // The page store opens the global IndexedDB, as it does in a worker.
  Object.assign(globalThis, { indexedDB: new IDBFactory(), IDBKeyRange });
});
afterEach(() => {
  Object.assign(globalThis, saved);
});

async function setUp() {
  const repo = new Repo(
    openDatabase(`forget-${Math.random()}`, { indexedDB: new IDBFactory(), IDBKeyRange }),
  );
  const scan = await prepared('scan.md', 'The lighthouse was rebuilt in granite.', 'pdf:aaaa');
  const other = await prepared('other.md', 'The ferry sailed twice a day in summer.', 'pdf:bbbb');
  const text = await prepared('text.md', 'The mill crossed the weir twelve times.');
  await repo.putPreparedDocuments([scan, other, text].map((p) => ({ prepared: p })));
  const store = new IdbOcrPageStore();
  // Pages left by interrupted recognitions: two of the removed file's, one of another file's, one of a queued file.
  for (const key of ['pdf:aaaa/eng/1', 'pdf:aaaa/language', 'pdf:bbbb/eng/3', 'pdf:cccc/eng/1']) {
    await store.put(key, page);
  }
  const service = createIngestService({
    repo,
    prepare: () => Promise.reject(new Error('nothing is parsed here')),
    embedders: { get: () => Promise.reject(new Error('no embedder here')), dispose: async () => undefined },
    lock: new CrossTabLock('ingest', 'tab', oneTab, { postMessage: () => undefined }),
    appVersion: 'test',
    ocrPages: store,
  });
  const kept = async () => {
    const out: string[] = [];
    for (const key of ['pdf:aaaa/eng/1', 'pdf:aaaa/language', 'pdf:bbbb/eng/3', 'pdf:cccc/eng/1']) {
      if (await store.get(key)) out.push(key);
    }
    return out;
  };
  return { service, ids: [scan.doc.id, other.doc.id, text.doc.id], kept };
}

describe('recognised pages when documents go', () => {
  it("forgets a removed document's pages, and every page once the library is empty", async () => {
    const { service, ids, kept } = await setUp();
    expect(await service.removeDocuments([ids[0]])).toBe(1);
    expect(await kept()).toEqual(['pdf:bbbb/eng/3', 'pdf:cccc/eng/1']);
    // A document without recognised text forgets nothing.
    expect(await service.removeDocuments([ids[2]])).toBe(1);
    expect(await kept()).toEqual(['pdf:bbbb/eng/3', 'pdf:cccc/eng/1']);
    // The last document: the library is empty, and no page of any file is kept.
    expect(await service.removeDocuments([ids[1]])).toBe(1);
    expect(await kept()).toEqual([]);
    await service.cancel();
  });

  it('forgets every page when indexing is cancelled (no file of the queue resumes)', async () => {
    const { service, kept } = await setUp();
    await service.cancel();
    expect(await kept()).toEqual([]);
  });
});
