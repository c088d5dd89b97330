// The single retrieval entry point shared by the query worker and the CLI: builds every index of a corpus (the
// lexical layer at once, the semantic layer when sentence vectors are given) and answers a question in any mode,
// as ranked chunks with provenance and highlighted sentences, cut to a token budget.
import { chunkConceptLists, conceptTerms, questionTerms, type TermAnalyzer } from '../graph/index.ts';
import { conceptIndex } from '../graph/index.ts';
import {
  addSemanticLayer,
  buildLexicalGraph,
  compactGraphMismatch,
  ConceptVectorBuilder,
  deserializeGraph,
  graphFromConceptTable,
  sameGraphOptions,
  lexicalLayers,
  lexicalLayersFromTable,
  maskedGraphIndex,
  serializeGraph,
  storedConceptTable,
  withThetaSem,
  type CompactGraph,
  type ConceptGraph,
  type ConceptGraphIndex,
  type ConceptTableGraph,
  type GraphOptions,
  type PrebuiltMaskedGraph,
  type SerializedGraph,
} from '../graph/index.ts';
import { PersonalizedPageRank, sameItems, weightedDegrees, type ConceptTable } from '../graph/index.ts';
import { sameScriptChunks, type ScriptChunks } from '../text/index.ts';
import { Bm25Builder, Bm25Index } from './bm25.ts';
import { HeadingFieldBm25 } from './fieldBm25.ts';
import { conceptSearch } from './conceptSearch.ts';
import {
  layoutCorpus,
  meanChunkVectors,
  reorderRows,
  type CorpusLayout,
  type RetrievalChunkInput,
  type RetrievalSentenceInput,
} from './corpusLayout.ts';
import { DenseIndex } from './dense.ts';
import { reciprocalRankFusion } from './fusion.ts';
import { resolveParams, type RetrievalParams } from './params.ts';
import { rankPpr, type WalkObserver } from './pprSearch.ts';
import { conceptChunkShares, TableAccess } from './conceptAccess.ts';
import { rankedEvidence, SentenceTermCache, sentenceQuery, type EvidenceSource } from './evidence.ts';
import { titleGroupSizes } from './questionBlend.ts';
import { headingField } from './sectionPath.ts';
import { subjectScores } from './subjects.ts';
import { parseMode, type BaseMode, type Candidate, type Query, type RetrievedChunk } from './types.ts';

export interface RetrievalInput {
  chunks: readonly RetrievalChunkInput[];
  sentences: readonly RetrievalSentenceInput[];
  /** Row-major, unit rows, aligned with `sentences` as given. */
  sentenceVectors?: Float32Array;
  dimension?: number;
}

export interface EngineStats {
  chunks: number;
  sentences: number;
  concepts: number;
  /** Undirected edges of the co-occurrence graph (Co ≥ θco). */
  cooccurrenceEdges: number;
  /** Undirected edges the walks use (after θsem when vectors exist). */
  edges: number;
  semantic: boolean;
  /** The per-script chunk counts the statistics use (scriptStatistics on, a library of two scripts). */
  scriptChunks?: ScriptChunks;
}

/** What the default mode's lexical evidence searches: the text's BM25, or BM25F over text and headings. */
type LexicalIndex = Bm25Index | HeadingFieldBm25;

/** RetrievalEngine.lexicalParts: an engine's lexical layer as a library read by ranges stores it. */
export interface LexicalParts {
  layout: CorpusLayout;
  bm25: Bm25Index;
  /** BM25F's heading index and copies (absent when no chunk has a heading path or the weight is 0). */
  headings?: HeadingFieldBm25;
  table: ConceptTable;
  shares: Float32Array;
  /** Weighted degree of every concept in the walk graph. */
  degrees: Float64Array;
  params: RetrievalParams;
  /** The analyser version the word index was built with (absent for a hand-made analyser). */
  analyzer?: number;
}

/** RetrievalEngine.prepareText's result: what opening an engine computes from the text alone. */
export interface PreparedText {
  layout: CorpusLayout;
  bm25: Bm25Index;
  fieldBm25: LexicalIndex;
  analyzeMs: number;
  bm25Ms: number;
}

/** Build time of each index part, in milliseconds (the CLI bench reports them as index seconds). */
export interface EngineTimings {
  analyzeMs: number;
  bm25Ms: number;
  lexicalGraphMs: number;
  semanticMs: number;
  denseMs: number;
}

/** Parameters baked into the concept table and BM25: changing them means building again. */
export const REBUILD_PARAMS: readonly (keyof RetrievalParams)[] = [
  'conceptsPerChunk',
  'maxDfFraction',
  'scriptStatistics',
  'phrases',
  'keyphrases',
  'keyphraseScale',
  'thetaCo',
  'bm25K1',
  'bm25B',
  'headingWeight',
];

/**
 * The walk graph a stored keep-mask gives over the lexical layers, with the concept vectors left to compute
 * later (only another θsem than the mask's needs them first, to re-filter by the cosines). Undefined when the
 * mask was made for another chunk set or other options: a fresh build is the answer then, not an error.
 */
function maskedWalkGraph(
  compact: CompactGraph,
  lexical: Parameters<typeof maskedGraphIndex>[1],
  sentenceVectors: Float32Array,
  dimension: number,
  layout: CorpusLayout,
  analyzer: TermAnalyzer,
  params: RetrievalParams,
  /** The mask already applied to `lexical.cooccurrence` (prebuildMaskedGraph). */
  walk?: ConceptGraph,
): { ordered: Float32Array; vectors: ConceptVectorBuilder; graph: ConceptGraphIndex } | undefined {
  const ordered = reorderRows(sentenceVectors, dimension, layout.sentenceSource);
  const vectors = new ConceptVectorBuilder(
    lexical.table,
    layout.sentenceOffsets,
    (s) => conceptTerms(analyzer, layout.sentences[s].text, params.phrases),
    ordered,
    dimension,
  );
  if (params.thetaSem !== compact.keepThetaSem) vectors.finish();
  try {
    return { ordered, vectors, graph: maskedGraphIndex(compact, lexical, vectors.vectors, walk) };
  } catch {
    return undefined;
  }
}

/**
 * BM25 over each chunk's text and BM25F over its text + headingWeight × heading path (the same index when no chunk
 * has a path or the weight is 0), analysing each chunk once and keeping none of its term lists (see Bm25Builder).
 */
function textIndexes(
  layout: CorpusLayout,
  analyzer: TermAnalyzer,
  params: RetrievalParams,
): Pick<PreparedText, 'bm25' | 'fieldBm25' | 'analyzeMs' | 'bm25Ms'> {
  const started = performance.now();
  const { text, headings, copies, analyzeMs } = analyseChunks(layout, layout.chunks, analyzer, params);
  const bm25 = new Bm25Index(text, params.bm25K1, params.bm25B);
  if (params.scriptStatistics) bm25.countByScript();
  const fieldBm25 = headings
    ? new HeadingFieldBm25(bm25, new Bm25Index(headings), copies, params.bm25K1, params.bm25B)
    : bm25;
  return { bm25, fieldBm25, analyzeMs, bm25Ms: performance.now() - started - analyzeMs };
}

/**
 * The text and heading-path terms of `chunks` (of `layout`), each chunk analysed once, in BM25 builders: the
 * heading builder only when a chunk of the layout has a path and the heading weight gives at least one copy.
 */
function analyseChunks(
  layout: CorpusLayout,
  chunks: readonly CorpusLayout['chunks'][number][],
  analyzer: TermAnalyzer,
  params: RetrievalParams,
): { text: Bm25Builder; headings?: Bm25Builder; copies: number; analyzeMs: number } {
  let analyzeMs = 0;
  const copies = Math.round(params.headingWeight);
  const withFields = copies > 0 && layout.chunks.some((c) => headingField(c).length);
  const text = new Bm25Builder();
  const headings = withFields ? new Bm25Builder() : undefined;
  for (const c of chunks) {
    const t = performance.now();
    const terms = analyzer.terms(c.text);
    const field = headings ? headingField(c) : [];
    const heading = field.length ? analyzer.terms(field.join('\n')) : [];
    analyzeMs += performance.now() - t;
    text.add(terms);
    headings?.add(heading);
  }
  return { text, headings, copies, analyzeMs };
}

/**
 * The options a library's concept graph is built with: the parameters themselves, and the per-script chunk counts
 * where its words are counted by script (scriptStatistics, a library of two scripts). Stored with the graph, they
 * say how its table was chosen (sameScriptChunks).
 */
function graphOptions(params: RetrievalParams, bm25: Bm25Index): GraphOptions {
  return bm25.scriptChunks ? { ...params, scriptChunks: bm25.scriptChunks } : params;
}

export class RetrievalEngine {
  private graphIndex: ConceptGraphIndex;
  private conceptIds: Map<string, number>;
  private walker: PersonalizedPageRank;
  private shares: Float32Array;
  private concepts: TableAccess;
  private dense?: DenseIndex;
  private sentenceVectors?: Float32Array;
  private readonly chunkScores: Float64Array;
  /** Concept vectors still being computed (an engine opened with a keep-mask, see fromCompact). */
  private pendingVectors?: ConceptVectorBuilder;
  readonly timings: EngineTimings = { analyzeMs: 0, bm25Ms: 0, lexicalGraphMs: 0, semanticMs: 0, denseMs: 0 };

  private constructor(
    private readonly layout: CorpusLayout,
    private readonly bm25: Bm25Index,
    /** BM25F over text + heading path: the words' evidence inside `ppr` (see RetrievalParams.headingWeight). */
    private readonly fieldBm25: LexicalIndex,
    graph: ConceptGraphIndex,
    readonly params: RetrievalParams,
    private readonly analyzer: TermAnalyzer,
  ) {
    this.graphIndex = graph;
    this.conceptIds = conceptIndex(graph.table);
    this.walker = new PersonalizedPageRank(graph.graph);
    this.shares = conceptChunkShares(graph.table, params.tfSpread, params.chunkScorePower);
    this.concepts = new TableAccess(graph.table, this.shares);
    this.chunkScores = new Float64Array(layout.chunks.length);
    this.termCache = new SentenceTermCache(analyzer);
  }

  /** Builds the lexical layer (BM25, concepts, co-occurrence graph, PageRank), then the semantic one if vectors. */
  static build(
    input: RetrievalInput,
    analyzer: TermAnalyzer,
    overrides: Partial<Record<keyof RetrievalParams, unknown>> = {},
  ): RetrievalEngine {
    const params = resolveParams(overrides);
    let t = performance.now();
    const layout = layoutCorpus(input.chunks, input.sentences);
    const conceptLists = chunkConceptLists(analyzer, layout.chunks, params);
    const conceptMs = performance.now() - t;
    const { bm25, fieldBm25, analyzeMs, bm25Ms } = textIndexes(layout, analyzer, params);
    t = performance.now();
    // The concepts count a term's chunks against its script's chunks where BM25 does (scriptStatistics).
    const graph = buildLexicalGraph(
      layout.chunks.map((c) => c.id),
      conceptLists,
      graphOptions(params, bm25),
    );
    const engine = new RetrievalEngine(layout, bm25, fieldBm25, graph, params, analyzer);
    Object.assign(engine.timings, {
      analyzeMs: analyzeMs + conceptMs,
      bm25Ms,
      lexicalGraphMs: performance.now() - t,
    });
    if (input.sentenceVectors) engine.addVectors(input.sentenceVectors, input.dimension ?? 0);
    return engine;
  }

  /** Rebuilds an engine around a stored graph (no concept extraction); BM25 is rebuilt, it takes well under 1 s. */
  static fromGraph(
    input: RetrievalInput,
    analyzer: TermAnalyzer,
    serialized: SerializedGraph,
    overrides: Partial<Record<keyof RetrievalParams, unknown>> = {},
  ): RetrievalEngine {
    const params = resolveParams(overrides);
    const layout = layoutCorpus(input.chunks, input.sentences);
    const graph = deserializeGraph(serialized);
    const ids = layout.chunks.map((c) => c.id);
    if (!sameItems(ids, graph.chunkIds)) {
      throw new Error('retrieval engine: the stored concept graph was built for a different set of chunks');
    }
    const { bm25, fieldBm25 } = textIndexes(layout, analyzer, params);
    const engine = new RetrievalEngine(layout, bm25, fieldBm25, graph, params, analyzer);
    if (input.sentenceVectors) engine.attachVectors(input.sentenceVectors, input.dimension ?? 0);
    return engine;
  }

  /**
   * Opens a lexical-only library around its stored concept table (a bundle's table graph): the text is analysed
   * for BM25 only, the keyphrases are not chosen again, and the edges and ranks follow from the table. Undefined,
   * with nothing computed but the layout, when the table does not apply (other chunks or options): then build.
   */
  static fromTable(
    input: RetrievalInput,
    analyzer: TermAnalyzer,
    stored: ConceptTableGraph,
    overrides: Partial<Record<keyof RetrievalParams, unknown>> = {},
    /** The text's analysis and BM25 over this same input (prepareText or extendText), with the default parameters. */
    text?: PreparedText,
    /**
     * The graph of this same table, made by another worker (prebuildTableGraph): taken when it is over these chunks
     * with these options, else the graph is made here.
     */
    prebuilt?: ConceptGraphIndex,
  ): RetrievalEngine | undefined {
    if (input.sentenceVectors) return undefined;
    const params = resolveParams(overrides);
    const t = performance.now();
    const layout = text?.layout ?? layoutCorpus(input.chunks, input.sentences);
    const ids = layout.chunks.map((c) => c.id);
    const usablePrebuilt =
      prebuilt && sameGraphOptions(prebuilt.options, params) && sameItems(prebuilt.chunkIds, ids);
    const graph = usablePrebuilt ? prebuilt : graphFromConceptTable(stored, ids, params);
    if (typeof graph === 'string') return undefined;
    const lexicalGraphMs = performance.now() - t;
    const usable = text && REBUILD_PARAMS.every((k) => params[k] === resolveParams()[k]);
    const { bm25, fieldBm25, analyzeMs, bm25Ms } = usable ? text : textIndexes(layout, analyzer, params);
    // The table's concepts were chosen against one N or the N of each script (scriptStatistics): only the words'
    // counts tell which this library needs, so a table chosen the other way is built again.
    if (!sameScriptChunks(stored.options, bm25.scriptChunks)) return undefined;
    // The graph's options name the counts, as a build's do (a graph made elsewhere, by params alone, gains them).
    const named = sameScriptChunks(graph.options, bm25.scriptChunks)
      ? graph
      : { ...graph, options: graphOptions(params, bm25) };
    const engine = new RetrievalEngine(layout, bm25, fieldBm25, named, params, analyzer);
    Object.assign(engine.timings, { analyzeMs, bm25Ms, lexicalGraphMs });
    return engine;
  }

  /**
   * The text's part of opening an engine — layout, analysis, BM25 and BM25F — for fromCompact's `prepared`: the
   * query worker computes it while another worker builds the graph from the stored concept table.
   */
  static prepareText(input: RetrievalInput, analyzer: TermAnalyzer): PreparedText {
    const params = resolveParams();
    const layout = layoutCorpus(input.chunks, input.sentences);
    return { layout, ...textIndexes(layout, analyzer, params) };
  }

  /**
   * prepareText for `input` when it holds every chunk of `previous` (a library that gained documents, or whose
   * graph alone was written again): only the added chunks are analysed, and their postings merged into the
   * previous engine's BM25 and heading indexes (Bm25Index.extended). The result is the one prepareText gives, to
   * the last bit. Undefined when it does not apply (a chunk removed or changed, another analyser or parameters).
   */
  static extendText(
    previous: RetrievalEngine,
    input: RetrievalInput,
    analyzer: TermAnalyzer,
  ): PreparedText | undefined {
    const params = resolveParams();
    if (analyzer !== previous.analyzer || REBUILD_PARAMS.some((k) => params[k] !== previous.params[k]))
      return undefined;
    const t0 = performance.now();
    const layout = layoutCorpus(input.chunks, input.sentences);
    const before = previous.layout.chunks;
    const place = new Uint32Array(before.length);
    const addedPlace: number[] = [];
    let k = 0;
    for (let i = 0; i < layout.chunks.length; i++) {
      const c = layout.chunks[i];
      if (k < before.length && before[k].id === c.id) {
        if (
          before[k].text !== c.text ||
          (before[k].path ?? []).join('\n') !== (c.path ?? []).join('\n') ||
          !before[k].pathLabel !== !c.pathLabel
        )
          return undefined;
        place[k++] = i;
      } else addedPlace.push(i);
    }
    if (k !== before.length) return undefined;
    const addedChunks = addedPlace.map((i) => layout.chunks[i]);
    const { text, headings, copies, analyzeMs } = analyseChunks(layout, addedChunks, analyzer, params);
    const added = Uint32Array.from(addedPlace);
    const bm25 = previous.bm25.extended(place, text, added);
    let fieldBm25: LexicalIndex = bm25;
    if (headings) {
      // Chunks without a heading path add no heading terms: a library that had none had no heading index.
      const own = previous.fieldBm25 instanceof HeadingFieldBm25 ? previous.fieldBm25.headings : undefined;
      const base = own ?? new Bm25Index(before.map(() => []));
      const headingIndex = base.extended(place, headings, added);
      fieldBm25 = new HeadingFieldBm25(bm25, headingIndex, copies, params.bm25K1, params.bm25B);
    }
    return { layout, bm25, fieldBm25, analyzeMs, bm25Ms: performance.now() - t0 - analyzeMs };
  }

  /**
   * Opens an engine with a stored keep-mask (a bundle's or the store's compact graph): the lexical layers are
   * rebuilt from the text, analysed once for BM25 and the concepts, and the walk graph is the mask's edges, so
   * no edge cosine is computed. The concept vectors are what is left: they are computed when a question brings
   * its vector (the embedding seeds and `concept` read them), or before that in steps (advanceSemantic), so a
   * question without a vector is answered first. Every answer is the one the fully built engine gives.
   * Undefined when the mask does not apply (other chunks, options, dimension or counts): then build instead.
   */
  static fromCompact(
    input: RetrievalInput,
    analyzer: TermAnalyzer,
    compact: CompactGraph,
    previous?: RetrievalEngine,
    /**
     * Parts computed ahead, possibly while another worker built the rest: the text's analysis and BM25
     * (prepareText over this same input), and the co-occurrence and walk graphs of `compact` (prebuildMaskedGraph
     * over this same compact graph, with the current parameters). The engine is the one built without them.
     */
    prepared: { text?: PreparedText; graph?: PrebuiltMaskedGraph } = {},
  ): RetrievalEngine | undefined {
    const params = resolveParams();
    const dimension = input.dimension ?? 0;
    if (!input.sentenceVectors || !(dimension > 0)) return undefined;
    const { text, graph: prebuilt } = prepared;
    let t = performance.now();
    const layout = text?.layout ?? layoutCorpus(input.chunks, input.sentences);
    const ids = layout.chunks.map((c) => c.id);
    // The cheap refusals first (documents added or removed since the mask was made), before analysing any text.
    if (compactGraphMismatch(compact, ids, params, dimension)) return undefined;
    // A previous engine over the same lexical layers (lexicalFor) gives them and its text indexes whole. Else the
    // mask's own concept table when it carries one (the edges it indexes, whatever this platform's analysis);
    // otherwise the concepts are extracted again, as the build does.
    const reused = previous?.lexicalFor(ids, input, params, compact, analyzer);
    const stored = reused ? undefined : (prebuilt?.table ?? storedConceptTable(compact));
    const conceptLists = reused || stored ? [] : chunkConceptLists(analyzer, layout.chunks, params);
    const conceptMs = performance.now() - t;
    const textPart: PreparedText = reused
      ? { layout: reused.layout, bm25: reused.bm25, fieldBm25: reused.fieldBm25, analyzeMs: 0, bm25Ms: 0 }
      : (text ?? { layout, ...textIndexes(layout, analyzer, params) });
    const own = reused?.params ?? params;
    // A stored table (the mask's, or the other worker's from it) is this library's only if it was chosen against
    // the same per-script counts as the words are now (scriptStatistics); a table chosen here is chosen so.
    if (!reused && stored && !sameScriptChunks(compact.options, textPart.bm25.scriptChunks)) return undefined;
    const options = reused ? reused.graphIndex.options : graphOptions(params, textPart.bm25);
    t = performance.now();
    const layers = reused?.graphIndex ?? prebuilt;
    const lexical = layers
      ? {
          chunkIds: ids,
          table: layers.table,
          cooccurrence: layers.cooccurrence,
          graph: layers.cooccurrence,
          options,
        }
      : stored
        ? lexicalLayersFromTable(ids, stored, options)
        : lexicalLayers(ids, conceptLists, options);
    const masked = maskedWalkGraph(
      compact,
      lexical,
      input.sentenceVectors,
      dimension,
      textPart.layout,
      analyzer,
      own,
      reused ? undefined : prebuilt?.walk,
    );
    if (!masked) return undefined;
    const { ordered, vectors, graph } = masked;
    const lexicalGraphMs = performance.now() - t;
    const { bm25, fieldBm25, bm25Ms } = textPart;
    const engine = new RetrievalEngine(textPart.layout, bm25, fieldBm25, graph, own, analyzer);
    Object.assign(engine.timings, { analyzeMs: textPart.analyzeMs + conceptMs, bm25Ms, lexicalGraphMs });
    engine.useVectors(ordered, dimension, vectors);
    return engine;
  }

  /**
   * This engine's lexical layers when they are the ones `compact` was made over: the same chunks, analyser and
   * parameters, and a concept table equal to the mask's (the library's documents gained vectors, nothing else
   * changed). The query worker then adds the semantic layer to the lexical library it already has instead of
   * analysing the text again.
   */
  private lexicalFor(
    ids: readonly string[],
    input: RetrievalInput,
    params: RetrievalParams,
    compact: CompactGraph,
    analyzer: TermAnalyzer,
  ): RetrievalEngine | undefined {
    const t = compact.table;
    const mine = this.graphIndex.table;
    if (!t || analyzer !== this.analyzer || !sameItems(this.graphIndex.chunkIds, ids)) return undefined;
    if (REBUILD_PARAMS.some((k) => params[k] !== this.params[k])) return undefined;
    // The caller's sentences in the order this layout reads them (its vectors are reordered the same way).
    const { sentences, sentenceSource } = this.layout;
    if (input.sentences.length !== sentences.length) return undefined;
    for (let i = 0; i < sentences.length; i++) {
      const s = input.sentences[sentenceSource[i]];
      if (s.chunkId !== sentences[i].chunkId || s.index !== sentences[i].index) return undefined;
    }
    const equal =
      sameItems(t.terms, mine.terms) &&
      sameItems(t.idf, mine.idf) &&
      sameItems(t.chunkConceptOffsets, mine.chunkConceptOffsets) &&
      sameItems(t.chunkConcepts, mine.chunkConcepts) &&
      sameItems(t.chunkConceptWeights, mine.chunkConceptWeights);
    return equal ? this : undefined;
  }

  /** Whether every part of the semantic layer is computed (false while fromCompact's concept vectors are not). */
  get semanticReady(): boolean {
    return this.pendingVectors === undefined;
  }

  /**
   * Computes concept vectors for about `ms` milliseconds (the query worker does this between questions after
   * the engine opened); returns whether they are complete.
   */
  advanceSemantic(ms: number): boolean {
    const pending = this.pendingVectors;
    if (!pending) return true;
    const t = performance.now();
    const done = pending.step(t + ms);
    this.timings.semanticMs += performance.now() - t;
    if (done) this.pendingVectors = undefined;
    return done;
  }

  /**
   * The concept vectors `ppr` reads for a question vector, while the rest are still being computed: those of
   * the concepts of the question's nearest chunks, where pprSearch looks for its embedding seeds (the same pool).
   */
  private ensureSeedVectors(vector: Float32Array): void {
    const pending = this.pendingVectors;
    const p = this.params;
    if (!pending || !this.dense || p.embeddingSeeds <= 0 || p.lexicalSeedShare >= 1) return;
    const t = this.graphIndex.table;
    const pool: number[] = [];
    for (const { chunk } of this.dense.search(vector, p.embeddingSeedChunks)) {
      for (let j = t.chunkConceptOffsets[chunk]; j < t.chunkConceptOffsets[chunk + 1]; j++) {
        pool.push(t.chunkConcepts[j]);
      }
    }
    const started = performance.now();
    pending.ensure(pool);
    this.timings.semanticMs += performance.now() - started;
  }

  /** Computes whatever concept vectors are left (anything that reads them calls this first). */
  completeSemantic(): void {
    this.advanceSemantic(Infinity);
  }

  /**
   * The same indexes under other query-time parameters (seeds, damping, scoring, θsem re-filtered from the stored
   * cosines). Parameters that shape the concepts or BM25 need a rebuild and are refused.
   */
  withParams(overrides: Partial<Record<keyof RetrievalParams, unknown>>): RetrievalEngine {
    this.completeSemantic();
    const params = resolveParams({ ...this.params, ...overrides });
    for (const key of REBUILD_PARAMS) {
      if (params[key] !== this.params[key]) {
        throw new Error(`retrieval engine: changing "${key}" needs RetrievalEngine.build, not withParams`);
      }
    }
    const graph =
      params.thetaSem !== this.params.thetaSem
        ? withThetaSem(this.graphIndex, params.thetaSem)
        : this.graphIndex;
    const copy = new RetrievalEngine(this.layout, this.bm25, this.fieldBm25, graph, params, this.analyzer);
    copy.dense = this.dense;
    copy.sentenceVectors = this.sentenceVectors;
    Object.assign(copy.timings, this.timings);
    return copy;
  }

  /** Chunk vectors in engine order (normalized mean of sentence vectors), once vectors were added. */
  get chunkVectors(): Float32Array | undefined {
    return this.dense?.vectors;
  }

  get hasVectors(): boolean {
    return this.dense !== undefined;
  }

  get graph(): ConceptGraphIndex {
    this.completeSemantic();
    return this.graphIndex;
  }

  /** Chunk ids in engine order. */
  get chunkIds(): readonly string[] {
    return this.graphIndex.chunkIds;
  }

  /** Adds the semantic layer: chunk vectors for dense search, concept vectors, θsem-filtered graph. */
  addVectors(sentenceVectors: Float32Array, dimension: number): void {
    const ordered = this.attachVectors(sentenceVectors, dimension);
    const t = performance.now();
    const sentenceTerms = this.layout.sentences.map((s) =>
      conceptTerms(this.analyzer, s.text, this.params.phrases),
    );
    this.graphIndex = addSemanticLayer(
      this.graphIndex,
      { sentenceOffsets: this.layout.sentenceOffsets, sentenceTerms },
      ordered,
      dimension,
    );
    this.walker = new PersonalizedPageRank(this.graphIndex.graph);
    this.timings.semanticMs = performance.now() - t;
  }

  private attachVectors(sentenceVectors: Float32Array, dimension: number): Float32Array {
    if (!(dimension > 0)) throw new Error(`retrieval engine: vector dimension must be > 0, got ${dimension}`);
    const ordered = reorderRows(sentenceVectors, dimension, this.layout.sentenceSource);
    this.useVectors(ordered, dimension);
    return ordered;
  }

  /** Sentence vectors in layout order, their chunk means for dense search, and concept vectors still to compute. */
  private useVectors(ordered: Float32Array, dimension: number, pending?: ConceptVectorBuilder): void {
    const t = performance.now();
    this.sentenceVectors = ordered;
    this.dense = new DenseIndex(meanChunkVectors(ordered, dimension, this.layout.sentenceOffsets), dimension);
    this.timings.denseMs = performance.now() - t;
    if (pending && !pending.done) this.pendingVectors = pending;
  }

  exportGraph(): SerializedGraph {
    this.completeSemantic();
    return serializeGraph(this.graphIndex);
  }

  stats(): EngineStats {
    return {
      chunks: this.layout.chunks.length,
      sentences: this.layout.sentences.length,
      concepts: this.graphIndex.table.terms.length,
      cooccurrenceEdges: this.graphIndex.cooccurrence.targets.length / 2,
      edges: this.graphIndex.graph.targets.length / 2,
      semantic: this.graphIndex.semantic !== undefined,
      ...(this.bm25.scriptChunks && { scriptChunks: this.bm25.scriptChunks }),
    };
  }

  /** Ranked candidates of a mode before the budget cut (at most params.candidates). */
  rank(query: Query, mode: string): Candidate[] {
    const parsed = parseMode(mode);
    if ('base' in parsed) return this.rankBase(query, parsed.base);
    const [a, b] = parsed.fuse;
    return reciprocalRankFusion([this.rankBase(query, a), this.rankBase(query, b)], this.params.rrfK, [a, b]);
  }

  /** Answers a question: ranked chunks of `mode`, cut to `budgetTokens`, with provenance and best sentences. */
  search(query: Query, mode: string, budgetTokens: number): RetrievedChunk[] {
    this.checkVector(query);
    const ranked = this.rank(query, mode);
    return rankedEvidence(this.evidenceSource(), ranked, {
      mode,
      vector: query.vector,
      query: sentenceQuery(
        this.analyzer,
        query.text,
        (t) => this.bm25.idf(t),
        this.conceptIds,
        (c) => this.graphIndex.table.idf[c],
      ),
      budgetTokens,
      window: this.params.evidenceTokens,
      slack: this.params.evidenceSlack,
    });
  }

  private checkVector(query: Query): void {
    if (query.vector && this.dense && query.vector.length !== this.dense.dimension) {
      throw new Error(
        `retrieval engine: question vector has ${query.vector.length} dimensions, index has ${this.dense.dimension}`,
      );
    }
  }

  /** What evidence reads of this engine (evidence.ts), over its layout and its current vectors. */
  private evidenceSource(): EvidenceSource {
    const { chunks, sentences, sentenceOffsets } = this.layout;
    return {
      analyzer: this.analyzer,
      chunk: (k) => chunks[k],
      sentences: (k) => ({
        first: sentenceOffsets[k],
        list: sentences.slice(sentenceOffsets[k], sentenceOffsets[k + 1]),
      }),
      documentChunks: (k) => this.documentChunks(k),
      conceptTerm: (c) => this.graphIndex.table.terms[c],
      sentenceVectors: this.sentenceVectors,
      dimension: this.dense?.dimension ?? 0,
      sentenceTerms: (s, text) => this.termCache.get(s, text),
    };
  }
  private readonly termCache: SentenceTermCache;

  /**
   * The `ppr` ranking with its final walk shown to `observe` while it is still in the walker's buffers: what the
   * concept-graph view draws (walkView.ts). The ranking is the one `rank(query, 'ppr')` returns.
   */
  pprWithWalk(query: Query, limit: number, observe: WalkObserver): Candidate[] {
    if (query.vector && this.dense) this.ensureSeedVectors(query.vector);
    this.checkVector(query);
    return this.ppr(query, limit, observe);
  }

  private ppr(query: Query, limit: number, observe?: WalkObserver): Candidate[] {
    return rankPpr(
      {
        concepts: this.concepts,
        graph: this.graphIndex,
        conceptIds: this.conceptIds,
        walker: this.walker,
        dense: this.dense,
        chunkScores: this.chunkScores,
        params: this.params,
        shares: this.shares,
      },
      {
        analyzer: this.analyzer,
        words: this.bm25,
        fields: this.fieldBm25,
        headings:
          this.fieldBm25 instanceof HeadingFieldBm25
            ? {
                postingsOf: (term) => (this.fieldBm25 as HeadingFieldBm25).headings.postingsOf(term),
                lengthOf: (k) => (this.fieldBm25 as HeadingFieldBm25).headings.lengthOf(k),
                textIdf: (term) => this.bm25.idf(term),
              }
            : undefined,
        documentChunks: (k) => this.titleChunks(k),
      },
      query.text,
      this.dense ? query.vector : undefined,
      limit,
      observe,
    );
  }

  /** Chunks of chunk k's document (counted once per engine). */
  private documentChunks(k: number): number {
    if (!this.docChunkCounts) {
      const counts = new Map<string, number>();
      for (const c of this.layout.chunks) counts.set(c.docId, (counts.get(c.docId) ?? 0) + 1);
      this.docChunkCounts = Uint32Array.from(this.layout.chunks, (c) => counts.get(c.docId)!);
    }
    return this.docChunkCounts[k];
  }
  private docChunkCounts?: Uint32Array;

  /** Chunks of chunk k's document or of the documents sharing its title (the question blend's unit). */
  private titleChunks(k: number): number {
    this.titleChunkCounts ??= titleGroupSizes(this.layout.chunks);
    return this.titleChunkCounts[k];
  }
  private titleChunkCounts?: Uint32Array;

  private rankBase(query: Query, mode: BaseMode): Candidate[] {
    const limit = this.params.candidates;
    const vector = this.dense ? query.vector : undefined;
    // Concept vectors still being computed: `ppr` reads those of its embedding seeds' pool, `concept` all of them.
    if (vector && mode === 'ppr') this.ensureSeedVectors(vector);
    else if (vector && mode === 'concept') this.completeSemantic();
    switch (mode) {
      case 'bm25':
        return this.bm25.search(this.analyzer.terms(query.text), limit);
      case 'dense':
        if (!this.dense || !query.vector) {
          throw new Error('retrieval engine: dense mode needs sentence vectors and a question vector');
        }
        return this.dense.search(query.vector, limit);
      case 'ppr':
        return this.ppr(query, limit);
      case 'concept': {
        const qTerms = questionTerms(this.analyzer, query.text, this.conceptIds);
        let similarity: ArrayLike<number>;
        if (vector && this.dense) {
          similarity = Float64Array.from(this.dense.scoreAll(vector));
        } else {
          const s = new Float64Array(this.layout.chunks.length);
          for (const { chunk, score } of this.bm25.search(this.analyzer.terms(query.text), s.length))
            s[chunk] = score;
          similarity = s;
        }
        return conceptSearch(
          {
            graph: this.graphIndex,
            conceptIds: this.conceptIds,
            params: this.params,
            questionTerms: qTerms,
            vector,
            chunkSimilarity: similarity,
          },
          limit,
        );
      }
    }
  }

  /** The library analyser's terms of a text (stems, no stop words): what the question's words are compared by. */
  terms(text: string): string[] {
    return this.analyzer.terms(text);
  }

  /** The library's subjects for a top list of `limit` concepts (subjects.ts): conceptMap's third argument. */
  subjectScores(limit: number): Float64Array {
    const ordinal = new Map<string, number>();
    const documentOf = Uint32Array.from(this.layout.chunks, (c) => {
      let d = ordinal.get(c.docId);
      if (d === undefined) ordinal.set(c.docId, (d = ordinal.size));
      return d;
    });
    return subjectScores(
      { graph: this.graphIndex, words: this.bm25, documentOf, terms: (text) => this.terms(text) },
      limit,
    );
  }

  /**
   * What a library read by ranges is written from (src/core/paged/write.ts): the layout, the word indexes, the
   * concept table with its shares, and the walk graph's weighted degrees. Only the lexical layer: with vectors the
   * walk graph is filtered by θsem, which the paged library does not compute.
   */
  lexicalParts(): LexicalParts {
    if (this.dense)
      throw new Error('retrieval engine: a library read by ranges holds the lexical layer only');
    return {
      layout: this.layout,
      bm25: this.bm25,
      headings: this.fieldBm25 instanceof HeadingFieldBm25 ? this.fieldBm25 : undefined,
      table: this.graphIndex.table,
      shares: this.shares,
      degrees: weightedDegrees(this.graphIndex.graph),
      params: this.params,
      analyzer: this.analyzer.version,
    };
  }

  /** Whether this engine answers words from the very index `other` does (its text was not analysed again). */
  sharesTextIndexWith(other: RetrievalEngine | PreparedText): boolean {
    return this.bm25 === (other instanceof RetrievalEngine ? other.bm25 : other.bm25);
  }
}
