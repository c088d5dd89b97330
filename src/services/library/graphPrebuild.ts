// The concept graph of the stored record, built in a worker of their own (workers/graph.worker.ts) while the query
// worker reads and analyses the text: for a compact graph its co-occurrence and walk graphs (0.7 s of the engine's
// 1.2 s on MuSiQue in Chromium), for a lexical library's concept table the ranked graph itself (4.5 s on MuSiQue at
// load 53–66, on every load that follows a graph refresh: docs/results/trust.md, round seven). Both need only the
// stored record. The arrays come back transferred, not copied.
import { transfer, wrap } from 'comlink';
import {
  isCompactGraph,
  isConceptTableGraph,
  prebuildMaskedGraph,
  prebuildTableGraph,
  type ConceptGraphIndex,
  type PrebuiltMaskedGraph,
} from '../../core/graph/index.ts';
import { resolveParams } from '../../core/retrieval/index.ts';
import type { GraphRecord } from '../../store/db.ts';
import { buffersOf } from './graphHandOver.ts';

/** The graphs, and which stored record they were made from (the opener checks it is the one it read). */
export type PrebuiltGraph =
  | { builtAt: number; graph: PrebuiltMaskedGraph; table?: undefined }
  | { builtAt: number; table: ConceptGraphIndex; graph?: undefined };

/** What to build: a compact graph's parts only when asked (a later load may reuse the held engine's instead). */
export interface PrebuildRequest {
  compact: boolean;
}

/** The graph worker's service: reads the stored graph record itself, so nothing large is sent to it. */
export function createGraphPrebuilder(repo: { getStoredGraph(): Promise<GraphRecord | undefined> }) {
  return {
    /** Null when the store holds no graph this applies to (a table graph, or a compact one with its table). */
    async prebuild(request: PrebuildRequest = { compact: true }): Promise<PrebuiltGraph | null> {
      const record = await repo.getStoredGraph();
      const stored: unknown = record?.graph;
      if (!record) return null;
      if (isConceptTableGraph(stored)) {
        const table = prebuildTableGraph(stored, resolveParams());
        return table
          ? transfer({ builtAt: record.builtAt, table }, buffersOf([table, table.table, table.graph]))
          : null;
      }
      if (!request.compact || !isCompactGraph(stored)) return null;
      const graph = prebuildMaskedGraph(stored, resolveParams());
      if (!graph) return null;
      return transfer(
        { builtAt: record.builtAt, graph },
        buffersOf([graph.table, graph.cooccurrence, graph.walk]),
      );
    },
  };
}

type GraphPrebuilder = ReturnType<typeof createGraphPrebuilder>;

/** Starts a graph worker, asks it for the prebuilt graphs, and ends it (the query worker keeps what it sent). */
export async function prebuildInWorker(request: PrebuildRequest): Promise<PrebuiltGraph | null> {
  const worker = new Worker(new URL('../../../workers/graph.worker.ts', import.meta.url), {
    type: 'module',
    name: 'graph',
  });
  try {
    return await wrap<GraphPrebuilder>(worker).prebuild(request);
  } finally {
    worker.terminate();
  }
}
