// The lexical concept graph the ingest worker has just built, handed to the query worker (a MessagePort between the
// two, which the page joins: src/ui/workers.ts), so that a library opened after a graph refresh does not build the
// same graph again from the stored concept table. That build (a graph worker's prebuildTableGraph: the co-occurrence
// edges from the table) cost as much CPU as the whole text analysis of the load it served: 0.4–1.0 s in Node for
// docs-scale's 2.4 M edges and MuSiQue's 2.7 M, beside 0.3–0.5 s to analyse their text (docs/results/trust.md,
// round thirteen), and it ran beside the first question after "searchable", on two cores the embedding also fills.
// The incremental refresh's snapshot has those very arrays, bit for bit (src/core/graph/incremental.ts); only its
// PageRank is warm-started, so the ranks are not handed: the query worker computes them as the graph worker did,
// from a uniform start, when something reads them (questions never do).
import {
  sameGraphOptions,
  sameItems,
  withRanks,
  type ConceptGraph,
  type ConceptGraphIndex,
  type ConceptTableGraph,
} from '../../core/graph/index.ts';
import { resolveParams } from '../../core/retrieval/index.ts';

/** The lexical layers of a concept graph without its ranks: what crosses from the ingest worker (a copy). */
export type HandedLexicalGraph = Pick<
  ConceptGraphIndex,
  'chunkIds' | 'table' | 'cooccurrence' | 'graph' | 'options'
>;

/** What crosses the port, from the ingest worker to the query worker. */
type HandOverMessage = { type: 'coming' } | { type: 'graph'; graph: HandedLexicalGraph | null };

/**
 * The layers of `index` to hand over, without reading its ranks (a spread would compute the lazy ones, and a
 * warm-started PageRank is not the one a load computes). Null for a graph with a semantic layer: that library is
 * stored as a keep-mask, whose walk graph the query worker builds otherwise.
 */
export function handedLayers(index: ConceptGraphIndex | null): HandedLexicalGraph | null {
  if (!index || index.semantic) return null;
  const { chunkIds, table, cooccurrence, graph, options } = index;
  return { chunkIds, table, cooccurrence, graph, options };
}

/**
 * The ingest worker's end, told around the coverage of a drop's last refresh (IngestDeps.graphSettled): `coming`
 * before the page hears of it, so a load begun at once waits for the graph rather than start a graph worker; the
 * graph itself (a copy: the ingest worker keeps its own as the base of the next refresh) once the page was told.
 * It is pushed, not asked for: asked for, it waited behind the ingest worker's embedding, which begins right after
 * that refresh (5.4 s of a docs-scale load at load 33, docs/results/trust.md).
 */
export function graphHandOverTo(
  port: MessagePort,
  source: () => HandedLexicalGraph | null,
): { coming(): void; settled(): void } {
  const post = (message: HandOverMessage, buffers: ArrayBuffer[] = []) => port.postMessage(message, buffers);
  return {
    coming: () => post({ type: 'coming' }),
    settled: () => {
      try {
        const layers = source();
        if (!layers) return post({ type: 'graph', graph: null });
        // Copied here and moved, so the query worker, whose question is reading the library right then, does not
        // spend the copy's time: a structured clone makes its second copy on the receiving thread.
        const graph = copiedLayers(layers);
        post({ type: 'graph', graph }, buffersOf([graph.table, graph.cooccurrence, graph.graph]));
      } catch {
        // Nothing to copy (or the copy failed): the query worker builds the graph as before.
        post({ type: 'graph', graph: null });
      }
    },
  };
}

/** `layers` with a copy of each of its arrays (the co-occurrence graph stays the walk graph when it is). */
function copiedLayers(layers: HandedLexicalGraph): HandedLexicalGraph {
  const { table, cooccurrence, graph } = layers;
  const copyGraph = (g: ConceptGraph): ConceptGraph => ({
    nodeCount: g.nodeCount,
    offsets: g.offsets.slice(),
    targets: g.targets.slice(),
    co: g.co.slice(),
    weights: g.weights.slice(),
  });
  const walk = copyGraph(graph);
  return {
    chunkIds: layers.chunkIds,
    table: {
      chunkCount: table.chunkCount,
      terms: table.terms,
      idf: table.idf.slice(),
      conceptChunkOffsets: table.conceptChunkOffsets.slice(),
      conceptChunks: table.conceptChunks.slice(),
      chunkConceptOffsets: table.chunkConceptOffsets.slice(),
      chunkConcepts: table.chunkConcepts.slice(),
      chunkConceptWeights: table.chunkConceptWeights.slice(),
    },
    cooccurrence: cooccurrence === graph ? walk : copyGraph(cooccurrence),
    graph: walk,
    options: layers.options,
  };
}

/** Every array buffer under these parts, once each (a buffer listed twice cannot be transferred). */
export function buffersOf(parts: readonly object[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const part of parts) {
    for (const value of Object.values(part)) {
      if (ArrayBuffer.isView(value) && value.buffer instanceof ArrayBuffer) buffers.add(value.buffer);
    }
  }
  return [...buffers];
}

/** The query worker's end: the graph the ingest worker handed last, until a library load takes it. */
export class HandedGraphs {
  private held: HandedLexicalGraph | null = null;
  private coming: { arrived: Promise<void>; arrive: () => void } | null = null;

  constructor(port?: MessagePort) {
    if (port) port.onmessage = (event: MessageEvent<unknown>) => this.receive(event.data);
  }

  receive(data: unknown): void {
    const message = data as Partial<HandOverMessage> | null;
    if (message?.type === 'coming') {
      if (this.coming) return;
      let arrive = () => {};
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      this.coming = { arrived, arrive };
    } else if (message?.type === 'graph') {
      this.held = message.graph ?? null;
      const coming = this.coming;
      this.coming = null;
      coming?.arrive();
    }
  }

  /**
   * The graph handed last, for the load that asks (later loads get nothing until the next one is handed: the
   * engine holds it from then on), waited for when it is on its way; undefined when none is held or coming.
   */
  take(): Promise<HandedLexicalGraph | null> | undefined {
    if (this.coming) return this.coming.arrived.then(() => this.takeHeld());
    return this.held ? Promise.resolve(this.takeHeld()) : undefined;
  }

  private takeHeld(): HandedLexicalGraph | null {
    const held = this.held;
    this.held = null;
    return held;
  }
}

/**
 * The handed graph as the engine takes it in place of prebuildTableGraph's (RetrievalEngine.fromTable's
 * `prebuilt`), when it was made for exactly the chunks of the concept table the query worker read, with the
 * options a load uses: chunk ids name their text for good, so the same ids give the same table and edges. Its shape
 * is checked before anything walks it. Undefined otherwise (a refresh between the two reads, another worker's
 * options): the caller builds the graph as before.
 */
export function tableGraphFromHanded(
  handed: HandedLexicalGraph,
  stored: ConceptTableGraph,
): ConceptGraphIndex | undefined {
  const options = resolveParams();
  const { chunkIds, table, cooccurrence, graph } = handed;
  if (!Array.isArray(chunkIds) || !sameItems(chunkIds, stored.chunkIds)) return undefined;
  if (!sameGraphOptions(handed.options, options) || table.chunkCount !== chunkIds.length) return undefined;
  if (!Array.isArray(table.terms) || table.terms.length !== stored.concepts) return undefined;
  if (!wellFormed(graph, stored.concepts) || graph.targets.length / 2 !== stored.edges) return undefined;
  if (cooccurrence !== graph && !wellFormed(cooccurrence, stored.concepts)) return undefined;
  // The options as prebuildTableGraph gives them (the load's own), so the lazy ranks use the same damping.
  return withRanks({ chunkIds, table, cooccurrence, graph, options: { ...options } });
}

/** A CSR graph over `nodes` nodes whose offsets and arrays agree. */
function wellFormed(g: ConceptGraph, nodes: number): boolean {
  const { offsets, targets, co, weights } = g;
  if (g.nodeCount !== nodes || !(offsets instanceof Uint32Array) || offsets.length !== nodes + 1)
    return false;
  if (!(targets instanceof Uint32Array) || !(co instanceof Uint32Array) || !(weights instanceof Float32Array))
    return false;
  const edges = offsets[nodes];
  return targets.length === edges && co.length === edges && weights.length === edges;
}
