// parseFile: one entry point from a file's name and bytes to plain-text documents with sections. Picks the parser
// by extension; heavy parsers (pdf.js, mammoth) load only when such a file comes. Whole-file failures throw a
// ParseError with a reason for the user; .jsonl line failures come back in `errors` beside the good lines.
import { wholeTextSection } from './builder.ts';
import { baseTitle, decodeText } from './decode.ts';
import { formatOf, unsupportedReason } from './formats.ts';
import { parseHtml } from './html.ts';
import { parseJsonl } from './jsonl.ts';
import { parseMarkdown } from './markdown.ts';
import type { OcrOptions } from './ocr.ts';
import {
  ParseError,
  type ParsedDocument,
  type ParsedFile,
  type ParseProgress,
  type ParseResult,
} from './types.ts';

export { ParseError, type ParsedDocument, type ParseProgress, type ParseResult } from './types.ts';
export { loadPdfJs, type PdfJs } from './pdfjs.ts';

function single(name: string, bytes: Uint8Array, mime: string, parsed: ParsedFile): ParseResult {
  if (parsed.text.trim().length === 0) throw new ParseError(name, 'no text found in the file');
  const document: ParsedDocument = {
    title: parsed.title?.trim() || baseTitle(name),
    text: parsed.text,
    mime,
    sourceName: name,
    size: bytes.length,
    sections: parsed.sections,
  };
  if (parsed.pageStarts) document.pageStarts = parsed.pageStarts;
  if (parsed.recognised) document.recognised = parsed.recognised;
  if (parsed.ocr) document.ocr = parsed.ocr;
  return { documents: [document], errors: [] };
}

/** A plain-text file's title: its first line when that is short, set apart by a blank line and not a sentence. */
function plainTextTitle(text: string): string | undefined {
  const match = /^([^\n]{1,100})\n[ \t]*\n/.exec(text);
  const line = match?.[1].trim();
  return line && !/[.!?,;:。！？]$/.test(line) ? line : undefined;
}

export interface ParseOptions {
  /** Recognises the text of scanned pages and pictures; without it they give no text. */
  ocr?: OcrOptions;
  /** Hears each page of a PDF as its text is read. */
  onProgress?: (progress: ParseProgress) => void;
}

/**
 * Parses one file into documents (one per file; one per line for .jsonl). Throws ParseError when the file is
 * empty, binary, damaged or of an unsupported type.
 */
export async function parseFile(
  name: string,
  bytes: Uint8Array,
  options: ParseOptions = {},
): Promise<ParseResult> {
  const mime = formatOf(name)?.mime;
  if (!mime) throw new ParseError(name, unsupportedReason(name));
  if (bytes.length === 0) throw new ParseError(name, 'the file is empty');
  switch (mime) {
    case 'application/pdf': {
      const { parsePdf } = await import('./pdf.ts');
      return single(name, bytes, mime, await parsePdf(name, bytes, options.ocr, options.onProgress));
    }
    case 'application/vnd.openxmlformats-officedocument.wordprocessingml.document': {
      const { parseDocx } = await import('./docx.ts');
      return single(name, bytes, mime, await parseDocx(name, bytes));
    }
    case 'image/png':
    case 'image/jpeg':
    case 'image/webp': {
      const { parseImage } = await import('./image.ts');
      return single(name, bytes, mime, await parseImage(name, bytes, options.ocr));
    }
    case 'application/jsonl': {
      const result = parseJsonl(name, decodeText(name, bytes));
      if (result.documents.length === 0 && result.errors.length === 0) {
        throw new ParseError(name, 'no text found in the file');
      }
      return result;
    }
    case 'text/markdown':
      return single(name, bytes, mime, parseMarkdown(decodeText(name, bytes)));
    case 'text/html':
      return single(name, bytes, mime, parseHtml(decodeText(name, bytes), { page: true }));
    default: {
      const text = decodeText(name, bytes).trim();
      return single(name, bytes, mime, {
        text,
        sections: wholeTextSection(text),
        title: plainTextTitle(text),
      });
    }
  }
}

export {
  ACCEPT_ATTRIBUTE,
  MAX_FILE_BYTES,
  OCR_PAGE_TIMEOUT_MS,
  PARSE_TIMEOUT_MS,
  SUPPORTED_KINDS,
  formatOf,
  isSupportedFile,
  tooLargeReason,
  unsupportedReason,
} from './formats.ts';

export {
  OCR_LANGUAGE_NAMES,
  isOcrLanguageSetting,
  recognisedLanguageLabel,
  type OcrEngine,
  type OcrLanguage,
  type OcrLanguageSetting,
  type OcrLine,
  type OcrPageStore,
  type OcrPage,
  type OcrProgress,
  type OcrOptions,
} from './ocr.ts';
