// Builds the RetrievalEngine from what the store holds: the lexical layer from chunks and sentences, the semantic
// layer from the per-document sentence vectors, and — when a stored concept graph matches the chunks — the graph
// itself without re-extracting concepts, or — when a bundle brought the compact graph (a θsem keep-mask) — the
// lexical graph rebuilt with the mask applied instead of ~6 M edge cosines. Shared by the ingest worker (graph
// rebuild), the query worker and the CLI.
import {
  isCompactGraph,
  isConceptTableGraph,
  type ConceptGraphIndex,
  type PrebuiltMaskedGraph,
  type TermAnalyzer,
} from '../../core/graph/index.ts';
import { createTermAnalyzer } from '../../core/text/index.ts';
import { RetrievalEngine, type PreparedText, type RetrievalInput } from '../../core/retrieval/index.ts';
import { withSectionPaths } from '../../core/retrieval/index.ts';
import type { LoadedCorpus } from '../../store/repo.ts';

let analyzer: TermAnalyzer | null = null;

/** The analyser every build uses (one per worker). */
export function termAnalyzer(): TermAnalyzer {
  analyzer ??= createTermAnalyzer();
  return analyzer;
}

/**
 * Lines up the stored sentence vectors with the sentence list (each document's vectors are rows in sentence-index
 * order). Returns no vectors when any document lacks them, so the engine stays lexical rather than half semantic.
 */
export function retrievalInput(corpus: LoadedCorpus): RetrievalInput {
  const chunks = withSectionPaths(corpus.documents, corpus.sections, corpus.chunks);
  const input: RetrievalInput = { chunks, sentences: corpus.sentences };
  const dimension = corpus.meta?.dimension ?? 0;
  if (dimension <= 0 || corpus.sentences.length === 0) return input;
  const out = new Float32Array(corpus.sentences.length * dimension);
  for (let i = 0; i < corpus.sentences.length; i++) {
    const s = corpus.sentences[i];
    const rows = corpus.vectors.get(s.docId);
    if (!rows || rows.length < (s.index + 1) * dimension) return input;
    out.set(rows.subarray(s.index * dimension, (s.index + 1) * dimension), i * dimension);
  }
  return { ...input, sentenceVectors: out, dimension };
}

/**
 * From scratch: concepts, co-occurrence graph, PageRank, and the semantic layer when vectors exist. A stored
 * compact graph (keep-mask) that matches the corpus spares the edge cosines, and its concept vectors are computed
 * only when a question needs them (RetrievalEngine.fromCompact); a stored concept table (a lexical library's)
 * spares choosing the keyphrases again (RetrievalEngine.fromTable). The answers are those of a fresh build.
 */
export function buildEngine(
  corpus: LoadedCorpus,
  previous?: RetrievalEngine,
  prepared?: PreparedOpen,
): RetrievalEngine {
  const input = prepared?.input ?? retrievalInput(corpus);
  const stored: unknown = corpus.graph?.graph;
  if (isCompactGraph(stored)) {
    const engine = RetrievalEngine.fromCompact(input, termAnalyzer(), stored, previous, prepared);
    if (engine) return engine;
  }
  if (isConceptTableGraph(stored)) {
    const engine = RetrievalEngine.fromTable(
      input,
      termAnalyzer(),
      stored,
      {},
      prepared?.text,
      prepared?.tableGraph,
    );
    if (engine) return engine;
  }
  return RetrievalEngine.build(input, termAnalyzer());
}

/**
 * Parts of opening a library computed ahead (RetrievalEngine.fromCompact's `prepared`, fromTable's `text` and
 * `prebuilt`): the retrieval input and its text's analysis and BM25, made here, and the stored graph's co-occurrence
 * and walk graphs, made by another worker (src/services/library/graphPrebuild.ts).
 */
export interface PreparedOpen {
  input: RetrievalInput;
  /** Absent: analysed by the engine itself, if it needs to (a reload that reuses the lexical layers does not). */
  text?: PreparedText;
  graph?: PrebuiltMaskedGraph;
  /** The ranked graph of the stored concept table (a lexical library's), made by another worker too. */
  tableGraph?: ConceptGraphIndex;
}

/**
 * The retrieval input of `corpus`, and the corpus without its per-document vectors, for a caller that then lets go
 * of the one it read: every sentence's vector is then held once (the input's array) while the engine is built,
 * not twice (48 MB more on MuSiQue). The corpus read is not changed.
 */
export function takeRetrievalInput(corpus: LoadedCorpus): { input: RetrievalInput; corpus: LoadedCorpus } {
  return { input: retrievalInput(corpus), corpus: { ...corpus, vectors: new Map() } };
}

/**
 * The text's part of opening `input` from the engine of the library before it, when `input` holds all its chunks
 * (documents added, or the graph written again): only the added chunks are analysed (RetrievalEngine.extendText).
 * Undefined when it does not apply.
 */
export function extendOpen(previous: RetrievalEngine, input: RetrievalInput): PreparedOpen | undefined {
  const text = RetrievalEngine.extendText(previous, input, termAnalyzer());
  return text && { input, text };
}

/** The text's part of opening `input`, to compute while another worker builds the graph. */
export function prepareOpen(input: RetrievalInput): PreparedOpen {
  return { input, text: RetrievalEngine.prepareText(input, termAnalyzer()) };
}

/**
 * The engine loadEngine built last, while its library is still held (the query worker keeps it until the next
 * one is ready): when the library changed only by gaining its vectors and keep-mask, its lexical layers are
 * reused (RetrievalEngine.fromCompact) instead of analysing every chunk again.
 */
let lastLoaded: WeakRef<RetrievalEngine> | undefined;

/** Whether this worker holds an engine loadEngine built (a new load may then reuse its lexical layers). */
export function engineLoaded(): boolean {
  return lastLoaded?.deref() !== undefined;
}

/**
 * Computes an engine's remaining concept vectors in slices of `sliceMs`, yielding to the worker's messages
 * between them, so questions are answered (lexically, or with their vector by finishing the rest at once) while
 * it runs. Resolves when they are complete.
 */
export async function completeInBackground(engine: RetrievalEngine, sliceMs = 50): Promise<void> {
  while (!engine.advanceSemantic(sliceMs)) await new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Reuses the stored graph when it was built for exactly these chunks (a compact graph is expanded with the
 * keep-mask); otherwise builds from scratch.
 */
export function loadEngine(corpus: LoadedCorpus, prepared?: PreparedOpen): RetrievalEngine {
  const engine = loadFresh(corpus, prepared);
  lastLoaded = new WeakRef(engine);
  return engine;
}

function loadFresh(corpus: LoadedCorpus, prepared?: PreparedOpen): RetrievalEngine {
  const stored = corpus.graph?.graph;
  if (isCompactGraph(stored) || isConceptTableGraph(stored)) {
    return buildEngine(corpus, lastLoaded?.deref(), prepared);
  }
  const input = prepared?.input ?? retrievalInput(corpus);
  const semanticMatches = (stored?.semantic !== undefined) === (input.sentenceVectors !== undefined);
  if (stored && semanticMatches) {
    try {
      return RetrievalEngine.fromGraph(input, termAnalyzer(), stored);
    } catch {
      // A graph from an older set of chunks (e.g. a rebuild was interrupted): build a fresh one instead.
    }
  }
  return RetrievalEngine.build(input, termAnalyzer());
}
