// The query worker looks again at every question of a library answered in memory whether it is now answered from its
// pages (QueryService.pagesState over src/services/library/storedPages.ts): the page invalidates it only once its own
// refresh has seen the library change, and CI on e2d441e answered a question past the threshold from memory on a
// verdict kept from before (9f1cc07). The re-check reads the index record's tally of chunks, never a count() of
// them (in Chromium a count() walks the store: 13–15 ms a question at 9,002 chunks, docs/results/ranges.md). Real
// store (fake-indexeddb), real pages writer, real query service; the library is never invalidated between questions.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import { writeLibraryPages } from '../../../../src/services/ingest/pagesWrite.ts';
import { PAGES_MIN_CHUNKS_SETTING } from '../../../../src/services/library/pagesThreshold.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { Repo } from '../../../../src/store/repo.ts';
import { bytes, prepare } from '../ingest/ingestFixtures.ts';
import { storedPagesQueryService } from '../../../support/storedPagesQueryService.ts';

/** Below it with the first three documents (one chunk each), past it with the next three. */
const THRESHOLD = 5;
const PLACES = ['Arden', 'Brisk', 'Corran', 'Dunmore', 'Elsby', 'Fenwick'];
const question = (i: number) => ({
  question: `Where do farmers of ${PLACES[i]} sell flour?`,
  mode: 'bm25' as const,
  budget: 400,
});

/** Stores documents i of PLACES as the ingest pipeline does (one transaction, the tally with them), nothing more. */
async function store(repo: Repo, indexes: number[]): Promise<void> {
  const lines = indexes
    .map((i) => `${PLACES[i]}: The mill of ${PLACES[i]} grinds barley. Farmers of ${PLACES[i]} sell flour.`)
    .join('\n');
  const { documents } = await prepare('places.txt', new Uint8Array(bytes(lines)), {
    maxChunkTokens: 1200,
  });
  await repo.putPreparedDocuments(documents.map((prepared) => ({ prepared })));
}

async function setUp() {
  const repo = new Repo(openDatabase('recheck', { indexedDB: new IDBFactory(), IDBKeyRange }));
  await repo.setSetting(PAGES_MIN_CHUNKS_SETTING, THRESHOLD);
  await store(repo, [0, 1, 2]);
  let corpusLoads = 0;
  const service = storedPagesQueryService(repo, {
    loadCorpus: () => {
      corpusLoads += 1;
      return repo.loadCorpus();
    },
  });
  // Every count() of the chunks, whoever asks it.
  const counted = vi.spyOn(repo.db.chunks, 'count');
  return { repo, service, counted, corpusLoads: () => corpusLoads };
}

describe('the pages re-check at every question', () => {
  it('a library that grows past the threshold between two questions is answered by words, then from its pages, never from memory', async () => {
    const { repo, service, counted, corpusLoads } = await setUp();
    const first = await service.ask(question(0));
    expect(first.from, 'a small library is answered in memory').toBeUndefined();
    expect(first.evidence[0]?.docTitle).toBe('Arden');
    expect(corpusLoads()).toBe(1);
    counted.mockClear();
    const second = await service.ask(question(1));
    expect(second.evidence[0]?.docTitle).toBe('Brisk');
    expect(counted, 'a question counted the chunks').not.toHaveBeenCalled();

    // A drop stores three more documents: past the threshold, and nobody tells the query service (no invalidate).
    await store(repo, [3, 4, 5]);
    // Its pages are not written yet: answered by words over the stored chunks, not loaded into memory.
    const byWords = await service.ask(question(4));
    expect(byWords.from, 'answered from memory').toBe('words');
    expect(byWords.evidence[0]?.docTitle).toBe('Elsby');
    expect(counted, 'a question counted the chunks').not.toHaveBeenCalled();
    // A mode that needs the pages (or the library in memory) is refused by name meanwhile.
    await expect(service.ask({ ...question(4), mode: 'concept' })).rejects.toThrow(
      /mode concept needs the library's paged index: this library \(6 chunks\) .* being written/,
    );
    // The pages are written (the drop's refresh): the next question reads them, with the new documents.
    await writeLibraryPages(repo);
    const paged = await service.ask(question(4));
    expect(paged.from).toBe('pages');
    expect(paged.evidence[0]?.docTitle).toBe('Elsby');
    expect(corpusLoads(), 'the library was loaded again').toBe(1);
    // Pages once opened are kept until the library changes: later questions read nothing of the store to know it.
    counted.mockClear();
    expect((await service.ask(question(5))).from).toBe('pages');
    expect(counted, 'a question counted the chunks').not.toHaveBeenCalled();
  }, 60_000);

  it('a library whose tally lacks the chunks (written by an app from before them) is counted, and as right', async () => {
    const { repo, service, counted } = await setUp();
    expect((await service.ask(question(0))).from).toBeUndefined();
    const meta = (await repo.getMeta())!;
    meta.sentenceTally = { documents: 3, sentences: 6 };
    await repo.db.meta.put(meta);
    await store(repo, [3, 4]);
    counted.mockClear();
    const concept = { ...question(3), mode: 'concept' as const };
    await expect(service.ask(concept)).rejects.toThrow(
      /this library \(5 chunks\) is answered from its paged index/,
    );
    expect(counted).toHaveBeenCalled();
    // Tallied once (the ingest worker checks the tally seconds after its start): counted no more.
    expect(await repo.checkTally()).toBe(true);
    counted.mockClear();
    await expect(service.ask(concept)).rejects.toThrow(/this library \(5 chunks\)/);
    expect(counted).not.toHaveBeenCalled();
  }, 60_000);

  it('a lowered threshold setting is seen by the next question too', async () => {
    const { repo, service } = await setUp();
    expect((await service.ask(question(2))).from).toBeUndefined();
    await repo.setSetting(PAGES_MIN_CHUNKS_SETTING, 3);
    const byWords = await service.ask(question(2));
    expect(byWords.from).toBe('words');
    expect(byWords.evidence[0]?.docTitle).toBe('Corran');
  }, 60_000);
});
