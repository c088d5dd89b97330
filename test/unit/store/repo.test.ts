// Repository behaviour on a fresh fake-indexeddb per test: one-transaction writes, duplicates, embedder
// mismatch, removal with KG links, counts, the pending queue and corpus loading.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import type { SerializedGraph } from '../../../src/core/graph/conceptGraph.ts';
import type { PreparedDocument } from '../../../src/core/types.ts';
import { openDatabase, type ConceptDb } from '../../../src/store/db.ts';
import { PagesRepo } from '../../../src/store/pagesRepo.ts';
import { EmbedderMismatchError, Repo } from '../../../src/store/repo.ts';
import { putPreparedDocument } from '../../support/putOneDocument.ts';

function freshRepo(): { db: ConceptDb; repo: Repo } {
  const db = openDatabase('test', { indexedDB: new IDBFactory(), IDBKeyRange });
  return { db, repo: new Repo(db) };
}

/** A two-chunk document: sentences "A one." "A two." in chunk 0 and "A three." in chunk 1. */
function prepared(id: string, hash = `${id}-hash`): PreparedDocument {
  const text = 'A one. A two. A three.';
  const chunk0 = `${id}#0000#0000`;
  const chunk1 = `${id}#0000#0001`;
  return {
    doc: {
      id,
      title: id,
      sourceName: `${id}.txt`,
      mime: 'text/plain',
      size: text.length,
      hash,
      addedAt: 1,
      text,
    },
    sections: [{ id: `${id}#0000`, docId: id, index: 0, heading: '', level: 0, start: 0, end: text.length }],
    chunks: [
      {
        id: chunk0,
        docId: id,
        sectionIndex: 0,
        position: 0,
        order: 0,
        start: 0,
        end: 13,
        text: 'A one. A two.',
        tokens: 6,
        firstSentence: 0,
        sentenceCount: 2,
      },
      {
        id: chunk1,
        docId: id,
        sectionIndex: 0,
        position: 1,
        order: 1,
        start: 14,
        end: 22,
        text: 'A three.',
        tokens: 3,
        firstSentence: 2,
        sentenceCount: 1,
      },
    ],
    sentences: [
      { id: `${id}:000000`, docId: id, chunkId: chunk0, index: 0, start: 0, end: 6, text: 'A one.' },
      { id: `${id}:000001`, docId: id, chunkId: chunk0, index: 1, start: 7, end: 13, text: 'A two.' },
      { id: `${id}:000002`, docId: id, chunkId: chunk1, index: 2, start: 14, end: 22, text: 'A three.' },
    ],
  };
}

/** 3 sentences × dimension 2. */
const vectors = (): Float32Array => new Float32Array([1, 0, 0, 1, 0.6, 0.8]);

/** The rows each layer's store holds, counted (the repository's counts trust the index record's tally). */
async function storedRows(db: ConceptDb) {
  const [documents, sections, chunks, sentences] = await Promise.all([
    db.documents.count(),
    db.sections.count(),
    db.chunks.count(),
    db.sentences.count(),
  ]);
  return { documents, sections, chunks, sentences };
}

describe('Repo.putPreparedDocuments, one document at a time', () => {
  it('stores a document with its sections, chunks, sentences and vectors, and counts them', async () => {
    const { db, repo } = freshRepo();
    const result = await putPreparedDocument(repo, prepared('d1'), vectors(), 'use-lite@1');
    expect(result).toEqual({ stored: true, docId: 'd1' });
    expect(await storedRows(db)).toEqual({ documents: 1, sections: 1, chunks: 2, sentences: 3 });
    const counts = await repo.counts();
    expect(counts).toMatchObject({
      documents: 1,
      chunks: 2,
      sentences: 3,
      vectors: 3,
      pending: 0,
    });
    const meta = await repo.getMeta();
    expect(meta).toMatchObject({
      embedderId: 'use-lite@1',
      dimension: 2,
      layers: { lexical: true, semantic: true },
    });
  });

  it('leaves nothing behind when a write inside the transaction fails', async () => {
    const { db, repo } = freshRepo();
    const bad = prepared('d1');
    // Two sentences with the same primary key: the third bulkAdd fails after document, sections and chunks.
    bad.sentences[2] = { ...bad.sentences[2], id: bad.sentences[1].id };
    await expect(putPreparedDocument(repo, bad, vectors(), 'use-lite@1')).rejects.toThrow();
    expect(await storedRows(db)).toEqual({ documents: 0, sections: 0, chunks: 0, sentences: 0 });
    expect(await repo.counts()).toMatchObject({
      documents: 0,
      chunks: 0,
      sentences: 0,
      vectors: 0,
    });
    expect(await repo.getMeta()).toBeUndefined();
  });

  it('stores the same content once', async () => {
    const { repo } = freshRepo();
    await putPreparedDocument(repo, prepared('d1'), vectors(), 'use-lite@1');
    const again = await putPreparedDocument(repo, prepared('d1'), vectors(), 'use-lite@1');
    expect(again).toEqual({ stored: false, docId: 'd1', reason: 'duplicate' });
    // Same hash under another id (e.g. another file name) is a duplicate too.
    const sameHash = await putPreparedDocument(repo, prepared('d9', 'd1-hash'), vectors(), 'use-lite@1');
    expect(sameHash).toEqual({ stored: false, docId: 'd1', reason: 'duplicate' });
    expect(await repo.counts()).toMatchObject({ documents: 1, chunks: 2, sentences: 3, vectors: 3 });
  });

  it('refuses vectors from another embedder and keeps the store as it was', async () => {
    const { repo } = freshRepo();
    await putPreparedDocument(repo, prepared('d1'), vectors(), 'use-lite@1');
    const error = await putPreparedDocument(repo, prepared('d2'), vectors(), 'hf:other').catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EmbedderMismatchError);
    expect((error as Error).message).toContain('"hf:other"');
    expect((error as Error).message).toContain('"use-lite@1"');
    expect(await repo.counts()).toMatchObject({ documents: 1, sentences: 3, vectors: 3 });
  });

  it('refuses a vector set that does not match the sentences', async () => {
    const { repo } = freshRepo();
    await expect(putPreparedDocument(repo, prepared('d1'), new Float32Array(7), 'e')).rejects.toThrow(
      /d1\.txt.*7 floats do not split into 3 sentence vectors/,
    );
    await putPreparedDocument(repo, prepared('d1'), vectors(), 'e');
    // Dimension 3 into a dimension-2 library.
    await expect(putPreparedDocument(repo, prepared('d2'), new Float32Array(9), 'e')).rejects.toThrow(
      /dimension 3/,
    );
  });
});

describe('Repo.putPreparedDocuments', () => {
  it('stores a batch in one transaction, keeping content repeated within the batch once', async () => {
    const { repo } = freshRepo();
    await putPreparedDocument(repo, prepared('d0'), vectors(), 'e');
    const results = await repo.putPreparedDocuments(
      [
        { prepared: prepared('d1'), vectors: vectors() },
        { prepared: prepared('d0'), vectors: vectors() },
        { prepared: prepared('d2', 'd1-hash'), vectors: vectors() },
        { prepared: prepared('d3'), vectors: vectors() },
      ],
      'e',
    );
    expect(results).toEqual([
      { stored: true, docId: 'd1' },
      { stored: false, docId: 'd0', reason: 'duplicate' },
      { stored: false, docId: 'd1', reason: 'duplicate' },
      { stored: true, docId: 'd3' },
    ]);
    expect(await repo.counts()).toMatchObject({ documents: 3, chunks: 6, sentences: 9, vectors: 9 });
  });

  it('stores none of the batch when one document fails', async () => {
    const { repo } = freshRepo();
    const bad = prepared('d2');
    bad.chunks[1] = { ...bad.chunks[1], id: bad.chunks[0].id };
    await expect(
      repo.putPreparedDocuments(
        [
          { prepared: prepared('d1'), vectors: vectors() },
          { prepared: bad, vectors: vectors() },
        ],
        'e',
      ),
    ).rejects.toThrow();
    expect(await repo.counts()).toMatchObject({ documents: 0, chunks: 0, sentences: 0, vectors: 0 });
  });

  it('refuses a batch whose documents disagree on the vector dimension', async () => {
    const { repo } = freshRepo();
    await expect(
      repo.putPreparedDocuments(
        [
          { prepared: prepared('d1'), vectors: vectors() },
          { prepared: prepared('d2'), vectors: new Float32Array(9) },
        ],
        'e',
      ),
    ).rejects.toThrow('store: document "d2.txt": vectors of dimension 3, the others of the batch have 2');
  });
});

describe('Repo.removeDocument', () => {
  it('removes the document, everything derived from it, and KG items only it supported', async () => {
    const { db, repo } = freshRepo();
    await putPreparedDocument(repo, prepared('d1'), vectors(), 'e');
    await putPreparedDocument(repo, prepared('d2'), vectors(), 'e');
    await db.kgChunks.bulkAdd([
      { chunkId: 'd1#0000#0000', status: 'done', entityIds: ['e1', 'e2'], relationIds: ['r1'] },
      { chunkId: 'd2#0000#0000', status: 'done', entityIds: ['e2'], relationIds: [] },
    ]);
    await db.kgEntities.bulkAdd([
      { id: 'e1', name: 'One', type: 'x', description: '', chunkIds: ['d1#0000#0000'] },
      { id: 'e2', name: 'Two', type: 'x', description: '', chunkIds: ['d1#0000#0000', 'd2#0000#0000'] },
    ]);
    await db.kgRelations.bulkAdd([
      { id: 'r1', source: 'e1', target: 'e2', description: '', weight: 1, chunkIds: ['d1#0000#0000'] },
    ]);

    expect(await repo.removeDocument('d1')).toBe(true);
    expect(await storedRows(db)).toEqual({ documents: 1, sections: 1, chunks: 2, sentences: 3 });
    expect(await repo.counts()).toMatchObject({
      documents: 1,
      chunks: 2,
      sentences: 3,
      vectors: 3,
    });
    expect(await db.kgChunks.toCollection().primaryKeys()).toEqual(['d2#0000#0000']);
    // Records without mentions (as older bundles carry them) come back with one mention per chunk left.
    expect(await db.kgEntities.toArray()).toEqual([
      {
        id: 'e2',
        name: 'Two',
        type: 'x',
        description: '',
        chunkIds: ['d2#0000#0000'],
        mentions: [{ chunkId: 'd2#0000#0000', name: 'Two', type: 'x', description: '' }],
      },
    ]);
    expect(await db.kgRelations.count()).toBe(0);
    expect(await repo.removeDocument('d1')).toBe(false);
  });

  it('forgets the embedder when the library becomes empty', async () => {
    const { repo } = freshRepo();
    await putPreparedDocument(repo, prepared('d1'), vectors(), 'e');
    await repo.removeDocument('d1');
    expect(await repo.getMeta()).toBeUndefined();
    await expect(putPreparedDocument(repo, prepared('d1'), vectors(), 'other')).resolves.toEqual({
      stored: true,
      docId: 'd1',
    });
  });
});

describe('Repo.storedDocuments', () => {
  it('says which documents are still stored without reading any document record', async () => {
    const { db, repo } = freshRepo();
    await putPreparedDocument(repo, prepared('d1'), vectors(), 'e');
    await putPreparedDocument(repo, prepared('d2'), vectors(), 'e');
    await putPreparedDocument(repo, prepared('d3'), vectors(), 'e');
    await repo.removeDocument('d2');
    // Stale early evidence is checked with this before every send: a record read here is a document's whole text.
    let documentsRead = 0;
    db.documents.hook('reading', (document) => {
      documentsRead += 1;
      return document;
    });
    const stored = await repo.storedDocuments(['d3', 'd2', 'd1', 'never']);
    expect([...stored].sort()).toEqual(['d1', 'd3']);
    expect(await repo.storedDocuments([])).toEqual(new Set());
    expect(documentsRead).toBe(0);
  });
});

describe('Repo corpus, graph and queue', () => {
  it('loads the corpus whole: texts sliced back from the document, int8 vectors as unit Float32 rows', async () => {
    const { db, repo } = freshRepo();
    const original = prepared('d1');
    await putPreparedDocument(repo, original, vectors(), 'e');
    // Stored once: no chunk or sentence text beside the document's, a byte per vector component plus a scale.
    expect((await db.chunks.toArray()).every((c) => c.text === undefined)).toBe(true);
    expect((await db.sentences.toArray()).every((s) => s.text === undefined)).toBe(true);
    expect((await db.vectors.get('d1'))?.data.byteLength).toBe(3 * 4 + 3 * 2);
    const lexical = { format: 'conceptrag-graph', terms: ['a', 'b'] } as unknown as SerializedGraph;
    await repo.putGraph(lexical, { concepts: 2, edges: 1 });
    const corpus = await repo.loadCorpus();
    expect(corpus.documents.map((d) => d.id)).toEqual(['d1']);
    expect(corpus.chunks).toEqual(original.chunks);
    expect(corpus.sentences).toEqual(original.sentences);
    const got = Array.from(corpus.vectors.get('d1') ?? []);
    [1, 0, 0, 1, 0.6, 0.8].forEach((x, i) => expect(got[i]).toBeCloseTo(x, 2));
    // A graph that is not whole (no edge arrays) cannot be kept as its concept table: only its counts are kept
    // (lexicalGraph.test.ts stores a real one).
    expect(corpus.graph).toBeUndefined();
    expect(await repo.counts()).toMatchObject({ concepts: 2, edges: 1 });
  });

  it('keeps a chunk text that is not a slice of the document text', async () => {
    const { repo } = freshRepo();
    const odd = prepared('d1');
    odd.chunks[1] = { ...odd.chunks[1], text: 'Heading › A three.' };
    await putPreparedDocument(repo, odd, vectors(), 'e');
    expect((await repo.loadCorpus()).chunks[1].text).toBe('Heading › A three.');
  });

  it('keeps the pending queue in order with bytes, and drops failed files from it', async () => {
    const { repo } = freshRepo();
    const ids = await repo.enqueue([
      { name: 'a.txt', bytes: new TextEncoder().encode('aa').buffer as ArrayBuffer },
      { name: 'b.txt', bytes: new TextEncoder().encode('bbb').buffer as ArrayBuffer },
    ]);
    await repo.markFailed(ids[0], 'a.txt: empty');
    const queue = await Promise.all((await repo.waitingIds()).map((id) => repo.pendingFile(id)));
    expect(queue.map((p) => [p?.name, p?.size, new TextDecoder().decode(p?.bytes)])).toEqual([
      ['b.txt', 3, 'bbb'],
    ]);
    const summary = await repo.pendingSummary();
    expect(summary.map((p) => [p.name, p.status, p.reason])).toEqual([
      ['a.txt', 'failed', 'a.txt: empty'],
      ['b.txt', 'queued', undefined],
    ]);
    expect((await repo.counts()).pending).toBe(1);
    expect(await repo.waitingCount()).toBe(1);
    expect((await repo.failedPending()).map((p) => [p.name, p.reason])).toEqual([['a.txt', 'a.txt: empty']]);
    // A failed file's bytes are dropped; only its name and reason stay.
    expect((await repo.db.pending.get(ids[0]))?.bytes.byteLength).toBe(0);
    await repo.removePending(ids[1]);
    await repo.clearFailedPending();
    expect(await repo.pendingSummary()).toEqual([]);
  });
});

describe('the tally of sentences and chunks', () => {
  it('is kept by every write and removal, so counting never walks the sentences; an old library gets it once', async () => {
    const { db, repo } = freshRepo();
    await putPreparedDocument(repo, prepared('d1'), vectors(), 'e');
    await repo.putPreparedDocuments(
      [
        { prepared: prepared('d2'), vectors: vectors() },
        { prepared: prepared('d1'), vectors: vectors() }, // a duplicate adds nothing
      ],
      'e',
    );
    // Two documents of two chunks and three sentences each.
    expect((await repo.getMeta())?.sentenceTally).toEqual({ documents: 2, sentences: 6, chunks: 4 });
    await repo.removeDocument('d1');
    expect((await repo.getMeta())?.sentenceTally).toEqual({ documents: 1, sentences: 3, chunks: 2 });
    // The counts use it: a sentence written behind the repository's back is not counted while the tally matches.
    const stray = { ...prepared('d2').sentences[0], id: 'stray', docId: 'd2' };
    await db.sentences.add(stray);
    expect(await repo.counts()).toMatchObject({ documents: 1, sentences: 3 });
    expect(await repo.layerCounts()).toMatchObject({ documents: 1, sentences: 3 });
    // A library from before the tally counts its sentences, until the ingest worker tallies them once.
    const meta = (await repo.getMeta())!;
    delete meta.sentenceTally;
    await db.meta.put(meta);
    expect(await repo.counts()).toMatchObject({ sentences: 4 });
    await putPreparedDocument(repo, prepared('d3'), vectors(), 'e');
    expect((await repo.getMeta())?.sentenceTally).toBeUndefined();
    expect(await repo.checkTally()).toBe(true);
    expect((await repo.getMeta())?.sentenceTally).toEqual({ documents: 2, sentences: 7, chunks: 4 });
    expect(await repo.checkTally()).toBe(false);
    // A document removed behind the tally (by an app from before it): the counts show the tally, with nothing
    // counted, until the ingest worker's check at its start counts again (the sentences of d3 stay behind).
    await db.documents.delete('d3');
    expect(await repo.counts()).toMatchObject({ documents: 2, sentences: 7 });
    expect(await repo.checkTally()).toBe(true);
    expect(await repo.counts()).toMatchObject({ documents: 1, sentences: 7, chunks: 4 });
  });

  it('gives the chunks to the counts and the pages’ stamp while it matches, the same stamp as counted', async () => {
    const { db, repo } = freshRepo();
    const pages = new PagesRepo(db);
    await repo.putPreparedDocuments(
      [
        { prepared: prepared('d1'), vectors: vectors() },
        { prepared: prepared('d2'), vectors: vectors() },
      ],
      'e',
    );
    const stamped = await pages.libraryStamp();
    expect(stamped).toMatchObject({ documents: 2, chunks: 4 });
    // A chunk written behind the repository's back is not counted while the tally matches the documents: neither
    // count walks the chunks (in Chromium a count() reads every record of the store).
    const stray = { ...prepared('d2').chunks[0], id: 'stray-chunk', docId: 'd2' };
    await db.chunks.add(stray);
    expect(await repo.counts()).toMatchObject({ documents: 2, chunks: 4 });
    expect(await pages.libraryStamp()).toEqual(stamped);
    await db.chunks.delete('stray-chunk');
    // Without the tally the chunks are counted, and the stamp is the same string: pages stamped either way match.
    const meta = (await repo.getMeta())!;
    const tally = meta.sentenceTally;
    delete meta.sentenceTally;
    await db.meta.put(meta);
    expect(await pages.libraryStamp()).toEqual(stamped);
    // A tally of other documents: the stamp, which reads every document id, does not trust it and counts the chunks;
    // the counts show it until the ingest worker's check counts the library again.
    await db.meta.put({ ...meta, sentenceTally: { ...tally!, documents: 5, chunks: 99 } });
    await db.chunks.add(stray);
    expect((await pages.libraryStamp()).chunks).toBe(5);
    expect(await repo.counts()).toMatchObject({ documents: 5, chunks: 99 });
    expect(await repo.checkTally()).toBe(true);
    expect(await repo.counts()).toMatchObject({ documents: 2, chunks: 5 });
  });

  it('a tally written without the chunks (an app from before them) keeps none, until they are counted once', async () => {
    const { db, repo } = freshRepo();
    await putPreparedDocument(repo, prepared('d1'), vectors(), 'e');
    const meta = (await repo.getMeta())!;
    meta.sentenceTally = { documents: 1, sentences: 3 };
    await db.meta.put(meta);
    // Added to and removed from, it stays without chunks: a number carried on from nothing would be wrong.
    await putPreparedDocument(repo, prepared('d2'), vectors(), 'e');
    expect((await repo.getMeta())?.sentenceTally).toEqual({ documents: 2, sentences: 6 });
    await repo.removeDocument('d1');
    expect((await repo.getMeta())?.sentenceTally).toEqual({ documents: 1, sentences: 3 });
    // Without its chunks the tally is not the counts': the layers are counted.
    await db.chunks.add({ ...prepared('d2').chunks[0], id: 'stray-chunk', docId: 'd2' });
    expect(await repo.counts()).toMatchObject({ documents: 1, sentences: 3, chunks: 3 });
    await db.chunks.delete('stray-chunk');
    // The documents match, but the chunks are missing: tallied once more.
    expect(await repo.checkTally()).toBe(true);
    expect((await repo.getMeta())?.sentenceTally).toEqual({ documents: 1, sentences: 3, chunks: 2 });
  });
});
