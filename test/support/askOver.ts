// A question to a library in memory, a paged index or stored documents by words, for tests and benches: each opens
// the LibrarySource openSource() gives the app (src/services/source/openSource.ts) and asks it through the one ask().
// They only spell the source's inputs the way the tests hold them.
import type { AtomicIndex } from '../../src/core/atomic/index.ts';
import type { KgIndex } from '../../src/core/kg/index.ts';
import type { PagedLibrary } from '../../src/core/paged/index.ts';
import type { QuestionLibrary } from '../../src/services/library/questionLibrary.ts';
import type { AskRequest, AskResult, PagedReads } from '../../src/services/questions/queryProtocol.ts';
import type { CitationSource } from '../../src/services/questions/writtenAnswer.ts';
import { libraryDocumentNames } from '../../src/services/library/documentNames.ts';
import type { LibrarySource } from '../../src/services/source/librarySource.ts';
import { ask, type AskOptions } from '../../src/services/source/ask.ts';
import { openSource } from '../../src/services/source/openSource.ts';
import {
  wordsSource,
  type StoredDocuments,
  type WordsOptions,
} from '../../src/services/source/wordsSource.ts';

interface Layers {
  kg?: () => Promise<KgIndex>;
  atomic?: () => Promise<AtomicIndex | null>;
}

type Options = Omit<AskOptions, 'early'> & Layers;

/** Asks a library in memory (its KG and atomic questions from the loaders given). */
export function askLibrary(
  library: QuestionLibrary,
  request: AskRequest,
  options: Options,
): Promise<AskResult> {
  const { kg, atomic, ...rest } = options;
  return ask(openSource({ library, ...(kg ? { kg } : {}), ...(atomic ? { atomic } : {}) }), request, rest);
}

/** Asks a paged index; `onEarly` gets the words' evidence while the walk reads; the citations of what it showed. */
export async function askPaged(
  library: PagedLibrary,
  request: AskRequest,
  options: Partial<Options> & { onEarly?: (early: AskResult) => void } = {},
): Promise<AskResult & { reads: PagedReads; citations: CitationSource }> {
  const { kg, atomic, onEarly, ...rest } = options;
  const source = openSource({ paged: library, ...(kg ? { kg } : {}), ...(atomic ? { atomic } : {}) });
  const result = await ask(source, request, { ...rest, ...(onEarly ? { early: onEarly } : {}) });
  return { ...result, reads: result.reads!, citations: source.citations() };
}

/** Asks the stored documents by words (a library whose pages are awaited). */
export async function askByWords(
  stored: StoredDocuments,
  request: AskRequest,
  options: WordsOptions & { signal?: AbortSignal } = {},
): Promise<{ result: AskResult; citations: CitationSource }> {
  const { signal, ...words } = options;
  const source = wordsSource(stored, words);
  const result = await ask(source, request, signal ? { signal } : {});
  return { result, citations: source.citations() };
}

/** A library in memory as Evaluate reads it: its source, and its documents named as a QA set names them. */
export function inMemory(
  library: QuestionLibrary,
  kg?: () => Promise<KgIndex>,
): { source: LibrarySource; documentNames: (docIds: readonly string[]) => Promise<Map<string, string>> } {
  return {
    source: openSource({ library, ...(kg ? { kg } : {}) }),
    documentNames: libraryDocumentNames(library),
  };
}

/** A paged index read by ranges, with the layers given. */
export function byRanges(paged: PagedLibrary, layers: Layers = {}): LibrarySource {
  return openSource({ paged, ...layers });
}
