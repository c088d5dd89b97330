// The concept graph as bundles carry it by default: not the ~6 M edges (150 MB for MuSiQue) but what cannot be
// rebuilt cheaply — the θsem keep-mask, one bit per undirected co-occurrence edge (0.75 MB) — plus the counts
// that prove a rebuilt lexical graph is the one the mask was made for. Loading rebuilds concepts and edges from
// the text (deterministic, seconds), computes concept vectors (needed by the embedding seeds) and applies the
// mask, instead of computing every edge cosine.
import type { ConceptGraph } from './cooccurrence.ts';
import { lexicalLayers, type GraphOptions, type SerializedGraph } from './conceptGraph.ts';
import { computeConceptVectors, type SentenceLayout } from './conceptVectors.ts';
import { keepMaskBytes, keepMaskOf, undirectedEdgeCount } from './semanticEdges.ts';

export interface CompactGraph {
  format: 'conceptrag-graph-mask';
  version: 1;
  /** The build options of the graph the mask was made from (a rebuild must use the same). */
  options: GraphOptions;
  chunkIds: string[];
  /** Concepts and undirected co-occurrence edges of that graph: a rebuild must find the same counts. */
  concepts: number;
  edges: number;
  /** Edges of the θsem-filtered walk graph (undirected), for display and checks. */
  keptEdges: number;
  dimension: number;
  keepThetaSem: number;
  keepMask: Uint8Array;
}

export function isCompactGraph(value: unknown): value is CompactGraph {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { format?: unknown }).format === 'conceptrag-graph-mask'
  );
}

/**
 * The compact form of a full serialized graph with a semantic layer (from its edge cosines at its θsem, or the
 * keep-mask it already holds). Undefined for a graph without a semantic layer: it is rebuilt from text alone.
 */
export function compactGraph(full: SerializedGraph): CompactGraph | undefined {
  const s = full.semantic;
  if (!s) return undefined;
  const nc = full.terms.length;
  const graph: ConceptGraph = {
    nodeCount: nc,
    offsets: full.edgeOffsets,
    targets: full.edgeTargets,
    co: full.edgeCo,
    weights: full.edgeWeights,
  };
  const thetaSem = full.options.thetaSem;
  let mask: Uint8Array;
  if (s.keepMask && s.keepThetaSem === thetaSem) mask = s.keepMask;
  else if (s.cosines) mask = keepMaskOf(graph, s.cosines, thetaSem);
  else throw new Error('compact graph: the semantic layer has neither cosines nor a keep-mask at its θsem');
  let kept = 0;
  for (const byte of mask) for (let b = byte; b; b &= b - 1) kept++;
  return {
    format: 'conceptrag-graph-mask',
    version: 1,
    options: { ...full.options },
    chunkIds: [...full.chunkIds],
    concepts: nc,
    edges: undirectedEdgeCount(graph),
    keptEdges: kept,
    dimension: s.dimension,
    keepThetaSem: thetaSem,
    keepMask: mask,
  };
}

/** Checks the shape of a compact graph read from a bundle or a store; returns why it is unusable, or null. */
export function compactGraphProblem(value: CompactGraph): string | null {
  if (value.version !== 1) return `unknown version ${String(value.version)}`;
  if (!Array.isArray(value.chunkIds)) return 'chunkIds is not a list';
  if (!(value.keepMask instanceof Uint8Array)) return 'keepMask is not bytes';
  if (!Number.isInteger(value.edges) || value.edges < 0) return `edge count ${String(value.edges)}`;
  if (value.keepMask.length !== keepMaskBytes(value.edges)) {
    return `keepMask has ${value.keepMask.length} bytes for ${value.edges} edges`;
  }
  if (typeof value.keepThetaSem !== 'number' || !(value.dimension > 0)) return 'θsem or dimension missing';
  return null;
}

export interface ExpandInput {
  /** Chunk ids sorted, and the concept term lists of those chunks (the same analysis as a fresh build). */
  chunkIds: readonly string[];
  conceptLists: readonly (readonly string[])[];
  /** Build options now in force: they must equal the compact graph's for the mask to apply. */
  options: GraphOptions;
  layout: SentenceLayout;
  /** Sentence vectors in layout order. */
  sentenceVectors: Float32Array;
  dimension: number;
}

/**
 * Options that shape the lexical graph (the keep-mask indexes its edges). `phrases` is the retrieval parameter
 * that adds phrase concepts: not a GraphOptions field, but stored with the options the engine passes.
 */
const SHAPING_OPTIONS = ['conceptsPerChunk', 'maxDfFraction', 'thetaCo', 'phrases'] as const;

/**
 * Rebuilds the full serialized graph (lexical arrays, concept vectors, keep-mask) from a compact graph and the
 * corpus, refusing — with the reason — when the chunks, the shaping options, the embedding dimension or the
 * rebuilt counts differ from what the mask was made for. Ranks are computed by deserializeGraph, once.
 */
export function expandCompactGraph(compact: CompactGraph, input: ExpandInput): SerializedGraph {
  const fail = (why: string): never => {
    throw new Error(`compact graph: cannot apply the keep-mask: ${why}`);
  };
  const problem = compactGraphProblem(compact);
  if (problem) fail(problem);
  const ids = input.chunkIds;
  if (ids.length !== compact.chunkIds.length || ids.some((id, i) => id !== compact.chunkIds[i])) {
    fail('it was built for another set of chunks');
  }
  const made = compact.options as unknown as Record<string, unknown>;
  const now = input.options as unknown as Record<string, unknown>;
  for (const key of SHAPING_OPTIONS) {
    if (made[key] !== now[key]) {
      fail(`option ${key} is ${String(now[key])}, the mask was made with ${String(made[key])}`);
    }
  }
  if (input.dimension !== compact.dimension) {
    fail(`vectors have dimension ${input.dimension}, the mask was made with ${compact.dimension}`);
  }
  const lexical = lexicalLayers(ids, input.conceptLists, input.options);
  const nc = lexical.table.terms.length;
  const edges = undirectedEdgeCount(lexical.cooccurrence);
  if (nc !== compact.concepts || edges !== compact.edges) {
    fail(
      `the rebuilt graph has ${nc} concepts and ${edges} edges, the mask ${compact.concepts} and ${compact.edges}`,
    );
  }
  const conceptVectors = computeConceptVectors(
    lexical.table,
    input.layout,
    input.sentenceVectors,
    input.dimension,
  );
  const t = lexical.table;
  const g = lexical.cooccurrence;
  return {
    format: 'conceptrag-graph',
    version: 1,
    options: { ...input.options },
    chunkIds: [...ids],
    terms: t.terms,
    idf: t.idf,
    conceptChunkOffsets: t.conceptChunkOffsets,
    conceptChunks: t.conceptChunks,
    chunkConceptOffsets: t.chunkConceptOffsets,
    chunkConcepts: t.chunkConcepts,
    chunkConceptWeights: t.chunkConceptWeights,
    edgeOffsets: g.offsets,
    edgeTargets: g.targets,
    edgeCo: g.co,
    edgeWeights: g.weights,
    semantic: {
      dimension: input.dimension,
      conceptVectors,
      keepMask: compact.keepMask,
      keepThetaSem: compact.keepThetaSem,
    },
  };
}
