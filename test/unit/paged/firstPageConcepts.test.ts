// Round sixteen (issue 47): a question asked for its first cards alone (search's `cards`: the Ask view's first page)
// names the concepts that led to the hits it reads, and no others. Every hit of the budget carries up to three concept
// ids, each named from the concept dictionary (a group of 128 concepts, scattered: a block each); an unread hit holds
// its rank, score and tokens and nothing else, so its concepts' names are not read (2Wiki: ~68 names a question,
// ~16 read since). The expected names are the whole answer's, computed by the same library asked without `cards`.
import { describe, expect, it, vi } from 'vitest';
import { PagedLibrary } from '../../../src/core/paged/library.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import { writePagedIndex, type WrittenPages } from '../../../src/core/paged/write.ts';
import { RetrievalEngine } from '../../../src/core/retrieval/engine.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';
import { preparedCorpus } from '../../support/builtOnce.ts';
import { REPO_DOCS } from '../../support/repoDocs.ts';

const QUESTIONS = [
  'How do I open a bundle from a URL?',
  'What does the keep-mask store for the concept graph?',
  'Which parts of a bundle are gzip compressed and why?',
];

async function cold(written: WrittenPages): Promise<PagedLibrary> {
  return PagedLibrary.open(
    new MemoryRangeSource(written.data, 'pages'),
    { base: 0, length: written.data.length, directory: written.directory, hashes: written.hashes },
    createTermAnalyzer(),
  );
}

describe('a first page’s concept names', () => {
  it('are read for the hits it reads only: an unread hit names none, a read one names the whole answer’s', async () => {
    const corpus = await preparedCorpus(REPO_DOCS, 1200);
    const engine = RetrievalEngine.build(
      { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
      createTermAnalyzer(),
    );
    const written = await writePagedIndex(engine.lexicalParts(), (docId) => ({ title: docId }));
    let unreadNamed = 0;
    for (const q of QUESTIONS) {
      const whole = await (await cold(written)).search(q, 'ppr', 12_000);
      const library = await cold(written);
      const named = new Set<string>();
      const conceptTerm = library.reader.conceptTerm.bind(library.reader);
      vi.spyOn(library.reader, 'conceptTerm').mockImplementation((c) => {
        const term = conceptTerm(c);
        if (term) named.add(term);
        return term;
      });
      // The first card only (the library may read more: sections it may cut to their best sentences).
      const page = await library.search(q, 'ppr', 12_000, undefined, undefined, (hits, unread) =>
        unread.size === hits.length ? [0] : [],
      );
      expect(page.hits.length).toBe(whole.hits.length);
      expect(page.unread?.size ?? 0).toBeGreaterThan(0);
      const readNames = new Set<string>();
      page.hits.forEach((h, i) => {
        if (page.unread!.has(i)) {
          expect(h.provenance.concepts, `${q}: unread hit ${i}`).toBeUndefined();
          unreadNamed += whole.hits[i].provenance.concepts?.length ?? 0;
        } else {
          expect(h.provenance, `${q}: hit ${i}`).toEqual(whole.hits[i].provenance);
          for (const t of h.provenance.concepts ?? []) readNames.add(t);
        }
      });
      // Every concept named by id is one a read hit shows.
      expect(
        [...named].filter((t) => !readNames.has(t)),
        q,
      ).toEqual([]);
    }
    // The whole answers' unread hits did name concepts: the page left them unread.
    expect(unreadNamed).toBeGreaterThan(0);
  }, 240_000);
});

describe('a first page’s later cards', () => {
  it('are read with the names of the cards read before them, not a round after', async () => {
    const corpus = await preparedCorpus(REPO_DOCS, 1200);
    const engine = RetrievalEngine.build(
      { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
      createTermAnalyzer(),
    );
    const written = await writePagedIndex(engine.lexicalParts(), (docId) => ({ title: docId }));
    const firstOnly = (hits: readonly unknown[], unread: ReadonlySet<number>) =>
      unread.size === hits.length ? [0] : [];
    // The first card, then the second once the first is read (as the rating asks for more after the first ones).
    const firstThenSecond = (hits: readonly unknown[], unread: ReadonlySet<number>) =>
      unread.size === hits.length ? [0] : unread.has(1) ? [1] : [];
    /**
     * A library that has read the question's first card and its names, then forgotten the concept dictionary's
     * groups: as when the walk's last rows give the final ranking's hits concepts not named yet, the first card's
     * record is here and its names are not.
     */
    const namesForgotten = async (q: string): Promise<PagedLibrary> => {
      const library = await cold(written);
      await library.search(q, 'ppr', 12_000, undefined, undefined, firstOnly);
      const { decoded } = library.reader.store as unknown as { decoded: Map<string, unknown> };
      for (const key of [...decoded.keys()]) if (/^c\d+$/.test(key)) decoded.delete(key);
      return library;
    };
    for (const q of QUESTIONS) {
      const whole = await (await cold(written)).search(q, 'ppr', 12_000);
      const page = await (
        await namesForgotten(q)
      ).search(q, 'ppr', 12_000, undefined, undefined, firstThenSecond);
      // A round for the ranking (the question's concepts are looked up in the dictionary's groups), one for the first
      // card's names and the records the cards want with them, and the run that reads nothing: the records do not
      // wait a round for the names.
      expect(page.rounds, q).toBeLessThanOrEqual(3);
      expect(page.unread?.has(0), q).toBe(false);
      page.hits.forEach((h, i) => {
        if (!page.unread?.has(i)) expect(h.provenance, `${q}: hit ${i}`).toEqual(whole.hits[i].provenance);
      });
    }
  }, 240_000);
});
