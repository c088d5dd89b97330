// The Ask view's first page over a paged index (ask()'s `firstPage`, firstPage.ts): it reads the records of the
// passages the page shows (and of those whose text decides which those are), shows exactly what the whole answer's
// first page shows, and its rest is the whole answer. Each question is asked cold, over a fresh library on a real
// RangeSource whose reads are logged; the expected page is computed here from the whole answer (passagesShown over its
// ratings), never copied from output.
import { describe, expect, it } from 'vitest';
import type { BlockLayout } from '../../../../src/core/paged/blockLayout.ts';
import { blockLayoutOf } from '../../../../src/core/paged/format.ts';
import { PagedLibrary } from '../../../../src/core/paged/library.ts';
import { MemoryRangeSource } from '../../../../src/core/paged/rangeSource.ts';
import { writePagedIndex, type WrittenPages } from '../../../../src/core/paged/write.ts';
import { RetrievalEngine } from '../../../../src/core/retrieval/engine.ts';
import { passagesShown } from '../../../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../../../src/core/text/index.ts';
import type { AskResult, Evidence } from '../../../../src/services/questions/queryProtocol.ts';
import { ask } from '../../../../src/services/source/ask.ts';
import { pagedSource } from '../../../../src/services/source/pagedSource.ts';
import { preparedCorpus } from '../../../support/builtOnce.ts';
import { REPO_DOCS } from '../../../support/repoDocs.ts';

const VUE = 'test/fixtures/vuedocs/pages';
const VUE_QUESTIONS = [
  'How does computed caching differ from a method?',
  'When is the onMounted hook called?',
  'What does watchEffect track?',
  'How do I declare reactive state with ref?',
  'quantum chromodynamics lattice gauge',
];
const DOC_QUESTIONS = [
  'How do I open a bundle from a URL?',
  'What does the keep-mask store for the concept graph?',
  'Which parts of a bundle are gzip compressed and why?',
  'What limits protect the reader from a hostile bundle?',
];

/** A memory source that logs the ranges it is asked for. */
class LoggedSource extends MemoryRangeSource {
  readonly ranges: Array<[number, number]> = [];
  override async read(offset: number, length: number): Promise<Uint8Array> {
    this.ranges.push([offset, offset + length]);
    return super.read(offset, length);
  }
}

async function pagesOf(path: string): Promise<WrittenPages> {
  const corpus = await preparedCorpus(path, 1200);
  const engine = RetrievalEngine.build(
    { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
    createTermAnalyzer(),
  );
  const docs = new Map(corpus.documents.map((d) => [d.doc.id, d.doc]));
  return writePagedIndex(engine.lexicalParts(), (docId) => ({ title: docs.get(docId)!.title }));
}

/** A cold library over the pages: nothing read but its opening. */
async function cold(written: WrittenPages): Promise<{ library: PagedLibrary; source: LoggedSource }> {
  const source = new LoggedSource(written.data, 'pages');
  const library = await PagedLibrary.open(
    source,
    { base: 0, length: written.data.length, directory: written.directory, hashes: written.hashes },
    createTermAnalyzer(),
  );
  source.ranges.length = 0;
  return { library, source };
}

/**
 * The part's blocks as the library reads them: from version 8 by section (a small library's `open` in 64 KiB blocks,
 * its records in 1 KiB ones from the records' own start: blockLayout.ts), so never counted from the file's start.
 */
function layoutOf(library: PagedLibrary): BlockLayout {
  const d = library.directory;
  const end = Math.max(...Object.values(d.sections).map(([at, length]) => at + length));
  return blockLayoutOf(d, end);
}

/**
 * The blocks of the records section a source was asked for. Only blocks wholly inside the section: the first and
 * last may be shared with `open` and the terms, which every question reads whatever records it needs (which of them a
 * record group shares depends on where the section starts, i.e. on the size of `open`).
 */
function recordBlocks(library: PagedLibrary, source: LoggedSource): Set<number> {
  const layout = layoutOf(library);
  const [at, length] = library.directory.sections.records;
  const blocks = new Set<number>();
  for (const [from, to] of source.ranges)
    for (let b = layout.blockOf(from); b < layout.count && layout.startOf(b) < to; b++)
      if (layout.startOf(b) >= at && layout.endOf(b) <= at + length) blocks.add(b);
  return blocks;
}

/** The blocks holding the record groups of these chunk places. */
function blocksOf(library: PagedLibrary, places: Iterable<number>): Set<number> {
  const d = library.directory;
  const layout = layoutOf(library);
  const [at] = d.sections.records;
  const offsets = library.reader.open.recordGroups;
  const blocks = new Set<number>();
  for (const k of places) {
    const g = Math.floor(k / d.groups.records);
    const from = at + offsets[g];
    const to = at + offsets[g + 1];
    for (let b = layout.blockOf(from); b < layout.count && layout.startOf(b) < to; b++) blocks.add(b);
  }
  // Version 10: the records' dictionary (at the end of the section) is read with the first record group.
  const dictionary = d.recordCoding?.dictionary ?? 0;
  if (blocks.size > 0 && dictionary > 0) {
    const end = at + d.sections.records[1];
    for (let b = layout.blockOf(end - dictionary); b < layout.count && layout.startOf(b) < end; b++)
      blocks.add(b);
  }
  return blocks;
}

/** What a page shows of its evidence (what it read and how long it took aside). */
function shownOf(e: Evidence): Evidence {
  return JSON.parse(JSON.stringify(e)) as Evidence;
}

function withoutCosts(r: AskResult): Omit<AskResult, 'reads' | 'milliseconds'> {
  const { reads: _reads, milliseconds: _ms, ...rest } = r;
  return JSON.parse(JSON.stringify(rest)) as Omit<AskResult, 'reads' | 'milliseconds'>;
}

describe('the Ask view’s first page over a paged index', () => {
  for (const [name, path, questions] of [
    ['Vue docs', VUE, VUE_QUESTIONS],
    ['repository docs', REPO_DOCS, DOC_QUESTIONS],
  ] as const) {
    it(`${name}: shows the whole answer's first page, reads only the records it needs, its rest is the whole answer`, async () => {
      const written = await pagesOf(path);
      let fewer = 0;
      for (const question of questions) {
        const request = { question, mode: 'ppr' as const, budget: 12_000 };
        const whole = await cold(written);
        const today = await ask(pagedSource(whole.library), request);
        const wholeBlocks = recordBlocks(whole.library, whole.source);

        const first = await cold(written);
        let rest: (() => Promise<AskResult>) | undefined;
        const page = await ask(pagedSource(first.library), request, { firstPage: (r) => (rest = r) });
        const pageBlocks = recordBlocks(first.library, first.source);

        // The page: passagesShown over every passage's rating, the same cards, ratings, sentences.
        const ratings = today.evidence.map((e) => e.relevance!.value);
        const shown = passagesShown(ratings);
        if (!page.more) {
          // Every record was wanted (a page of every passage, or ratings that leave none out): the whole answer.
          expect(rest).toBeUndefined();
          expect(withoutCosts(page)).toEqual(withoutCosts(today));
          continue;
        }
        expect(page.evidence.map(shownOf)).toEqual(today.evidence.slice(0, shown).map(shownOf));
        expect(page.noGoodMatch).toBe(today.noGoodMatch);
        expect(page.more.passages).toBe(today.evidence.length - shown);
        expect(page.more.tokens).toBe(today.evidence.slice(shown).reduce((n, e) => n + e.tokens, 0));

        // The records it read: those of the first cards a page can show, of sections among the first 3,000 tokens
        // that may be cut to their best sentences, and of passages whose score leaves them a rating of half the
        // best of the first cards (each bounded as if it held every word of the question).
        const most = passagesShown(ratings.map(() => 100));
        const top = Math.max(0, ...today.evidence.map((e) => e.score));
        const bestFirst = Math.max(...ratings.slice(0, most));
        let used = 0;
        const needed = today.evidence.flatMap((e, i) => {
          const bound = top > 0 ? Math.round(100 * Math.sqrt(Math.max(0, e.score) / top)) : 100;
          const need = i < most || (used < 3000 && (e.excerpt || e.tokens > 200)) || bound >= bestFirst / 2;
          used += e.tokens;
          return need ? [whole.library.reader.chunkIndex.get(e.chunkId)!] : [];
        });
        const allowed = blocksOf(whole.library, needed);
        for (const b of pageBlocks) expect(allowed.has(b), `${question}: records block ${b}`).toBe(true);
        if (pageBlocks.size < wholeBlocks.size) fewer++;

        // "More passages", a written answer: the rest is the whole answer, read now.
        const before = first.source.ranges.length;
        const all = await rest!();
        expect(withoutCosts(all)).toEqual(withoutCosts(today));
        if (pageBlocks.size < wholeBlocks.size) expect(first.source.ranges.length).toBeGreaterThan(before);
        expect(recordBlocks(first.library, first.source)).toEqual(wholeBlocks);
      }
      expect(fewer).toBeGreaterThan(0);
    });
  }
});
