// One corpus opened twice, as the query worker holds a library: in memory (an engine over the corpus the app's parser
// makes) and answered from its pages (written by the code that writes a bundle's or the store's pages, read by
// blocks). The tests of what a paged library answers compare the two.
import type { PreparedCorpus } from '../../src/cli/benchData.ts';
import { PagedLibrary } from '../../src/core/paged/library.ts';
import { MemoryRangeSource } from '../../src/core/paged/rangeSource.ts';
import { writePagedIndex, type WrittenPages } from '../../src/core/paged/write.ts';
import { RetrievalEngine } from '../../src/core/retrieval/engine.ts';
import { createTermAnalyzer } from '../../src/core/text/index.ts';
import { openLibrary, type QuestionLibrary } from '../../src/services/library/questionLibrary.ts';
import { documentExternalId } from '../../src/services/library/documentNames.ts';
import { preparedCorpus } from './builtOnce.ts';
import { REPO_DOCS } from './repoDocs.ts';

export interface BothLibraries {
  engine: RetrievalEngine;
  library: QuestionLibrary;
  paged: PagedLibrary;
  /** What IndexedDB answers for a stored library (src/services/library/documentNames.ts). */
  documentNames: (ids: readonly string[]) => Promise<Map<string, string>>;
  /** The parser's corpus it was built from (all of it, whatever `limit`), for a third reader of the same library. */
  corpus: PreparedCorpus;
}

/** The corpus at `path` (a folder or a .jsonl), its first `limit` chunks when given. */
export async function bothLibraries(path: string, limit?: number): Promise<BothLibraries> {
  const corpus = await preparedCorpus(path, 1200);
  const keep = limit ? new Set(corpus.retrievalChunks.slice(0, limit).map((c) => c.id)) : undefined;
  const chunks = keep ? corpus.chunks.filter((c) => keep.has(c.id)) : corpus.chunks;
  const retrievalChunks = keep
    ? corpus.retrievalChunks.filter((c) => keep.has(c.id))
    : corpus.retrievalChunks;
  const sentences = keep ? corpus.sentences.filter((s) => keep.has(s.chunkId)) : corpus.sentences;
  const analyzer = createTermAnalyzer();
  const engine = RetrievalEngine.build({ chunks: retrievalChunks, sentences }, analyzer);
  const docs = corpus.documents.map((d) => d.doc);
  const library = openLibrary(
    {
      meta: undefined,
      documents: docs,
      sections: corpus.documents.flatMap((d) => d.sections),
      chunks,
      sentences,
      vectors: new Map(),
      graph: undefined,
    },
    () => engine,
  );
  const byId = new Map(docs.map((d) => [d.id, d]));
  const written = await writePagedIndex(engine.lexicalParts(), (docId) => {
    const d = byId.get(docId)!;
    return { title: d.title, ...(d.pageStarts ? { pageStarts: d.pageStarts } : {}) };
  });
  const paged = await PagedLibrary.open(
    new MemoryRangeSource(written.data, 'pages'),
    { base: 0, length: written.data.length, directory: written.directory, hashes: written.hashes },
    analyzer,
  );
  const documentNames = (ids: readonly string[]) =>
    Promise.resolve(
      new Map(ids.flatMap((id) => (byId.has(id) ? [[id, documentExternalId(byId.get(id)!)] as const] : []))),
    );
  return { engine, library, paged, documentNames, corpus };
}

/** The hits of each question over a library's pages in the walk's mode and bm25 (ids and scores, in order). */
export async function pagedHits(paged: PagedLibrary, questions: readonly string[]): Promise<string[][]> {
  const out: string[][] = [];
  for (const q of questions) {
    for (const mode of ['ppr', 'bm25']) {
      const { hits } = await paged.search(q, mode, 800);
      out.push(hits.map((h) => `${h.chunkId} ${h.score.toFixed(6)}`));
    }
  }
  return out;
}

/**
 * The repository's own docs written in the large layout (rows, postings and records read a group at a time, in
 * several rounds) and opened over a memory source: for tests of what a question's runs keep between rounds.
 */
export async function openRepoDocsLarge(): Promise<{ library: PagedLibrary; source: MemoryRangeSource }> {
  const corpus = await preparedCorpus(REPO_DOCS, 1200);
  const analyzer = createTermAnalyzer();
  const engine = RetrievalEngine.build(
    { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
    analyzer,
  );
  const pages = await writePagedIndex(
    engine.lexicalParts(),
    (id) => ({ title: id }),
    undefined,
    undefined,
    undefined,
    0,
  );
  return openWrittenPages(pages, 'large', analyzer);
}

/** A pages part just written, read from memory as a bundle's would be (its directory and hashes as written). */
export async function openWrittenPages(
  written: WrittenPages,
  name: string,
  analyzer: ReturnType<typeof createTermAnalyzer>,
): Promise<{ library: PagedLibrary; source: MemoryRangeSource }> {
  const source = new MemoryRangeSource(written.data, name);
  const library = await PagedLibrary.open(
    source,
    { base: 0, length: written.data.length, directory: written.directory, hashes: written.hashes },
    analyzer,
  );
  return { library, source };
}
