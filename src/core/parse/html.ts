// HTML → plain text with sections, by a small tokenizer (workers have no DOMParser, and nothing here may run a
// script). Keeps text and h1–h6 headings; drops <script>, <style>, <noscript>, <template> and comments; decodes
// character references; block elements become paragraph breaks, <br> and list items line breaks; <pre> keeps its
// whitespace. Also the second half of the .docx path (mammoth's HTML).
import { DocumentBuilder } from './builder.ts';
import { decodeEntities } from './entities.ts';
import type { ParsedSection } from './types.ts';

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

const TAG_NAME = /^<\/?([A-Za-z][A-Za-z0-9-]*)/;

/** Index just after the '>' that closes the tag starting at `from`, skipping quoted attribute values. */
function tagEnd(html: string, from: number): number {
  let quote = 0;
  for (let i = from + 1; i < html.length; i++) {
    const c = html.charCodeAt(i);
    if (quote) {
      if (c === quote) quote = 0;
    } else if (c === 34 || c === 39) quote = c;
    else if (c === 62) return i + 1;
  }
  return html.length;
}

/** Index of the end of `</name ...>` at or after `from` (case-insensitive), or the end of the input. */
function closingTagEnd(html: string, lower: string, name: string, from: number): number {
  const at = lower.indexOf(`</${name}`, from);
  return at < 0 ? html.length : tagEnd(html, at);
}

class TextCollector {
  readonly out = new DocumentBuilder();
  title: string | undefined;
  private lines: string[] = [];
  private line = '';
  private heading: { level: number; text: string } | undefined;
  private titleText: string | undefined;

  text(raw: string, preformatted: boolean): void {
    const text = decodeEntities(raw);
    if (this.titleText !== undefined) {
      this.titleText += text;
      return;
    }
    if (this.heading) {
      this.heading.text += text;
      return;
    }
    if (preformatted) {
      const parts = text.split('\n');
      this.line += parts[0];
      for (let i = 1; i < parts.length; i++) this.newLine(parts[i]);
      return;
    }
    const collapsed = text.replace(/\s+/g, ' ');
    this.line +=
      collapsed.startsWith(' ') && (this.line === '' || this.line.endsWith(' '))
        ? collapsed.slice(1)
        : collapsed;
  }

  separateWords(): void {
    if (this.heading) this.heading.text += ' ';
    else if (this.titleText !== undefined) this.titleText += ' ';
    else if (this.line !== '' && !this.line.endsWith(' ')) this.line += ' ';
  }

  newLine(start = ''): void {
    if (this.line.trim().length > 0) this.lines.push(this.line.trim());
    this.line = start;
  }

  endParagraph(): void {
    this.newLine();
    this.out.paragraph(this.lines.join('\n'));
    this.lines = [];
  }

  openHeading(level: number): void {
    this.endParagraph();
    this.heading = { level, text: '' };
  }

  closeHeading(): void {
    if (!this.heading) return;
    this.out.heading(this.heading.text, this.heading.level);
    this.heading = undefined;
  }

  openTitle(): void {
    this.titleText = '';
  }

  closeTitle(): void {
    if (this.titleText === undefined) return;
    const title = this.titleText.replace(/\s+/g, ' ').trim();
    if (title && this.title === undefined) this.title = title;
    this.titleText = undefined;
  }
}

/** Parses HTML; the title is <title>, else the first h1 (else first heading), else undefined. */
export function parseHtml(html: string): { text: string; sections: ParsedSection[]; title?: string } {
  const lower = html.toLowerCase();
  const collect = new TextCollector();
  let preDepth = 0;
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    const textEnd = lt < 0 ? html.length : lt;
    if (textEnd > i) collect.text(html.slice(i, textEnd), preDepth > 0);
    if (lt < 0) break;
    if (html.startsWith('<!--', lt)) {
      const close = html.indexOf('-->', lt + 4);
      i = close < 0 ? html.length : close + 3;
      continue;
    }
    if (html.startsWith('<![CDATA[', lt)) {
      const close = html.indexOf(']]>', lt);
      collect.text(html.slice(lt + 9, close < 0 ? html.length : close), preDepth > 0);
      i = close < 0 ? html.length : close + 3;
      continue;
    }
    const name = TAG_NAME.exec(html.slice(lt, lt + 40))?.[1]?.toLowerCase();
    if (!name) {
      if (html[lt + 1] === '!' || html[lt + 1] === '?') {
        i = tagEnd(html, lt); // doctype, processing instruction
      } else {
        collect.text('<', preDepth > 0); // a lone "<" in text
        i = lt + 1;
      }
      continue;
    }
    const end = tagEnd(html, lt);
    const closing = html[lt + 1] === '/';
    const selfClosing = html[end - 2] === '/';
    i = end;
    if (!closing && name === 'title') {
      collect.openTitle();
      const close = lower.indexOf('</title', end);
      collect.text(html.slice(end, close < 0 ? html.length : close), false);
      collect.closeTitle();
      i = close < 0 ? html.length : tagEnd(html, close);
      continue;
    }
    if (!closing && !selfClosing && DROPPED.has(name)) {
      // <head> content other than <title> is metadata; find its title before skipping it.
      if (name === 'head') {
        const headEnd = closingTagEnd(html, lower, 'head', end);
        const title = lower.indexOf('<title', end);
        if (title >= 0 && title < headEnd) {
          const titleStart = tagEnd(html, title);
          const titleClose = lower.indexOf('</title', titleStart);
          collect.openTitle();
          collect.text(html.slice(titleStart, titleClose < 0 ? headEnd : titleClose), false);
          collect.closeTitle();
        }
        i = headEnd;
      } else {
        i = closingTagEnd(html, lower, name, end);
      }
      continue;
    }
    const headingLevel = /^h([1-6])$/.exec(name);
    if (headingLevel) {
      if (closing) collect.closeHeading();
      else collect.openHeading(Number(headingLevel[1]));
    } else if (BLOCK.has(name)) {
      if (name === 'pre') preDepth = Math.max(0, preDepth + (closing ? -1 : 1));
      collect.endParagraph();
    } else if (LINE.has(name)) {
      if (!closing || name !== 'br') collect.newLine();
    } else if (CELL.has(name)) {
      collect.separateWords();
    }
  }
  collect.closeHeading();
  collect.endParagraph();
  const built = collect.out.build();
  return { ...built, title: collect.title ?? collect.out.titleFromHeadings() };
}
