// What the parsers produce and how they fail. A ParsedDocument is plain text plus the heading structure over it;
// chunking (src/core/chunk.ts) and hashing (src/core/prepare.ts) take it from there.
import type { DocumentRecord, FileError, Recognised } from '../types.ts';

export interface ParsedSection {
  /** Heading text ("" for the implicit section before the first heading). */
  heading: string;
  /** 1–6 for headings, 0 for the implicit section. */
  level: number;
  /** Offsets into ParsedDocument.text; sections are contiguous and cover the whole text in order. */
  start: number;
  end: number;
}

/** A document as its parser read it: the stored record's fields that come from the file, and its sections. */
export interface ParsedDocument extends Pick<
  DocumentRecord,
  'title' | 'text' | 'mime' | 'sourceName' | 'size' | 'externalId' | 'pageStarts' | 'ocr'
> {
  sections: ParsedSection[];
  /** Pages whose text was recognised from their picture (scans, images), and in which language. */
  recognised?: Recognised;
}

/** What one file's parser gives: parseFile adds its name, type and size, and a title from its name if it has none. */
export type ParsedFile = Pick<ParsedDocument, 'text' | 'sections' | 'pageStarts' | 'recognised' | 'ocr'> & {
  title?: string;
};

/**
 * What a parser reports as it goes: the pages or documents of the file it has finished. The ingest pipeline stops a
 * parse that reports nothing for its time limit (src/services/ingest/parseWatch.ts), not one that is merely slow.
 */
export interface ParseProgress {
  unit: 'page' | 'document';
  done: number;
  total: number;
}

/** Documents found in one file, plus the problems with parts of it (bad .jsonl lines) that did not stop the rest. */
export interface ParseResult {
  documents: ParsedDocument[];
  errors: FileError[];
}

/** A file that cannot be parsed at all. `reason` is written for the user. */
export class ParseError extends Error {
  readonly file: string;
  readonly reason: string;

  constructor(file: string, reason: string) {
    super(`parse: ${file}: ${reason}`);
    this.name = 'ParseError';
    this.file = file;
    this.reason = reason;
  }
}
