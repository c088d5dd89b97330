// The question-time service behind the query worker: one loaded library (the IndexedDB corpus, or a bundle opened
// read-only with ?bundle=), one RetrievalEngine over it, one question embedder, the KG index for the KG modes, and
// the streamed LLM answer with cancel. Every mode is answered through `ask` (the modes themselves are entries in
// queryModes.ts). Dependencies are injected, so Node tests run it over fake-indexeddb and a loopback LLM server.
import { answerQuestion } from '../core/answer/index.ts';
import { KgIndex, type KgChunkView } from '../core/kg/index.ts';
import type { KgEntity, KgRelation } from '../core/kg/index.ts';
import type { LlmClient } from '../core/llm/index.ts';
import type { LlmSettings } from '../core/llm/index.ts';
import type { RetrievalEngine } from '../core/retrieval/index.ts';
import type { RetrievedChunk } from '../core/retrieval/index.ts';
import type { ChunkRecord, DocumentRecord, Embedder } from '../core/types.ts';
import type { ReadOnlyBundle } from '../store/bundleImport.ts';
import type { KgEntityRecord, KgRelationRecord } from '../store/db.ts';
import { entityFromRecord, relationFromRecord } from '../store/kgStore.ts';
import type { LoadedCorpus } from '../store/repo.ts';
import { loadEngine } from './engine.ts';
import { toEvidence } from './evidence.ts';
import { DEFAULT_EMBEDDER, type EmbedderChoice } from './protocol.ts';
import type { AnswerOut, AnswerRequest, AskRequest, AskResult, Evidence } from './queryProtocol.ts';
import { LLM_SETTINGS_KEY, readLlmSettings } from './llmSettings.ts';
import { DEFAULT_LAMBDA, modeHandler } from './queryModes.ts';

export interface QueryDeps {
  /** The IndexedDB library and its settings table (the embedder choice, the LLM endpoint). */
  library: {
    loadCorpus(): Promise<LoadedCorpus>;
    getSetting<T>(key: string): Promise<T | undefined>;
  };
  /** The library's KG (DexieKgStore). */
  kgStore: { entities(): Promise<KgEntity[]>; relations(): Promise<KgRelation[]> };
  /** One memoized question embedder (EmbedderHolder). */
  embedders: { get(choice: EmbedderChoice): Promise<Embedder>; dispose(): Promise<void> };
  /** Fetches and validates a same-origin bundle without writing anything (openBundleReadOnly). */
  openBundle(url: string): Promise<ReadOnlyBundle>;
  llmClient(settings: LlmSettings): LlmClient;
  /** Builds the engine from a corpus; defaults to loadEngine (reusing the stored concept graph). */
  loadEngine?: (corpus: LoadedCorpus) => RetrievalEngine;
}

/** A library ready for questions: its engine and what evidence, the KG search and citations read. */
export interface QuestionLibrary {
  engine: RetrievalEngine;
  documents: Map<string, DocumentRecord>;
  chunks: Map<string, ChunkRecord>;
  /** Sentence ranges per chunk, offsets into the DOCUMENT text. */
  sentences: Map<string, Array<{ start: number; end: number }>>;
  embedderId: string | null;
  layers: { lexical: boolean; semantic: boolean };
}

/** Builds the engine over a corpus (IndexedDB's or a bundle's) and indexes what questions read. */
export function openLibrary(
  corpus: LoadedCorpus,
  load: (corpus: LoadedCorpus) => RetrievalEngine = loadEngine,
): QuestionLibrary {
  if (corpus.chunks.length === 0) throw new Error('ask: the library is empty; add documents first');
  const engine = load(corpus);
  const sentences = new Map<string, Array<{ start: number; end: number }>>();
  for (const s of corpus.sentences) {
    const list = sentences.get(s.chunkId) ?? [];
    list.push({ start: s.start, end: s.end });
    sentences.set(s.chunkId, list);
  }
  return {
    engine,
    documents: new Map(corpus.documents.map((d) => [d.id, d])),
    chunks: new Map(corpus.chunks.map((c) => [c.id, c])),
    sentences,
    embedderId: corpus.meta?.embedderId ?? null,
    layers: { lexical: true, semantic: engine.hasVectors },
  };
}

/** A bundle's KG tables hold records as the store keeps them: read them through the store's own mapping. */
export function bundleKgIndex(tables: Record<string, unknown[]>): KgIndex {
  const entities = (tables.kgEntities ?? []) as KgEntityRecord[];
  const relations = (tables.kgRelations ?? []) as KgRelationRecord[];
  return new KgIndex(
    entities.map(entityFromRecord).filter((e) => e !== null),
    relations.map(relationFromRecord).filter((r) => r !== null),
  );
}

/** Sentence ranges of a chunk as offsets into a text that starts at `textStart` in the document. */
function sentencesWithin(
  library: QuestionLibrary | null,
  chunkId: string,
  textStart: number,
  textLength: number,
): Array<{ start: number; end: number }> | undefined {
  const list = library?.sentences.get(chunkId);
  return list
    ?.map((s) => ({ start: s.start - textStart, end: s.end - textStart }))
    .filter((s) => s.start >= 0 && s.end <= textLength);
}

export class QueryService {
  private readonly load: (corpus: LoadedCorpus) => RetrievalEngine;
  private loaded: Promise<QuestionLibrary> | null = null;
  private kgIndex: Promise<KgIndex> | null = null;
  /**
   * Set as soon as the page asks for a bundle read-only (?bundle=…), before it has arrived: from then on every
   * question waits for the bundle (or its error) and the library in IndexedDB is never read again, apart from
   * the settings (the embedder choice, the LLM endpoint).
   */
  private readOnly: { url: string; library: Promise<QuestionLibrary>; kg: Promise<KgIndex> } | null = null;
  private answerStop: AbortController | null = null;

  constructor(private readonly deps: QueryDeps) {
    this.load = deps.loadEngine ?? loadEngine;
  }

  /**
   * Forgets what was loaded: `library` (documents added or removed) reloads everything on the next question,
   * `kg` (a KG build finished) only the KG index. A read-only bundle never changes, so it is kept.
   */
  invalidate(what: 'library' | 'kg' = 'library'): void {
    if (this.readOnly) return;
    this.kgIndex = null;
    if (what === 'library') this.loaded = null;
  }

  /**
   * Opens a bundle from a same-origin path or URL read-only: questions are answered from it, nothing is written
   * to IndexedDB. Returns its counts for the Library view.
   */
  async openBundle(
    url: string,
  ): Promise<{ url: string; counts: Record<string, number>; embedderId: string | null }> {
    const opening = this.deps.openBundle(url);
    const library = opening.then((bundle) => openLibrary(bundle.corpus, this.load));
    const kg = opening.then((bundle) => bundleKgIndex(bundle.tables));
    // Before any await: a question asked while the bundle downloads must not reach the local library.
    this.readOnly = { url, library, kg };
    this.loaded = library;
    this.kgIndex = kg;
    // A bad bundle is reported here and to every later question (which awaits these), never as unhandled.
    library.catch(() => undefined);
    kg.catch(() => undefined);
    const bundle = await opening;
    await library;
    return { url: bundle.url, counts: bundle.counts, embedderId: bundle.embedder?.id ?? null };
  }

  /** Loads the library and the question embedder ahead of the first question (the Ask view calls it on open). */
  async warmUp(): Promise<void> {
    try {
      const library = await this.library();
      await this.questionVector(library, 'warm up');
    } catch {
      // An empty library or a missing model: the first real question reports it.
    }
  }

  /** One source document (for the viewer when the library is a read-only bundle). */
  async getDocument(docId: string): Promise<DocumentRecord | undefined> {
    return (await this.library()).documents.get(docId);
  }

  /** Answers a question in any mode: ranked evidence within the budget, with provenance and best sentences. */
  async ask(request: AskRequest): Promise<AskResult> {
    const started = performance.now();
    modeHandler(request.mode); // an unknown mode is refused before anything loads
    const library = await this.library();
    const vector = await this.questionVector(library, request.question);
    const result = await askLibrary(library, request, { vector, kg: () => this.kg() });
    // Loading the library and embedding the question count: that is what the user waited for.
    return { ...result, milliseconds: performance.now() - started };
  }

  /**
   * Streams a cited answer over the evidence the page shows (`onDelta` is a Comlink proxy). A new answer or
   * cancelAnswer() aborts the one in flight. The API key is read here, where the request to its endpoint is made.
   */
  async answer(request: AnswerRequest, onDelta?: (delta: string) => void): Promise<AnswerOut> {
    const settings = await readLlmSettings(this.deps.library);
    const library = await this.library().catch(() => null);
    this.answerStop?.abort();
    const stop = new AbortController();
    this.answerStop = stop;
    const context = request.evidence.map((e) => ({
      chunkId: e.chunkId,
      title: e.docTitle,
      text: e.text,
      sentences: sentencesWithin(library, e.chunkId, e.chunkStart, e.text.length),
    }));
    try {
      const a = await answerQuestion(this.deps.llmClient(settings), request.question, context, {
        facts: request.facts,
        onDelta,
        signal: stop.signal,
      });
      const byChunk = new Map(request.evidence.map((e) => [e.chunkId, e]));
      return {
        text: a.text,
        noAnswer: a.noAnswer,
        citations: a.citations.map((cit) => {
          const e = byChunk.get(cit.chunkId)!;
          return {
            n: cit.n,
            chunkId: cit.chunkId,
            docId: e.docId,
            start: e.chunkStart + (cit.sentence?.start ?? 0),
            end: e.chunkStart + (cit.sentence?.end ?? e.text.length),
            sentence: cit.sentence?.text ?? '',
          };
        }),
        inputTokens: a.usage.inputTokens,
        outputTokens: a.usage.outputTokens,
        cost: a.usage.cost,
      };
    } finally {
      if (this.answerStop === stop) this.answerStop = null;
    }
  }

  /** Whether an LLM endpoint is configured (the Ask view then opens on the written answer); no key leaves. */
  async llmConfigured(): Promise<boolean> {
    const s = await this.deps.library.getSetting<LlmSettings>(LLM_SETTINGS_KEY);
    return Boolean(s?.baseUrl && s.model);
  }

  /** Stops the answer being streamed (the text so far is not returned). */
  cancelAnswer(): void {
    this.answerStop?.abort();
  }

  /** Frees the question embedder and the loaded library (both are loaded again lazily). */
  async dispose(): Promise<void> {
    this.answerStop?.abort();
    if (!this.readOnly) {
      this.loaded = null;
      this.kgIndex = null;
    }
    await this.deps.embedders.dispose();
  }

  private async library(): Promise<QuestionLibrary> {
    const current = (this.loaded ??=
      this.readOnly?.library ??
      this.deps.library.loadCorpus().then((corpus) => openLibrary(corpus, this.load)));
    try {
      return await current;
    } catch (error) {
      // Forget a failed load (an empty library may be filled), unless the bundle has replaced it meanwhile.
      if (this.loaded === current && !this.readOnly) this.loaded = null;
      throw error;
    }
  }

  private async kg(): Promise<KgIndex> {
    const current = (this.kgIndex ??=
      this.readOnly?.kg ??
      Promise.all([this.deps.kgStore.entities(), this.deps.kgStore.relations()]).then(
        ([entities, relations]) => new KgIndex(entities, relations),
      ));
    try {
      return await current;
    } catch (error) {
      if (this.kgIndex === current && !this.readOnly) this.kgIndex = null;
      throw error;
    }
  }

  /** The question vector, when the library has a semantic layer and the configured embedder built it. */
  private async questionVector(
    library: QuestionLibrary,
    question: string,
  ): Promise<Float32Array | undefined> {
    if (!library.layers.semantic || !library.embedderId) return undefined;
    const choice = (await this.deps.library.getSetting<EmbedderChoice>('embedder')) ?? DEFAULT_EMBEDDER;
    const embedder = await this.deps.embedders.get(choice);
    // Vectors of another embedder would be meaningless against this index: answer lexically instead.
    if (embedder.id !== library.embedderId) return undefined;
    return embedder.embed([question]);
  }
}

/**
 * Runs one mode over a loaded library: the service does this for the page, the CLI for a bundle file. `vector`
 * is the question embedded by the library's embedder (absent: lexical only); `kg` loads the KG index on demand.
 */
export async function askLibrary(
  library: QuestionLibrary,
  request: AskRequest,
  options: { vector?: Float32Array; kg: () => Promise<KgIndex> },
): Promise<AskResult> {
  const started = performance.now();
  const budget = Math.max(1, Math.floor(request.budget));
  const found = await modeHandler(request.mode)({
    question: request.question,
    vector: options.vector,
    budget,
    lambda: request.lambda ?? DEFAULT_LAMBDA,
    engine: library.engine,
    chunkView: (chunkId) => chunkView(library, chunkId),
    kg: options.kg,
  });
  return {
    question: request.question,
    mode: request.mode,
    budget,
    evidence: found.hits.map((hit) => evidence(library, hit)),
    layers: library.layers,
    ...(found.kg ? { kg: found.kg } : {}),
    milliseconds: performance.now() - started,
  };
}

function chunkView(library: QuestionLibrary, chunkId: string): KgChunkView | undefined {
  const chunk = library.chunks.get(chunkId);
  return (
    chunk && {
      docId: chunk.docId,
      text: chunk.text,
      tokens: chunk.tokens,
      sentences: sentencesWithin(library, chunkId, chunk.start, chunk.text.length),
    }
  );
}

function evidence(library: QuestionLibrary, hit: RetrievedChunk): Evidence {
  const p = hit.provenance as Evidence['provenance'];
  return {
    ...toEvidence(
      hit,
      library.chunks.get(hit.chunkId)?.start ?? 0,
      library.documents.get(hit.docId)?.title ?? hit.docId,
    ),
    // Only the fields the page shows: provenance objects may carry internal detail that does not clone well.
    provenance: {
      mode: p.mode,
      concepts: p.concepts,
      hop: p.hop,
      entities: p.entities,
      paths: p.paths,
      via: p.via,
    },
  };
}
