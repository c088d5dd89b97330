// Markdown → plain text with sections, through markdown-it's token stream (CommonMark with GFM tables and
// strikethrough), so headings, code blocks, lists, tables, raw HTML and comments are read as the format defines
// them. Then the tokens are written out as readable text: headings open sections, code blocks are kept verbatim
// (developers search code identifiers; only mdBook's include directives are left out), links keep their text and
// images their alt text, list items and table rows keep their own lines, raw HTML goes through the HTML reader
// (comments and <script> dropped, text kept), YAML front matter and link definitions are metadata and left out.
// Why markdown-it and not micromark (mdast-util-from-markdown) or marked: measured on hostile single lines, 1 MB
// of "[a](" took micromark 304 s and 1 MB of "*a" kept marked busy for over 200 s, while markdown-it stays
// near-linear (≤ 5 s for 1 MB of any bracket, emphasis or backtick run), and it caps nesting (maxNesting 100).
import markdownIt, { type Token } from 'markdown-it';
import { DocumentBuilder } from './builder.ts';
import { cleanHeadingText } from '../text/index.ts';
import { parseHtml } from './html.ts';
import type { ParsedFile } from './types.ts';

const markdown = markdownIt('default', { html: true, linkify: false, typographer: false });
/**
 * For text with a line, or a paragraph (lines with no blank line between them), over LONG_LINE characters: link
 * and image syntax read as plain text. markdown-it's link scanner stays slow on a 1 MB run of "[" or "![" (2–4 s
 * in Node, over 6 s in the browser), and a link's label may span the lines of its paragraph, so the same run cut
 * into 19,998-character lines costs as much (2.7–3.7 s per MB). No line or paragraph a person writes is that long
 * (the longest paragraph of the 427 Markdown pages in the shared docs sets is 6,789 characters); such text is
 * generated data, and its brackets are kept as written instead.
 */
const markdownLongLines = markdownIt('default', { html: true, linkify: false, typographer: false }).disable([
  'link',
  'image',
]);
const LONG_LINE = 20_000;

/** True when a line, or a run of non-blank lines (a paragraph, as far as links go), is over LONG_LINE. */
function hasLongParagraph(lines: readonly string[]): boolean {
  let paragraph = 0;
  for (const line of lines) {
    if (line.trim().length === 0) {
      paragraph = 0;
      continue;
    }
    paragraph += line.length + 1;
    if (paragraph > LONG_LINE) return true;
  }
  return false;
}

/** Inline tokens → text: soft line breaks are spaces (as Markdown renders them), hard breaks newlines. */
function inlineText(token: Token | undefined): string {
  const out: string[] = [];
  for (const child of token?.children ?? []) {
    switch (child.type) {
      case 'text':
        out.push(child.content);
        break;
      case 'code_inline':
        out.push(child.content.trim());
        break;
      case 'softbreak':
        out.push(' ');
        break;
      case 'hardbreak':
        out.push('\n');
        break;
      case 'image':
        out.push(child.content); // the alt text
        break;
      default:
        // Link and emphasis marks carry no text (their text is in the text tokens between them); inline HTML is
        // a tag or a comment, the text around it being separate tokens.
        break;
    }
  }
  return out.join('').trim();
}

interface Item {
  /** "- ", "1. " (the number as written, not renumbered). */
  marker: string;
  /** The item's indentation in the source, so nested lists stay nested. */
  indent: string;
  first: boolean;
  /** A paragraph of the item is not hidden: the list is loose, items are paragraphs of their own. */
  loose: boolean;
}

class Writer {
  readonly out = new DocumentBuilder();
  /** Lines of the list or table being written (one paragraph). */
  private lines: string[] = [];
  private items: Item[] = [];
  private row: string[] | null = null;

  constructor(private readonly sourceLines: string[]) {}

  write(tokens: Token[]): void {
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i];
      switch (token.type) {
        case 'heading_open':
          // A heading inside a list item is still a heading (CommonMark keeps it one): it opens a section.
          this.flush();
          // Heading ids and stray marks ("{#basic-example}", an escaped "**") are markup, not words.
          this.out.heading(cleanHeadingText(inlineText(tokens[i + 1])), Number(token.tag.slice(1)));
          i += 2;
          break;
        case 'paragraph_open':
          this.block(inlineText(tokens[i + 1]), token.hidden);
          i += 2;
          break;
        case 'fence':
        case 'code_block':
          this.block(withoutBookDirectives(token.content.replace(/\n$/, '')), false);
          break;
        case 'html_block':
          this.block(parseHtml(token.content).text, false);
          break;
        case 'list_item_open':
          this.items.push({
            marker: token.markup === '.' || token.markup === ')' ? `${token.info}. ` : '- ',
            indent: this.indentOf(token.map?.[0]),
            first: true,
            loose: false,
          });
          break;
        case 'list_item_close': {
          const item = this.items.pop();
          if (item?.first) this.lines.push(item.indent + item.marker.trimEnd());
          if (item?.loose) this.flush();
          break;
        }
        case 'bullet_list_close':
        case 'ordered_list_close':
          if (this.items.length === 0) this.flush();
          break;
        case 'tr_open':
          this.row = [];
          break;
        case 'th_open':
        case 'td_open':
          this.row?.push(inlineText(tokens[i + 1]));
          i += 2;
          break;
        case 'tr_close':
          if (this.row) this.lines.push(this.row.join(' | '));
          this.row = null;
          break;
        case 'table_close':
          this.flush();
          break;
        default:
          // Block quotes' content comes as its own tokens; rules (hr) and link definitions are not text.
          break;
      }
    }
    this.flush();
  }

  /** A block's text: its own paragraph, or a line of the list item it belongs to. */
  private block(text: string, tight: boolean): void {
    if (text.length === 0) return;
    const item = this.items.at(-1);
    if (!item) {
      this.flush();
      this.out.paragraph(text);
      return;
    }
    if (!tight) item.loose = true;
    if (item.first) {
      if (item.loose) this.flush();
      this.lines.push(item.indent + item.marker + text);
      item.first = false;
    } else if (tight) {
      this.lines.push(item.indent + text);
    } else {
      this.flush();
      this.out.paragraph(text);
    }
  }

  private flush(): void {
    if (this.lines.length === 0) return;
    this.out.paragraph(this.lines.join('\n'));
    this.lines = [];
  }

  /** Leading whitespace of a source line, after any "> " quote markers. */
  private indentOf(line: number | undefined): string {
    const source = line === undefined ? '' : (this.sourceLines[line] ?? '');
    const unquoted = source.slice(/^(?: {0,3}> ?)*/.exec(source)?.[0].length ?? 0);
    return /^[ \t]*/.exec(unquoted)?.[0] ?? '';
  }
}

/**
 * mdBook's include directives (`{{#include ../listings/ch02/src/main.rs:print}}`, `{{#rustdoc_include …}}`,
 * `{{#playground …}}`) stand in a book's source for code the book pulls in when it is built: the reader sees that
 * code, never the path. Left in, every listing's path ("listings", "src", "main.rs", "output.txt") became some of a
 * book's most frequent words and concepts (700 directives in the Rust book).
 */
const BOOK_DIRECTIVE = /^[ \t]*\{\{#(?:include|rustdoc_include|playground)\s[^}\n]*\}\}[ \t]*$/gm;

function withoutBookDirectives(code: string): string {
  return code.includes('{{#') ? code.replace(BOOK_DIRECTIVE, '').replace(/^\n+|\n+$/g, '') : code;
}

/** YAML front matter ("---" … "---" or "..." at the very start) is metadata; blanked so line numbers stay. */
function blankFrontMatter(lines: string[]): void {
  if (lines[0]?.trim() !== '---') return;
  const close = lines.findIndex((line, n) => n > 0 && (line.trim() === '---' || line.trim() === '...'));
  if (close > 0) lines.fill('', 0, close + 1);
}

/** Parses Markdown; the title is the first level-1 heading, else the first heading, else undefined. */
export function parseMarkdown(source: string): ParsedFile {
  const lines = source.split('\n');
  blankFrontMatter(lines);
  const writer = new Writer(lines);
  const parser = hasLongParagraph(lines) ? markdownLongLines : markdown;
  writer.write(parser.parse(lines.join('\n'), {}));
  const built = writer.out.build();
  return { ...built, title: writer.out.titleFromHeadings() };
}
