// The lexical concept graph kept up to date as documents come and go, instead of rebuilt from the whole library
// after every batch. snapshot() gives exactly what buildLexicalGraph gives for the same chunks (same concept ids,
// same table, same edge arrays bit for bit; PageRank warm-started from the previous ranks, so equal within the
// iteration's tolerance). This is the lexical layer; the semantic layer (concept vectors, θsem-filtered edges) is
// added to a snapshot in full (its concept vectors and keep-mask: semanticCompactGraph, from
// src/services/ingest/graphBuild.ts).
//
// Why it is exact although the concept set depends on the whole library: with conceptsPerChunk = 0 (the product's
// setting) a term is a concept iff 1 ≤ df ≤ maxDf(N), and then T(c) is every chunk containing it. So the state is
// kept per term, for every term (postings, df), not per concept. After a batch, a term's concept status can change
// only if its df changed (it is in the batch) or maxDf(N) moved past its df; terms are bucketed by df, so the
// second kind is found by looking up the df values between the old and the new cap. Co-occurrence counts are kept
// for concept pairs only:
//   - a pair of concepts that stay concepts changes by ±1 for every added/removed chunk holding both;
//   - a term that becomes a concept gets its counts with every concept recounted from its postings (≈ df × terms per
//     chunk: a few thousand steps for a term at the cap);
//   - a term that stops being a concept is just no longer listed; should it come back, its recount supersedes its
//     old counts (each stored count carries the batch that wrote it, and a count older than a term's latest entry
//     into the concept set is ignored).
// Counts live in the previous snapshot's CSR (the "base", every pair with Co ≥ 1) plus a hash table of pairs
// changed since. snapshot() merges the two into new canonical arrays (ids sorted by term and by chunk id, as a
// fresh build numbers them): one linear pass over the edges, no pair counting, no text analysis. That merge is the
// compaction; a batch that changes more than a quarter of the library is recounted from the term state instead.
//
// Adding or removing a document costs a small fraction of a full build; the snapshot after it is most of the
// refresh, nearly all of it writing the edge arrays anew in sorted ids and one PageRank sweep — the engine's CSR
// form needs new arrays whenever a concept id shifts (test/bench/graph-update.ts prints the figures;
// docs/results/indexing-speed.md). The state shares the snapshot's arrays with the engine as its base, so its own
// memory is small beside them. Terms whose df falls to 0 keep their id until the state is stored and restored
// (toJSON drops them).
import { isCjkTerm, sameScriptChunks, ScriptTally, type ScriptChunks } from '../text/index.ts';
import { dfCap, sameItems, type ConceptTable } from './concepts.ts';
import { buildCooccurrenceGraph, findEdge as findInRow, type ConceptGraph } from './cooccurrence.ts';
import { withRanks, type ConceptGraphIndex, type GraphOptions } from './conceptGraph.ts';
import { PairTable } from './pairTable.ts';

/** One chunk as the graph needs it: its id (sorted like the engine's chunk order), document, and concept terms. */
export interface IncrementalChunk {
  id: string;
  docId: string;
  /**
   * The chunk's concept terms with repetitions, analysed exactly as a full build does (conceptTerms(analyzer,
   * text, params.phrases)): index terms plus, with phrases on, capitalized phrases.
   */
  terms: readonly string[];
  /**
   * The chunk's text words by script, [other, cjk] (scriptCountsOf of its BM25 terms): required with
   * options.scriptStatistics, from which the library's per-script N are counted as Bm25Index.countByScript does.
   */
  scripts?: readonly [number, number];
}

/** Structured-clone-safe state for IndexedDB: the per-chunk term counts (the rest is derived from them). */
export interface IncrementalGraphState {
  format: 'conceptrag-incremental-graph';
  version: 1;
  options: GraphOptions;
  /** Terms that occur in at least one chunk; chunkTermIds index this list. */
  terms: string[];
  chunkIds: string[];
  docIds: string[];
  /** Terms of chunk k: chunkTermIds[chunkTermOffsets[k] .. chunkTermOffsets[k+1]) with their counts. */
  chunkTermOffsets: Uint32Array;
  chunkTermIds: Uint32Array;
  chunkTermFreqs: Uint32Array;
  /** With options.scriptStatistics: each chunk's [other, cjk] word counts (IncrementalChunk.scripts), 2 per chunk. */
  chunkScripts?: Uint32Array;
}

/** Where the last snapshot spent its time, in milliseconds. */
export interface SnapshotTimings {
  /** Concept order, chunk order and the concept table. */
  tableMs: number;
  /** Co-occurrence pairs: merged with the base, or recounted. */
  pairsMs: number;
  /** Global PageRank (warm-started when there was a previous snapshot) and chunk ranks. */
  rankMs: number;
  recounted: boolean;
}

export interface IncrementalStats {
  chunks: number;
  documents: number;
  /** Distinct terms of the library (concept candidates). */
  terms: number;
  concepts: number;
  /** Concept pairs changed since the last snapshot (the size of the next merge's change list). */
  pendingPairs: number;
  /** True when the next snapshot recounts every pair (no base yet, or a batch too large to track by pair). */
  recountPending: boolean;
  /** Bytes of typed arrays held (base CSR, hash table, per-chunk terms); strings and maps come on top. */
  typedBytes: number;
}

/** A batch touching more than this share of the library is recounted at the next snapshot, not tracked by pair. */
const RECOUNT_SHARE = 0.25;

interface Base {
  /** Every concept pair with Co ≥ 1 at the last snapshot, in that snapshot's concept ids. */
  pairs: ConceptGraph;
  /** Snapshot concept id → term id. */
  termOf: Uint32Array;
  /** Snapshot chunk order. */
  chunkIds: string[];
  /** Global ranks of that snapshot (warm start of the next PageRank). */
  conceptRank: Float64Array;
}

/**
 * Held by the ingest pipeline between batches: addChunks(new chunks' concept terms) after a drop,
 * removeDocument(docId) when a document goes, snapshot() when the engine should see the change (the result is a
 * ConceptGraphIndex like buildLexicalGraph's; the store keeps serializeGraph of it). Between
 * sessions: toJSON() to store, fromJSON(state, deserializeGraph(stored graph)) to resume without a recount.
 */
export class IncrementalConceptGraph {
  readonly options: GraphOptions;
  // Term state, indexed by term id (ids are never reused; terms whose df fell to 0 are dropped by toJSON).
  private readonly termIds = new Map<string, number>();
  private readonly termText: string[] = [];
  private readonly df: number[] = [];
  private readonly postings: number[][] = [];
  private concept = new Uint8Array(64);
  /** Batch in which the term last became a concept (0 = never since it was created or since the base). */
  private enteredAt = new Uint32Array(64);
  /** 1 iff the term was a concept at the base snapshot and has not left and re-entered since: its base row holds. */
  private baseValid = new Uint8Array(64);
  /** Concept id of the term in the base snapshot, or -1. */
  private baseId = new Int32Array(64).fill(-1);
  /** df → terms with that df, to find the terms a moved cap flips. */
  private readonly byDf = new Map<number, Set<number>>();
  // Chunk state, by slot (slots of removed chunks are reused).
  private readonly slotOf = new Map<string, number>();
  private readonly slotId: string[] = [];
  private readonly slotDoc: string[] = [];
  private readonly slotTerms: Uint32Array[] = [];
  private readonly slotFreqs: Uint32Array[] = [];
  private readonly freeSlots: number[] = [];
  /** Each slot's [other, cjk] text words (options.scriptStatistics), and their tally over the chunks held. */
  private readonly slotScripts: Array<readonly [number, number]> = [];
  private readonly scriptTally = new ScriptTally();
  private readonly docSlots = new Map<string, Set<number>>();
  private chunkCount = 0;
  // Change tracking since the last snapshot.
  private base: Base | undefined;
  private readonly pairs = new PairTable();
  private batch = 0;
  private changedChunks = 0;
  private recount = true;
  private readonly addedIds = new Set<string>();
  private readonly enteredTerms = new Set<number>();
  private latest: ConceptGraphIndex | undefined;
  /** Timings of the last snapshot that computed anything. */
  lastSnapshot: SnapshotTimings | undefined;

  constructor(options: GraphOptions) {
    if (options.conceptsPerChunk !== 0) {
      // Top-K per chunk ranks terms by tf·ln(N/df): every N changes every chunk's choice, nothing is local.
      throw new Error(
        `incremental concept graph: needs conceptsPerChunk = 0 (every term under the cap), got ${options.conceptsPerChunk}`,
      );
    }
    if (!(options.maxDfFraction > 0 && options.maxDfFraction <= 1)) {
      throw new Error(
        `incremental concept graph: maxDfFraction must be in (0, 1], got ${options.maxDfFraction}`,
      );
    }
    if (!(options.thetaCo >= 1)) {
      throw new Error(`incremental concept graph: θco must be ≥ 1, got ${options.thetaCo}`);
    }
    this.options = options;
  }

  /** Chunks held now. */
  get size(): number {
    return this.chunkCount;
  }

  has(chunkId: string): boolean {
    return this.slotOf.has(chunkId);
  }

  /** Adds chunks (ids not yet present). Work: the chunks' terms and pairs, plus recounts of terms that flip in. */
  addChunks(chunks: readonly IncrementalChunk[]): void {
    const seen = new Set<string>();
    for (const c of chunks) {
      if (this.slotOf.has(c.id) || seen.has(c.id)) {
        throw new Error(`incremental concept graph: chunk "${c.id}" is already in the graph`);
      }
      seen.add(c.id);
    }
    this.applyBatch(chunks, []);
  }

  /** Removes every chunk of a document; returns how many there were. */
  removeDocument(docId: string): number {
    const slots = this.docSlots.get(docId);
    if (!slots || slots.size === 0) return 0;
    const list = [...slots];
    this.applyBatch([], list);
    return list.length;
  }

  /** Removes chunks by id (unknown ids are ignored); returns how many were removed. */
  removeChunks(ids: readonly string[]): number {
    const slots = new Set<number>();
    for (const id of ids) {
      const s = this.slotOf.get(id);
      if (s !== undefined) slots.add(s);
    }
    if (slots.size > 0) this.applyBatch([], [...slots]);
    return slots.size;
  }

  /** The largest df a concept may have with n chunks: the same rule as extractConcepts. */
  private maxDf(n: number): number {
    return dfCap(this.options.maxDfFraction, n, this.options.minDfCap);
  }

  /** The per-script chunk counts of the chunks held (scriptStatistics and two scripts), else undefined: one N. */
  private scriptChunks(): ScriptChunks | undefined {
    return this.options.scriptStatistics ? this.scriptTally.counts() : undefined;
  }

  /** The cap of each script's terms now: per script as extractConcepts' scriptStatistics, else one for both. */
  private caps(): { other: number; cjk: number } {
    const scripts = this.scriptChunks();
    if (!scripts) {
      const cap = this.maxDf(this.chunkCount);
      return { other: cap, cjk: cap };
    }
    return { other: this.maxDf(scripts.other), cjk: this.maxDf(scripts.cjk) };
  }

  /** Whether term t is a concept under these caps: in at least one chunk and at most its script's cap. */
  private isConcept(t: number, caps: { other: number; cjk: number }): 0 | 1 {
    const cap = isCjkTerm(this.termText[t]) ? caps.cjk : caps.other;
    return this.df[t] >= 1 && this.df[t] <= cap ? 1 : 0;
  }

  private applyBatch(added: readonly IncrementalChunk[], removed: readonly number[]): void {
    this.latest = undefined;
    const batch = ++this.batch;
    const oldCaps = this.caps();
    const touched = new Set<number>();
    const removedTerms: Uint32Array[] = [];
    for (const slot of removed) {
      const terms = this.slotTerms[slot];
      removedTerms.push(terms);
      for (const t of terms) {
        this.setDf(t, this.df[t] - 1);
        removeValue(this.postings[t], slot);
        touched.add(t);
      }
      const id = this.slotId[slot];
      this.slotOf.delete(id);
      this.addedIds.delete(id);
      this.docSlots.get(this.slotDoc[slot])!.delete(slot);
      if (this.docSlots.get(this.slotDoc[slot])!.size === 0) this.docSlots.delete(this.slotDoc[slot]);
      this.slotTerms[slot] = new Uint32Array(0);
      this.slotFreqs[slot] = new Uint32Array(0);
      if (this.options.scriptStatistics) this.scriptTally.removeCounts(...this.slotScripts[slot]);
      this.freeSlots.push(slot);
      this.chunkCount--;
    }
    const addedSlots: number[] = [];
    for (const c of added) {
      if (this.options.scriptStatistics && !c.scripts)
        throw new Error(`incremental concept graph: chunk "${c.id}" without its words by script`);
      const counts = new Map<number, number>();
      for (const term of c.terms) {
        const t = this.intern(term);
        counts.set(t, (counts.get(t) ?? 0) + 1);
      }
      const ids = Uint32Array.from(counts.keys()).sort();
      const freqs = Uint32Array.from(ids, (t) => counts.get(t)!);
      const slot = this.freeSlots.pop() ?? this.slotId.length;
      this.slotId[slot] = c.id;
      this.slotDoc[slot] = c.docId;
      this.slotTerms[slot] = ids;
      this.slotFreqs[slot] = freqs;
      if (this.options.scriptStatistics) {
        this.slotScripts[slot] = c.scripts!;
        this.scriptTally.addCounts(...c.scripts!);
      }
      this.slotOf.set(c.id, slot);
      this.addedIds.add(c.id);
      let doc = this.docSlots.get(c.docId);
      if (!doc) this.docSlots.set(c.docId, (doc = new Set()));
      doc.add(slot);
      for (const t of ids) {
        this.setDf(t, this.df[t] + 1);
        this.postings[t].push(slot);
        touched.add(t);
      }
      addedSlots.push(slot);
      this.chunkCount++;
    }
    // Concept status: terms whose df changed, and terms whose (unchanged) df a cap moved past (each script's, which
    // are one cap with one N).
    const newCaps = this.caps();
    const candidates = touched;
    for (const script of ['other', 'cjk'] as const) {
      const [oldCap, newCap] = [oldCaps[script], newCaps[script]];
      for (let d = Math.min(oldCap, newCap) + 1; d <= Math.max(oldCap, newCap); d++) {
        for (const t of this.byDf.get(d) ?? []) candidates.add(t);
      }
    }
    const entered: number[] = [];
    for (const t of candidates) {
      const now = this.isConcept(t, newCaps);
      if (now === this.concept[t]) continue;
      this.concept[t] = now;
      if (now) {
        entered.push(t);
        this.enteredAt[t] = batch;
        this.baseValid[t] = 0;
        this.enteredTerms.add(t);
      }
    }

    this.changedChunks += added.length + removed.length;
    if (!this.recount && this.changedChunks > RECOUNT_SHARE * Math.max(this.chunkCount, 1)) {
      // A large batch: counting its pairs one by one costs more than recounting everything once at the snapshot.
      this.recount = true;
      this.pairs.clear();
    }
    if (this.recount) return;

    // Pairs of concepts that were and still are concepts: ±1 per chunk holding both.
    for (const terms of removedTerms) this.shiftPairs(terms, -1, batch);
    for (const slot of addedSlots) this.shiftPairs(this.slotTerms[slot], +1, batch);
    // Terms that became concepts: their counts with every concept, from their postings.
    if (entered.length > 0) this.recountTerms(entered, batch);
    if (this.base && this.pairs.size > this.base.pairs.targets.length / 4) {
      this.recount = true;
      this.pairs.clear();
    }
  }

  private setDf(t: number, d: number): void {
    const old = this.df[t];
    if (old > 0) this.byDf.get(old)!.delete(t);
    this.df[t] = d;
    if (d > 0) {
      let set = this.byDf.get(d);
      if (!set) this.byDf.set(d, (set = new Set()));
      set.add(t);
    }
  }

  private intern(term: string): number {
    let t = this.termIds.get(term);
    if (t !== undefined) return t;
    t = this.termText.length;
    this.termIds.set(term, t);
    this.termText.push(term);
    this.df.push(0);
    this.postings.push([]);
    if (t >= this.concept.length) {
      const size = this.concept.length * 2;
      this.concept = growU8(this.concept, size);
      this.baseValid = growU8(this.baseValid, size);
      const enteredAt = new Uint32Array(size);
      enteredAt.set(this.enteredAt);
      this.enteredAt = enteredAt;
      const baseId = new Int32Array(size).fill(-1);
      baseId.set(this.baseId);
      this.baseId = baseId;
    }
    return t;
  }

  /** Current Co of two concepts: the pair table if its entry is newer than both terms' entry, else the base. */
  private co(a: number, b: number): number {
    const slot = this.pairs.find(a, b);
    if (slot >= 0) {
      const stamp = this.pairs.stamp(slot);
      if (stamp >= this.enteredAt[a] && stamp >= this.enteredAt[b]) return this.pairs.count(slot);
    }
    if (this.base && this.baseValid[a] && this.baseValid[b]) {
      const e = findInRow(this.base.pairs, this.baseId[a], this.baseId[b]);
      if (e >= 0) return this.base.pairs.co[e];
    }
    return 0;
  }

  private shiftPairs(terms: Uint32Array, delta: number, batch: number): void {
    const stay: number[] = [];
    for (const t of terms) if (this.concept[t] && this.enteredAt[t] !== batch) stay.push(t);
    for (let i = 0; i < stay.length; i++) {
      for (let j = i + 1; j < stay.length; j++) {
        const a = stay[i];
        const b = stay[j];
        this.pairs.set(a, b, this.co(a, b) + delta, batch);
      }
    }
  }

  private recountTerms(entered: readonly number[], batch: number): void {
    const counts = new Uint32Array(this.termText.length);
    const hit: number[] = [];
    for (const u of entered) {
      for (const slot of this.postings[u]) {
        for (const v of this.slotTerms[slot]) {
          if (v === u || !this.concept[v]) continue;
          if (counts[v]++ === 0) hit.push(v);
        }
      }
      for (const v of hit) {
        this.pairs.set(u, v, counts[v], batch);
        counts[v] = 0;
      }
      hit.length = 0;
    }
  }

  /** The graph as a fresh buildLexicalGraph over the chunks held now would give it (ranks warm-started). */
  snapshot(): ConceptGraphIndex {
    if (this.latest) return this.latest;
    let t0 = performance.now();
    const conceptTerms = this.sortedConcepts();
    const nc = conceptTerms.length;
    const newId = new Int32Array(this.termText.length).fill(-1);
    for (let c = 0; c < nc; c++) newId[conceptTerms[c]] = c;
    const chunkIds = this.sortedChunkIds();
    const table = this.table(chunkIds, conceptTerms, newId);

    const tableMs = performance.now() - t0;
    t0 = performance.now();
    const recounted = this.recount || !this.base;
    let pairs: ConceptGraph;
    if (recounted) {
      pairs = buildCooccurrenceGraph(table, 1);
    } else {
      pairs = this.mergePairs(conceptTerms, newId, table);
    }
    const cooccurrence = withThetaCo(pairs, this.options.thetaCo);
    const pairsMs = performance.now() - t0;
    t0 = performance.now();

    // Warm start: each concept's previous rank (new concepts get the uniform share), renormalized.
    let initial: Float64Array | undefined;
    if (this.base && nc > 0) {
      initial = new Float64Array(nc).fill(1 / nc);
      const prev = this.base.conceptRank;
      for (let c = 0; c < nc; c++) {
        const old = this.baseId[conceptTerms[c]];
        if (old >= 0 && old < prev.length) initial[c] = prev[old];
      }
      let sum = 0;
      for (let c = 0; c < nc; c++) sum += initial[c];
      if (sum > 0) for (let c = 0; c < nc; c++) initial[c] /= sum;
    }
    // As the engine's build: the options say the per-script counts the table was chosen with (sameScriptChunks).
    const scripts = this.scriptChunks();
    const options = scripts ? { ...this.options, scriptChunks: scripts } : this.options;
    const index = withRanks({ chunkIds, table, cooccurrence, graph: cooccurrence, options }, initial);
    this.lastSnapshot = { tableMs, pairsMs, rankMs: performance.now() - t0, recounted };

    // The snapshot becomes the base of the next merge.
    for (let t = 0; t < this.termText.length; t++) {
      this.baseId[t] = newId[t];
      this.baseValid[t] = newId[t] >= 0 ? 1 : 0;
    }
    this.base = { pairs, termOf: conceptTerms, chunkIds, conceptRank: index.conceptRank };
    this.pairs.clear();
    this.addedIds.clear();
    this.enteredTerms.clear();
    this.changedChunks = 0;
    this.recount = false;
    this.latest = index;
    return index;
  }

  /** Concept term ids in term order: the base's order with leavers dropped and newcomers merged in. */
  private sortedConcepts(): Uint32Array {
    const text = this.termText;
    if (!this.base || this.recount) {
      const all: number[] = [];
      for (let t = 0; t < text.length; t++) if (this.concept[t]) all.push(t);
      all.sort((a, b) => compare(text[a], text[b]));
      return Uint32Array.from(all);
    }
    const fresh = [...this.enteredTerms]
      .filter((t) => this.concept[t] && this.baseId[t] < 0)
      .sort((a, b) => compare(text[a], text[b]));
    const old = this.base.termOf;
    const out: number[] = [];
    let i = 0;
    let j = 0;
    while (i < old.length || j < fresh.length) {
      if (i < old.length && !this.concept[old[i]]) {
        i++;
        continue;
      }
      if (j >= fresh.length || (i < old.length && text[old[i]] < text[fresh[j]])) out.push(old[i++]);
      else out.push(fresh[j++]);
    }
    return Uint32Array.from(out);
  }

  /** Chunk ids sorted: the base's order minus removed chunks, with added ones merged in. */
  private sortedChunkIds(): string[] {
    if (!this.base) return [...this.slotOf.keys()].sort(compare);
    const old = this.base.chunkIds.filter((id) => this.slotOf.has(id));
    const fresh = [...this.addedIds].sort(compare);
    const out: string[] = [];
    let i = 0;
    let j = 0;
    while (i < old.length || j < fresh.length) {
      let next: string;
      if (j >= fresh.length || (i < old.length && old[i] <= fresh[j])) next = old[i++];
      else next = fresh[j++];
      // A chunk removed and added again since the base is in both lists.
      if (out.length === 0 || out[out.length - 1] !== next) out.push(next);
    }
    return out;
  }

  /** The concept table in canonical ids, as extractConcepts computes it (same expressions, so same floats). */
  private table(chunkIds: readonly string[], conceptTerms: Uint32Array, newId: Int32Array): ConceptTable {
    const n = chunkIds.length;
    const nc = conceptTerms.length;
    const chunkConceptOffsets = new Uint32Array(n + 1);
    const slots = new Uint32Array(n);
    let total = 0;
    for (let k = 0; k < n; k++) {
      const slot = this.slotOf.get(chunkIds[k])!;
      slots[k] = slot;
      for (const t of this.slotTerms[slot]) if (newId[t] >= 0) total++;
      chunkConceptOffsets[k + 1] = total;
    }
    const chunkConcepts = new Uint32Array(total);
    const chunkConceptWeights = new Float32Array(total);
    const degree = new Uint32Array(nc);
    // Each term's N: its script's chunks where the library counts by script (extractConcepts' scriptStatistics).
    const scripts = this.scriptChunks();
    const nOf = (t: number): number =>
      scripts ? (isCjkTerm(this.termText[t]) ? scripts.cjk : scripts.other) : n;
    // tf of each term of the chunk at hand, looked up after its concept ids are sorted.
    const tf = new Uint32Array(this.termText.length);
    for (let k = 0; k < n; k++) {
      const terms = this.slotTerms[slots[k]];
      const freqs = this.slotFreqs[slots[k]];
      const from = chunkConceptOffsets[k];
      let o = from;
      for (let i = 0; i < terms.length; i++) {
        const c = newId[terms[i]];
        if (c < 0) continue;
        chunkConcepts[o++] = c;
        tf[terms[i]] = freqs[i];
      }
      chunkConcepts.subarray(from, o).sort();
      for (let i = from; i < o; i++) {
        const c = chunkConcepts[i];
        const t = conceptTerms[c];
        chunkConceptWeights[i] = tf[t] * Math.log(nOf(t) / this.df[t]);
        degree[c]++;
      }
    }
    const conceptChunkOffsets = new Uint32Array(nc + 1);
    for (let c = 0; c < nc; c++) conceptChunkOffsets[c + 1] = conceptChunkOffsets[c] + degree[c];
    const fill = conceptChunkOffsets.slice(0, nc);
    const conceptChunks = new Uint32Array(total);
    for (let k = 0; k < n; k++) {
      for (let i = chunkConceptOffsets[k]; i < chunkConceptOffsets[k + 1]; i++) {
        conceptChunks[fill[chunkConcepts[i]]++] = k;
      }
    }
    const idf = new Float32Array(nc);
    const terms = new Array<string>(nc);
    for (let c = 0; c < nc; c++) {
      idf[c] = Math.log(nOf(conceptTerms[c]) / this.df[conceptTerms[c]]);
      terms[c] = this.termText[conceptTerms[c]];
    }
    return {
      chunkCount: n,
      terms,
      idf,
      ...(scripts && { scriptChunks: scripts }),
      conceptChunkOffsets,
      conceptChunks,
      chunkConceptOffsets,
      chunkConcepts,
      chunkConceptWeights,
    };
  }

  /**
   * Every concept pair with Co ≥ 1 in canonical ids, with Dice weights: each row is the base row (ids remapped —
   * the remap keeps order, both numberings being by term) merged with the pairs changed since, which override it.
   * Rows without a change (nearly all of them) are one tight remapping loop.
   */
  private mergePairs(conceptTerms: Uint32Array, newId: Int32Array, table: ConceptTable): ConceptGraph {
    const base = this.base!;
    const nc = conceptTerms.length;
    // Changed pairs that still count, both directions, sorted by (row, target).
    const keys: number[] = [];
    const values: number[] = [];
    this.pairs.forEach((a, b, count, stamp) => {
      if (!this.concept[a] || !this.concept[b]) return;
      if (stamp < this.enteredAt[a] || stamp < this.enteredAt[b]) return;
      const u = newId[a];
      const v = newId[b];
      keys.push(u * nc + v, v * nc + u);
      values.push(count, count);
    });
    const order = Uint32Array.from(keys.keys()).sort((i, j) => keys[i] - keys[j]);
    const changeRow = new Uint32Array(order.length + 1).fill(nc);
    const changeTarget = new Uint32Array(order.length);
    const changeCount = new Uint32Array(order.length);
    for (let i = 0; i < order.length; i++) {
      const key = keys[order[i]];
      changeRow[i] = Math.floor(key / nc);
      changeTarget[i] = key - changeRow[i] * nc;
      changeCount[i] = values[order[i]];
    }
    // Old concept id → new id, or -1 when its base counts no longer hold (it left, or left and came back).
    const old = base.pairs;
    const oldToNew = new Int32Array(old.nodeCount).fill(-1);
    for (let o = 0; o < old.nodeCount; o++) {
      const t = base.termOf[o];
      if (this.baseValid[t] && this.concept[t]) oldToNew[o] = newId[t];
    }
    const oldTargets = old.targets;
    const oldCo = old.co;
    // Exact size first, so the arrays need no trimming copy, without a pass over the edges: the base pairs, minus
    // the entries of dropped concepts (their rows, and by symmetry as many entries naming them in other rows, the
    // pairs of two dropped concepts counted once), then each change adds its pair if its count is above 0 and
    // takes back the base pair it overrides.
    let size = oldTargets.length;
    for (let o = 0; o < old.nodeCount; o++) {
      if (oldToNew[o] >= 0) continue;
      size -= 2 * (old.offsets[o + 1] - old.offsets[o]);
      for (let e = old.offsets[o]; e < old.offsets[o + 1]; e++) if (oldToNew[oldTargets[e]] < 0) size++;
    }
    for (let i = 0; i < order.length; i++) {
      if (changeCount[i] > 0) size++;
      const a = conceptTerms[changeRow[i]];
      const b = conceptTerms[changeTarget[i]];
      if (this.baseValid[a] && this.baseValid[b] && findInRow(old, this.baseId[a], this.baseId[b]) >= 0)
        size--;
    }
    // |T(v)| per concept, to weigh edges as buildCooccurrenceGraph does (integers: the same float result).
    const dfOf = new Float64Array(nc);
    for (let c = 0; c < nc; c++) dfOf[c] = table.conceptChunkOffsets[c + 1] - table.conceptChunkOffsets[c];
    const offsets = new Uint32Array(nc + 1);
    const targets = new Uint32Array(size);
    const co = new Uint32Array(size);
    const weights = new Float32Array(size);
    let m = 0;
    let p = 0;
    for (let u = 0; u < nc; u++) {
      const t = conceptTerms[u];
      const tu = dfOf[u];
      let e = 0;
      let end = 0;
      if (this.baseValid[t]) {
        const ou = this.baseId[t];
        e = old.offsets[ou];
        end = old.offsets[ou + 1];
      }
      if (changeRow[p] !== u) {
        for (; e < end; e++) {
          const v = oldToNew[oldTargets[e]];
          if (v < 0) continue;
          targets[m] = v;
          co[m] = oldCo[e];
          weights[m++] = (2 * oldCo[e]) / (tu + dfOf[v]);
        }
      } else {
        for (;;) {
          while (e < end && oldToNew[oldTargets[e]] < 0) e++;
          const bv = e < end ? oldToNew[oldTargets[e]] : -1;
          const cv = changeRow[p] === u ? changeTarget[p] : -1;
          if (bv < 0 && cv < 0) break;
          let v: number;
          let count: number;
          if (cv >= 0 && (bv < 0 || cv <= bv)) {
            v = cv;
            count = changeCount[p++];
            if (bv === cv) e++;
          } else {
            v = bv;
            count = oldCo[e++];
          }
          if (count === 0) continue;
          targets[m] = v;
          co[m] = count;
          weights[m++] = (2 * count) / (tu + dfOf[v]);
        }
      }
      offsets[u + 1] = m;
    }
    if (m !== size) throw new Error(`incremental concept graph: merged ${m} edges, expected ${size}`);
    return { nodeCount: nc, offsets, targets, co, weights };
  }

  stats(): IncrementalStats {
    let concepts = 0;
    for (let t = 0; t < this.termText.length; t++) concepts += this.concept[t];
    let typedBytes =
      this.pairs.bytes +
      this.concept.byteLength +
      this.baseValid.byteLength +
      this.enteredAt.byteLength +
      this.baseId.byteLength;
    for (const a of this.slotTerms) typedBytes += a.byteLength;
    for (const a of this.slotFreqs) typedBytes += a.byteLength;
    if (this.base) {
      const g = this.base.pairs;
      typedBytes += g.offsets.byteLength + g.targets.byteLength + g.co.byteLength + g.weights.byteLength;
      typedBytes += this.base.termOf.byteLength + this.base.conceptRank.byteLength;
    }
    let terms = 0;
    for (const d of this.df) if (d > 0) terms++;
    return {
      chunks: this.chunkCount,
      documents: this.docSlots.size,
      terms,
      concepts,
      pendingPairs: this.pairs.size,
      recountPending: this.recount || !this.base,
      typedBytes,
    };
  }

  /**
   * The state to store between sessions: per-chunk term counts only (a few bytes per chunk term). The edges are
   * not in it: fromJSON takes the last stored snapshot to resume merging, or recounts once without one.
   */
  toJSON(): IncrementalGraphState {
    const live = new Int32Array(this.termText.length).fill(-1);
    const terms: string[] = [];
    for (let t = 0; t < this.termText.length; t++) {
      if (this.df[t] > 0) {
        live[t] = terms.length;
        terms.push(this.termText[t]);
      }
    }
    const chunkIds = [...this.slotOf.keys()].sort(compare);
    const docIds: string[] = [];
    const chunkTermOffsets = new Uint32Array(chunkIds.length + 1);
    chunkIds.forEach((id, k) => {
      const slot = this.slotOf.get(id)!;
      docIds.push(this.slotDoc[slot]);
      chunkTermOffsets[k + 1] = chunkTermOffsets[k] + this.slotTerms[slot].length;
    });
    const chunkTermIds = new Uint32Array(chunkTermOffsets[chunkIds.length]);
    const chunkTermFreqs = new Uint32Array(chunkTermIds.length);
    chunkIds.forEach((id, k) => {
      const slot = this.slotOf.get(id)!;
      const ids = this.slotTerms[slot];
      for (let i = 0; i < ids.length; i++) {
        chunkTermIds[chunkTermOffsets[k] + i] = live[ids[i]];
        chunkTermFreqs[chunkTermOffsets[k] + i] = this.slotFreqs[slot][i];
      }
    });
    const chunkScripts = this.options.scriptStatistics
      ? Uint32Array.from(chunkIds.flatMap((id) => this.slotScripts[this.slotOf.get(id)!]))
      : undefined;
    return {
      format: 'conceptrag-incremental-graph',
      version: 1,
      options: { ...this.options },
      terms,
      chunkIds,
      docIds,
      chunkTermOffsets,
      chunkTermIds,
      chunkTermFreqs,
      ...(chunkScripts && { chunkScripts }),
    };
  }

  /**
   * Restores a stored state. `previous` — the snapshot made from this state (e.g. deserializeGraph of the stored
   * graph) — becomes the base, so the next batch merges instead of recounting every pair; it is used only if its
   * chunks and concepts are exactly the state's and θco = 1 (a graph cut at θco > 1 lacks the pairs below it).
   */
  static fromJSON(state: IncrementalGraphState, previous?: ConceptGraphIndex): IncrementalConceptGraph {
    const fail = (why: string): never => {
      throw new Error(`incremental concept graph: cannot restore: ${why}`);
    };
    if (!state || state.format !== 'conceptrag-incremental-graph') fail('not an incremental graph state');
    if (state.version !== 1) fail(`unknown version ${String(state.version)}`);
    const n = state.chunkIds.length;
    if (state.docIds.length !== n || state.chunkTermOffsets.length !== n + 1) fail('chunk arrays');
    const links = state.chunkTermOffsets[n];
    if (state.chunkTermIds.length !== links || state.chunkTermFreqs.length !== links) fail('term arrays');
    const scripts = state.chunkScripts;
    if (state.options.scriptStatistics && !(scripts instanceof Uint32Array && scripts.length === 2 * n))
      fail('chunkScripts (two counts a chunk, with scriptStatistics)');
    const g = new IncrementalConceptGraph(state.options);
    for (const term of state.terms) g.intern(term);
    for (let k = 0; k < n; k++) {
      const from = state.chunkTermOffsets[k];
      const to = state.chunkTermOffsets[k + 1];
      const ids = state.chunkTermIds.slice(from, to);
      const freqs = state.chunkTermFreqs.slice(from, to);
      for (const t of ids) if (t >= state.terms.length) fail(`chunk ${k} names term ${t}`);
      const slot = g.slotId.length;
      const id = state.chunkIds[k];
      if (g.slotOf.has(id)) fail(`chunk "${id}" twice`);
      g.slotId.push(id);
      g.slotDoc.push(state.docIds[k]);
      g.slotTerms.push(ids);
      g.slotFreqs.push(freqs);
      if (scripts && g.options.scriptStatistics) {
        const counts = [scripts[2 * k], scripts[2 * k + 1]] as const;
        g.slotScripts[slot] = counts;
        g.scriptTally.addCounts(...counts);
      }
      g.slotOf.set(id, slot);
      let doc = g.docSlots.get(state.docIds[k]);
      if (!doc) g.docSlots.set(state.docIds[k], (doc = new Set()));
      doc.add(slot);
      for (const t of ids) {
        g.setDf(t, g.df[t] + 1);
        g.postings[t].push(slot);
      }
    }
    g.chunkCount = n;
    const caps = g.caps();
    for (let t = 0; t < g.termText.length; t++) g.concept[t] = g.isConcept(t, caps);
    for (const id of g.slotOf.keys()) g.addedIds.add(id);
    if (previous && g.options.thetaCo === 1) g.adopt(previous);
    return g;
  }

  /** Takes a snapshot of the current chunks as the base (see fromJSON); ignored if it does not match. */
  private adopt(previous: ConceptGraphIndex): void {
    // Built with other shaping options (a cap, a per-chunk limit or a θco that drops pairs): not our pairs.
    const made = previous.options;
    if (
      made.conceptsPerChunk !== 0 ||
      made.maxDfFraction !== this.options.maxDfFraction ||
      made.thetaCo !== 1 ||
      !sameScriptChunks(made, this.scriptChunks())
    ) {
      return;
    }
    const ids = [...this.slotOf.keys()].sort(compare);
    if (!sameItems(previous.chunkIds, ids)) return;
    const terms = previous.table.terms;
    const termOf = new Uint32Array(terms.length);
    for (let c = 0; c < terms.length; c++) {
      const t = this.termIds.get(terms[c]);
      if (t === undefined || !this.concept[t]) return;
      termOf[c] = t;
    }
    let concepts = 0;
    for (let t = 0; t < this.termText.length; t++) concepts += this.concept[t];
    if (concepts !== terms.length) return;
    for (let c = 0; c < terms.length; c++) {
      this.baseId[termOf[c]] = c;
      this.baseValid[termOf[c]] = 1;
    }
    this.base = {
      pairs: previous.cooccurrence,
      termOf,
      chunkIds: ids,
      conceptRank: previous.conceptRank,
    };
    this.addedIds.clear();
    this.recount = false;
  }
}

/** The edges with Co ≥ θco (all of them at θco = 1, the default: then the arrays are shared). */
function withThetaCo(pairs: ConceptGraph, thetaCo: number): ConceptGraph {
  if (thetaCo <= 1) return pairs;
  const offsets = new Uint32Array(pairs.nodeCount + 1);
  let m = 0;
  for (let e = 0; e < pairs.co.length; e++) if (pairs.co[e] >= thetaCo) m++;
  const targets = new Uint32Array(m);
  const co = new Uint32Array(m);
  const weights = new Float32Array(m);
  m = 0;
  for (let u = 0; u < pairs.nodeCount; u++) {
    for (let e = pairs.offsets[u]; e < pairs.offsets[u + 1]; e++) {
      if (pairs.co[e] < thetaCo) continue;
      targets[m] = pairs.targets[e];
      co[m] = pairs.co[e];
      weights[m++] = pairs.weights[e];
    }
    offsets[u + 1] = m;
  }
  return { nodeCount: pairs.nodeCount, offsets, targets, co, weights };
}

/** Code-unit order, as Array.prototype.sort() orders strings (the order a fresh build numbers concepts in). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function removeValue(list: number[], value: number): void {
  const i = list.lastIndexOf(value);
  if (i < 0) return;
  list[i] = list[list.length - 1];
  list.pop();
}

function growU8(a: Uint8Array, size: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(size);
  b.set(a);
  return b;
}
