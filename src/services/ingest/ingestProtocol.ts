// Plain data types of indexing that cross the ingest worker's boundary (events, outcomes, coverage). Types only, so the page and
// every worker can import them without pulling worker code into the page bundle.
import type { Progress, Recognised } from '../../core/types.ts';

/** The intake's size cap; defined with the file types so that the page, the workers and the CLI share it. */
export { MAX_FILE_BYTES } from '../../core/parse/index.ts';

/** Per-file outcome of indexing, shown in the Library view. */
export interface FileOutcome {
  file: string;
  /** 'removed': the page's own note after the user removed the file's documents (never sent by the worker). */
  status: 'indexed' | 'duplicate' | 'failed' | 'removed';
  /** Documents stored from this file (a .jsonl file holds many). */
  documents: number;
  reason?: string;
  /** Pages whose text was recognised from their picture (a scan, an image), and in which language. */
  recognised?: Recognised;
}

/**
 * How far each layer of the library reaches, sent after every store write and graph refresh: the lexical layer
 * answers at once, embeddings fill in (README "Indexing pipeline").
 */
export interface LibraryCoverage {
  /** Stored: parsed, chunked and split into sentences, each document complete. */
  documents: number;
  sentences: number;
  /** Covered by the concept graph as last refreshed: what `ppr` and `bm25` search. */
  searchableDocuments: number;
  searchableSentences: number;
  /**
   * 'pages': a large library answered from its pages (refreshed during a drop in place of the graph), so the
   * searchable documents are the ones its latest pages hold. Absent: the concept graph.
   */
  searchableFrom?: 'pages';
  /** With their sentence vectors stored (the semantic layer is built once every document has them). */
  embeddedDocuments: number;
  embeddedSentences: number;
  /**
   * Chunks stored, and the concept graph's concepts and edges as last written: the Library view's counts follow
   * them during a run (reading the store's counts then cost the drop time, so they are read seldom).
   */
  chunks?: number;
  concepts?: number;
  edges?: number;
}

/**
 * The setting the ingest pipeline reads before each embedding round: false keeps the library to its lexical layer
 * (documents stored and searchable by their words, no sentence vectors), the user's choice in the Library view when
 * a drop would not fit in the browser's storage with them. Absent or true: sentences are embedded.
 */
export const SENTENCE_VECTORS_SETTING = 'sentenceVectors';

/**
 * The language scanned pages are recognised in ('auto', 'eng' or 'chi_sim'; absent: 'auto', told from the
 * document's text or its first page), the user's choice in Settings. Read by the ingest pipeline for each file.
 */
export const OCR_LANGUAGE_SETTING = 'ocrLanguage';

/** Why indexing stopped with an error the user can act on (absent: any other error). */
export type IngestStopCause = 'storage-full' | 'storage-timeout';

export type IngestEvent =
  | { type: 'progress'; progress: Progress }
  | { type: 'file'; outcome: FileOutcome }
  /** Something in the store changed (a document, the graph, the queue): the page re-reads its counts. */
  | { type: 'changed' }
  /** The queue is empty; the worker is idle. */
  | { type: 'idle'; cancelled: boolean }
  /** Another tab holds the library lock and indexes the shared queue; this worker waits until it is done. */
  | { type: 'waiting' }
  /** The layers' reach changed (documents stored, vectors stored, graph refreshed). */
  | { type: 'coverage'; coverage: LibraryCoverage }
  /** `cause` and `file` are set when the browser refused or did not finish a write (the queue is kept). */
  | { type: 'error'; message: string; cause?: IngestStopCause; file?: string };

export type IngestListener = (event: IngestEvent) => void;

/**
 * The type of the one plain message (not a Comlink call) the page posts to the query worker: `port`, the end of a
 * MessageChannel whose other end the ingest worker serves (IngestApi.serveGraph), from which the query worker takes
 * the concept graph of the last refresh (src/services/library/graphHandOver.ts).
 */
export const GRAPH_PORT_MESSAGE = 'conceptrag-graph-port';
