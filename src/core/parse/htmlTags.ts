// The HTML element classes both readers of a page share (html.ts reads the text, linkLists.ts finds its menus).
import { Tokenizer } from 'htmlparser2';

/** Elements whose content is never text for the reader. */
export const DROPPED = new Set([
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
export const BLOCK = new Set([
  'p', 'div', 'section', 'article', 'header', 'footer', 'nav', 'aside', 'main', 'blockquote', 'pre', 'table',
  'thead', 'tbody', 'tfoot', 'ul', 'ol', 'dl', 'figure', 'figcaption', 'form', 'fieldset', 'address', 'hr',
  'details', 'summary', 'caption', 'body', 'html', 'center', 'legend',
]); // prettier-ignore
/** Elements with no end tag: never counted as open. */
export const VOID = new Set([
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr',
]); // prettier-ignore
/** The separators between a page's name and its site's name in a <title> ("Readline | Node.js Documentation"). */
export const TITLE_SEPARATOR = /\s+[|\-–—·:»]\s+/;
/** A name as compared with another: lowercased letters and digits only. */
export const comparable = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** What a reader of a page is told, element by element (readElements). */
export interface ElementReader {
  /** An element opens (a self-closing one opens and closes): its lower-cased name and `role` attribute ('' if none). */
  open(name: string, role: string): void;
  close(name: string): void;
  /** Text, with its entities decoded. */
  text(value: string): void;
  /** Whether the `role` attribute is read (else every element's role is ''). */
  roles: boolean;
}

/**
 * An HTML string read element by element by htmlparser2's Tokenizer, with no tree (each reader keeps what it needs:
 * the Parser's own stack made 200,000 unclosed <div>s quadratic, html.ts): names lower-cased, one attribute read
 * (`role`), comments, declarations and processing instructions skipped.
 */
export function readElements(html: string, reader: ElementReader): void {
  let tag = '';
  let role = '';
  let attribute = '';
  let value: string[] = [];
  const ignore = (): void => {};
  const tokenizer = new Tokenizer(
    { decodeEntities: true, recognizeSelfClosing: true },
    {
      onopentagname: (start, end) => {
        tag = html.slice(start, end).toLowerCase();
        role = '';
      },
      onopentagend: () => reader.open(tag, role),
      onselfclosingtag: () => {
        reader.open(tag, role);
        reader.close(tag);
      },
      onclosetag: (start, end) => reader.close(html.slice(start, end).toLowerCase()),
      ontext: (start, end) => reader.text(html.slice(start, end)),
      ontextentity: (codePoint) => reader.text(String.fromCodePoint(codePoint)),
      oncdata: (start, end) => reader.text(html.slice(start, end)),
      onattribname: (start, end) => {
        attribute = reader.roles ? html.slice(start, end).toLowerCase() : '';
        value = [];
      },
      onattribdata: (start, end) => {
        if (attribute === 'role') value.push(html.slice(start, end));
      },
      onattribentity: (codePoint) => {
        if (attribute === 'role') value.push(String.fromCodePoint(codePoint));
      },
      onattribend: () => {
        if (attribute === 'role') role = value.join('').trim().toLowerCase();
        attribute = '';
      },
      oncomment: ignore,
      ondeclaration: ignore,
      onprocessinginstruction: ignore,
      onend: ignore,
    },
  );
  tokenizer.write(html);
  tokenizer.end();
}
