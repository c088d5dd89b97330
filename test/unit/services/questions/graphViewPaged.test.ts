// The Graph view over a library answered from its pages (src/services/questions/graphView.ts over PagedLibrary's
// walkNeighbourhood and conceptNeighbourhood) against the same view over the library in memory: a question's walk
// neighbourhood is the engine's (the same nodes, edges, scores, chunks and openings); a searched concept is the same
// focus with the same neighbours and edges; the top concepts are those of highest weighted degree (the pages hold no
// PageRank, and the view says so), computed here from the engine's walk graph.
import { describe, expect, it } from 'vitest';
import { weightedDegrees } from '../../../../src/core/graph/pagerank.ts';
import { edgesAmong } from '../../../../src/core/retrieval/conceptMap.ts';
import { topK } from '../../../../src/core/retrieval/topk.ts';
import type { LibraryGraph, QuestionGraph } from '../../../../src/services/questions/graphViewProtocol.ts';
import {
  libraryGraph,
  pagedLibraryGraph,
  pagedQuestionGraph,
  questionGraph,
} from '../../../../src/services/questions/graphView.ts';
import { bothLibraries } from '../../../support/pagedLibraries.ts';
import { BENCH_DIR, missingSharedData } from '../../../support/sharedData.ts';
import { REPO_DOCS } from '../../../support/repoDocs.ts';

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

const DOC_QUESTIONS = [
  'How do I open a bundle from a URL?',
  'What does the keep-mask store for the concept graph?',
  'Which parts of a bundle are gzip compressed and why?',
  'How is the question blend between words and walk decided?',
  'What limits protect the reader from a hostile bundle?',
];

describe('the Graph view over a library answered from its pages', () => {
  it('draws a question’s walk as the engine in memory does, under the same caps', async () => {
    const { library, paged } = await bothLibraries(REPO_DOCS);
    let edges = 0;
    let read = 0;
    for (const q of DOC_QUESTIONS) {
      const expected = questionGraph(library, q, undefined);
      const fromPages = await pagedQuestionGraph(paged, q);
      expect(drawn(fromPages), q).toEqual(drawn(expected));
      // What it read (a later question may find every block it needs loaded by those before it).
      read += fromPages.reads!.bytes;
      edges += expected.edges.length;
      // Tighter caps cut both the same way.
      const caps = { seeds: 2, concepts: 3, evidence: 2, chunksPerConcept: 1, edges: 4 };
      const small = await pagedQuestionGraph(paged, q, caps);
      expect(drawn(small), q).toEqual(drawn(questionGraph(library, q, undefined, caps)));
      expect(small.edges.length).toBeLessThanOrEqual(4);
      expect(small.seeds.length).toBeLessThanOrEqual(2);
    }
    // The comparison says something: the walks drew seeds, edges and openings.
    expect(edges).toBeGreaterThan(0);
    expect(read).toBeGreaterThan(0);
    const one = await pagedQuestionGraph(paged, DOC_QUESTIONS[0]);
    expect(one.seeds.length).toBeGreaterThan(0);
    expect(one.chunks.some((c) => c.sentence.length > 0)).toBe(true);
  }, 240_000);

  it('finds a searched concept with the neighbours and edges the library in memory draws', async () => {
    const { engine, library, paged } = await bothLibraries(REPO_DOCS);
    const graph = engine.graph;
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
        const expected = libraryGraph(library, { search, limit });
        const fromPages = await pagedLibraryGraph(paged, { search, limit });
        expect(expected.focus, search).toBe(terms.indexOf(search));
        expect(shape(fromPages), search).toEqual(shape(expected));
        expect(fromPages.measure).toBe('degree');
        expect(fromPages.nodes.map((n) => n.rank)).toEqual(fromPages.nodes.map((n) => degrees[n.id]));
      }
    }
    // A search naming no concept exactly finds the concepts starting with it, heaviest first.
    const stem = picks[0].slice(0, Math.max(2, picks[0].length - 2));
    const started = terms.map((t, c) => [t, c] as const).filter(([t]) => t.startsWith(stem) && t !== stem);
    const prefixed = await pagedLibraryGraph(paged, { search: stem });
    const heaviest = [...started].sort((a, b) => degrees[b[1]] - degrees[a[1]] || a[1] - b[1]);
    if (!terms.includes(stem)) expect(prefixed.focus).toBe(heaviest[0][1]);
    for (const m of prefixed.matches) expect(m.startsWith(stem)).toBe(true);
    expect(await pagedLibraryGraph(paged, { search: 'zzzz no such concept' })).toMatchObject({
      nodes: [],
      edges: [],
      matches: [],
    });
  }, 240_000);

  it('shows the concepts of highest weighted degree, with the walk graph’s edges among them', async () => {
    const { engine, paged } = await bothLibraries(REPO_DOCS);
    const degrees = weightedDegrees(engine.graph.graph);
    for (const limit of [120, 10]) {
      const ids = topK(degrees, limit);
      const fromPages = await pagedLibraryGraph(paged, { limit });
      expect(fromPages.measure).toBe('degree');
      expect(fromPages.nodes.map((n) => n.id)).toEqual(ids);
      expect(fromPages.nodes.map((n) => n.rank)).toEqual(ids.map((c) => degrees[c]));
      expect(fromPages.edges).toEqual(edgesAmong(engine.graph, ids, 400));
      expect(fromPages.edges.length).toBeGreaterThan(0);
    }
  }, 240_000);

  const musique = `${BENCH_DIR}/musique/corpus.jsonl`;
  const skip = missingSharedData(musique, 'the paged Graph view on MuSiQue');
  it.skipIf(skip !== null)(
    'draws the walk as the engine does where it spreads far (MuSiQue passages)',
    async () => {
      const { library, paged } = await bothLibraries(musique, 1500);
      for (const q of [
        'Who is the spouse of the Green performer?',
        'What is the capital of the country where the river flows?',
        'When was the university where the author studied founded?',
      ]) {
        expect(drawn(await pagedQuestionGraph(paged, q)), q).toEqual(
          drawn(questionGraph(library, q, undefined)),
        );
      }
    },
    240_000,
  );
});
