// Where a cited sentence lies on a drawn page. The viewer draws a PDF page (or a scan) and marks the sentence on
// it; what it knows of the page is a list of positioned pieces of text — pdf.js's text items on a text PDF, the
// recognised words on a scanned page (DocumentRecord.ocr) — and what it knows of the sentence is its text in the
// stored document. The two never match character for character (the layout joined hyphenated words, dropped running
// headers, repaired ligatures; the recogniser's spaces between Han characters were removed), so both are compared as
// letters and digits only, case folded, and the sentence's place is mapped back onto the pieces' boxes.
import type { PageWord } from './types.ts';

/** A rectangle in fractions of the page (0–1), top-left origin: a PageWord's box. */
export type PageRect = Omit<PageWord, 'text'>;

/** The sentence is found by its head and tail when the whole does not match: this many letters of each. */
const ANCHOR = 24;
/** The least of a sentence that is marked at a page's start or end (fewer letters match by chance). */
const MIN_PART = 8;

/** A piece's text as compared: letters and digits, NFKC, case folded; one entry per kept character. */
function comparable(text: string): string[] {
  return [...text.normalize('NFKC').toLowerCase()].filter((c) => /[\p{L}\p{N}]/u.test(c));
}

/**
 * The rectangles covering `sentence` among a page's `pieces` (in reading order), one per line it runs over; empty
 * when the sentence is not on the page. A sentence that runs onto the next page is marked as far as this page goes.
 */
export function sentenceRects(pieces: readonly PageWord[], sentence: string): PageRect[] {
  const needle = comparable(sentence).join('');
  if (!needle) return [];
  // The page as one string of compared characters, each remembering its piece and its place in it.
  const owner: { piece: number; at: number; of: number }[] = [];
  let haystack = '';
  pieces.forEach((piece, index) => {
    const chars = comparable(piece.text);
    chars.forEach((c, at) => {
      haystack += c;
      owner.push({ piece: index, at, of: chars.length });
    });
  });
  const span = locate(haystack, needle);
  if (!span) return [];
  return linesOf(pieces, owner.slice(span.start, span.end));
}

/** The sentence's characters in the page's: whole; else from its head to its tail; else what of it is on the page. */
function locate(haystack: string, needle: string): { start: number; end: number } | undefined {
  const whole = haystack.indexOf(needle);
  if (whole >= 0) return { start: whole, end: whole + needle.length };
  if (needle.length <= ANCHOR) return undefined;
  const head = haystack.indexOf(needle.slice(0, ANCHOR));
  const tail = haystack.indexOf(needle.slice(-ANCHOR), head >= 0 ? head : 0);
  if (head >= 0 && tail > head && tail + ANCHOR - head <= needle.length * 1.5) {
    return { start: head, end: tail + ANCHOR };
  }
  // The head alone: the middle was misread; the mark runs the sentence's length.
  if (head >= 0) return { start: head, end: Math.min(haystack.length, head + needle.length) };
  // The sentence runs onto the next page: its beginning ends this page.
  for (let n = Math.min(needle.length, haystack.length); n >= MIN_PART; n--) {
    if (haystack.endsWith(needle.slice(0, n))) return { start: haystack.length - n, end: haystack.length };
  }
  // It began on the page before: its end starts this page.
  for (let n = Math.min(needle.length, haystack.length); n >= MIN_PART; n--) {
    if (haystack.startsWith(needle.slice(-n))) return { start: 0, end: n };
  }
  return undefined;
}

/** Boxes of the marked characters (a piece partly marked gives its share of the width), merged line by line. */
function linesOf(
  pieces: readonly PageWord[],
  marked: readonly { piece: number; at: number; of: number }[],
): PageRect[] {
  const rects: PageRect[] = [];
  let i = 0;
  while (i < marked.length) {
    const { piece, at, of } = marked[i];
    let last = at;
    while (i + 1 < marked.length && marked[i + 1].piece === piece) last = marked[++i].at;
    i++;
    const box = pieces[piece];
    const width = box.x1 - box.x0;
    const rect = {
      x0: box.x0 + (width * at) / of,
      y0: box.y0,
      x1: box.x0 + (width * (last + 1)) / of,
      y1: box.y1,
    };
    const line = rects.at(-1);
    if (line && sameLine(line, rect)) {
      line.x0 = Math.min(line.x0, rect.x0);
      line.x1 = Math.max(line.x1, rect.x1);
      line.y0 = Math.min(line.y0, rect.y0);
      line.y1 = Math.max(line.y1, rect.y1);
    } else {
      rects.push(rect);
    }
  }
  return rects;
}

/** Two boxes on one line: they overlap by half the height of the smaller one. */
function sameLine(a: PageRect, b: PageRect): boolean {
  const overlap = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  return overlap > 0.5 * Math.min(a.y1 - a.y0, b.y1 - b.y0);
}

const isFraction = (v: unknown): v is number => typeof v === 'number' && v >= 0 && v <= 1;

/**
 * The recognised words of page `page` from a document's `ocr` record, or undefined when it has none. The record may
 * come from a bundle someone else wrote: anything not shaped as a page of words is ignored.
 */
export function recognisedWords(ocr: unknown, page: number): PageWord[] | undefined {
  const pages = (ocr as { pages?: unknown } | undefined)?.pages;
  if (!Array.isArray(pages)) return undefined;
  const found = pages.find((p: unknown) => (p as { page?: unknown } | null)?.page === page) as
    { words?: unknown } | undefined;
  if (!Array.isArray(found?.words)) return undefined;
  return (found.words as unknown[]).filter(
    (w): w is PageWord =>
      typeof (w as PageWord | null)?.text === 'string' &&
      isFraction((w as PageWord).x0) &&
      isFraction((w as PageWord).y0) &&
      isFraction((w as PageWord).x1) &&
      isFraction((w as PageWord).y1),
  );
}
