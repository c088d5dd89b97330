// The library as its stored concept graph covers it. During a drop the ingest worker stores documents before the
// graph refresh that takes them in, and the app calls only the documents the graph covers searchable (the oldest
// ones: LibraryCoverage.searchableDocuments). A question asked in between read every stored chunk, found the graph
// made for fewer, and built a new one from scratch on the query worker's thread, the work the ingest worker was
// doing at the same time: 78 s of a 128-s first question after "searchable" on MuSiQue at load 30
// (docs/results/trust.md, round six). Opened as the graph covers it, the library answers over what the app says is
// searchable, from the stored graph.
import type { LoadedCorpus } from '../../store/repo.ts';

/**
 * `corpus` with only the chunks the stored graph was made for, and their documents, sections, sentences and vectors;
 * `corpus` itself when the graph covers every chunk, when there is no graph, or when the graph names a chunk that is
 * not stored (a removal not yet refreshed: the engine then builds its own graph, as before).
 */
export function coveredByGraph(corpus: LoadedCorpus): LoadedCorpus {
  const ids = corpus.graph?.graph.chunkIds;
  if (!Array.isArray(ids) || ids.length >= corpus.chunks.length) return corpus;
  const covered = new Set(ids);
  const chunks = corpus.chunks.filter((c) => covered.has(c.id));
  if (chunks.length !== covered.size) return corpus;
  const docs = new Set(chunks.map((c) => c.docId));
  return {
    ...corpus,
    documents: corpus.documents.filter((d) => docs.has(d.id)),
    sections: corpus.sections.filter((s) => docs.has(s.docId)),
    chunks,
    sentences: corpus.sentences.filter((s) => covered.has(s.chunkId)),
    vectors: new Map([...corpus.vectors].filter(([docId]) => docs.has(docId))),
  };
}

/**
 * Whether `corpus` is the very library `held` was opened from: the same chunks (in id order) under the same stored
 * graph, neither with vectors. A question after a store write that the graph has not taken in yet reads the
 * library again and finds nothing new to answer from (coveredByGraph): the engine held is kept, where it built
 * the graph from the concept table again before.
 */
export function sameLexicalLibrary(
  held: LoadedCorpus,
  corpus: LoadedCorpus,
  heldHasVectors: boolean,
): boolean {
  if (heldHasVectors || corpus.vectors.size > 0) return false;
  if (!held.graph || held.graph.builtAt !== corpus.graph?.builtAt) return false;
  if (held.chunks.length !== corpus.chunks.length) return false;
  return held.chunks.every((c, i) => c.id === corpus.chunks[i].id && c.text === corpus.chunks[i].text);
}
