// The one list of file types ConceptRAG can index. The parser picks its parser from it, the page screens picked and
// dropped files with it and builds the file input's accept attribute from it, and the CLI's folder walker keeps
// the files it names: a type is either supported everywhere or nowhere. A module of its own (no parser code), so
// the page can screen files without loading the parsers.

/**
 * Larger files are refused with a per-file error: at ~150 sentences/s, 20 MB of text already takes hours. Here,
 * not in a parser, so that the page can refuse a file by its size before reading it (src/ui/intake.ts), the
 * pipeline refuses what reaches it another way, and the CLI's folder walker holds files to the same cap.
 */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;

/**
 * A file that has not been parsed (and chunked) within this time is failed: a parser must never hang the queue.
 * The browser parses in a worker of its own that is terminated when this fires or on Cancel (parseRunner.ts); the
 * CLI in a worker thread that is terminated likewise (src/cli/parseThread.ts).
 */
export const PARSE_TIMEOUT_MS = 30_000;

/**
 * Recognising a scanned page's text takes seconds: once a file's pages are recognised, each page gets this time
 * (the file's limit starts again per page), so a 300-page scan is not cut off while a stuck page still is.
 */
export const OCR_PAGE_TIMEOUT_MS = 60_000;

/** Why a file is refused by its size, in the same words wherever it is refused. */
export function tooLargeReason(bytes: number): string {
  return `file too large (${(bytes / 1024 / 1024).toFixed(1)} MB; the limit is ${MAX_FILE_BYTES / 1024 / 1024} MB)`;
}

export interface FileFormat {
  /** Lowercased, with its dot. */
  extension: string;
  /** The parser is chosen by this type. */
  mime: string;
  /** What the user reads in lists of supported types. */
  label: string;
}

const FILE_FORMATS: readonly FileFormat[] = [
  { extension: '.txt', mime: 'text/plain', label: 'plain text' },
  { extension: '.text', mime: 'text/plain', label: 'plain text' },
  { extension: '.md', mime: 'text/markdown', label: 'Markdown' },
  { extension: '.markdown', mime: 'text/markdown', label: 'Markdown' },
  { extension: '.html', mime: 'text/html', label: 'HTML' },
  { extension: '.htm', mime: 'text/html', label: 'HTML' },
  { extension: '.xhtml', mime: 'text/html', label: 'HTML' },
  { extension: '.pdf', mime: 'application/pdf', label: 'PDF' },
  {
    extension: '.docx',
    mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    label: 'Word',
  },
  { extension: '.jsonl', mime: 'application/jsonl', label: 'JSON Lines' },
  { extension: '.ndjson', mime: 'application/jsonl', label: 'JSON Lines' },
  // Pictures of pages: one-page documents whose text is recognised (src/core/parse/image.ts).
  { extension: '.png', mime: 'image/png', label: 'picture of a page' },
  { extension: '.jpg', mime: 'image/jpeg', label: 'picture of a page' },
  { extension: '.jpeg', mime: 'image/jpeg', label: 'picture of a page' },
  { extension: '.webp', mime: 'image/webp', label: 'picture of a page' },
];

const SUPPORTED_EXTENSIONS: readonly string[] = FILE_FORMATS.map((f) => f.extension);

/** The kinds of documents, for the page to name ("plain text, Markdown, HTML, …"). */
export const SUPPORTED_KINDS: readonly string[] = [...new Set(FILE_FORMATS.map((f) => f.label))];

/** The file input's accept attribute: extensions only, as a MIME type would let the picker offer other files. */
export const ACCEPT_ATTRIBUTE = SUPPORTED_EXTENSIONS.join(',');

/** Lowercased extension with its dot ("" when none). */
function extensionOf(name: string): string {
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

/** The format of a file by its name, or undefined when it cannot be indexed. */
export function formatOf(name: string): FileFormat | undefined {
  const extension = extensionOf(name);
  return FILE_FORMATS.find((f) => f.extension === extension);
}

export function isSupportedFile(name: string): boolean {
  return formatOf(name) !== undefined;
}

/** Why a file is refused by its type, in the same words wherever it is refused. */
export function unsupportedReason(name: string): string {
  const extension = extensionOf(name);
  const what = extension ? `unsupported file type ${extension}` : 'unsupported file type (no extension)';
  return `${what} (supported: ${SUPPORTED_EXTENSIONS.join(', ')})`;
}
