// Related words of a question (issue 45 item 3, "vocabulary bridging"): a question word the library never or
// rarely uses ("crawls" in a library that says "slow") gets its nearest neighbours by general English word vectors
// that the library does use, each at a reduced weight (relatedWeight × cosine). Only plain words: stems, names and
// identifiers are matched as written (the analyser's terms of a plain word have no dot, digit or capital).
import { STEM_PREFIX } from '../graph/index.ts';
import type { WordVectors } from '../text/index.ts';

export interface RelatedWordOptions {
  /** Smallest cosine between the question word and a neighbour. */
  minCosine: number;
  /** Neighbours kept per question word (best first). */
  perWord: number;
  /** A question word is expanded when the library uses it in at most this many chunks (0: only absent words). */
  maxDf: number;
}

export interface RelatedWord {
  /** The library's word (an index term). */
  term: string;
  /** The question word it stands in for. */
  of: string;
  cosine: number;
}

/**
 * The rows of the word vectors whose word the library uses (df ≥ 1), computed once per library: a question word's
 * neighbours are searched among these only, so a neighbour the library never says costs nothing.
 */
export class LibraryWordVectors {
  private readonly rows: Uint32Array;

  constructor(
    readonly vectors: WordVectors,
    private readonly df: (term: string) => number,
    /** A plain word's stem as the analyser writes it (STEM_PREFIX + stem), undefined when it has none. */
    private readonly stemOf: (word: string) => string | undefined,
  ) {
    const rows: number[] = [];
    for (let i = 0; i < vectors.size; i++) if (df(vectors.words[i]) > 0) rows.push(i);
    this.rows = Uint32Array.from(rows);
  }

  /** How many of the file's words the library uses. */
  get size(): number {
    return this.rows.length;
  }

  /** The related words of a question's terms (analyser output: plain words and their stems). */
  related(terms: readonly string[], options: RelatedWordOptions): RelatedWord[] {
    const out: RelatedWord[] = [];
    const asked = new Set(terms);
    const stemsAsked = new Set(terms.filter((t) => t.startsWith(STEM_PREFIX)));
    const v = this.vectors;
    for (const word of asked) {
      if (word.startsWith(STEM_PREFIX) || this.df(word) > options.maxDf) continue;
      const row = v.row(word);
      if (row === undefined || v.norms[row] === 0) continue;
      const found: Array<[number, number]> = [];
      for (const r of this.rows) {
        if (r === row) continue;
        const cos = v.cosine(row, r);
        if (cos >= options.minCosine) found.push([r, cos]);
      }
      found.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      let kept = 0;
      for (const [r, cos] of found) {
        if (kept >= options.perWord) break;
        const term = v.words[r];
        // Another form of a question word is the stems' job, and a word already asked counts in full.
        const stem = this.stemOf(term);
        if (asked.has(term) || (stem !== undefined && stemsAsked.has(stem))) continue;
        out.push({ term, of: word, cosine: cos });
        kept++;
      }
    }
    return out;
  }
}
