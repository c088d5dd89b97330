// Sentence splitting with character offsets: Intl.Segmenter (any language, incl. CJK 。！？) plus the fix-ups it
// needs for English prose — it splits after "Dr." and "U.S.", and at every line break of hard-wrapped text — and a
// cap so that no "sentence" (a table row, a list without punctuation) exceeds what a chunk can hold.
import { forEachBlock, isSpace, SEGMENTER_LOCALE } from './blocks.ts';
import { isStopWord } from './stopwords.ts';
import { countTokens } from './tokens.ts';

export interface SentenceSpan {
  start: number;
  end: number;
}

export interface SplitSentencesOptions {
  /** Longer sentences are cut at whitespace into pieces of at most this many cl100k tokens. */
  maxTokens?: number;
}

export const DEFAULT_MAX_SENTENCE_TOKENS = 400;

/** Abbreviations after which a split is always wrong (they precede a name or an example). */
const ALWAYS_JOIN = new Set([
  'dr.', 'mr.', 'mrs.', 'ms.', 'st.', 'prof.', 'vs.', 'e.g.', 'i.e.', 'cf.', 'mt.', 'rev.', 'gen.',
  'col.', 'capt.', 'lt.', 'sgt.', 'gov.', 'sen.', 'rep.', 'hon.', 'messrs.', 'mme.', 'approx.', 'fig.', 'ca.',
  'v.', 'lit.', 'viz.', 'esp.', 'incl.', 'mgr.', 'rt.', 'fr.',
]); // prettier-ignore
/** Abbreviations that may also end a sentence: join unless a typical sentence opener ("The", "He") follows. */
const JOIN_UNLESS_OPENER = new Set([
  'inc.', 'ltd.', 'jr.', 'sr.', 'u.s.', 'u.k.', 'co.', 'corp.', 'bros.', 'u.n.', 'ft.', 'ave.', 'blvd.', 'no.',
]); // prettier-ignore
// Any other word ending in '.' ("etc.", "No.", "al.") is joined only when the next sentence starts in lowercase or
// with a digit: ICU never ends a sentence there itself, only our block cuts can, and a capital may open a sentence.

const LAST_WORD = /(?:^|[\s([{"'“‘-])([\p{L}.]*\p{L}\.)$/u;
/** "L.A.", "S.M.", "U.S.A.": dotted initialisms behave like "U.S.". */
const DOTTED_INITIALISM = /^(?:\p{L}\.){2,}$/u;
const CLOSING_START = /^(?:[”’)\]»]|["'][\s,;:.!?])/u;
const FIRST_WORD = /^[\s"'“‘([{]*([\p{L}\p{N}][\p{L}\p{M}\p{N}'’]*)/u;
const SINGLE_INITIAL = /^\p{Lu}\.$/u;
const LIST_MARKER = /^[ \t]*(?:[-*•+–]|\d{1,3}[.)])\s/;
/** Lines shorter than this that end without punctuation are headings or list items, not wrapped prose. */
const SHORT_LINE = 40;

let segmenter: Intl.Segmenter | undefined;

/**
 * The text the segmenter sees for one block: same length, but the line breaks of hard-wrapped prose become spaces
 * (otherwise ICU ends a sentence at every line). A break stays when the next line is a list item or the line before
 * is short (a heading, a list entry, a verse).
 */
function unwrapLines(block: string): string {
  if (!block.includes('\n')) return block;
  return block.replace(/\r?\n/g, (newline: string, offset: number) =>
    isSoftBreak(block, offset, newline.length) ? ' '.repeat(newline.length) : newline,
  );
}

/** True when the line break at `offset` only wraps prose (see unwrapLines). */
function isSoftBreak(text: string, offset: number, length: number): boolean {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const previous = text.slice(lineStart, offset).trim();
  const rest = text.slice(offset + length, offset + length + 8);
  return previous.length >= SHORT_LINE && rest.trim() !== '' && !LIST_MARKER.test(rest);
}

function shouldJoin(text: string, previous: SentenceSpan, next: SentenceSpan): boolean {
  // Never across a line break that was kept (a heading, a list item); a wrapped line's break is just a space.
  const gap = text.slice(previous.end, next.start);
  const newline = gap.indexOf('\n');
  if (newline >= 0) {
    if (gap.indexOf('\n', newline + 1) >= 0 || !isSoftBreak(text, previous.end + newline, 1)) return false;
  }
  const opening = text.slice(next.start, next.start + 40);
  // A "sentence" that starts with a closing quote or bracket is the tail of the previous one (`More! " album`).
  if (CLOSING_START.test(opening)) return true;
  const head = FIRST_WORD.exec(opening);
  const first = head ? head[1] : '';
  // ICU ends a sentence after "!" or "?" even before lowercase ("Yahoo! is", "Stop!" and left): never a new sentence.
  if (/^\p{Ll}/u.test(first)) return true;
  const tail = LAST_WORD.exec(text.slice(Math.max(previous.start, previous.end - 24), previous.end));
  if (!tail) return false;
  const word = tail[1];
  if (/^\p{N}/u.test(first)) return true;
  const lower = word.toLowerCase();
  if (ALWAYS_JOIN.has(lower) || SINGLE_INITIAL.test(word)) return true;
  if (JOIN_UNLESS_OPENER.has(lower) || DOTTED_INITIALISM.test(word)) {
    return first !== '' && !isStopWord(first.toLowerCase());
  }
  return false;
}

/** Cuts a span longer than maxTokens at whitespace (or anywhere, for text without spaces) into fitting pieces. */
function capLength(text: string, span: SentenceSpan, maxTokens: number, out: SentenceSpan[]): void {
  // A cl100k token covers at least one character, so short spans cannot be too long; skip counting them.
  if (span.end - span.start <= maxTokens || countTokens(text.slice(span.start, span.end)) <= maxTokens) {
    out.push(span);
    return;
  }
  let start = span.start;
  while (start < span.end) {
    // Grow a piece word by word; words are short so this stays linear.
    let end = start;
    let tokens = 0;
    // A character is at most 4 UTF-8 bytes, so at most 4 tokens: words longer than this are cut to fit.
    const maxWordChars = Math.max(1, Math.min(64, Math.floor(maxTokens / 4)));
    while (end < span.end) {
      let wordEnd = end;
      while (wordEnd < span.end && isSpace(text.charCodeAt(wordEnd))) wordEnd++;
      while (wordEnd < span.end && !isSpace(text.charCodeAt(wordEnd)) && wordEnd - end < maxWordChars)
        wordEnd++;
      if (wordEnd < span.end && (text.charCodeAt(wordEnd - 1) & 0xfc00) === 0xd800) wordEnd++;
      const wordTokens = countTokens(text.slice(end, wordEnd));
      if (tokens + wordTokens > maxTokens && end > start) break;
      tokens += wordTokens;
      end = wordEnd;
    }
    let pieceStart = start;
    let pieceEnd = end;
    while (pieceStart < pieceEnd && isSpace(text.charCodeAt(pieceStart))) pieceStart++;
    while (pieceEnd > pieceStart && isSpace(text.charCodeAt(pieceEnd - 1))) pieceEnd--;
    if (pieceEnd > pieceStart) out.push({ start: pieceStart, end: pieceEnd });
    start = end;
  }
}

/**
 * Sentences of `text` (or of `text[from, to)`) as offsets into `text`, whitespace trimmed, in order, never empty.
 * Linear in the length of the text.
 */
export function splitSentences(
  text: string,
  options: SplitSentencesOptions = {},
  from = 0,
  to = text.length,
): SentenceSpan[] {
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_SENTENCE_TOKENS;
  segmenter ??= new Intl.Segmenter(SEGMENTER_LOCALE, { granularity: 'sentence' });
  const joined: SentenceSpan[] = [];
  forEachBlock(
    text,
    (blockStart, blockEnd) => {
      const block = unwrapLines(text.slice(blockStart, blockEnd));
      for (const { index, segment } of segmenter!.segment(block)) {
        let start = blockStart + index;
        let end = start + segment.length;
        while (start < end && isSpace(text.charCodeAt(start))) start++;
        while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
        if (end === start) continue;
        const span = { start, end };
        const previous = joined[joined.length - 1];
        if (previous && shouldJoin(text, previous, span)) previous.end = end;
        else joined.push(span);
      }
    },
    undefined,
    from,
    to,
  );
  const out: SentenceSpan[] = [];
  for (const span of joined) capLength(text, span, maxTokens, out);
  return out;
}
