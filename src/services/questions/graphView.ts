// The query worker's side of the concept-graph view: the question's walk neighbourhood (src/core/retrieval
// walkView) and the library's top concepts (conceptMap), turned into plain data the page draws, with each chunk's
// document, title and the sentence it opens at.
import { conceptMap, walkView, type ConceptMapOptions } from '../../core/retrieval/index.ts';
import type { WalkViewCaps } from '../../core/retrieval/index.ts';
import type { GraphChunk, LibraryGraph, QuestionGraph } from './graphViewProtocol.ts';
import type { QuestionLibrary } from '../library/questionLibrary.ts';

/** Longest sentence text sent to the page (it is a label and a tooltip, the viewer shows the rest). */
const SENTENCE_CHARS = 240;

/**
 * The `ppr` walk of a question, bounded for drawing. `vector`: the question embedded by the library's embedder
 * (the same one `ask` uses), so the seeds and the evidence are those the Ask view got.
 */
export function questionGraph(
  library: QuestionLibrary,
  question: string,
  vector: Float32Array | undefined,
  caps: Partial<WalkViewCaps> = {},
): QuestionGraph {
  const started = performance.now();
  const engine = library.engine;
  const view = walkView(engine, { text: question, vector }, caps);
  const terms = engine.graph.table.terms;
  // Per chunk, the drawn concepts that led to it and how much: the sentence opened is the one naming the most of it.
  const ledBy = new Map<number, Array<[string, number]>>();
  for (const l of view.links) {
    const list = ledBy.get(l.chunk) ?? [];
    list.push([terms[l.concept], l.contribution]);
    ledBy.set(l.chunk, list);
  }
  const chunkIds = new Map(view.chunks.map((c) => [c.chunk, c.chunkId]));
  return {
    question,
    layer: vector && engine.hasVectors ? 'semantic' : 'lexical',
    seeds: view.seeds.map((s) => ({
      id: s.concept,
      term: s.term,
      mass: s.mass,
      weight: s.weight,
      fromWords: s.fromWords,
    })),
    concepts: view.concepts.map((c) => ({ id: c.concept, term: c.term, mass: c.mass, feedback: c.feedback })),
    edges: view.edges,
    chunks: view.chunks.map((c) => ({
      chunkId: c.chunkId,
      rank: c.rank,
      score: c.score,
      words: c.words,
      ...opening(library, c.chunkId, ledBy.get(c.chunk) ?? []),
    })),
    links: view.links.map((l) => ({
      concept: l.concept,
      chunkId: chunkIds.get(l.chunk)!,
      contribution: l.contribution,
    })),
    touched: view.touched,
    libraryConcepts: terms.length,
    milliseconds: performance.now() - started,
  };
}

/** The library's top concepts by PageRank, or the concept a search finds with its neighbours. */
export function libraryGraph(library: QuestionLibrary, options: ConceptMapOptions = {}): LibraryGraph {
  const started = performance.now();
  const graph = library.engine.graph;
  const map = conceptMap(graph, options);
  return {
    search: options.search ?? '',
    ...(map.focus !== undefined ? { focus: map.focus } : {}),
    nodes: map.nodes.map((n) => ({ id: n.concept, term: n.term, rank: n.rank, chunks: n.chunks })),
    edges: map.edges,
    matches: map.matches,
    libraryConcepts: graph.table.terms.length,
    milliseconds: performance.now() - started,
  };
}

/**
 * Where a chunk opens: the sentence naming the largest part of what led the walk to it (Σ of the contributions of
 * the drawn concepts it names; the earliest on a tie), so a click lands where the path from the question ends;
 * the chunk's first sentence when none names one.
 */
function opening(
  library: QuestionLibrary,
  chunkId: string,
  concepts: ReadonlyArray<[string, number]>,
): Pick<GraphChunk, 'docId' | 'title' | 'start' | 'end' | 'sentence'> {
  const chunk = library.chunks.get(chunkId);
  const doc = chunk && library.documents.get(chunk.docId);
  if (!chunk || !doc) return { docId: chunk?.docId ?? '', title: chunkId, start: 0, end: 0, sentence: '' };
  const sentences = library.sentences.get(chunkId) ?? [
    { start: chunk.start, end: chunk.start + chunk.text.length },
  ];
  const patterns = concepts.map(([term, w]) => [namePattern(term), w] as const);
  let pick = sentences[0];
  let best = 0;
  for (const s of sentences) {
    const text = doc.text.slice(s.start, s.end);
    let named = 0;
    for (const [pattern, w] of patterns) if (pattern.test(text)) named += w;
    if (named > best) [pick, best] = [s, named];
  }
  const text = pick ? doc.text.slice(pick.start, pick.end) : '';
  return {
    docId: doc.id,
    title: doc.title,
    start: pick?.start ?? chunk.start,
    end: pick?.end ?? chunk.start,
    sentence: text.length > SENTENCE_CHARS ? `${text.slice(0, SENTENCE_CHARS - 1)}…` : text,
  };
}

/** A concept term (lowercased words joined by one space) as a whole-word, case-blind pattern over raw text. */
function namePattern(term: string): RegExp {
  const words = term.split(' ').map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`(?<![\\p{L}\\p{N}])${words.join('[\\s\\p{P}]+')}(?![\\p{L}\\p{N}])`, 'iu');
}
