// The whole concept graph of a corpus, in two layers. The lexical layer (concepts, co-occurrence edges with Dice
// weights, global PageRank) needs only text and is built in seconds; the semantic layer (concept vectors, edge
// cosines, the θsem-filtered graph) is added when sentence vectors exist. Built from chunks sorted by id, so the
// same document set gives the same graph whatever order the documents were added in.
import type { ScriptChunks } from '../text/index.ts';
import { extractConcepts, type ConceptTable } from './concepts.ts';
import { buildCooccurrenceGraph, filterEdges, type ConceptGraph } from './cooccurrence.ts';
import { computeConceptVectors, type SentenceLayout } from './conceptVectors.ts';
import { pagerank } from './pagerank.ts';
import { fastEdgeCosines, filterByKeepMask, keepMaskBytes } from './semanticEdges.ts';

export interface GraphOptions {
  conceptsPerChunk: number;
  maxDfFraction: number;
  /** See ConceptOptions.minDfCap. */
  minDfCap?: number;
  /** See ConceptOptions.scriptChunks. */
  scriptChunks?: ScriptChunks;
  /**
   * Word statistics per script (RetrievalParams.scriptStatistics): the incremental graph then counts its chunks' words
   * by script (IncrementalChunk.scripts) and takes the per-script N and cap as a fresh build does.
   */
  scriptStatistics?: boolean;
  thetaCo: number;
  thetaSem: number;
  /** Damping of the global PageRank (graphology's default 0.85: the global rank is a centrality, not a walk). */
  globalDamping?: number;
}

export interface SemanticLayer {
  dimension: number;
  /** nodeCount × dimension, unit rows. */
  conceptVectors: Float32Array;
  /**
   * Cosine of every co-occurrence edge (aligned with cooccurrence.targets). Absent when the layer came from a
   * keep-mask (a bundle): then `keep` says which edges pass θsem, and cosines are computed only if θsem changes.
   */
  cosines?: Float32Array;
  /** The θsem outcome per undirected edge (semanticEdges.keepMaskOf), when the layer came from a keep-mask. */
  keep?: KeepMask;
}

/** Which undirected co-occurrence edges have cosine ≥ thetaSem: one bit each, in canonical CSR order. */
interface KeepMask {
  thetaSem: number;
  mask: Uint8Array;
}

export interface ConceptGraphIndex {
  /** Chunk ids in index order (sorted). */
  chunkIds: string[];
  table: ConceptTable;
  /** Every edge with Co ≥ θco (the lexical graph). */
  cooccurrence: ConceptGraph;
  semantic?: SemanticLayer;
  /** The graph walks use: the co-occurrence graph, filtered by θsem once the semantic layer exists. */
  graph: ConceptGraph;
  /** Global weighted PageRank of every concept on `graph`. */
  conceptRank: Float64Array;
  /** Chunk rank from concept ranks: Σ over its concepts of PageRank(c) / |T(c)|. */
  chunkRank: Float64Array;
  options: GraphOptions;
}

/** An index before its global ranks (withRanks adds them, computed when first read), and those ranks. */
export type UnrankedIndex = Omit<ConceptGraphIndex, keyof Ranks>;
type Ranks = Pick<ConceptGraphIndex, 'conceptRank' | 'chunkRank'>;

/** Lexical layer from analysed chunk terms (chunks already sorted by id). */
export function buildLexicalGraph(
  chunkIds: readonly string[],
  chunkTerms: readonly (readonly string[])[],
  options: GraphOptions,
): ConceptGraphIndex {
  return withRanks(lexicalLayers(chunkIds, chunkTerms, options));
}

/** Concepts and co-occurrence edges without the PageRank (callers that filter the graph first rank once). */
export function lexicalLayers(
  chunkIds: readonly string[],
  chunkTerms: readonly (readonly string[])[],
  options: GraphOptions,
): UnrankedIndex {
  if (chunkIds.length !== chunkTerms.length) {
    throw new Error(`concept graph: ${chunkIds.length} chunk ids but ${chunkTerms.length} term lists`);
  }
  for (let i = 1; i < chunkIds.length; i++) {
    if (!(chunkIds[i - 1] < chunkIds[i])) {
      throw new Error(
        `concept graph: chunk ids must be sorted and unique ("${chunkIds[i - 1]}", "${chunkIds[i]}")`,
      );
    }
  }
  return lexicalLayersFromTable(chunkIds, extractConcepts(chunkTerms, options), options);
}

/** Co-occurrence edges of a concept table already made (a compact graph's stored table), without PageRank. */
export function lexicalLayersFromTable(
  chunkIds: readonly string[],
  table: ConceptTable,
  options: GraphOptions,
): UnrankedIndex {
  if (table.chunkCount !== chunkIds.length) {
    throw new Error(`concept graph: ${chunkIds.length} chunk ids but a table of ${table.chunkCount} chunks`);
  }
  const cooccurrence = buildCooccurrenceGraph(table, options.thetaCo);
  return { chunkIds: [...chunkIds], table, cooccurrence, graph: cooccurrence, options };
}

/** Adds (or replaces) the semantic layer: concept vectors, edge cosines and the θsem-filtered walk graph. */
export function addSemanticLayer(
  index: ConceptGraphIndex,
  layout: SentenceLayout,
  sentenceVectors: Float32Array,
  dimension: number,
): ConceptGraphIndex {
  const conceptVectors = computeConceptVectors(index.table, layout, sentenceVectors, dimension);
  const cosines = fastEdgeCosines(index.cooccurrence, conceptVectors, dimension);
  return withSemantic(index, { dimension, conceptVectors, cosines });
}

/** The same index with another θsem: re-filters the stored edge cosines (no vectors recomputed). */
export function withThetaSem(index: ConceptGraphIndex, thetaSem: number): ConceptGraphIndex {
  const options = { ...index.options, thetaSem };
  if (!index.semantic) return withRanks({ ...unranked(index), options });
  return withSemantic({ ...index, options }, index.semantic);
}

/**
 * The index with a semantic layer: the θsem-filtered walk graph and its ranks. `initialRank` warm-starts the
 * PageRank (the incremental semantic layer passes the previous ranks); without it the start is uniform.
 */
export function withSemantic(
  index: UnrankedIndex,
  layer: SemanticLayer,
  initialRank?: Float64Array,
  /** The keep-mask already applied to `index.cooccurrence` (another worker did it: prebuildMaskedGraph). */
  masked?: ConceptGraph,
): ConceptGraphIndex {
  const { thetaSem } = index.options;
  let semantic = layer;
  let graph: ConceptGraph;
  if (semantic.keep && semantic.keep.thetaSem === thetaSem && !semantic.cosines) {
    graph = masked ?? filterByKeepMask(index.cooccurrence, semantic.keep.mask);
  } else {
    // Another θsem than the mask's: the cosines are needed after all (computed once, then kept).
    const cosines =
      semantic.cosines ?? fastEdgeCosines(index.cooccurrence, semantic.conceptVectors, semantic.dimension);
    semantic = { ...semantic, cosines };
    graph = filterEdges(index.cooccurrence, cosines, thetaSem);
  }
  return withRanks({ ...unranked(index), semantic, graph }, initialRank);
}

/**
 * Global PageRank of the walk graph and the chunk ranks derived from it. `initialRank` warm-starts the iteration
 * (the incremental graph passes the previous ranks); without it the start is uniform, as it always was.
 * Computed when first read, not here: questions never read them (the walk is personalized per question), only
 * the KG build's core-chunk order, the library map and the incremental graph do, and on MuSiQue the iteration
 * is 0.1-0.2 s of opening a library before its first question. A spread of the index reads them.
 */
export function withRanks(index: UnrankedIndex, initialRank?: Float64Array): ConceptGraphIndex {
  let ranks: Ranks | undefined;
  const computed = () => (ranks ??= globalRanks(index, initialRank));
  const ranked = unranked(index) as ConceptGraphIndex;
  return Object.defineProperties(ranked, {
    conceptRank: { get: () => computed().conceptRank, enumerable: true, configurable: true },
    chunkRank: { get: () => computed().chunkRank, enumerable: true, configurable: true },
  });
}

/** The index's fields but its ranks, which are not read (a spread would compute lazy ones). */
function unranked(index: UnrankedIndex): UnrankedIndex {
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(index)) {
    if (key !== 'conceptRank' && key !== 'chunkRank') fields[key] = index[key as keyof typeof index];
  }
  return fields as UnrankedIndex;
}

function globalRanks(index: UnrankedIndex, initialRank?: Float64Array): Ranks {
  const conceptRank = pagerank(
    index.graph,
    {
      damping: index.options.globalDamping ?? 0.85,
      maxIterations: 200,
    },
    initialRank,
  );
  const { table } = index;
  const chunkRank = new Float64Array(table.chunkCount);
  for (let k = 0; k < table.chunkCount; k++) {
    let s = 0;
    for (let j = table.chunkConceptOffsets[k]; j < table.chunkConceptOffsets[k + 1]; j++) {
      const c = table.chunkConcepts[j];
      s += conceptRank[c] / (table.conceptChunkOffsets[c + 1] - table.conceptChunkOffsets[c]);
    }
    chunkRank[k] = s;
  }
  return { conceptRank, chunkRank };
}

/** Structured-clone-safe form for IndexedDB and bundles: the concept table's arrays (chunks by id), the edges. */
export interface SerializedGraph extends Omit<ConceptTable, 'chunkCount'> {
  format: 'conceptrag-graph';
  version: 1;
  options: GraphOptions;
  chunkIds: string[];
  edgeOffsets: Uint32Array;
  edgeTargets: Uint32Array;
  edgeCo: Uint32Array;
  edgeWeights: Float32Array;
  /** cosines, or keepMask + keepThetaSem (a graph expanded from a bundle's compact graph): at least one. */
  semantic?: {
    dimension: number;
    conceptVectors: Float32Array;
    cosines?: Float32Array;
    keepMask?: Uint8Array;
    keepThetaSem?: number;
  };
}

export function serializeGraph(index: ConceptGraphIndex): SerializedGraph {
  const t = index.table;
  const g = index.cooccurrence;
  return {
    format: 'conceptrag-graph',
    version: 1,
    options: { ...index.options },
    chunkIds: [...index.chunkIds],
    terms: [...t.terms],
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
    semantic: index.semantic ? serializeSemantic(index.semantic) : undefined,
  };
}

function serializeSemantic(s: SemanticLayer): NonNullable<SerializedGraph['semantic']> {
  const out: NonNullable<SerializedGraph['semantic']> = {
    dimension: s.dimension,
    conceptVectors: s.conceptVectors,
  };
  if (s.cosines) out.cosines = s.cosines;
  if (s.keep) {
    out.keepMask = s.keep.mask;
    out.keepThetaSem = s.keep.thetaSem;
  }
  return out;
}

/** Rebuilds the index from its serialized form, checking every array against the counts it must match. */
export function deserializeGraph(data: SerializedGraph): ConceptGraphIndex {
  const fail = (why: string): never => {
    throw new Error(`concept graph: cannot deserialize: ${why}`);
  };
  if (!data || data.format !== 'conceptrag-graph') fail('not a concept graph (format field)');
  if (data.version !== 1) fail(`unknown version ${String(data.version)}`);
  const nk = data.chunkIds.length;
  const nc = data.terms.length;
  if (data.idf.length !== nc) fail(`idf has ${data.idf.length} entries for ${nc} concepts`);
  if (data.conceptChunkOffsets.length !== nc + 1) fail('conceptChunkOffsets length');
  if (data.chunkConceptOffsets.length !== nk + 1) fail('chunkConceptOffsets length');
  const links = data.chunkConcepts.length;
  if (data.conceptChunks.length !== links || data.chunkConceptWeights.length !== links)
    fail('chunk-concept links');
  if (data.conceptChunkOffsets[nc] !== links || data.chunkConceptOffsets[nk] !== links) fail('offset totals');
  if (data.edgeOffsets.length !== nc + 1) fail('edgeOffsets length');
  const m = data.edgeTargets.length;
  if (data.edgeOffsets[nc] !== m || data.edgeCo.length !== m || data.edgeWeights.length !== m)
    fail('edge arrays');
  for (let e = 0; e < m; e++) if (data.edgeTargets[e] >= nc) fail(`edge ${e} points outside the concepts`);
  for (let i = 0; i < links; i++) {
    if (data.chunkConcepts[i] >= nc || data.conceptChunks[i] >= nk) fail(`link ${i} out of range`);
  }
  const table: ConceptTable = {
    chunkCount: nk,
    terms: [...data.terms],
    idf: data.idf,
    conceptChunkOffsets: data.conceptChunkOffsets,
    conceptChunks: data.conceptChunks,
    chunkConceptOffsets: data.chunkConceptOffsets,
    chunkConcepts: data.chunkConcepts,
    chunkConceptWeights: data.chunkConceptWeights,
  };
  const cooccurrence: ConceptGraph = {
    nodeCount: nc,
    offsets: data.edgeOffsets,
    targets: data.edgeTargets,
    co: data.edgeCo,
    weights: data.edgeWeights,
  };
  const base = {
    chunkIds: [...data.chunkIds],
    table,
    cooccurrence,
    graph: cooccurrence,
    options: { ...data.options },
  };
  if (!data.semantic) return withRanks(base);
  const s = data.semantic;
  if (s.conceptVectors.length !== nc * s.dimension) fail('concept vectors do not match concepts × dimension');
  const layer: SemanticLayer = { dimension: s.dimension, conceptVectors: s.conceptVectors };
  if (s.cosines) {
    if (s.cosines.length !== m) fail('edge cosines do not match the edges');
    layer.cosines = s.cosines;
  }
  if (s.keepMask) {
    if (typeof s.keepThetaSem !== 'number') fail('keep-mask without its θsem');
    if (s.keepMask.length !== keepMaskBytes(m / 2)) fail('keep-mask does not match the edges');
    layer.keep = { thetaSem: s.keepThetaSem!, mask: s.keepMask };
  }
  if (!layer.cosines && !layer.keep) fail('semantic layer has neither edge cosines nor a keep-mask');
  return withSemantic(base, layer);
}
