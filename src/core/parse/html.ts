// HTML → plain text with sections, through htmlparser2's streaming tokenizer (workers have no DOMParser, and
// nothing here may run a script); character references are decoded by it with the full HTML table (entities).
// Keeps text and h1–h6 headings; drops <script>, <style>, <noscript>, <template>, <head> (but reads its <title>)
// and comments; block elements become paragraph breaks, <br> and list items line breaks; <pre> keeps its
// whitespace. Also the second half of the .docx path (mammoth's HTML), and how Markdown's raw HTML blocks are read.
// Every step is linear in the input: text pieces are collected in arrays, never by re-copying a growing string.
import { Tokenizer } from 'htmlparser2';
import { DocumentBuilder } from './builder.ts';
import type { ParsedFile } from './types.ts';

/** Elements whose content is never text for the reader. */
const DROPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'object',
  'iframe',
  'head',
]);
/** Elements that end the current paragraph. */
const BLOCK = new Set([
  'p', 'div', 'section', 'article', 'header', 'footer', 'nav', 'aside', 'main', 'blockquote', 'pre', 'table',
  'thead', 'tbody', 'tfoot', 'ul', 'ol', 'dl', 'figure', 'figcaption', 'form', 'fieldset', 'address', 'hr',
  'details', 'summary', 'caption', 'body', 'html', 'center', 'legend',
]); // prettier-ignore
/** Elements that start a new line inside the current paragraph. */
const LINE = new Set(['br', 'li', 'tr', 'dt', 'dd', 'option']);
/** Elements whose boundaries separate words ("<td>a</td><td>b</td>" → "a b"). */
const CELL = new Set(['td', 'th', 'img', 'input', 'button', 'label']);
const HEADING = /^h([1-6])$/;

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
 * Parses HTML; the title is <title>, else the first h1 (else first heading), else undefined.
 * Driven by htmlparser2's Tokenizer rather than its Parser: the Parser keeps its open-element stack with
 * Array.unshift and searches it on every tag, O(depth) per tag, so 200,000 unclosed <div>s took 30 s; text
 * extraction needs no tree, only how deep it is inside dropped elements and <pre>, which counters track.
 */
export function parseHtml(html: string): ParsedFile {
  const collect = new TextCollector();
  let dropped = 0;
  /** Open <head> elements: a <title> counts only in the head or the body, not inside <svg> and the like. */
  let head = 0;
  let pre = 0;
  let tag = '';
  const open = (name: string): void => {
    if (name === 'title' && dropped === head) collect.openTitle();
    if (name === 'head') head++;
    if (DROPPED.has(name)) dropped++;
    if (dropped > 0) return;
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
    if (DROPPED.has(name)) {
      dropped = Math.max(0, dropped - 1);
      return;
    }
    if (dropped > 0) return;
    if (HEADING.test(name)) collect.closeHeading();
    else if (BLOCK.has(name)) {
      if (name === 'pre') pre = Math.max(0, pre - 1);
      collect.endParagraph();
    } else if (LINE.has(name) && name !== 'br') collect.newLine();
    else if (CELL.has(name)) collect.separateWords();
  };
  const text = (value: string): void => {
    // <title> is read even inside the dropped <head>.
    if (dropped > 0 && !collect.inTitle) return;
    collect.text(value, pre > 0);
  };
  const ignore = (): void => {};
  const tokenizer = new Tokenizer(
    { decodeEntities: true, recognizeSelfClosing: true },
    {
      onopentagname: (start, end) => (tag = html.slice(start, end).toLowerCase()),
      onopentagend: () => open(tag),
      onselfclosingtag: () => {
        open(tag);
        close(tag);
      },
      onclosetag: (start, end) => close(html.slice(start, end).toLowerCase()),
      ontext: (start, end) => text(html.slice(start, end)),
      ontextentity: (codePoint) => text(String.fromCodePoint(codePoint)),
      oncdata: (start, end) => text(html.slice(start, end)),
      onattribdata: ignore,
      onattribentity: ignore,
      onattribend: ignore,
      onattribname: ignore,
      oncomment: ignore,
      ondeclaration: ignore,
      onprocessinginstruction: ignore,
      onend: ignore,
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  collect.closeHeading();
  collect.endParagraph();
  const built = collect.out.build();
  return { ...built, title: collect.title ?? collect.out.titleFromHeadings() };
}
