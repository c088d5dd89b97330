// Every tunable of the concept graph and the retrieval modes, resolved in one place. The values are the ones
// measured best on questions 1–200 of the three benchmark sets with the USE-lite embedder (README, "Calibration");
// the paper's values (θsem = 0.5 etc.) were for OpenAI embeddings and do not carry over.

const defaults = {
  /** Keep at most this many concepts per chunk, by TF-IDF (0 = all terms of the chunk). */
  conceptsPerChunk: 0,
  /** Drop terms that occur in more than this fraction of chunks (they link everything to everything). */
  maxDfFraction: 0.3,
  /**
   * Word statistics per script (text/scripts.ts): in a library written in both CJK and other scripts, a term's IDF
   * (BM25's and the concepts') and the concept cap count the chunks of its own script, not every chunk, so Chinese
   * documentation beside English text weighs its words as it does alone. A library of one script is unchanged.
   * Every path builds it alike: the engine in memory, the pages (cli index --pages and --stream: version 11's
   * scriptChunks), a library reopened around its stored table (which names the counts it was chosen with), the
   * app's incremental graph and BM25 read batch by batch.
   */
  scriptStatistics: true,
  /** Add multi-word capitalized phrases ("Port of Spain") as concepts. */
  phrases: true,
  /**
   * Concepts are each chunk's keyphrases (src/core/graph/keyphrases.ts: salient within its document, headings,
   * names and code identifiers whole, recurring word pairs, no generic words); off = every index term and phrase.
   */
  keyphrases: true,
  /** Keyphrases kept per chunk: ⌈keyphraseScale · √(distinct candidates)⌉ (0 = all candidates). */
  keyphraseScale: 6,
  /** Edge iff the two concepts co-occur in at least θco chunks … */
  thetaCo: 1,
  /** … and (when vectors exist) their concept vectors have cosine ≥ θsem. */
  thetaSem: 0.5,
  /** PageRank damping: probability of following an edge (1 − restart probability). */
  damping: 0.5,
  /** Forward-push tolerance of personalized PageRank (residual per unit of weighted degree). */
  pushEpsilon: 1e-5,
  /**
   * The walk's hubs (issue 47, measured only): a concept in more than this many chunks is never pushed by the walk —
   * it keeps its residual and gets no score (graph/pagerank.ts, `held`). A library read by ranges computes a pushed
   * concept's row from all its chunks' rows, and at 1 GiB the few pushed concepts of df > 1,000 name most of a
   * question's rows (docs/results/question-bytes.md, round twenty-four). Below 1: that share of the library's
   * chunks (0.001 = df above 1,048 of 1.05 M chunks). 0 = off: every concept is pushed.
   */
  walkMaxDf: 0,
  /** Lexical seed weight = IDF^seedIdfPower (higher favours rare names over generic words). */
  seedIdfPower: 6,
  /** A question phrase concept ("terry richardson") replaces its single words as seeds (no double counting). */
  phraseSubsumes: false,
  /** Share of the restart mass given to concepts found word for word in the question (rest: embedding seeds). */
  lexicalSeedShare: 0.8,
  /** Embedding seeds: how many nearest concepts to the question vector. */
  embeddingSeeds: 10,
  /** Embedding seeds are searched among the concepts of this many nearest chunks (keeps the query fast). */
  embeddingSeedChunks: 20,
  /** Chunk score from concept ranks: Σ PPR(c) / |T(c)|^chunkScorePower (1 = the prototype's PPR(c)/|T(c)|). */
  chunkScorePower: 1,
  /**
   * How a concept's walk mass is shared among its chunks: ∝ tf(c, k)^tfSpread (0 = evenly, the prototype's
   * PPR(c)/|T(c)|; 1 = by how often the chunk mentions the concept, so a passage about X beats one naming X once).
   */
  tfSpread: 1,
  /** … divided by (number of concepts of the chunk)^chunkLengthPower, so long chunks do not win by size alone. */
  chunkLengthPower: 0.5,
  /**
   * Graph feedback (a second walk): the concepts of the best `feedbackChunks` chunks of the first walk (those in at
   * least 2 chunks, IDF^p-weighted) join the restart vector with share `feedbackShare`. 0 = one walk.
   */
  feedbackChunks: 2,
  feedbackShare: 0.3,
  /**
   * In-mode lexical fusion: each chunk's walk score gains weight × (its BM25 score over the question's concepts,
   * phrases included, ÷ the best such score) × the walk's best chunk score. 0 = the walk alone.
   */
  lexicalChunkWeight: 0.05,
  /** The same lexical evidence in the first walk only, i.e. in the choice of the feedback chunks. */
  lexicalFeedbackWeight: 2,
  /** The lexical evidence counts for its best this-many chunks only (0 = every chunk naming a question concept). */
  lexicalTopChunks: 5,
  /**
   * Lexical evidence from BM25 over every index term (plus question phrases from the concepts) instead of over
   * concepts only: a term too common to be a concept ("computed" in a Vue library) still says which chunk is meant.
   */
  lexicalAllTerms: true,
  /**
   * BM25F for that evidence: a chunk's heading path (document › heading › subheading) counts as this many extra
   * copies of its words (0 = text only). Whole integer; the plain `bm25` mode never uses it.
   */
  headingWeight: 1,
  /**
   * How much the final score leans on the words, decided per question (questionBlend.ts): blend = where the mean
   * log2(1 + chunks per document) of the question's best `blendNeighbours` lexical matches lies between blendFrom
   * and blendTo, clamped to [0, 1]. The final lexical weight goes geometrically from lexicalChunkWeight (blend 0,
   * passages of their own: the walk ranks) to lexicalBlindWeight (blend 1, sections of long documents: the words rank
   * and the walk only orders what they leave undecided); the lexical evidence keeps its best lexicalTopChunks …
   * lexicalBlindTopChunks chunks (linear in the blend), and question phrases count (1 − blend) in it.
   */
  lexicalBlindWeight: 100,
  /**
   * A chunk whose heading path the question names in full ("Silene" for "Are Ferocactus and Silene both plants?",
   * not "Silene menziesii"): its share of heading words named in the question, to the power titleCoverage, times the
   * text IDF of those words over the question's rarest word's (at most 1), adds titleWeight × (1 − blend) × the
   * walk's best chunk score in both walks (0 = off; pprSearch.ts titleEvidence).
   */
  titleWeight: 0.5,
  titleCoverage: 8,
  /**
   * Bridge hop (issue 45): the second passage of a multi-hop question names the first one's answer, not the question's
   * words. Each of the ranking's best `bridgeHubs` chunks reaches the other chunks naming its concepts that the question
   * does not name (in at least 2 and at most bridgeMaxDf chunks; IDF^seedIdfPower-weighted, normalised per hub, × the
   * concept's tf in the reached chunk^bridgeTf). A reached chunk scores, summed over the hubs reaching it: that reach ×
   * (bridgeFloor + the question's IDF mass it holds and the hub does not, what the hub holds counting bridgeCovered) ×
   * the hub's share of the question's IDF mass^bridgeHubCover. The best `bridgeSlots` not already ranked above
   * `bridgeAt` + bridgeSlots are placed from rank bridgeAt + 1 on (1 − blend of them: none in long documents).
   * 0 slots = off.
   */
  bridgeSlots: 1,
  bridgeHubs: 3,
  bridgeAt: 3,
  bridgeFloor: 0.03,
  bridgeMaxDf: 50,
  bridgeCovered: 0,
  bridgeTf: 0.5,
  bridgeHubCover: 2,
  /**
   * The words' own place (issue 45): where the walk and the bridge hop leave the question's words' best passages
   * (BM25F over text + headings, the evidence the ranking already read) out of the first `wordsAt` + `wordSlots`,
   * the first `wordSlots` of the words' best `wordsTop` not among them are placed from rank wordsAt + 1 on,
   * × (1 − blend) (none in long documents, where the words rank already). 0 slots = off.
   */
  wordSlots: 0,
  wordsAt: 4,
  wordsTop: 1,
  /** Weight of the question's identifier concepts ("v-model", "fs.createreadstream") in the lexical evidence. */
  unitEvidence: 0.5,
  lexicalBlindTopChunks: 50,
  blendNeighbours: 5,
  blendFrom: 1,
  blendTo: 2.5,
  /** `concept` mode (G2ConS local search): direct concepts k, BFS hops N, chunks per concept in the local step. */
  conceptTopK: 25,
  conceptHops: 2,
  conceptChunksPerConcept: 3,
  /** BM25. */
  bm25K1: 1.2,
  bm25B: 0.75,
  /**
   * Evidence window of the default mode: a ranked section of a many-section document longer than this many
   * tokens is shown as its best run of sentences within it (0 = whole chunks).
   */
  evidenceTokens: 350,
  /** … and only chunks longer than evidenceSlack × evidenceTokens are cut. */
  evidenceSlack: 1.5,

  /** Reciprocal-rank fusion constant. */
  rrfK: 60,
  /** How many candidates each mode ranks before the budget cut (fusion and the cut need a long list). */
  candidates: 200,
};

/** Every tunable, each documented at its default value above. */
export type RetrievalParams = typeof defaults;

export const DEFAULTS: Readonly<RetrievalParams> = Object.freeze(defaults);

/** Merges overrides into the defaults, refusing unknown keys and values of the wrong type. */
export function resolveParams(
  overrides: Partial<Record<keyof RetrievalParams, unknown>> = {},
): RetrievalParams {
  const out: RetrievalParams = { ...DEFAULTS };
  for (const [key, value] of Object.entries(overrides)) {
    if (!(key in DEFAULTS)) throw new Error(`retrieval params: unknown parameter "${key}"`);
    const k = key as keyof RetrievalParams;
    const expected = typeof DEFAULTS[k];
    if (typeof value !== expected || (typeof value === 'number' && !Number.isFinite(value))) {
      throw new Error(`retrieval params: "${key}" must be a ${expected}, got ${JSON.stringify(value)}`);
    }
    (out as unknown as Record<string, unknown>)[k] = value;
  }
  return out;
}

/** Parses a `key=value` override (from the CLI) into a typed value for resolveParams. */
export function parseParamOverride(text: string): [keyof RetrievalParams, number | boolean] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new Error(`retrieval params: expected key=value, got "${text}"`);
  const key = text.slice(0, eq).trim();
  const raw = text.slice(eq + 1).trim();
  if (!(key in DEFAULTS)) throw new Error(`retrieval params: unknown parameter "${key}"`);
  const k = key as keyof RetrievalParams;
  if (typeof DEFAULTS[k] === 'boolean') {
    if (raw !== 'true' && raw !== 'false')
      throw new Error(`retrieval params: "${key}" must be true or false`);
    return [k, raw === 'true'];
  }
  const n = Number(raw);
  if (raw === '' || !Number.isFinite(n))
    throw new Error(`retrieval params: "${key}" must be a number, got "${raw}"`);
  return [k, n];
}
