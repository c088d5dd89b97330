// The data model shared by every layer: parsing, storage, workers, retrieval, bundles and the CLI.
// Plain serializable records (structured-clone safe) so they cross worker boundaries and go into
// IndexedDB and bundles unchanged. Vectors travel separately as Float32Array.

/** Source layer: one document (a file, or one line of a .jsonl file). */
export interface DocumentRecord {
  /** 'd' + first 16 hex chars of the SHA-256 of the normalized text: same content → same id, stored once. */
  id: string;
  title: string;
  /** File name the document came from (for .jsonl: "file.jsonl#<line>"). */
  sourceName: string;
  /** Identifier given by the source, e.g. the `id` field of a .jsonl line (benchmark passage id). */
  externalId?: string;
  mime: string;
  /** Size in bytes of the source (for .jsonl: of the line). */
  size: number;
  /** Full SHA-256 hex of the extracted text. */
  hash: string;
  addedAt: number;
  /** The extracted plain text; every offset below points into it. */
  text: string;
  /**
   * Paginated sources (PDF): where each page starts in `text` (page p + 1 at pageStarts[p]). Absent for other
   * sources and in stores and bundles written before pages were kept.
   */
  pageStarts?: number[];
  /**
   * Text recognised from pictures (scans, photos of pages): the language it was read in, and each recognised page's
   * words with their boxes, so the viewer can mark a cited sentence on the drawn page. Absent for text documents.
   */
  ocr?: RecognisedText;
}

/** What text recognition did for a PDF (or a picture): the pages it read and in which language. */
export interface Recognised {
  pages: number;
  language: 'eng' | 'chi_sim';
  languageFrom: OcrLanguageSource;
  /** Pages taken from the store, recognised before a reload interrupted the file (absent: none). */
  resumed?: number;
}

/** What recognition read on a document's pages (see DocumentRecord.ocr). */
export interface RecognisedText {
  language: 'eng' | 'chi_sim';
  /** How the language was decided (absent in documents stored before it was kept). */
  languageFrom?: OcrLanguageSource;
  /** The file's key in the store of recognised pages (its content hash): its pages there go with the document. */
  key?: string;
  pages: RecognisedPage[];
}

/**
 * How a document's recognition language was decided: set by the person (the app's setting, `--ocr-language`), told
 * from the document's own text layer, or told from its first page read with the Chinese model.
 */
export type OcrLanguageSource = 'setting' | 'text' | 'page';

/** One recognised page: its words in reading order, boxed in fractions of the page (0–1, top-left origin). */
export interface RecognisedPage {
  /** 1-based page number. */
  page: number;
  words: PageWord[];
}

/** A word (or a piece of a text line) on a page: its text and its box in fractions of the page, top-left origin. */
export interface PageWord {
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Corpus layer: a section (heading + its body) of a document. */
export interface SectionRecord {
  /** `${docId}#${sectionIndex padded to 4}` */
  id: string;
  docId: string;
  index: number;
  heading: string;
  /** Heading level 1–6; 0 for the implicit section before the first heading. */
  level: number;
  start: number;
  end: number;
}

/** Corpus layer: a chunk of at most ℓ cl100k tokens, never cutting a sentence. */
export interface ChunkRecord {
  /** `${docId}#${section padded 4}#${position padded 4}` — lexicographic order = document order. */
  id: string;
  docId: string;
  sectionIndex: number;
  /** Position of the chunk within its section. */
  position: number;
  /** Position of the chunk within its document (0-based), for neighbour look-ups. */
  order: number;
  /** Character offsets into DocumentRecord.text. */
  start: number;
  end: number;
  text: string;
  tokens: number;
  /** Index of the first sentence of this chunk in the document's sentence list, and how many. */
  firstSentence: number;
  sentenceCount: number;
  /**
   * Paginated sources (PDF): the first and last page (1-based) the chunk's text is on. Absent for other sources
   * and in stores and bundles written before pages were kept.
   */
  pageStart?: number;
  pageEnd?: number;
}

/** Corpus layer: one sentence with character offsets into its document. */
export interface SentenceRecord {
  /** `${docId}:${index padded 6}` */
  id: string;
  docId: string;
  chunkId: string;
  /** Index within the document. */
  index: number;
  start: number;
  end: number;
  text: string;
}

/** A whole parsed, chunked and sentence-split document, before embedding. */
export interface PreparedDocument {
  doc: DocumentRecord;
  sections: SectionRecord[];
  chunks: ChunkRecord[];
  sentences: SentenceRecord[];
}

/** Anything that turns texts into unit-length vectors. */
export interface Embedder {
  /** Stable identifier recorded in the store and bundles, e.g. "use-lite@1" or "hf:<model>". */
  readonly id: string;
  readonly dimension: number;
  /** Returns texts.length × dimension floats, row-major, each row L2-normalized. */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array>;
  dispose?(): Promise<void>;
}

export type Stage =
  | 'read'
  | 'parse'
  | 'chunk'
  | 'embed'
  | 'store'
  | 'concepts'
  | 'graph'
  | 'pagerank'
  | 'kg'
  | 'bundle'
  /** A large library's pages written into the store (src/services/ingest/pagesWrite.ts). */
  | 'pages';

/** Progress of a long operation. `rate` is items per second over the stage so far. */
export interface Progress {
  stage: Stage;
  done: number;
  total: number;
  rate: number;
  /** Optional file or item the stage is working on. */
  item?: string;
}

export type ProgressCallback = (p: Progress) => void;

/** A per-file problem reported to the user; the rest of the batch goes on. */
export interface FileError {
  file: string;
  reason: string;
}

/** Parameters recorded with an index (the store's meta record and a bundle's manifest). */
export interface IndexParams {
  maxChunkTokens: number;
}

export const DEFAULT_INDEX_PARAMS: IndexParams = { maxChunkTokens: 1200 };
