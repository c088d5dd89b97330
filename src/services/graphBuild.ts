// Rebuilds the concept graph over the whole library after a batch of documents (or a removal, or once every
// document has its vectors) and stores it with its counts. The store keeps only what a load cannot rebuild in
// seconds (Repo.putGraph: the θsem keep-mask of a graph with a semantic layer; nothing for a lexical-only graph),
// so a rebuild during a drop writes a few hundred KB at most instead of the whole graph.
import type { RetrievalEngine } from '../core/retrieval/index.ts';
import type { LoadedCorpus, Repo } from '../store/repo.ts';
import { buildEngine } from './engine.ts';

/**
 * Builds the engine whose graph a rebuild stores. The seam for the incremental concept graph
 * (src/core/graph/incremental.ts): a builder that updates the previous graph with the documents added or removed
 * since, instead of building from scratch, is passed here.
 */
export type GraphBuilder = (corpus: LoadedCorpus) => RetrievalEngine;

export async function rebuildConceptGraph(
  repo: Repo,
  signal: AbortSignal,
  build: GraphBuilder = buildEngine,
): Promise<void> {
  const corpus = await repo.loadCorpus();
  signal.throwIfAborted();
  if (corpus.chunks.length === 0) return;
  const engine = build(corpus);
  signal.throwIfAborted();
  const stats = engine.stats();
  await repo.putGraph(engine.exportGraph(), { concepts: stats.concepts, edges: stats.edges });
}
