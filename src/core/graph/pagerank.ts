// Weighted PageRank over the CSR concept graph: the global rank (same definition as graphology-metrics'
// pagerank, checked against it in the tests) and personalized PageRank by forward push. Own typed-array code
// instead of a graphology Graph because a graph of millions of edges as graphology objects costs hundreds of MB
// and seconds to build in a worker, and the query-time walk has to touch only the seeds' neighbourhood.
import type { ConceptGraph } from './cooccurrence.ts';

const defaults = {
  /** Probability of following an edge (graphology's alpha). */
  damping: 0.85,
  maxIterations: 100,
  /** Stop when the L1 change is below nodeCount·tolerance (graphology's criterion). */
  tolerance: 1e-6,
};

export type PageRankOptions = typeof defaults;

const PAGERANK_DEFAULTS: Readonly<PageRankOptions> = Object.freeze(defaults);

/** Sum of edge weights of every node. */
export function weightedDegrees(graph: ConceptGraph): Float64Array {
  const deg = new Float64Array(graph.nodeCount);
  for (let u = 0; u < graph.nodeCount; u++) {
    let s = 0;
    for (let e = graph.offsets[u]; e < graph.offsets[u + 1]; e++) s += graph.weights[e];
    deg[u] = s;
  }
  return deg;
}

/**
 * Global weighted PageRank; dangling nodes spread their mass uniformly. Throws if it does not converge. `initial`
 * (a distribution over the nodes, e.g. the ranks before a few documents were added) only changes where the
 * iteration starts — the fixed point and the stopping rule are the same — so after a small change the rule is met
 * sooner (MuSiQue, 10 passages added: 1 sweep instead of 3).
 */
export function pagerank(
  graph: ConceptGraph,
  options: Partial<PageRankOptions> = {},
  initial?: Float64Array,
): Float64Array {
  const { damping, maxIterations, tolerance } = { ...PAGERANK_DEFAULTS, ...options };
  checkDamping(damping);
  const n = graph.nodeCount;
  if (n === 0) return new Float64Array(0);
  if (initial && initial.length !== n) {
    throw new Error(`pagerank: initial ranks have ${initial.length} entries for ${n} nodes`);
  }
  const deg = weightedDegrees(graph);
  let x = initial ? Float64Array.from(initial) : new Float64Array(n).fill(1 / n);
  let next = new Float64Array(n);
  for (let it = 0; it < maxIterations; it++) {
    let dangling = 0;
    for (let u = 0; u < n; u++) if (deg[u] === 0) dangling += x[u];
    const base = (damping * dangling + (1 - damping)) / n;
    next.fill(base);
    for (let u = 0; u < n; u++) {
      if (deg[u] === 0) continue;
      const share = (damping * x[u]) / deg[u];
      for (let e = graph.offsets[u]; e < graph.offsets[u + 1]; e++)
        next[graph.targets[e]] += share * graph.weights[e];
    }
    let err = 0;
    for (let u = 0; u < n; u++) err += Math.abs(next[u] - x[u]);
    [x, next] = [next, x];
    if (err < n * tolerance) return x;
  }
  throw new Error(`pagerank: did not converge in ${maxIterations} iterations (tolerance ${tolerance})`);
}

function checkDamping(damping: number): void {
  if (!(damping >= 0 && damping < 1)) throw new Error(`pagerank: damping must be in [0, 1), got ${damping}`);
}

/**
 * A walk graph whose rows are found as the walk reaches them (a library read by ranges computes a concept's row from
 * the chunks it shares): `row(u)` is u's out-edges ascending by target, or undefined when they are not at hand yet
 * (the walk then goes on without them, and its caller runs it again once they are loaded).
 */
export interface RowSource {
  readonly nodeCount: number;
  /** A row's `degree`, when given, is the f64 sum of its weights in order (its weighted degree). */
  row(u: number): { targets: ArrayLike<number>; weights: ArrayLike<number>; degree?: number } | undefined;
}

/**
 * The weighted degrees of a graph read by rows, where only a bracket of each is at hand (a library read by ranges
 * keeps one byte a concept, src/core/paged/compactOpen.ts): lower(u) ≤ degree(u) ≤ upper(u), both 0 exactly when u
 * has no edge. The walk's every test `r ≥ ε·max(degree, 1)` is decided by the bracket when r lies outside it, and
 * asks `exact` only when it lies inside; undefined there means not at hand yet (the caller runs the walk again once
 * it is, as for a missing row).
 */
export interface WalkDegrees {
  lower(u: number): number;
  upper(u: number): number;
  exact(u: number): number | undefined;
  /**
   * Called when u's row, read to push along it, sums to a degree its stored one does not match (outside the bracket,
   * or not the exact degree the walk was told): the stored degrees are damaged or forged, and the caller refuses them
   * by name. Without it the walk throws a plain error.
   */
  differs?(u: number, stored: string, computed: number): never;
}

/** Exact degrees as brackets of width 0. */
export function exactDegrees(degrees: Float64Array, differs?: WalkDegrees['differs']): WalkDegrees {
  return {
    lower: (u) => degrees[u],
    upper: (u) => degrees[u],
    exact: (u) => degrees[u],
    ...(differs ? { differs } : {}),
  };
}

/**
 * How far a row's summed degree may sit from the stored one and still be the same (both are f64 sums of the same
 * float32 weights in the same order, so in practice they are equal; the brackets are 6.25% wide).
 */
const DEGREE_TOLERANCE = 1e-9;

function sameDegree(stored: number, computed: number): boolean {
  return Math.abs(stored - computed) <= DEGREE_TOLERANCE * Math.max(1, Math.abs(computed));
}

/**
 * Pushes a walk may make before it is stopped as diverging. Every push moves at least (1 − damping)·ε of residual
 * into the scores, and with each row's degree its weights' own sum the residuals and scores together never exceed 1,
 * so an honest walk makes at most 1 / ((1 − damping)·ε) pushes (Andersen, Chung & Lang 2006); twice that, plus one
 * for each node, leaves room for rounding. A walk past it met degrees or weights that do not add up.
 */
function maxPushes(damping: number, epsilon: number, nodeCount: number): number {
  return Math.ceil(2 / ((1 - damping) * epsilon)) + nodeCount;
}

/** The weighted degrees of a graph in memory; a RowSource's are given with it (they need every row). */
function degreesOf(graph: ConceptGraph | RowSource): Float64Array {
  if ('row' in graph) throw new Error('personalized pagerank: a graph read by rows needs its degrees');
  return weightedDegrees(graph);
}

/** The f64 sum of a row's weights, in order (as weightedDegrees sums them). */
function rowDegree(row: { weights: ArrayLike<number>; degree?: number }): number {
  if (row.degree !== undefined) return row.degree;
  let s = 0;
  for (let e = 0; e < row.weights.length; e++) s += row.weights[e];
  return s;
}

/** PersonalizedPageRank's flags of a node: reached by the walk, and waiting in its queue. */
const TOUCHED = 1;
const QUEUED = 2;

/** Reusable scratch space for personalized PageRank queries on one graph (avoids allocating per query). */
export class PersonalizedPageRank {
  private readonly p: Float64Array;
  private readonly r: Float64Array;
  /**
   * Per node, TOUCHED and QUEUED in one byte: the walk over rows reads both of each target it reaches (scattered over
   * the library's concepts, 591,013 at 100 MiB), and resets both of each node it touched; one array, one cache miss.
   */
  private readonly flags: Uint8Array;
  private touched: Uint32Array;
  private touchedCount = 0;
  private queue: Uint32Array;
  /** The degrees of a graph in memory (and of a RowSource given them whole). */
  private readonly degrees: Float64Array | undefined;
  /** The degrees of a RowSource. */
  private readonly walkDegrees: WalkDegrees | undefined;

  constructor(
    private readonly graph: ConceptGraph | RowSource,
    degrees: Float64Array | WalkDegrees = degreesOf(graph),
  ) {
    if (degrees instanceof Float64Array) this.degrees = degrees;
    if ('row' in graph) this.walkDegrees = degrees instanceof Float64Array ? exactDegrees(degrees) : degrees;
    else if (!this.degrees)
      throw new Error('personalized pagerank: a graph in memory takes its degrees whole');
    const n = graph.nodeCount;
    this.p = new Float64Array(n);
    this.r = new Float64Array(n);
    this.flags = new Uint8Array(n);
    this.touched = new Uint32Array(Math.max(16, Math.min(n, 4096)));
    this.queue = new Uint32Array(Math.max(16, n));
  }

  /**
   * Approximates x = (1−d)·s + d·(Wᵀ D⁻¹ x) for restart distribution s (seeds, weights normalized to sum 1), with
   * the mass of dangling nodes sent back to s. Forward push (Andersen, Chung & Lang 2006): a node is pushed while
   * its residual exceeds epsilon·max(degree, 1); the error per node is bounded by that residual, and only the
   * seeds' neighbourhood is ever touched. Returns the touched nodes and their scores (a view valid until the next
   * call).
   *
   * `held` (issue 47, the walk's hubs): a node it names is never pushed — it keeps its residual (the walk's error
   * there), gets no score and its row and exact degree are never asked for. A library read by ranges computes a
   * pushed concept's row from the rows of all its chunks, so a concept in thousands of chunks costs megabytes to
   * push; holding it is decided from what both walkers know alike (retrieval/pprSearch.ts: its df), so the walk in
   * memory and the one over rows take the same steps. Without it every node is pushed as before.
   */
  run(
    seeds: ReadonlyMap<number, number>,
    damping: number,
    epsilon: number,
    held?: (u: number) => boolean,
  ): { nodes: Uint32Array; scores: Float64Array } {
    this.walks++;
    this.held = held;
    checkDamping(damping);
    if (!(epsilon > 0)) throw new Error(`personalized pagerank: epsilon must be > 0, got ${epsilon}`);
    const { graph, p, r, flags } = this;
    this.reset();
    let total = 0;
    for (const [node, w] of seeds) {
      if (!(node >= 0 && node < graph.nodeCount))
        throw new Error(`personalized pagerank: seed ${node} out of range`);
      if (w > 0) total += w;
    }
    if (total === 0) return { nodes: new Uint32Array(0), scores: p };
    const seedNodes: number[] = [];
    const seedWeights: number[] = [];
    for (const [node, w] of seeds) {
      if (w <= 0) continue;
      seedNodes.push(node);
      seedWeights.push(w / total);
    }
    // Circular queue: each node is in it at most once, so capacity nodeCount suffices.
    const cap = this.queue.length;
    let head = 0;
    let size = 0;
    const push = (v: number): void => {
      if ((flags[v] & QUEUED) !== 0 || held?.(v)) return;
      flags[v] |= QUEUED;
      this.queue[(head + size) % cap] = v;
      size++;
    };
    for (let i = 0; i < seedNodes.length; i++) {
      this.touch(seedNodes[i]);
      r[seedNodes[i]] += seedWeights[i];
      push(seedNodes[i]);
    }
    const restart = 1 - damping;
    let pushes = 0;
    const pushLimit = maxPushes(damping, epsilon, graph.nodeCount);
    const diverged = (): never => {
      throw new Error(
        `personalized pagerank: the walk did not settle in ${pushLimit} pushes (its degrees or weights do not add up)`,
      );
    };
    if ('row' in graph) {
      // A graph read by rows: the same steps, with its rows found on demand and its degrees in brackets.
      const deg = this.walkDegrees!;
      // r[v] ≥ ε·max(deg(v), 1), told by v's bracket when it can be, else by v's exact degree. Asked only of a v not
      // in the queue (push would do nothing), so that a residual growing in the queue asks for no degree.
      const reaches = (v: number): boolean => {
        const rv = r[v];
        // Below ε no bracket can push it (ε·max(deg, 1) ≥ ε): most targets of a row stay there, and their bracket is
        // two or three reads scattered over the library's concepts (the walk's largest share of a question's CPU,
        // round twenty-seven). The same answer as the tests below, asked in another order: none has a side effect.
        if (rv < epsilon) return false;
        // A held node first: its exact degree would read its row.
        if ((flags[v] & QUEUED) !== 0 || held?.(v)) return false;
        if (rv < epsilon * Math.max(deg.lower(v), 1)) return false;
        if (rv >= epsilon * Math.max(deg.upper(v), 1)) return true;
        const d = deg.exact(v);
        return d !== undefined && rv >= epsilon * Math.max(d, 1);
      };
      const refuse = (u: number, stored: string, computed: number): never => {
        if (deg.differs) return deg.differs(u, stored, computed);
        throw new Error(
          `personalized pagerank: node ${u}'s degree is stored as ${stored} but its row sums to ${computed}`,
        );
      };
      while (size > 0) {
        const u = this.queue[head];
        head = (head + 1) % cap;
        size--;
        flags[u] &= ~QUEUED;
        const ru = r[u];
        const lower = deg.lower(u);
        if (ru < epsilon * Math.max(lower, 1)) continue;
        const upper = deg.upper(u);
        // The exact degree, when the bracket alone cannot tell whether u is pushed.
        let told: number | undefined;
        if (lower !== upper && ru < epsilon * Math.max(upper, 1)) {
          told = deg.exact(u);
          if (told === undefined || ru < epsilon * Math.max(told, 1)) continue;
        }
        // A push divides u's residual by its degree: always the sum of the row it is pushed along (computed from the
        // data, never taken from what is stored), checked against the stored one. Only a degree stored as 0 reads no
        // row (u has no edge: its mass goes back to the seeds, which keeps the walk's mass whatever the truth).
        let row: ReturnType<RowSource['row']>;
        let du = 0;
        if (upper !== 0) {
          row = graph.row(u);
          if (!row) continue;
          du = rowDegree(row);
          if (!(du >= lower * (1 - DEGREE_TOLERANCE) && du <= upper * (1 + DEGREE_TOLERANCE)))
            refuse(u, lower === upper ? String(upper) : `between ${lower} and ${upper}`, du);
          if (told !== undefined && !sameDegree(told, du)) refuse(u, String(told), du);
        }
        if (++pushes > pushLimit) diverged();
        r[u] = 0;
        p[u] += restart * ru;
        const spread = damping * ru;
        if (!(du > 0)) {
          for (let i = 0; i < seedNodes.length; i++) {
            const v = seedNodes[i];
            r[v] += spread * seedWeights[i];
            if (reaches(v)) push(v);
          }
          continue;
        }
        // The walk's inner loop (a row's targets: ~84,000 touched a walk, ~8 walks a question at 100 MiB): the row's
        // arrays held, a target reached before not asked again, and a residual below ε not asked its bracket (reaches'
        // first test), all in the loop itself. The same steps and sums in the same order as before: the same walk.
        const share = spread / du;
        const { targets, weights } = row!;
        for (let e = 0; e < targets.length; e++) {
          const v = targets[e];
          if ((flags[v] & TOUCHED) === 0) this.touch(v);
          const rv = (r[v] += share * weights[e]);
          if (rv >= epsilon && reaches(v)) push(v);
        }
      }
      return { nodes: this.touched.subarray(0, this.touchedCount), scores: p };
    }
    const deg = this.degrees!;
    while (size > 0) {
      const u = this.queue[head];
      head = (head + 1) % cap;
      size--;
      flags[u] &= ~QUEUED;
      const ru = r[u];
      const du = deg[u];
      if (ru < epsilon * Math.max(du, 1)) continue;
      if (++pushes > pushLimit) diverged();
      r[u] = 0;
      p[u] += restart * ru;
      const spread = damping * ru;
      if (du === 0) {
        // Dangling: the walker restarts at the seeds.
        for (let i = 0; i < seedNodes.length; i++) {
          const v = seedNodes[i];
          r[v] += spread * seedWeights[i];
          if (r[v] >= epsilon * Math.max(deg[v], 1)) push(v);
        }
        continue;
      }
      const share = spread / du;
      for (let e = graph.offsets[u]; e < graph.offsets[u + 1]; e++) {
        const v = graph.targets[e];
        this.touch(v);
        r[v] += share * graph.weights[e];
        if (r[v] >= epsilon * Math.max(deg[v], 1)) push(v);
      }
    }
    return { nodes: this.touched.subarray(0, this.touchedCount), scores: p };
  }

  /** Walks run so far: what nearlyPushed tells is the last one's. */
  get runs(): number {
    return this.walks;
  }
  private walks = 0;
  /** The last run's held nodes (nearlyPushed leaves them out: they are never pushed). */
  private held: ((u: number) => boolean) | undefined;

  /**
   * After a run over rows read on demand (a RowSource): the touched nodes that were not pushed but hold at least
   * `share` of the residual that would push them (ε·max(lower degree, 1)), nearest first, at most `limit`. Nodes a
   * reader may want pushed in a later run of the same walk, once more mass reaches them (the library read by ranges
   * reads their chunk lists a round early: src/core/paged/library.ts). Reads no row and no degree but the lower ones.
   */
  nearlyPushed(epsilon: number, share: number, limit: number): number[] {
    const deg = this.walkDegrees;
    if (!deg || limit <= 0) return [];
    const near: Array<[number, number]> = [];
    for (let i = 0; i < this.touchedCount; i++) {
      const v = this.touched[i];
      const rv = this.r[v];
      // Far below share·ε no bracket brings the ratio to `share` (ε·max(lower, 1) ≥ ε; half of it leaves room for
      // rounding): the same nodes without their bracket's scattered reads (round twenty-seven).
      if (!(rv > 0) || rv < share * epsilon * 0.5 || this.held?.(v)) continue;
      const ratio = rv / (epsilon * Math.max(deg.lower(v), 1));
      if (ratio >= share && ratio < 1) near.push([v, ratio]);
    }
    near.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    return near.slice(0, limit).map(([v]) => v);
  }

  private touch(v: number): void {
    if ((this.flags[v] & TOUCHED) !== 0) return;
    this.flags[v] |= TOUCHED;
    if (this.touchedCount === this.touched.length) {
      const bigger = new Uint32Array(Math.min(this.graph.nodeCount, this.touched.length * 2));
      bigger.set(this.touched);
      this.touched = bigger;
    }
    this.touched[this.touchedCount++] = v;
  }

  private reset(): void {
    for (let i = 0; i < this.touchedCount; i++) {
      const v = this.touched[i];
      this.p[v] = 0;
      this.r[v] = 0;
      this.flags[v] = 0;
    }
    this.touchedCount = 0;
  }
}
