// Which sentences of a passage the reader's eye goes to first. The raw sentence score (cosine to the question plus
// the IDF share of its words, or that share alone without vectors) often favours a code line: "watch: {" sits close
// to a question about watchers in embedding space, while the sentence that answers ("We can force a watcher's
// callback to be executed immediately … immediate: true") is prose. So prose that shares the question's words is
// preferred over a code fragment; a code block can still be the evidence (a chunk of nothing but code), and then
// it is highlighted whole, not one line of it.
// Within a passage, the words its heading path already names (the question "How long is the Erie Canal?" in the
// section "The Erie Canal") said which passage; the other words ("long") say which sentence answers. So the
// path's words count less in the choice, and the heading line itself, which names the topic and answers nothing,
// is not highlighted while another sentence is there.
import type { SentenceHit } from './types.ts';

/** Highlighted sentences per passage. */
const PICKED_SENTENCES = 2;

/** What a share of the question's words adds to a sentence's cosine (cosines of related text sit near 0.3–0.7). */
const WORD_SHARE_WEIGHT = 0.5;
/** What a question word the passage's heading path names counts in the choice of its sentence (1 = as the others). */
export const TOPIC_WEIGHT = 0.25;
/** A code fragment keeps this share of its score: it wins only where no prose comes close. */
const CODE_FACTOR = 0.5;

const PROSE_WORD = /^[A-Za-z][a-z'’]*[.,;:?!]?$/;
const CODE_SYMBOLS = /[{}[\]();=<>$|&`\\]/g;
const CODE_LINE_START =
  /^(?:[{}[\]()]|\/\/|\/\*|#!|<\/?[a-zA-Z]|import\s|export\s|const\s|let\s|var\s|function\s|return\b)/;
const CODE_LINE_END = /[{[(,;]$|=>$/;

/**
 * Whether a sentence (or block) reads as code rather than prose: a line that opens or closes a block, or text
 * where symbols are dense and words of prose are few. A sentence of prose that mentions code ("the
 * `immediate: true` option") stays prose.
 */
export function looksLikeCode(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed === '') return false;
  const lines = trimmed.split('\n');
  if (lines.length === 1 && CODE_LINE_START.test(trimmed)) return true;
  const words = trimmed.split(/\s+/);
  const prose = words.filter((w) => PROSE_WORD.test(w)).length;
  // A fragment of a few words with code's punctuation and no sentence end: "immediate: true", "watchEffect()".
  if (words.length <= 3 && !/[.?!]$/.test(trimmed) && /[:=(){}[\];]/.test(trimmed)) return true;
  // Six plain words or more with a sentence's end: prose, whatever code it quotes.
  if (lines.length === 1 && prose >= 6 && prose / words.length >= 0.6 && /[.?!:]$/.test(trimmed))
    return false;
  const codeLines = lines.filter((l) => {
    const line = l.trim();
    return line !== '' && (CODE_LINE_START.test(line) || CODE_LINE_END.test(line));
  }).length;
  if (codeLines * 2 >= lines.filter((l) => l.trim() !== '').length) return true;
  const symbols = trimmed.match(CODE_SYMBOLS)?.length ?? 0;
  return symbols / trimmed.length > 0.06 && prose / words.length < 0.5;
}

/**
 * The run of text a code sentence belongs to: the block between blank lines around it (a code block is written
 * as one block), so a highlighted code line becomes its whole block.
 */
export function enclosingBlock(text: string, start: number, end: number): { start: number; end: number } {
  const before = text.lastIndexOf('\n\n', Math.max(0, start - 1));
  const after = text.indexOf('\n\n', end);
  let from = before < 0 ? 0 : before + 2;
  let to = after < 0 ? text.length : after;
  while (from < start && /\s/.test(text[from])) from++;
  while (to > end && /\s/.test(text[to - 1])) to--;
  return { start: Math.min(from, start), end: Math.max(to, end) };
}

export interface PickOptions {
  /**
   * The scores hold cosines to the question's vector, plus shares of its words (without vectors: the shares only,
   * 0 = none).
   */
  byVector: boolean;
  /** The question's analysed terms. */
  questionTerms: ReadonlySet<string>;
  /** The library's analyser, so a sentence's words compare with the question's. */
  terms: (text: string) => string[];
  /** The analysed terms of the passage's heading path (they weigh TOPIC_WEIGHT in the share). */
  topicTerms?: ReadonlySet<string>;
  /** The passage's heading line, never highlighted while another sentence is there. */
  heading?: string;
  count?: number;
}

/**
 * The best sentences of a passage, best first, offsets into `text`: by score, plus the share of the question's
 * words a sentence holds (with vectors), code fragments down-weighted. A code sentence that still comes out on
 * top is widened to its whole block. Without vectors only sentences sharing a word with the question count.
 */
export function pickSentences(
  text: string,
  hits: readonly SentenceHit[],
  options: PickOptions,
): SentenceHit[] {
  const count = options.count ?? PICKED_SENTENCES;
  const q = options.questionTerms;
  const topic = options.topicTerms;
  const heading = options.heading?.trim();
  const isHeading = (h: SentenceHit): boolean =>
    heading !== undefined && text.slice(h.start, h.end).trim() === heading;
  const scored = hits.filter((h) => options.byVector || h.score > 0);
  const candidates = scored.some((h) => !isHeading(h)) ? scored.filter((h) => !isHeading(h)) : scored;
  const ranked = candidates
    .map((h) => {
      const sentence = text.slice(h.start, h.end);
      // A line of a code block is code even where it reads like words ("immediate: true" inside an object).
      const block = enclosingBlock(text, h.start, h.end);
      const code = looksLikeCode(sentence) || looksLikeCode(text.slice(block.start, block.end));
      let share = 0;
      if (options.byVector && q.size > 0) {
        const own = new Set(options.terms(sentence));
        for (const t of q) if (own.has(t)) share += topic?.has(t) ? TOPIC_WEIGHT : 1;
        share /= q.size;
      }
      const base = h.score + WORD_SHARE_WEIGHT * share;
      return { h, code, block, rank: base > 0 && code ? base * CODE_FACTOR : base };
    })
    .sort((a, b) => b.rank - a.rank || a.h.start - b.h.start);
  const out: SentenceHit[] = [];
  for (const { h, code, block } of ranked) {
    if (out.length >= count) break;
    const span = code ? block : h;
    if (out.some((o) => span.start < o.end && o.start < span.end)) continue;
    out.push({ start: span.start, end: span.end, score: h.score });
  }
  return out;
}
