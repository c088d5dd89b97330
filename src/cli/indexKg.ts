// `cli index --kg` / `--atomic`: the core KG (G2ConS) and PIKE-RAG's atomic questions built into the bundle, as the
// app's KG worker builds them into IndexedDB: the top κ of the chunks by concept-graph PageRank, one call each to the
// OpenAI-compatible endpoint (one call for both parts, as the app's one pass), merged, embedded with the bundle's
// embedder when it has one, and written as the same record tables an app export holds (kgEntities, kgRelations,
// kgChunks; atomicQuestions, atomicChunks). A team pays the calls once; every reader of the bundle, whole or by
// ranges, searches the same layers.
import {
  buildDistilled,
  embedAtomic,
  MemoryAtomicStore,
  type DistillChunkInput,
} from '../core/atomic/index.ts';
import type { IndexSnapshot } from '../core/bundle/index.ts';
import { embedKg, MemoryKgStore, rankOrder, selectCoreChunks } from '../core/kg/index.ts';
import type { LlmClient } from '../core/llm/index.ts';
import type { Embedder } from '../core/types.ts';
import { buildEngine } from '../services/library/engine.ts';
import { snapshotToCorpus } from '../store/bundleImport.ts';
import { questionRecord } from '../store/atomicStore.ts';
import { entityRecord, relationRecord } from '../store/kgStore.ts';

export interface IndexKgOptions {
  client: LlmClient;
  /** Share of the chunks extracted, by concept-graph rank (the app's κ). */
  kappa: number;
  /** What to build: the KG, the atomic questions, or both (one call per chunk). */
  parts: { kg: boolean; atomic: boolean };
  /** The bundle's embedder (entity and relation vectors); null: the KG is searched by names. */
  embedder: Embedder | null;
  concurrency?: number;
  log: (line: string) => void;
}

/**
 * The snapshot with a KG and/or atomic questions over its core chunks in its tables (any such layer it held is
 * replaced).
 */
export async function withCoreLayers(
  snapshot: IndexSnapshot,
  options: IndexKgOptions,
): Promise<IndexSnapshot> {
  const { parts } = options;
  const engine = buildEngine(snapshotToCorpus(snapshot));
  const { chunkIds, chunkRank } = engine.graph;
  const order = rankOrder(chunkIds.map((chunkId, i) => ({ chunkId, rank: chunkRank[i] })));
  const byId = new Map(snapshot.chunks.map((c) => [c.id, c]));
  const core: DistillChunkInput[] = selectCoreChunks(
    order.map((chunkId, i) => ({ chunkId, rank: -i })),
    options.kappa,
  ).map((id) => ({ id, docId: byId.get(id)!.docId, text: byId.get(id)!.text }));
  const what = [parts.kg ? 'KG' : '', parts.atomic ? 'atomic questions' : ''].filter(Boolean).join(' and ');
  options.log(`${what}: ${core.length} of ${chunkIds.length} chunks (κ ${options.kappa})`);
  const store = new MemoryKgStore();
  const atomic = new MemoryAtomicStore();
  const summary = await buildDistilled({
    chunks: core,
    kinds: parts,
    kg: store,
    atomic,
    client: options.client,
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
  });
  if (summary.error) throw new Error(`index: the ${what} build stopped: ${summary.error}`);
  const tables = { ...snapshot.tables };
  if (parts.kg) {
    if (options.embedder) await embedKg(store, options.embedder);
    const entities = await store.entities();
    const relations = await store.relations();
    options.log(
      `KG: ${entities.length} entities, ${relations.length} relations (${summary.kg.failed} chunks failed)`,
    );
    tables.kgEntities = entities.map(entityRecord);
    tables.kgRelations = relations.map(relationRecord);
    tables.kgChunks = await store.states();
  }
  if (parts.atomic) {
    if (options.embedder) await embedAtomic(atomic, options.embedder);
    const questions = await atomic.questions();
    options.log(`atomic questions: ${questions.length} (${summary.atomic.failed} chunks failed)`);
    tables.atomicQuestions = questions.map(questionRecord);
    tables.atomicChunks = await atomic.states();
  }
  return { ...snapshot, tables };
}
