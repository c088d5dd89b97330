// The query worker: loads the corpus and the stored concept graph from IndexedDB once (again after the library
// changes), builds the RetrievalEngine, embeds the question with the library's embedder and returns ranked
// evidence with provenance and best sentences (offsets into the source document, for the viewer).
import { expose } from 'comlink';
import type { RetrievalEngine } from '../src/core/retrieval/engine.ts';
import { openDatabase } from '../src/store/db.ts';
import { Repo } from '../src/store/repo.ts';
import { EmbedderHolder } from './embedders.ts';
import { loadEngine } from './engineFactory.ts';
import {
  DEFAULT_EMBEDDER,
  type AskResult,
  type EmbedderChoice,
  type Evidence,
  type RetrievalMode,
} from './protocol.ts';

interface Loaded {
  engine: RetrievalEngine;
  titles: Map<string, string>;
  chunkStarts: Map<string, number>;
  embedderId: string | null;
  layers: { lexical: boolean; semantic: boolean };
}

const repo = new Repo(openDatabase());
const embedders = new EmbedderHolder();
let loaded: Promise<Loaded> | null = null;

async function load(): Promise<Loaded> {
  const corpus = await repo.loadCorpus();
  if (corpus.chunks.length === 0) throw new Error('ask: the library is empty; add documents first');
  const engine = loadEngine(corpus);
  return {
    engine,
    titles: new Map(corpus.documents.map((d) => [d.id, d.title])),
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
  /** Forgets the loaded corpus; the next question reloads it from IndexedDB. */
  invalidate(): void {
    loaded = null;
  },
  async ask(request: { question: string; mode: RetrievalMode; budget: number }): Promise<AskResult> {
    const started = performance.now();
    loaded ??= load();
    let state: Loaded;
    try {
      state = await loaded;
    } catch (error) {
      loaded = null;
      throw error;
    }
    const vector = await questionVector(state, request.question);
    const budget = Math.max(1, Math.floor(request.budget));
    const hits = state.engine.search({ text: request.question, vector }, request.mode, budget);
    const evidence: Evidence[] = hits.map((hit) => {
      const chunkStart = state.chunkStarts.get(hit.chunkId) ?? 0;
      return {
        chunkId: hit.chunkId,
        docId: hit.docId,
        docTitle: state.titles.get(hit.docId) ?? hit.docId,
        score: hit.score,
        text: hit.text,
        tokens: hit.tokens,
        chunkStart,
        provenance: { mode: hit.provenance.mode, concepts: hit.provenance.concepts, hop: hit.provenance.hop },
        bestSentences: hit.bestSentences.map((s) => ({
          start: s.start + chunkStart,
          end: s.end + chunkStart,
          score: s.score,
        })),
      };
    });
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
