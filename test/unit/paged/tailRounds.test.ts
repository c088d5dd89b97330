// Round twenty-two (issue 47): the rounds at the end of a question. On a slow link each round of reads is a round trip
// (100 ms); a question used to end with rounds of its own after the walk had settled: the final ranking's concept
// names, the records its first cards and windowed evidence show. A question asked for its first cards (the Ask view's
// first page) now has every ranking that meets a missing block run its evidence too, so that those reads go with the
// walk's last rounds, and the chunk lists of concepts the walk nearly pushed are read a round early: the first page
// takes no more rounds than the walk alone. Over a link only (a host sending many ranges a request): memory and a file
// read what a question needs. The large layout (lists not in the rows), where a walk reads lists and rows apart.
import { describe, expect, it } from 'vitest';
import { PagedLibrary } from '../../../src/core/paged/library.ts';
import { MemoryRangeSource } from '../../../src/core/paged/rangeSource.ts';
import { writePagedIndex, type WrittenPages } from '../../../src/core/paged/write.ts';
import type { Candidate } from '../../../src/core/retrieval/index.ts';
import { RetrievalEngine } from '../../../src/core/retrieval/engine.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';
import { preparedCorpus } from '../../support/builtOnce.ts';
import { REPO_DOCS } from '../../support/repoDocs.ts';

const QUESTIONS = [
  'How do I open a bundle from a URL?',
  'What does the keep-mask store for the concept graph?',
  'Which parts of a bundle are gzip compressed and why?',
  'How are block hashes checked when a page is read?',
  'What is a hub concept?',
  'How is a library upgraded to a newer version?',
];

/** A host on a link: many ranges a request, each part's headers ~120 bytes (the e2e's static server). */
class HostSource extends MemoryRangeSource {
  readonly partBytes = 120;
  async readRanges(ranges: ReadonlyArray<readonly [number, number]>): Promise<Uint8Array[]> {
    return Promise.all(ranges.map(([at, length]) => this.read(at, length)));
  }
}

async function cold(written: WrittenPages, host = true): Promise<PagedLibrary> {
  return PagedLibrary.open(
    host ? new HostSource(written.data, 'pages') : new MemoryRangeSource(written.data, 'pages'),
    { base: 0, length: written.data.length, directory: written.directory, hashes: written.hashes },
    createTermAnalyzer(),
  );
}

describe('a question’s last rounds', () => {
  it('are the walk’s: its first page reads its evidence with the walk’s reads, and answers the same', async () => {
    const corpus = await preparedCorpus(REPO_DOCS, 1200);
    const engine = RetrievalEngine.build(
      { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
      createTermAnalyzer(),
    );
    // Lists never kept in the rows (the 100 MiB layout), version 15's rows (each chunk's count in `open`): version
    // 16's rows, read by blocks that say their chunks' counts, make the walk alone a round shorter on some questions
    // (below), where the first page's reads of the words' evidence take the rounds they took.
    const layout = (version: number) =>
      writePagedIndex(engine.lexicalParts(), (docId) => ({ title: docId }), undefined, version, undefined, 0);
    const written = await layout(15);
    const delimited = await layout(16);
    expect(delimited.directory.rowsDelimited).toEqual({ countOrder: 5 });
    expect(written.directory.listsInRows).toBeFalsy();
    const firstCards = (hits: readonly unknown[], unread: ReadonlySet<number>) =>
      unread.size === hits.length ? [0, 1, 2] : [];
    let walked = 0;
    let fewer = 0;
    for (const q of QUESTIONS) {
      // The walk alone: its ranking, read until a run of it lacks nothing.
      const alone = await cold(written);
      const rank = (alone as unknown as { rank(text: string, mode: string): Candidate[] }).rank.bind(alone);
      const walk = await alone.reader.readUntilComplete(() => rank(q, 'ppr'));
      // A walk of a few rounds ends before the words' early evidence has read its records (EARLY_STEPS): only the
      // longer ones tell.
      if (walk.rounds < 4) continue;
      walked++;
      const page = await (await cold(written)).search(q, 'ppr', 12_000, undefined, undefined, firstCards);
      const whole = await (await cold(written)).search(q, 'ppr', 12_000);
      expect(page.rounds, `${q}: first page`).toBeLessThanOrEqual(walk.rounds);
      // Version 16: the same first page in no more rounds.
      const page16 = await (await cold(delimited)).search(q, 'ppr', 12_000, undefined, undefined, firstCards);
      expect(page16.hits, q).toEqual(page.hits);
      expect(page16.rounds, `${q}: first page, version 16`).toBeLessThanOrEqual(page.rounds);
      if (page.rounds < walk.rounds) fewer++;
      // Memory (or a file) reads nothing ahead: the same hits, and no more bytes than over the link.
      const local = await (
        await cold(written, false)
      ).search(q, 'ppr', 12_000, undefined, undefined, firstCards);
      expect(local.hits, q).toEqual(page.hits);
      expect(local.bytes, q).toBeLessThanOrEqual(page.bytes);
      // The same answer as the library in memory gives (library.test.ts), read ahead or not; the page's read hits too.
      expect(whole.hits, q).toEqual(engine.search({ text: q }, 'ppr', 12_000));
      page.hits.forEach((h, i) => {
        if (!page.unread?.has(i)) expect(h, `${q}: hit ${i}`).toEqual(whole.hits[i]);
      });
    }
    expect(walked).toBeGreaterThanOrEqual(4);
    // The walk a question runs reads the lists of the concepts it nearly pushed a round early (the walk alone does
    // not): some question's walk ends a round sooner.
    expect(fewer).toBeGreaterThan(0);
  }, 240_000);
});
