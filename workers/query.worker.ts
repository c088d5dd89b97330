// The query worker: loads the corpus and the stored concept graph from IndexedDB once (again after the library
// changes), builds the RetrievalEngine, embeds the question with the library's embedder and returns ranked
// evidence with provenance and best sentences (offsets into the source document, for the viewer).
import { expose } from 'comlink';
import type { RetrievalEngine } from '../src/core/retrieval/engine.ts';
import type { DocumentRecord } from '../src/core/types.ts';
import { openBundleReadOnly } from '../src/store/bundleImport.ts';
import { openDatabase } from '../src/store/db.ts';
import { Repo, type LoadedCorpus } from '../src/store/repo.ts';
import { EmbedderHolder } from '../src/services/embedders.ts';
import { loadEngine } from '../src/services/engine.ts';
import { toEvidence } from '../src/services/evidence.ts';
import {
  DEFAULT_EMBEDDER,
  type AskResult,
  type EmbedderChoice,
  type Evidence,
  type RetrievalMode,
} from '../src/services/protocol.ts';

interface Loaded {
  engine: RetrievalEngine;
  documents: Map<string, DocumentRecord>;
  chunkStarts: Map<string, number>;
  embedderId: string | null;
  layers: { lexical: boolean; semantic: boolean };
}

const repo = new Repo(openDatabase());
const embedders = new EmbedderHolder();
let loaded: Promise<Loaded> | null = null;
/**
 * Set as soon as the page asks for a bundle read-only (?bundle=…), before it has arrived: from then on every
 * question waits for the bundle (or its error) and the library in IndexedDB is never read again.
 */
let readOnly: { url: string; loaded: Promise<Loaded> } | null = null;

async function load(): Promise<Loaded> {
  if (readOnly) return readOnly.loaded;
  return fromCorpus(await repo.loadCorpus());
}

/** Forgets a failed load, unless something else (the bundle) has replaced it meanwhile. */
function forget(failed: Promise<Loaded>): void {
  if (loaded === failed) loaded = null;
}

function fromCorpus(corpus: LoadedCorpus): Loaded {
  if (corpus.chunks.length === 0) throw new Error('ask: the library is empty; add documents first');
  const engine = loadEngine(corpus);
  return {
    engine,
    documents: new Map(corpus.documents.map((d) => [d.id, d])),
    chunkStarts: new Map(corpus.chunks.map((c) => [c.id, c.start])),
    embedderId: corpus.meta?.embedderId ?? null,
    layers: { lexical: true, semantic: engine.hasVectors },
  };
}

/** The question vector, when the index has a semantic layer and the configured embedder built it. */
async function questionVector(state: Loaded, question: string): Promise<Float32Array | undefined> {
  if (!state.layers.semantic || !state.embedderId) return undefined;
  const choice = (await repo.getSetting<EmbedderChoice>('embedder')) ?? DEFAULT_EMBEDDER;
  const embedder = await embedders.get(choice);
  // Vectors of another embedder would be meaningless against this index: answer lexically instead.
  if (embedder.id !== state.embedderId) return undefined;
  return embedder.embed([question]);
}

const api = {
  /** Forgets the loaded corpus; the next question reloads it from IndexedDB (not for a read-only bundle). */
  invalidate(): void {
    if (!readOnly) loaded = null;
  },
  /**
   * Opens a bundle from a same-origin path or URL read-only: questions are answered from it, nothing is written
   * to IndexedDB. Returns its counts for the Library view.
   */
  async openBundle(
    url: string,
  ): Promise<{ url: string; counts: Record<string, number>; embedderId: string | null }> {
    const opening = openBundleReadOnly(url, self.location.origin);
    const state = opening.then((bundle) => fromCorpus(bundle.corpus));
    // Before any await: a question asked while the bundle downloads must not reach the local library.
    readOnly = { url, loaded: state };
    loaded = state;
    const bundle = await opening;
    await state;
    return { url: bundle.url, counts: bundle.counts, embedderId: bundle.embedder?.id ?? null };
  },
  /** Loads the corpus and the question embedder ahead of the first question (the Ask view calls it on open). */
  async warmUp(): Promise<void> {
    const current = (loaded ??= load());
    try {
      const state = await current;
      await questionVector(state, 'warm up');
    } catch {
      // An empty library or a missing model: the first real question reports it.
      forget(current);
    }
  },
  /** One source document (for the viewer when the library is a read-only bundle). */
  async getDocument(docId: string): Promise<DocumentRecord | undefined> {
    loaded ??= load();
    return (await loaded).documents.get(docId);
  },
  async ask(request: { question: string; mode: RetrievalMode; budget: number }): Promise<AskResult> {
    const started = performance.now();
    const current = (loaded ??= load());
    let state: Loaded;
    try {
      state = await current;
    } catch (error) {
      forget(current);
      throw error;
    }
    const vector = await questionVector(state, request.question);
    const budget = Math.max(1, Math.floor(request.budget));
    const hits = state.engine.search({ text: request.question, vector }, request.mode, budget);
    const evidence: Evidence[] = hits.map((hit) => ({
      ...toEvidence(
        hit,
        state.chunkStarts.get(hit.chunkId) ?? 0,
        state.documents.get(hit.docId)?.title ?? hit.docId,
      ),
      provenance: { mode: hit.provenance.mode, concepts: hit.provenance.concepts, hop: hit.provenance.hop },
    }));
    return {
      question: request.question,
      mode: request.mode,
      budget,
      evidence,
      layers: state.layers,
      milliseconds: performance.now() - started,
    };
  },
  async dispose(): Promise<void> {
    loaded = null;
    await embedders.dispose();
  },
};

export type QueryApi = typeof api;

expose(api);
