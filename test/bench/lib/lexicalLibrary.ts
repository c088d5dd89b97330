// A folder or JSON Lines file as a library in memory, lexical only (no vectors), as the themes benches read one:
// parsed and chunked as `cli index` does (1,200-token chunks), its engine built once and opened as the query
// worker opens a library (openLibrary), so its themes are the ones the app computes.
import { prepareCorpus } from '../../../src/cli/benchData.ts';
import { RetrievalEngine } from '../../../src/core/retrieval/engine.ts';
import { createTermAnalyzer } from '../../../src/core/text/index.ts';
import { openLibrary, type QuestionLibrary } from '../../../src/services/library/questionLibrary.ts';

export interface LexicalLibrary {
  corpus: Awaited<ReturnType<typeof prepareCorpus>>;
  engine: RetrievalEngine;
  library: QuestionLibrary;
}

/** The corpus, then (`onCorpus` first, for a bench that times the steps) the engine and the library. */
export async function lexicalLibrary(
  path: string,
  options: { sentences?: boolean; onCorpus?: (corpus: LexicalLibrary['corpus']) => void } = {},
): Promise<LexicalLibrary> {
  const corpus = await prepareCorpus(path, 1200);
  options.onCorpus?.(corpus);
  const engine = RetrievalEngine.build(
    { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
    createTermAnalyzer(),
  );
  const library = openLibrary(
    {
      meta: undefined,
      documents: corpus.documents.map((d) => d.doc),
      sections: [],
      chunks: corpus.chunks,
      sentences: options.sentences ? corpus.sentences : [],
      vectors: new Map(),
      graph: undefined,
    },
    () => engine,
  );
  return { corpus, engine, library };
}
