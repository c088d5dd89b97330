// The lexical layer only (issue 14): when the user chose to index a drop without sentence vectors (it would not fit
// in the browser's storage with them), the pipeline stores the documents, searchable by their words, and embeds
// nothing; turning the setting back on embeds exactly the documents stored without vectors.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { IngestPipeline } from '../../../../src/services/ingest/ingestPipeline.ts';
import { SENTENCE_VECTORS_SETTING } from '../../../../src/services/ingest/ingestProtocol.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { Repo } from '../../../../src/store/repo.ts';
import { bytes, fakeEmbedder, prepare } from './ingestFixtures.ts';

let n = 0;

describe('ingest pipeline: sentence vectors off', () => {
  it('stores documents without embedding any sentence, and embeds them all once vectors are on again', async () => {
    const repo = new Repo(openDatabase(`lexical-only-${n++}`, { indexedDB: new IDBFactory(), IDBKeyRange }));
    const embedder = fakeEmbedder();
    let graphs = 0;
    const pipeline = new IngestPipeline({
      repo,
      prepare,
      embedder: async () => embedder,
      rebuildGraph: async () => {
        graphs += 1;
      },
      emit: () => undefined,
    });
    await repo.setSetting(SENTENCE_VECTORS_SETTING, false);
    await pipeline.enqueue([{ name: 'a.txt', bytes: bytes('a: One a. Two a.\nb: One b. Two b. Three b.') }]);
    await pipeline.ensureRunning();
    const lexical = await repo.layerCounts();
    expect(lexical).toMatchObject({ documents: 2, sentences: 5, embeddedDocuments: 0, embeddedSentences: 0 });
    expect(embedder.batches, 'sentences were embedded with vectors off').toEqual([]);
    expect(graphs, 'the lexical graph was not built').toBeGreaterThan(0);
    expect(await repo.waitingCount()).toBe(0);

    await repo.setSetting(SENTENCE_VECTORS_SETTING, true);
    await pipeline.ensureRunning();
    const embedded = await repo.layerCounts();
    expect(embedded).toMatchObject({
      documents: 2,
      sentences: 5,
      embeddedDocuments: 2,
      embeddedSentences: 5,
    });
    expect(
      embedder.batches.reduce((a, b) => a + b, 0),
      'each sentence embedded once',
    ).toBe(5);
  });
});
