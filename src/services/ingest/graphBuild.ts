// The concept graph after a batch of documents (or a removal, or once every document has its vectors), stored with
// its counts. The ingest pipeline refreshes it with IncrementalGraphRefresh (below): the chunks stored since the
// last refresh are added to an incremental graph, not the whole library rebuilt (test/support/fullGraphBuild.ts is
// the full build tests and benches compare it with). The store keeps only what a load cannot rebuild in seconds
// (Repo.putGraph: the θsem keep-mask of a graph with a semantic layer; the concept table of a lexical-only one), plus the
// incremental state (Repo.putGraphState, a few MB) so a reload continues from it.
import {
  IncrementalConceptGraph,
  chunkConceptLists,
  deserializeGraph,
  serializeGraph,
  type ConceptGraphIndex,
  type IncrementalChunk,
} from '../../core/graph/index.ts';
import {
  resolveParams,
  semanticCompactGraph,
  type RetrievalEngine,
  type RetrievalInput,
} from '../../core/retrieval/index.ts';
import type { RetrievalParams } from '../../core/retrieval/index.ts';
import { scriptCountsOf } from '../../core/text/index.ts';
import type { LoadedCorpus, Repo } from '../../store/repo.ts';
import { buildEngine, retrievalInput, termAnalyzer } from '../library/engine.ts';
import { handedLayers, type HandedLexicalGraph } from '../library/graphHandOver.ts';
import { themesForStore } from '../themes/themesOf.ts';

/** Builds the engine whose graph a full rebuild stores (the seam: tests count full builds through it). */
export type GraphBuilder = (corpus: LoadedCorpus) => RetrievalEngine;

/**
 * A stored state whose chunks differ from the store's by more than this share is replaced by a full build (most
 * chunks would be analysed anyway, and the build gives the next merges a base).
 */
const STALE_SHARE = 0.25;

/**
 * The ingest pipeline's graph refresh with the incremental concept graph (src/core/graph/incremental.ts): one
 * IncrementalConceptGraph per library, held between the refreshes of a drain (release() lets it go when the drain
 * ends). A refresh compares the graph's chunks with the store's (chunk ids are derived from the documents' content
 * hashes, so an id names one text for good), adds the chunks stored since and removes the ones gone, takes a
 * snapshot (a merge of the previous one, no recount) and stores it as a full build does; the semantic layer,
 * once every document has its vectors, is the snapshot's concept vectors and keep-mask, computed in full and stored
 * in the compact form (semanticCompactGraph: the same mask a full engine exports). The state (toJSON, per-chunk
 * term counts) is stored in the graph table, so a reload, another tab or the next drain continues from it (its
 * first snapshot recounts the pairs: the lexical snapshot itself is not stored). A full build through `build`
 * (the seam) happens when no usable state exists: none stored, built with other parameters, unreadable, or (when
 * read from the store) covering a chunk set too far from the store's; a state that lags the store by a few
 * documents (a reload during a drop) is brought up to date by the same diff.
 */
export class IncrementalGraphRefresh {
  private graph: IncrementalConceptGraph | null = null;
  private ids = new Set<string>();
  private repo: Repo | null = null;

  constructor(private readonly build: GraphBuilder = buildEngine) {}

  /** The snapshot of the last refresh (lexical layer), for tests and benchmarks. */
  lastSnapshot: ConceptGraphIndex | null = null;

  /**
   * The graph of the last refresh when the store holds it as its concept table (a lexical library), for the query
   * worker (src/services/library/graphHandOver.ts): null once a semantic layer is stored, or when none is held.
   */
  private stored: ConceptGraphIndex | null = null;

  /** The lexical layers of the stored graph, handed to the query worker (a copy crosses; null: none held). */
  readonly handOver = (): HandedLexicalGraph | null => handedLayers(this.stored);

  /** Whether an incremental graph is held in memory (between the refreshes of a drain), for tests and benchmarks. */
  get held(): boolean {
    return this.graph !== null;
  }

  /** The pipeline's `rebuildGraph` dependency. */
  readonly refresh = (repo: Repo, signal: AbortSignal): Promise<void> => this.run(repo, signal, false);

  /** A full build and a fresh state, whatever is stored (after a bundle merge). */
  readonly rebuild = (repo: Repo, signal: AbortSignal): Promise<void> => this.run(repo, signal, true);

  private async run(repo: Repo, signal: AbortSignal, full: boolean): Promise<void> {
    if (repo !== this.repo) this.forget();
    this.repo = repo;
    // The lexical layer needs only the chunks stored since the last refresh (and the ids of all, for the diff):
    // reading the whole library at every refresh of a drop made each cost more than the last, and held the whole
    // corpus in this worker's memory beside the graph. The semantic layer (any vectors stored) reads it all.
    if (!full && !(await repo.hasVectors())) {
      const ids = await repo.chunkIds();
      signal.throwIfAborted();
      if (ids.length === 0) {
        this.forget();
        return;
      }
      if (await this.refreshLexical(repo, ids, signal)) return;
    }
    let corpus = await repo.loadCorpus();
    signal.throwIfAborted();
    if (corpus.chunks.length === 0) {
      this.forget();
      return;
    }
    const params = resolveParams();
    const input = retrievalInput(corpus);
    const restored = this.graph === null;
    this.graph ??= await this.restore(repo, params);
    const stored = new Set(input.chunks.map((c) => c.id));
    const gone = [...this.ids].filter((id) => !stored.has(id));
    const added = input.chunks.filter((c) => !this.ids.has(c.id));
    const graph = this.graph;
    const stale = restored && gone.length + added.length > STALE_SHARE * input.chunks.length;
    if (!graph || stale || full) {
      await this.fullBuild(repo, corpus, input, params, signal);
      return;
    }
    // From here on the vectors are read from input's one array: the per-document ones are let go (48 MB on
    // MuSiQue), as the session does (takeRetrievalInput).
    corpus = { ...corpus, vectors: new Map() };
    const analyzer = termAnalyzer();
    this.update(graph, gone, added, params);
    const snapshot = graph.snapshot();
    signal.throwIfAborted();
    if (input.sentenceVectors) {
      // Only what the store keeps (the keep-mask and the table): no engine, no edge cosines, no walk graph.
      const { graph: compact, keptEdges } = semanticCompactGraph(input, analyzer, snapshot);
      const themes = await themesForStore(repo, snapshot);
      // The store holds a keep-mask from here on: nothing the query worker could take as its table graph.
      this.stored = null;
      await repo.putGraph(compact, { concepts: compact.concepts, edges: keptEdges }, themes);
      this.lastSnapshot = snapshot;
    } else await this.storeLexical(repo, snapshot);
    await repo.putGraphState(graph.toJSON());
  }

  /**
   * The lexical refresh from the chunk ids alone: the chunks new since the last refresh are read and analysed,
   * the ones gone removed. False when it cannot be done so (no usable state, or a restored one too far from the
   * store): the caller reads the library and builds in full.
   */
  private async refreshLexical(repo: Repo, ids: string[], signal: AbortSignal): Promise<boolean> {
    const params = resolveParams();
    const restored = this.graph === null;
    this.graph ??= await this.restore(repo, params);
    // No usable state (a first drop): every chunk is added to an empty graph, whose snapshot is the full build's
    // graph. A full build through the engine analysed every chunk twice (for the engine, then for the state) and
    // built the word index besides: most of the time from a drop's last chunk stored to its graph (issue 48).
    const empty = this.graph === null;
    this.graph ??= new IncrementalConceptGraph(params);
    const graph = this.graph;
    const stored = new Set(ids);
    const gone = [...this.ids].filter((id) => !stored.has(id));
    const addedIds = ids.filter((id) => !this.ids.has(id));
    if (restored && !empty && gone.length + addedIds.length > STALE_SHARE * ids.length) {
      // The caller restores it again and finds it stale too: a full build.
      this.forget();
      return false;
    }
    const fresh = await repo.loadChunks(addedIds);
    signal.throwIfAborted();
    const added = retrievalInput({
      meta: undefined,
      ...fresh,
      sentences: [],
      vectors: new Map(),
      graph: undefined,
    }).chunks;
    this.update(graph, gone, added, params);
    const snapshot = graph.snapshot();
    signal.throwIfAborted();
    await this.storeLexical(repo, snapshot);
    await repo.putGraphState(graph.toJSON());
    return true;
  }

  /**
   * Removes the chunks gone and adds the new ones. A document's chunks are stored together, so `added` holds every
   * chunk of each new document (keyphrases are chosen within the document).
   */
  private update(
    graph: IncrementalConceptGraph,
    gone: string[],
    added: ReturnType<typeof retrievalInput>['chunks'],
    params: RetrievalParams,
  ): void {
    if (gone.length > 0) graph.removeChunks(gone);
    graph.addChunks(incrementalChunks(added, params));
    for (const id of gone) this.ids.delete(id);
    for (const c of added) this.ids.add(c.id);
  }

  private async storeLexical(repo: Repo, snapshot: ConceptGraphIndex): Promise<void> {
    const themes = await themesForStore(repo, snapshot);
    await repo.putGraph(
      serializeGraph(snapshot),
      { concepts: snapshot.table.terms.length, edges: snapshot.graph.targets.length / 2 },
      themes,
    );
    this.lastSnapshot = snapshot;
    this.stored = snapshot;
  }

  /**
   * Lets go of the in-memory graph once a drain has ended: its base holds every co-occurring pair of the library
   * (about as much as the query worker's own graph), which an idle library does not need, and which was most of
   * the ingest worker's memory while the query worker reloads the library after the semantic layer is stored
   * (that reload is the drop's peak of memory). The next refresh continues from the stored state (restore), with
   * one recount of the pairs instead of a full build.
   */
  release(): void {
    this.forget();
  }

  private forget(): void {
    this.graph = null;
    this.lastSnapshot = null;
    this.stored = null;
    this.ids = new Set();
  }

  /** The stored state when it was built with these parameters and reads back; null otherwise. */
  private async restore(repo: Repo, params: RetrievalParams): Promise<IncrementalConceptGraph | null> {
    const state = await repo.getGraphState();
    if (!state || JSON.stringify(state.options) !== JSON.stringify(params)) return null;
    try {
      const graph = IncrementalConceptGraph.fromJSON(state);
      this.ids = new Set(state.chunkIds);
      return graph;
    } catch {
      return null;
    }
  }

  /** From scratch through the seam, then a fresh state whose base is the graph just built. */
  private async fullBuild(
    repo: Repo,
    corpus: LoadedCorpus,
    input: RetrievalInput,
    params: RetrievalParams,
    signal: AbortSignal,
  ): Promise<void> {
    this.forget();
    const engine = this.build(corpus);
    signal.throwIfAborted();
    const stats = engine.stats();
    const serialized = engine.exportGraph();
    const themes = await themesForStore(repo, engine.graph);
    await repo.putGraph(serialized, { concepts: stats.concepts, edges: stats.edges }, themes);
    const fresh = new IncrementalConceptGraph(params);
    fresh.addChunks(incrementalChunks(input.chunks, params));
    const state = fresh.toJSON();
    // The built graph becomes the base of the next merge (ignored by fromJSON if it does not match the state).
    this.lastSnapshot = deserializeGraph(serialized);
    // Stored as its concept table when lexical (handedLayers gives nothing for a semantic one).
    this.stored = this.lastSnapshot;
    this.graph = IncrementalConceptGraph.fromJSON(state, this.lastSnapshot);
    this.ids = new Set(state.chunkIds);
    await repo.putGraphState(state);
  }
}

/**
 * Chunks as the incremental graph takes them: their concept terms, and with word statistics per script
 * (scriptStatistics) their text words by script, from the same analysis as the engine's BM25 (an extra reading of
 * the added chunks' text, as countByScript counts the whole library's).
 */
function incrementalChunks(chunks: RetrievalInput['chunks'], params: RetrievalParams): IncrementalChunk[] {
  const analyzer = termAnalyzer();
  const terms = chunkConceptLists(analyzer, chunks, params);
  return chunks.map((c, i) => ({
    id: c.id,
    docId: c.docId,
    terms: terms[i],
    ...(params.scriptStatistics && { scripts: scriptCountsOf(analyzer.terms(c.text)) }),
  }));
}
