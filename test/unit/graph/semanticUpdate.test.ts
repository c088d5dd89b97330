// The incremental semantic layer against addSemanticLayer on a fresh build: cosines and walk graph exactly, only
// the edges of concepts whose sentences changed computed again.
import { describe, expect, it } from 'vitest';
import {
  addSemanticLayer,
  buildLexicalGraph,
  type ConceptGraphIndex,
  type GraphOptions,
} from '../../../src/core/graph/conceptGraph.ts';
import type { SentenceLayout } from '../../../src/core/graph/conceptVectors.ts';
import { IncrementalConceptGraph } from '../../../src/core/graph/incremental.ts';
import { fastEdgeCosines } from '../../../src/core/graph/semanticEdges.ts';
import { updateSemanticLayer } from '../../../src/core/graph/semanticUpdate.ts';

interface Chunk {
  id: string;
  docId: string;
  /** Sentences: their terms and (unit) vectors. */
  sentences: Array<{ terms: string[]; vector: number[] }>;
}

const DIM = 4;

/** Sentence layout and vectors of the chunks in id order, as the engine lays them out. */
function layoutOf(chunks: readonly Chunk[]): { layout: SentenceLayout; vectors: Float32Array } {
  const sorted = [...chunks].sort((a, b) => (a.id < b.id ? -1 : 1));
  const sentenceOffsets = new Uint32Array(sorted.length + 1);
  const sentenceTerms: string[][] = [];
  const rows: number[] = [];
  sorted.forEach((c, k) => {
    for (const s of c.sentences) {
      sentenceTerms.push(s.terms);
      rows.push(...s.vector);
    }
    sentenceOffsets[k + 1] = sentenceTerms.length;
  });
  return { layout: { sentenceOffsets, sentenceTerms }, vectors: Float32Array.from(rows) };
}

function fullSemantic(chunks: readonly Chunk[], options: GraphOptions): ConceptGraphIndex {
  const sorted = [...chunks].sort((a, b) => (a.id < b.id ? -1 : 1));
  const lexical = buildLexicalGraph(
    sorted.map((c) => c.id),
    sorted.map((c) => c.sentences.flatMap((s) => s.terms)),
    options,
  );
  const { layout, vectors } = layoutOf(chunks);
  return addSemanticLayer(lexical, layout, vectors, DIM);
}

const incremental = (c: Chunk) => ({ id: c.id, docId: c.docId, terms: c.sentences.flatMap((s) => s.terms) });

function sameBits(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

function expectSameSemantic(got: ConceptGraphIndex, want: ConceptGraphIndex): void {
  expect(got.table.terms).toEqual(want.table.terms);
  expect(sameBits(got.semantic!.conceptVectors, want.semantic!.conceptVectors)).toBe(true);
  expect(sameBits(got.semantic!.cosines!, want.semantic!.cosines!)).toBe(true);
  expect(Array.from(got.graph.offsets)).toEqual(Array.from(want.graph.offsets));
  expect(Array.from(got.graph.targets)).toEqual(Array.from(want.graph.targets));
  expect(sameBits(got.graph.weights, want.graph.weights)).toBe(true);
  // PageRank: both runs within d/(1−d)·N·1e-6 (L1) of the exact ranks (see incremental.test.ts).
  const bound = ((2 * 0.85) / 0.15) * want.conceptRank.length * 1e-6;
  let l1 = 0;
  for (let c = 0; c < want.conceptRank.length; c++) l1 += Math.abs(got.conceptRank[c] - want.conceptRank[c]);
  expect(l1).toBeLessThanOrEqual(bound);
}

const x = [1, 0, 0, 0];
const y = [0, 1, 0, 0];
const z = [0, 0, 1, 0];
const OPTIONS: GraphOptions = { conceptsPerChunk: 0, maxDfFraction: 1, thetaCo: 1, thetaSem: 0.5 };

describe('updateSemanticLayer', () => {
  it('computes only the edges of concepts whose sentences changed', () => {
    const three: Chunk[] = [
      { id: 'c1', docId: 'd1', sentences: [{ terms: ['a', 'b'], vector: x }] },
      { id: 'c2', docId: 'd2', sentences: [{ terms: ['b', 'c'], vector: y }] },
      { id: 'c3', docId: 'd3', sentences: [{ terms: ['d', 'e'], vector: z }] },
    ];
    const g = new IncrementalConceptGraph(OPTIONS);
    g.addChunks(three.map(incremental));
    const first = layoutOf(three);
    const before = addSemanticLayer(g.snapshot(), first.layout, first.vectors, DIM);
    // b = mean(x, y) normalized, so cos(a, b) = cos(b, c) = 1/√2 ≥ θsem; d = e = z, cos 1.
    expect(before.graph.targets.length / 2).toBe(3);
    const fourth: Chunk = { id: 'c4', docId: 'd4', sentences: [{ terms: ['e', 'f'], vector: x }] };
    g.addChunks([incremental(fourth)]);
    const { layout, vectors } = layoutOf([...three, fourth]);
    const update = updateSemanticLayer(before, g.snapshot(), layout, vectors, DIM);
    // e gained a sentence and f is new: d–e and e–f are computed, a–b and b–c carried over.
    expect(update).toMatchObject({ computedEdges: 2, edges: 4 });
    // e = mean(z, x): cos(d, e) = cos(e, f) = 1/√2, so the walk keeps all four edges.
    expect(update.index.graph.targets.length / 2).toBe(4);
    expectSameSemantic(update.index, fullSemantic([...three, fourth], OPTIONS));
  });

  it('equals a fresh build over random adds and removes, chaining each update on the last', () => {
    let seed = 9;
    const rand = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const unit = (): number[] => {
      const v = Array.from({ length: DIM }, () => rand() - 0.5);
      const n = Math.hypot(...v);
      return v.map((t) => t / n);
    };
    const chunks: Chunk[] = [];
    for (let i = 0; i < 90; i++) {
      const sentences = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => ({
        terms: Array.from(
          { length: 2 + Math.floor(rand() * 4) },
          () => `t${Math.floor(rand() * rand() * 80)}`,
        ),
        vector: unit(),
      }));
      chunks.push({ id: `k${String(i).padStart(3, '0')}`, docId: `d${Math.floor(i / 3)}`, sentences });
    }
    const options: GraphOptions = { ...OPTIONS, maxDfFraction: 0.2, thetaSem: 0.3 };
    const g = new IncrementalConceptGraph(options);
    const held = new Set(chunks.slice(0, 60));
    g.addChunks([...held].map(incremental));
    let semantic = (() => {
      const { layout, vectors } = layoutOf([...held]);
      return addSemanticLayer(g.snapshot(), layout, vectors, DIM);
    })();
    let computed = 0;
    let total = 0;
    for (let step = 0; step < 10; step++) {
      if (step % 3 === 2) {
        const doc = [...held][Math.floor(rand() * held.size)].docId;
        g.removeDocument(doc);
        for (const c of [...held]) if (c.docId === doc) held.delete(c);
      } else {
        const add = chunks.slice(60 + step * 3, 63 + step * 3);
        g.addChunks(add.map(incremental));
        for (const c of add) held.add(c);
      }
      const { layout, vectors } = layoutOf([...held]);
      const update = updateSemanticLayer(semantic, g.snapshot(), layout, vectors, DIM);
      expectSameSemantic(update.index, fullSemantic([...held], options));
      // The carried cosines are the ones fastEdgeCosines gives (the same dot product).
      const direct = fastEdgeCosines(update.index.cooccurrence, update.index.semantic!.conceptVectors, DIM);
      expect(sameBits(update.index.semantic!.cosines!, direct)).toBe(true);
      computed += update.computedEdges;
      total += update.edges;
      semantic = update.index;
    }
    expect(computed).toBeGreaterThan(0);
    expect(computed).toBeLessThan(total);
  });

  it('is addSemanticLayer when there is no previous layer with cosines', () => {
    const chunks: Chunk[] = [
      { id: 'c1', docId: 'd1', sentences: [{ terms: ['a', 'b'], vector: x }] },
      { id: 'c2', docId: 'd2', sentences: [{ terms: ['b', 'c'], vector: y }] },
    ];
    const g = new IncrementalConceptGraph(OPTIONS);
    g.addChunks(chunks.map(incremental));
    const { layout, vectors } = layoutOf(chunks);
    const update = updateSemanticLayer(undefined, g.snapshot(), layout, vectors, DIM);
    expect(update).toMatchObject({ computedEdges: 2, edges: 2 });
    expectSameSemantic(update.index, fullSemantic(chunks, OPTIONS));
  });
});
