// `ppr` mode: personalized PageRank over the concept graph (HippoRAG's retrieval idea on G2ConS's LLM-free
// graph). Restart mass goes to the concepts named in the question (IDF-weighted) mixed with the concepts nearest
// to the question's embedding; each chunk then scores Σ PPR(c) / |T(c)|^power over its concepts. Lexical evidence
// (BM25 over the question's concepts, phrases included) picks the feedback chunks of the second walk and adds a
// small share to the best lexical matches' final score: the walk finds the bridge, the words pin the named passage.
import type { ConceptGraphIndex, TermAnalyzer } from '../graph/index.ts';
import { questionTerms, STEM_PREFIX } from '../graph/index.ts';
import { questionBlend } from './questionBlend.ts';
import type { ConceptAccess, TermLookup } from './conceptAccess.ts';
import type { DenseIndex } from './dense.ts';
import type { RetrievalParams } from './params.ts';
import { topK } from './topk.ts';
import type { Candidate } from './types.ts';

export interface PprContext {
  /** The concept table as the walk and the concept BM25 read it (in memory or by ranges). */
  concepts: ConceptAccess;
  conceptIds: TermLookup;
  walker: ConceptWalker;
  dense?: DenseIndex;
  chunkScores: Float64Array;
  params: RetrievalParams;
  /** The whole graph in memory: the embedding seeds and the Graph view read it (a library read by ranges has none). */
  graph?: ConceptGraphIndex;
  /** Share of each concept's mass per chunk, aligned with graph.table.conceptChunks (see conceptChunkShares). */
  shares?: Float32Array;
}

/** Personalized PageRank from a restart distribution: the touched concepts and their mass (by concept id). */
interface ConceptWalker {
  run(
    seeds: ReadonlyMap<number, number>,
    damping: number,
    epsilon: number,
    held?: (u: number) => boolean,
  ): { nodes: Uint32Array; scores: Float64Array };
}

/**
 * Lexical evidence for the chunk score: BM25 (k1, b from params) over the question's concepts, phrases included (so
 * a chunk naming "kiss and tell" gains over one naming "kiss" and "tell" apart), chunk length = its number of
 * concepts, scaled by `conceptShare`, plus `termScores` (BM25F over every word, which the engine passes with the
 * concepts reduced to the question's phrases). Returned as chunk → score / best score (best = 1) for the best
 * `limit` chunks (0 = all), empty when nothing matches.
 */
export function lexicalEvidence(
  ctx: PprContext,
  questionConcepts: Iterable<number>,
  limit = 0,
  termScores?: readonly Candidate[],
  conceptShare = 1,
  units: Iterable<number> = [],
  unitShare = 0,
): Map<number, number> {
  const raw = conceptBm25(ctx, questionConcepts);
  if (conceptShare !== 1) for (const [k, s] of raw) raw.set(k, s * conceptShare);
  if (unitShare > 0)
    for (const [k, s] of conceptBm25(ctx, units)) raw.set(k, (raw.get(k) ?? 0) + s * unitShare);
  if (termScores) for (const { chunk, score } of termScores) raw.set(chunk, (raw.get(chunk) ?? 0) + score);
  let best = 0;
  for (const s of raw.values()) best = Math.max(best, s);
  if (best === 0) return new Map();
  // Only the best matches count: every chunk naming one generic question word would otherwise outrank the
  // walk's long tail.
  let kept = [...raw];
  if (limit > 0 && kept.length > limit)
    kept = kept.sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, limit);
  return new Map(kept.map(([k, s]) => [k, s / best]));
}

/** BM25 over concepts (chunk length = its number of concepts), raw scores of every chunk naming one. */
function conceptBm25(ctx: PprContext, questionConcepts: Iterable<number>): Map<number, number> {
  const t = ctx.concepts;
  const { bm25K1: k1, bm25B: b } = ctx.params;
  const avgLength = t.meanChunkConcepts;
  const out = new Map<number, number>();
  for (const c of new Set(questionConcepts)) {
    const { chunks, tf } = t.chunksOf(c);
    const df = chunks.length;
    const idf = Math.log(1 + (t.chunkCount - df + 0.5) / (df + 0.5));
    for (let i = 0; i < df; i++) {
      const k = chunks[i];
      const len = t.conceptCount(k);
      const f = tf[i];
      const s = (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * len) / (avgLength || 1)));
      out.set(k, (out.get(k) ?? 0) + s);
    }
  }
  return out;
}

/** Restart distribution: lexical seeds (share s) + embedding seeds (share 1 − s); each part sums to its share. */
export function pprSeeds(
  ctx: PprContext,
  questionTerms: readonly string[],
  vector?: Float32Array,
): Map<number, number> {
  const { concepts, params } = ctx;
  const lexical = new Map<number, number>();
  let terms = questionTerms;
  if (params.phraseSubsumes) {
    const inPhrases = new Set<string>();
    for (const t of questionTerms)
      if (t.includes(' ') && ctx.conceptIds.has(t)) for (const w of t.split(' ')) inPhrases.add(w);
    terms = questionTerms.filter((t) => t.includes(' ') || !inPhrases.has(t));
  }
  for (const t of terms) {
    const c = ctx.conceptIds.get(t);
    if (c !== undefined && concepts.idf(c) > 0)
      lexical.set(c, Math.pow(concepts.idf(c), params.seedIdfPower));
  }
  const embedding = vector ? embeddingSeeds(ctx, vector) : new Map<number, number>();
  const seeds = new Map<number, number>();
  const lexShare = embedding.size === 0 ? 1 : lexical.size === 0 ? 0 : params.lexicalSeedShare;
  addNormalized(seeds, lexical, lexShare);
  addNormalized(seeds, embedding, 1 - lexShare);
  return seeds;
}

function addNormalized(into: Map<number, number>, part: Map<number, number>, share: number): void {
  if (share <= 0) return;
  let total = 0;
  for (const w of part.values()) total += w;
  if (total <= 0) return;
  for (const [c, w] of part) into.set(c, (into.get(c) ?? 0) + (share * w) / total);
}

/** Concepts nearest to the question vector, searched among the concepts of the nearest chunks (fast). */
function embeddingSeeds(ctx: PprContext, vector: Float32Array): Map<number, number> {
  const { graph, params, dense } = ctx;
  const out = new Map<number, number>();
  const sem = graph?.semantic;
  if (!graph || !sem || !dense || params.embeddingSeeds <= 0 || params.lexicalSeedShare >= 1) return out;
  const t = graph.table;
  const pool = new Set<number>();
  for (const { chunk } of dense.search(vector, params.embeddingSeedChunks)) {
    for (let j = t.chunkConceptOffsets[chunk]; j < t.chunkConceptOffsets[chunk + 1]; j++)
      pool.add(t.chunkConcepts[j]);
  }
  const ids = [...pool];
  const cos = new Float64Array(ids.length);
  const dim = sem.dimension;
  ids.forEach((c, i) => {
    let s = 0;
    for (let d = 0; d < dim; d++) s += sem.conceptVectors[c * dim + d] * vector[d];
    cos[i] = s;
  });
  for (const i of topK(cos, params.embeddingSeeds)) out.set(ids[i], cos[i]);
  return out;
}

/** The heading paths' word index (in memory or by ranges): a term's heading postings, a chunk's heading length. */
export interface HeadingTerms {
  postingsOf(term: string): { chunks: Uint32Array; freqs: Uint16Array } | undefined;
  lengthOf(chunk: number): number;
  /** A word's IDF in the text (a title word most passages use, "name", says little about which one is meant). */
  textIdf(term: string): number;
}

/**
 * Chunks whose heading path the question names: per chunk, (heading words among the question's terms ÷ heading
 * words)^coverage × the text IDF of those words ÷ the IDF of the question's rarest word (at most 1). The passage
 * titled "Silene" scores 1 for "Are Ferocactus and Silene both plants?", "Silene menziesii" (1/2)^coverage; a title
 * of words most passages use ("Middle name") says little about which passage is meant and scores little.
 */
export function titleEvidence(
  headings: HeadingTerms,
  questionWords: Iterable<string>,
  coverage: number,
): Map<number, number> {
  const matched = new Map<number, { words: number; idf: number }>();
  let rarest = 0;
  for (const term of new Set(questionWords)) {
    // A heading's length counts its words as written; their stems are extra postings, not words of the title.
    if (term.startsWith(STEM_PREFIX)) continue;
    const idf = headings.textIdf(term);
    rarest = Math.max(rarest, idf);
    const list = headings.postingsOf(term);
    if (!list) continue;
    for (let i = 0; i < list.chunks.length; i++) {
      const k = list.chunks[i];
      const m = matched.get(k) ?? { words: 0, idf: 0 };
      m.words += list.freqs[i];
      m.idf += idf;
      matched.set(k, m);
    }
  }
  const out = new Map<number, number>();
  for (const [k, { words, idf }] of matched) {
    const length = headings.lengthOf(k);
    if (!(length > 0) || !(rarest > 0)) continue;
    const s = Math.pow(Math.min(1, words / length), coverage) * Math.min(1, idf / rarest);
    if (s > 0) out.set(k, s);
  }
  return out;
}

/**
 * The question's words as it writes names: capitalised past its first word, or holding a digit ("Silene", "Ed Wood",
 * "1925 Birthday Honours"), as index terms (no stems). A title the question names only in its common words ("How can several
 * threads own a value?" and the page "Threads") is a subject, not a name, and the words already find it.
 */
export function nameWords(analyzer: TermAnalyzer, text: string): string[] {
  const tokens = text.match(/[\p{L}\p{N}][\p{L}\p{N}\p{M}'’.-]*/gu) ?? [];
  const names = tokens.slice(1).filter((t) => /^\p{Lu}/u.test(t) || /\p{N}/u.test(t));
  return names.length ? analyzer.terms(names.join(' ')).filter((t) => !t.startsWith(STEM_PREFIX)) : [];
}

/** The word indexes the `ppr` ranking reads beside the graph (BM25 over the text, BM25F over text + headings). */
export interface PprLexicon {
  analyzer: TermAnalyzer;
  words: { search(terms: readonly string[], limit: number): Candidate[] };
  fields: { search(terms: readonly string[], limit: number): Candidate[] };
  /** The heading paths' words (absent when no chunk has one): the title evidence reads them. */
  headings?: HeadingTerms;
  /** Chunks in chunk k's document (the question blend reads it). */
  documentChunks(chunk: number): number;
}

/**
 * The default mode's ranking of a question: its words' BM25F evidence, its blend between words and walk (from where
 * the words lead, questionBlend.ts), then the walk (pprSearch). `vector` only where the library has the semantic layer.
 */
export function rankPpr(
  ctx: PprContext,
  lexicon: PprLexicon,
  text: string,
  vector: Float32Array | undefined,
  limit: number,
  observe?: WalkObserver,
): Candidate[] {
  const words = lexicon.analyzer.terms(text);
  const p = ctx.params;
  // The evidence keeps at most its best few hundred chunks; BM25 ranks past that only for phrase ties.
  const termScores = p.lexicalAllTerms
    ? lexicon.fields.search(words, 4 * Math.max(p.lexicalTopChunks, p.lexicalBlindTopChunks, 50))
    : undefined;
  const blend = questionBlend(
    {
      topChunks: (termScores ?? lexicon.words.search(words, p.blendNeighbours)).map((c) => c.chunk),
      documentChunks: (k) => lexicon.documentChunks(k),
    },
    { neighbours: p.blendNeighbours, from: p.blendFrom, to: p.blendTo },
  );
  const terms = questionTerms(lexicon.analyzer, text, ctx.conceptIds);
  const ranked = pprSearch(
    ctx,
    terms,
    vector,
    limit,
    termScores,
    blend,
    observe,
    new Set(words),
    p.titleWeight > 0 && blend < 1 && lexicon.headings
      ? titleEvidence(lexicon.headings, nameWords(lexicon.analyzer, text), p.titleCoverage)
      : undefined,
  );
  const slots = Math.round(p.bridgeSlots * (1 - blend));
  const bridged = slots > 0 ? bridgeHop(ctx, terms, ranked, slots, limit) : ranked;
  const wordSlots = Math.round(p.wordSlots * (1 - blend));
  return wordSlots > 0 && termScores
    ? placeWords(bridged, termScores.slice(0, p.wordsTop), wordSlots, p.wordsAt, limit)
    : bridged;
}

/**
 * The words' own place in a walk's ranking: the passage that holds most of the question's words (the words' best)
 * can sit below the walk's first few when the walk's mass goes to the passages around a well-connected name of the
 * question, and words too common to be concepts ("city", "song", "wife") say which of them is meant. The first
 * `slots` of `best` not already in the first `at` + `slots` take the ranks from at + 1 on, the rest of the ranking
 * following in its order.
 */
export function placeWords(
  ranked: readonly Candidate[],
  best: readonly Candidate[],
  slots: number,
  at: number,
  limit: number,
): Candidate[] {
  const from = Math.min(at, ranked.length);
  const kept = new Set(ranked.slice(0, from + slots).map((c) => c.chunk));
  const placed = best.filter((c) => !kept.has(c.chunk)).slice(0, slots);
  if (placed.length === 0) return [...ranked];
  return placeAt(
    ranked,
    placed.map((c) => c.chunk),
    from,
    limit,
    { hop: 0, via: "words: among the question's words' best passages" },
  );
}

/**
 * `chunks` moved to the ranks from at + 1 on, the rest of the ranking following in its order; each placed chunk
 * scores between its new neighbours, so the list stays ordered by score.
 */
function placeAt(
  ranked: readonly Candidate[],
  chunks: readonly number[],
  at: number,
  limit: number,
  why: Pick<Candidate, 'hop' | 'via'>,
): Candidate[] {
  const moved = new Set(chunks);
  const rest = ranked.filter((c) => !moved.has(c.chunk));
  const score = (i: number) => rest[Math.min(i, rest.length - 1)]?.score ?? 0;
  const inserted: Candidate[] = chunks.map((chunk, i) => ({
    chunk,
    score: score(at - 1) - ((i + 1) * (score(at - 1) - score(at))) / (chunks.length + 1),
    ...why,
  }));
  return [...rest.slice(0, at), ...inserted, ...rest.slice(at)].slice(0, limit);
}

/**
 * The bridge hop of a multi-hop question ("Who founded the company that made X?"): the passage naming X names the
 * company, and the passage about the company holds few of the question's words — the ones the first passage lacks.
 * Each of the ranking's best `bridgeHubs` chunks reaches the other chunks naming its concepts the question does not
 * name (rare ones: IDF^seedIdfPower, at most bridgeMaxDf chunks; more where the reached chunk names them often). A
 * pair (hub, reached chunk) scores that reach × (bridgeFloor + the question's IDF mass the reached chunk holds and
 * the hub does not) × the hub's share of the question^bridgeHubCover: the pair explains the question, and a hub off
 * the question leads nowhere. The best `slots` not already ranked above bridgeAt + slots take the ranks from
 * bridgeAt + 1 on, the rest of the ranking following in its order. Reads the concept table only (the question
 * concepts' postings, which the walk's seeds read already): no word search per question word.
 */
function bridgeHop(
  ctx: PprContext,
  questionTerms: readonly string[],
  ranked: readonly Candidate[],
  slots: number,
  limit: number,
): Candidate[] {
  const { concepts: t, params: p } = ctx;
  const at = Math.min(p.bridgeAt, ranked.length);
  const hubs = ranked.slice(0, Math.min(p.bridgeHubs, at)).map((c) => c.chunk);
  if (hubs.length === 0) return [...ranked];
  // The question's concepts (IDF > 0) and their IDF mass.
  const asked = new Map<number, number>();
  for (const term of questionTerms) {
    const c = ctx.conceptIds.get(term);
    if (c !== undefined && t.idf(c) > 0) asked.set(c, t.idf(c));
  }
  const named = new Set<number>();
  for (const term of questionTerms) {
    const c = ctx.conceptIds.get(term);
    if (c !== undefined) named.add(c);
  }
  let askedMass = 0;
  for (const v of asked.values()) askedMass += v;
  // Per hub: its bridge concepts' weights over the other chunks, and which question concepts it holds.
  const hubBridge: Array<Map<number, number>> = [];
  const hubAsked: Array<Set<number>> = [];
  const hubCover: number[] = [];
  const candidates = new Set<number>();
  for (const hub of hubs) {
    const weights = new Map<number, number>();
    const own = new Set<number>();
    let total = 0;
    let cover = 0;
    for (const c of t.conceptsOf(hub)) {
      const idf = asked.get(c);
      if (idf !== undefined) {
        own.add(c);
        cover += idf;
      }
      const df = t.df(c);
      if (named.has(c) || df < 2 || df > p.bridgeMaxDf || !(t.idf(c) > 0)) continue;
      const w = Math.pow(t.idf(c), p.seedIdfPower);
      weights.set(c, w);
      total += w;
    }
    const reach = new Map<number, number>();
    if (total > 0) {
      for (const [c, w] of weights) {
        const { chunks, tf } = t.chunksOf(c);
        for (let i = 0; i < chunks.length; i++) {
          const k = chunks[i];
          if (hubs.includes(k)) continue;
          // A passage about the bridge names it more than once.
          reach.set(k, (reach.get(k) ?? 0) + (w / total) * Math.pow(tf[i], p.bridgeTf));
          candidates.add(k);
        }
      }
    }
    hubBridge.push(reach);
    hubAsked.push(own);
    hubCover.push(askedMass > 0 ? cover / askedMass : 0);
  }
  if (candidates.size === 0) return [...ranked];
  // Which question concepts each candidate holds, read from their postings (the walk's seeds read them already).
  const candidateAsked = new Map<number, number[]>();
  for (const c of asked.keys()) {
    for (const k of t.chunksOf(c).chunks) {
      if (!candidates.has(k)) continue;
      const list = candidateAsked.get(k);
      if (list) list.push(c);
      else candidateAsked.set(k, [c]);
    }
  }
  // A pair (hub, candidate) scores the bridge weight × (bridgeFloor + the question's IDF mass the candidate holds and
  // the hub does not; what the hub holds counts bridgeCovered) × the hub's own share of the question^bridgeHubCover.
  const scoreOf = new Map<number, number>();
  const kept = new Set(ranked.slice(0, at + slots).map((c) => c.chunk));
  for (const k of candidates) {
    if (kept.has(k)) continue;
    const held = candidateAsked.get(k) ?? [];
    let s = 0;
    for (let h = 0; h < hubs.length; h++) {
      const w = hubBridge[h].get(k);
      if (w === undefined) continue;
      let extra = 0;
      for (const c of held) extra += (hubAsked[h].has(c) ? p.bridgeCovered : 1) * (asked.get(c) ?? 0);
      if (askedMass > 0) extra /= askedMass;
      s += w * (p.bridgeFloor + extra) * Math.pow(hubCover[h], p.bridgeHubCover);
    }
    if (s > 0) scoreOf.set(k, s);
  }
  const hop: Array<readonly [number, number]> = [...scoreOf].sort((x, y) => y[1] - x[1] || x[0] - y[0]);
  hop.splice(slots);
  if (hop.length === 0) return [...ranked];
  return placeAt(
    ranked,
    hop.map(([k]) => k),
    at,
    limit,
    { hop: 1, via: 'bridge: names a concept of the best passages the question does not name' },
  );
}

export function pprSearch(
  ctx: PprContext,
  questionTerms: readonly string[],
  vector: Float32Array | undefined,
  limit: number,
  termScores?: readonly Candidate[],
  blend = 0,
  observe?: WalkObserver,
  /** The question's plain index terms (what termScores' BM25 counts). */
  plainTerms?: ReadonlySet<string>,
  /** Chunks whose heading path the question names (titleEvidence), in [0, 1]. */
  titles?: ReadonlyMap<number, number>,
): Candidate[] {
  const { concepts: t, params } = ctx;
  const questionSeeds = pprSeeds(ctx, questionTerms, vector);
  if (questionSeeds.size === 0) {
    // No word of the question is a concept (a tiny library, a question in the library's common words): the walk
    // has nowhere to start, but the words still point at passages, and the default mode never comes back empty
    // where keyword search would not.
    return (termScores ?? []).slice(0, limit).map(({ chunk, score }) => ({
      chunk,
      score,
      hop: 0,
      via: 'words only (no concept of the question in the graph)',
    }));
  }
  let seeds = questionSeeds;
  let evidence = new Map<number, number>();
  if (params.lexicalChunkWeight > 0 || params.lexicalFeedbackWeight > 0) {
    const concepts: number[] = [];
    const units: number[] = [];
    for (const term of questionTerms) {
      const c = ctx.conceptIds.get(term);
      if (c === undefined || !(t.idf(c) > 0)) continue;
      // With the full-vocabulary BM25 given, single words are counted there; names, identifiers and word pairs
      // ("v-model", "computed property") are not words the BM25 knows, so they still come from the concepts.
      if (!termScores) concepts.push(c);
      else if (!plainTerms?.has(term)) (term.includes(' ') ? concepts : units).push(c);
    }
    const top = Math.round(
      params.lexicalTopChunks + blend * (params.lexicalBlindTopChunks - params.lexicalTopChunks),
    );
    // Question phrases are concepts too: where the graph is blind to the library they are mostly product and
    // heading names ("Composition API"), not the names of people and places that pin a Wikipedia passage.
    evidence = lexicalEvidence(ctx, concepts, top, termScores, 1 - blend, units, params.unitEvidence);
  }
  const titleShare = titles ? params.titleWeight * (1 - blend) : 0;
  const scaled = (w: number): Map<number, number> => {
    const out = new Map(w > 0 ? [...evidence].map(([k, s]) => [k, s * w]) : []);
    if (titles && titleShare > 0) for (const [k, s] of titles) out.set(k, (out.get(k) ?? 0) + s * titleShare);
    return out;
  };
  // Geometric between the two weights: each step of blindness multiplies the words' say by the same factor.
  const lexical = scaled(
    Math.pow(params.lexicalChunkWeight, 1 - blend) * Math.pow(params.lexicalBlindWeight, blend),
  );
  if (params.feedbackChunks > 0 && params.feedbackShare > 0) {
    const first = walkAndScore(
      ctx,
      seeds,
      seeds,
      params.feedbackChunks,
      scaled(params.lexicalFeedbackWeight),
    );
    const feedback = new Map<number, number>();
    for (const { chunk } of first) {
      for (const c of t.conceptsOf(chunk)) {
        if (t.df(c) < 2 || seeds.has(c)) continue;
        feedback.set(c, Math.pow(t.idf(c), params.seedIdfPower));
      }
    }
    let total = 0;
    for (const w of feedback.values()) total += w;
    if (total > 0) {
      const mixed = new Map<number, number>();
      for (const [c, w] of seeds) mixed.set(c, w * (1 - params.feedbackShare));
      for (const [c, w] of feedback) mixed.set(c, (mixed.get(c) ?? 0) + (params.feedbackShare * w) / total);
      seeds = mixed;
    }
  }
  const watch = observe && ((walk: Omit<FinalWalk, 'questionTerms'>) => observe({ ...walk, questionTerms }));
  return walkAndScore(ctx, seeds, questionSeeds, limit, lexical, watch);
}

/**
 * The final walk of a `ppr` question as the concept-graph view reads it (walkView.ts). `nodes`, `scores` and
 * `chunkScore` are the walker's and the engine's scratch buffers: valid only during the observer's call.
 */
export interface FinalWalk {
  ctx: PprContext;
  /** The restart distribution of the final walk: the question's seeds, plus feedback concepts when enabled. */
  seeds: ReadonlyMap<number, number>;
  /** The question's own seeds (its words' concepts and, with vectors, the concepts nearest its meaning). */
  questionSeeds: ReadonlyMap<number, number>;
  /** The question's concept terms (words and phrases), as the seeds were looked up. */
  questionTerms: readonly string[];
  /** Concepts the walk touched, and PPR mass by concept id. */
  nodes: Uint32Array;
  scores: Float64Array;
  /** What the question's words added to a chunk's score (in the walk's units; absent = nothing). */
  words: ReadonlyMap<number, number>;
  /** The ranked chunks this walk returns (best first, at most the search's limit). */
  ranked: readonly number[];
  /** A chunk's final score in this walk (walk share after the length normalization, plus `words`). */
  chunkScore(chunk: number): number;
}

export type WalkObserver = (walk: FinalWalk) => void;

/**
 * One walk from `seeds` and the chunk scores it induces, best `limit` first, with provenance (hop 0 = the chunk
 * holds one of the question's own seed concepts).
 */
function walkAndScore(
  ctx: PprContext,
  seeds: Map<number, number>,
  questionSeeds: ReadonlyMap<number, number>,
  limit: number,
  lexical: ReadonlyMap<number, number>,
  observe?: (walk: Omit<FinalWalk, 'questionTerms'>) => void,
): Candidate[] {
  const { concepts: t, params, chunkScores } = ctx;
  const words = new Map<number, number>();
  // A concept's df is known to the library in memory and to the one read by ranges (its `open` arrays) alike.
  // Below 1 it is a share of the library's chunks, so that one value scales from a small library to 1 GiB.
  const maxDf = params.walkMaxDf < 1 ? params.walkMaxDf * t.chunkCount : params.walkMaxDf;
  const held = params.walkMaxDf > 0 ? (c: number) => t.df(c) > maxDf : undefined;
  const { nodes, scores } = ctx.walker.run(seeds, params.damping, params.pushEpsilon, held);
  const touched: number[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const c = nodes[i];
    const p = scores[c];
    if (p <= 0) continue;
    const { chunks, shares } = t.chunksOf(c);
    for (let j = 0; j < chunks.length; j++) {
      const k = chunks[j];
      if (chunkScores[k] === 0) touched.push(k);
      chunkScores[k] += p * shares[j];
    }
  }
  if (params.chunkLengthPower !== 0) {
    for (const k of touched) {
      const size = t.conceptCount(k);
      chunkScores[k] /= Math.pow(Math.max(1, size), params.chunkLengthPower);
    }
  }
  if (lexical.size > 0) {
    // In-mode fusion: lexical evidence (best = the weight) scaled to the walk's best chunk, so the mix does not
    // depend on the walk's absolute mass.
    let top = 0;
    for (const k of touched) top = Math.max(top, chunkScores[k]);
    if (top === 0) top = 1;
    for (const [k, s] of lexical) {
      if (chunkScores[k] === 0) touched.push(k);
      chunkScores[k] += top * s;
      if (observe) words.set(k, top * s);
    }
  }
  const best = topK(chunkScores, limit, touched);
  const out = best.map((k) => {
    // Provenance: the chunk's concepts that carried the most walk mass, and whether one of them was a seed.
    const contrib: Array<[number, number]> = [];
    let hop = 1;
    for (const c of t.conceptsOf(k)) {
      if (questionSeeds.has(c)) hop = 0;
      if (scores[c] > 0) contrib.push([c, scores[c]]);
    }
    contrib.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    return { chunk: k, score: chunkScores[k], concepts: contrib.slice(0, 3).map(([c]) => c), hop };
  });
  observe?.({
    ctx,
    seeds,
    questionSeeds,
    nodes,
    scores,
    words,
    ranked: best,
    chunkScore: (k) => chunkScores[k],
  });
  for (const k of touched) chunkScores[k] = 0;
  return out;
}
