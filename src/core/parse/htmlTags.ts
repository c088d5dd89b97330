// The HTML element classes both readers of a page share (html.ts reads the text, linkLists.ts finds its menus).

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
