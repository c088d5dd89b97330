// PDF → plain text with sections and pages, through pdf.js (loaded on first use only: it is ~1.5 MB of code).
// pdf.js normally parses in its own web worker. We import its worker module into the current thread instead
// (it registers globalThis.pdfjsWorker, which pdf.js then uses as a same-thread "fake worker"): that works the same
// in Node, in vitest and inside our own Vite-bundled module worker, with no workerSrc URL to serve.
// This module reads what pdf.js gives: text items (→ lines, with their characters repaired in pdfText.ts), page
// heights and the outline; pdfLayout.ts turns them into the document (furniture dropped, headings, paragraphs).
import { sha256Hex } from '../hash.ts';
import { baseTitle } from './decode.ts';
import { checkPdfInflatedSize, MAX_PDF_PAGES } from './limits.ts';
import {
  grayPnm,
  languageOfText,
  MAX_OCR_PIXELS,
  ocrPageLines,
  recognisePages,
  textIsUsable,
  type OcrLanguage,
  type OcrOptions,
  type PageImage,
} from './ocr.ts';
import { dropPageFurniture, layoutPdf, type OutlineTarget, type PdfLine, type PdfPage } from './pdfLayout.ts';
import { pdfItemText } from './pdfText.ts';
import { ParseError, type ParsedSection } from './types.ts';

interface TextItemLike {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
  fontName: string;
}

/** Outline entries read at most (a hostile file can hold millions; a real book has hundreds). */
const MAX_OUTLINE_ENTRIES = 5000;

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;
let pdfjs: Promise<PdfJs> | undefined;

function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= (async () => {
    await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  })();
  return pdfjs;
}

/** Groups a page's text items into lines, inserting spaces where items are apart. */
function pageLines(items: TextItemLike[], monospace: (fontName: string) => boolean): PdfLine[] {
  const lines: PdfLine[] = [];
  let current: PdfLine | undefined;
  let lastRight = 0;
  let breakAfter = false;
  for (const item of items) {
    const [, , , scaleY, x, y] = item.transform;
    const size = Math.abs(item.height || scaleY) || 1;
    if (item.str.length === 0) {
      breakAfter ||= item.hasEOL;
      continue;
    }
    const blank = item.str.trim().length === 0;
    const sameLine = current !== undefined && !breakAfter && Math.abs(current.y - y) < size * 0.5;
    if (!sameLine) {
      if (blank) continue;
      current = { text: '', x, y, size, mono: monospace(item.fontName) };
      lines.push(current);
    } else if (current && x - lastRight > size * 0.15 && !/\s$/.test(current.text) && !/^\s/.test(item.str)) {
      current.text += ' ';
    }
    const line = current!;
    line.text += item.str;
    // A space item in another font (between two code words) does not decide the line's size or font.
    if (!blank) {
      line.size = Math.max(line.size, size);
      line.mono &&= monospace(item.fontName);
    }
    lastRight = x + item.width;
    breakAfter = item.hasEOL;
  }
  for (const line of lines) line.text = pdfItemText(line.text).replace(/\s+/g, ' ').trim();
  return lines.filter((line) => line.text.length > 0);
}

/** The outline's entries with the page (and height) each points at; entries that cannot be resolved are left out. */
async function outlineTargets(document: PdfDocument): Promise<OutlineTarget[]> {
  const outline = await document.getOutline().catch(() => null);
  const out: OutlineTarget[] = [];
  type Entry = NonNullable<typeof outline>[number];
  const visit = async (entries: readonly Entry[], level: number): Promise<void> => {
    for (const entry of entries) {
      if (out.length >= MAX_OUTLINE_ENTRIES) return;
      try {
        const dest = typeof entry.dest === 'string' ? await document.getDestination(entry.dest) : entry.dest;
        const ref = Array.isArray(dest) ? (dest[0] as unknown) : undefined;
        const page =
          typeof ref === 'number'
            ? ref
            : ref && typeof ref === 'object'
              ? await document.getPageIndex(ref as Parameters<PdfDocument['getPageIndex']>[0])
              : undefined;
        const kind = Array.isArray(dest) ? (dest[1] as { name?: string } | undefined)?.name : undefined;
        const topValue =
          kind === 'XYZ' ? dest![3] : kind === 'FitH' || kind === 'FitBH' ? dest![2] : undefined;
        if (page !== undefined && entry.title) {
          out.push({
            title: entry.title,
            level,
            page,
            top: typeof topValue === 'number' ? topValue : undefined,
          });
        }
      } catch {
        // A destination pointing nowhere: the entry names no line.
      }
      if (entry.items?.length) await visit(entry.items, level + 1);
    }
  };
  if (outline) await visit(outline, 1);
  return out;
}

/** What text recognition did for a PDF (or a picture): the pages it read and in which language. */
export interface Recognised {
  pages: number;
  language: OcrLanguage;
}

interface PdfImage {
  width: number;
  height: number;
  kind?: number;
  data?: Uint8Array | Uint8ClampedArray;
}

/** pdf.js's image kinds (ImageKind in its util.js). */
const GRAYSCALE_1BPP = 1;
const RGB_24BPP = 2;
const RGBA_32BPP = 3;

/** pdf.js's decoded image pixels as one gray byte per pixel. */
function grayPixels(image: PdfImage): Uint8Array | undefined {
  const { width, height, kind, data } = image;
  if (!data) return undefined;
  const out = new Uint8Array(width * height);
  if (kind === GRAYSCALE_1BPP) {
    const rowBytes = (width + 7) >> 3;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        // A set bit is white (pdf.js has applied the image's /Decode already).
        const bit = (data[y * rowBytes + (x >> 3)] >> (7 - (x & 7))) & 1;
        out[y * width + x] = bit ? 255 : 0;
      }
    }
    return out;
  }
  const step = kind === RGBA_32BPP ? 4 : kind === RGB_24BPP ? 3 : 0;
  if (step === 0) return undefined;
  for (let i = 0, j = 0; i < out.length; i++, j += step) {
    out[i] = (data[j] * 77 + data[j + 1] * 150 + data[j + 2] * 29) >> 8;
  }
  return out;
}

/**
 * The scan on a page: the largest image it paints, decoded by pdf.js, as a gray PGM. A scanned page is one image
 * covering the page, and its own pixels (not a re-rendering) are the sharpest the recogniser can get; this needs no
 * canvas, so it runs the same in a browser worker and in a Node thread.
 */
async function pageScan(document: PdfDocument, n: number, ops: PdfJs['OPS']): Promise<PageImage | undefined> {
  const page = await document.getPage(n);
  try {
    const list = await page.getOperatorList();
    let best: PdfImage | undefined;
    for (let i = 0; i < list.fnArray.length; i++) {
      const fn = list.fnArray[i];
      const args = list.argsArray[i] as unknown[];
      let image: PdfImage | undefined;
      if (fn === ops.paintImageXObject) {
        const id = args[0] as string;
        const objs = id.startsWith('g_') ? page.commonObjs : page.objs;
        image = objs.has(id) ? (objs.get(id) as PdfImage) : undefined;
      } else if (fn === ops.paintInlineImageXObject) {
        image = args[0] as PdfImage;
      }
      if (image?.data && (!best || image.width * image.height > best.width * best.height)) best = image;
    }
    const gray = best && grayPixels(best);
    return gray && best
      ? { bytes: grayPnm(best.width, best.height, gray), width: best.width, height: best.height }
      : undefined;
  } finally {
    page.cleanup();
  }
}

/**
 * Parses a PDF. Pages without a usable text layer are recognised with `ocr` when given (and left empty without
 * it). Throws ParseError "not a valid PDF (…)" for damaged or encrypted files, and for PDFs whose
 * streams inflate beyond MAX_PDF_INFLATED_BYTES (checked before pdf.js sees them) or with more than MAX_PDF_PAGES.
 */
export async function parsePdf(
  file: string,
  bytes: Uint8Array,
  ocr?: OcrOptions,
): Promise<{
  text: string;
  sections: ParsedSection[];
  title: string;
  pageStarts: number[];
  recognised?: Recognised;
}> {
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
    // Decoded images come back as pixels (not ImageBitmaps) for the recogniser, in any thread; larger ones are not
    // decoded at all (a decompression bomb in an image stream stays compressed).
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    maxImageSize: MAX_OCR_PIXELS,
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
    const pages: PdfPage[] = [];
    const unreadable: number[] = [];
    for (let n = 1; n <= document.numPages; n++) {
      const page = await document.getPage(n);
      const content = await page.getTextContent();
      const styles = content.styles as Record<string, { fontFamily?: string } | undefined>;
      const items = content.items.filter((item) => 'str' in item) as unknown as TextItemLike[];
      const lines = pageLines(items, (font) => styles[font]?.fontFamily === 'monospace');
      // Heights from the page's bottom edge (a page's box need not start at 0).
      for (const line of lines) line.y -= page.view[1];
      pages.push({ lines, height: page.view[3] - page.view[1] });
      if (!textIsUsable(lines.map((l) => l.text).join(''))) unreadable.push(n);
      page.cleanup();
    }
    let recognised: Recognised | undefined;
    if (ocr && unreadable.length > 0) {
      const textLanguage = languageOfText(
        pages.flatMap((p, i) => (unreadable.includes(i + 1) ? [] : p.lines.map((l) => l.text))).join('\n'),
      );
      const ops = lib.OPS;
      const { language, results } = await recognisePages(
        `pdf:${await sha256Hex(bytes)}`,
        unreadable,
        (n) => pageScan(document, n, ops),
        textLanguage,
        ocr,
      );
      for (const [n, result] of results) pages[n - 1] = ocrPageLines(result, pages[n - 1].height);
      recognised = { pages: results.size, language };
    }
    const built = layoutPdf(dropPageFurniture(pages), await outlineTargets(document));
    if (built.text.length === 0) {
      throw new ParseError(
        file,
        ocr
          ? 'no text found in the PDF (its pages have no text layer, and no text was recognised on them)'
          : 'no text found in the PDF (scanned pages without a text layer cannot be read)',
      );
    }
    const info = (await document.getMetadata().catch(() => undefined))?.info as
      { Title?: unknown } | undefined;
    const metaTitle = typeof info?.Title === 'string' ? pdfItemText(info.Title).trim() : '';
    const headingTitle = built.titleFromHeadings;
    // A browser's printout is titled "Page | Site": the page's own first heading is the better name.
    const title =
      metaTitle && headingTitle && metaTitle !== headingTitle && metaTitle.includes(headingTitle)
        ? headingTitle
        : metaTitle || headingTitle || baseTitle(file);
    return {
      text: built.text,
      sections: built.sections,
      title,
      pageStarts: built.pageStarts,
      ...(recognised ? { recognised } : {}),
    };
  } catch (error) {
    if (error instanceof ParseError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new ParseError(file, `not a valid PDF (${message})`);
  } finally {
    await document.destroy();
  }
}
