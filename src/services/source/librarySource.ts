// What a question can read of a library, wherever its bytes are: the one interface the one `ask()` (ask.ts), the
// Graph view, the written answer's citations and Evaluate read. Three sources implement it: the library in memory
// (memorySource.ts), a paged index over any RangeSource or the library's stored pages (pagedSource.ts), and the
// library's stored chunks scored by words while its pages are awaited (wordsSource.ts). `has` says what each can
// read; a mode names what it needs in the registry (modeRegistry.ts), and `answers` / `missing` there compare the
// two. openSource.ts is the one place that chooses a source; nothing else branches on where the bytes are.
import type { DocumentRecord } from '../../core/types.ts';
import type { AtomicIndex, DistillChunkInput } from '../../core/atomic/index.ts';
import type { KgChunkView, KgIndex } from '../../core/kg/index.ts';
import type { ConceptMapOptions, RetrievedChunk, WalkViewCaps } from '../../core/retrieval/index.ts';
import type { CardsWanted } from '../../core/paged/index.ts';
import type { LibraryThemes } from '../../core/themes/index.ts';
import type { LibraryGraph, QuestionGraph } from '../questions/graphViewProtocol.ts';
import { lacking, type Capable } from '../questions/modeRegistry.ts';
import type { Evidence, PagedReads } from '../questions/queryProtocol.ts';
import type { CitationSource } from '../questions/writtenAnswer.ts';

/** A question's text and, where the library has vectors, its vector. */
interface SourceQuery {
  text: string;
  vector?: Float32Array;
}

interface SearchOptions {
  /**
   * A mode that ranks without the question vector, before its ranking is complete: over a paged index that waits
   * on reads, the words' hits (bm25, read in the same rounds) with what they read, while the walk still reads
   * (PagedLibrary.search); in memory, the lexical ranking while the vector is still coming or the engine still
   * computes its concept vectors (memorySource.ts).
   */
  early?: (hits: RetrievedChunk[], reads?: PagedReads, cards?: UnreadHits) => void;
  /** The question's vector, still being computed (with `early` only): searched with once it comes. */
  vector?: Promise<Float32Array | undefined>;
  /**
   * Where the source reads records as it needs them (a paged index): read only those of the hits `wanted` wants
   * (firstPage.ts: the cards the Ask view shows first). The hits it did not read hold their rank, score and tokens
   * only; `unread` is told which they are and how to read them (the hits the search gives without `cards`). A
   * source that has every chunk at hand reads them all and tells nothing.
   */
  cards?: {
    wanted: CardsWanted;
    unread(hits: UnreadHits, rest: () => Promise<RetrievedChunk[]>): void;
  };
}

/** Which hits of a search with `cards` were not read, and each hit's chunk as a key (the same key, the same chunk). */
export interface UnreadHits {
  unread: ReadonlySet<number>;
  keys: readonly number[];
}

/**
 * One question's reads of a source: its searches (a reasoning mode makes several), the chunks they brought, and what
 * it read. A library in memory has every chunk at hand; a paged index keeps the records its searches and lookups
 * read, so the evidence and the citations of this question read them.
 */
export interface SourceQuestion {
  /** Ranked chunks for a text in an engine mode (the default, bm25, a fusion…), cut to `budget` tokens. */
  search(
    query: SourceQuery,
    mode: string,
    budget: number,
    options?: SearchOptions,
  ): Promise<RetrievedChunk[]>;
  /** A chunk as the KG search and the reasoning modes read it (sentence offsets into its text). */
  chunk(chunkId: string): KgChunkView | undefined;
  /**
   * Reads the records of these chunks so that `chunk` answers for them (absent: every chunk is at hand). With
   * `budget`, the ids are in rank order and only as many are read as a budget cut over them takes.
   */
  readChunks?(chunkIds: readonly string[], budget?: number): Promise<void>;
  /** A hit as the page shows it (its document's title, offsets, pages). */
  evidence(hit: RetrievedChunk): Evidence;
  /** Marks these hits as the ones shown: the written answer over them cites their sentences (citations()). */
  show(hits: readonly RetrievedChunk[]): void;
  /** What the question read so far (a paged index only). */
  readonly reads?: PagedReads;
}

export interface LibrarySource extends Capable {
  /** Where the bytes are, for a result to say (`from`) and a test to name; never a reason to branch. */
  readonly kind: 'memory' | 'pages' | 'words' | 'themes';
  /** What a result from it says it was answered from (AskResult.from). */
  readonly from?: 'pages' | 'words';
  /** The library's layers (AskResult.layers). */
  readonly layers: { lexical: boolean; semantic: boolean };
  /** Starts a question: its searches and chunk reads, stopped by `signal`. */
  question(signal: AbortSignal): SourceQuestion;
  /** The library analyser's terms of a text: what the relevance scale compares the question's words by. */
  terms(text: string): string[];
  /**
   * Reads ahead what a question of these words (those a person has finished typing) will read first, while `wanted`
   * says so (a newer text, or the question asked, stops it between its reads). Absent, or resolving at once: the
   * source has every word at hand or reads what a question needs only (PagedLibrary.prepare).
   */
  prepare?(text: string, wanted: () => boolean): Promise<void>;
  /** The KG index, read on first use; rejects with the refusal when the library has none. */
  kg(): Promise<KgIndex>;
  /** The atomic-question index, read on first use; null when the library has none. */
  atomic(): Promise<AtomicIndex | null>;
  /** The sentences and pages the written answer over the last question's evidence cites. */
  citations(): CitationSource;
  /** The concept walk of a question, bounded for drawing (the Graph view). */
  questionGraph(
    question: string,
    vector: Float32Array | undefined,
    caps: Partial<WalkViewCaps>,
    signal?: AbortSignal,
  ): Promise<QuestionGraph>;
  /**
   * The library's themes (communities of its concept graph), which answer a corpus-wide question in the default mode
   * (themesAnswer.ts) and `cli themes`; absent or null: the library has none.
   */
  themes?(): Promise<LibraryThemes | null>;
  /** The library's top concepts, or a searched concept and its neighbours (the Graph view). */
  libraryGraph(options: ConceptMapOptions, signal?: AbortSignal): Promise<LibraryGraph>;
  /** One whole document (the viewer); rejects with the refusal when the source reads no whole document. */
  document(docId: string): Promise<DocumentRecord | undefined>;
  /** The chunks in the KG build's order (kgBuild.ts); rejects with the refusal when the source cannot rank them. */
  buildOrder(): Promise<BuildOrder>;
}

/** The chunks in build order: what the KG build's estimate counts and its build reads, without keeping an engine. */
export interface BuildOrder {
  /**
   * Each chunk's text or tokens, in build order (by concept-graph chunk rank, highest first): what the estimate
   * counts (a paged index gives the tokens its chunker counted, without reading every text).
   */
  sizes: ReadonlyArray<{ text: string } | { tokens: number }>;
  /** The top κ of the chunks in build order (the core chunks), with their documents, and texts unless `texts`. */
  core(kappa: number): Promise<DistillChunkInput[]>;
  /** The texts of core chunks given without one (a paged index), read as the build reaches them. */
  texts?(chunks: readonly DistillChunkInput[]): Promise<string[]>;
}

/**
 * The layers a library has beside what it searches, each read on first use (only those it has): the KG and the
 * atomic questions the KG and reasoning modes read, and stored themes (a bundle's part; a library in memory
 * computes its own, themesOf.ts).
 */
export interface SourceLayers {
  kg?: () => Promise<KgIndex>;
  atomic?: () => Promise<AtomicIndex | null>;
  themes?: () => Promise<LibraryThemes | null>;
  /**
   * Documents removed since the library was read (the library's own pages until the next are written, a library in
   * memory while the one without them loads): their chunks are left out of every search, which reads further down
   * the ranking to fill the budget with the others.
   */
  removed?: ReadonlySet<string>;
}

/** How far past the budget a search with removed documents reads to fill it with the rest: 8 times. */
export const REMOVED_BUDGET_GROWTH = 8;

/** The hits of documents not removed, in rank order, as many as `budget` tokens take (at least the first). */
export function withoutRemoved(
  hits: readonly RetrievedChunk[],
  removed: ReadonlySet<string>,
  budget: number,
): RetrievedChunk[] {
  if (removed.size === 0) return [...hits];
  const kept: RetrievedChunk[] = [];
  let used = 0;
  for (const hit of hits) {
    if (removed.has(hit.docId)) continue;
    if (kept.length > 0 && used + hit.tokens > budget) break;
    kept.push(hit);
    used += hit.tokens;
  }
  return kept;
}

/** What a layer a library lacks needs, as every source words it. */
export function layerLacking(capability: 'kg' | 'atomic'): string {
  return capability === 'kg'
    ? 'a knowledge graph, which this library has not'
    : 'atomic questions, which this library has not';
}

/** The refusal of a whole document by a source that reads none (the viewer of a bundle read by ranges). */
export function noDocument(source: LibrarySource): Promise<never> {
  return Promise.reject(new Error(lacking(source, 'a whole document', ['documents'])));
}
