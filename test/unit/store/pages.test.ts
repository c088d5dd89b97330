// Pages in the store (issue 22): a PDF's page starts and its chunks' page ranges are stored with the records (no
// schema change: the fields are not indexed), come back on load, and records written before them (no page
// fields) load as before.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { prepareFile } from '../../../src/core/prepare.ts';
import { openDatabase } from '../../../src/store/db.ts';
import { Repo } from '../../../src/store/repo.ts';
import { reportWithRunningHeader } from '../../support/tinyPdf.ts';

describe('pages in the store', () => {
  it('stores and loads page starts and chunk pages of a PDF beside a document stored without them', async () => {
    const db = openDatabase('pages', { indexedDB: new IDBFactory(), IDBKeyRange });
    const repo = new Repo(db);
    const pdf = (await prepareFile('report.pdf', reportWithRunningHeader(3), { maxChunkTokens: 1200 }))
      .documents[0];
    const txt = (await prepareFile('notes.txt', new TextEncoder().encode('Plain notes without pages.')))
      .documents[0];
    await repo.putPreparedDocuments([{ prepared: pdf }, { prepared: txt }], 'none');
    // A record as an older version wrote it: the same chunk without its page fields.
    const [first] = await db.chunks.where('docId').equals(pdf.doc.id).sortBy('id');
    await db.chunks.put({ ...first, pageStart: undefined, pageEnd: undefined });

    const corpus = await repo.loadCorpus();
    const doc = corpus.documents.find((d) => d.id === pdf.doc.id)!;
    expect(doc.pageStarts).toEqual(pdf.doc.pageStarts);
    const chunks = corpus.chunks.filter((c) => c.docId === pdf.doc.id).sort((a, b) => a.order - b.order);
    expect(chunks.map((c) => [c.pageStart, c.pageEnd])).toEqual([
      [undefined, undefined],
      ...pdf.chunks.slice(1).map((c) => [c.pageStart, c.pageEnd]),
    ]);
    expect(pdf.chunks.slice(1).map((c) => c.pageStart)).toEqual([2, 3]);
    expect(corpus.documents.find((d) => d.id === txt.doc.id)!.pageStarts).toBeUndefined();
    db.close();
  });
});
