// A passage as the evidence card draws it: its blocks (paragraphs; code blocks set in monospace) split into plain
// text and highlighted sentences. Offsets of the highlights are in the document; the passage starts at `base`.
import { looksLikeCode } from '../core/retrieval/index.ts';

export interface EvidencePiece {
  text: string;
  /** A highlighted sentence: its offsets in the document, and whether it is the passage's best one. */
  sentence?: { start: number; end: number; best: boolean };
}

export interface EvidenceBlock {
  code: boolean;
  pieces: EvidencePiece[];
  /** The blank lines after the block (drawn between blocks, outside a code block's box). */
  after: string;
}

/**
 * The blocks of `text` (split at blank lines, each block with the blank lines after it, so the text reads as
 * written; code blocks next to each other are one), each with its highlights. `sentences` are best first; a highlight across two blocks is cut at the
 * boundary.
 */
export function evidenceBlocks(
  text: string,
  base: number,
  sentences: readonly { start: number; end: number }[],
): EvidenceBlock[] {
  const ranges = sentences
    .map((s, i) => ({ start: s.start, end: s.end, from: s.start - base, to: s.end - base, best: i === 0 }))
    .filter((s) => s.from >= 0 && s.to <= text.length && s.to > s.from)
    .sort((a, b) => a.from - b.from)
    .filter((s, i, all) => i === 0 || s.from >= all[i - 1].to);
  const blocks: EvidenceBlock[] = [];
  const gap = /\n[ \t]*\n\s*/g;
  let at = 0;
  for (;;) {
    const m = gap.exec(text);
    const end = m ? m.index + m[0].length : text.length;
    const body = m ? m.index : text.length;
    if (end > at) {
      // Highlights are drawn within the block; the blank lines after it stay plain.
      const pieces: EvidencePiece[] = [];
      let p = at;
      for (const r of ranges) {
        const from = Math.max(r.from, at);
        const to = Math.min(r.to, body);
        if (to <= from) continue;
        if (from > p) pieces.push({ text: text.slice(p, from) });
        pieces.push({ text: text.slice(from, to), sentence: { start: r.start, end: r.end, best: r.best } });
        p = to;
      }
      if (p < body) pieces.push({ text: text.slice(p, body) });
      const code = looksLikeCode(text.slice(at, body));
      const last = blocks.at(-1);
      // A blank line inside a code block does not end it: one box, as the code was written.
      if (code && last?.code) {
        last.pieces.push({ text: last.after }, ...pieces);
        last.after = text.slice(body, end);
      } else blocks.push({ code, pieces, after: text.slice(body, end) });
    }
    if (!m) break;
    at = end;
  }
  return blocks;
}

/** A written answer split into its text and its [n] citations (with `n`), for drawing the citations as links. */
export function citationPieces(text: string): Array<{ text: string; n?: number }> {
  return text
    .split(/(\[\d+\])/)
    .filter((piece) => piece !== '')
    .map((piece) => {
      const m = /^\[(\d+)\]$/.exec(piece);
      return m ? { text: piece, n: Number(m[1]) } : { text: piece };
    });
}
