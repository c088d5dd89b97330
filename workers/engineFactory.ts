// Builds C's RetrievalEngine from what the store holds: the lexical layer from chunks and sentences, the semantic
// layer from the per-document sentence vectors, and — when a stored concept graph matches the chunks — the graph
// itself without re-extracting concepts. Shared by the ingest worker (graph rebuild) and the query worker.
import type { TermAnalyzer } from '../src/core/graph/analyzer.ts';
import { createTermAnalyzer } from '../src/core/text/analyzer.ts';
import { RetrievalEngine, type RetrievalInput } from '../src/core/retrieval/engine.ts';
import type { LoadedCorpus } from '../src/store/repo.ts';

let analyzer: TermAnalyzer | null = null;

function termAnalyzer(): TermAnalyzer {
  analyzer ??= createTermAnalyzer();
  return analyzer;
}

/**
 * Lines up the stored sentence vectors with the sentence list (each document's vectors are rows in sentence-index
 * order). Returns no vectors when any document lacks them, so the engine stays lexical rather than half semantic.
 */
export function retrievalInput(corpus: LoadedCorpus): RetrievalInput {
  const input: RetrievalInput = { chunks: corpus.chunks, sentences: corpus.sentences };
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

/** From scratch: concepts, co-occurrence graph, PageRank, and the semantic layer when vectors exist. */
export function buildEngine(corpus: LoadedCorpus): RetrievalEngine {
  return RetrievalEngine.build(retrievalInput(corpus), termAnalyzer());
}

/** Reuses the stored graph when it was built for exactly these chunks; otherwise builds from scratch. */
export function loadEngine(corpus: LoadedCorpus): RetrievalEngine {
  const input = retrievalInput(corpus);
  const stored = corpus.graph?.graph;
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
