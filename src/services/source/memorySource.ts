// A library loaded into memory (IndexedDB's corpus, a bundle read whole, the bench's corpus) as a LibrarySource: its
// RetrievalEngine answers every engine mode, every chunk is at hand, and the Graph view reads its concept graph.
import { rankOrder, selectCoreChunks, type KgChunkView } from '../../core/kg/index.ts';
import type { RetrievedChunk } from '../../core/retrieval/index.ts';
import { sentencesWithin, type QuestionLibrary } from '../library/questionLibrary.ts';
import { shownEvidence } from '../questions/evidence.ts';
import { libraryGraph, questionGraph } from '../questions/graphView.ts';
import type { Capability } from '../questions/modeRegistry.ts';
import type { Evidence } from '../questions/queryProtocol.ts';
import { libraryCitations } from '../questions/writtenAnswer.ts';
import { themesOfLibrary } from '../themes/themesOf.ts';
import {
  layerLacking,
  REMOVED_BUDGET_GROWTH,
  withoutRemoved,
  type BuildOrder,
  type LibrarySource,
  type SourceLayers,
} from './librarySource.ts';

/**
 * No KG: the KG modes are refused; no atomic questions: `atomic` says how to build them; no themes: computed from
 * the library's concept graph (themesOf.ts).
 */
interface MemoryLayers extends SourceLayers {
  /** How this library is named in a refusal (default "this library"). */
  name?: string;
}

export function memorySource(library: QuestionLibrary, layers: MemoryLayers = {}): LibrarySource {
  // A lexical library's engine refuses `dense` itself, naming what it lacks; a library without atomic questions
  // answers `atomic` with how to build them (pikeModes.ts).
  const has = new Set<Capability>([
    'walk',
    'bm25',
    'vectors',
    'concepts',
    'fusion',
    'chunks',
    'documents',
    'atomic',
  ]);
  if (layers.kg) has.add('kg');
  const name = layers.name ?? 'this library';
  const source: LibrarySource = {
    kind: 'memory',
    has,
    layers: library.layers,
    lacking: (capability) => layerLacking(capability === 'atomic' ? 'atomic' : 'kg'),
    answering: (modes) => `${name} answers ${modes}`,
    question: () => ({
      search: async (query, mode, budget, { early, vector } = {}) => {
        // With documents removed since the library was read, the ranking is read further and cut back to the budget
        // over the others.
        const removed = layers.removed ?? new Set<string>();
        const asked = removed.size > 0 ? budget * REMOVED_BUDGET_GROWTH : budget;
        const search = (q: typeof query) =>
          withoutRemoved(library.engine.search(q, mode, asked), removed, budget);
        // Waiting for the vector would be slow (the model still loads, or the engine, just opened, still computes
        // its concept vectors): the lexical ranking comes first (measured with ?bundle=: about 2 s sooner).
        const slow = vector ?? (library.embedderId !== null && !library.engine.semanticReady);
        if (early && library.layers.semantic && slow) early(search({ text: query.text }));
        return search(vector ? { text: query.text, vector: await vector } : query);
      },
      chunk: (chunkId) => chunkView(library, chunkId),
      evidence: (hit) => evidence(library, hit),
      show: () => undefined,
    }),
    terms: (text) => library.engine.terms(text),
    kg: layers.kg ?? (() => Promise.reject(new Error(source.lacking('kg')))),
    atomic: layers.atomic ?? (() => Promise.resolve(null)),
    citations: () => libraryCitations(library),
    questionGraph: (question, vector, caps) =>
      Promise.resolve(questionGraph(library, question, vector, caps)),
    libraryGraph: (options) => Promise.resolve(libraryGraph(library, options)),
    document: (docId) => Promise.resolve(library.documents.get(docId)),
    themes: layers.themes ?? (() => Promise.resolve(themesOfLibrary(library))),
    buildOrder: () => Promise.resolve(buildOrder(library)),
  };
  return source;
}

/** The chunks by the concept graph's PageRank; holds the chunks' texts, not the engine that ranked them. */
function buildOrder(library: QuestionLibrary): BuildOrder {
  const { chunkIds, chunkRank } = library.engine.graph;
  const { chunks } = library;
  const ids = rankOrder(chunkIds.map((chunkId, i) => ({ chunkId, rank: chunkRank[i] })));
  return {
    sizes: ids.map((id) => ({ text: chunks.get(id)!.text })),
    core: (kappa) =>
      Promise.resolve(
        selectCoreChunks(
          ids.map((chunkId, i) => ({ chunkId, rank: -i })),
          kappa,
        ).map((id) => {
          const chunk = chunks.get(id)!;
          return { id, docId: chunk.docId, text: chunk.text };
        }),
      ),
  };
}

function chunkView(library: QuestionLibrary, chunkId: string): KgChunkView | undefined {
  const chunk = library.chunks.get(chunkId);
  return (
    chunk && {
      docId: chunk.docId,
      text: chunk.text,
      tokens: chunk.tokens,
      sentences: sentencesWithin(library.sentences.get(chunkId), chunk.start, chunk.text.length),
    }
  );
}

function evidence(library: QuestionLibrary, hit: RetrievedChunk): Evidence {
  const doc = library.documents.get(hit.docId);
  return shownEvidence(
    hit,
    library.chunks.get(hit.chunkId)?.start ?? 0,
    doc?.title ?? hit.docId,
    doc?.pageStarts,
  );
}
