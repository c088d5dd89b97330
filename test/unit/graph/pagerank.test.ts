import Graph from 'graphology';
import graphologyPagerank from 'graphology-metrics/centrality/pagerank.js';
import { describe, expect, it } from 'vitest';
import type { ConceptGraph } from '../../../src/core/graph/cooccurrence.ts';
import { PersonalizedPageRank, pagerank } from '../../../src/core/graph/pagerank.ts';

/** Symmetric CSR from an undirected weighted edge list. */
function csr(n: number, list: Array<[number, number, number]>): ConceptGraph {
  const rows: Array<Array<[number, number]>> = Array.from({ length: n }, () => []);
  for (const [u, v, w] of list) {
    rows[u].push([v, w]);
    rows[v].push([u, w]);
  }
  const offsets = new Uint32Array(n + 1);
  const targets: number[] = [];
  const weights: number[] = [];
  rows.forEach((r, u) => {
    r.sort((a, b) => a[0] - b[0]);
    for (const [v, w] of r) {
      targets.push(v);
      weights.push(w);
    }
    offsets[u + 1] = targets.length;
  });
  return {
    nodeCount: n,
    offsets,
    targets: Uint32Array.from(targets),
    co: new Uint32Array(targets.length).fill(1),
    weights: Float32Array.from(weights),
  };
}

// Five nodes: a weighted triangle 0-1-2, a tail 2-3, and node 4 isolated (dangling).
const EDGES: Array<[number, number, number]> = [
  [0, 1, 0.5],
  [1, 2, 1],
  [0, 2, 0.25],
  [2, 3, 0.75],
];
const G = csr(5, EDGES);

/** Straightforward dense personalized PageRank by power iteration, dangling mass back to the restart vector. */
function referencePpr(g: ConceptGraph, s: number[], damping: number): number[] {
  const n = g.nodeCount;
  const deg = Array.from({ length: n }, (_, u) => {
    let d = 0;
    for (let e = g.offsets[u]; e < g.offsets[u + 1]; e++) d += g.weights[e];
    return d;
  });
  let x = [...s];
  for (let it = 0; it < 500; it++) {
    const next = s.map((v) => (1 - damping) * v);
    let dangling = 0;
    for (let u = 0; u < n; u++) {
      if (deg[u] === 0) {
        dangling += x[u];
        continue;
      }
      for (let e = g.offsets[u]; e < g.offsets[u + 1]; e++) {
        next[g.targets[e]] += (damping * x[u] * g.weights[e]) / deg[u];
      }
    }
    for (let u = 0; u < n; u++) next[u] += damping * dangling * s[u];
    x = next;
  }
  return x;
}

describe('pagerank (global)', () => {
  it('equals graphology-metrics weighted pagerank to 1e-3', () => {
    const graph = new Graph({ type: 'undirected' });
    for (let i = 0; i < 5; i++) graph.addNode(String(i));
    for (const [u, v, w] of EDGES) graph.addEdge(String(u), String(v), { weight: w });
    const expected = graphologyPagerank(graph, { getEdgeWeight: 'weight', alpha: 0.85 });
    const got = pagerank(G, { damping: 0.85 });
    for (let i = 0; i < 5; i++) expect(got[i]).toBeCloseTo(expected[String(i)], 3);
    expect(got.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
    // Node 2 has the most weight around it; the isolated node gets only teleport mass.
    expect(Math.max(...got)).toBe(got[2]);
    expect(got[4]).toBe(Math.min(...got));
  });

  it('reports non-convergence and bad damping', () => {
    expect(() => pagerank(G, { maxIterations: 1, tolerance: 1e-12 })).toThrow(/did not converge/);
    expect(() => pagerank(G, { damping: 1 })).toThrow(/damping/);
    expect(pagerank(csr(0, [])).length).toBe(0);
  });
});

describe('PersonalizedPageRank (forward push)', () => {
  it('matches dense power iteration to 1e-3 for a single seed', () => {
    const walker = new PersonalizedPageRank(G);
    const { scores } = walker.run(new Map([[0, 1]]), 0.5, 1e-7);
    const ref = referencePpr(G, [1, 0, 0, 0, 0], 0.5);
    for (let i = 0; i < 5; i++) expect(scores[i]).toBeCloseTo(ref[i], 3);
    expect(scores[4]).toBe(0); // unreachable from the seed
  });

  it('matches for weighted seeds including a dangling node, and reuses its buffers between runs', () => {
    const walker = new PersonalizedPageRank(G);
    walker.run(new Map([[3, 1]]), 0.85, 1e-7);
    const { scores, nodes } = walker.run(
      new Map([
        [1, 3],
        [4, 1],
      ]),
      0.85,
      1e-7,
    );
    const ref = referencePpr(G, [0, 0.75, 0, 0, 0.25], 0.85);
    for (let i = 0; i < 5; i++) expect(scores[i]).toBeCloseTo(ref[i], 3);
    expect(Array.from(nodes).sort()).toEqual([0, 1, 2, 3, 4]);
    let total = 0;
    for (let i = 0; i < 5; i++) total += scores[i];
    expect(total).toBeGreaterThan(0.99);
  });

  it('a coarse epsilon touches only the seed neighbourhood', () => {
    // Path 0-1-2-...-9: with a large epsilon the push stops before the far end.
    const path = csr(
      10,
      Array.from({ length: 9 }, (_, i) => [i, i + 1, 1] as [number, number, number]),
    );
    const { nodes } = new PersonalizedPageRank(path).run(new Map([[0, 1]]), 0.5, 0.01);
    expect(nodes.length).toBeLessThan(10);
    expect(Array.from(nodes)).toContain(1);
  });

  it('rejects bad seeds and parameters', () => {
    const walker = new PersonalizedPageRank(G);
    expect(() => walker.run(new Map([[9, 1]]), 0.5, 1e-6)).toThrow(/out of range/);
    expect(() => walker.run(new Map([[0, 1]]), 0.5, 0)).toThrow(/epsilon/);
    expect(walker.run(new Map(), 0.5, 1e-6).nodes.length).toBe(0);
  });
});

describe('PersonalizedPageRank over rows whose stored degrees lie (issue 43)', () => {
  // A triangle, each edge 1: every degree is 2.
  const rows = {
    nodeCount: 3,
    row: (u: number) => {
      const targets = [0, 1, 2].filter((v) => v !== u);
      return { targets, weights: [1, 1] };
    },
  };
  const tiny = new Float64Array(3).fill(1e-300);

  it('divides by the row it pushes along, and refuses a stored degree the row does not sum to', () => {
    // Before: the push divided by the stored 1e-300, the residuals reached Infinity and the walk never ended.
    const walker = new PersonalizedPageRank(rows, tiny);
    expect(() => walker.run(new Map([[0, 1]]), 0.85, 1e-5)).toThrow(
      /node 0's degree is stored as 1e-300 but its row sums to 2/,
    );
    const told: number[] = [];
    const named = new PersonalizedPageRank(rows, {
      lower: () => 0,
      upper: () => 1,
      exact: () => 0.5,
      differs: (u, stored, computed) => {
        told.push(u, computed);
        throw new Error(`refused ${stored}`);
      },
    });
    expect(() => named.run(new Map([[1, 1]]), 0.85, 1e-5)).toThrow('refused between 0 and 1');
    expect(told).toEqual([1, 2]);
  });

  it('ends within its push bound on honest rows and matches the walk in memory', () => {
    const honest = new PersonalizedPageRank(rows, new Float64Array(3).fill(2));
    const inMemory = new PersonalizedPageRank(
      csr(3, [
        [0, 1, 1],
        [1, 2, 1],
        [0, 2, 1],
      ]),
    );
    const a = honest.run(new Map([[0, 1]]), 0.85, 1e-6);
    const scoresA = Array.from(a.nodes, (v) => a.scores[v]);
    const b = inMemory.run(new Map([[0, 1]]), 0.85, 1e-6);
    expect(scoresA).toEqual(Array.from(b.nodes, (v) => b.scores[v]));
  });
});

describe('PersonalizedPageRank.nearlyPushed (round twenty-two)', () => {
  // 0 –1– 1 –99– 3 and 0 –3– 2 –397– 3: degrees 4, 100, 400, 496. From seed 0 (d 0.85, ε 0.0025) the walk pushes 0 only:
  // 1 gets 0.85·1/4 = 0.2125 of the 0.25 that would push it (0.85 of it), 2 gets 0.85·3/4 = 0.6375 of 1 (0.6375).
  const edges: Record<number, Array<[number, number]>> = {
    0: [
      [1, 1],
      [2, 3],
    ],
    1: [
      [0, 1],
      [3, 99],
    ],
    2: [
      [0, 3],
      [3, 397],
    ],
    3: [
      [1, 99],
      [2, 397],
    ],
  };
  const degrees = new Float64Array([4, 100, 400, 496]);
  const rowsOf = (missing: number[] = []) => ({
    nodeCount: 4,
    row: (u: number) =>
      missing.includes(u)
        ? undefined
        : { targets: edges[u].map(([v]) => v), weights: edges[u].map(([, w]) => w) },
  });

  it('names the nodes the walk did not push that hold a share of what would push them, nearest first', () => {
    const walker = new PersonalizedPageRank(rowsOf(), degrees);
    const { nodes } = walker.run(new Map([[0, 1]]), 0.85, 0.0025);
    expect(Array.from(nodes).sort()).toEqual([0, 1, 2]);
    expect(walker.nearlyPushed(0.0025, 0.5, 10)).toEqual([1, 2]);
    expect(walker.nearlyPushed(0.0025, 0.7, 10)).toEqual([1]);
    expect(walker.nearlyPushed(0.0025, 0.5, 1)).toEqual([1]);
    expect(walker.nearlyPushed(0.0025, 0.9, 10)).toEqual([]);
  });

  it('leaves out a node it would push but could not (its row missing): that one is wanted already', () => {
    const walker = new PersonalizedPageRank(rowsOf([0]), degrees);
    walker.run(new Map([[0, 1]]), 0.85, 0.0025);
    expect(walker.nearlyPushed(0.0025, 0.1, 10)).toEqual([]);
  });

  it('counts its walks, and names nothing over a graph in memory (its rows are all there)', () => {
    const walker = new PersonalizedPageRank(
      csr(4, [
        [0, 1, 1],
        [0, 2, 3],
        [1, 3, 99],
        [2, 3, 397],
      ]),
    );
    expect(walker.runs).toBe(0);
    walker.run(new Map([[0, 1]]), 0.85, 0.0025);
    expect(walker.runs).toBe(1);
    expect(walker.nearlyPushed(0.0025, 0.5, 10)).toEqual([]);
  });
});

describe('PersonalizedPageRank with held nodes (round twenty-four: the walk’s hubs)', () => {
  // A star: hub 0 joined to 1, 2, 3 (weight 1 each), and 1 –1– 2. From seed 1 the walk pushes the hub unless held.
  const star = csr(4, [
    [0, 1, 1],
    [0, 2, 1],
    [0, 3, 1],
    [1, 2, 1],
  ]);
  const degrees = Float64Array.from([3, 2, 2, 1]);
  const rowsOf = (asked: number[]) => rowsOver(star, asked);
  const scoresOf = (run: { nodes: Uint32Array; scores: Float64Array }) =>
    Object.fromEntries(Array.from(run.nodes, (v) => [v, run.scores[v]]));

  it('never pushes a held node nor asks for its row, and the walks in memory and over rows agree', () => {
    const asked: number[] = [];
    const overRows = new PersonalizedPageRank(rowsOf(asked), degrees);
    const held = (u: number) => u === 0;
    const a = overRows.run(new Map([[1, 1]]), 0.85, 1e-6, held);
    expect(asked).not.toContain(0);
    expect(a.scores[0]).toBe(0);
    // 3 is reached only through the hub.
    expect(a.scores[3]).toBe(0);
    const b = new PersonalizedPageRank(star).run(new Map([[1, 1]]), 0.85, 1e-6, held);
    expect(scoresOf(a)).toEqual(scoresOf(b));
    expect(overRows.nearlyPushed(1e-6, 0, 10)).not.toContain(0);
  });

  it('without held nodes pushes the hub as before', () => {
    const asked: number[] = [];
    const a = new PersonalizedPageRank(rowsOf(asked), degrees).run(new Map([[1, 1]]), 0.85, 1e-6);
    expect(asked).toContain(0);
    expect(a.scores[0]).toBeGreaterThan(0);
    expect(a.scores[3]).toBeGreaterThan(0);
  });
});

describe('PersonalizedPageRank over rows: what it asks of the degree brackets (round twenty-seven)', () => {
  // A star: seed 0 joined to 1..100 (weight 1 each, degree 100; each leaf degree 1). Pushing 0 (d 0.85) leaves each
  // leaf 0.0085: below ε = 0.01, below what any bracket could push.
  const leaves = Array.from({ length: 100 }, (_, i) => i + 1);
  const star = csr(
    101,
    leaves.map((v): [number, number, number] => [0, v, 1]),
  );
  const degrees = weightedDegreesOf(star);
  const rows = rowsOver(star);
  const counted = (asked: number[]) => ({
    lower: (u: number) => (asked.push(u), degrees[u]),
    upper: (u: number) => (asked.push(u), degrees[u]),
    exact: (u: number) => (asked.push(u), degrees[u]),
  });
  const scoresOf = (run: { nodes: Uint32Array; scores: Float64Array }) =>
    Object.fromEntries(Array.from(run.nodes, (v) => [v, run.scores[v]]));

  it('asks no bracket of a target whose residual is below ε, and walks as the walk in memory', () => {
    const asked: number[] = [];
    const walker = new PersonalizedPageRank(rows, counted(asked));
    const a = walker.run(new Map([[0, 1]]), 0.85, 0.01);
    expect(new Set(asked)).toEqual(new Set([0]));
    const b = new PersonalizedPageRank(star).run(new Map([[0, 1]]), 0.85, 0.01);
    expect(scoresOf(a)).toEqual(scoresOf(b));
    // Each leaf holds 0.85 of what would push it: named at a share of 0.8, not at 0.9.
    expect(walker.nearlyPushed(0.01, 0.8, 200)).toEqual(leaves);
    expect(walker.nearlyPushed(0.01, 0.9, 200)).toEqual([]);
    // At ε = 0.05 a leaf holds 0.17 of it: far below a share of 0.8, no bracket asked.
    asked.length = 0;
    expect(walker.nearlyPushed(0.05, 0.8, 200)).toEqual([]);
    expect(asked).toEqual([]);
  });
});

/** The graph's rows as the walk over rows reads them (a paged library's), each row asked noted in `asked`. */
function rowsOver(g: ConceptGraph, asked: number[] = []) {
  return {
    nodeCount: g.nodeCount,
    row: (u: number) => {
      asked.push(u);
      const targets: number[] = [];
      const weights: number[] = [];
      for (let e = g.offsets[u]; e < g.offsets[u + 1]; e++) {
        targets.push(g.targets[e]);
        weights.push(g.weights[e]);
      }
      return { targets, weights };
    },
  };
}

function weightedDegreesOf(g: ConceptGraph): Float64Array {
  const out = new Float64Array(g.nodeCount);
  for (let u = 0; u < g.nodeCount; u++)
    for (let e = g.offsets[u]; e < g.offsets[u + 1]; e++) out[u] += g.weights[e];
  return out;
}

describe('PersonalizedPageRank over rows: one walker, walk after walk (round thirty)', () => {
  // The walk's inner loop keeps a node's two marks (reached, queued) in one byte and asks them in the loop itself: a
  // node popped is queued again when more residual reaches it, stays reached, and is reset for the next walk. Random
  // weighted graphs with hubs, seeds of one to four nodes, eight walks on one walker: the walk over rows must touch the
  // nodes the walk in memory touches, in its order, once each, with the same scores bit for bit.
  function randomGraph(n: number, seed: number): ConceptGraph {
    let x = seed;
    const next = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
    const edges = new Map<string, [number, number, number]>();
    for (let u = 0; u < n; u++) {
      const links = u % 17 === 0 ? 40 : 1 + Math.floor(next() * 4);
      for (let i = 0; i < links; i++) {
        const v = Math.floor(next() * n);
        if (v !== u) edges.set(`${Math.min(u, v)} ${Math.max(u, v)}`, [u, v, Math.fround(0.05 + next())]);
      }
    }
    return csr(n, [...edges.values()]);
  }

  it('walks as the walk in memory, each node once, walk after walk', () => {
    for (const graphSeed of [1, 2, 3]) {
      const g = randomGraph(300, graphSeed);
      const overRows = new PersonalizedPageRank(rowsOver(g), weightedDegreesOf(g));
      const inMemory = new PersonalizedPageRank(g);
      for (let walk = 0; walk < 8; walk++) {
        const seeds = new Map<number, number>();
        for (let i = 0; i <= walk % 4; i++) seeds.set((walk * 37 + i * 101 + graphSeed) % 300, 1 + i);
        const a = overRows.run(seeds, 0.85, 1e-4);
        const nodes = Array.from(a.nodes);
        const scores = nodes.map((v) => a.scores[v]);
        const b = inMemory.run(seeds, 0.85, 1e-4);
        expect(new Set(nodes).size).toBe(nodes.length);
        expect(nodes).toEqual(Array.from(b.nodes));
        expect(scores).toEqual(Array.from(b.nodes, (v) => b.scores[v]));
        expect(nodes.length).toBeGreaterThan(20);
      }
    }
  });
});
