// A scripted parser and embedder for the ingest pipeline tests: one document per line "title: sentence. sentence.",
// and vectors (text length, 1) that show which sentence each row belongs to.
import type { Embedder, PreparedDocument } from '../../../../src/core/types.ts';
import type { PrepareFn } from '../../../../src/services/ingest/limitedParse.ts';

/** A document per line "title: sentence. sentence."; a file whose text starts with "BAD" fails to parse. */
export const prepare: PrepareFn = async (name, bytes) => {
  const text = new TextDecoder().decode(bytes);
  if (text.startsWith('BAD'))
    return { documents: [], errors: [{ file: name, reason: `${name}: not a real format` }] };
  const documents = text
    .split('\n')
    .filter((l) => l.trim())
    .map((line): PreparedDocument => {
      const [title, body] = line.split(': ');
      const id = `d-${title}`;
      const chunkId = `${id}#0000#0000`;
      const parts = body.split(/(?<=\.) /);
      let at = 0;
      const sentences = parts.map((p, index) => {
        const start = body.indexOf(p, at);
        at = start + p.length;
        return {
          id: `${id}:${String(index).padStart(6, '0')}`,
          docId: id,
          chunkId,
          index,
          start,
          end: at,
          text: p,
        };
      });
      return {
        doc: {
          id,
          title,
          sourceName: name,
          mime: 'text/plain',
          size: line.length,
          hash: `h-${title}`,
          addedAt: 0,
          text: body,
        },
        sections: [
          { id: `${id}#0000`, docId: id, index: 0, heading: '', level: 0, start: 0, end: body.length },
        ],
        chunks: [
          {
            id: chunkId,
            docId: id,
            sectionIndex: 0,
            position: 0,
            order: 0,
            start: 0,
            end: body.length,
            text: body,
            tokens: 5,
            firstSentence: 0,
            sentenceCount: sentences.length,
          },
        ],
        sentences,
      };
    });
  return { documents, errors: [] };
};

/** Dimension-2 vectors: (length of the text, 1), so every row can be checked; records the batch sizes. */
export function fakeEmbedder(id = 'fake@1', gate?: Promise<void>): Embedder & { batches: number[] } {
  const batches: number[] = [];
  return {
    id,
    dimension: 2,
    batches,
    async embed(texts, signal) {
      batches.push(texts.length);
      if (gate) await gate;
      signal?.throwIfAborted();
      return Float32Array.from(texts.flatMap((t) => [t.length, 1]));
    },
  };
}

export const bytes = (text: string) => new TextEncoder().encode(text).buffer as ArrayBuffer;
