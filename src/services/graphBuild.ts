// Rebuilds the concept graph over the whole library after a batch of documents (or a removal) and stores it with
// its counts, so the query worker and bundles load it instead of recomputing concepts.
import type { Repo } from '../store/repo.ts';
import { buildEngine } from './engine.ts';

export async function rebuildConceptGraph(repo: Repo, signal: AbortSignal): Promise<void> {
  const corpus = await repo.loadCorpus();
  signal.throwIfAborted();
  if (corpus.chunks.length === 0) return;
  const engine = buildEngine(corpus);
  signal.throwIfAborted();
  const stats = engine.stats();
  await repo.putGraph(engine.exportGraph(), { concepts: stats.concepts, edges: stats.edges });
}
