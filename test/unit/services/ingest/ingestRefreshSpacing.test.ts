// The graph refresh during a long drop is spaced by its own cost (IngestPipeline.refreshIfDue,
// GRAPH_REFRESH_SPACING): a refresh that reads the whole library costs more as the library grows, and at a fixed
// interval a large drop spent most of its time refreshing. On a scripted clock (parsing a file takes 1 s, a refresh
// 0.2 s per stored document, as a refresh that reads every stored document would) the refreshes stay a bounded
// share of the drop, the documents become searchable while it runs, and the last refresh covers every document.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { GRAPH_REFRESH_SPACING, IngestPipeline } from '../../../../src/services/ingest/ingestPipeline.ts';
import type { PrepareFn } from '../../../../src/services/ingest/limitedParse.ts';
import type { IngestEvent } from '../../../../src/services/ingest/ingestProtocol.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { Repo } from '../../../../src/store/repo.ts';
import { bytes, fakeEmbedder, prepare } from './ingestFixtures.ts';

const PARSE_MS = 1000;
const REFRESH_MS_PER_DOCUMENT = 200;

async function drop(files: number, graphRefreshMs: number) {
  const repo = new Repo(openDatabase('spacing', { indexedDB: new IDBFactory(), IDBKeyRange }));
  let clock = 0;
  const refreshes: Array<{ start: number; cost: number; documents: number }> = [];
  const timedPrepare: PrepareFn = async (name, data, options) => {
    clock += PARSE_MS;
    return prepare(name, data, options);
  };
  const events: IngestEvent[] = [];
  const pipeline = new IngestPipeline(
    {
      repo,
      prepare: timedPrepare,
      // One file per batch: a refresh may follow every file.
      batchFiles: 1,
      embedder: async () => fakeEmbedder(),
      rebuildGraph: async (r) => {
        const { documents } = await r.counts();
        const cost = REFRESH_MS_PER_DOCUMENT * documents;
        refreshes.push({ start: clock, cost, documents });
        clock += cost;
      },
      emit: (e) => events.push(e),
      now: () => clock,
    },
    graphRefreshMs,
  );
  await repo.setSetting('sentenceVectors', false);
  await pipeline.enqueue(
    Array.from({ length: files }, (_, i) => ({ name: `f${i}.txt`, bytes: bytes(`d${i}: S${i} one.`) })),
  );
  await pipeline.ensureRunning();
  return { refreshes, clock, events };
}

describe('graph refresh spacing during a drop', () => {
  it('waits GRAPH_REFRESH_SPACING times the last refresh, so refreshes stay a bounded share of the drop', async () => {
    const { refreshes, clock } = await drop(300, 5000);
    // Every file was stored and the last refresh covers them all.
    expect(refreshes.at(-1)?.documents).toBe(300);
    for (let k = 1; k < refreshes.length - 1; k++) {
      const gap = refreshes[k].start - refreshes[k - 1].start;
      expect(gap).toBeGreaterThanOrEqual(Math.max(5000, GRAPH_REFRESH_SPACING * refreshes[k - 1].cost));
    }
    // Searchable while the drop runs: several refreshes before the last one, each covering more documents.
    expect(refreshes.length).toBeGreaterThanOrEqual(3);
    expect(refreshes.length).toBeLessThan(15);
    const duringDrop = refreshes.slice(0, -1).reduce((s, r) => s + r.cost, 0);
    const parsing = 300 * PARSE_MS;
    // At most a quarter of the time until the last file was stored went to refreshes (the last one follows it).
    expect(duringDrop).toBeLessThanOrEqual((parsing + duringDrop) / (GRAPH_REFRESH_SPACING - 1));
    expect(clock).toBe(parsing + refreshes.reduce((s, r) => s + r.cost, 0));
  });

  it('refreshes at the fixed interval while refreshes are cheap', async () => {
    // 10 one-second files, a 5 s interval, into an empty library. At 1 s: the first document, searchable at once
    // (0.2 s). At 6.2 s (5 s after it): 6 documents, 1.2 s (4 × 1.2 s < 5 s: the interval rules). At 11.4 s:
    // the 10th document, stored past 6.2 + max(5, 4.8) s: that refresh covers the whole drop, and none follows.
    const { refreshes } = await drop(10, 5000);
    expect(refreshes.map((r) => [r.start, r.documents])).toEqual([
      [1000, 1],
      [6200, 6],
      [11400, 10],
    ]);
  });

  it('makes a first drop searchable at its first batch, not at the end of a queue stored within the interval', async () => {
    // 10 one-second files with the app's 60 s interval: before, nothing was searchable until the one refresh after
    // the 10th file; a question asked meanwhile waited for it (issue 48: "What is this about?" right after a drop).
    const { refreshes, events } = await drop(10, 60_000);
    expect(refreshes.map((r) => [r.start, r.documents])).toEqual([
      [1000, 1],
      [10200, 10],
    ]);
    // The page heard that the first document was searchable while the other nine were still to be stored.
    const searchable = events.flatMap((e) =>
      e.type === 'coverage' ? [[e.coverage.searchableDocuments, e.coverage.documents]] : [],
    );
    expect(searchable).toContainEqual([1, 1]);
  });

  it('spaces the refreshes as before once the library had searchable documents', async () => {
    // A second drop into the same library: its documents wait for the interval (or the end of its queue).
    const repo = new Repo(openDatabase('second', { indexedDB: new IDBFactory(), IDBKeyRange }));
    let clock = 0;
    const starts: Array<[number, number]> = [];
    const pipeline = new IngestPipeline(
      {
        repo,
        prepare: async (name, data, options) => {
          clock += PARSE_MS;
          return prepare(name, data, options);
        },
        batchFiles: 1,
        embedder: async () => fakeEmbedder(),
        rebuildGraph: async (r) => {
          starts.push([clock, (await r.counts()).documents]);
        },
        emit: () => undefined,
        now: () => clock,
      },
      60_000,
    );
    await repo.setSetting('sentenceVectors', false);
    const files = (from: number) =>
      Array.from({ length: 5 }, (_, i) => ({
        name: `f${from + i}.txt`,
        bytes: bytes(`d${from + i}: S${i} one.`),
      }));
    await pipeline.enqueue(files(0));
    await pipeline.ensureRunning();
    await pipeline.enqueue(files(5));
    await pipeline.ensureRunning();
    expect(starts).toEqual([
      [1000, 1],
      [5000, 5],
      [10000, 10],
    ]);
  });
});
