// PDF → plain text with sections, through pdf.js (loaded on first use only: it is ~1.5 MB of code).
// pdf.js normally parses in its own web worker. We import its worker module into the current thread instead
// (it registers globalThis.pdfjsWorker, which pdf.js then uses as a same-thread "fake worker"): that works the same
// in Node, in vitest and inside our own Vite-bundled module worker, with no workerSrc URL to serve.
// Layout → text: items on one baseline form a line; a vertical gap larger than 1.6 line heights, or a page break,
// starts a paragraph; short lines in a font clearly larger than the body text become headings.
import { baseTitle } from './decode.ts';
import { DocumentBuilder } from './builder.ts';
import { checkPdfInflatedSize, MAX_PDF_PAGES } from './limits.ts';
import { ParseError, type ParsedSection } from './types.ts';

interface Line {
  text: string;
  y: number;
  /** Font height of the line's largest item, in PDF units. */
  size: number;
}

interface TextItemLike {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
}

const PARAGRAPH_GAP = 1.6;
const HEADING_SIZE = 1.2;
const HEADING_MAX_CHARS = 120;

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | undefined;

function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= (async () => {
    await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  })();
  return pdfjs;
}

/** Groups a page's text items into lines, inserting spaces where items are apart. */
function pageLines(items: TextItemLike[]): Line[] {
  const lines: Line[] = [];
  let current: Line | undefined;
  let lastRight = 0;
  let breakAfter = false;
  for (const item of items) {
    const [, , , scaleY, x, y] = item.transform;
    const size = Math.abs(item.height || scaleY) || 1;
    if (item.str.length === 0) {
      breakAfter ||= item.hasEOL;
      continue;
    }
    const sameLine = current !== undefined && !breakAfter && Math.abs(current.y - y) < size * 0.5;
    if (!sameLine) {
      current = { text: '', y, size };
      lines.push(current);
    } else if (current && x - lastRight > size * 0.15 && !/\s$/.test(current.text) && !/^\s/.test(item.str)) {
      current.text += ' ';
    }
    current!.text += item.str;
    current!.size = Math.max(current!.size, size);
    lastRight = x + item.width;
    breakAfter = item.hasEOL;
  }
  for (const line of lines) line.text = line.text.replace(/\s+/g, ' ').trim();
  return lines.filter((line) => line.text.length > 0);
}

/** Body font size: the size covering the most characters. */
function bodySize(pages: Line[][]): number {
  const chars = new Map<number, number>();
  for (const line of pages.flat()) {
    const size = Math.round(line.size * 2) / 2;
    chars.set(size, (chars.get(size) ?? 0) + line.text.length);
  }
  let best = 0;
  let bestChars = -1;
  for (const [size, count] of chars) if (count > bestChars) [best, bestChars] = [size, count];
  return best || 1;
}

/** Joins wrapped lines of one paragraph, re-joining words hyphenated at a line end. */
function joinLines(lines: string[]): string {
  let text = '';
  for (const line of lines) {
    if (text === '') text = line;
    else if (/\p{L}-$/u.test(text) && /^\p{Ll}/u.test(line)) text = text.slice(0, -1) + line;
    else text += ' ' + line;
  }
  return text;
}

function layout(pages: Line[][]): DocumentBuilder {
  const out = new DocumentBuilder();
  const body = bodySize(pages);
  let paragraph: string[] = [];
  const flush = (): void => {
    out.paragraph(joinLines(paragraph));
    paragraph = [];
  };
  for (const lines of pages) {
    // A paragraph continues over the page break when the page ends mid-sentence and the next starts in lowercase.
    const first = lines[0];
    const last = paragraph[paragraph.length - 1];
    if (!(first && last && !/[.!?:;。！？"”]$/.test(last) && /^\p{Ll}/u.test(first.text))) flush();
    lines.forEach((line, i) => {
      const previous = lines[i - 1];
      const gap = previous ? previous.y - line.y : 0;
      const ratio = line.size / body;
      if (ratio >= HEADING_SIZE && line.text.length <= HEADING_MAX_CHARS) {
        flush();
        // Consecutive large lines are one wrapped heading.
        if (
          previous &&
          previous.size === line.size &&
          gap < line.size * PARAGRAPH_GAP &&
          out.extendHeading(line.text)
        ) {
          return;
        }
        out.heading(line.text, ratio >= 1.5 ? 1 : 2);
        return;
      }
      if (previous && (gap > Math.max(line.size, previous.size) * PARAGRAPH_GAP || gap < 0)) flush();
      paragraph.push(line.text);
    });
  }
  flush();
  return out;
}

/**
 * Parses a PDF. Throws ParseError "not a valid PDF (…)" for damaged or encrypted files, and for PDFs whose
 * streams inflate beyond MAX_PDF_INFLATED_BYTES (checked before pdf.js sees them) or with more than MAX_PDF_PAGES.
 */
export async function parsePdf(
  file: string,
  bytes: Uint8Array,
): Promise<{ text: string; sections: ParsedSection[]; title: string }> {
  checkPdfInflatedSize(file, bytes);
  const lib = await loadPdfJs();
  // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy.
  const task = lib.getDocument({
    data: bytes.slice(),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  let document: Awaited<typeof task.promise>;
  try {
    document = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => {});
    if (error instanceof Error && error.name === 'PasswordException') {
      throw new ParseError(file, 'the PDF is password-protected');
    }
    const message = error instanceof Error ? error.message : String(error);
    throw new ParseError(file, `not a valid PDF (${message})`);
  }
  try {
    if (document.numPages > MAX_PDF_PAGES) {
      throw new ParseError(
        file,
        `the PDF has ${document.numPages} pages (the limit is ${MAX_PDF_PAGES} pages per file)`,
      );
    }
    const pages: Line[][] = [];
    for (let n = 1; n <= document.numPages; n++) {
      const page = await document.getPage(n);
      const content = await page.getTextContent();
      pages.push(pageLines(content.items.filter((item) => 'str' in item) as unknown as TextItemLike[]));
      page.cleanup();
    }
    const built = layout(pages);
    if (built.isEmpty()) {
      throw new ParseError(
        file,
        'no text found in the PDF (scanned pages without a text layer cannot be read)',
      );
    }
    const { text, sections } = built.build();
    const info = (await document.getMetadata().catch(() => undefined))?.info as
      { Title?: unknown } | undefined;
    const metaTitle = typeof info?.Title === 'string' ? info.Title.trim() : '';
    return { text, sections, title: metaTitle || built.titleFromHeadings() || baseTitle(file) };
  } catch (error) {
    if (error instanceof ParseError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new ParseError(file, `not a valid PDF (${message})`);
  } finally {
    await document.destroy();
  }
}
