// Word statistics per script (issue 45): in a library that holds Chinese documentation beside English encyclopedia
// text, a Chinese word's document frequency is counted among the Chinese chunks only, but its IDF was ln(N / df)
// over every chunk, so 14,820 English chunks raised every Chinese word's IDF by the same ~ln 9, flattened their
// contrast and let words too common to be concepts of the Chinese set alone (组件 in 770 of 1,805 chunks) pass the
// concept cap. Here a term's N is the number of chunks that hold any term of its script: a chunk that holds no
// Chinese word could never have held this one. Two scripts are told apart, the unspaced CJK scripts (Han, kana,
// Hangul) and every other; the analyser already reads the two differently (segmenter words, no stems).

const CJK = /\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}|\p{Script=Hangul}/u;

/**
 * A script has statistics of its own only where it is the main script (most of the terms) of at least this many
 * chunks: below that its words are quotations inside the other language's text (a Chinese name in brackets in an
 * English encyclopedia paragraph: 11 to 99 such passages in each shared Wikipedia corpus, none of them mainly
 * Chinese), and a few quotations are no collection to count words in. The same number as the concept cap's floor
 * (graph/concepts.ts MIN_DF_CAP): the size below which a set of chunks is too small to weigh words by.
 */
export const MIN_SCRIPT_CHUNKS = 20;

/** Chunks holding any term of each script, when the library is written in both (else one N serves all terms). */
export interface ScriptChunks {
  /** Chunks holding a term of a script other than the CJK ones (Latin, Cyrillic, digits, identifiers…). */
  readonly other: number;
  /** Chunks holding a Han, kana or Hangul term. */
  readonly cjk: number;
}

/** Whether a term is of the CJK scripts (it holds a Han, kana or Hangul character). */
export function isCjkTerm(term: string): boolean {
  return CJK.test(term);
}

/** The N a term's IDF is computed against: the chunks of its script, or the library's `n` without script counts. */
export function termChunkCount(term: string, n: number, scripts: ScriptChunks | undefined): number {
  if (!scripts) return n;
  return isCjkTerm(term) ? scripts.cjk : scripts.other;
}

/**
 * Counts, chunk by chunk, the chunks holding a term of each script and the chunks each script is the main one of;
 * `counts()` gives the per-script N or undefined when the library is of one script (then every statistic is the
 * single-N one, as before per-script statistics: an English or a Chinese library answers as it did).
 */
export class ScriptTally {
  private other = 0;
  private cjk = 0;
  private mainlyOther = 0;
  private mainlyCjk = 0;

  /** One chunk's terms (with repetitions): the script of the majority is its main script (ties: neither). */
  add(terms: Iterable<string>): void {
    let other = 0;
    let cjk = 0;
    for (const t of terms) {
      if (isCjkTerm(t)) cjk++;
      else other++;
    }
    this.addCounts(other, cjk);
  }

  /** The same from a chunk's number of terms of each script. */
  addCounts(other: number, cjk: number): void {
    if (other > 0) this.other++;
    if (cjk > 0) this.cjk++;
    if (other > cjk) this.mainlyOther++;
    else if (cjk > other) this.mainlyCjk++;
  }

  /** Takes back a chunk added with these counts (a document removed from a library kept up to date). */
  removeCounts(other: number, cjk: number): void {
    if (other > 0) this.other--;
    if (cjk > 0) this.cjk--;
    if (other > cjk) this.mainlyOther--;
    else if (cjk > other) this.mainlyCjk--;
  }

  counts(): ScriptChunks | undefined {
    if (this.mainlyOther < MIN_SCRIPT_CHUNKS || this.mainlyCjk < MIN_SCRIPT_CHUNKS) return undefined;
    return { other: this.other, cjk: this.cjk };
  }
}

/**
 * Whether a graph's options as stored (a bundle's or the store's: read, never trusted) name these per-script counts:
 * its concept table was chosen against the same N per script as this library's words are now counted (both
 * absent: one N). A table chosen otherwise is not this library's table, and the engine builds it again.
 */
export function sameScriptChunks(storedOptions: unknown, now: ScriptChunks | undefined): boolean {
  const stored =
    storedOptions && typeof storedOptions === 'object'
      ? (storedOptions as { scriptChunks?: unknown }).scriptChunks
      : undefined;
  if (stored === undefined || now === undefined) return stored === now;
  if (!stored || typeof stored !== 'object') return false;
  const s = stored as Record<string, unknown>;
  return s.other === now.other && s.cjk === now.cjk;
}

/** A chunk's text words by script, [other, cjk], as Bm25Index.countByScript counts them (IncrementalChunk.scripts). */
export function scriptCountsOf(terms: Iterable<string>): [number, number] {
  let other = 0;
  let cjk = 0;
  for (const t of terms) {
    if (isCjkTerm(t)) cjk++;
    else other++;
  }
  return [other, cjk];
}
