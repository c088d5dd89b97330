// A paper given one paragraph a line under its title is one text, not an encyclopedia: the question blend reads the
// passages that share a title as the sections of one document (questionBlend.ts, titleGroupSizes), so a question is
// answered there by its words, while passages that each have their own title are still walked.
import { describe, expect, it } from 'vitest';
import { RetrievalEngine, titleGroupSizes } from '../../../src/core/retrieval/index.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';

const PARAGRAPHS = [
  'The concept graph links two concepts when they occur together in a chunk of text.',
  'Concept vectors are the mean of the sentence vectors of the sentences naming the concept.',
  'PageRank ranks the concepts of the graph; degree centrality ranked hubs first in our trials.',
  'The core chunks are the top share of chunks by the rank of their concepts; a larger share hurt recall.',
  'Retrieval hands the language model a context cut to a token budget, sentence by sentence.',
  'Two retrieval paths that find the same chunk keep it once, with the better of its two scores.',
  'Chunk identifiers join the document hash, the section index and the chunk index.',
  'The walk restarts at the concepts named in the question, weighted by their rarity.',
];

function engineOf(titleOf: (i: number) => string) {
  const chunks = PARAGRAPHS.map((text, i) => ({
    id: `p${i}#0#0`,
    docId: `p${i}`,
    text,
    tokens: 20,
    start: 0,
    path: [titleOf(i)],
  }));
  const sentences = PARAGRAPHS.map((text, i) => ({
    chunkId: `p${i}#0#0`,
    index: 0,
    start: 0,
    end: text.length,
    text,
  }));
  return RetrievalEngine.build({ chunks, sentences }, createTermAnalyzer());
}

const order = (engine: RetrievalEngine, q: string, mode: string) =>
  engine.search({ text: q }, mode, 4000).map((h) => h.docId);

describe('the question blend over passages that share a title', () => {
  it('counts a chunk’s document, or the documents under its title when they are more', () => {
    const sizes = titleGroupSizes([
      { docId: 'a', path: ['Paper'] },
      { docId: 'b', path: ['Paper'] },
      { docId: 'c', path: ['Book'] },
      { docId: 'c', path: ['Book'] },
      { docId: 'c', path: ['Book'] },
      { docId: 'd' },
      { docId: 'e', path: [''] },
    ]);
    expect([...sizes]).toEqual([2, 2, 3, 3, 3, 1, 1]);
  });

  it('lets the words rank a paper’s paragraphs, and still walks passages of their own titles', () => {
    const q = 'Which chunk do two retrieval paths keep when they find the same one?';
    const paper = engineOf(() => 'Paper › Method');
    const encyclopedia = engineOf((i) => `Article ${i}`);
    // The same words either way; the blend alone differs.
    expect(order(paper, q, 'bm25')).toEqual(order(encyclopedia, q, 'bm25'));
    expect(order(paper, q, 'ppr').slice(0, 3)).toEqual(order(paper, q, 'bm25').slice(0, 3));
    expect(order(encyclopedia, q, 'ppr').slice(0, 3)).not.toEqual(order(encyclopedia, q, 'bm25').slice(0, 3));
  });
});
