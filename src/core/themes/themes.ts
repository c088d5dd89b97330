// The themes of a library (issue 48): communities of its concept graph, found by Louvain (graphology's maintained
// implementation) over the concepts' co-occurrence, each labelled by its most central concepts and sized by the
// chunks whose concepts are mostly in it. This is what answers "what is this library about?" without an LLM, where
// the lexical layer finds nothing because such a question has no content word.
//
// Louvain runs on a bounded graph, not the whole co-occurrence CSR (MuSiQue: ~6 M pairs, which as graphology objects
// would cost hundreds of MB): the `maxConcepts` concepts of highest weighted degree that are in at least two chunks,
// each keeping its `neighbours` strongest edges. Chunks are then assigned from their own concepts, so every chunk of
// the library counts towards a theme's size, not only those of the kept concepts.
import Graph from 'graphology';
import louvain from 'graphology-communities-louvain';
import {
  diceWeight,
  pagerank,
  weightedDegrees,
  type ConceptGraph,
  type ConceptTable,
} from '../graph/index.ts';
import { seededRandom } from '../seededRandom.ts';
import { labelScore, labelTerms } from './themeLabel.ts';

/** One theme: a community of concepts and the chunks that are mostly about it. */
export interface Theme {
  /** Its three concepts that name it best (themeLabel.ts), joined: "components · props · slots". */
  label: string;
  /** Up to `conceptsPerTheme` concepts, most central first. */
  concepts: string[];
  /** Chunks assigned to it, and the distinct documents of those chunks. */
  chunks: number;
  documents: number;
  /** Its chunks' tokens over the library's tokens (0–1). */
  share: number;
  /** Documents with the most of its chunks, most first (document ids), and their titles. */
  keyDocuments: string[];
  keyTitles: string[];
  /** Its most representative chunks, from distinct documents where it can (chunk ids). */
  passages: string[];
}

/** The themes of a library, largest share first: what is stored with the library, in bundles and pages. */
export interface LibraryThemes {
  /** Format version of this record (themesShape.ts refuses another). */
  version: 1;
  /** The library they were computed over. */
  chunks: number;
  documents: number;
  themes: Theme[];
}

/** What the computation reads of a library: its concept table and graph, and each chunk's document and tokens. */
export interface ThemeInput {
  table: ConceptTable;
  /** The co-occurrence graph over `table`'s concepts (Co per edge). */
  graph: ConceptGraph;
  /** Chunk ids in the table's chunk order. */
  chunkIds: readonly string[];
  /** Document id of each chunk, in the table's chunk order. */
  chunkDocs: readonly string[];
  /** Tokens of each chunk, in the table's chunk order. */
  chunkTokens: ArrayLike<number>;
  /** A document's title, as a theme names its key documents (default: its id). */
  docTitle?: (docId: string) => string;
  /**
   * Each concept's weighted degree in the whole co-occurrence graph, when `graph` holds only the edges among the
   * concepts the themes cluster (themesGraphFromTable: a paged build has the table and the degrees, not the graph).
   */
  degrees?: ArrayLike<number>;
}

const defaults = {
  /** Concepts Louvain clusters, by weighted degree. */
  maxConcepts: 4000,
  /** Strongest edges each kept concept keeps. */
  neighbours: 12,
  /** Louvain's resolution: above 1, more and smaller themes. */
  resolution: 1,
  /** Seed of Louvain's random order, so a library's themes are the same each time they are computed. */
  seed: 48,
  /** Themes kept (largest first) and what each keeps. */
  maxThemes: 40,
  conceptsPerTheme: 10,
  labelConcepts: 3,
  keyDocuments: 5,
  passages: 3,
  /** A theme smaller than this share of the text is left out, unless it would leave fewer than three themes. */
  minShare: 0.005,
};

export type ThemeOptions = typeof defaults;

const THEME_DEFAULTS: Readonly<ThemeOptions> = Object.freeze(defaults);

/** Computes the themes of a library. Deterministic for a given input and options. */
export function computeThemes(input: ThemeInput, options: Partial<ThemeOptions> = {}): LibraryThemes {
  const o = { ...THEME_DEFAULTS, ...options };
  const { table, graph, chunkDocs, chunkTokens } = input;
  const nChunks = table.chunkCount;
  if (chunkDocs.length !== nChunks || chunkTokens.length !== nChunks || input.chunkIds.length !== nChunks) {
    throw new Error(
      `themes: ${nChunks} chunks in the concept table, but ${input.chunkIds.length} ids, ` +
        `${chunkDocs.length} documents and ${chunkTokens.length} token counts`,
    );
  }
  if (graph.nodeCount !== table.terms.length) {
    throw new Error(`themes: a graph of ${graph.nodeCount} concepts over a table of ${table.terms.length}`);
  }
  const documentCount = new Set(chunkDocs).size;
  // weightedDegrees sums each row in order, as weightedDegreesFromTable does: the same degrees either way.
  const kept = keptConcepts(table, input.degrees ?? weightedDegrees(graph), o.maxConcepts);
  const community = communities(graph, kept, o);
  const nCommunities = community.count;
  if (nCommunities === 0) return { version: 1, chunks: nChunks, documents: documentCount, themes: [] };
  const centrality = centralityWithin(graph, community.of);

  // Each chunk goes to the community its kept concepts weigh most in (TF-IDF weight × centrality in the community).
  const chunkTheme = new Int32Array(nChunks).fill(-1);
  const chunkScore = new Float64Array(nChunks);
  const sums = new Float64Array(nCommunities);
  const { chunkConceptOffsets: kco, chunkConcepts: kc, chunkConceptWeights: kw } = table;
  for (let k = 0; k < nChunks; k++) {
    const touched: number[] = [];
    for (let j = kco[k]; j < kco[k + 1]; j++) {
      const c = community.of[kc[j]];
      if (c < 0) continue;
      if (sums[c] === 0) touched.push(c);
      sums[c] += kw[j] * (1 + centrality[kc[j]] * graph.nodeCount);
    }
    let best = -1;
    for (const c of touched) {
      if (best < 0 || sums[c] > sums[best] || (sums[c] === sums[best] && c < best)) best = c;
    }
    if (best >= 0) {
      chunkTheme[k] = best;
      chunkScore[k] = sums[best];
    }
    for (const c of touched) sums[c] = 0;
  }

  let totalTokens = 0;
  for (let k = 0; k < nChunks; k++) totalTokens += chunkTokens[k];
  const groups = Array.from({ length: nCommunities }, () => ({ chunks: [] as number[], tokens: 0 }));
  for (let k = 0; k < nChunks; k++) {
    const c = chunkTheme[k];
    if (c < 0) continue;
    groups[c].chunks.push(k);
    groups[c].tokens += chunkTokens[k];
  }
  // Each concept's TF-IDF weight summed over the library's chunks: the order among concepts a community holds as
  // equally central (the concepts of one chunk, in a small library, are a clique of equal PageRank).
  const weight = new Float64Array(table.terms.length);
  for (let j = 0; j < kc.length; j++) weight[kc[j]] += kw[j];
  const members = Array.from({ length: nCommunities }, () => [] as number[]);
  for (const u of kept) if (community.of[u] >= 0) members[community.of[u]].push(u);

  const order = groups
    .map((g, c) => ({ c, share: totalTokens > 0 ? g.tokens / totalTokens : 0, chunks: g.chunks.length }))
    .filter((g) => g.chunks > 0)
    .sort((a, b) => b.share - a.share || b.chunks - a.chunks || a.c - b.c);
  const large = order.filter((g) => g.share >= o.minShare);
  const chosen = (large.length >= 3 ? large : order).slice(0, o.maxThemes);

  // Of each clustered concept's documents, how many have a chunk in its own theme (themeLabel.ts ranks by it).
  // Documents, not chunks: a small library's document is cut into several themes, and the words that name the
  // document are in all of them ("canal" in three themes of the Erie Canal's one page).
  const docIndex = new Map<string, number>();
  const docOf = Int32Array.from(chunkDocs, (d) => {
    let i = docIndex.get(d);
    if (i === undefined) docIndex.set(d, (i = docIndex.size));
    return i;
  });
  const docInTheme = new Set<number>();
  for (let k = 0; k < nChunks; k++)
    if (chunkTheme[k] >= 0) docInTheme.add(docOf[k] * nCommunities + chunkTheme[k]);
  const seen = new Int32Array(docIndex.size).fill(-1);
  const score = new Float64Array(table.terms.length);
  const { conceptChunkOffsets: cco, conceptChunks: cc } = table;
  for (const u of kept) {
    const c = community.of[u];
    if (c < 0) continue;
    let documents = 0;
    let documentsInTheme = 0;
    for (let j = cco[u]; j < cco[u + 1]; j++) {
      const d = docOf[cc[j]];
      if (seen[d] === u) continue;
      seen[d] = u;
      documents++;
      if (docInTheme.has(d * nCommunities + c)) documentsInTheme++;
    }
    score[u] = labelScore({ centrality: centrality[u], documentsInTheme, documents });
  }

  const themes = chosen.map(({ c, share }): Theme => {
    const ranked = members[c].sort((a, b) => byScore(score, weight, a, b)).map((u) => clip(table.terms[u]));
    const label = labelTerms(ranked, o.labelConcepts);
    const concepts = [...label, ...ranked.filter((t) => !label.includes(t))].slice(0, o.conceptsPerTheme);
    const chunks = groups[c].chunks;
    const perDoc = new Map<string, number>();
    for (const k of chunks) perDoc.set(chunkDocs[k], (perDoc.get(chunkDocs[k]) ?? 0) + chunkScore[k]);
    const keyDocuments = [...perDoc]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, o.keyDocuments)
      .map(([doc]) => doc);
    return {
      label: clip(label.join(' · ')),
      concepts,
      chunks: chunks.length,
      documents: perDoc.size,
      share,
      keyDocuments,
      keyTitles: keyDocuments.map((doc) => clip(input.docTitle?.(doc) ?? doc)),
      passages: representative(chunks, chunkScore, chunkDocs, chunkTokens, o.passages).map(
        (k) => input.chunkIds[k],
      ),
    };
  });
  return { version: 1, chunks: nChunks, documents: documentCount, themes };
}

/**
 * The themes with their key documents named by `title`: a computation that could not read the titles beforehand
 * (a graph refresh reads the few key documents' titles only once it knows them) names them afterwards.
 */
export function withKeyTitles(themes: LibraryThemes, title: (docId: string) => string): LibraryThemes {
  return {
    ...themes,
    themes: themes.themes.map((t) => ({ ...t, keyTitles: t.keyDocuments.map((doc) => clip(title(doc))) })),
  };
}

/** Higher label score first; within a relative 1e-6, the heavier (summed TF-IDF) first, then the lower id. */
function byScore(score: Float64Array, weight: Float64Array, a: number, b: number): number {
  const ca = score[a];
  const cb = score[b];
  if (Math.abs(ca - cb) > 1e-6 * Math.max(ca, cb)) return cb - ca;
  return weight[b] - weight[a] || a - b;
}

/**
 * The concepts Louvain clusters: those in two chunks or more (a concept of one chunk says nothing of how chunks
 * group; a library under 200 chunks keeps them, or a five-file library would have almost none), by weighted degree.
 */
function keptConcepts(table: ConceptTable, degree: ArrayLike<number>, maxConcepts: number): number[] {
  const minChunks = table.chunkCount < 200 ? 1 : 2;
  const candidates: number[] = [];
  for (let u = 0; u < table.terms.length; u++) {
    if (table.conceptChunkOffsets[u + 1] - table.conceptChunkOffsets[u] < minChunks) continue;
    if (degree[u] === 0) continue;
    candidates.push(u);
  }
  candidates.sort((a, b) => degree[b] - degree[a] || a - b);
  return candidates.slice(0, maxConcepts).sort((a, b) => a - b);
}

/**
 * The co-occurrence graph the themes read, from the concept table and the concepts' weighted degrees alone: the
 * edges among the concepts they cluster (Co ≥ θco, Dice weights as buildCooccurrenceGraph's), every other row empty.
 * The themes computed over it with `degrees` are those of the whole graph (Louvain, the centrality and the labels
 * read no other edge), at the cost of the kept concepts' rows: a paged build (100 MiB: a 59.6 M-edge graph) never
 * holds the graph.
 */
export function themesGraphFromTable(
  table: ConceptTable,
  degrees: ArrayLike<number>,
  thetaCo: number,
): ConceptGraph {
  const nc = table.terms.length;
  const kept = keptConcepts(table, degrees, THEME_DEFAULTS.maxConcepts);
  const isKept = new Uint8Array(nc);
  for (const u of kept) isKept[u] = 1;
  const { conceptChunkOffsets: cco, conceptChunks: cc, chunkConceptOffsets: kco, chunkConcepts: kc } = table;
  const counts = new Uint32Array(nc);
  const rows: Array<{ targets: number[]; co: number[] }> = [];
  for (const u of kept) {
    const touched: number[] = [];
    for (let i = cco[u]; i < cco[u + 1]; i++) {
      const k = cc[i];
      for (let j = kco[k]; j < kco[k + 1]; j++) {
        const v = kc[j];
        if (v === u || !isKept[v]) continue;
        if (counts[v]++ === 0) touched.push(v);
      }
    }
    touched.sort((a, b) => a - b);
    const row = { targets: [] as number[], co: [] as number[] };
    for (const v of touched) {
      if (counts[v] >= thetaCo) {
        row.targets.push(v);
        row.co.push(counts[v]);
      }
      counts[v] = 0;
    }
    rows.push(row);
  }
  const offsets = new Uint32Array(nc + 1);
  kept.forEach((u, i) => (offsets[u + 1] = rows[i].targets.length));
  for (let u = 0; u < nc; u++) offsets[u + 1] += offsets[u];
  const targets = new Uint32Array(offsets[nc]);
  const co = new Uint32Array(offsets[nc]);
  const weights = new Float32Array(offsets[nc]);
  kept.forEach((u, i) => {
    const tu = cco[u + 1] - cco[u];
    rows[i].targets.forEach((v, j) => {
      const e = offsets[u] + j;
      targets[e] = v;
      co[e] = rows[i].co[j];
      weights[e] = diceWeight(co[e], tu, cco[v + 1] - cco[v]);
    });
  });
  return { nodeCount: nc, offsets, targets, co, weights };
}

/** Louvain over the kept concepts, each with its strongest edges, weighted by co-occurrence (shared chunks). */
function communities(
  graph: ConceptGraph,
  kept: readonly number[],
  o: ThemeOptions,
): { of: Int32Array; count: number } {
  const of = new Int32Array(graph.nodeCount).fill(-1);
  const isKept = new Uint8Array(graph.nodeCount);
  for (const u of kept) isKept[u] = 1;
  const g = new Graph({ type: 'undirected', multi: false, allowSelfLoops: false });
  for (const u of kept) g.addNode(u);
  for (const u of kept) {
    for (const e of strongest(graph, u, isKept, o.neighbours)) {
      const v = graph.targets[e];
      if (!g.hasEdge(u, v)) g.addEdge(u, v, { weight: graph.co[e] });
    }
  }
  if (g.size === 0) return { of, count: 0 };
  const found = louvain.detailed(g, {
    getEdgeWeight: 'weight',
    resolution: o.resolution,
    // Seeded: Math.random would change a library's themes each time they are computed.
    rng: seededRandom(o.seed),
  });
  // Louvain's community numbers depend on its visiting order: renumber by each community's smallest concept.
  const renumber = new Map<number, number>();
  for (const u of kept) {
    if (g.degree(u) === 0) continue;
    const c = found.communities[String(u)];
    if (!renumber.has(c)) renumber.set(c, renumber.size);
    of[u] = renumber.get(c) ?? -1;
  }
  return { of, count: renumber.size };
}

/**
 * Each concept's PageRank within its community: the walk over the co-occurrence edges that stay inside one
 * community, so a concept ranks by how central it is to its own theme, not to the library. Computed over the
 * clustered concepts only (renumbered), not the whole table.
 */
function centralityWithin(graph: ConceptGraph, of: Int32Array): Float64Array {
  const members: number[] = [];
  const local = new Int32Array(graph.nodeCount).fill(-1);
  for (let u = 0; u < graph.nodeCount; u++) if (of[u] >= 0) local[u] = members.push(u) - 1;
  const n = members.length;
  const offsets = new Uint32Array(n + 1);
  const inside = (u: number, e: number) => of[graph.targets[e]] === of[u];
  members.forEach((u, i) => {
    let d = 0;
    for (let e = graph.offsets[u]; e < graph.offsets[u + 1]; e++) if (inside(u, e)) d++;
    offsets[i + 1] = offsets[i] + d;
  });
  const targets = new Uint32Array(offsets[n]);
  const co = new Uint32Array(offsets[n]);
  const weights = new Float32Array(offsets[n]);
  members.forEach((u, i) => {
    let at = offsets[i];
    for (let e = graph.offsets[u]; e < graph.offsets[u + 1]; e++) {
      if (!inside(u, e)) continue;
      targets[at] = local[graph.targets[e]];
      co[at] = graph.co[e];
      weights[at++] = graph.co[e];
    }
  });
  const within = pagerank({ nodeCount: n, offsets, targets, co, weights });
  const rank = new Float64Array(graph.nodeCount);
  members.forEach((u, i) => (rank[u] = within[i]));
  return rank;
}

/** The `k` edges of u to kept concepts with the highest Dice weight (ties: the lower target), without sorting all. */
function strongest(graph: ConceptGraph, u: number, isKept: Uint8Array, k: number): number[] {
  const best: number[] = [];
  const better = (a: number, b: number) =>
    graph.weights[a] > graph.weights[b] ||
    (graph.weights[a] === graph.weights[b] && graph.targets[a] < graph.targets[b]);
  for (let e = graph.offsets[u]; e < graph.offsets[u + 1]; e++) {
    if (!isKept[graph.targets[e]]) continue;
    if (best.length === k && !better(e, best[k - 1])) continue;
    let at = best.length < k ? best.length : k - 1;
    while (at > 0 && better(e, best[at - 1])) {
      best[at] = best[at - 1];
      at--;
    }
    best[at] = e;
  }
  return best;
}

/** A passage shorter than this says little of its theme (a heading alone): it is picked only when none is longer. */
const PASSAGE_MIN_TOKENS = 40;

/** The best-scoring chunks of a theme, one a document first, then the next best; long enough to read first. */
function representative(
  chunks: readonly number[],
  score: Float64Array,
  chunkDocs: readonly string[],
  chunkTokens: ArrayLike<number>,
  count: number,
): number[] {
  const long = (k: number) => (chunkTokens[k] >= PASSAGE_MIN_TOKENS ? 1 : 0);
  const ranked = [...chunks].sort((a, b) => long(b) - long(a) || score[b] - score[a] || a - b);
  const picked: number[] = [];
  const docs = new Set<string>();
  for (const k of ranked) {
    if (picked.length >= count) break;
    if (docs.has(chunkDocs[k])) continue;
    docs.add(chunkDocs[k]);
    picked.push(k);
  }
  for (const k of ranked) {
    if (picked.length >= count) break;
    if (!picked.includes(k)) picked.push(k);
  }
  return picked;
}

/** Stored strings are bounded (themesShape.ts refuses longer ones): a title or a concept is cut, never refused. */
function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
