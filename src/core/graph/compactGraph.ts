// The concept graph as bundles carry it by default: not the ~6 M edges (150 MB for MuSiQue) but what cannot be
// rebuilt cheaply — the θsem keep-mask, one bit per undirected co-occurrence edge (0.75 MB) — plus the counts
// that prove a rebuilt lexical graph is the one the mask was made for. Loading rebuilds concepts and edges from
// the text (deterministic, seconds), computes concept vectors (needed by the embedding seeds) and applies the
// mask, instead of computing every edge cosine.
import type { ConceptGraph } from './cooccurrence.ts';
import { conceptTableFromChunks, sameItems, type ConceptTable } from './concepts.ts';
import {
  lexicalLayersFromTable,
  withSemantic,
  type ConceptGraphIndex,
  type GraphOptions,
  type SemanticLayer,
  type SerializedGraph,
  type UnrankedIndex,
} from './conceptGraph.ts';
import { filterByKeepMask, keepMaskBytes, keepMaskOf, undirectedEdgeCount } from './semanticEdges.ts';

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
  /**
   * The concept table the mask's graph was built from (its chunk → concept side, about 3 MB for MuSiQue). With it
   * the opener builds the same edges without analysing the text for concepts, whatever the platform: the text
   * analysis of Node and of a browser can differ (Intl.Segmenter's dictionaries, Unicode tables), and a single
   * concept whose chunks differ shifts every edge index after it, so a mask made by the CLI did not apply in the
   * browser, which then computed every edge cosine. Absent in compact graphs written before it was added.
   */
  table?: CompactConceptTable;
}

/** The stored side of a concept table (ConceptTable without the concept → chunk arrays, which are rebuilt). */
export type CompactConceptTable = Pick<
  ConceptTable,
  'terms' | 'idf' | 'chunkConceptOffsets' | 'chunkConcepts' | 'chunkConceptWeights'
>;

/** Whether `value` is an object whose format field is `format` (how stored graph forms tell themselves apart). */
export function hasGraphFormat(value: unknown, format: string): boolean {
  return typeof value === 'object' && value !== null && (value as { format?: unknown }).format === format;
}

export function isCompactGraph(value: unknown): value is CompactGraph {
  return hasGraphFormat(value, 'conceptrag-graph-mask');
}

/** The chunk → concept side of a full graph, as compact forms store it. */
export function storedTableOf(full: CompactConceptTable): CompactConceptTable {
  return {
    terms: [...full.terms],
    idf: full.idf,
    chunkConceptOffsets: full.chunkConceptOffsets,
    chunkConcepts: full.chunkConcepts,
    chunkConceptWeights: full.chunkConceptWeights,
  };
}

/**
 * The compact form of a full serialized graph with a semantic layer (from its edge cosines at its θsem, or the
 * keep-mask it already holds). Undefined for a graph without a semantic layer: it is rebuilt from text alone.
 */
export function compactGraph(full: SerializedGraph): CompactGraph | undefined {
  const s = full.semantic;
  if (!s) return undefined;
  const cooccurrence: ConceptGraph = {
    nodeCount: full.terms.length,
    offsets: full.edgeOffsets,
    targets: full.edgeTargets,
    co: full.edgeCo,
    weights: full.edgeWeights,
  };
  const thetaSem = full.options.thetaSem;
  let mask: Uint8Array;
  if (s.keepMask && s.keepThetaSem === thetaSem) mask = s.keepMask;
  else if (s.cosines) mask = keepMaskOf(cooccurrence, s.cosines, thetaSem);
  else throw new Error('compact graph: the semantic layer has neither cosines nor a keep-mask at its θsem');
  const { chunkIds, options } = full;
  return compactGraphFromMask({ chunkIds, table: full, cooccurrence, options }, s.dimension, mask);
}

/**
 * The compact form of a lexical graph index and the keep-mask of its co-occurrence edges at its θsem
 * (keepMaskFromVectors): what compactGraph gives for that index with its semantic layer, without the layer's
 * edge cosines or walk graph ever being built.
 */
export function compactGraphFromMask(
  index: Pick<ConceptGraphIndex, 'chunkIds' | 'cooccurrence' | 'options'> & { table: CompactConceptTable },
  dimension: number,
  mask: Uint8Array,
): CompactGraph {
  const edges = undirectedEdgeCount(index.cooccurrence);
  if (mask.length !== keepMaskBytes(edges)) {
    throw new Error(`compact graph: a keep-mask of ${mask.length} bytes for ${edges} edges`);
  }
  return {
    format: 'conceptrag-graph-mask',
    version: 1,
    options: { ...index.options },
    chunkIds: [...index.chunkIds],
    concepts: index.table.terms.length,
    edges,
    keptEdges: keptEdgeCount(mask),
    dimension,
    keepThetaSem: index.options.thetaSem,
    keepMask: mask,
    table: storedTableOf(index.table),
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
  if (value.table !== undefined) {
    const why = conceptTableProblem(value.table, value.concepts, value.chunkIds.length);
    if (why) return `concept table: ${why}`;
  }
  return null;
}

/**
 * Checks a stored concept table against the counts it must match (it comes from a bundle: untrusted): sorted
 * unique terms, offsets that cover the links, concept ids in range and ascending within each chunk, and every
 * concept in some chunk (as extraction leaves them).
 */
export function conceptTableProblem(
  table: CompactConceptTable,
  concepts: number,
  chunks: number,
): string | null {
  const {
    terms,
    idf,
    chunkConceptOffsets: offsets,
    chunkConcepts: links,
    chunkConceptWeights: weights,
  } = table;
  if (!Array.isArray(terms) || terms.length !== concepts) return `not ${concepts} terms`;
  for (let c = 0; c < terms.length; c++) {
    if (typeof terms[c] !== 'string') return `term ${c} is not text`;
    if (c > 0 && !(terms[c - 1] < terms[c])) return `terms not sorted and unique at ${c}`;
  }
  if (!(idf instanceof Float32Array) || idf.length !== concepts) return 'idf does not match the concepts';
  if (!(offsets instanceof Uint32Array) || offsets.length !== chunks + 1 || offsets[0] !== 0) {
    return 'chunk offsets do not match the chunks';
  }
  if (
    !(links instanceof Uint32Array) ||
    !(weights instanceof Float32Array) ||
    weights.length !== links.length
  ) {
    return 'links and weights differ in length';
  }
  if (offsets[chunks] !== links.length) return 'chunk offsets do not cover the links';
  const used = new Uint8Array(concepts);
  for (let k = 0; k < chunks; k++) {
    if (offsets[k + 1] < offsets[k]) return `chunk offsets decrease at ${k}`;
    for (let o = offsets[k]; o < offsets[k + 1]; o++) {
      const c = links[o];
      if (c >= concepts) return `link ${o} names no concept`;
      if (o > offsets[k] && !(links[o - 1] < c)) return `concepts of chunk ${k} not ascending`;
      used[c] = 1;
    }
  }
  if (used.includes(0)) return 'a concept is in no chunk';
  return null;
}

/**
 * Options that shape the lexical graph (the keep-mask indexes its edges). `phrases`, `keyphrases` and
 * `keyphraseScale` are retrieval parameters that choose the concepts: not GraphOptions fields, but stored with the
 * options the engine passes.
 */
const SHAPING_OPTIONS = [
  'conceptsPerChunk',
  'maxDfFraction',
  'minDfCap',
  'thetaCo',
  'phrases',
  'keyphrases',
  'keyphraseScale',
] as const;

/** The first option that shapes the lexical graph and differs between `made` and `now`, or null. */
export function shapingOptionMismatch(
  made: GraphOptions,
  now: GraphOptions,
): (typeof SHAPING_OPTIONS)[number] | null {
  const a = made as unknown as Record<string, unknown>;
  const b = now as unknown as Record<string, unknown>;
  return SHAPING_OPTIONS.find((key) => a[key] !== b[key]) ?? null;
}

/**
 * Why the keep-mask cannot apply to these chunks (sorted ids), build options and vector dimension, or null: the
 * cheap refusals, before any text is analysed.
 */
export function compactGraphMismatch(
  compact: CompactGraph,
  chunkIds: readonly string[],
  options: GraphOptions,
  dimension: number,
): string | null {
  const problem = compactGraphProblem(compact);
  if (problem) return problem;
  if (!sameItems(chunkIds, compact.chunkIds)) return 'it was built for another set of chunks';
  const key = shapingOptionMismatch(compact.options, options);
  if (key) {
    const made = compact.options as unknown as Record<string, unknown>;
    const now = options as unknown as Record<string, unknown>;
    return `option ${key} is ${String(now[key])}, the mask was made with ${String(made[key])}`;
  }
  if (dimension !== compact.dimension) {
    return `vectors have dimension ${dimension}, the mask was made with ${compact.dimension}`;
  }
  return null;
}

/** The stored concept table as a whole table (the concept → chunk side rebuilt), when the compact graph has one. */
export function storedConceptTable(
  compact: Pick<CompactGraph, 'chunkIds' | 'table'>,
): ConceptTable | undefined {
  const t = compact.table;
  return t && conceptTableFromChunks({ chunkCount: compact.chunkIds.length, ...t });
}

/** The counts a rebuilt lexical graph must have for the mask to index its edges, or why they differ. */
function countsMismatch(compact: CompactGraph, lexical: UnrankedIndex): string | null {
  const nc = lexical.table.terms.length;
  const edges = undirectedEdgeCount(lexical.cooccurrence);
  if (nc === compact.concepts && edges === compact.edges) return null;
  return `the rebuilt graph has ${nc} concepts and ${edges} edges, the mask ${compact.concepts} and ${compact.edges}`;
}

/**
 * The graph index from rebuilt lexical layers and the keep-mask: the walk graph is the mask's edges and its
 * PageRank, without any edge cosine. `conceptVectors` (concepts × dimension) becomes the semantic layer's as it
 * is: a caller may fill it after this returns (ConceptVectorBuilder), since neither the walk graph nor the ranks
 * read it while the options' θsem is the mask's. Throws, with the reason, when the counts or θsem differ.
 */
export function maskedGraphIndex(
  compact: CompactGraph,
  lexical: UnrankedIndex,
  conceptVectors: Float32Array,
  /** The walk graph when prebuildMaskedGraph made it, with `lexical` from the same call. */
  walk?: ConceptGraph,
): ConceptGraphIndex {
  const why = countsMismatch(compact, lexical);
  if (why) throw new Error(`compact graph: cannot apply the keep-mask: ${why}`);
  if (lexical.options.thetaSem !== compact.keepThetaSem) {
    throw new Error('compact graph: the keep-mask was made at another θsem (its cosines are needed)');
  }
  const layer: SemanticLayer = {
    dimension: compact.dimension,
    conceptVectors,
    keep: { thetaSem: compact.keepThetaSem, mask: compact.keepMask },
  };
  return withSemantic(lexical, layer, undefined, walk);
}

/** What opening a compact graph computes from its stored concept table alone, with no text and no vectors. */
export interface PrebuiltMaskedGraph {
  table: ConceptTable;
  cooccurrence: ConceptGraph;
  /** The co-occurrence graph with the keep-mask applied: the graph the walks use. */
  walk: ConceptGraph;
}

/**
 * The co-occurrence graph of a compact graph's stored table, and the mask applied to it: the largest step of opening
 * a library (0.7 s of 1.2 s on MuSiQue in the browser), which needs neither the text nor the vectors. The query
 * worker has another worker do it while it analyses the text (RetrievalEngine.fromCompact's `prebuilt`).
 * Undefined when the compact graph carries no table, its θsem or θco is not `options`', or the counts differ.
 */
export function prebuildMaskedGraph(
  compact: CompactGraph,
  options: GraphOptions,
): PrebuiltMaskedGraph | undefined {
  const table = storedConceptTable(compact);
  if (!table || options.thetaSem !== compact.keepThetaSem || options.thetaCo !== compact.options.thetaCo) {
    return undefined;
  }
  const lexical = lexicalLayersFromTable(compact.chunkIds, table, options);
  if (countsMismatch(compact, lexical)) return undefined;
  return {
    table,
    cooccurrence: lexical.cooccurrence,
    walk: filterByKeepMask(lexical.cooccurrence, compact.keepMask),
  };
}

/** Edges a keep-mask keeps (its set bits). */
function keptEdgeCount(mask: Uint8Array): number {
  let kept = 0;
  for (const byte of mask) for (let b = byte; b; b &= b - 1) kept++;
  return kept;
}
