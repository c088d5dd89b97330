// The counts a drain reports while it stores files are kept by the drain itself (IngestPipeline's KeptCounts), not
// IndexedDB count()s: Chromium answers a count() by walking the store, so a count every 2 s took more of a 100 MB
// drop's time with every document. The kept counts must still be the store's: checked against count()s of the
// store after every coverage event, with duplicates (not stored) and a file that fails to parse in the drop, and
// the drain must count the store only at its start and at its graph refreshes.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { IngestPipeline } from '../../../../src/services/ingest/ingestPipeline.ts';
import type { LibraryCoverage } from '../../../../src/services/ingest/ingestProtocol.ts';
import { openDatabase } from '../../../../src/store/db.ts';
import { Repo } from '../../../../src/store/repo.ts';
import { bytes, fakeEmbedder, prepare } from './ingestFixtures.ts';

async function drop(batchFiles: number) {
  const repo = new Repo(openDatabase('kept', { indexedDB: new IDBFactory(), IDBKeyRange }));
  await repo.setSetting('sentenceVectors', false);
  // Stored before the drop: the kept counts start from the store, not from zero.
  await repo.enqueue([{ name: 'old.txt', bytes: bytes('old: One old. Two old.') }]);
  const first = new IngestPipeline({
    repo,
    prepare,
    embedder: async () => fakeEmbedder(),
    rebuildGraph: async () => undefined,
    emit: () => undefined,
  });
  await first.ensureRunning();

  // Each store write moves the clock past STORED_COVERAGE_MS, so every write reports; refreshes never come due
  // before the end of the queue (a 1-hour interval).
  let clock = 0;
  const seen: Array<{ reported: LibraryCoverage; stored: { documents: number; sentences: number } }> = [];
  let counted = 0;
  const layerCounts = repo.layerCounts.bind(repo);
  repo.layerCounts = async () => {
    counted += 1;
    return layerCounts();
  };
  const checks: Promise<void>[] = [];
  const pipeline = new IngestPipeline(
    {
      repo,
      prepare: async (name, data, options) => {
        clock += 5000;
        return prepare(name, data, options);
      },
      batchFiles,
      embedder: async () => fakeEmbedder(),
      rebuildGraph: async () => undefined,
      emit: (e) => {
        if (e.type !== 'coverage') return;
        // What the store holds at the moment of the event (before the drain writes again).
        checks.push(
          layerCounts().then((c) => {
            seen.push({ reported: e.coverage, stored: { documents: c.documents, sentences: c.sentences } });
          }),
        );
      },
      now: () => clock,
    },
    3_600_000,
  );
  const files = Array.from({ length: 12 }, (_, i) => ({
    name: `f${i}.txt`,
    // Two documents a file, with 1 and 3 sentences; f3 repeats f2 (duplicates, not stored); f5 cannot be parsed.
    bytes: bytes(
      i === 5
        ? 'BAD'
        : i === 3
          ? 'a2: A one.\nb2: B one. B two. B three.'
          : `a${i}: A one.\nb${i}: B one. B two. B three.`,
    ),
  }));
  await pipeline.enqueue(files);
  await pipeline.ensureRunning();
  await Promise.all(checks);
  return { seen, counted, final: await layerCounts() };
}

describe('counts kept by the drain', () => {
  for (const batchFiles of [1, 4]) {
    it(`equal the store's after every report (${batchFiles === 1 ? 'files alone' : 'files in batches'})`, async () => {
      const { seen, counted, final } = await drop(batchFiles);
      // 1 document from before, 10 files of 2 documents (f3 duplicates f2, f5 fails): 21 documents.
      expect(final.documents).toBe(21);
      expect(final.sentences).toBe(2 + 10 * 4);
      expect(seen.length).toBeGreaterThanOrEqual(batchFiles === 1 ? 10 : 3);
      for (const s of seen) {
        expect(s.reported.documents).toBe(s.stored.documents);
        expect(s.reported.sentences).toBe(s.stored.sentences);
      }
      expect(seen.at(-1)?.reported.documents).toBe(21);
      // Counted at the drain's start and around its one graph refresh, not per write.
      expect(counted).toBeLessThanOrEqual(3);
    });
  }
});
