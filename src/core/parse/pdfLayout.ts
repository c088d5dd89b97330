// A PDF's positioned lines → a document with sections and pages (pure layout; pdf.ts reads the lines with pdf.js).
// - Running headers and footers go: a line in the top or bottom band of the page whose text (digits aside) comes
//   back at the same height on at least half of the pages, and bare page numbers ("12", "12/40", "Page 3 of 9",
//   "- 7 -", "xii") in those bands. They are print furniture, not the author's text, and they would otherwise sit in
//   the middle of paragraphs and repeat in every chunk. A browser's print header and footer go on any page, a
//   single one too: the date–time line ("11/26/26, 1:24 PM", the page title after it) and the page's address
//   ("file:///…/x.html 1/1"), which a one-page PDF has nothing to repeat against.
// - Headings come from the structure tree of a tagged PDF (its H1–H6 elements: the author's headings, exactly as
//   the HTML or the word processor had them, whatever their size or weight; `chromium --print-to-pdf` tags by
//   default). An untagged PDF's come from the outline (bookmarks: title, page and height, matched to the
//   line they point at), from the font size (a short line clearly larger than the body text; the larger the size,
//   the higher the level) and from numbering ("4.2 Ownership": level = number of parts), so sections and chunks
//   follow the document's structure as they do for Markdown.
// - Paragraphs: a vertical gap clearly larger than the body's line spacing, a change between code (monospace) and
//   prose, or a page break ends one; a paragraph goes on over the page break when the page ends mid-sentence and the
//   next starts in lowercase. Code lines keep their line breaks.
// - Pages: `pageStarts[p]` is where page p + 1 starts in the text, so every offset (a chunk, a sentence) knows its
//   page (pageAt in src/core/pages.ts).
import { DocumentBuilder } from './builder.ts';
import type { ParsedSection } from './types.ts';

export interface PdfLine {
  text: string;
  /** Left edge and baseline, in PDF units (y grows upwards). */
  x: number;
  y: number;
  /** Font height of the line's largest item. */
  size: number;
  /** Every item of the line is in a monospace font (code). */
  mono: boolean;
  /** The heading element of a tagged PDF's structure tree the whole line lies in (pdf.ts, headingContent). */
  tag?: HeadingTag;
}

/** A heading element (H1–H6) of a tagged PDF: its level, and a number that tells one element from the next. */
export interface HeadingTag {
  level: number;
  element: number;
}

export interface PdfPage {
  lines: PdfLine[];
  /** Page height in PDF units (the bands for headers and footers are measured from its edges). */
  height: number;
}

/** An outline entry resolved to its page (0-based) and, where the destination gives it, the top of its target. */
export interface OutlineTarget {
  title: string;
  /** 1 for top-level entries. */
  level: number;
  page: number;
  top?: number;
}

export interface PdfLayout {
  text: string;
  sections: ParsedSection[];
  /** Offset in `text` where each page starts (a page without text starts where the next one does). */
  pageStarts: number[];
  titleFromHeadings?: string;
}

/** Headers and footers sit in the outer 9% of the page. */
const BAND = 0.09;
/** A gap this many times the body's line spacing ends a paragraph. */
const PARAGRAPH_GAP = 1.35;
/** A short line this much larger than the body text is a heading. */
const HEADING_SIZE = 1.12;
const HEADING_MAX_CHARS = 120;
const MAX_LEVELS = 6;

const PAGE_NUMBER =
  /^(?:(?:page|p\.|seite|página|pagina)\s*)?[-–—([]?\s*(?:\d{1,5}|[ivxlcdm]{1,8})\s*[-–—)\]]?(?:\s*(?:\/|of|von|de|sur)\s*\d{1,5})?$/i;

/** A bare page number, as printed in a header or footer. */
export function isPageNumber(text: string): boolean {
  return PAGE_NUMBER.test(text.trim());
}

/** A browser's print date and time at a line's start or end: "11/26/26, 1:24 PM", "26.11.26, 13:24". */
const PRINT_DATE_TIME =
  /^\d{1,4}[./-]\d{1,2}[./-]\d{1,4},?\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?\s?m\.?)?(?:\s|$)/i;
const PRINT_DATE_TIME_END =
  /(?:^|\s)\d{1,4}[./-]\d{1,2}[./-]\d{1,4},?\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?\s?m\.?)?$/i;
/** The printed page's address with its page count ("file:///home/x.html 1/1", "https://a.org/p 2 of 3"). */
const PRINT_ADDRESS = /^(?:file|https?):\/\/\S+\s+\d{1,4}\s*(?:\/|of)\s*\d{1,4}$/i;
/** An address at a line's start or end (Firefox prints the title beside it, the page count elsewhere). */
const ADDRESS_AT_EDGE = /^(?:file|https?):\/\/\S+|(?:^|\s)(?:file|https?):\/\/\S+$/i;

/**
 * Whether a header/footer line is a browser's print furniture. The date–time stamp and the address with its page
 * count say so alone; a bare address only when the same page's bands also carry the date–time stamp (else it may
 * be the author's own link at the foot of the page).
 */
export function isPrintFurniture(text: string, pageHasPrintDate: boolean): boolean {
  const t = text.trim();
  if (PRINT_DATE_TIME.test(t) || PRINT_DATE_TIME_END.test(t) || PRINT_ADDRESS.test(t)) return true;
  return pageHasPrintDate && ADDRESS_AT_EDGE.test(t);
}

const hasPrintDate = (text: string): boolean =>
  PRINT_DATE_TIME.test(text.trim()) || PRINT_DATE_TIME_END.test(text.trim());

/** The key of a header/footer line: its text with the numbers in it (page, date) blanked, and its height. */
const furnitureKey = (line: PdfLine): string =>
  `${Math.round(line.y / 4)}|${line.text.replace(/\d+/g, '#').toLowerCase()}`;

/**
 * Drops running headers and footers and bare page numbers (see the module comment); returns the pages' remaining
 * lines. A single page has nothing to repeat: only its page number and a browser's print header and footer go. Lines larger than the body text are
 * kept: a chapter heading at the top of every page ("Chapter 3") is not furniture.
 */
export function dropPageFurniture(pages: readonly PdfPage[]): PdfLine[][] {
  const body = bodySize(pages.map((p) => p.lines));
  const inBand = (line: PdfLine, height: number): boolean =>
    roundSize(line.size) <= body && (line.y > height * (1 - BAND) || line.y < height * BAND);
  const seen = new Map<string, number>();
  for (const page of pages) {
    const keys = new Set(page.lines.filter((l) => inBand(l, page.height)).map(furnitureKey));
    for (const key of keys) seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const repeatedOn = Math.max(2, Math.ceil(pages.length / 2));
  return pages.map((page) => {
    const printed = page.lines.some((l) => inBand(l, page.height) && hasPrintDate(l.text));
    return page.lines.filter(
      (line) =>
        !inBand(line, page.height) ||
        !(
          isPageNumber(line.text) ||
          isPrintFurniture(line.text, printed) ||
          (seen.get(furnitureKey(line)) ?? 0) >= repeatedOn
        ),
    );
  });
}

const roundSize = (size: number): number => Math.round(size * 2) / 2;

/**
 * Sizes this close are one font size. A recognised line's size is measured from its pixels, a pixel or two apart
 * between two lines of one heading (33 and 34 px at 150 dpi, 16 and 16.5 after rounding); heading levels differ
 * by 15 % or more in the styles people use (LaTeX, Word, a browser's h1–h4).
 */
const SAME_SIZE = 0.08;
const sameSize = (a: number, b: number): boolean =>
  roundSize(a) === roundSize(b) || Math.abs(a - b) <= SAME_SIZE * Math.max(a, b);

/** Body font size: the size covering the most characters of prose (code is often set smaller, and can be most). */
function bodySize(pages: PdfLine[][]): number {
  const chars = new Map<number, number>();
  const lines = pages.flat();
  const prose = lines.filter((line) => !line.mono);
  for (const line of prose.length > 0 ? prose : lines) {
    const size = roundSize(line.size);
    chars.set(size, (chars.get(size) ?? 0) + line.text.length);
  }
  let best = 0;
  let bestChars = -1;
  for (const [size, count] of chars) if (count > bestChars) [best, bestChars] = [size, count];
  return best || 1;
}

/** Line spacing of the body text, per unit of font size: the most common gap between body lines. */
function bodyLeading(pages: PdfLine[][], body: number): number {
  const gaps = new Map<number, number>();
  for (const lines of pages) {
    for (let i = 1; i < lines.length; i++) {
      const [a, b] = [lines[i - 1], lines[i]];
      if (roundSize(a.size) !== body || roundSize(b.size) !== body) continue;
      const gap = Math.round(((a.y - b.y) / body) * 20) / 20;
      // Lines of one paragraph are less than two font sizes apart in any layout a person reads.
      if (gap > 0.8 && gap < 2) gaps.set(gap, (gaps.get(gap) ?? 0) + 1);
    }
  }
  let best = 1.2;
  let count = 0;
  for (const [gap, n] of gaps) if (n > count || (n === count && gap < best)) [best, count] = [gap, n];
  return best;
}

const normalizeTitle = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** Numbered heading: "4.2 Ownership", "3. Results", "A.1 Proofs" (the number and the words after it). */
const NUMBERED = /^((?:\d{1,3}|[A-Z])(?:\.\d{1,3})*)\.?\s+\p{Lu}/u;

interface Heading {
  level: number;
  /** Lines after this one that continue the heading (a wrapped title). */
  more: number;
}

/** Lines the outline points at: page → line index → heading. */
function outlineHeadings(pages: PdfLine[][], targets: readonly OutlineTarget[]): Map<PdfLine, Heading> {
  const out = new Map<PdfLine, Heading>();
  for (const target of targets) {
    const lines = pages[target.page];
    const title = normalizeTitle(target.title);
    if (!lines || !title) continue;
    let best: { index: number; more: number; distance: number } | undefined;
    lines.forEach((line, index) => {
      // The title over one line, or wrapped over the next few.
      let text = normalizeTitle(line.text);
      let more = 0;
      while (text.length < title.length && title.startsWith(text) && more < 3 && lines[index + more + 1]) {
        more++;
        text = `${text} ${normalizeTitle(lines[index + more].text)}`.trim();
      }
      if (text !== title && !(text.startsWith(title) && line.text.length <= HEADING_MAX_CHARS)) return;
      const distance = target.top === undefined ? index : Math.abs(target.top - line.y - line.size);
      if (!best || distance < best.distance) best = { index, more, distance };
    });
    if (best && !out.has(lines[best.index])) {
      out.set(lines[best.index], { level: Math.min(MAX_LEVELS, target.level), more: best.more });
    }
  }
  return out;
}

/**
 * A heading element spread over more lines than this is not read as one (a heading wraps over two or three lines;
 * a tag over a paragraph's length is a mistagged paragraph).
 */
const MAX_HEADING_LINES = 4;

/**
 * Headings of a tagged PDF: lines in the structure tree's heading elements, consecutive lines of one element being
 * one wrapped heading. The tree names the author's headings, so neither size nor numbering is asked.
 */
function taggedHeadings(pages: PdfLine[][]): Map<PdfLine, Heading> {
  const out = new Map<PdfLine, Heading>();
  for (const lines of pages) {
    for (let i = 0; i < lines.length; i++) {
      const tag = lines[i].tag;
      if (!tag) continue;
      let run = 1;
      while (lines[i + run]?.tag?.element === tag.element) run++;
      if (run <= MAX_HEADING_LINES)
        out.set(lines[i], { level: Math.min(MAX_LEVELS, tag.level), more: run - 1 });
      i += run - 1;
    }
  }
  return out;
}

/** Headings by font size and numbering, for the lines the outline did not name. */
function typographicHeadings(
  pages: PdfLine[][],
  body: number,
  leading: number,
  known: Map<PdfLine, Heading>,
): Map<PdfLine, Heading> {
  const out = new Map(known);
  const isLarge = (line: PdfLine): boolean =>
    line.size >= body * HEADING_SIZE && line.text.length <= HEADING_MAX_CHARS && /\p{L}/u.test(line.text);
  const sizes = [
    ...new Set(
      pages
        .flat()
        .filter(isLarge)
        .map((l) => roundSize(l.size)),
    ),
  ].sort((a, b) => b - a);
  // Largest first; a size within SAME_SIZE of the level's largest is that level (one heading style measured apart).
  const sizeLevel = new Map<number, number>();
  let levelTop = 0;
  let rank = 0;
  for (const size of sizes) {
    if (rank === 0 || !sameSize(size, levelTop)) [levelTop, rank] = [size, rank + 1];
    sizeLevel.set(size, Math.min(MAX_LEVELS, rank));
  }
  // Numbered headings in body size are taken only when they stand alone (a gap before and after) and the number
  // has two parts or more, so an ordinary numbered list ("1. Install the package") stays text.
  const alone = (lines: PdfLine[], i: number): boolean => {
    const gapBefore = i === 0 || lines[i - 1].y - lines[i].y > leading * body * PARAGRAPH_GAP;
    const gapAfter = i === lines.length - 1 || lines[i].y - lines[i + 1].y > leading * body * PARAGRAPH_GAP;
    return gapBefore && gapAfter;
  };
  for (const lines of pages) {
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      if (out.has(line)) {
        i += out.get(line)!.more;
        continue;
      }
      const numbered = NUMBERED.exec(line.text);
      const numberLevel = numbered ? numbered[1].split('.').length : 0;
      const shortTitle = line.text.length <= 80 && !/[.:;,!?]$/.test(line.text) && !line.mono;
      let level = 0;
      if (isLarge(line)) level = numberLevel || sizeLevel.get(roundSize(line.size)) || 1;
      else if (numbered && numberLevel >= 2 && shortTitle && alone(lines, i)) level = numberLevel;
      if (level === 0) continue;
      // Consecutive lines of the same large size close together are one wrapped heading.
      let more = 0;
      while (
        isLarge(line) &&
        lines[i + more + 1] &&
        sameSize(lines[i + more + 1].size, line.size) &&
        lines[i + more].y - lines[i + more + 1].y < line.size * leading * PARAGRAPH_GAP &&
        more < 3
      ) {
        more++;
      }
      out.set(line, { level: Math.min(MAX_LEVELS, level), more });
      i += more;
    }
  }
  return out;
}

/** A word with its inner hyphens ("v-model", "out-of-the-box"), lower-cased for the document's vocabulary. */
const HYPHENATED_WORD = /[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu;
const WORD_BEFORE_BREAK = /([\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*)-$/u;
const WORD_AFTER_BREAK = /^[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/u;
/**
 * The word broken at the end of `text`, looked for in its last 256 characters only: WORD_BEFORE_BREAK is tried from
 * every position, so over a whole line or paragraph of one long hyphenated run ("a-a-a-…", a hostile PDF's) it takes
 * time quadratic in the run (20,000 characters: ~0.2 s, each line). No real word is that long.
 */
function wordBeforeBreak(text: string): RegExpExecArray | null {
  return WORD_BEFORE_BREAK.exec(text.length > 256 ? text.slice(-256) : text);
}

/**
 * Whether a hyphen at a line's end belongs to the word ("v-model", "time-to-content") or was put there by the
 * typesetter to split it ("algo-rithm"). A browser never splits a word unless its CSS asks for it, so every
 * line-end hyphen of a printed web page is the author's, and dropping it turned Vue's "v-model" into "vmodel";
 * TeX and word processors split plain words. The document says which: a break whose hyphenated form is written
 * inside a line elsewhere keeps its hyphen, one whose joined form is joins, and a break with neither follows the
 * document's majority of the breaks that did say; when none did, the PDF's writer decides: a browser's print keeps
 * it, anything else joins (the typesetter's convention).
 */
function lineEndHyphens(
  pages: readonly PdfLine[][],
  browserPrint: boolean,
): (before: string, after: string) => boolean {
  const vocabulary = new Map<string, number>();
  const breaks: Array<[string, string]> = [];
  for (const lines of pages) {
    lines.forEach((line, i) => {
      const broken = wordBeforeBreak(line.text);
      const words = line.text.match(HYPHENATED_WORD) ?? [];
      // The pieces on either side of a break are not words written whole.
      const from = i > 0 && wordBeforeBreak(lines[i - 1].text) !== null ? 1 : 0;
      const to = broken ? words.length - 1 : words.length;
      for (let w = from; w < to; w++) {
        const word = words[w].toLowerCase();
        vocabulary.set(word, (vocabulary.get(word) ?? 0) + 1);
      }
      const next = lines[i + 1] ?? undefined;
      const after = next && WORD_AFTER_BREAK.exec(next.text);
      if (broken && after && !line.mono) breaks.push([broken[1].toLowerCase(), after[0].toLowerCase()]);
    });
  }
  const said = (before: string, after: string): boolean | undefined => {
    const kept = vocabulary.get(`${before}-${after}`) ?? 0;
    const joined = vocabulary.get(`${before}${after}`) ?? 0;
    return kept === joined ? undefined : kept > joined;
  };
  let keep = 0;
  let join = 0;
  for (const [before, after] of breaks) {
    const verdict = said(before, after);
    if (verdict === true) keep++;
    else if (verdict === false) join++;
  }
  const otherwise = keep === join ? browserPrint : keep > join;
  return (before, after) => said(before.toLowerCase(), after.toLowerCase()) ?? otherwise;
}

/**
 * Joins a paragraph's lines: prose wrapped with spaces, a word broken at a line-end hyphen joined with or without
 * its hyphen as `keepsHyphen` says, code kept.
 */
function joinLines(
  lines: PdfLine[],
  keepsHyphen: (before: string, after: string) => boolean,
): { text: string; starts: number[] } {
  let text = '';
  const starts: number[] = [];
  lines.forEach((line, i) => {
    const before = wordBeforeBreak(text);
    const after = WORD_AFTER_BREAK.exec(line.text);
    if (i === 0) {
      starts.push(0);
      text = line.text;
    } else if (line.mono && lines[i - 1].mono) {
      text += '\n';
      starts.push(text.length);
      text += line.text;
    } else if (before && after && /\p{L}-$/u.test(text)) {
      // A piece that starts in capitals or digits never continues a split word: only a compound keeps going.
      if (/^\p{Ll}/u.test(line.text) && !keepsHyphen(before[1], after[0])) text = text.slice(0, -1);
      starts.push(text.length);
      text += line.text;
    } else {
      text += ' ';
      starts.push(text.length);
      text += line.text;
    }
  });
  return { text, starts };
}

/** Lays out the pages' lines (furniture already dropped) into text, sections and page offsets. */
export function layoutPdf(
  pages: PdfLine[][],
  outline: readonly OutlineTarget[] = [],
  /** The PDF was printed by a web browser (see lineEndHyphens). */
  browserPrint = false,
): PdfLayout {
  const out = new DocumentBuilder();
  const body = bodySize(pages);
  const leading = bodyLeading(pages, body);
  // A tagged PDF that names headings says where they all are; its other lines are not headings, however large.
  // One whose tags name none (or only mistagged paragraphs) is read as an untagged one.
  const tagged = taggedHeadings(pages);
  const headings =
    tagged.size > 0 ? tagged : typographicHeadings(pages, body, leading, outlineHeadings(pages, outline));
  const keepsHyphen = lineEndHyphens(pages, browserPrint);
  const firstOffset: Array<number | undefined> = pages.map(() => undefined);
  const note = (page: number, offset: number): void => {
    if (offset >= 0) firstOffset[page] ??= offset;
  };

  let paragraph: Array<{ line: PdfLine; page: number }> = [];
  const flush = (): void => {
    if (paragraph.length === 0) return;
    const { text, starts } = joinLines(
      paragraph.map((p) => p.line),
      keepsHyphen,
    );
    const at = out.paragraph(text);
    paragraph.forEach((p, i) => note(p.page, at + starts[i]));
    paragraph = [];
  };
  pages.forEach((lines, page) => {
    const first = lines[0];
    const last = paragraph.at(-1)?.line;
    const continues =
      first &&
      last &&
      ((first.mono && last.mono) ||
        (!first.mono && !last.mono && !/[.!?:;。！？"”]$/.test(last.text) && /^\p{Ll}/u.test(first.text)));
    if (!continues || headings.has(first)) flush();
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      const heading = headings.get(line);
      if (heading) {
        flush();
        note(page, out.heading(line.text, heading.level));
        for (let k = 1; k <= heading.more && lines[i + 1]; k++) out.extendHeading(lines[++i].text);
        continue;
      }
      const previous = lines[i - 1];
      if (previous && !headings.has(previous)) {
        const gap = previous.y - line.y;
        const spacing = leading * Math.max(line.size, previous.size);
        if (gap > spacing * PARAGRAPH_GAP || gap < 0 || line.mono !== previous.mono) flush();
      } else if (previous) {
        flush();
      }
      paragraph.push({ line, page });
    }
  });
  flush();
  const { text, sections } = out.build();
  // A page without text starts where the next page with text does.
  const pageStarts = new Array<number>(pages.length);
  let next = text.length;
  for (let p = pages.length - 1; p >= 0; p--) {
    next = firstOffset[p] ?? next;
    pageStarts[p] = next;
  }
  if (pageStarts.length > 0) pageStarts[0] = 0;
  return { text, sections, pageStarts, titleFromHeadings: out.titleFromHeadings() };
}
