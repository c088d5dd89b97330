// `cli index --kg`: the core KG (G2ConS) built into the bundle, as the app's KG worker builds it into IndexedDB: the
// top κ of the chunks by concept-graph PageRank, one extraction call each to the OpenAI-compatible endpoint, merged,
// embedded with the bundle's embedder when it has one, and written as the same record tables an app export holds
// (kgEntities, kgRelations, kgChunks). A team pays the extraction once; every reader of the bundle, whole or by
// ranges, searches the same KG.
import { buildDistilled, type DistillChunkInput } from '../core/atomic/index.ts';
import type { IndexSnapshot } from '../core/bundle/index.ts';
import { embedKg, MemoryKgStore, rankOrder, selectCoreChunks } from '../core/kg/index.ts';
import type { LlmClient } from '../core/llm/index.ts';
import type { Embedder } from '../core/types.ts';
import { buildEngine } from '../services/library/engine.ts';
import { snapshotToCorpus } from '../store/bundleImport.ts';
import { entityRecord, relationRecord } from '../store/kgStore.ts';

export interface IndexKgOptions {
  client: LlmClient;
  /** Share of the chunks extracted, by concept-graph rank (the app's κ). */
  kappa: number;
  /** The bundle's embedder (entity and relation vectors); null: the KG is searched by names. */
  embedder: Embedder | null;
  concurrency?: number;
  log: (line: string) => void;
}

/** The snapshot with a KG over its core chunks in its tables (any KG it held is replaced). */
export async function withCoreKg(snapshot: IndexSnapshot, options: IndexKgOptions): Promise<IndexSnapshot> {
  const engine = buildEngine(snapshotToCorpus(snapshot));
  const { chunkIds, chunkRank } = engine.graph;
  const order = rankOrder(chunkIds.map((chunkId, i) => ({ chunkId, rank: chunkRank[i] })));
  const byId = new Map(snapshot.chunks.map((c) => [c.id, c]));
  const core: DistillChunkInput[] = selectCoreChunks(
    order.map((chunkId, i) => ({ chunkId, rank: -i })),
    options.kappa,
  ).map((id) => ({ id, docId: byId.get(id)!.docId, text: byId.get(id)!.text }));
  options.log(`KG: extracting ${core.length} of ${chunkIds.length} chunks (κ ${options.kappa})`);
  const store = new MemoryKgStore();
  const summary = await buildDistilled({
    chunks: core,
    kinds: { kg: true, atomic: false },
    kg: store,
    client: options.client,
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
  });
  if (summary.error) throw new Error(`index: the KG build stopped: ${summary.error}`);
  if (options.embedder) await embedKg(store, options.embedder);
  const entities = await store.entities();
  const relations = await store.relations();
  options.log(
    `KG: ${entities.length} entities, ${relations.length} relations (${summary.kg.failed} chunks failed)`,
  );
  return {
    ...snapshot,
    tables: {
      ...snapshot.tables,
      kgEntities: entities.map(entityRecord),
      kgRelations: relations.map(relationRecord),
      kgChunks: await store.states(),
    },
  };
}
