// The themes of a library: Louvain communities of its concept graph, labelled by their most central concepts, with
// every chunk assigned from its own concepts. The libraries here are built by hand so that which chunk belongs to
// which theme is known before the code runs.
import { describe, expect, it } from 'vitest';
import { buildLexicalGraph } from '../../../src/core/graph/index.ts';
import { computeThemes, type ThemeInput } from '../../../src/core/themes/index.ts';

const OPTIONS = { conceptsPerChunk: 0, maxDfFraction: 1, thetaCo: 1, thetaSem: 0.5 };

/** Chunks of two subjects that share no word but one ("the" is no concept: it is in every chunk's list alike). */
const CATS = ['cat', 'kitten', 'whisker', 'purr', 'litter', 'feline'];
const ROCKETS = ['rocket', 'orbit', 'thrust', 'booster', 'launch', 'payload', 'fuel'];

/** A library of chunks, each naming its document, its tokens and its words; chunk ids sorted as the graph wants. */
function library(chunks: Array<{ doc: string; words: string[]; tokens?: number }>): ThemeInput {
  const chunkIds = chunks.map((_, i) => `c${String(i).padStart(3, '0')}`);
  const graph = buildLexicalGraph(
    chunkIds,
    chunks.map((c) => c.words),
    OPTIONS,
  );
  return {
    table: graph.table,
    graph: graph.cooccurrence,
    chunkIds,
    chunkDocs: chunks.map((c) => c.doc),
    chunkTokens: chunks.map((c) => c.tokens ?? 100),
    docTitle: (doc) => `Title of ${doc}`,
  };
}

/** `n` chunks of a subject, spread over `docs` documents, each with four of its words (rotating). */
function subject(words: string[], n: number, docs: string[], tokens = 100) {
  return Array.from({ length: n }, (_, i) => ({
    doc: docs[i % docs.length],
    words: [0, 1, 2, 3].map((j) => words[(i + j) % words.length]),
    tokens,
  }));
}

describe('computeThemes', () => {
  it('finds two subjects that share no words as two themes, each with exactly its own chunks', () => {
    const input = library([
      ...subject(CATS, 8, ['pets-1', 'pets-2']),
      ...subject(ROCKETS, 12, ['space-1', 'space-2', 'space-3'], 50),
    ]);
    const result = computeThemes(input);
    expect(result.chunks).toBe(20);
    expect(result.documents).toBe(5);
    expect(result.themes).toHaveLength(2);
    const [first, second] = result.themes;
    // Cats: 8 × 100 tokens = 800 of 1,400; rockets: 12 × 50 = 600.
    expect(first.share).toBeCloseTo(800 / 1400, 6);
    expect(second.share).toBeCloseTo(600 / 1400, 6);
    expect(first.chunks).toBe(8);
    expect(second.chunks).toBe(12);
    expect(new Set(first.concepts)).toEqual(new Set(CATS));
    expect(new Set(second.concepts)).toEqual(new Set(ROCKETS));
    expect(first.documents).toBe(2);
    expect(second.documents).toBe(3);
    expect(new Set(first.keyDocuments)).toEqual(new Set(['pets-1', 'pets-2']));
    expect(first.keyTitles).toEqual(first.keyDocuments.map((d) => `Title of ${d}`));
    // Representative passages are the theme's own chunks, from distinct documents first.
    expect(first.passages).toHaveLength(3);
    for (const id of first.passages) expect(Number(id.slice(1))).toBeLessThan(8);
    const docsOf = (ids: string[]) => ids.map((id) => input.chunkDocs[Number(id.slice(1))]);
    expect(new Set(docsOf(second.passages)).size).toBe(3);
    expect(first.label.split(' · ')).toEqual(first.concepts.slice(0, 3));
  });

  it('labels a theme by the concept central to it, not by one on its edge', () => {
    // "engine" is in every car chunk; each other car word in two chunks only: it is the hub of its theme.
    const cars = Array.from({ length: 8 }, (_, i) => ({
      doc: `car-${i % 2}`,
      words: ['engine', `part${Math.floor(i / 2)}`, `tool${i % 4}`],
    }));
    const result = computeThemes(library([...cars, ...subject(CATS, 8, ['pets'])]));
    const carTheme = result.themes.find((t) => t.concepts.includes('engine'));
    expect(carTheme?.concepts[0]).toBe('engine');
  });

  it('is the same each time it is computed (Louvain is seeded)', () => {
    const chunks = [
      ...subject(CATS, 10, ['a', 'b']),
      ...subject(ROCKETS, 10, ['c', 'd']),
      ...subject(['river', 'delta', 'flood', 'bank', 'silt'], 10, ['e']),
      { doc: 'mixed', words: ['cat', 'rocket', 'river'] },
    ];
    const once = computeThemes(library(chunks));
    const again = computeThemes(library(chunks));
    expect(again).toEqual(once);
    expect(once.themes.length).toBe(3);
  });

  it('bounds Louvain to the concepts asked for, and still assigns every chunk that has one of them', () => {
    const input = library([...subject(CATS, 8, ['p']), ...subject(ROCKETS, 8, ['s'])]);
    const result = computeThemes(input, { maxConcepts: 4 });
    const assigned = result.themes.reduce((n, t) => n + t.chunks, 0);
    const concepts = result.themes.flatMap((t) => t.concepts);
    expect(concepts.length).toBeLessThanOrEqual(4);
    // Every chunk has four of its subject's words, so each holds a kept concept of its subject.
    expect(assigned).toBeGreaterThan(0);
    for (const t of result.themes) {
      const ofCats = t.concepts.every((c) => CATS.includes(c));
      const ofRockets = t.concepts.every((c) => ROCKETS.includes(c));
      expect(ofCats || ofRockets).toBe(true);
    }
  });

  it('gives a library with no co-occurring concepts no themes, and refuses misaligned input by name', () => {
    const lonely = library([{ doc: 'one', words: ['alone'] }]);
    expect(computeThemes(lonely).themes).toEqual([]);
    const input = library(subject(CATS, 4, ['x']));
    expect(() => computeThemes({ ...input, chunkDocs: input.chunkDocs.slice(1) })).toThrow(/3 documents/);
  });

  it('keeps a tiny theme only when the larger ones would be fewer than three', () => {
    const chunks = [
      ...subject(CATS, 30, ['a'], 100),
      ...subject(ROCKETS, 30, ['b'], 100),
      ...subject(['river', 'delta', 'flood', 'bank'], 30, ['c'], 100),
      ...subject(['tiny', 'speck'], 2, ['d'], 1),
    ];
    const result = computeThemes(library(chunks));
    expect(result.themes.map((t) => t.concepts.includes('tiny'))).toEqual([false, false, false]);
    const two = computeThemes(
      library([...subject(CATS, 30, ['a']), ...subject(['tiny', 'speck'], 2, ['d'], 1)]),
    );
    expect(two.themes.some((t) => t.concepts.includes('tiny'))).toBe(true);
  });
});
