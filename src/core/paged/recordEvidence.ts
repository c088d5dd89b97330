// A stored chunk record (format.ts) as the evidence reads it: the chunk's fields and its sentences with their text.
// One place for the pages' own answers (library.ts) and the answers by words before the pages are written
// (src/services/questions/askByWords.ts), so both show a passage the same way.
import type { RetrievalChunkInput, RetrievalSentenceInput } from '../retrieval/index.ts';
import type { PagedChunkRecord } from './format.ts';

/** Sentence numbers of a chunk in the term cache (no chunk has this many sentences). */
const SENTENCES_PER_CHUNK = 1 << 16;

/** A record as evidence reads a chunk. */
export function recordChunk(r: PagedChunkRecord): RetrievalChunkInput {
  return {
    id: r.id,
    docId: r.docId,
    text: r.text,
    tokens: r.tokens,
    start: r.start,
    ...(r.path ? { path: r.path } : {}),
    ...(r.pageStart !== undefined ? { pageStart: r.pageStart, pageEnd: r.pageEnd } : {}),
  };
}

/** The sentences of the `k`th candidate's record (document offsets, with their text), numbered from k's block. */
export function recordSentences(
  r: PagedChunkRecord | undefined,
  k: number,
): { first: number; list: RetrievalSentenceInput[] } {
  const list: RetrievalSentenceInput[] = [];
  if (r) {
    for (let i = 0; i + 1 < r.sentences.length; i += 2) {
      const start = r.sentences[i];
      const end = r.sentences[i + 1];
      list.push({
        chunkId: r.id,
        index: i / 2,
        start,
        end,
        text: r.text.slice(start - r.start, end - r.start),
      });
    }
  }
  return { first: k * SENTENCES_PER_CHUNK, list };
}
