// Text recognition for pages without a usable text layer (scanned PDFs, pictures of pages). Platform-neutral: the
// recogniser itself (Tesseract in a worker, src/services/ocr/) is handed in by whoever runs the parse, so core never
// loads WASM or fetches a model. This module decides which pages need recognising, in which language, checks a
// picture's size from its header before anything decodes it, and turns recognised lines into the positioned lines
// pdfLayout.ts already reads, so running headers, headings and paragraphs follow the same rules as text PDFs.
import type { OcrLanguageSource, PageWord, RecognisedPage } from '../types.ts';
import type { PdfLine, PdfPage } from './pdfLayout.ts';
import { ParseError } from './types.ts';

export type OcrLanguage = 'eng' | 'chi_sim';

/** What the person may choose in the settings; 'auto' reads it from the document's text, or its first page. */
export type OcrLanguageSetting = 'auto' | OcrLanguage;

export const isOcrLanguageSetting = (value: unknown): value is OcrLanguageSetting =>
  value === 'auto' || value === 'eng' || value === 'chi_sim';

export const OCR_LANGUAGE_NAMES: Record<OcrLanguage, string> = { eng: 'English', chi_sim: 'Chinese' };

const LANGUAGE_SOURCES: Record<OcrLanguageSource, string> = {
  setting: 'as set',
  text: 'told from its text',
  page: 'told from its first page',
};

/**
 * "English, told from its first page": the language a document was recognised in, and how it was decided. The
 * record may come from a bundle someone else wrote: values this version does not know are named as such.
 */
export function recognisedLanguageLabel(language: OcrLanguage, from: OcrLanguageSource | undefined): string {
  const name = Object.hasOwn(OCR_LANGUAGE_NAMES, language)
    ? OCR_LANGUAGE_NAMES[language]
    : 'an unknown language';
  return from && Object.hasOwn(LANGUAGE_SOURCES, from) ? `${name}, ${LANGUAGE_SOURCES[from]}` : name;
}

/** A recognised word: a PageWord's shape, but its box in the image's pixels (top-left origin), not fractions. */
type OcrWord = PageWord;

/** A recognised line, its box in the image's pixels (top-left origin). */
export interface OcrLine extends OcrWord {
  /** Height of the line's x-height plus ascenders: a steadier font size than the box (descenders vary). */
  rowHeight: number;
  /** Its words, for the viewer to mark a cited sentence on the drawn page (absent in pages cached before). */
  words?: OcrWord[];
}

export interface OcrPage {
  width: number;
  height: number;
  lines: OcrLine[];
  /** Where the picture lies on its page, in fractions of the page (absent: it covers the page). */
  placement?: Placement;
}

/** A rectangle in fractions of a page (0–1), top-left origin. */
export interface Placement {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The recogniser: one encoded image (PNG, JPEG, WebP, PNM) in, its lines out. */
export interface OcrEngine {
  recognize(image: Uint8Array, language: OcrLanguage): Promise<OcrLine[]>;
}

/** A page's picture, encoded, with its size in pixels. */
export interface PageImage {
  bytes: Uint8Array;
  width: number;
  height: number;
  /** Where the picture lies on its page (absent: it covers the page). */
  placement?: Placement;
}

/** Pages already recognised, kept across a reload so that a resumed file does not redo them. */
export interface OcrPageStore {
  get(key: string): Promise<OcrPage | undefined>;
  put(key: string, page: OcrPage): Promise<void>;
  /** Drops every entry whose key starts with `prefix` (a document whose pages are all recognised). */
  forget?(prefix: string): Promise<void>;
}

export interface OcrProgress {
  /** 1-based number of the page being recognised now, among `pages` that need it. */
  page: number;
  pages: number;
  /** Undefined while the first page is read to tell the language. */
  language?: OcrLanguage;
}

export interface OcrOptions {
  /** Loads the recogniser on first need only (its WASM and language data are several MB). */
  engine: () => Promise<OcrEngine>;
  language?: OcrLanguageSetting;
  onProgress?: (progress: OcrProgress) => void;
  store?: OcrPageStore;
  /**
   * pdf.js's CanvasFactory where its default does not work (in a browser worker: no document to make a canvas
   * with); pages whose text is drawn as outlines are drawn on it to be recognised. Node's default is @napi-rs/canvas.
   */
  CanvasFactory?: unknown;
}

/** A picture larger than this many pixels is refused before decoding (a 600 dpi A3 scan is ~70 Mpx). */
export const MAX_OCR_PIXELS = 80_000_000;
/** Nor wider or taller than this (a strip of 1 × 80 M pixels is no page). */
const MAX_OCR_SIDE = 20_000;

/**
 * The band of a first page the language probe reads (top and height in fractions of the page, full width: five or
 * six lines of an A4 page, below its title). The Chinese model reads an English page at half the English model's
 * speed (one A4 page: 35 s against 17 s at load 18), so the whole page read to tell its language cost two pages'
 * time on top of the page itself; the band took 5.4 s (median of 17 English scans, load 11-34).
 */
const PROBE_BAND = { top: 0.35, height: 0.1 };

/** Characters of text a page must have to count as having a text layer. */
const MIN_PAGE_CHARS = 16;
/** Share of a page's characters that must be letters, digits or ordinary punctuation (else it is garbage). */
const MIN_READABLE_SHARE = 0.6;

/** Whether a page's extracted text is usable, or the page must be recognised (none, or mostly garbage). */
export function textIsUsable(text: string): boolean {
  const chars = [...text.replace(/\s+/g, '')];
  if (chars.length < MIN_PAGE_CHARS) return false;
  const readable = chars.filter((c) => /[\p{L}\p{N}\p{P}\p{Sc}+=<>|~^`]/u.test(c) && c !== '\uFFFD').length;
  return readable / chars.length >= MIN_READABLE_SHARE;
}

const HAN = /\p{Script=Han}/gu;

/** The language of a text by its script: Chinese when a fifth of its letters are Han characters. */
export function languageOfText(text: string): OcrLanguage | undefined {
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  if (letters < MIN_PAGE_CHARS) return undefined;
  const han = text.match(HAN)?.length ?? 0;
  return han / letters >= 0.2 ? 'chi_sim' : 'eng';
}

/**
 * Width and height from an image's header (PNG, JPEG, WebP), read before any decoder runs; throws ParseError for
 * a picture that is not one of these, is damaged, or is too large to decode in bounded memory.
 */
export function imageDimensions(file: string, bytes: Uint8Array): { width: number; height: number } {
  const size = headerSize(bytes);
  if (!size) throw new ParseError(file, 'not a readable image (its header is missing or damaged)');
  checkPixels(file, size.width, size.height);
  return size;
}

/** Throws ParseError when an image of this size must not be decoded. */
function checkPixels(file: string, width: number, height: number): void {
  if (width <= 0 || height <= 0) throw new ParseError(file, 'not a readable image (it has no pixels)');
  if (width > MAX_OCR_SIDE || height > MAX_OCR_SIDE || width * height > MAX_OCR_PIXELS) {
    throw new ParseError(
      file,
      `the image is too large to recognise (${width} × ${height} pixels; the limit is ${MAX_OCR_PIXELS / 1e6} million pixels, ${MAX_OCR_SIDE} per side)`,
    );
  }
}

function headerSize(b: Uint8Array): { width: number; height: number } | undefined {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const ascii = (at: number, n: number): string => String.fromCharCode(...b.subarray(at, at + n));
  // PNG: signature, then the IHDR chunk first.
  if (b.length >= 24 && b[0] === 0x89 && ascii(1, 3) === 'PNG' && ascii(12, 4) === 'IHDR') {
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  // JPEG: markers up to the first start-of-frame (SOF0–SOF15 but DHT, JPG and DAC).
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let at = 2;
    while (at + 9 < b.length) {
      if (b[at] !== 0xff) return undefined;
      const marker = b[at + 1];
      if (marker === 0xff) {
        at++;
        continue;
      }
      const length = view.getUint16(at + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: view.getUint16(at + 5), width: view.getUint16(at + 7) };
      }
      if (length < 2) return undefined;
      at += 2 + length;
    }
    return undefined;
  }
  // WebP: RIFF container with a VP8 (lossy), VP8L (lossless) or VP8X (extended) chunk.
  if (b.length >= 30 && ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WEBP') {
    const chunk = ascii(12, 4);
    if (chunk === 'VP8 ') {
      return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
    }
    if (chunk === 'VP8L' && b[20] === 0x2f) {
      const bits = view.getUint32(21, true);
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    if (chunk === 'VP8X') {
      const u24 = (at: number): number => b[at] | (b[at + 1] << 8) | (b[at + 2] << 16);
      return { width: u24(24) + 1, height: u24(27) + 1 };
    }
  }
  return undefined;
}

/** Gray pixels (one byte each) as a binary PGM file: the simplest format the recogniser decodes. */
export function grayPnm(width: number, height: number, gray: Uint8Array): Uint8Array {
  const header = new TextEncoder().encode(`P5\n${width} ${height}\n255\n`);
  const out = new Uint8Array(header.length + gray.length);
  out.set(header);
  out.set(gray, header.length);
  return out;
}

/**
 * A horizontal band of a gray PGM (as grayPnm writes it), `top` and `height` in fractions of the image's height;
 * undefined for any other format (a picture file goes to the recogniser as it came, and is probed whole).
 */
function pnmBand(pnm: Uint8Array, top: number, height: number): Uint8Array | undefined {
  const header = /^P5\n(\d+) (\d+)\n255\n/.exec(new TextDecoder('latin1').decode(pnm.subarray(0, 40)));
  if (!header) return undefined;
  const [width, rows] = [Number(header[1]), Number(header[2])];
  const from = Math.floor(rows * top);
  const count = Math.min(rows - from, Math.max(1, Math.floor(rows * height)));
  const start = header[0].length + from * width;
  if (count <= 0 || start + count * width > pnm.length) return undefined;
  return grayPnm(width, count, pnm.subarray(start, start + count * width));
}

/**
 * A recognised page as pdfLayout.ts's lines, in the units of a page `pageHeight` high (y grows upwards, baseline
 * at the bottom of the box). Chinese lines lose the spaces Tesseract puts between Han characters.
 */
export function ocrPageLines(page: OcrPage, pageHeight: number): PdfPage {
  const scale = page.height > 0 ? pageHeight / page.height : 1;
  const lines: PdfLine[] = [];
  for (const line of page.lines) {
    const text = line.text
      .replace(/(?<=[\p{Script=Han}，。、；：？！（）])\s+(?=[\p{Script=Han}，。、；：？！（）])/gu, '')
      .replace(/\s+/g, ' ')
      .trim();
    if (!text) continue;
    const boxHeight = line.y1 - line.y0;
    lines.push({
      text,
      x: line.x0 * scale,
      y: (page.height - line.y1) * scale,
      size: Math.max(1, line.rowHeight > 0 ? Math.min(line.rowHeight, boxHeight) : boxHeight) * scale,
      mono: false,
    });
  }
  return { lines, height: pageHeight };
}

/** Four decimals of a page fraction: a tenth of a point on an A4 page, and a compact record. */
const fraction = (value: number): number => Math.round(Math.min(1, Math.max(0, value)) * 10_000) / 10_000;

/**
 * A recognised page's words as boxes in fractions of the page (the picture's pixels mapped through where it lies
 * on the page), kept with the document so the viewer can mark a cited sentence on the drawn page.
 */
export function recognisedPage(n: number, page: OcrPage): RecognisedPage {
  const at = page.placement ?? { x0: 0, y0: 0, x1: 1, y1: 1 };
  const sx = page.width > 0 ? (at.x1 - at.x0) / page.width : 0;
  const sy = page.height > 0 ? (at.y1 - at.y0) / page.height : 0;
  const words: PageWord[] = [];
  for (const line of page.lines) {
    // Pages cached before words were kept: the line is the finest box there is.
    for (const word of line.words ?? [line]) {
      const text = word.text.trim();
      if (!text) continue;
      words.push({
        text,
        x0: fraction(at.x0 + word.x0 * sx),
        y0: fraction(at.y0 + word.y0 * sy),
        x1: fraction(at.x0 + word.x1 * sx),
        y1: fraction(at.y0 + word.y1 * sy),
      });
    }
  }
  return { page: n, words };
}

/**
 * Recognises the given pages (1-based numbers) of a document, one at a time, in one language; results already in
 * the store (a file resumed after a reload) are taken from it. `image(n)` renders or extracts page n.
 */
export async function recognisePages(
  documentKey: string,
  pages: readonly number[],
  image: (page: number) => Promise<PageImage | undefined>,
  textLanguage: OcrLanguage | undefined,
  options: OcrOptions,
): Promise<{
  language: OcrLanguage;
  languageFrom: OcrLanguageSource;
  results: Map<number, OcrPage>;
  resumed: number;
}> {
  const results = new Map<number, OcrPage>();
  const known = new Map<string, OcrPage>();
  /** Pages found in the store from an earlier, interrupted parse of the file (not recognised again). */
  let resumed = 0;
  const store = {
    get: async (key: string) => {
      const mine = known.get(key);
      if (mine) return mine;
      const kept = await options.store?.get(key);
      if (kept && !key.endsWith('/language')) resumed++;
      return kept;
    },
    put: async (key: string, page: OcrPage) => {
      known.set(key, page);
      await options.store?.put(key, page);
    },
  };
  let engine: OcrEngine | undefined;
  const recogniser = async (): Promise<OcrEngine> => (engine ??= await options.engine());
  const set = options.language && options.language !== 'auto' ? options.language : undefined;
  let language: OcrLanguage | undefined = set ?? textLanguage;
  const languageFrom: OcrLanguageSource = set ? 'setting' : textLanguage ? 'text' : 'page';
  if (!language && pages.length > 0) {
    const remembered = await store.get(`${documentKey}/language`);
    language = remembered?.lines[0]?.text === 'chi_sim' ? 'chi_sim' : remembered ? 'eng' : undefined;
  }
  /** The first page's picture, when the probe decoded it: the loop below does not decode it again. */
  let probed: { page: number; picture: PageImage | undefined } | undefined;
  if (!language && pages.length > 0) {
    // No text to tell by: a band of the first page is read with the Chinese model (which knows Latin letters too),
    // and the script of what comes out decides. Too few letters in the band (a title page, a short note): the whole
    // page decides, and a Chinese first page keeps that reading.
    options.onProgress?.({ page: 1, pages: pages.length });
    const first = await image(pages[0]);
    probed = { page: pages[0], picture: first };
    if (first) {
      const reader = await recogniser();
      const script = (lines: OcrLine[]): OcrLanguage | undefined =>
        languageOfText(lines.map((l) => l.text).join('\n'));
      const band = pnmBand(first.bytes, PROBE_BAND.top, PROBE_BAND.height);
      if (band) language = script(await reader.recognize(band, 'chi_sim'));
      if (!language) {
        const probe = await reader.recognize(first.bytes, 'chi_sim');
        language = script(probe);
        if (language === 'chi_sim') {
          const page: OcrPage = { width: first.width, height: first.height, lines: probe };
          if (first.placement) page.placement = first.placement;
          await store.put(`${documentKey}/chi_sim/${pages[0]}`, page);
        }
      }
    }
    language ??= 'eng';
    await store.put(`${documentKey}/language`, {
      width: 0,
      height: 0,
      lines: [{ text: language, x0: 0, y0: 0, x1: 0, y1: 0, rowHeight: 0 }],
    });
  }
  const chosen = language ?? 'eng';
  for (const [i, n] of pages.entries()) {
    const key = `${documentKey}/${chosen}/${n}`;
    let page = await store.get(key);
    if (!page) {
      const picture = probed?.page === n ? probed.picture : await image(n);
      // A page with a little text and no picture (a chapter's title page) keeps its text.
      if (!picture) continue;
      options.onProgress?.({ page: i + 1, pages: pages.length, language: chosen });
      const lines = await (await recogniser()).recognize(picture.bytes, chosen);
      page = { width: picture.width, height: picture.height, lines };
      if (picture.placement) page.placement = picture.placement;
      await store.put(key, page);
    }
    results.set(n, page);
  }
  await options.store?.forget?.(`${documentKey}/`);
  return { language: chosen, languageFrom, results, resumed };
}
