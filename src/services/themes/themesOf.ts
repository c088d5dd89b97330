// The themes of a library held in memory (the query worker's, a bundle read whole, the CLI's), from its concept graph:
// computed once per library and kept beside it, so a second corpus-wide question, or the Themes panel, reuses them.
import type { ConceptGraphIndex, ConceptTable } from '../../core/graph/index.ts';
import {
  computeThemes,
  themesGraphFromTable,
  withKeyTitles,
  type LibraryThemes,
  type ThemeOptions,
} from '../../core/themes/index.ts';
import type { PagedChunkRecord } from '../../core/paged/index.ts';
import type { ChunkRecord } from '../../core/types.ts';
import type { ThemesToStore } from '../../store/graphRepo.ts';
import type { QuestionLibrary } from '../library/questionLibrary.ts';
import { answerPassages } from './answerPassages.ts';

const computed = new WeakMap<QuestionLibrary, LibraryThemes>();

/** The themes of a library in memory, computed on first use. */
export function themesOfLibrary(library: QuestionLibrary): LibraryThemes {
  let themes = computed.get(library);
  if (!themes) {
    themes = themesOfGraph(
      library.engine.graph,
      library.chunks,
      (doc) => library.documents.get(doc)?.title ?? doc,
    );
    computed.set(library, themes);
  }
  return themes;
}

/**
 * Takes `themes` as the themes of `library`: the ones the graph refresh stored with the very graph record the library
 * was opened with (themesForStore computed them from that graph and the same chunks), so they need not be computed
 * again on the query worker's thread.
 */
export function knownThemes(library: QuestionLibrary, themes: LibraryThemes): void {
  if (!computed.has(library)) computed.set(library, themes);
}

/** Computes a loaded library's themes ahead of its first corpus-wide question (the query worker's warm-up). */
export function warmThemes(library: QuestionLibrary): void {
  try {
    themesOfLibrary(library);
  } catch {
    // A library whose themes cannot be computed answers a corpus-wide question the ordinary way; the question
    // computes them again and says why if it fails there.
  }
}

/** The themes of a concept graph whose chunks are at hand (`cli index` writes them into a bundle from here). */
export function themesOfGraph(
  graph: ConceptGraphIndex,
  chunks: ReadonlyMap<string, Pick<ChunkRecord, 'docId' | 'tokens'>>,
  docTitle: (docId: string) => string,
  options?: Partial<ThemeOptions>,
): LibraryThemes {
  const chunkDocs: string[] = [];
  const chunkTokens = new Uint32Array(graph.chunkIds.length);
  graph.chunkIds.forEach((id, k) => {
    const chunk = chunks.get(id);
    if (!chunk) throw new Error(`themes: the concept graph's chunk ${id} is not in the library`);
    chunkDocs.push(chunk.docId);
    chunkTokens[k] = chunk.tokens;
  });
  return computeThemes(
    {
      table: graph.table,
      graph: graph.cooccurrence,
      chunkIds: graph.chunkIds,
      chunkDocs,
      chunkTokens,
      docTitle,
    },
    options,
  );
}

/**
 * The themes a graph refresh stores with the graph (graphBuild.ts), so that a corpus-wide question asked right after
 * a drop is answered from them without loading the library: sized from the stored chunks' records (no text read),
 * the key documents named by their stored titles, with the records of the passages their answer shows (read from
 * those few documents here, once a refresh, rather than on every answer: reading them took most of the answer's
 * time during a drop). Undefined when they cannot be computed: the graph is stored all the same, and a question
 * computes them from the library in memory, saying why if it fails there too.
 */
export async function themesForStore(
  repo: {
    chunkSizes(): Promise<ReadonlyMap<string, Pick<ChunkRecord, 'docId' | 'tokens'>>>;
    documentTitles(ids: readonly string[]): Promise<ReadonlyMap<string, string>>;
    passageRecords(chunkIds: readonly string[]): Promise<ReadonlyMap<string, PagedChunkRecord>>;
  },
  graph: ConceptGraphIndex,
): Promise<ThemesToStore | undefined> {
  try {
    const themes = await titled(
      repo,
      themesOfGraph(graph, await repo.chunkSizes(), (doc) => doc),
    );
    // Passages that cannot be read now are read from their documents by the answer, as before.
    const passages = await repo.passageRecords(answerPassages(themes)).catch(() => new Map());
    return { themes, passages: [...passages.values()] };
  } catch {
    return undefined;
  }
}

/** The themes with their key documents named by their stored titles (read for those documents only). */
async function titled(
  repo: { documentTitles(ids: readonly string[]): Promise<ReadonlyMap<string, string>> },
  themes: LibraryThemes,
): Promise<LibraryThemes> {
  const titles = await repo.documentTitles([...new Set(themes.themes.flatMap((t) => t.keyDocuments))]);
  return withKeyTitles(themes, (doc) => titles.get(doc) ?? doc);
}

/**
 * The themes a paged build computes (the app's stored pages, pagesWrite.ts; `cli index --stream`), from its concept
 * table and degrees: each chunk's record is added in chunk order as the build reads it, then `of` computes them when
 * the build gives its table (PagesBuildOptions.onTable). The co-occurrence edges among the clustered concepts are
 * counted from the table (themesGraphFromTable), never the whole graph. Undefined when they cannot be computed: the
 * pages are written all the same, without themes.
 */
export class PagedThemes {
  private readonly ids: string[] = [];
  private readonly docs: string[] = [];
  private readonly tokens: number[] = [];
  private readonly titles = new Map<string, string>();
  themes: LibraryThemes | undefined;

  add(record: Pick<PagedChunkRecord, 'id' | 'docId' | 'tokens' | 'title'>): void {
    this.ids.push(record.id);
    this.docs.push(record.docId);
    this.tokens.push(record.tokens);
    this.titles.set(record.docId, record.title);
  }

  of(table: ConceptTable, degrees: Float64Array, thetaCo: number): void {
    try {
      this.themes = computeThemes({
        table,
        graph: themesGraphFromTable(table, degrees, thetaCo),
        degrees,
        chunkIds: this.ids,
        chunkDocs: this.docs,
        chunkTokens: this.tokens,
        docTitle: (doc) => this.titles.get(doc) ?? doc,
      });
    } catch {
      this.themes = undefined;
    }
  }
}

/**
 * The themes without the passages and key documents of `removed` documents (removed since the pages that hold the
 * themes were written: their evidence is left out of every answer until the next pages, storedPages.ts). A chunk id
 * starts with its document's id and "#".
 */
export function withoutDocuments(themes: LibraryThemes, removed: ReadonlySet<string>): LibraryThemes {
  if (removed.size === 0) return themes;
  const kept = (docId: string) => !removed.has(docId);
  return {
    ...themes,
    themes: themes.themes.map((t) => {
      const docs = t.keyDocuments
        .map((doc, i) => ({ doc, title: t.keyTitles[i] }))
        .filter((d) => kept(d.doc));
      return {
        ...t,
        keyDocuments: docs.map((d) => d.doc),
        keyTitles: docs.map((d) => d.title),
        passages: t.passages.filter((id) => kept(id.slice(0, id.indexOf('#')))),
      };
    }),
  };
}
