// A library opened for questions: its RetrievalEngine and the maps evidence, the KG search and citations read
// (documents, chunks, sentence ranges). The query service, `cli ask`, `cli info` and the bench all open one
// through openLibrary, from IndexedDB's corpus or a bundle's.
import type { RetrievalEngine } from '../../core/retrieval/index.ts';
import type { ChunkRecord, DocumentRecord } from '../../core/types.ts';
import type { LoadedCorpus } from '../../store/repo.ts';
import { completeInBackground, loadEngine } from './engine.ts';

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

/**
 * Builds the engine over a corpus (IndexedDB's or a bundle's) and indexes what questions read. `questions` false:
 * the KG build's ranking only, which needs no concept vectors (they are not computed in the background).
 */
export function openLibrary(
  corpus: LoadedCorpus,
  load: (corpus: LoadedCorpus) => RetrievalEngine = loadEngine,
  questions = true,
): QuestionLibrary {
  if (corpus.chunks.length === 0) throw new Error('ask: the library is empty; add documents first');
  const engine = load(corpus);
  // Questions are answered meanwhile; a question with its vector finishes the rest at once (see fromCompact).
  if (questions) void completeInBackground(engine).catch(() => undefined);
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

/**
 * Sentence ranges in document offsets as offsets into a text that starts at `textStart` in the document, those
 * within it only: a chunk's sentences, from the library in memory or from a chunk record.
 */
export function sentencesWithin(
  list: ReadonlyArray<{ start: number; end: number }> | undefined,
  textStart: number,
  textLength: number,
): Array<{ start: number; end: number }> | undefined {
  return list
    ?.map((s) => ({ start: s.start - textStart, end: s.end - textStart }))
    .filter((s) => s.start >= 0 && s.end <= textLength);
}
