// A question's BM25 rankings, once every posting they read is here, are kept for the question's later runs
// (library.ts bm25Kept, round twenty-three): a question at 100 MiB runs its ranking once a round of reads, and each run
// scored the same checked postings again. The answer must be the one computed without them, read from the same bytes.
import { describe, expect, it, vi } from 'vitest';
import { openRepoDocsLarge } from '../../support/pagedLibraries.ts';

const QUESTIONS = ['How does a paged bundle check its blocks?', 'what does the walk read first'];

describe('a question’s BM25 rankings', () => {
  it('are scored once their postings are all here, and the answer and its bytes are those scored every run', async () => {
    const kept = await openRepoDocsLarge();
    const every = await openRepoDocsLarge();
    // Without the kept rankings: every run scores the postings again (bm25Kept cleared before each lookup).
    const everyLibrary = every.library as unknown as { bm25Kept: Map<string, unknown> };
    const get = everyLibrary.bm25Kept.get.bind(everyLibrary.bm25Kept);
    vi.spyOn(everyLibrary.bm25Kept, 'get').mockImplementation((key) => {
      everyLibrary.bm25Kept.clear();
      return get(key);
    });
    const scored = vi.spyOn(kept.library as unknown as { bm25Scores: () => unknown }, 'bm25Scores');
    for (const q of QUESTIONS) {
      scored.mockClear();
      const [a, b] = [
        await kept.library.search(q, 'ppr', 12_000),
        await every.library.search(q, 'ppr', 12_000),
      ];
      expect(a.hits).toEqual(b.hits);
      expect(a.rounds).toBe(b.rounds);
      expect(kept.source.bytesRead).toBe(every.source.bytesRead);
      // More than one run, but the words scored once complete: one complete scoring a ranking asked for, the rest
      // while their postings were missing.
      expect(a.rounds).toBeGreaterThan(1);
      expect(scored.mock.calls.length).toBeLessThan(a.rounds);
    }
  }, 120_000);
});
