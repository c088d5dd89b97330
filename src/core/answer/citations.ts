// Turns an answer's [n] markers into chunk ids and the sentence of the chunk that best supports the cited claim,
// so the UI can open the chunk with that sentence highlighted.
import { splitSentences } from '../kg/index.ts';
import { NO_ANSWER } from './prompt.ts';

export interface CitableChunk {
  chunkId: string;
  text: string;
  /** Sentence ranges (offsets into text); split on . ! ? when absent. */
  sentences?: ReadonlyArray<{ start: number; end: number }>;
  /** First and last page of the chunk (1-based), where its source has pages (PDF). */
  pageStart?: number;
  pageEnd?: number;
}

export interface Citation {
  /** The number as written in the answer (1-based index into the context). */
  n: number;
  chunkId: string;
  /** Offsets of the marker in the answer text. */
  markerStart: number;
  markerEnd: number;
  /** The best supporting sentence of the chunk (offsets into the chunk text). */
  sentence?: { start: number; end: number; text: string };
  /** The cited chunk's first and last page, where its source has pages (a citation reads "p. 12"). */
  pageStart?: number;
  pageEnd?: number;
}

const MARKER = /\[(\d+(?:\s*[,;–-]\s*\d+)*)\]/g;

function numbersOf(inner: string): number[] {
  const out: number[] = [];
  for (const part of inner.split(/\s*[,;]\s*/)) {
    const range = /^(\d+)\s*[–-]\s*(\d+)$/.exec(part);
    if (range) {
      const a = Number(range[1]);
      const b = Number(range[2]);
      for (let n = a; n <= b && n - a < 20; n++) out.push(n);
    } else out.push(Number(part));
  }
  return out;
}

const STOP = new Set(
  'the a an of in on at to and or is was were be by for with as that this it its from which who whom what when where'.split(
    ' ',
  ),
);

function words(text: string): Set<string> {
  return new Set(
    (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(
      (w) => !STOP.has(w) && (w.length > 1 || /\d/.test(w)),
    ),
  );
}

/**
 * The claim a marker supports: the answer text from the previous sentence end (or marker) up to the marker. The
 * full stop and the markers right before it belong to the same claim ("Claim. [1]", "Claim [1][2]."): without
 * that, such a marker's claim was empty and it cited its chunk's first sentence, whatever the claim said.
 */
function claimBefore(answer: string, markerStart: number): string {
  let before = answer.slice(0, markerStart);
  for (let previous = ''; previous !== before;) {
    previous = before;
    before = before
      .trimEnd()
      .replace(/[.!?;:]+$/, '')
      .replace(/\[[\d,;\s–-]*\]$/, '');
  }
  const cut = Math.max(before.lastIndexOf('. '), before.lastIndexOf(']'), before.lastIndexOf('\n'));
  return before.slice(cut + 1);
}

function bestSentence(
  chunk: CitableChunk,
  claim: string,
): { start: number; end: number; text: string } | undefined {
  const ranges = chunk.sentences ?? splitSentences(chunk.text);
  const want = words(claim);
  let best: { start: number; end: number; score: number } | undefined;
  for (const r of ranges) {
    const have = words(chunk.text.slice(r.start, r.end));
    let score = 0;
    for (const w of want) if (have.has(w)) score++;
    if (!best || score > best.score) best = { ...r, score };
  }
  return best
    ? { start: best.start, end: best.end, text: chunk.text.slice(best.start, best.end) }
    : undefined;
}

/** Every citation marker of the answer that points into the context; out-of-range numbers are ignored. */
export function parseCitations(answer: string, context: readonly CitableChunk[]): Citation[] {
  const out: Citation[] = [];
  for (const m of answer.matchAll(MARKER)) {
    const claim = claimBefore(answer, m.index);
    for (const n of numbersOf(m[1])) {
      const chunk = context[n - 1];
      if (!chunk) continue;
      out.push({
        n,
        chunkId: chunk.chunkId,
        markerStart: m.index,
        markerEnd: m.index + m[0].length,
        sentence: bestSentence(chunk, claim),
        ...(chunk.pageStart === undefined
          ? {}
          : { pageStart: chunk.pageStart, pageEnd: chunk.pageEnd ?? chunk.pageStart }),
      });
    }
  }
  return out;
}

/** True when the model said the passages do not contain the answer. */
export function isNoAnswer(answer: string): boolean {
  const norm = (s: string): string =>
    s
      .toLowerCase()
      .replace(/[^a-z ]+/g, '')
      .trim();
  return norm(answer).startsWith(norm(NO_ANSWER)) || /do(?:es)? not contain the answer/i.test(answer);
}
