// A saved site whose menus are plain <div>s (no <nav>, no landmark role) still writes them as blocks of links: the
// sidebar listing every page, the table of contents, the breadcrumbs. Every page of the site repeats them, so their
// words (every page's title) become words of every page and outrank the page that is about them. A block is
// taken for such a menu when nearly all of its text is link text (as boilerplate removers, Readability or
// boilerpipe, judge a block), it holds several links, and one of them is the page itself (its <title>, a part of
// it, or its first heading): a site's menu lists the page it is on, while a list of links in the page's own
// content ("In this chapter: …", an index of components) points elsewhere. A block around the page's first heading
// is the page's content (an index page: its heading and its table of links), never a menu. Used for pages that mark nothing
// (html.ts); one pass of the tokenizer, linear in the input whatever the nesting (each element is pushed and popped
// once, each link's text compared once).
import { BLOCK, comparable, DROPPED, readElements, TITLE_SEPARATOR, VOID } from './htmlTags.ts';

/** Share of a block's text (letters and digits, no spaces) that must be link text for it to be a menu. */
const MENU_LINK_SHARE = 0.8;
/** Fewest links a menu holds: one or two links in a block are a "Next" or a "see …", not a list of pages. */
const MENU_LINKS = 3;
/** Blocks that may be a menu; the page's <body> and <html> never are (a page of links is read whole). */
const CANDIDATES = new Set([...BLOCK].filter((name) => name !== 'body' && name !== 'html'));

interface Open {
  name: string;
  ordinal: number;
  text: number;
  linkText: number;
  links: number;
  /** Index of its first link among the page's links (they are contiguous in document order). */
  firstLink: number;
  /** Whether the page's first heading is inside it: then it is the page's content, not a menu beside it. */
  holdsHeading?: boolean;
}

/**
 * The menus of a page: the ordinals (0-based, in the order elements open, void and self-closing ones included) of
 * the blocks whose text is mostly link text and that link the page itself, outermost and inner alike.
 */
export function linkLists(html: string): Set<number> {
  /** Blocks dense in links, not around the first heading: ordinal and the range of the page's links they hold. */
  const menus: Array<{ ordinal: number; from: number; to: number }> = [];
  const stack: Open[] = [];
  /** Open elements by name on the stack, so a stray end tag is ignored without searching the stack. */
  const onStack = new Map<string, number>();
  /** Each link's text, comparable, in document order. */
  const linkNames: string[] = [];
  let linkPieces: string[] | undefined;
  let title: string[] | undefined;
  let titleText = '';
  let heading: string[] | undefined;
  let headingName = '';
  let headingText: string | undefined;
  let ordinal = 0;
  let dropped = 0;
  let inLink = 0;
  const pop = (): void => {
    const e = stack.pop()!;
    onStack.set(e.name, (onStack.get(e.name) ?? 1) - 1);
    if (e.name === 'a') {
      inLink = Math.max(0, inLink - 1);
      if (inLink === 0 && linkPieces) {
        linkNames.push(comparable(linkPieces.join('')));
        linkPieces = undefined;
      }
    }
    if (e.name === 'title' && title) {
      titleText = title.join('');
      title = undefined;
    }
    if (heading && e.name === headingName) {
      headingText ??= heading.join('');
      heading = undefined;
    }
    if (DROPPED.has(e.name)) dropped = Math.max(0, dropped - 1);
    const dense = e.links >= MENU_LINKS && e.text > 0 && e.linkText >= MENU_LINK_SHARE * e.text;
    if (dense && CANDIDATES.has(e.name) && !e.holdsHeading)
      menus.push({ ordinal: e.ordinal, from: e.firstLink, to: linkNames.length });
    const parent = stack[stack.length - 1];
    if (parent) {
      parent.text += e.text;
      parent.linkText += e.linkText;
      parent.links += e.links;
    }
  };
  const open = (name: string): void => {
    const at = ordinal++;
    if (VOID.has(name)) return;
    if (DROPPED.has(name)) dropped++;
    if (name === 'title' && title === undefined && titleText === '') title = [];
    if (/^h[1-6]$/.test(name) && headingText === undefined && heading === undefined && dropped === 0) {
      heading = [];
      headingName = name;
      // Once per page: every block open around the first heading.
      for (const e of stack) e.holdsHeading = true;
    }
    if (name === 'a') {
      if (inLink === 0) linkPieces = [];
      inLink++;
      if (stack.length > 0) stack[stack.length - 1].links++;
    }
    stack.push({ name, ordinal: at, text: 0, linkText: 0, links: 0, firstLink: linkNames.length });
    onStack.set(name, (onStack.get(name) ?? 0) + 1);
  };
  const close = (name: string): void => {
    if (VOID.has(name) || !(onStack.get(name) ?? 0)) return;
    // Elements left open inside it (an unclosed <li>, <p>) end with it.
    while (stack.length > 0 && stack[stack.length - 1].name !== name) pop();
    if (stack.length > 0) pop();
  };
  const text = (value: string): void => {
    title?.push(value);
    if (dropped > 0 || stack.length === 0) return;
    heading?.push(value);
    linkPieces?.push(value);
    const letters = value.replace(/\s+/g, '').length;
    if (letters === 0) return;
    const top = stack[stack.length - 1];
    top.text += letters;
    if (inLink > 0) top.linkText += letters;
  };
  readElements(html, { open, close, text, roles: false });
  while (stack.length > 0) pop();
  // The page's own names: its <title>, each end of it cut at a separator, and its first heading.
  const names = new Set(
    [titleText, ...titleText.split(TITLE_SEPARATOR), headingText ?? '']
      .map(comparable)
      .filter((n) => n !== ''),
  );
  /** Links to the page itself among the first i links, so each block's count is one subtraction. */
  const selfBefore = new Uint32Array(linkNames.length + 1);
  for (let i = 0; i < linkNames.length; i++)
    selfBefore[i + 1] = selfBefore[i] + (names.has(linkNames[i]) ? 1 : 0);
  const out = new Set<number>();
  for (const { ordinal: at, from, to } of menus) if (selfBefore[to] - selfBefore[from] > 0) out.add(at);
  return out;
}
