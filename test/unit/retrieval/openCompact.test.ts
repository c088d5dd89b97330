// Opening an engine with a stored keep-mask (RetrievalEngine.fromCompact, what ?bundle= and the store's compact
// graph use): it answers before its concept vectors are computed, computes them in steps or at once when a
// question brings its vector, and every answer — with or without the vector, in every mode — is the one the
// engine built from scratch gives. 300 MuSiQue passages through the app's parser, with a deterministic
// bag-of-words embedding so concept vectors differ and θsem drops some edges.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  compactGraph,
  compactGraphProblem,
  conceptTerms,
  prebuildMaskedGraph,
  type CompactGraph,
  type ConceptTable,
} from '../../../src/core/graph/index.ts';
import { layoutCorpus, reorderRows } from '../../../src/core/retrieval/corpusLayout.ts';
import { prepareFile } from '../../../src/core/prepare.ts';
import { RetrievalEngine, type RetrievalInput } from '../../../src/core/retrieval/engine.ts';
import { resolveParams } from '../../../src/core/retrieval/params.ts';
import { createTermAnalyzer } from '../../../src/core/text/analyzer.ts';
import { wordHashVector } from '../../support/wordHashEmbedding.ts';

// The first 300 MuSiQue passages, vendored (test/fixtures/musique-300) so the test runs without ../shared.
const MUSIQUE_300 = join(import.meta.dirname, '../../fixtures/musique-300/corpus.jsonl');

const DIM = 16;
const analyzer = createTermAnalyzer();

/** A unit vector per text (test/support/wordHashEmbedding.ts). */
const embed = (text: string): Float32Array => wordHashVector(text, analyzer, DIM);

async function prepareCorpus(): Promise<RetrievalInput> {
  const source = readFileSync(MUSIQUE_300, 'utf8');
  const lines = source.split('\n', 300).join('\n');
  const { documents } = await prepareFile('musique.jsonl', new TextEncoder().encode(lines));
  expect(documents).toHaveLength(300);
  const chunks = documents.flatMap((d) => d.chunks);
  const sentences = documents.flatMap((d) => d.sentences);
  const vectors = new Float32Array(sentences.length * DIM);
  sentences.forEach((s, i) => vectors.set(embed(s.text), i * DIM));
  return { chunks, sentences, sentenceVectors: vectors, dimension: DIM };
}

interface Built {
  input: RetrievalInput;
  /** The engine built from scratch over it: the answers every opened engine must give. */
  full: RetrievalEngine;
  /** Its graph as stored (the keep-mask and the concept table). */
  compact: CompactGraph;
}
let built: Promise<Built> | undefined;

/** The corpus, its engine built from scratch and its compact graph, made once for the file: every test read the
 *  same three and none changes them (each opens engines of its own from them). */
function corpus(): Promise<Built> {
  built ??= prepareCorpus().then((input) => {
    const full = RetrievalEngine.build(input, analyzer);
    return { input, full, compact: compactGraph(full.exportGraph()) as CompactGraph };
  });
  return built;
}

const QUESTIONS = [
  'Who was the father of Lothair II?',
  'Which river flows through the capital?',
  'When was the university founded?',
  'What language is spoken in the city where the band was formed?',
  'Who directed the film that won the award?',
];
const MODES = ['ppr', 'bm25', 'concept', 'dense', 'rrf:ppr+bm25'];

/**
 * Concept vectors from their definition, concept by concept (not the one pass the library makes): the mean of
 * the vectors of the sentences of the concept's chunks that contain it, or of all their sentences when none
 * does, normalized; rows added in chunk then sentence order, in float32, so the floats are comparable exactly.
 */
function referenceConceptVectors(table: ConceptTable, input: RetrievalInput): Float32Array {
  const layout = layoutCorpus(input.chunks, input.sentences);
  const vectors = reorderRows(input.sentenceVectors!, DIM, layout.sentenceSource);
  const terms = layout.sentences.map((s) => new Set(conceptTerms(analyzer, s.text, true)));
  const out = new Float32Array(table.terms.length * DIM);
  for (let c = 0; c < table.terms.length; c++) {
    const row = out.subarray(c * DIM, (c + 1) * DIM);
    const chunks = table.conceptChunks.subarray(
      table.conceptChunkOffsets[c],
      table.conceptChunkOffsets[c + 1],
    );
    const add = (all: boolean): number => {
      let n = 0;
      for (const k of chunks) {
        for (let s = layout.sentenceOffsets[k]; s < layout.sentenceOffsets[k + 1]; s++) {
          if (!all && !terms[s].has(table.terms[c])) continue;
          for (let d = 0; d < DIM; d++) row[d] += vectors[s * DIM + d];
          n++;
        }
      }
      return n;
    };
    if (add(false) === 0) add(true);
    let norm = 0;
    for (let d = 0; d < DIM; d++) norm += row[d] * row[d];
    if (norm > 0) for (let d = 0; d < DIM; d++) row[d] *= 1 / Math.sqrt(norm);
  }
  return out;
}

type Answer = Array<{ chunkId: string; score: number; best: string }>;

function answer(engine: RetrievalEngine, text: string, mode: string, vector?: Float32Array): Answer {
  return engine.search({ text, vector }, mode, 1500).map((r) => ({
    chunkId: r.chunkId,
    score: r.score,
    best: JSON.stringify(r.bestSentences),
  }));
}

describe('RetrievalEngine.fromCompact', () => {
  it('answers as the engine built from scratch, before, while and after its concept vectors are computed', async () => {
    const { input, full, compact } = await corpus();
    // Some edges are dropped by θsem, some kept: the mask matters.
    expect(compact.keptEdges).toBeGreaterThan(0);
    expect(compact.keptEdges).toBeLessThan(compact.edges);

    const opened = RetrievalEngine.fromCompact(input, analyzer, compact)!;
    expect(opened).toBeDefined();
    expect(opened.semanticReady).toBe(false);
    // Questions without their vector are answered without computing the concept vectors.
    for (const q of QUESTIONS) {
      for (const mode of MODES.filter((m) => m !== 'dense')) {
        expect(answer(opened, q, mode), `${mode}: ${q}`).toEqual(answer(full, q, mode));
      }
    }
    expect(opened.semanticReady).toBe(false);
    // In steps: a deadline already past stops after a slice of chunks, several times.
    let steps = 0;
    while (!opened.advanceSemantic(0)) steps++;
    expect(steps).toBeGreaterThan(1);
    expect(opened.semanticReady).toBe(true);

    // `ppr` with the question vector computes only its seeds' pool of concept vectors, the same floats; the pass
    // computes the others afterwards without touching those.
    const lazy = RetrievalEngine.fromCompact(input, analyzer, compact)!;
    for (const q of QUESTIONS) {
      expect(answer(lazy, q, 'ppr', embed(q)), q).toEqual(answer(full, q, 'ppr', embed(q)));
    }
    expect(lazy.semanticReady).toBe(false);
    while (!lazy.advanceSemantic(0));
    expect(Array.from(lazy.graph.semantic!.conceptVectors)).toEqual(
      Array.from(full.graph.semantic!.conceptVectors),
    );

    // A second engine asked with the vector at once computes what is left then.
    const direct = RetrievalEngine.fromCompact(input, analyzer, compact)!;
    expect(direct.semanticReady).toBe(false);
    for (const q of QUESTIONS) {
      const vector = embed(q);
      for (const mode of MODES) {
        const expected = answer(full, q, mode, vector);
        expect(answer(direct, q, mode, vector), `${mode}: ${q}`).toEqual(expected);
        expect(answer(opened, q, mode, vector), `${mode}: ${q}`).toEqual(expected);
      }
    }
    expect(direct.semanticReady).toBe(true);

    const a = full.graph;
    expect(Array.from(a.semantic!.conceptVectors)).toEqual(
      Array.from(referenceConceptVectors(a.table, input)),
    );
    for (const engine of [opened, direct]) {
      const b = engine.graph;
      expect(Array.from(b.semantic!.conceptVectors)).toEqual(Array.from(a.semantic!.conceptVectors));
      expect(Array.from(b.graph.targets)).toEqual(Array.from(a.graph.targets));
      expect(Array.from(b.conceptRank)).toEqual(Array.from(a.conceptRank));
      expect(engine.stats()).toEqual(full.stats());
    }
  });

  it('adds the mask and vectors to the lexical engine of the same library instead of analysing it again', async () => {
    const { input, full, compact } = await corpus();
    // The query worker's library before the vectors were all in: lexical, over the same chunks.
    const lexical = RetrievalEngine.build({ chunks: input.chunks, sentences: input.sentences }, analyzer);
    const opened = RetrievalEngine.fromCompact(input, analyzer, compact, lexical)!;
    expect(opened.sharesTextIndexWith(lexical)).toBe(true);
    expect(opened.semanticReady).toBe(false);
    for (const q of QUESTIONS) {
      expect(answer(opened, q, 'ppr'), q).toEqual(answer(full, q, 'ppr'));
      for (const mode of MODES) {
        expect(answer(opened, q, mode, embed(q)), `${mode}: ${q}`).toEqual(answer(full, q, mode, embed(q)));
      }
    }
    // A lexical engine of other chunks is not reused; the answers are the same all the same.
    const fewer = RetrievalEngine.build(
      {
        chunks: input.chunks.slice(1),
        sentences: input.sentences.filter((s) => s.chunkId !== input.chunks[0].id),
      },
      analyzer,
    );
    const other = RetrievalEngine.fromCompact(input, analyzer, compact, fewer)!;
    expect(other.sharesTextIndexWith(fewer)).toBe(false);
    expect(answer(other, QUESTIONS[0], 'ppr', embed(QUESTIONS[0]))).toEqual(
      answer(full, QUESTIONS[0], 'ppr', embed(QUESTIONS[0])),
    );
  });

  it('answers the same from text prepared ahead and graphs another worker built (prebuildMaskedGraph)', async () => {
    const { input, full, compact } = await corpus();
    // As the graph worker sends them: structured-cloned (the browser transfers the buffers; a clone is the same).
    const graph = structuredClone(prebuildMaskedGraph(compact, resolveParams()));
    expect(graph).toBeDefined();
    expect(graph!.walk.targets.length / 2).toBe(compact.keptEdges);
    const text = RetrievalEngine.prepareText(input, analyzer);
    const opened = RetrievalEngine.fromCompact(input, analyzer, compact, undefined, { text, graph })!;
    expect(opened.sharesTextIndexWith(text)).toBe(true);
    for (const q of QUESTIONS) {
      expect(answer(opened, q, 'ppr'), q).toEqual(answer(full, q, 'ppr'));
      for (const mode of MODES) {
        expect(answer(opened, q, mode, embed(q)), `${mode}: ${q}`).toEqual(answer(full, q, mode, embed(q)));
      }
    }
    expect(Array.from(opened.graph.graph.targets)).toEqual(Array.from(full.graph.graph.targets));
    expect(Array.from(opened.graph.graph.weights)).toEqual(Array.from(full.graph.graph.weights));
    expect(opened.stats()).toEqual(full.stats());
    // A mask made at another θsem, or under another θco, is not prebuilt: the opener computes what it needs.
    expect(prebuildMaskedGraph(compact, { ...resolveParams(), thetaSem: 0.7 })).toBeUndefined();
    expect(prebuildMaskedGraph(compact, { ...resolveParams(), thetaCo: 2 })).toBeUndefined();
  });

  it('opens a compact graph without its concept table (written before it was added) the same way', async () => {
    const { full, input, compact } = await corpus();
    const { table, ...old } = compact;
    expect(table?.terms.length).toBe(full.stats().concepts);
    const opened = RetrievalEngine.fromCompact(input, analyzer, old)!;
    for (const q of QUESTIONS.slice(0, 2)) {
      expect(answer(opened, q, 'ppr', embed(q))).toEqual(answer(full, q, 'ppr', embed(q)));
    }
    expect(Array.from(opened.graph.graph.targets)).toEqual(Array.from(full.graph.graph.targets));
  });

  it('applies the mask through its concept table when this platform analyses the text otherwise', async () => {
    const { input, full, compact } = await corpus();
    // Another platform's analysis: one word of the corpus is split differently (as Intl.Segmenter's dictionaries
    // or Unicode tables may differ), so extraction here would give other concepts, and other edges.
    const word = full.graph.table.terms.find(
      (t) => /^[a-z]{6,}$/.test(t) && full.graph.table.idf[full.graph.table.terms.indexOf(t)] < 3,
    )!;
    const other = {
      ...analyzer,
      terms: (text: string) => analyzer.terms(text).filter((t) => t !== word),
      candidates: (text: string) => {
        const own = analyzer.candidates!(text);
        return { ...own, words: own.words.filter((t) => t !== word) };
      },
    };
    const { table: _table, ...withoutTable } = compact;
    expect(RetrievalEngine.fromCompact(input, other, withoutTable)).toBeUndefined();
    const opened = RetrievalEngine.fromCompact(input, other, compact)!;
    expect(opened).toBeDefined();
    opened.completeSemantic();
    expect(opened.graph.table.terms).toEqual(full.graph.table.terms);
    expect(Array.from(opened.graph.cooccurrence.targets)).toEqual(
      Array.from(full.graph.cooccurrence.targets),
    );
    expect(Array.from(opened.graph.graph.targets)).toEqual(Array.from(full.graph.graph.targets));
  });

  it('refuses a compact graph whose concept table does not fit it', async () => {
    const { compact } = await corpus();
    expect(compactGraphProblem(compact)).toBeNull();
    const t = compact.table!;
    const cases: Array<[string, Partial<typeof t>]> = [
      ['terms not sorted', { terms: [t.terms[1], t.terms[0], ...t.terms.slice(2)] }],
      ['not', { terms: t.terms.slice(1) }],
      ['names no concept', { chunkConcepts: t.chunkConcepts.map((c, i) => (i === 5 ? t.terms.length : c)) }],
      ['not ascending', { chunkConcepts: t.chunkConcepts.map((c, i) => (i === 1 ? t.chunkConcepts[0] : c)) }],
      [
        'do not cover',
        { chunkConceptOffsets: t.chunkConceptOffsets.map((o, i, a) => (i === a.length - 1 ? o - 1 : o)) },
      ],
      ['differ in length', { chunkConceptWeights: t.chunkConceptWeights.slice(1) }],
      ['idf', { idf: t.idf.slice(1) }],
    ];
    for (const [why, change] of cases) {
      expect(compactGraphProblem({ ...compact, table: { ...t, ...change } }), why).toContain(why);
    }
  });

  it('refuses a mask made for other chunks or another dimension (the caller builds instead)', async () => {
    const { input, compact } = await corpus();
    const dropped = input.chunks[0].id;
    const fewer: RetrievalInput = {
      chunks: input.chunks.slice(1),
      sentences: input.sentences.filter((s) => s.chunkId !== dropped),
      dimension: DIM,
    };
    fewer.sentenceVectors = input.sentenceVectors!.slice(
      (input.sentences.length - fewer.sentences.length) * DIM,
    );
    expect(
      input.sentences
        .slice(0, input.sentences.length - fewer.sentences.length)
        .every((s) => s.chunkId === dropped),
    ).toBe(true);
    expect(RetrievalEngine.fromCompact(fewer, analyzer, compact)).toBeUndefined();
    const otherDimension = {
      ...input,
      sentenceVectors: new Float32Array(input.sentences.length * 8),
      dimension: 8,
    };
    expect(RetrievalEngine.fromCompact(otherDimension, analyzer, compact)).toBeUndefined();
    expect(
      RetrievalEngine.fromCompact({ ...input, sentenceVectors: undefined }, analyzer, compact),
    ).toBeUndefined();
  });
});
