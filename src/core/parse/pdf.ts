// PDF → plain text with sections and pages, through pdf.js (loaded on first use only, in this thread: pdfjs.ts).
// This module reads what pdf.js gives: text items (→ lines, with their characters repaired in pdfText.ts), page
// heights and the outline; pdfLayout.ts turns them into the document (furniture dropped, headings, paragraphs).
import { sha256Hex } from '../hash.ts';
import type { Recognised, RecognisedText } from '../types.ts';
import { baseTitle } from './decode.ts';
import { checkPdfInflatedSize, MAX_PDF_PAGES } from './limits.ts';
import {
  grayPnm,
  languageOfText,
  MAX_OCR_PIXELS,
  ocrPageLines,
  recognisePages,
  textIsUsable,
  type OcrOptions,
  recognisedPage,
  type PageImage,
  type Placement,
} from './ocr.ts';
import {
  dropPageFurniture,
  layoutPdf,
  type HeadingTag,
  type OutlineTarget,
  type PdfLine,
  type PdfPage,
} from './pdfLayout.ts';
import { loadPdfJs, type PdfJs } from './pdfjs.ts';
import { pdfItemText } from './pdfText.ts';
import { ParseError, type ParsedFile, type ParseProgress } from './types.ts';
import { messageOf } from '../errors.ts';

interface TextItemLike {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
  fontName: string;
  /** The heading element of the structure tree the item is drawn in (a tagged PDF's). */
  tag?: HeadingTag;
}

/** A marked-content item of pdf.js's text content (`includeMarkedContent`): where a tagged run starts or ends. */
interface MarkedContentLike {
  type: 'beginMarkedContent' | 'beginMarkedContentProps' | 'endMarkedContent';
  id?: string;
}

/** A node of pdf.js's structure tree of a page (`getStructTree`): an element with its role, or a content reference. */
interface StructNodeLike {
  role?: string;
  type?: string;
  id?: string;
  children?: StructNodeLike[];
}

/** Structure-tree nodes walked per page at most (a hostile file's tree can be any size; pdf.js caps its depth). */
const MAX_STRUCT_NODES = 100_000;

/** Outline entries read at most (a hostile file can hold millions; a real book has hundreds). */
const MAX_OUTLINE_ENTRIES = 5000;

type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;

/**
 * The marked-content ids of a tagged page that lie in a heading element of its structure tree (H1–H6 by their
 * role, after the PDF's role map; a bare "H" takes its level from the sections around it), each with the heading it
 * belongs to. Empty for an untagged page.
 */
export function headingContent(tree: StructNodeLike | null | undefined): Map<string, HeadingTag> {
  const out = new Map<string, HeadingTag>();
  if (!tree) return out;
  let elements = 0;
  let walked = 0;
  const stack: Array<{ node: StructNodeLike; heading?: HeadingTag; sections: number }> = [
    { node: tree, sections: 0 },
  ];
  while (stack.length > 0 && walked++ < MAX_STRUCT_NODES) {
    const { node, heading, sections } = stack.pop()!;
    if (node.type === 'content' && typeof node.id === 'string') {
      if (heading) out.set(node.id, heading);
      continue;
    }
    const role = typeof node.role === 'string' ? node.role : '';
    const numbered = /^H([1-6])$/.exec(role);
    let inHeading = heading;
    if (!inHeading && (numbered || role === 'H')) {
      inHeading = {
        level: numbered ? Number(numbered[1]) : Math.min(6, Math.max(1, sections)),
        element: elements++,
      };
    }
    const inSections = sections + (role === 'Sect' ? 1 : 0);
    const children = Array.isArray(node.children) ? node.children : [];
    // Pushed last to first, so the tree is walked in reading order (the element numbers follow it).
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child && typeof child === 'object')
        stack.push({ node: child, heading: inHeading, sections: inSections });
    }
  }
  return out;
}

/**
 * A page's text items with the heading each is drawn in (`tag`), from the marked-content runs around them; the
 * marked-content items themselves are left out.
 */
function taggedItems(
  items: ReadonlyArray<TextItemLike | MarkedContentLike>,
  headings: Map<string, HeadingTag>,
): TextItemLike[] {
  const out: TextItemLike[] = [];
  const open: Array<string | undefined> = [];
  for (const item of items) {
    if ('str' in item) {
      let tag: HeadingTag | undefined;
      for (let k = open.length - 1; k >= 0 && tag === undefined; k--) {
        const id = open[k];
        if (id !== undefined) tag = headings.get(id);
      }
      out.push(tag ? { ...item, tag } : item);
    } else if (item.type === 'endMarkedContent') {
      open.pop();
    } else {
      open.push(typeof item.id === 'string' ? item.id : undefined);
    }
  }
  return out;
}

/** Groups a page's text items into lines, inserting spaces where items are apart. */
function pageLines(items: TextItemLike[], monospace: (fontName: string) => boolean): PdfLine[] {
  const lines: PdfLine[] = [];
  let current: PdfLine | undefined;
  let lastRight = 0;
  let breakAfter = false;
  // Lines whose visible items lie in more than one heading element, or partly outside any: not one heading.
  const mixed = new Set<PdfLine>();
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
      current = {
        text: '',
        x,
        y,
        size,
        mono: monospace(item.fontName),
        ...(item.tag ? { tag: item.tag } : {}),
      };
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
      if (item.tag?.element !== line.tag?.element) mixed.add(line);
    }
    lastRight = x + item.width;
    breakAfter = item.hasEOL;
  }
  for (const line of mixed) delete line.tag;
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

type Matrix = [number, number, number, number, number, number];

const multiply = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[2] * n[1],
  m[1] * n[0] + m[3] * n[1],
  m[0] * n[2] + m[2] * n[3],
  m[1] * n[2] + m[3] * n[3],
  m[0] * n[4] + m[2] * n[5] + m[4],
  m[1] * n[4] + m[3] * n[5] + m[5],
];

/** Where an image painted under `ctm` (the unit square) lies on a page of box `view`, in fractions of the page. */
function placementOf(ctm: Matrix, view: number[]): Placement | undefined {
  const xs = [ctm[4], ctm[0] + ctm[4], ctm[2] + ctm[4], ctm[0] + ctm[2] + ctm[4]];
  const ys = [ctm[5], ctm[1] + ctm[5], ctm[3] + ctm[5], ctm[1] + ctm[3] + ctm[5]];
  const [vx0, vy0, vx1, vy1] = view;
  const width = vx1 - vx0;
  const height = vy1 - vy0;
  if (!(width > 0 && height > 0)) return undefined;
  return {
    x0: (Math.min(...xs) - vx0) / width,
    y0: (vy1 - Math.max(...ys)) / height,
    x1: (Math.max(...xs) - vx0) / width,
    y1: (vy1 - Math.min(...ys)) / height,
  };
}

/** A page with no picture is drawn and recognised when it paints at least this many paths or runs of text. */
const MIN_DRAWN_SHAPES = 40;
/** Resolution a drawn page is recognised at: print quality, where Tesseract reads best. */
const RENDER_DPI = 200;

/** pdf.js's canvas factory (PDFDocumentProxy.canvasFactory): a platform's 2D canvas, made and released. */
interface CanvasFactoryLike {
  create(width: number, height: number): { canvas: unknown; context: unknown };
  destroy(made: { canvas: unknown; context: unknown }): void;
}

type PdfPageProxy = Awaited<ReturnType<PdfDocument['getPage']>>;

/**
 * A page whose text is drawn, not photographed (letters as vector outlines, a PDF "printed to outlines"): pdf.js
 * draws it at RENDER_DPI on the platform's canvas (an OffscreenCanvas in the browser's worker, @napi-rs/canvas in
 * Node) and its pixels go to the recogniser as a scan's would.
 */
async function renderedPage(
  page: PdfPageProxy,
  canvasFactory: CanvasFactoryLike,
): Promise<PageImage | undefined> {
  const base = page.getViewport({ scale: 1 });
  let scale = RENDER_DPI / 72;
  const pixels = base.width * base.height * scale * scale;
  if (pixels > MAX_OCR_PIXELS) scale *= Math.sqrt(MAX_OCR_PIXELS / pixels);
  const viewport = page.getViewport({ scale });
  const width = Math.max(1, Math.floor(viewport.width));
  const height = Math.max(1, Math.floor(viewport.height));
  let made: { canvas: unknown; context: unknown };
  try {
    made = canvasFactory.create(width, height);
  } catch {
    // No canvas on this platform: the page keeps what text it has.
    return undefined;
  }
  try {
    const context = made.context as {
      fillStyle: string;
      fillRect(x: number, y: number, w: number, h: number): void;
      getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
    };
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
    await page.render({ canvas: made.canvas, canvasContext: context, viewport } as never).promise;
    const rgba = context.getImageData(0, 0, width, height).data;
    const gray = grayPixels({ width, height, kind: RGBA_32BPP, data: rgba });
    return gray ? { bytes: grayPnm(width, height, gray), width, height } : undefined;
  } finally {
    canvasFactory.destroy(made);
  }
}

/**
 * The scan on a page: the largest image it paints, decoded by pdf.js, as a gray PGM, with where it lies on the page
 * (the transforms before it are followed, so the viewer can map recognised words back onto the drawn page). A
 * scanned page is one image covering the page, and its own pixels (not a re-rendering) are the sharpest the
 * recogniser can get; this needs no canvas, so it runs the same in a browser worker and in a Node thread.
 */
async function pageScan(
  document: PdfDocument,
  n: number,
  ops: PdfJs['OPS'],
  canvasFactory: CanvasFactoryLike,
): Promise<PageImage | undefined> {
  const page = await document.getPage(n);
  try {
    const list = await page.getOperatorList();
    let best: { image: PdfImage; ctm: Matrix } | undefined;
    let ctm: Matrix = [1, 0, 0, 1, 0, 0];
    const saved: Matrix[] = [];
    let drawn = 0;
    for (let i = 0; i < list.fnArray.length; i++) {
      const fn = list.fnArray[i];
      const args = list.argsArray[i] as unknown[];
      let image: PdfImage | undefined;
      if (fn === ops.constructPath || fn === ops.showText || fn === ops.showSpacedText) drawn++;
      else if (fn === ops.save) saved.push(ctm);
      else if (fn === ops.restore) ctm = saved.pop() ?? ctm;
      else if (fn === ops.transform) ctm = multiply(ctm, args as Matrix);
      else if (fn === ops.paintFormXObjectBegin) {
        saved.push(ctm);
        if (Array.isArray(args[0]) && args[0].length === 6) ctm = multiply(ctm, args[0] as Matrix);
      } else if (fn === ops.paintFormXObjectEnd) ctm = saved.pop() ?? ctm;
      else if (fn === ops.paintImageXObject) {
        const id = args[0] as string;
        const objs = id.startsWith('g_') ? page.commonObjs : page.objs;
        image = objs.has(id) ? (objs.get(id) as PdfImage) : undefined;
      } else if (fn === ops.paintInlineImageXObject) {
        image = args[0] as PdfImage;
      }
      if (image?.data && (!best || image.width * image.height > best.image.width * best.image.height)) {
        best = { image, ctm };
      }
    }
    // No picture, but text drawn as paths (or in a font whose text layer is garbage): the page is drawn instead.
    if (!best) return drawn >= MIN_DRAWN_SHAPES ? await renderedPage(page, canvasFactory) : undefined;
    const gray = grayPixels(best.image);
    if (!gray) return undefined;
    const { width, height } = best.image;
    const placement = placementOf(best.ctm, page.view);
    return { bytes: grayPnm(width, height, gray), width, height, ...(placement ? { placement } : {}) };
  } finally {
    page.cleanup();
  }
}

/**
 * Whether a web browser wrote the PDF (Chromium's and Electron's Skia, or a browser's name as the creator): a
 * browser breaks lines only where the text allows, so a hyphen at a line's end is the author's (pdfLayout.ts).
 */
function browserPrint(info: { Creator?: unknown; Producer?: unknown } | undefined): boolean {
  const field = (value: unknown): string => (typeof value === 'string' ? value : '');
  return (
    /^Skia\/PDF\b/.test(field(info?.Producer)) ||
    /\b(?:Mozilla\/\d|Chrome|Chromium|Firefox|Safari)\b/.test(field(info?.Creator))
  );
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
  /** Hears each page as its text has been read (a long PDF on a busy machine is slow, not stuck). */
  onProgress?: (progress: ParseProgress) => void,
): Promise<ParsedFile> {
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
    ...(ocr?.CanvasFactory ? { CanvasFactory: ocr.CanvasFactory as never } : {}),
  });
  let document: Awaited<typeof task.promise>;
  try {
    document = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => {});
    if (error instanceof Error && error.name === 'PasswordException') {
      throw new ParseError(file, 'the PDF is password-protected');
    }
    const message = messageOf(error);
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
      // A tagged PDF's structure tree names its headings; the text's marked-content runs say which items they are.
      const headings = headingContent(
        (await page.getStructTree().catch(() => null)) as StructNodeLike | null,
      );
      const content = await page.getTextContent({ includeMarkedContent: headings.size > 0 });
      const styles = content.styles as Record<string, { fontFamily?: string } | undefined>;
      const items = taggedItems(
        content.items as unknown as Array<TextItemLike | MarkedContentLike>,
        headings,
      );
      const lines = pageLines(items, (font) => styles[font]?.fontFamily === 'monospace');
      // Heights from the page's bottom edge (a page's box need not start at 0).
      for (const line of lines) line.y -= page.view[1];
      pages.push({ lines, height: page.view[3] - page.view[1] });
      if (!textIsUsable(lines.map((l) => l.text).join(''))) unreadable.push(n);
      page.cleanup();
      onProgress?.({ unit: 'page', done: n, total: document.numPages });
    }
    let recognised: Recognised | undefined;
    let ocrText: RecognisedText | undefined;
    if (ocr && unreadable.length > 0) {
      const textLanguage = languageOfText(
        pages.flatMap((p, i) => (unreadable.includes(i + 1) ? [] : p.lines.map((l) => l.text))).join('\n'),
      );
      const ops = lib.OPS;
      const key = `pdf:${await sha256Hex(bytes)}`;
      const { language, languageFrom, results, resumed } = await recognisePages(
        key,
        unreadable,
        (n) => pageScan(document, n, ops, document.canvasFactory as CanvasFactoryLike),
        textLanguage,
        ocr,
      );
      for (const [n, result] of results) pages[n - 1] = ocrPageLines(result, pages[n - 1].height);
      recognised = { pages: results.size, language, languageFrom, ...(resumed > 0 ? { resumed } : {}) };
      ocrText = {
        language,
        languageFrom,
        key,
        pages: [...results].map(([n, result]) => recognisedPage(n, result)),
      };
    }
    const info = (await document.getMetadata().catch(() => undefined))?.info as
      { Title?: unknown; Creator?: unknown; Producer?: unknown } | undefined;
    const built = layoutPdf(dropPageFurniture(pages), await outlineTargets(document), browserPrint(info));
    if (built.text.length === 0) {
      throw new ParseError(
        file,
        ocr
          ? 'no text found in the PDF (its pages have no text layer, and no text was recognised on them)'
          : 'no text found in the PDF (scanned pages without a text layer cannot be read)',
      );
    }
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
      ...(ocrText ? { ocr: ocrText } : {}),
    };
  } catch (error) {
    if (error instanceof ParseError) throw error;
    const message = messageOf(error);
    throw new ParseError(file, `not a valid PDF (${message})`);
  } finally {
    await document.destroy();
  }
}
