// The concept graph of a lexical-only library as bundles carry it: the concept table (each chunk's keyphrases
// with their weights, ~5 MB for 18,000 chunks) without the edges. Choosing keyphrases is most of the cost of
// opening a library (4 of 8 s on a 16 MB mixed library); the co-occurrence edges follow from the table in about a
// second and would be 9 M edges (~100 MB) to store. A library with vectors carries the compact graph instead
// (compactGraph.ts: the same table plus the θsem keep-mask).
import { sameItems } from './concepts.ts';
import {
  conceptTableProblem,
  hasGraphFormat,
  shapingOptionMismatch,
  storedTableOf,
  storedConceptTable,
  type CompactConceptTable,
} from './compactGraph.ts';
import {
  lexicalLayersFromTable,
  withRanks,
  type ConceptGraphIndex,
  type GraphOptions,
  type SerializedGraph,
} from './conceptGraph.ts';
import { undirectedEdgeCount } from './semanticEdges.ts';

export interface ConceptTableGraph {
  format: 'conceptrag-concept-table';
  version: 1;
  /** The options the table was chosen with (keyphrase and df settings) and its edges built at. */
  options: GraphOptions;
  chunkIds: string[];
  /** Concepts and undirected co-occurrence edges of the graph: the rebuilt one must have the same. */
  concepts: number;
  edges: number;
  table: CompactConceptTable;
}

export function isConceptTableGraph(value: unknown): value is ConceptTableGraph {
  return hasGraphFormat(value, 'conceptrag-concept-table');
}

/** The table form of a lexical-only serialized graph; undefined for one with a semantic layer (see compactGraph). */
export function conceptTableGraph(full: SerializedGraph): ConceptTableGraph | undefined {
  if (full.semantic) return undefined;
  return {
    format: 'conceptrag-concept-table',
    version: 1,
    options: { ...full.options },
    chunkIds: [...full.chunkIds],
    concepts: full.terms.length,
    edges: full.edgeTargets.length / 2,
    table: storedTableOf(full),
  };
}

/** Why a table graph read from a bundle (untrusted) is unusable, or null. */
export function conceptTableGraphProblem(value: ConceptTableGraph): string | null {
  if (value.version !== 1) return `unknown version ${String(value.version)}`;
  if (!Array.isArray(value.chunkIds)) return 'chunkIds is not a list';
  if (!Number.isInteger(value.edges) || value.edges < 0) return `edge count ${String(value.edges)}`;
  if (typeof value.options !== 'object' || value.options === null) return 'options missing';
  if (typeof value.table !== 'object' || value.table === null) return 'concept table missing';
  const why = conceptTableProblem(value.table, value.concepts, value.chunkIds.length);
  return why && `concept table: ${why}`;
}

/**
 * The ranked lexical graph of a table graph for these chunks (sorted ids) and options, or why it does not apply:
 * other chunks, other concept-shaping options, or edges that do not come out as counted (a table altered after
 * it was made).
 */
export function graphFromConceptTable(
  stored: ConceptTableGraph,
  chunkIds: readonly string[],
  options: GraphOptions,
): ConceptGraphIndex | string {
  const problem = conceptTableGraphProblem(stored);
  if (problem) return problem;
  if (!sameItems(chunkIds, stored.chunkIds)) return 'it was built for another set of chunks';
  const key = shapingOptionMismatch(stored.options, options);
  if (key) return `it was made with another ${key}`;
  const table = storedConceptTable({ chunkIds: stored.chunkIds, table: stored.table });
  if (!table) return 'concept table missing';
  const lexical = lexicalLayersFromTable(chunkIds, table, options);
  const edges = undirectedEdgeCount(lexical.cooccurrence);
  if (edges !== stored.edges) return `the table gives ${edges} edges, not ${stored.edges}`;
  return withRanks(lexical);
}

/** The options a graph index's edges and ranks depend on. */
const GRAPH_OPTION_KEYS: readonly (keyof GraphOptions)[] = [
  'conceptsPerChunk',
  'maxDfFraction',
  'minDfCap',
  'thetaCo',
  'thetaSem',
  'globalDamping',
];

/** Whether a graph index made with `made` has the edges and ranks one made with `now` would have. */
export function sameGraphOptions(made: GraphOptions, now: GraphOptions): boolean {
  return GRAPH_OPTION_KEYS.every((key) => made[key] === now[key]);
}

/**
 * graphFromConceptTable over the table's own chunks, its PageRanks computed now (not on first read) and every part a
 * plain field, so that another worker can make it and send it with its arrays transferred: the graph worker does so
 * while the query worker reads and analyses the text (src/services/library/graphPrebuild.ts). Undefined when the
 * table does not give the graph it counts.
 */
export function prebuildTableGraph(
  stored: ConceptTableGraph,
  options: GraphOptions,
): ConceptGraphIndex | undefined {
  const index = graphFromConceptTable(stored, stored.chunkIds, options);
  if (typeof index === 'string') return undefined;
  const { chunkIds, table, cooccurrence, graph, conceptRank, chunkRank } = index;
  return { chunkIds, table, cooccurrence, graph, conceptRank, chunkRank, options: { ...options } };
}
