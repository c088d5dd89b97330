// A lexical-only library keeps its concept table in IndexedDB (GraphRepo.putGraph): the query worker's next open
// takes its keyphrases from it instead of choosing them again (RetrievalEngine.fromTable), with the same answers.
// Real passages through the app's parser, fake-indexeddb for the store.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import { isConceptTableGraph } from '../../../src/core/graph/index.ts';
import { prepareFile } from '../../../src/core/prepare.ts';
import { RetrievalEngine } from '../../../src/core/retrieval/engine.ts';
import { buildEngine } from '../../../src/services/library/engine.ts';
import { openDatabase } from '../../../src/store/db.ts';
import { Repo } from '../../../src/store/repo.ts';

const MUSIQUE_300 = join(import.meta.dirname, '../../fixtures/musique-300/corpus.jsonl');

describe('a lexical library in the store', () => {
  it('keeps the concept table of its graph, and opens from it with the answers of a fresh build', async () => {
    const lines = readFileSync(MUSIQUE_300, 'utf8').split('\n', 120).join('\n');
    const { documents } = await prepareFile('musique.jsonl', new TextEncoder().encode(lines));
    const repo = new Repo(openDatabase('lexical', { indexedDB: new IDBFactory(), IDBKeyRange }));
    await repo.putPreparedDocuments(documents.map((prepared) => ({ prepared })));
    const fresh = buildEngine(await repo.loadCorpus());
    const stats = fresh.stats();
    await repo.putGraph(fresh.exportGraph(), { concepts: stats.concepts, edges: stats.edges });

    const corpus = await repo.loadCorpus();
    const stored = corpus.graph?.graph;
    expect(isConceptTableGraph(stored)).toBe(true);
    expect(stored).toMatchObject({ concepts: stats.concepts, edges: stats.edges });
    expect(await repo.counts()).toMatchObject({ concepts: stats.concepts, edges: stats.edges });

    const fromTable = vi.spyOn(RetrievalEngine, 'fromTable');
    const reopened = buildEngine(corpus);
    expect(fromTable).toHaveReturnedWith(reopened);
    fromTable.mockRestore();
    expect(reopened.stats()).toEqual(stats);
    for (const q of ['Who was the father of Lothair II?', 'When was the university founded?']) {
      expect(reopened.search({ text: q }, 'ppr', 1500)).toEqual(fresh.search({ text: q }, 'ppr', 1500));
    }
  });
});
