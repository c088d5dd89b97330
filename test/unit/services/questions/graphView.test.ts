// The query worker's side of the concept-graph view over a small library: the passages drawn for a question are the
// Ask view's `ppr` evidence in the same order, each opens at the sentence naming what led the walk there, and the
// library side finds a concept by a typed word.
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareFile } from '../../../../src/core/prepare.ts';
import { libraryGraph, questionGraph } from '../../../../src/services/questions/graphView.ts';
import { askLibrary } from '../../../support/askOver.ts';
import { openLibrary, type QuestionLibrary } from '../../../../src/services/library/questionLibrary.ts';

const PASSAGES = [
  {
    id: 'p1',
    title: 'Lothair II',
    text: 'Lothair II was a king of Lotharingia. His mother was Ermengarde of Tours.',
  },
  { id: 'p2', title: 'Ermengarde of Tours', text: 'Ermengarde of Tours died on 20 March 851 in Tours.' },
  { id: 'p3', title: 'Port of Spain', text: 'Port of Spain is the capital of Trinidad and Tobago.' },
  { id: 'p4', title: 'Savanna', text: 'Plain words begin this passage. Zebras graze near the lake at dusk.' },
  { id: 'p5', title: 'Teutberga', text: 'Teutberga was a queen of Lotharingia and the wife of Lothair II.' },
];

let library: QuestionLibrary;

beforeAll(async () => {
  const bytes = new TextEncoder().encode(PASSAGES.map((p) => JSON.stringify(p)).join('\n'));
  const { documents } = await prepareFile('passages.jsonl', bytes, { maxChunkTokens: 1200 });
  library = openLibrary({
    meta: undefined,
    documents: documents.map((d) => d.doc),
    sections: documents.flatMap((d) => d.sections),
    chunks: documents.flatMap((d) => d.chunks),
    sentences: documents.flatMap((d) => d.sentences),
    vectors: new Map(),
    graph: undefined,
  });
});

describe('questionGraph', () => {
  it('draws the Ask view’s ppr evidence, in its order, with documents and titles', async () => {
    const question = 'When did the mother of Lothair II die?';
    const graph = questionGraph(library, question, undefined);
    const asked = await askLibrary(
      library,
      { question, mode: 'ppr', budget: 100_000 },
      { kg: () => Promise.reject(new Error('no KG here')) },
    );
    const drawn = graph.chunks.filter((c) => c.rank >= 0);
    expect(drawn.length).toBeGreaterThan(0);
    expect(drawn.map((c) => c.chunkId)).toEqual(asked.evidence.slice(0, drawn.length).map((e) => e.chunkId));
    expect(drawn.map((c) => c.title)).toEqual(asked.evidence.slice(0, drawn.length).map((e) => e.docTitle));
    expect(graph.layer).toBe('lexical');
    // The name is the seed; "mother" is a generic word of spoken English (src/core/text/generic.ts), not a concept.
    expect(graph.seeds.map((s) => s.term)).toContain('lothair ii');
    expect(graph.seeds.map((s) => s.term)).not.toContain('mother');
    // Every link names a drawn chunk.
    const ids = new Set(graph.chunks.map((c) => c.chunkId));
    for (const l of graph.links) expect(ids.has(l.chunkId)).toBe(true);
  });

  it('opens a passage at the sentence naming the concepts that led to it, not at its first sentence', () => {
    // Only the seeds are drawn (no mass concepts): zebras and graze, both in the Savanna passage's second sentence.
    const graph = questionGraph(library, 'Where do zebras graze?', undefined, { concepts: 0, evidence: 1 });
    expect(graph.seeds.map((s) => s.term).sort()).toEqual(['graze', 'zebras']);
    const [savanna] = graph.chunks;
    expect(savanna.title).toBe('Savanna');
    const text = library.documents.get(savanna.docId)!.text;
    expect(text.slice(savanna.start, savanna.end)).toBe('Zebras graze near the lake at dusk.');
    expect(savanna.sentence).toBe('Zebras graze near the lake at dusk.');
  });
});

describe('libraryGraph', () => {
  it('finds a concept by a typed word, with its neighbours; the top concepts without one', () => {
    const found = libraryGraph(library, { search: 'Lotharingia' });
    expect(found.nodes[0].term).toBe('lotharingia');
    expect(found.focus).toBe(found.nodes[0].id);
    expect(found.nodes.map((n) => n.term)).toContain('teutberga');
    const top = libraryGraph(library, { limit: 5 });
    expect(top.focus).toBeUndefined();
    expect(top.nodes).toHaveLength(5);
    expect(top.libraryConcepts).toBeGreaterThan(5);
  });
});
