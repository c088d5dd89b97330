// Short passages as the app reads a dropped .jsonl file (one document and one chunk each), and an in-memory question
// library over them with no vectors and no stored concept graph: what the reasoning-mode tests ask questions of.
import { prepareFile } from '../../src/core/prepare.ts';
import { openLibrary, type QuestionLibrary } from '../../src/services/library/questionLibrary.ts';

export interface Passage {
  id: string;
  title: string;
  text: string;
}

/** Lothair II's mother and her death date are in two passages: a two-hop question; the other two distract. */
export const LOTHAIR_PASSAGES: Passage[] = [
  {
    id: 'p1',
    title: 'Lothair II',
    text: 'Lothair II was a king of Lotharingia. His mother was Ermengarde of Tours.',
  },
  { id: 'p2', title: 'Ermengarde of Tours', text: 'Ermengarde of Tours died on 20 March 851 in Tours.' },
  { id: 'p3', title: 'Port of Spain', text: 'Port of Spain is the capital of Trinidad and Tobago.' },
  { id: 'p4', title: 'Teutberga', text: 'Teutberga was a queen of Lotharingia and the wife of Lothair II.' },
];

/** Two films and one director's birth: a comparison and a bridge question for the reasoning modes. */
export const FILM_PASSAGES: Passage[] = [
  {
    id: 'f1',
    title: 'Alpha Dawn',
    text: 'Alpha Dawn is a film released on 12 March 1994. Its director is Ann Lee.',
  },
  {
    id: 'f2',
    title: 'Beta Storm',
    text: 'Beta Storm is a film released on 5 June 1990. Its director is Bo Kim.',
  },
  { id: 'f3', title: 'Ann Lee', text: 'Ann Lee was born on 14 April 1950 in Springfield.' },
];

/** The passages parsed as `passages.jsonl`. */
export async function preparePassages(passages: readonly Passage[]) {
  const bytes = new TextEncoder().encode(passages.map((p) => JSON.stringify(p)).join('\n'));
  return (await prepareFile('passages.jsonl', bytes, { maxChunkTokens: 1200 })).documents;
}

/** A question library over parsed documents, as the query worker opens a library without vectors. */
export function libraryOf(documents: Awaited<ReturnType<typeof preparePassages>>): QuestionLibrary {
  return openLibrary({
    meta: undefined,
    documents: documents.map((d) => d.doc),
    sections: documents.flatMap((d) => d.sections),
    chunks: documents.flatMap((d) => d.chunks),
    sentences: documents.flatMap((d) => d.sentences),
    vectors: new Map(),
    graph: undefined,
  });
}
