// The concept graph built from scratch over the whole stored library and stored as the ingest pipeline stores its
// incremental one (src/services/ingest/graphBuild.ts): the full rebuild tests and benches compare the incremental
// refresh with, or use to give a library its graph without a drain. The app never runs it.
import { buildEngine } from '../../src/services/library/engine.ts';
import type { GraphBuilder } from '../../src/services/ingest/graphBuild.ts';
import { themesForStore } from '../../src/services/themes/themesOf.ts';
import type { Repo } from '../../src/store/repo.ts';

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
  const themes = await themesForStore(repo, engine.graph);
  await repo.putGraph(engine.exportGraph(), { concepts: stats.concepts, edges: stats.edges }, themes);
}
