// The LibrarySource contract: every source (the library in memory, its paged index read by blocks, its stored
// documents scored by words) says what it can read in `has`, answers exactly the modes whose needs it has, refuses
// the rest with the one refusal (`missing`), and answers the same library the same way — evidence, chunks, the
// Graph view, the KG and the atomic questions. Three libraries, each built once for the whole file:
// - the frozen Vue fixture (test/fixtures/vuedocs), opened three ways (memory, pages, words);
// - the frozen copy of this repository's docs (test/fixtures/repo-docs: Markdown with headings, so BM25F and
//   section windows; long documents, so chunks deep in them), in memory and from pages;
// - a bundle `cli index --pages --kg --atomic` builds against the scripted server on loopback (one long results page
//   and the Lothair and film passages), read whole (as `cli ask --whole` and ?bundle= answer) and by ranges;
// - a PDF of four pages in one chunk beside two Markdown notes, for a written answer's citations and their pages.
// The expected answers are the engine's in memory, computed here, never copied from output.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBundleFile } from '../../../../src/cli/bundleIo.ts';
import { FileRangeSource } from '../../../../src/cli/fileRangeSource.ts';
import { run as index } from '../../../../src/cli/index.ts';
import { weightedDegrees } from '../../../../src/core/graph/pagerank.ts';
import { openPagedBundle, type PagesSourceInput } from '../../../../src/core/paged/index.ts';
import { edgesAmong } from '../../../../src/core/retrieval/conceptMap.ts';
import { topK } from '../../../../src/core/retrieval/topk.ts';
import { createTermAnalyzer } from '../../../../src/core/text/index.ts';
import { openLibrary } from '../../../../src/services/library/questionLibrary.ts';
import {
  bundleAtomicIndex,
  bundleKgIndex,
  pagedAtomicLoader,
  pagedKgLoader,
} from '../../../../src/services/library/readOnlyBundle.ts';
import type { LibraryGraph, QuestionGraph } from '../../../../src/services/questions/graphViewProtocol.ts';
import {
  answers,
  ASK_MODES,
  missing,
  parseQuestionMode,
} from '../../../../src/services/questions/modeRegistry.ts';
import type { AnswerOut, AskResult } from '../../../../src/services/questions/queryProtocol.ts';
import {
  libraryCitations,
  writeAnswer,
  type CitationSource,
} from '../../../../src/services/questions/writtenAnswer.ts';
import { ask } from '../../../../src/services/source/ask.ts';
import type { LibrarySource } from '../../../../src/services/source/librarySource.ts';
import { openSource } from '../../../../src/services/source/openSource.ts';
import { wordsSource } from '../../../../src/services/source/wordsSource.ts';
import { snapshotToCorpus } from '../../../../src/store/bundleImport.ts';
import { builtFile } from '../../../support/builtOnce.ts';
import { captureCli } from '../../../support/captureCli.ts';
import { bothLibraries, type BothLibraries } from '../../../support/pagedLibraries.ts';
import { FILM_PASSAGES, LOTHAIR_PASSAGES } from '../../../support/passages.ts';
import { RANGES_PAGE, REPO_DOCS } from '../../../support/repoDocs.ts';
import { scriptedClient } from '../../../support/scriptedClient.ts';
import { kagResponder } from '../../../support/scriptedKag.ts';
import { scriptedPike } from '../../../support/scriptedPike.ts';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../../../support/scriptedLlmServer.ts';
import { BENCH_DIR, missingSharedData } from '../../../support/sharedData.ts';
import { tinyPdf, type TinyLine } from '../../../support/tinyPdf.ts';

const VUE = join(import.meta.dirname, '../../../fixtures/vuedocs/pages');
const VUE_QUESTIONS = [
  'How does computed caching differ from a method?',
  'When is the onMounted hook called?',
  'What does watchEffect track?',
  'How do I declare reactive state with ref?',
];
const DOC_QUESTIONS = [
  'How do I open a bundle from a URL?',
  'What does the keep-mask store for the concept graph?',
  'Which parts of a bundle are gzip compressed and why?',
  'How is the question blend between words and walk decided?',
  'What limits protect the reader from a hostile bundle?',
];
const KG_QUESTIONS = [
  'How does Headless Chromium read a bundle Over HTTP?',
  'When did the mother of Lothair II die?',
  'Where was the director of Alpha Dawn born?',
  'Which film came out first, Alpha Dawn or Beta Storm?',
];
const FERRY = 'The ferryman of Tweedmouth rowed across at dawn.';
/** The modes that need no LLM: every source that has their needs answers them alike. */
const LOCAL_MODES = [
  'ppr',
  'bm25',
  'rrf:ppr+bm25',
  'concept',
  'rrf:concept+bm25',
  'kg',
  'hybrid',
  'atomic',
] as const;

/** One library opened from memory and from its paged index (and, for the Vue fixture, by words). */
interface Opened {
  memory: LibrarySource;
  pages: LibrarySource;
  questions: readonly string[];
  budgets: readonly number[];
}

let vue: BothLibraries;
let pdf: BothLibraries;
let docs: BothLibraries;
let words: LibrarySource;
const libraries: Record<'vue' | 'docs' | 'kg', Opened> = {} as Record<'vue' | 'docs' | 'kg', Opened>;
let work = '';
let server: ScriptedLlmServer;
let kgRanges: FileRangeSource;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'source-contract-'));
  server = await startScriptedLlmServer({
    responders: [kagResponder(), scriptedPike()],
    // A written answer: the context's sentence about the ferry, citing its passage.
    answer: (_question, context) => {
      const sentence = context.split(/(?<=\.)\s+/).find((s) => s.includes('ferryman'));
      return sentence ? `${sentence.trim()} [1]` : 'The documents do not contain the answer.';
    },
  });

  vue = await bothLibraries(VUE);
  // The words read the same parse of the same files (a second parse was only time).
  const { corpus } = vue;
  const stored: PagesSourceInput[] = corpus.documents.map((d) => ({
    doc: d.doc,
    sections: d.sections,
    chunks: corpus.chunks.filter((c) => c.docId === d.doc.id),
    sentences: corpus.sentences.filter((s) => s.docId === d.doc.id),
  }));
  words = wordsSource(
    {
      documentBatches: async function* () {
        yield stored;
      },
      documentsOf: (ids) => Promise.resolve(stored.filter((d) => ids.includes(d.doc.id))),
    },
    { chunks: corpus.chunks.length },
  );
  libraries.vue = {
    memory: openSource({ library: vue.library }),
    pages: openSource({ paged: vue.paged }),
    questions: VUE_QUESTIONS,
    budgets: [60, 2000],
  };

  docs = await bothLibraries(REPO_DOCS);
  libraries.docs = {
    memory: openSource({ library: docs.library }),
    pages: openSource({ paged: docs.paged }),
    questions: DOC_QUESTIONS,
    budgets: [1000, 6000],
  };

  // Four pages in one chunk (no headings to split it): the ferry's sentence is on page 3, so its citation's pages are
  // its own, not the chunk's.
  const river = join(work, 'river');
  await mkdir(river);
  const pdfPages: TinyLine[][] = [1, 2, 3, 4].map((n) => [
    { text: `Mill ${n} ground ${n * 40} sacks of barley for the village of Norham.`, y: 660 },
    ...(n === 3 ? [{ text: FERRY, y: 640 }] : []),
  ]);
  await writeFile(join(river, 'mills.pdf'), tinyPdf({ pages: pdfPages }));
  await writeFile(join(river, 'river.md'), '# The Tweed\n\nThe Tweed flows east past Norham to the sea.\n');
  await writeFile(
    join(river, 'bridge.md'),
    '# Bridges\n\nA stone bridge at Berwick replaced the ferry in 1634.\n',
  );
  pdf = await bothLibraries(river);

  // `cli index --pages --kg --atomic` (κ 1) over one long page (chunks deep in it) and the passages the scripted
  // extractor makes entities, attributes and atomic questions of.
  const passages = join(work, 'passages.jsonl');
  await writeFile(passages, [...LOTHAIR_PASSAGES, ...FILM_PASSAGES].map((p) => JSON.stringify(p)).join('\n'));
  // Built once (test/support/builtOnce.ts): the passages are test/support's, hashed with the code.
  const flags = [
    ...['--embedder', 'none', '--pages', '--quiet'],
    ...['--kg', '--kappa', '1', '--llm-model', 'scripted-model', '--atomic'],
  ];
  const bundle = join(work, 'kg.bundle');
  await builtFile('contract.kg', { paths: [RANGES_PAGE], options: flags }, bundle, async () => {
    const built = await captureCli(() =>
      index([RANGES_PAGE, passages, '--out', bundle, ...flags, '--llm-base-url', server.baseUrl]),
    );
    expect(built.code, built.err).toBe(0);
  });
  const whole = await readBundleFile(bundle);
  kgRanges = await FileRangeSource.open(bundle);
  const paged = (await openPagedBundle(kgRanges, createTermAnalyzer()))!;
  libraries.kg = {
    memory: openSource({
      library: openLibrary(snapshotToCorpus(whole)),
      kg: () => Promise.resolve(bundleKgIndex(whole.tables)),
      atomic: () => Promise.resolve(bundleAtomicIndex(whole.tables)),
    }),
    pages: openSource({ paged: paged.library, kg: pagedKgLoader(paged)!, atomic: pagedAtomicLoader(paged)! }),
    questions: KG_QUESTIONS,
    budgets: [60, 1500, 6000],
  };
}, 300_000);

afterAll(async () => {
  await kgRanges?.close();
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

/** The evidence as the Ask view gets it, but the time and what was read. */
const shown = (r: AskResult) =>
  r.evidence.map((e) => ({
    chunkId: e.chunkId,
    docId: e.docId,
    docTitle: e.docTitle,
    chunkStart: e.chunkStart,
    score: e.score.toFixed(6),
    relevance: e.relevance,
    text: e.text,
    bestSentences: e.bestSentences,
    provenance: e.provenance,
  }));
const ask1 = (source: LibrarySource, question: string, mode: string, budget = 2000) =>
  ask(source, { question, mode: mode as AskRequestMode, budget });
type AskRequestMode = Parameters<typeof ask>[1]['mode'];

/** A view without what differs by nature (its time, what it read). */
function drawn(graph: QuestionGraph): Omit<QuestionGraph, 'milliseconds' | 'reads'> {
  const { milliseconds: _ms, reads: _reads, ...rest } = graph;
  return rest;
}

function shape(graph: LibraryGraph) {
  return {
    focus: graph.focus,
    nodes: graph.nodes.map((n) => ({ id: n.id, term: n.term, chunks: n.chunks })),
    edges: graph.edges,
    libraryConcepts: graph.libraryConcepts,
  };
}

describe('LibrarySource contract', () => {
  it('declares what each source reads', () => {
    const memory = ['atomic', 'bm25', 'chunks', 'concepts', 'documents', 'fusion', 'vectors', 'walk'];
    expect([...libraries.vue.memory.has].sort()).toEqual(memory.sort());
    expect([...libraries.vue.pages.has].sort()).toEqual(['bm25', 'chunks', 'concepts', 'fusion', 'walk']);
    expect([...words.has].sort()).toEqual(['bm25', 'walk']);
    // A KG and atomic questions beside the pages: the pages source reads them too.
    expect([...libraries.kg.memory.has].sort()).toEqual([...memory, 'kg'].sort());
    expect([...libraries.kg.pages.has].sort()).toEqual([
      ...['atomic', 'bm25', 'chunks', 'concepts', 'fusion', 'kg', 'walk'],
    ]);
  });

  it('answers exactly the modes whose needs it has, and refuses the others with the one refusal', async () => {
    const all = {
      ...Object.fromEntries(
        Object.entries(libraries).flatMap(([l, o]) => [
          [`${l} memory`, o.memory],
          [`${l} pages`, o.pages],
        ]),
      ),
      words,
    };
    for (const [name, source] of Object.entries(all)) {
      for (const mode of ASK_MODES) {
        const parsed = parseQuestionMode(mode);
        const expected = parsed.needs.every((n) => source.has.has(n));
        expect(answers(source, mode), `${name} ${mode}`).toBe(expected);
        if (!expected) {
          await expect(ask1(source, VUE_QUESTIONS[0], mode), `${name} ${mode}`).rejects.toThrow(
            missing(source, mode),
          );
        }
      }
    }
    // The refusal names what is lacking and what the source answers.
    expect(missing(libraries.vue.pages, 'dense')).toBe(
      'mode dense needs the library in memory; a library read by ranges answers the default mode, concept, bm25, ' +
        'rrf:ppr+bm25, decompose and logical',
    );
    expect(missing(libraries.vue.pages, 'kg')).toBe(
      'mode kg needs a knowledge graph, which this library has not; a library read by ranges answers the default ' +
        'mode, concept, bm25, rrf:ppr+bm25, decompose and logical',
    );
    expect(missing(libraries.kg.pages, 'dense')).toBe(
      'mode dense needs the library in memory; a library read by ranges answers the default mode, concept, bm25, ' +
        'rrf:ppr+bm25, hybrid, kg, atomic, decompose and logical',
    );
    expect(missing(words, 'decompose')).toMatch(
      /^mode decompose needs the library's paged index: this library \(\d+ chunks\) .*; questions in the default mode and bm25 are answered by words meanwhile/,
    );
    // A fusion the registry does not name needs its parts: pages lack the vectors of dense.
    expect(answers(libraries.vue.pages, 'rrf:dense+bm25')).toBe(false);
    expect(answers(libraries.vue.memory, 'rrf:dense+bm25')).toBe(true);
  });

  for (const name of ['vue', 'docs', 'kg'] as const) {
    it(`answers the same library the same way (${name}): pages as memory in every mode both answer`, async () => {
      const { memory, pages, questions, budgets } = libraries[name];
      let compared = 0;
      let deep = 0;
      const modes = new Set<string>();
      const deepIn = new Set<string>();
      for (const mode of LOCAL_MODES) {
        if (!answers(pages, mode) || !answers(memory, mode)) continue;
        for (const question of questions) {
          for (const budget of budgets) {
            const fromMemory = await ask1(memory, question, mode, budget);
            const fromPages = await ask1(pages, question, mode, budget);
            expect(shown(fromPages), `${mode} ${budget} ${question}`).toEqual(shown(fromMemory));
            // Pages say what they read (a KG question may find every record it needs read before).
            expect(fromPages.reads).toBeDefined();
            if (!['kg', 'hybrid', 'atomic'].includes(mode))
              expect(fromPages.reads!.rounds).toBeGreaterThanOrEqual(1);
            expect(fromMemory.reads).toBeUndefined();
            compared += fromPages.evidence.length;
            deep += fromPages.evidence.filter((e) => e.chunkStart > 0).length;
            if (fromPages.evidence.length > 0) modes.add(mode);
            if (fromPages.evidence.some((e) => e.chunkStart > 0)) deepIn.add(mode);
          }
        }
      }
      // The comparisons say something: evidence in every mode compared, some of it past its document's start.
      expect(compared).toBeGreaterThan(questions.length * budgets.length);
      expect(deep).toBeGreaterThan(0);
      const lexical = ['bm25', 'concept', 'ppr', 'rrf:concept+bm25', 'rrf:ppr+bm25'];
      expect([...modes].sort()).toEqual(
        name === 'kg' ? ['atomic', ...lexical, 'hybrid', 'kg'].sort() : lexical,
      );
      // The KG's evidence too reaches chunks past the start of the long page.
      if (name === 'kg') for (const mode of ['kg', 'hybrid']) expect(deepIn.has(mode), mode).toBe(true);
    }, 240_000);
  }

  it('ranks concept and its fusions from pages as memory does: every candidate, in order', async () => {
    const hops = new Set<number | undefined>();
    let unscored = 0;
    for (const name of ['vue', 'docs', 'kg'] as const) {
      const { memory, pages, questions } = libraries[name];
      for (const mode of ['concept', 'rrf:concept+bm25', 'rrf:concept+ppr']) {
        for (const question of questions) {
          // A budget past every candidate: the whole ranking is shown, not only its first chunks.
          const fromMemory = await ask1(memory, question, mode, 10_000_000);
          const fromPages = await ask1(pages, question, mode, 10_000_000);
          expect(shown(fromPages), `${name} ${mode} ${question}`).toEqual(shown(fromMemory));
          if (mode !== 'concept') continue;
          for (const e of fromPages.evidence) hops.add(e.provenance.hop);
          unscored += fromPages.evidence.filter((e) => e.score === 0).length;
        }
      }
    }
    // Every step of the ranking was compared: the question's own concepts, one hop and two hops out, and the chunks
    // of concepts reached that hold no question word (ranked after the others, in page order).
    expect([...hops].sort()).toEqual([0, 1, 2]);
    expect(unscored).toBeGreaterThan(0);
  }, 240_000);

  it('reads the KG and the atomic questions from beside the pages: kg evidence is the KG’s, atomic’s the questions’', async () => {
    const { pages } = libraries.kg;
    const kg = await ask1(pages, KG_QUESTIONS[0], 'kg', 6000);
    expect(kg.evidence.length).toBeGreaterThan(0);
    expect(kg.evidence.every((e) => e.provenance.mode === 'kg')).toBe(true);
    for (const question of KG_QUESTIONS.slice(1, 3)) {
      const atomic = await ask1(pages, question, 'atomic', 60);
      expect(
        atomic.evidence.some((e) => e.provenance.via?.startsWith('What about')),
        question,
      ).toBe(true);
    }
  });

  it('reads a chunk by id as memory holds it, and keeps the records of what it showed for the citations', async () => {
    const { memory: memorySource, pages } = libraries.vue;
    const memory = await ask1(memorySource, VUE_QUESTIONS[1], 'ppr');
    const inMemory = memorySource.question(new AbortController().signal);
    const paged = pages.question(new AbortController().signal);
    const ids = memory.evidence.map((e) => e.chunkId);
    expect(paged.chunk(ids[0])).toBeUndefined();
    await paged.readChunks!(ids);
    const view = (v: ReturnType<typeof paged.chunk>) =>
      v && { docId: v.docId, text: v.text, tokens: v.tokens };
    for (const id of ids) expect(view(paged.chunk(id)), id).toEqual(view(inMemory.chunk(id)));
    const shownPages = await ask1(pages, VUE_QUESTIONS[1], 'ppr');
    const citations = pages.citations();
    for (const e of shownPages.evidence) {
      expect(citations.sentences(e.chunkId, e.chunkStart, e.text.length)?.length, e.chunkId).toBeGreaterThan(
        0,
      );
    }
    expect(citations.sentences('not-shown', 0, 10)).toBeUndefined();
  });

  it('a written answer over evidence from pages cites the sentence and its own page, as over memory', async () => {
    const question = 'Who rowed across from Tweedmouth at dawn?';
    const answer = (citations: CitationSource, result: AskResult): Promise<AnswerOut> =>
      writeAnswer(
        scriptedClient(server),
        citations,
        { question, evidence: result.evidence },
        undefined,
        new AbortController().signal,
      );
    const memory = await ask1(openSource({ library: pdf.library }), question, 'ppr');
    const pages = openSource({ paged: pdf.paged });
    const paged = await ask1(pages, question, 'ppr');
    expect(paged.evidence.map((e) => e.chunkId)).toEqual(memory.evidence.map((e) => e.chunkId));

    const expected = await answer(libraryCitations(pdf.library), memory);
    const fromPages = await answer(pages.citations(), paged);
    expect(fromPages.citations).toEqual(expected.citations);
    expect(fromPages.text).toBe(expected.text);
    const [cited] = fromPages.citations;
    expect(cited.sentence).toBe(FERRY);
    expect([cited.pageStart, cited.pageEnd]).toEqual([3, 3]);
    // The chunk spans the four pages: without the records (what an answer over pages had before) the citation
    // has the chunk's whole page range.
    expect([paged.evidence[0].pageStart, paged.evidence[0].pageEnd]).toEqual([1, 4]);
    const bare = await answer(libraryCitations(null), paged);
    expect([bare.citations[0].pageStart, bare.citations[0].pageEnd]).toEqual([1, 4]);
  });

  it('orders the chunks for the KG build: the core chunks read from pages hold the texts memory holds', async () => {
    const { memory, pages } = libraries.vue;
    const fromMemory = await memory.buildOrder();
    const fromPages = await pages.buildOrder();
    expect(fromPages.sizes).toHaveLength(fromMemory.sizes.length);
    const memoryCore = await fromMemory.core(0.5);
    const pagesCore = await fromPages.core(0.5);
    expect(pagesCore.length).toBe(memoryCore.length);
    expect(pagesCore.length).toBeLessThan(fromPages.sizes.length);
    // The paged index names its core chunks without their texts, read as the build sends them; memory's carry theirs.
    const held = memory.question(new AbortController().signal);
    const texts = await fromPages.texts!(pagesCore);
    pagesCore.forEach((c, i) => expect(texts[i], c.id).toBe(held.chunk(c.id)?.text));
    for (const c of memoryCore) expect(c.text, c.id).toBe(held.chunk(c.id)?.text);
    // By words there is no concept graph to rank by: refused until the paged index is written.
    await expect(words.buildOrder()).rejects.toThrow(/^KG: .*paged index.*being written/);
  });

  it('words answer bm25 as the engine does, marked from words, while the pages are awaited', async () => {
    for (const question of VUE_QUESTIONS) {
      const memory = await ask1(libraries.vue.memory, question, 'bm25');
      const byWords = await ask1(words, question, 'bm25');
      expect(byWords.from).toBe('words');
      expect(byWords.evidence.map((e) => e.chunkId)).toEqual(memory.evidence.map((e) => e.chunkId));
    }
    await expect(words.questionGraph(VUE_QUESTIONS[0], undefined, {})).rejects.toThrow(
      /needs the library's paged index/,
    );
  });
});

describe('LibrarySource contract: the Graph view', () => {
  it('draws a question’s walk from pages as from memory, under the same caps', async () => {
    let edges = 0;
    for (const name of ['vue', 'docs'] as const) {
      const { memory, pages, questions } = libraries[name];
      for (const q of questions) {
        const expected = await memory.questionGraph(q, undefined, {});
        const fromPages = await pages.questionGraph(q, undefined, {});
        expect(drawn(fromPages), q).toEqual(drawn(expected));
        // What it read (the questions asked before may have loaded every block it needs).
        expect(fromPages.reads).toBeDefined();
        edges += expected.edges.length;
        // Tighter caps cut both the same way.
        const caps = { seeds: 2, concepts: 3, evidence: 2, chunksPerConcept: 1, edges: 4 };
        const small = await pages.questionGraph(q, undefined, caps);
        expect(drawn(small), q).toEqual(drawn(await memory.questionGraph(q, undefined, caps)));
        expect(small.edges.length).toBeLessThanOrEqual(4);
        expect(small.seeds.length).toBeLessThanOrEqual(2);
      }
    }
    // The comparison says something: the walks drew seeds, edges and openings.
    expect(edges).toBeGreaterThan(0);
    const one = await libraries.docs.pages.questionGraph(DOC_QUESTIONS[0], undefined, {});
    expect(one.seeds.length).toBeGreaterThan(0);
    expect(one.chunks.some((c) => c.sentence.length > 0)).toBe(true);
  }, 240_000);

  it('finds a searched concept with the neighbours and edges the library in memory draws', async () => {
    const { memory, pages } = libraries.docs;
    const graph = docs.engine.graph;
    const degrees = weightedDegrees(graph.graph);
    const terms = graph.table.terms;
    // A hub, a middling concept and a rare one, by the engine's own degrees; and a phrase.
    const byDegree = topK(degrees, terms.length);
    const picks = [byDegree[0], byDegree[Math.floor(byDegree.length / 2)], byDegree.at(-1)!].map(
      (c) => terms[c],
    );
    picks.push(terms.find((t) => t.includes(' '))!);
    for (const search of picks) {
      for (const limit of [120, 6]) {
        const expected = await memory.libraryGraph({ search, limit });
        const fromPages = await pages.libraryGraph({ search, limit });
        expect(expected.focus, search).toBe(terms.indexOf(search));
        expect(shape(fromPages), search).toEqual(shape(expected));
        expect(fromPages.measure).toBe('degree');
        expect(fromPages.nodes.map((n) => n.rank)).toEqual(fromPages.nodes.map((n) => degrees[n.id]));
      }
    }
    // A search naming no concept exactly finds the concepts starting with it, heaviest first.
    const stem = picks[0].slice(0, Math.max(2, picks[0].length - 2));
    const started = terms.map((t, c) => [t, c] as const).filter(([t]) => t.startsWith(stem) && t !== stem);
    const prefixed = await pages.libraryGraph({ search: stem });
    const heaviest = [...started].sort((a, b) => degrees[b[1]] - degrees[a[1]] || a[1] - b[1]);
    if (!terms.includes(stem)) expect(prefixed.focus).toBe(heaviest[0][1]);
    for (const m of prefixed.matches) expect(m.startsWith(stem)).toBe(true);
    expect(await pages.libraryGraph({ search: 'zzzz no such concept' })).toMatchObject({
      nodes: [],
      edges: [],
      matches: [],
    });
  }, 240_000);

  it('shows the concepts of highest weighted degree from pages, with the walk graph’s edges among them', async () => {
    const degrees = weightedDegrees(docs.engine.graph.graph);
    for (const limit of [120, 10]) {
      const ids = topK(degrees, limit);
      const fromPages = await libraries.docs.pages.libraryGraph({ limit });
      expect(fromPages.measure).toBe('degree');
      expect(fromPages.nodes.map((n) => n.id)).toEqual(ids);
      expect(fromPages.nodes.map((n) => n.rank)).toEqual(ids.map((c) => degrees[c]));
      expect(fromPages.edges).toEqual(edgesAmong(docs.engine.graph, ids, 400));
      expect(fromPages.edges.length).toBeGreaterThan(0);
    }
  }, 240_000);

  const musique = `${BENCH_DIR}/musique/corpus.jsonl`;
  const skip = missingSharedData(musique, 'the paged Graph view on MuSiQue');
  it.skipIf(skip !== null)(
    'draws the walk from pages as from memory where it spreads far (MuSiQue passages)',
    async () => {
      const { library, paged } = await bothLibraries(musique, 1500);
      const memory = openSource({ library });
      const pages = openSource({ paged });
      for (const q of [
        'Who is the spouse of the Green performer?',
        'What is the capital of the country where the river flows?',
        'When was the university where the author studied founded?',
      ]) {
        expect(drawn(await pages.questionGraph(q, undefined, {})), q).toEqual(
          drawn(await memory.questionGraph(q, undefined, {})),
        );
      }
    },
    240_000,
  );
});
