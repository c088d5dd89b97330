// The walk's hubs held (issue 47, round twenty-four: walkMaxDf): a concept in more chunks than the cap is never pushed.
// A library read by ranges holds the same concepts as the engine in memory (both decide by the concept's df), so with
// the cap on it still answers exactly as the engine does; and the cap does change what the walk ranks.
import { describe, expect, it } from 'vitest';
import { PagedLibrary } from '../../../src/core/paged/library.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import { writePagedIndex } from '../../../src/core/paged/write.ts';
import { RetrievalEngine } from '../../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';
import { preparedCorpus } from '../../support/builtOnce.ts';
import { REPO_DOCS } from '../../support/repoDocs.ts';

const QUESTIONS = [
  'How do I open a bundle from a URL?',
  'What does the keep-mask store for the concept graph?',
  'Which parts of a bundle are gzip compressed and why?',
  'How is the question blend between words and walk decided?',
  'What limits protect the reader from a hostile bundle?',
];

async function libraries() {
  const corpus = await preparedCorpus(REPO_DOCS, 1200);
  const analyzer = createTermAnalyzer();
  const engine = RetrievalEngine.build(
    { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
    analyzer,
  );
  const written = await writePagedIndex(engine.lexicalParts(), (docId) => ({ title: `title of ${docId}` }));
  const open = (params: Parameters<typeof PagedLibrary.open>[3]) =>
    PagedLibrary.open(
      new MemoryRangeSource(written.data, 'pages'),
      { base: 0, length: written.data.length, directory: written.directory, hashes: written.hashes },
      analyzer,
      params,
    );
  return { engine, open };
}

describe('walkMaxDf (the walk’s hubs held)', () => {
  it('answers as the engine in memory with the cap on, as a df and as a share of the chunks', async () => {
    const { engine, open } = await libraries();
    for (const walkMaxDf of [20, 0.02]) {
      const capped = engine.withParams({ walkMaxDf });
      const paged = await open({ walkMaxDf });
      for (const q of QUESTIONS)
        expect((await paged.search(q, 'ppr', 4000)).hits).toEqual(capped.search({ text: q }, 'ppr', 4000));
    }
  }, 120_000);

  it('changes the ranking when on, and off answers as the defaults', async () => {
    const { engine, open } = await libraries();
    const off = await open({ walkMaxDf: 0 });
    const on = await open({ walkMaxDf: 20 });
    let differ = 0;
    for (const q of QUESTIONS) {
      const today = engine.search({ text: q }, 'ppr', 4000);
      expect((await off.search(q, 'ppr', 4000)).hits).toEqual(today);
      const capped = (await on.search(q, 'ppr', 4000)).hits;
      if (JSON.stringify(capped) !== JSON.stringify(today)) differ++;
    }
    expect(differ).toBeGreaterThan(0);
  }, 120_000);

  it('refuses a parameter the pages were built with, naming it', async () => {
    const { open } = await libraries();
    await expect(open({ maxDfFraction: 0.2 })).rejects.toThrow(/"maxDfFraction" shapes the pages/);
  });
});
