// The LibrarySource contract: every source (the library in memory, its paged index read by blocks, its stored
// documents scored by words) says what it can read in `has`, answers exactly the modes whose needs it has, refuses
// the rest with the one refusal (`missing`), and answers the same library the same way. One library, built once from
// the frozen Vue fixture (test/fixtures/vuedocs), opened three ways. The expected answers are the engine's in memory,
// computed here, never copied from output.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareCorpus } from '../../../../src/cli/benchData.ts';
import type { PagesSourceInput } from '../../../../src/core/paged/index.ts';
import {
  answers,
  ASK_MODES,
  missing,
  parseQuestionMode,
} from '../../../../src/services/questions/modeRegistry.ts';
import type { AskResult } from '../../../../src/services/questions/queryProtocol.ts';
import { ask } from '../../../../src/services/source/ask.ts';
import type { LibrarySource } from '../../../../src/services/source/librarySource.ts';
import { openSource } from '../../../../src/services/source/openSource.ts';
import { wordsSource } from '../../../../src/services/source/wordsSource.ts';
import { bothLibraries, type BothLibraries } from '../../../support/pagedLibraries.ts';

const FIXTURE = join(import.meta.dirname, '../../../fixtures/vuedocs/pages');
const QUESTIONS = [
  'How does computed caching differ from a method?',
  'When is the onMounted hook called?',
  'What does watchEffect track?',
  'How do I declare reactive state with ref?',
];
/** The modes that need no LLM and no built layer: every source that has their needs answers them alike. */
const LOCAL_MODES = ['ppr', 'bm25', 'rrf:ppr+bm25', 'concept'] as const;

let both: BothLibraries;
let sources: Record<'memory' | 'pages' | 'words', LibrarySource>;

beforeAll(async () => {
  both = await bothLibraries(FIXTURE);
  const corpus = await prepareCorpus(FIXTURE, 1200);
  const stored: PagesSourceInput[] = corpus.documents.map((d) => ({
    doc: d.doc,
    sections: d.sections,
    chunks: corpus.chunks.filter((c) => c.docId === d.doc.id),
    sentences: corpus.sentences.filter((s) => s.docId === d.doc.id),
  }));
  sources = {
    memory: openSource({ library: both.library }),
    pages: openSource({ paged: both.paged }),
    words: wordsSource(
      {
        documentBatches: async function* () {
          yield stored;
        },
        documentsOf: (ids) => Promise.resolve(stored.filter((d) => ids.includes(d.doc.id))),
      },
      { chunks: corpus.chunks.length },
    ),
  };
}, 120_000);

const shown = (r: AskResult) => r.evidence.map((e) => `${e.chunkId} ${e.score.toFixed(6)} ${e.docTitle}`);
const ask1 = (source: LibrarySource, question: string, mode: string, budget = 2000) =>
  ask(source, { question, mode: mode as AskRequestMode, budget });
type AskRequestMode = Parameters<typeof ask>[1]['mode'];

describe('LibrarySource contract', () => {
  it('declares what each source reads', () => {
    expect([...sources.memory.has].sort()).toEqual(
      ['atomic', 'bm25', 'chunks', 'concepts', 'documents', 'fusion', 'vectors', 'walk'].sort(),
    );
    expect([...sources.pages.has].sort()).toEqual(['bm25', 'chunks', 'fusion', 'walk']);
    expect([...sources.words.has].sort()).toEqual(['bm25', 'walk']);
  });

  it('answers exactly the modes whose needs it has, and refuses the others with the one refusal', async () => {
    for (const [name, source] of Object.entries(sources)) {
      for (const mode of ASK_MODES) {
        const parsed = parseQuestionMode(mode);
        const expected = parsed.needs.every((n) => source.has.has(n));
        expect(answers(source, mode), `${name} ${mode}`).toBe(expected);
        if (!expected) {
          await expect(ask1(source, QUESTIONS[0], mode), `${name} ${mode}`).rejects.toThrow(
            missing(source, mode),
          );
        }
      }
    }
    // The refusal names what is lacking and what the source answers.
    expect(missing(sources.pages, 'dense')).toBe(
      'mode dense needs the library in memory; a library read by ranges answers the default mode, bm25, ' +
        'rrf:ppr+bm25, decompose and logical',
    );
    expect(missing(sources.words, 'decompose')).toMatch(
      /^mode decompose needs the library's pages: this library \(\d+ chunks\) .*; questions in the default mode and bm25 are answered by words meanwhile/,
    );
    // A fusion the registry does not name needs its parts: pages lack the vectors of dense.
    expect(answers(sources.pages, 'rrf:dense+bm25')).toBe(false);
    expect(answers(sources.memory, 'rrf:dense+bm25')).toBe(true);
  });

  it('answers the same library the same way: pages as memory in every mode both answer', async () => {
    for (const mode of LOCAL_MODES) {
      if (!answers(sources.pages, mode)) continue;
      for (const question of QUESTIONS) {
        for (const budget of [60, 2000]) {
          const memory = await ask1(sources.memory, question, mode, budget);
          const pages = await ask1(sources.pages, question, mode, budget);
          expect(shown(pages), `${mode} ${budget} ${question}`).toEqual(shown(memory));
          expect(pages.evidence.map((e) => e.relevance)).toEqual(memory.evidence.map((e) => e.relevance));
          expect(pages.evidence.map((e) => [e.text, e.bestSentences])).toEqual(
            memory.evidence.map((e) => [e.text, e.bestSentences]),
          );
          expect(pages.reads!.rounds).toBeGreaterThanOrEqual(1);
          expect(memory.reads).toBeUndefined();
        }
      }
    }
  });

  it('reads a chunk by id as memory holds it, and keeps the records of what it showed for the citations', async () => {
    const memory = await ask1(sources.memory, QUESTIONS[1], 'ppr');
    const inMemory = sources.memory.question(new AbortController().signal);
    const paged = sources.pages.question(new AbortController().signal);
    const ids = memory.evidence.map((e) => e.chunkId);
    expect(paged.chunk(ids[0])).toBeUndefined();
    await paged.readChunks!(ids);
    const view = (v: ReturnType<typeof paged.chunk>) =>
      v && { docId: v.docId, text: v.text, tokens: v.tokens };
    for (const id of ids) expect(view(paged.chunk(id)), id).toEqual(view(inMemory.chunk(id)));
    const shownPages = await ask1(sources.pages, QUESTIONS[1], 'ppr');
    const citations = sources.pages.citations();
    for (const e of shownPages.evidence) {
      expect(citations.sentences(e.chunkId, e.chunkStart, e.text.length)?.length, e.chunkId).toBeGreaterThan(
        0,
      );
    }
    expect(citations.sentences('not-shown', 0, 10)).toBeUndefined();
  });

  it('words answer bm25 as the engine does, marked from words, while the pages are awaited', async () => {
    for (const question of QUESTIONS) {
      const memory = await ask1(sources.memory, question, 'bm25');
      const words = await ask1(sources.words, question, 'bm25');
      expect(words.from).toBe('words');
      expect(words.evidence.map((e) => e.chunkId)).toEqual(memory.evidence.map((e) => e.chunkId));
    }
    await expect(sources.words.questionGraph(QUESTIONS[0], undefined, {})).rejects.toThrow(
      /needs the library's pages/,
    );
  });

  it('draws the same walk of a question from pages as from memory', async () => {
    const memory = await sources.memory.questionGraph(QUESTIONS[2], undefined, {});
    const pages = await sources.pages.questionGraph(QUESTIONS[2], undefined, {});
    expect(pages.seeds.map((c) => c.term)).toEqual(memory.seeds.map((c) => c.term));
    expect(pages.chunks.map((c) => [c.chunkId, c.sentence])).toEqual(
      memory.chunks.map((c) => [c.chunkId, c.sentence]),
    );
  });
});
