// Okapi BM25 over the analysed terms of every chunk (k1 = 1.2, b = 0.75 by default): the lexical baseline and a
// fusion partner. Postings are CSR typed arrays; a query touches only its terms' postings.
import { STEM_PREFIX } from '../graph/index.ts';
import { isCjkTerm, ScriptTally, termChunkCount, type ScriptChunks } from '../text/index.ts';
import { addQueryScores } from './fieldScoring.ts';
import type { Candidate } from './types.ts';
import { topK } from './topk.ts';

/**
 * A builder's blocks of entries grow from 4,096 entries (a small library's 24 KB) by doubling up to 8 M (48 MB), then
 * stay at that size: no block is copied into a larger one, and a large library's blocks are each mapped and
 * unmapped whole by the allocator rather than carved from its heap, where freed ones would leave holes.
 */
const FIRST_BLOCK = 1 << 12;
const LARGEST_BLOCK = 1 << 23;
const EMPTY_IDS = new Uint32Array(0);
const EMPTY_TFS = new Uint16Array(0);

/**
 * Collects a corpus's terms chunk by chunk into flat arrays, so a caller can analyse one chunk, add it and drop its
 * terms: on a 16 MB library, holding every chunk's term list (5 M strings) and a Map of counts per chunk until the
 * index was built took more memory than the finished index and the concept graph together.
 */
export class Bm25Builder {
  readonly termIds = new Map<string, number>();
  private df: number[] = [];
  // The (term, tf) entries in blocks (FIRST_BLOCK, LARGEST_BLOCK) rather than one array doubled: a doubled array
  // holds up to twice the entries it needs, and both copies while it grows (at 1 GiB of text, ~109 M entries took a
  // 134 M array, 805 MB, and 1.2 GB while it grew); layout() lets each block go once it has read it.
  private idBlocks: Uint32Array[] = [];
  private tfBlocks: Uint16Array[] = [];
  /** The last block and the entries it holds. */
  private ids: Uint32Array = EMPTY_IDS;
  private tfs: Uint16Array = EMPTY_TFS;
  private inBlock = 0;
  private used = 0;
  private laidOut = false;
  /** Where each chunk's entries in ids/tfs end. */
  private readonly boundaries: number[] = [];
  private readonly lengths: number[] = [];
  private readonly counts = new Map<number, number>();

  /** Adds the next chunk's terms (chunks are numbered in the order they are added). */
  add(terms: readonly string[]): void {
    if (this.laidOut) throw new Error('bm25: a chunk added to a builder already laid out');
    const { counts, termIds, df } = this;
    // A chunk's length is its words as written: stems (analyser version 2) are a second reading of the same words.
    let length = 0;
    for (const t of terms) if (!t.startsWith(STEM_PREFIX)) length++;
    this.lengths.push(length);
    for (const t of terms) {
      let id = termIds.get(t);
      if (id === undefined) {
        id = df.length;
        termIds.set(t, id);
        df.push(0);
      }
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for (const [id, tf] of counts) {
      df[id]++;
      if (this.inBlock === this.ids.length) {
        const size = Math.min(FIRST_BLOCK * 2 ** this.idBlocks.length, LARGEST_BLOCK);
        this.idBlocks.push((this.ids = new Uint32Array(size)));
        this.tfBlocks.push((this.tfs = new Uint16Array(size)));
        this.inBlock = 0;
      }
      this.ids[this.inBlock] = id;
      this.tfs[this.inBlock++] = Math.min(tf, 65535);
      this.used++;
    }
    this.boundaries.push(this.used);
    counts.clear();
  }

  /**
   * The postings, by term, of every chunk added. Once only: the builder lets go of its entries as it lays them out
   * (the postings and the entries are the same size, and the two whole at once were the stream build's peak).
   */
  layout(): Omit<Bm25Parts, 'termIds'> {
    if (this.laidOut) throw new Error('bm25: a builder is laid out once');
    this.laidOut = true;
    const { df, idBlocks, tfBlocks, boundaries } = this;
    const offsets = new Uint32Array(df.length + 1);
    for (let t = 0; t < df.length; t++) offsets[t + 1] = offsets[t] + df[t];
    const postings = new Uint32Array(offsets[df.length]);
    const freqs = new Uint16Array(offsets[df.length]);
    const fill = offsets.slice(0, df.length);
    this.idBlocks = [];
    this.tfBlocks = [];
    this.ids = EMPTY_IDS;
    this.tfs = EMPTY_TFS;
    let block = 0;
    let ids: Uint32Array = EMPTY_IDS;
    let tfs: Uint16Array = EMPTY_TFS;
    let at = 0;
    let from = 0;
    boundaries.forEach((to, k) => {
      for (let i = from; i < to; i++) {
        if (at === ids.length) {
          ids = idBlocks[block];
          tfs = tfBlocks[block];
          // The block read before this one is let go (the postings hold its entries now).
          if (block > 0) {
            idBlocks[block - 1] = EMPTY_IDS;
            tfBlocks[block - 1] = EMPTY_TFS;
          }
          block++;
          at = 0;
        }
        const id = ids[at];
        postings[fill[id]] = k;
        freqs[fill[id]++] = tfs[at++];
      }
      from = to;
    });
    return { lengths: Float32Array.from(this.lengths), offsets, postings, freqs };
  }
}

/** An index's arrays (Bm25Builder.layout) and its term ids. */
interface Bm25Parts {
  termIds: Map<string, number>;
  lengths: Float32Array;
  offsets: Uint32Array;
  postings: Uint32Array;
  freqs: Uint16Array;
}

export class Bm25Index {
  private readonly termIds: Map<string, number>;
  private readonly offsets: Uint32Array;
  private readonly postings: Uint32Array;
  private readonly freqs: Uint16Array;
  private readonly lengths: Float32Array;
  private readonly avgLength: number;
  private readonly scores: Float32Array;
  readonly chunkCount: number;
  /** Whether IDFs are counted per script (countByScript), and the counts when the library is of two scripts. */
  private perScript = false;
  private scripts: ScriptChunks | undefined;

  /** From every chunk's terms, or from a builder they were added to one chunk at a time. */
  constructor(
    chunkTerms: readonly (readonly string[])[] | Bm25Builder | Bm25Parts,
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    if (!(k1 >= 0) || !(b >= 0 && b <= 1))
      throw new Error(`bm25: need k1 ≥ 0 and b in [0, 1], got ${k1}, ${b}`);
    let source = chunkTerms;
    if (Array.isArray(source)) {
      source = new Bm25Builder();
      for (const terms of chunkTerms as readonly (readonly string[])[]) source.add(terms);
    }
    const parts =
      source instanceof Bm25Builder ? { termIds: source.termIds, ...source.layout() } : (source as Bm25Parts);
    const { lengths, offsets, postings, freqs } = parts;
    this.termIds = parts.termIds;
    this.lengths = lengths;
    this.offsets = offsets;
    this.postings = postings;
    this.freqs = freqs;
    this.chunkCount = lengths.length;
    let total = 0;
    for (const n of lengths) total += n;
    this.avgLength = this.chunkCount ? total / this.chunkCount : 0;
    this.scores = new Float32Array(this.chunkCount);
  }

  /**
   * This index with chunks added among its own: `place[k]` is where its chunk k goes in the new numbering, and
   * `addedPlace[j]` where the j-th chunk added to `added` goes (both ascending). Only the added chunks were
   * analysed; every posting, length and document frequency is the one an index built over all the chunks in the
   * new order has, so every score is the same to the last bit (a library that gained documents keeps the analysis
   * of those it had: the query worker took 16 s at load 15–21 to analyse and index MuSiQue's 6,761 again).
   */
  extended(place: Uint32Array, added: Bm25Builder, addedPlace: Uint32Array): Bm25Index {
    const more = added.layout();
    const n = place.length + addedPlace.length;
    if (place.length !== this.chunkCount || addedPlace.length !== more.lengths.length)
      throw new Error(`bm25: ${place.length} places for ${this.chunkCount} chunks`);
    const lengths = new Float32Array(n);
    for (let k = 0; k < place.length; k++) lengths[place[k]] = this.lengths[k];
    for (let j = 0; j < addedPlace.length; j++) lengths[addedPlace[j]] = more.lengths[j];
    // Terms keep their ids; new ones follow (ids only name postings: no score depends on their order).
    const termIds = new Map(this.termIds);
    const fromAdded = new Uint32Array(added.termIds.size);
    for (const [term, id] of added.termIds) {
      let merged = termIds.get(term);
      if (merged === undefined) termIds.set(term, (merged = termIds.size));
      fromAdded[id] = merged;
    }
    const ownTerms = this.offsets.length - 1;
    const df = new Uint32Array(termIds.size);
    for (let t = 0; t < ownTerms; t++) df[t] = this.offsets[t + 1] - this.offsets[t];
    for (let t = 0; t < fromAdded.length; t++) df[fromAdded[t]] += more.offsets[t + 1] - more.offsets[t];
    const offsets = new Uint32Array(termIds.size + 1);
    for (let t = 0; t < df.length; t++) offsets[t + 1] = offsets[t] + df[t];
    const postings = new Uint32Array(offsets[df.length]);
    const freqs = new Uint16Array(offsets[df.length]);
    const addedOf = new Int32Array(termIds.size).fill(-1);
    for (let t = 0; t < fromAdded.length; t++) addedOf[fromAdded[t]] = t;
    for (let t = 0; t < df.length; t++) {
      // Two ascending lists, merged: the chunks this index had, renumbered, and the added ones.
      let i = t < ownTerms ? this.offsets[t] : 0;
      const iEnd = t < ownTerms ? this.offsets[t + 1] : 0;
      const a = addedOf[t];
      let j = a >= 0 ? more.offsets[a] : 0;
      const jEnd = a >= 0 ? more.offsets[a + 1] : 0;
      let out = offsets[t];
      while (i < iEnd || j < jEnd) {
        const own = i < iEnd ? place[this.postings[i]] : Infinity;
        const other = j < jEnd ? addedPlace[more.postings[j]] : Infinity;
        if (own < other) {
          postings[out] = own;
          freqs[out++] = this.freqs[i++];
        } else {
          postings[out] = other;
          freqs[out++] = more.freqs[j++];
        }
      }
    }
    const index = new Bm25Index({ termIds, lengths, offsets, postings, freqs }, this.k1, this.b);
    return this.perScript ? index.countByScript() : index;
  }

  /**
   * From now on a term's IDF is counted against the chunks of its script (text/scripts.ts), the counts read from
   * the postings: the chunks holding a term of each script and each chunk's main script by its terms as analysed.
   * A library of one script keeps the single N. Returns this index.
   */
  countByScript(): this {
    const n = this.chunkCount;
    const other = new Uint32Array(n);
    const cjk = new Uint32Array(n);
    for (const [term, id] of this.termIds) {
      const into = isCjkTerm(term) ? cjk : other;
      for (let i = this.offsets[id]; i < this.offsets[id + 1]; i++) into[this.postings[i]] += this.freqs[i];
    }
    const tally = new ScriptTally();
    for (let k = 0; k < n; k++) tally.addCounts(other[k], cjk[k]);
    this.perScript = true;
    this.scripts = tally.counts();
    return this;
  }

  /** The per-script chunk counts IDFs are computed against (undefined: one N for every term). */
  get scriptChunks(): ScriptChunks | undefined {
    return this.scripts;
  }

  /** The N of a term's IDF: the chunks of its script where the index counts by script, else every chunk. */
  chunkCountOf(term: string): number {
    return termChunkCount(term, this.chunkCount, this.scripts);
  }

  /** A term's postings (ascending chunk numbers) and its count in each, as views of the index's arrays. */
  postingsOf(term: string): { chunks: Uint32Array; freqs: Uint16Array } | undefined {
    const id = this.termIds.get(term);
    if (id === undefined) return undefined;
    const from = this.offsets[id];
    const to = this.offsets[id + 1];
    return { chunks: this.postings.subarray(from, to), freqs: this.freqs.subarray(from, to) };
  }

  /** Every term the index holds (in the order they were first seen). */
  terms(): IterableIterator<string> {
    return this.termIds.keys();
  }

  /** Number of terms of chunk k. */
  lengthOf(k: number): number {
    return this.lengths[k];
  }

  /** Robertson–Spärck Jones IDF with +1 inside the log (never negative, as in Lucene). */
  idf(term: string): number {
    const id = this.termIds.get(term);
    if (id === undefined) return 0;
    const df = this.offsets[id + 1] - this.offsets[id];
    return Math.log(1 + (this.chunkCountOf(term) - df + 0.5) / (df + 0.5));
  }

  /** Scores every chunk containing a query term (each distinct term once) and returns the best `limit`. */
  search(queryTerms: readonly string[], limit: number): Candidate[] {
    const { scores, offsets, postings, freqs, lengths, k1, b } = this;
    const touched: number[] = [];
    if (queryTerms.some((t) => t.startsWith(STEM_PREFIX))) {
      // Stems: scored where their word was not found (fieldBm25.ts), with the same arithmetic as below.
      const scoring = {
        copies: 0,
        n: this.chunkCount,
        nOf: this.scripts && ((t: string) => this.chunkCountOf(t)),
        lengths,
        norm: this.avgLength || 1,
        k1,
        b,
      };
      addQueryScores(queryTerms, (t) => [this.postingsOf(t), undefined], scoring, scores, touched);
    } else {
      for (const term of new Set(queryTerms)) {
        const id = this.termIds.get(term);
        if (id === undefined) continue;
        const w = this.idf(term);
        for (let i = offsets[id]; i < offsets[id + 1]; i++) {
          const k = postings[i];
          const tf = freqs[i];
          if (scores[k] === 0) touched.push(k);
          scores[k] += (w * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * lengths[k]) / (this.avgLength || 1)));
        }
      }
    }
    const best = topK(scores, limit, touched).map((k) => ({ chunk: k, score: scores[k] }));
    for (const k of touched) scores[k] = 0;
    return best;
  }
}
