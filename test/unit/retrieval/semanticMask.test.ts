// The ingest worker's semantic layer (semanticCompactGraph): the compact graph it stores — keep-mask, counts and
// concept table — is bit for bit the one the full engine's export gives (RetrievalEngine.build with vectors, then
// compactGraph), though it builds no engine, no edge cosines and no walk graph, and reads the sentence vectors in
// the caller's order. 300 MuSiQue passages through the app's parser, a deterministic bag-of-words embedding so
// θsem drops some edges and keeps others.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildLexicalGraph,
  chunkConceptLists,
  compactGraph,
  type ConceptGraphIndex,
} from '../../../src/core/graph/index.ts';
import { computeConceptVectors } from '../../../src/core/graph/conceptVectors.ts';
import { conceptTerms } from '../../../src/core/graph/analyzer.ts';
import { fastEdgeCosines, keepMaskFromVectors, keepMaskOf } from '../../../src/core/graph/semanticEdges.ts';
import { prepareFile } from '../../../src/core/prepare.ts';
import { layoutCorpus, reorderRows } from '../../../src/core/retrieval/corpusLayout.ts';
import { RetrievalEngine, type RetrievalInput } from '../../../src/core/retrieval/engine.ts';
import { resolveParams } from '../../../src/core/retrieval/params.ts';
import { semanticCompactGraph } from '../../../src/core/retrieval/semanticMask.ts';
import { createTermAnalyzer } from '../../../src/core/text/analyzer.ts';
import { wordHashVector } from '../../support/wordHashEmbedding.ts';

const MUSIQUE_300 = join(import.meta.dirname, '../../fixtures/musique-300/corpus.jsonl');
const DIM = 16;
const analyzer = createTermAnalyzer();

/** A unit vector per text (test/support/wordHashEmbedding.ts). */
const embed = (text: string): Float32Array => wordHashVector(text, analyzer, DIM);

/** The passages with their sentences in reverse (not the layout's order), and their vectors in that order. */
async function corpus(): Promise<RetrievalInput> {
  const lines = readFileSync(MUSIQUE_300, 'utf8').split('\n', 300).join('\n');
  const { documents } = await prepareFile('musique.jsonl', new TextEncoder().encode(lines));
  const chunks = documents.flatMap((d) => d.chunks);
  const sentences = documents.flatMap((d) => d.sentences).reverse();
  const vectors = new Float32Array(sentences.length * DIM);
  sentences.forEach((s, i) => vectors.set(embed(s.text), i * DIM));
  return { chunks, sentences, sentenceVectors: vectors, dimension: DIM };
}

function lexicalOf(input: RetrievalInput): ConceptGraphIndex {
  const params = resolveParams();
  const layout = layoutCorpus(input.chunks, input.sentences);
  return buildLexicalGraph(
    layout.chunks.map((c) => c.id),
    chunkConceptLists(analyzer, layout.chunks, params),
    params,
  );
}

describe('semantic layer as the store keeps it', () => {
  it('is the compact graph of the full engine, bit for bit, with the walk graph’s edge count', async () => {
    const input = await corpus();
    const full = RetrievalEngine.build(input, analyzer);
    const expected = compactGraph(full.exportGraph())!;
    const { graph, keptEdges } = semanticCompactGraph(input, analyzer, lexicalOf(input));
    // θsem drops some edges and keeps others here: the mask decides something.
    expect(keptEdges).toBe(full.stats().edges);
    expect(keptEdges).toBeGreaterThan(0);
    expect(keptEdges).toBeLessThan(full.stats().cooccurrenceEdges);
    expect(Array.from(graph.keepMask)).toEqual(Array.from(expected.keepMask));
    expect({ ...graph, keepMask: null }).toEqual({ ...expected, keepMask: null });
  });

  it('refuses an input without vectors and a graph of other chunks', async () => {
    const input = await corpus();
    const lexical = lexicalOf(input);
    expect(() =>
      semanticCompactGraph({ chunks: input.chunks, sentences: input.sentences }, analyzer, lexical),
    ).toThrow('semantic layer: the input has no sentence vectors');
    expect(() =>
      semanticCompactGraph(input, analyzer, { ...lexical, chunkIds: lexical.chunkIds.slice(1) }),
    ).toThrow('semantic layer: the concept graph was built for a different set of chunks');
  });

  it('decides each edge as the float32 cosines do, also at a θsem equal to an edge’s cosine', async () => {
    const input = await corpus();
    const lexical = lexicalOf(input);
    const params = resolveParams();
    const layout = layoutCorpus(input.chunks, input.sentences);
    const ordered = reorderRows(input.sentenceVectors!, DIM, layout.sentenceSource);
    const sentenceTerms = layout.sentences.map((s) => conceptTerms(analyzer, s.text, params.phrases));
    const vectors = computeConceptVectors(
      lexical.table,
      { sentenceOffsets: layout.sentenceOffsets, sentenceTerms },
      ordered,
      DIM,
    );
    const cosines = fastEdgeCosines(lexical.cooccurrence, vectors, DIM);
    // Cosines of edges themselves as thresholds: an edge exactly at θsem is kept by both.
    for (const theta of [cosines[0], cosines[Math.floor(cosines.length / 2)], 0.5, -1, 1]) {
      expect(Array.from(keepMaskFromVectors(lexical.cooccurrence, vectors, DIM, theta))).toEqual(
        Array.from(keepMaskOf(lexical.cooccurrence, cosines, theta)),
      );
    }
    expect(() => keepMaskFromVectors(lexical.cooccurrence, vectors.subarray(1), DIM, 0.5)).toThrow(
      'semantic edges: concept vectors hold',
    );
  });
});
