// The query worker's side of the concept-graph view: the question's walk neighbourhood (src/core/retrieval
// walkView) and the library's top concepts (conceptMap), turned into plain data the page draws, with each chunk's
// document, title and the sentence it opens at. A library answered from its pages draws the same question view from
// its own walk (PagedLibrary.walkNeighbourhood: the engine's view), and its library view by weighted degree (the
// pages do not hold the global PageRank: conceptNeighbourhood in src/core/paged/degreeRanks.ts).
import { conceptNeighbourhood, type PagedChunkRecord, type PagedLibrary } from '../../core/paged/index.ts';
import { conceptMap, walkView, type ConceptMapOptions } from '../../core/retrieval/index.ts';
import type { WalkView, WalkViewCaps } from '../../core/retrieval/index.ts';
import type { GraphChunk, LibraryGraph, QuestionGraph } from './graphViewProtocol.ts';
import type { QuestionLibrary } from '../library/questionLibrary.ts';
import { recordRanges } from './writtenAnswer.ts';

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
  return {
    ...graphOfView(view, (chunkId, concepts) => opening(inMemory(library, chunkId), concepts)),
    question,
    layer: vector && engine.hasVectors ? 'semantic' : 'lexical',
    libraryConcepts: engine.graph.table.terms.length,
    milliseconds: performance.now() - started,
  };
}

/**
 * questionGraph over a library answered from its pages: its own walk, read by blocks until complete. `removed`:
 * documents removed since the pages were written (PagesRemovedRecord); their chunks are not drawn, as no answer
 * shows them, and the evidence chunks left are ranked again from 0.
 */
export async function pagedQuestionGraph(
  library: PagedLibrary,
  question: string,
  caps: Partial<WalkViewCaps> = {},
  signal?: AbortSignal,
  removed: ReadonlySet<string> = new Set(),
): Promise<QuestionGraph> {
  const started = performance.now();
  const read = await library.walkNeighbourhood(question, caps, signal);
  const { records } = read.value;
  const byId = new Map([...records.values()].map((r) => [r.id, r]));
  const view = withoutRemoved(read.value.view, (chunkId) => removed.has(byId.get(chunkId)?.docId ?? ''));
  return {
    ...graphOfView(view, (chunkId, concepts) => opening(fromRecord(byId.get(chunkId)), concepts)),
    question,
    layer: 'lexical',
    libraryConcepts: library.directory.conceptCount,
    milliseconds: performance.now() - started,
    reads: { bytes: read.bytes, rounds: read.rounds },
  };
}

/** A walk's view without the chunks `gone` names (and their links), its evidence ranked again from 0. */
function withoutRemoved(view: WalkView, gone: (chunkId: string) => boolean): WalkView {
  const dropped = new Set(view.chunks.filter((c) => gone(c.chunkId)).map((c) => c.chunk));
  if (dropped.size === 0) return view;
  let rank = 0;
  return {
    ...view,
    chunks: view.chunks
      .filter((c) => !dropped.has(c.chunk))
      .map((c) => (c.rank >= 0 ? { ...c, rank: rank++ } : c)),
    links: view.links.filter((l) => !dropped.has(l.chunk)),
  };
}

/** A walk's view as the page draws it; `open` says where each chunk opens, from the drawn concepts that led to it. */
function graphOfView(
  view: WalkView,
  open: (chunkId: string, concepts: ReadonlyArray<[string, number]>) => Opening,
): Pick<QuestionGraph, 'seeds' | 'concepts' | 'edges' | 'chunks' | 'links' | 'touched'> {
  const terms = new Map<number, string>();
  for (const c of [...view.seeds, ...view.concepts]) terms.set(c.concept, c.term);
  // Per chunk, the drawn concepts that led to it and how much: the sentence opened is the one naming the most of it.
  const ledBy = new Map<number, Array<[string, number]>>();
  for (const l of view.links) {
    const list = ledBy.get(l.chunk) ?? [];
    list.push([terms.get(l.concept) ?? '', l.contribution]);
    ledBy.set(l.chunk, list);
  }
  const chunkIds = new Map(view.chunks.map((c) => [c.chunk, c.chunkId]));
  return {
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
      ...open(c.chunkId, ledBy.get(c.chunk) ?? []),
    })),
    links: view.links.map((l) => ({
      concept: l.concept,
      chunkId: chunkIds.get(l.chunk)!,
      contribution: l.contribution,
    })),
    touched: view.touched,
  };
}

/** The library's subjects (top concepts by PageRank, weighed by their spread), or a searched concept's neighbours. */
export function libraryGraph(library: QuestionLibrary, options: ConceptMapOptions = {}): LibraryGraph {
  const started = performance.now();
  const graph = library.engine.graph;
  const map = conceptMap(graph, options, (limit) => library.engine.subjectScores(limit));
  return {
    search: options.search ?? '',
    measure: 'pagerank',
    ...(map.focus !== undefined ? { focus: map.focus } : {}),
    nodes: map.nodes.map((n) => ({ id: n.concept, term: n.term, rank: n.rank, chunks: n.chunks })),
    edges: map.edges,
    matches: map.matches,
    libraryConcepts: graph.table.terms.length,
    milliseconds: performance.now() - started,
  };
}

/**
 * libraryGraph over a library answered from its pages: the concepts of highest weighted degree (the pages do not
 * hold the global PageRank), or a searched concept (exact, else starting with the search) and its neighbours.
 */
export async function pagedLibraryGraph(
  library: PagedLibrary,
  options: ConceptMapOptions = {},
  signal?: AbortSignal,
): Promise<LibraryGraph> {
  const started = performance.now();
  const read = await conceptNeighbourhood(library.reader, options, signal);
  const map = read.value;
  return {
    search: options.search ?? '',
    measure: 'degree',
    ...(map.focus !== undefined ? { focus: map.focus } : {}),
    nodes: map.nodes.map((n) => ({ id: n.concept, term: n.term, rank: n.degree, chunks: n.chunks })),
    edges: map.edges,
    matches: map.matches,
    libraryConcepts: library.directory.conceptCount,
    milliseconds: performance.now() - started,
    reads: { bytes: read.bytes, rounds: read.rounds },
  };
}

type Opening = Pick<GraphChunk, 'docId' | 'title' | 'start' | 'end' | 'sentence'>;

/** A chunk as `opening` reads it: its document and title, where it starts, its sentences and their text. */
interface ChunkPlace {
  docId: string;
  title: string;
  start: number;
  sentences: ReadonlyArray<{ start: number; end: number }>;
  /** The document's text between two offsets (within the chunk's sentences). */
  textAt(start: number, end: number): string;
}

function inMemory(library: QuestionLibrary, chunkId: string): ChunkPlace | { docId: string; title: string } {
  const chunk = library.chunks.get(chunkId);
  const doc = chunk && library.documents.get(chunk.docId);
  if (!chunk || !doc) return { docId: chunk?.docId ?? '', title: chunkId };
  return {
    docId: doc.id,
    title: doc.title,
    start: chunk.start,
    sentences: library.sentences.get(chunkId) ?? [
      { start: chunk.start, end: chunk.start + chunk.text.length },
    ],
    textAt: (start, end) => doc.text.slice(start, end),
  };
}

function fromRecord(r: PagedChunkRecord | undefined): ChunkPlace | { docId: string; title: string } {
  if (!r) return { docId: '', title: '' };
  const sentences = recordRanges(r);
  if (sentences.length === 0) sentences.push({ start: r.start, end: r.start + r.text.length });
  return {
    docId: r.docId,
    title: r.title,
    start: r.start,
    sentences,
    // A chunk's sentences lie within its text (the record holds the chunk's text, not the document's).
    textAt: (start, end) => r.text.slice(start - r.start, end - r.start),
  };
}

/**
 * Where a chunk opens: the sentence naming the largest part of what led the walk to it (Σ of the contributions of
 * the drawn concepts it names; the earliest on a tie), so a click lands where the path from the question ends;
 * the chunk's first sentence when none names one.
 */
function opening(
  place: ChunkPlace | { docId: string; title: string },
  concepts: ReadonlyArray<[string, number]>,
): Opening {
  if (!('sentences' in place))
    return { docId: place.docId, title: place.title, start: 0, end: 0, sentence: '' };
  const patterns = concepts.map(([term, w]) => [namePattern(term), w] as const);
  const sentences = place.sentences;
  let pick = sentences[0];
  let best = 0;
  for (const s of sentences) {
    const text = place.textAt(s.start, s.end);
    let named = 0;
    for (const [pattern, w] of patterns) if (pattern.test(text)) named += w;
    if (named > best) [pick, best] = [s, named];
  }
  const text = pick ? place.textAt(pick.start, pick.end) : '';
  return {
    docId: place.docId,
    title: place.title,
    start: pick?.start ?? place.start,
    end: pick?.end ?? place.start,
    sentence: text.length > SENTENCE_CHARS ? `${text.slice(0, SENTENCE_CHARS - 1)}…` : text,
  };
}

/** A concept term (lowercased words joined by one space) as a whole-word, case-blind pattern over raw text. */
function namePattern(term: string): RegExp {
  const words = term.split(' ').map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`(?<![\\p{L}\\p{N}])${words.join('[\\s\\p{P}]+')}(?![\\p{L}\\p{N}])`, 'iu');
}
