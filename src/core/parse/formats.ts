// Which files can be indexed, by extension: a module of its own (no parser code) so the page can screen dropped
// files without loading the parsers.

export const SUPPORTED_EXTENSIONS = ['.txt', '.md', '.html', '.pdf', '.docx', '.jsonl'] as const;

export const MIME: Record<string, string> = {
  '.txt': 'text/plain',
  '.text': 'text/plain',
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.xhtml': 'text/html',
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.jsonl': 'application/jsonl',
  '.ndjson': 'application/jsonl',
};

/** Lowercased extension with its dot ("" when none). */
export function extensionOf(name: string): string {
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

/** True when parseFile knows the file's extension. */
export function isSupportedFile(name: string): boolean {
  return extensionOf(name) in MIME;
}
