// The library's stored themes as a LibrarySource (issue 48): a corpus-wide question ("What is this about?") asked
// before the library is loaded into memory — right after a drop, when loading it and computing its themes took
// seconds after the graph was stored — is answered from the themes the graph refresh stored with the graph
// (graphBuild.ts) and the records of their passages, read from IndexedDB by id. It answers nothing else: the query
// service chooses it only for such a question, and any search over it is refused, naming why.
import type { PagedChunkRecord } from '../../core/paged/index.ts';
import { termAnalyzer } from '../library/engine.ts';
import type { StoredThemes } from '../library/storedThemes.ts';
import { recordEvidence } from '../questions/evidence.ts';
import type { Capability } from '../questions/modeRegistry.ts';
import { recordCitations } from '../questions/writtenAnswer.ts';
import { noDocument, type LibrarySource } from './librarySource.ts';
import { chunkView } from './pagedSource.ts';

export function storedThemesSource(stored: StoredThemes): LibrarySource {
  // The default mode, for ask() to take it; its words and walk are never searched here.
  const has = new Set<Capability>(['walk']);
  const analyzer = termAnalyzer();
  const loading = 'the library is still loading';
  let shown = new Map<string, PagedChunkRecord>();
  const source: LibrarySource = {
    kind: 'themes',
    has,
    layers: stored.layers,
    lacking: () => loading,
    answering: () => `${loading}: its themes answer a question about the whole library meanwhile`,
    question: () => {
      const records = new Map<string, PagedChunkRecord>();
      return {
        search: () => Promise.reject(new Error(`a search over this library waits: ${loading}`)),
        chunk: (id) => chunkView(records.get(id)),
        readChunks: async (ids) => {
          for (const [id, record] of await stored.records(ids.filter((id) => !records.has(id))))
            records.set(id, record);
        },
        evidence: (hit) => recordEvidence(hit, records.get(hit.chunkId)),
        show: (hits) => {
          shown = new Map(
            hits.flatMap((h) => (records.has(h.chunkId) ? [[h.chunkId, records.get(h.chunkId)!]] : [])),
          );
        },
      };
    },
    terms: (text) => analyzer.terms(text),
    kg: () => Promise.reject(new Error(loading)),
    atomic: () => Promise.resolve(null),
    citations: () => recordCitations(shown),
    questionGraph: () => Promise.reject(new Error(`the Graph view waits: ${loading}`)),
    libraryGraph: () => Promise.reject(new Error(`the Graph view waits: ${loading}`)),
    document: () => noDocument(source),
    buildOrder: () => Promise.reject(new Error(`KG: the build waits: ${loading}`)),
    themes: () => Promise.resolve(stored.themes),
  };
  return source;
}
