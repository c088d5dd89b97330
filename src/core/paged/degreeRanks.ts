// What a library's pages give in place of its PageRank, which they do not hold: each concept's weighted degree in
// the walk graph (where a walk without teleport settles on this undirected graph). The Graph view's library-wide side
// ranks the concepts by it (src/services/questions/graphView.ts), and the KG build orders the chunks by it
// (src/services/llm/kgBuild.ts), each read as a question is, run again until complete.
import { starEdges, topK } from '../retrieval/index.ts';
import { EMPTY_ROW, groupOf, type PagedRead, type SectionReader } from './sectionReader.ts';

/** Dictionary groups a concept search reads past its place for the terms starting with it (128 terms a group). */
const PREFIX_GROUPS = 8;

/** conceptMap's result over the pages: each concept's weighted degree in the walk graph in place of its PageRank. */
export interface PagedConceptMap {
  focus?: number;
  nodes: Array<{ concept: number; term: string; degree: number; chunks: number }>;
  edges: Array<{ source: number; target: number; weight: number }>;
  matches: string[];
}

/**
 * The library-wide side of the Graph view, as conceptMap draws it in memory but by a measure the pages hold: the
 * concepts of highest weighted degree in the walk graph (the global PageRank is not in the pages, and computing it
 * reads every row; on this undirected graph a random walk's stationary mass is proportional to the weighted
 * degree), or the concept a search names with its heaviest neighbours (its walk row) and the edges among them.
 * A search is looked up in the sorted dictionary: the exact term, else the terms starting with it (the first
 * PREFIX_GROUPS groups of them), heaviest first; the terms merely containing it would take the whole dictionary.
 */
export async function conceptNeighbourhood(
  reader: SectionReader,
  options: { search?: string; limit?: number; edges?: number; matches?: number } = {},
  signal?: AbortSignal,
): Promise<PagedRead<PagedConceptMap>> {
  const limit = Math.max(1, options.limit ?? 120);
  const edgeCap = Math.max(0, options.edges ?? 400);
  const matchCap = options.matches ?? 8;
  const search = (options.search ?? '').toLowerCase().replace(/\s+/g, ' ').trim();
  const df = reader.open.df;
  return reader.readUntilComplete((): PagedConceptMap => {
    const node = (c: number, degree: number) => ({
      concept: c,
      term: reader.conceptTerm(c),
      degree,
      chunks: df[c],
    });
    if (!search) {
      const { ids, degrees } = topByDegree(reader, limit);
      return {
        nodes: ids.map((c, i) => node(c, degrees[i])),
        edges: edgesAmongLists(reader, ids, edgeCap),
        matches: [],
      };
    }
    const found = conceptsNamed(reader, search, matchCap + 1);
    if (found.length === 0) return { nodes: [], edges: [], matches: [] };
    const focus = found[0];
    // The focus's neighbours by edge weight, as conceptMap picks them from the walk graph's row.
    const row = reader.walkRow(focus) ?? EMPTY_ROW;
    const weights = Float64Array.from(row.weights);
    const picked = topK(weights, limit - 1);
    const neighbours = picked.map((i) => row.targets[i]);
    const star = starEdges(focus, neighbours, picked, weights, edgeCap);
    const rest = edgesAmongLists(reader, neighbours, Math.max(0, edgeCap - star.length));
    return {
      focus,
      nodes: [focus, ...neighbours].map((c) => node(c, reader.weightedDegree(c) ?? 0)),
      edges: [...star, ...rest].sort(
        (a, b) => b.weight - a.weight || a.source - b.source || a.target - b.target,
      ),
      matches: found.slice(1).map((c) => reader.conceptTerm(c)),
    };
  }, signal);
}

/**
 * The `limit` concepts of highest weighted degree (ties by id), heaviest first. Version 2 keeps a bracket of each
 * degree in `open`: only the concepts whose bracket reaches the limit-th highest lower bound have their exact
 * degree read (8 bytes each).
 */
function topByDegree(reader: SectionReader, limit: number): { ids: number[]; degrees: number[] } {
  const nc = reader.directory.conceptCount;
  let exact: Float64Array;
  let candidates: number[] | undefined;
  if (reader.open.degrees) exact = reader.open.degrees;
  else {
    // From version 9 a concept in one chunk has no code: its bracket is its degree once its chunk's row is read,
    // else 0 to the bound on them all (below the bar on every library measured: docs/results/question-bytes.md).
    const lower = new Float64Array(nc);
    for (let c = 0; c < nc; c++) lower[c] = reader.lowerDegree(c);
    const best = topK(lower, limit);
    const bar = best.length < limit ? 0 : lower[best[best.length - 1]];
    candidates = [];
    exact = new Float64Array(nc);
    for (let c = 0; c < nc; c++) {
      const upper = reader.upperDegree(c);
      if (upper === 0 || upper < bar) continue;
      candidates.push(c);
      exact[c] = reader.weightedDegree(c) ?? 0;
    }
  }
  const ids = topK(exact, limit, candidates);
  return { ids, degrees: ids.map((c) => exact[c]) };
}

/**
 * Concepts a search names: the exact term, then the terms starting with it, heaviest first (at most `limit`, from
 * the first PREFIX_GROUPS dictionary groups at or after it).
 */
function conceptsNamed(reader: SectionReader, search: string, limit: number): number[] {
  const size = reader.directory.groups.concepts;
  const groups = reader.open.conceptFirst.length;
  let exact: number | undefined;
  const prefix: number[] = [];
  let g = Math.max(0, groupOf(reader.open.conceptFirst, search));
  for (let read = 0; g < groups && read < PREFIX_GROUPS; g++, read++) {
    const terms = reader.conceptGroup(g);
    if (!terms) return [];
    let past = false;
    for (let i = 0; i < terms.length; i++) {
      const t = terms[i];
      if (t < search) continue;
      if (t === search) exact = g * size + i;
      else if (t.startsWith(search)) prefix.push(g * size + i);
      else {
        past = true;
        break;
      }
    }
    if (past) break;
  }
  const degree = new Map(prefix.map((c) => [c, reader.weightedDegree(c) ?? 0]));
  prefix.sort((a, b) => degree.get(b)! - degree.get(a)! || a - b);
  return [...(exact === undefined ? [] : [exact]), ...prefix].slice(0, limit);
}

/**
 * The walk-graph edges among a set of concepts (each once, source < target, heaviest first, at most `limit`),
 * counted from their chunk lists rather than their rows: an edge u–v is there when they share at least θco chunks,
 * weighted 2·Co / (|T(u)| + |T(v)|) as a float32, as walkRow computes it. A row reads every chunk of its concept's
 * list; the lists alone are far fewer bytes for the hubs a library's top concepts are.
 */
function edgesAmongLists(
  reader: SectionReader,
  ids: readonly number[],
  limit: number,
): Array<{ source: number; target: number; weight: number }> {
  const set = [...new Set(ids)].sort((a, b) => a - b);
  const m = set.length;
  const holders = new Map<number, number[]>();
  for (let i = 0; i < m; i++) {
    const list = reader.chunksOf(set[i]);
    if (!list) continue;
    for (const k of list.chunks) {
      const at = holders.get(k);
      if (at) at.push(i);
      else holders.set(k, [i]);
    }
  }
  if (reader.store.missing) return [];
  const co = new Uint32Array(m * m);
  for (const at of holders.values()) {
    for (let a = 0; a < at.length; a++) for (let b = a + 1; b < at.length; b++) co[at[a] * m + at[b]]++;
  }
  const theta = reader.directory.thetaCo;
  const df = reader.open.df;
  const out: Array<{ source: number; target: number; weight: number }> = [];
  for (let a = 0; a < m; a++) {
    for (let b = a + 1; b < m; b++) {
      const n = co[a * m + b];
      if (n === 0 || n < theta) continue;
      const u = set[a];
      const v = set[b];
      out.push({ source: u, target: v, weight: Math.fround((2 * n) / (df[u] + df[v])) });
    }
  }
  out.sort((x, y) => y.weight - x.weight || x.source - y.source || x.target - y.target);
  return out.slice(0, limit);
}

/**
 * The chunks in the KG build's order (its core chunks are the first κ of it), from the pages alone: by the sum over
 * each chunk's concepts of the concept's weighted degree in the walk graph over its chunk count, highest first,
 * ties in page order. A library in memory sums each concept's global PageRank so (conceptGraph.ts, globalRanks);
 * the pages hold no PageRank, and the weighted degree is where a walk without teleport settles. On the shared sets
 * the core chunks it selects are 93-99% of PageRank's at κ 0.05-0.8 (docs/results/kg-pages.md). With each chunk's
 * tokens, for the build's estimate. Reads the whole `rows` section, and the `degrees` section of a version 2 part.
 */
export async function buildOrder(
  reader: SectionReader,
  signal?: AbortSignal,
): Promise<{ order: Uint32Array; tokens: Uint32Array }> {
  const n = reader.chunkCount;
  const nc = reader.directory.conceptCount;
  const groups = reader.open.rowGroups.length - 1;
  const degrees = new Float64Array(nc);
  const read = await reader.readUntilComplete(
    () => {
      // Everything is noted in one run, so one round reads it all; the ranks are summed once nothing is missing.
      let complete = true;
      for (let g = 0; g < groups; g++) if (!reader.rowGroup(g)) complete = false;
      // Version 12: the tokens are read by block (evidenceArrays.ts), all of them, in the same round.
      if (!reader.allTokens()) complete = false;
      for (let c = 0; c < nc; c++) {
        const d = reader.weightedDegree(c);
        if (d === undefined) complete = false;
        else degrees[c] = d;
      }
      if (!complete) return undefined;
      const ranks = new Float64Array(n);
      for (let k = 0; k < n; k++) {
        let sum = 0;
        for (const c of reader.conceptsOf(k)!)
          sum += reader.open.df[c] > 0 ? degrees[c] / reader.open.df[c] : 0;
        ranks[k] = sum;
      }
      return ranks;
    },
    signal,
    'the KG build order',
  );
  const ranks = read.value!;
  const order = Uint32Array.from({ length: n }, (_, k) => k).sort((a, b) => ranks[b] - ranks[a] || a - b);
  return { order, tokens: Uint32Array.from(reader.allTokens()!) };
}
