// HTML → plain text with sections, through htmlparser2's streaming tokenizer (workers have no DOMParser, and
// nothing here may run a script); character references are decoded by it with the full HTML table (entities).
// Keeps text and h1–h6 headings; drops <script>, <style>, <noscript>, <template>, <head> (but reads its <title>)
// and comments; block elements become paragraph breaks, <br> and list items line breaks; <pre> keeps its
// whitespace. Also the second half of the .docx path (mammoth's HTML), and how Markdown's raw HTML blocks are read.
// A whole page (an .html file: `{ page: true }`) is read without the site's furniture where the page marks it: only
// its <main> (or role="main") when that holds text, else without <nav>, the page-level <header>, <footer> and
// <aside> and elements whose ARIA role is navigation, banner, contentinfo or search; a page with no text left
// after that is read whole, so a page that is all navigation still comes out with its text. A page that marks none
// of these is read without its blocks of links that list the page itself (a sidebar of plain <div>s:
// linkLists.ts). On a page a heading's permalink mark ("#", "¶") is no word of it, and a <title> that adds the
// site's name to the page's first heading ("Readline | Node.js v20.20.2 Documentation") gives the heading as the
// title.
// Every step is linear in the input: text pieces are collected in arrays, never by re-copying a growing string.
import { DocumentBuilder } from './builder.ts';
import { BLOCK, comparable, DROPPED, readElements, TITLE_SEPARATOR, VOID } from './htmlTags.ts';
import { linkLists } from './linkLists.ts';
import type { ParsedFile } from './types.ts';

/** Elements that start a new line inside the current paragraph. */
const LINE = new Set(['br', 'li', 'tr', 'dt', 'dd', 'option']);
/** Elements whose boundaries separate words ("<td>a</td><td>b</td>" → "a b"). */
const CELL = new Set(['td', 'th', 'img', 'input', 'button', 'label']);
const HEADING = /^h([1-6])$/;
/** A permalink mark alone, or only a zero-width space (Docusaurus draws its mark with CSS), spaces around it. */
const PERMALINK = /^[\s\u200b]*[#¶§🔗]?[\s\u200b]*$/u;

/** A line of text built from pieces; knows its last character without joining (joining is what was quadratic). */
class Line {
  private pieces: string[] = [];
  private last = '';
  get isEmpty(): boolean {
    return this.last === '';
  }
  endsWithSpace(): boolean {
    return this.last === '' || this.last.endsWith(' ');
  }
  add(text: string): void {
    if (text === '') return;
    this.pieces.push(text);
    this.last = text;
  }
  take(): string {
    const text = this.pieces.join('');
    this.pieces = [];
    this.last = '';
    return text;
  }
}

class TextCollector {
  readonly out = new DocumentBuilder();
  title: string | undefined;
  private lines: string[] = [];
  private line = new Line();
  private heading: { level: number; pieces: string[] } | undefined;
  private titlePieces: string[] | undefined;

  text(raw: string, preformatted: boolean): void {
    // Non-breaking spaces are plain spaces and soft hyphens nothing, so whitespace handling stays simple.
    const text = raw.replace(/\u00a0/g, ' ').replace(/\u00ad/g, '');
    if (this.titlePieces) {
      this.titlePieces.push(text);
      return;
    }
    if (this.heading) {
      this.heading.pieces.push(text);
      return;
    }
    if (preformatted) {
      const parts = text.split('\n');
      this.line.add(parts[0]);
      for (let i = 1; i < parts.length; i++) this.newLine(parts[i]);
      return;
    }
    const collapsed = text.replace(/\s+/g, ' ');
    this.line.add(collapsed.startsWith(' ') && this.line.endsWithSpace() ? collapsed.slice(1) : collapsed);
  }

  separateWords(): void {
    if (this.titlePieces) this.titlePieces.push(' ');
    else if (this.heading) this.heading.pieces.push(' ');
    else if (!this.line.endsWithSpace()) this.line.add(' ');
  }

  newLine(start = ''): void {
    const line = this.line.take().trim();
    if (line.length > 0) this.lines.push(line);
    this.line.add(start);
  }

  endParagraph(): void {
    this.newLine();
    this.out.paragraph(this.lines.join('\n'));
    this.lines = [];
  }

  openHeading(level: number): void {
    this.closeHeading();
    this.endParagraph();
    this.heading = { level, pieces: [] };
  }

  /** Where a link inside the open heading starts (its pieces), for permalinkEnd. */
  linkStart(): number | undefined {
    return this.heading?.pieces.length;
  }

  /**
   * Ends a link inside the open heading that began at `start`: a link whose whole text is a permalink mark ("#",
   * "¶", "§", "🔗", as site generators put beside every heading) is no word of the heading and is taken out.
   */
  endLink(start: number | undefined): void {
    if (!this.heading || start === undefined) return;
    const link = this.heading.pieces.slice(start).join('');
    if (PERMALINK.test(link)) this.heading.pieces.length = start;
  }

  closeHeading(): void {
    if (!this.heading) return;
    this.out.heading(this.heading.pieces.join(''), this.heading.level);
    this.heading = undefined;
  }

  get inTitle(): boolean {
    return this.titlePieces !== undefined;
  }

  openTitle(): void {
    this.titlePieces = [];
  }

  closeTitle(): void {
    if (!this.titlePieces) return;
    const title = this.titlePieces.join('').replace(/\s+/g, ' ').trim();
    if (title && this.title === undefined) this.title = title;
    this.titlePieces = undefined;
  }
}

/**
 * Whether a page marks any furniture: a landmark element or a furniture role (then its marks say what to skip). A
 * role written as text ('role=&quot;navigation&quot;' in a code example) is no mark.
 */
const MARKED_FURNITURE =
  /<(?:nav|header|footer|aside)\b|\brole\s*=\s*["']?(?:[\w-]+\s+)*(?:navigation|banner|contentinfo|search)\b/i;
/** ARIA roles of a site's furniture: its navigation, its banner, its footer (contentinfo) and its search box. */
const FURNITURE_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'search']);
/**
 * Elements inside which a <header>, <footer> or <aside> belongs to that content (an article's own header, a note
 * beside a section's text) and is not the site's banner, footer or sidebar (HTML-AAM's landmark scoping).
 */
const SCOPING = ['article', 'section', 'main', 'aside', 'nav'];

/**
 * What of a page is read: `all`, everything (fragments, .docx); `landmarks`, all but the furniture the page
 * marks; `main`, only its main content (without navigation inside it).
 */
type Keep = 'all' | 'landmarks' | 'main';

/**
 * Parses HTML; the title is <title>, else the first h1 (else first heading), else undefined. With `page` (a whole
 * .html file) the site's furniture is left out where the page marks it (this file's header says how).
 */
export function parseHtml(
  html: string,
  options: {
    page?: boolean;
    /** A page that marks no furniture is read without its blocks of links (linkLists.ts); default true. */
    linkLists?: boolean;
  } = {},
): ParsedFile {
  if (options.page) {
    // The cheap look first: a page that marks nothing is read in one pass, exactly as a fragment.
    if (/<main\b|\brole\s*=\s*["']?[^"'>]*\bmain\b/i.test(html)) {
      const main = read(html, 'main');
      if (main.text.length > 0) return withPageTitle(main);
    }
    // Nothing marked as furniture (a role such as "button" marks none): a site's menus are still its blocks of
    // links (linkLists.ts).
    const lists =
      (options.linkLists ?? true) && !MARKED_FURNITURE.test(html) && /<a\b/i.test(html)
        ? linkLists(html)
        : undefined;
    const menus = lists && lists.size > 0 ? lists : undefined;
    if (/<(?:nav|header|footer|aside)\b|\brole\s*=/i.test(html)) {
      if (menus) {
        const unlisted = read(html, 'landmarks', menus);
        if (unlisted.text.length > 0) return withPageTitle(unlisted);
      }
      const landmarks = read(html, 'landmarks');
      if (landmarks.text.length > 0) return withPageTitle(landmarks);
    } else if (menus) {
      const unlisted = read(html, 'all', menus);
      if (unlisted.text.length > 0) return withPageTitle(unlisted);
    }
    return withPageTitle(read(html, 'all'));
  }
  return read(html, 'all');
}

/**
 * A page's <title> names the site beside the page ("Readline | Node.js v20.20.2 Documentation"): where one end of
 * it, cut at a separator, is the page's first heading, that end is the page's title. Otherwise the <title> stays.
 */
function withPageTitle(page: ParsedFile): ParsedFile {
  const heading = page.sections.find((s) => s.level > 0)?.heading;
  if (!page.title || heading === undefined || !TITLE_SEPARATOR.test(page.title)) return page;
  const parts = page.title.split(TITLE_SEPARATOR);
  const want = comparable(heading);
  if (want === '') return page;
  for (const part of [parts[0], parts[parts.length - 1]])
    if (comparable(part) === want) return { ...page, title: part.trim() };
  return page;
}

/**
 * One pass of the tokenizer.
 * Driven by htmlparser2's Tokenizer rather than its Parser: the Parser keeps its open-element stack with
 * Array.unshift and searches it on every tag, O(depth) per tag, so 200,000 unclosed <div>s took 30 s; text
 * extraction needs no tree, only how deep it is inside dropped elements and <pre>, which counters track. The
 * furniture is found the same way: how many elements of each name are open, and the name and count at which the
 * element being skipped (or the main content) opened, so that its end tag is known without a stack.
 */
function read(html: string, keep: Keep, skipped?: ReadonlySet<number>): ParsedFile {
  const collect = new TextCollector();
  /** Elements opened so far (linkLists numbers the elements it finds the same way). */
  let ordinal = 0;
  let dropped = 0;
  /** Open <head> elements: a <title> counts only in the head or the body, not inside <svg> and the like. */
  let head = 0;
  let pre = 0;
  /** The role attribute of the tag being read, lowercased. */
  let role = '';
  /** Open elements by name (void elements never), for the ends of the skipped and the main elements. */
  const openByName = new Map<string, number>();
  const opened = (name: string): number => openByName.get(name) ?? 0;
  /** The element whose content is skipped as furniture: its name and how many of that name were open with it. */
  let skip: { name: string; depth: number } | undefined;
  /** Where the link being read inside a heading began (page reading only). */
  let link: number | undefined;
  /** The main element, while it is open. */
  let main: { name: string; depth: number } | undefined;
  /** Whether a <header>, <footer> or <aside> here belongs to content rather than to the site. */
  const scoped = (): boolean => main !== undefined || SCOPING.some((name) => opened(name) > 0);
  const isFurniture = (name: string, roles: string[]): boolean => {
    if (roles.some((r) => FURNITURE_ROLES.has(r))) return true;
    if (name === 'nav') return true;
    return (name === 'header' || name === 'footer' || name === 'aside') && !scoped();
  };
  /** Whether text and structure are read here (the furniture rules apply only to a page's body). */
  const reading = (): boolean =>
    skip === undefined && (keep === 'all' || keep === 'landmarks' || main !== undefined);

  const open = (name: string): void => {
    const roles = role === '' ? [] : role.split(/\s+/);
    role = '';
    if (name === 'title' && dropped === head) collect.openTitle();
    if (name === 'head') head++;
    if (DROPPED.has(name)) dropped++;
    // Whether a <header>, <footer> or <aside> is the site's depends on what is open around it, not on itself.
    const furniture = keep !== 'all' && dropped === 0 && isFurniture(name, roles);
    if (!VOID.has(name)) openByName.set(name, opened(name) + 1);
    if (skipped?.has(ordinal++) && !skip && dropped === 0 && !VOID.has(name)) {
      collect.closeHeading();
      collect.endParagraph();
      skip = { name, depth: opened(name) };
    }
    if (keep !== 'all' && dropped === 0) {
      if (keep === 'main' && !main && (name === 'main' || roles.includes('main'))) {
        main = { name, depth: opened(name) };
        collect.endParagraph();
      } else if (!skip && (keep === 'landmarks' || main) && furniture) {
        collect.closeHeading();
        collect.endParagraph();
        skip = { name, depth: opened(name) };
      }
    }
    if (dropped > 0 || !reading()) return;
    if (name === 'a' && keep !== 'all') link = collect.linkStart();
    const heading = HEADING.exec(name);
    if (heading) collect.openHeading(Number(heading[1]));
    else if (BLOCK.has(name)) {
      if (name === 'pre') pre++;
      collect.endParagraph();
    } else if (LINE.has(name)) collect.newLine();
    else if (CELL.has(name)) collect.separateWords();
  };
  const close = (name: string): void => {
    if (name === 'title') collect.closeTitle();
    if (name === 'head') head = Math.max(0, head - 1);
    const depth = opened(name);
    if (!VOID.has(name) && depth > 0) openByName.set(name, depth - 1);
    if (skip && skip.name === name && depth === skip.depth) {
      skip = undefined;
      return;
    }
    if (main && main.name === name && depth === main.depth) {
      collect.closeHeading();
      collect.endParagraph();
      main = undefined;
      return;
    }
    if (DROPPED.has(name)) {
      dropped = Math.max(0, dropped - 1);
      return;
    }
    if (dropped > 0 || !reading()) return;
    if (name === 'a' && keep !== 'all') {
      collect.endLink(link);
      link = undefined;
    }
    if (HEADING.test(name)) collect.closeHeading();
    else if (BLOCK.has(name)) {
      if (name === 'pre') pre = Math.max(0, pre - 1);
      collect.endParagraph();
    } else if (LINE.has(name) && name !== 'br') collect.newLine();
    else if (CELL.has(name)) collect.separateWords();
  };
  const text = (value: string): void => {
    // <title> is read even inside the dropped <head>.
    if (collect.inTitle) return collect.text(value, false);
    if (dropped > 0 || !reading()) return;
    collect.text(value, pre > 0);
  };
  readElements(html, {
    open: (name, roleOf) => {
      role = roleOf;
      open(name);
    },
    close,
    text,
    // Attributes matter only on a page, and only one: role.
    roles: keep !== 'all',
  });
  collect.closeHeading();
  collect.endParagraph();
  const built = collect.out.build();
  return { ...built, title: collect.title ?? collect.out.titleFromHeadings() };
}
