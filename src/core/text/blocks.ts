// Cuts a long text into short blocks for Intl.Segmenter, which is quadratic in V8 on long strings (a 1 MB string
// takes ~50 s to segment, a 1 KB block ~40 µs). Blocks end at paragraph breaks, else after a sentence terminator
// followed by whitespace, else at whitespace, so that callers see the same segments they would on the whole text
// (the sentence splitter's fix-up pass re-joins the rare wrong cut).

/**
 * One fixed locale for every segmenter, not the user's: sentences and chunks (and so their ids) must come out the
 * same in the CLI, in tests and in any browser whatever its language. ICU's dictionary segmentation of Chinese,
 * Japanese and Thai depends on the script, not on this locale.
 */
export const SEGMENTER_LOCALE = 'en';

/** Largest block handed to Intl.Segmenter; ~1–2 KB measured fastest. */
const MAX_BLOCK_CHARS = 1500;

const PARAGRAPH_BREAK = /\n[ \t\r\f\v]*\n/g;
const TERMINATOR = /[.!?。！？…]/;

export function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x3000 || code === 0x2028;
}

/** Where to end a block that starts at `from` inside a paragraph ending at `to` (exclusive). */
function cutPoint(text: string, from: number, to: number, maxChars: number): number {
  if (to - from <= maxChars) return to;
  const limit = from + maxChars;
  let lastSpace = -1;
  for (let i = limit; i > from + maxChars / 4; i--) {
    if (isSpace(text.charCodeAt(i))) {
      if (TERMINATOR.test(text[i - 1])) return i + 1;
      if (lastSpace < 0) lastSpace = i + 1;
    }
  }
  if (lastSpace > 0) return lastSpace;
  // No whitespace at all (CJK, a data blob): cut anywhere but never inside a surrogate pair.
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit + 1 : limit;
}

/** Calls `visit(start, end)` for consecutive blocks covering `text[from, to)`. */
export function forEachBlock(
  text: string,
  visit: (start: number, end: number) => void,
  maxChars = MAX_BLOCK_CHARS,
  from = 0,
  to = text.length,
): void {
  const breaks = new RegExp(PARAGRAPH_BREAK.source, 'g');
  breaks.lastIndex = from;
  let paragraphStart = from;
  while (paragraphStart < to) {
    const match = breaks.exec(text);
    const paragraphEnd = match && match.index < to ? match.index + match[0].length : to;
    let start = paragraphStart;
    while (start < paragraphEnd) {
      const end = cutPoint(text, start, paragraphEnd, maxChars);
      visit(start, end);
      start = end;
    }
    paragraphStart = paragraphEnd;
    if (!match) break;
  }
}
