// Turns the query worker's plain graph data into graphology graphs with positions, colours and sizes for sigma.
// The question's graph is laid out in columns, read left to right as the walk went: the question's seed concepts,
// the concepts that carried the walk's mass (one edge from a seed, then further on), the chunks they led to. A force layout would tangle the
// path from a question word to a piece of evidence; columns keep it a left-to-right reading, and ordering each
// column by its neighbours' places (barycentres) keeps the lines between columns short. The library map has no
// direction, so it gets a force layout (ForceAtlas2, run synchronously: the CSP allows no blob workers).
import Graph from 'graphology';
import { circular } from 'graphology-layout';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import type { LibraryGraph, QuestionGraph } from '../../services/questions/graphViewProtocol.ts';

type NodeKind = 'seed' | 'concept' | 'chunk' | 'library';

export interface NodeAttributes {
  x: number;
  y: number;
  size: number;
  label: string;
  color: string;
  kind: NodeKind;
  /** Evidence rank (chunks), 0-based; -1 when only listed under a concept. */
  rank?: number;
}

export interface EdgeAttributes {
  size: number;
  color: string;
}

export const COLORS = {
  seed: '#d97706',
  concept: '#2458c6',
  chunk: '#1d7a46',
  listed: '#8fb8a0',
  library: '#2458c6',
  focus: '#d97706',
  edge: '#c3cad6',
  link: '#9ccfae',
} as const;

export const conceptNode = (id: number): string => `c${id}`;
export const chunkNode = (chunkId: string): string => `k:${chunkId}`;

/**
 * The question's walk as a graph, in columns left to right: the seeds, the concepts one edge from a seed, the
 * concepts further on (and bridges), the evidence chunks in ranking order. Rows are spaced so the drawing's shape
 * is about the canvas's. Chunks only listed under a concept are not drawn (the side panel lists them when the
 * concept is chosen); edges inside a column are not drawn either (they would lie on top of each other).
 */
export function questionLayout(data: QuestionGraph): Graph<NodeAttributes, EdgeAttributes> {
  const graph = new Graph<NodeAttributes, EdgeAttributes>({ type: 'undirected', multi: false });
  const maxMass = Math.max(1e-12, ...data.seeds.map((s) => s.mass), ...data.concepts.map((c) => c.mass));
  const evidence = data.chunks.filter((c) => c.rank >= 0);
  const size = (mass: number): number => 5 + 11 * Math.sqrt(mass / maxMass);
  const hop = hopsFromSeeds(data);
  const far = data.concepts.some((c) => hop.get(c.id) === 2);
  const columns = [
    data.seeds.map((s) => conceptNode(s.id)),
    data.concepts.filter((c) => hop.get(c.id) !== 2).map((c) => conceptNode(c.id)),
    ...(far ? [data.concepts.filter((c) => hop.get(c.id) === 2).map((c) => conceptNode(c.id))] : []),
    evidence.map((c) => chunkNode(c.chunkId)),
  ];
  const column = new Map(columns.flatMap((nodes, i) => nodes.map((n) => [n, i] as const)));
  const rows = Math.max(...columns.map((c) => c.length), 2);
  // The canvas is about 1.9 : 1; the drawing 1.3 : 1, so the passages' labels have room on its right.
  const step = (1.3 * (rows - 1)) / Math.max(1, columns.length - 1);

  evidence.forEach((c) => {
    graph.addNode(chunkNode(c.chunkId), {
      x: 0,
      y: 0,
      size: 9 - Math.min(4, c.rank * 0.5),
      // The sentence the passage opens at says more than a title (a .jsonl passage may have none of its own).
      label: `#${c.rank + 1} ${short(c.sentence || c.title, 36)}`,
      color: COLORS.chunk,
      kind: 'chunk',
      rank: c.rank,
    });
  });
  // The seeds, then the concepts that carried the walk.
  [...data.seeds, ...data.concepts].forEach((c, i) => {
    const seed = i < data.seeds.length;
    graph.addNode(conceptNode(c.id), {
      x: 0,
      y: 0,
      size: size(c.mass),
      label: seed && !data.seeds[i].fromWords ? `${c.term} (meaning)` : c.term,
      color: seed ? COLORS.seed : COLORS.concept,
      kind: seed ? 'seed' : 'concept',
    });
  });
  const maxEdge = Math.max(1e-12, ...data.edges.map((e) => e.weight));
  for (const e of data.edges) {
    const a = conceptNode(e.source);
    const b = conceptNode(e.target);
    if (!graph.hasNode(a) || !graph.hasNode(b) || column.get(a) === column.get(b) || graph.hasEdge(a, b))
      continue;
    graph.addEdge(a, b, { size: 0.5 + 2.5 * (e.weight / maxEdge), color: COLORS.edge });
  }
  const maxLink = Math.max(1e-12, ...data.links.map((l) => l.contribution));
  for (const l of data.links) {
    const a = conceptNode(l.concept);
    const b = chunkNode(l.chunkId);
    if (graph.hasNode(a) && graph.hasNode(b) && !graph.hasEdge(a, b))
      graph.addEdge(a, b, { size: 0.5 + 3 * Math.sqrt(l.contribution / maxLink), color: COLORS.link });
  }
  // The chunks in ranking order, then each column from right to left by the mean row of its neighbours on the
  // right (barycentres): lines from a concept run to the rows it leads to.
  const y = new Map<string, number>();
  const spread = (nodes: string[]): void =>
    nodes.forEach((n, i) =>
      y.set(n, nodes.length === 1 ? (rows - 1) / 2 : (i * (rows - 1)) / (nodes.length - 1)),
    );
  spread(columns[columns.length - 1]);
  for (let i = columns.length - 2; i >= 0; i--) {
    const key = new Map<string, number>();
    for (const n of columns[i]) {
      const right = graph.neighbors(n).filter((m) => (column.get(m) ?? -1) > i && y.has(m));
      key.set(n, right.length ? right.reduce((a, m) => a + y.get(m)!, 0) / right.length : rows);
    }
    const ordered = [...columns[i]].sort((a, b) => key.get(a)! - key.get(b)! || (a < b ? -1 : 1));
    spread(ordered);
  }
  graph.updateEachNodeAttributes((n, a) => ({ ...a, x: (column.get(n) ?? 0) * step, y: -(y.get(n) ?? 0) }));
  return graph;
}

function short(text: string, chars: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > chars ? `${t.slice(0, chars - 1).trimEnd()}…` : t;
}

/** 1 for a concept sharing a drawn edge with a seed, 2 for the others (further along the walk, or bridges). */
function hopsFromSeeds(data: QuestionGraph): Map<number, number> {
  const seeds = new Set(data.seeds.map((s) => s.id));
  const hop = new Map<number, number>();
  for (const e of data.edges) {
    if (seeds.has(e.source) && !seeds.has(e.target)) hop.set(e.target, 1);
    if (seeds.has(e.target) && !seeds.has(e.source)) hop.set(e.source, 1);
  }
  for (const c of data.concepts) if (!hop.has(c.id)) hop.set(c.id, 2);
  return hop;
}

/** The library map: top concepts (or a concept and its neighbours), force-laid out. */
export function libraryLayout(data: LibraryGraph): Graph<NodeAttributes, EdgeAttributes> {
  const graph = new Graph<NodeAttributes, EdgeAttributes>({ type: 'undirected', multi: false });
  // Sizes spread over the drawn concepts' own range of PageRank, or of weighted degree over pages (the top 120 of
  // a large library are close).
  const ranks = data.nodes.map((n) => n.rank);
  const low = Math.min(...ranks);
  const span = Math.max(1e-12, Math.max(...ranks) - low);
  for (const n of data.nodes) {
    const focus = n.id === data.focus;
    graph.addNode(conceptNode(n.id), {
      x: 0,
      y: 0,
      size: focus ? 12 : 3 + 7 * Math.sqrt((n.rank - low) / span),
      label: n.term,
      color: focus ? COLORS.focus : COLORS.library,
      kind: 'library',
    });
  }
  const maxEdge = Math.max(1e-12, ...data.edges.map((e) => e.weight));
  for (const e of data.edges) {
    const a = conceptNode(e.source);
    const b = conceptNode(e.target);
    if (graph.hasNode(a) && graph.hasNode(b) && !graph.hasEdge(a, b))
      graph.addEdge(a, b, { size: 0.3 + 2 * (e.weight / maxEdge), color: COLORS.edge });
  }
  circular.assign(graph);
  if (graph.order > 1) {
    // LinLog mode pulls clusters apart (a few hundred edges among 120 concepts otherwise draw one tight ball).
    forceAtlas2.assign(graph, {
      iterations: 200,
      settings: {
        ...forceAtlas2.inferSettings(graph),
        linLogMode: true,
        scalingRatio: 20,
        gravity: 1,
        edgeWeightInfluence: 1,
      },
      getEdgeWeight: 'size',
    });
  }
  return graph;
}
