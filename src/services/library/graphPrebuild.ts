// The co-occurrence and walk graphs of the stored compact graph, built in a worker of their own
// (workers/graph.worker.ts) while the query worker reads and analyses the text: the largest step of opening a
// library (0.7 s of the engine's 1.2 s on MuSiQue in Chromium), and one that needs only the stored concept table
// and keep-mask. The arrays come back transferred, not copied.
import { transfer, wrap } from 'comlink';
import { isCompactGraph, prebuildMaskedGraph, type PrebuiltMaskedGraph } from '../../core/graph/index.ts';
import { resolveParams } from '../../core/retrieval/index.ts';
import type { GraphRecord } from '../../store/db.ts';

/** The graphs, and which stored record they were made from (the opener checks it is the one it read). */
export interface PrebuiltGraph {
  builtAt: number;
  graph: PrebuiltMaskedGraph;
}

/** The graph worker's service: reads the stored graph record itself, so nothing large is sent to it. */
export function createGraphPrebuilder(repo: { getStoredGraph(): Promise<GraphRecord | undefined> }) {
  return {
    /** Null when the store holds no compact graph with its concept table, or it does not apply. */
    async prebuild(): Promise<PrebuiltGraph | null> {
      const record = await repo.getStoredGraph();
      const stored: unknown = record?.graph;
      if (!record || !isCompactGraph(stored)) return null;
      const graph = prebuildMaskedGraph(stored, resolveParams());
      if (!graph) return null;
      return transfer({ builtAt: record.builtAt, graph }, buffersOf(graph));
    },
  };
}

type GraphPrebuilder = ReturnType<typeof createGraphPrebuilder>;

/** Every array buffer under the graphs, once each (a buffer listed twice cannot be transferred). */
function buffersOf(graph: PrebuiltMaskedGraph): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const part of [graph.table, graph.cooccurrence, graph.walk]) {
    for (const value of Object.values(part)) {
      if (ArrayBuffer.isView(value) && value.buffer instanceof ArrayBuffer) buffers.add(value.buffer);
    }
  }
  return [...buffers];
}

/** Starts a graph worker, asks it for the prebuilt graphs, and ends it (the query worker keeps what it sent). */
export async function prebuildInWorker(): Promise<PrebuiltGraph | null> {
  const worker = new Worker(new URL('../../../workers/graph.worker.ts', import.meta.url), {
    type: 'module',
    name: 'graph',
  });
  try {
    return await wrap<GraphPrebuilder>(worker).prebuild();
  } finally {
    worker.terminate();
  }
}
