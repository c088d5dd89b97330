// The graph refresh during a long drop is spaced by its own cost (IngestPipeline.refreshIfDue,
// GRAPH_REFRESH_SPACING): a refresh that reads the whole library costs more as the library grows, and at a fixed
// interval a large drop spent most of its time refreshing. On a scripted clock (parsing a file takes 1 s, a refresh
// 0.2 s per stored document, as a refresh that reads every stored document would) the refreshes stay a bounded
// share of the drop, the documents become searchable while it runs, and the last refresh covers every document.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import {
  GRAPH_REFRESH_SPACING,
  IngestPipeline,
  type PrepareFn,
} from '../../../../src/services/ingest/ingestPipeline.ts';
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
    // 10 one-second files, a 5 s interval. At 5 s: 5 documents, a 1 s refresh (4 × 1 s < 5 s: the interval
    // rules). At 10 s: 9 documents, 1.8 s. The next would be due at 10 + max(5, 4 × 1.8) = 17.2 s, after the
    // drop: the last file is stored at 12.8 s and the refresh at the end of the queue covers it.
    const { refreshes } = await drop(10, 5000);
    expect(refreshes.map((r) => [r.start, r.documents])).toEqual([
      [5000, 5],
      [10000, 9],
      [12800, 10],
    ]);
  });
});
