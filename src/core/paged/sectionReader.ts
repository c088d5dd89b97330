// The sections of a pages part (format.ts) read by ranges: the word and concept dictionaries, the postings, each
// concept's chunk list, each chunk's concepts, the walk graph's rows computed from them, the degrees and the
// records. A read whose bytes are not loaded notes them in the block store and returns undefined; a run that read
// nothing missing is complete (readUntilComplete). Every count and offset that drives a loop or an allocation is
// checked against the bytes that hold it, and a refusal names the source and the part.
import { exactDegrees } from '../graph/index.ts';
import type { WalkDegrees } from '../graph/index.ts';
import { sharesOfCounts } from '../retrieval/index.ts';
import type { ConceptAccess, ConceptChunks, TermLookup } from '../retrieval/index.ts';
import { gunzipSync } from 'fflate';
import { BlockStore, decodeJson, gzipSize, PagesError } from './blockStore.ts';
import { checkConceptGroup, checkRecordGroup, checkTermGroup } from './groupShapes.ts';
import { ByteReader, readVarints } from './bytes.ts';
import { RecordSearch } from './recordSearch.ts';
import { decodeDictionary, decodeRecordGroup } from './recordCoding.ts';
import { decodeCountedRows, decodeRiceLists } from './listsInRows.ts';
import { leastListBytes, listBlockOf, listSpanOf, readListCounts, skipList } from './listPacking.ts';
import { degreeLower, degreeUpper, predicted } from './compactOpen.ts';
import { decodeEvidenceBlock } from './evidenceArrays.ts';
import { decodePostings, decodeVarintPostings } from './postingsCoding.ts';
import { decodeDelimitedRows, decodeRow } from './rowsCoding.ts';
import {
  minListBytes,
  recordGroupBytes,
  type OpenTables,
  type PagedChunkRecord,
  type PagesDirectory,
  type SectionName,
  type ShareParams,
  type TermEntry,
} from './format.ts';
import { messageOf } from '../errors.ts';
import { timelineMark } from './timeline.ts';

/** A question reads at most this many rounds of blocks (a walk reaches a new layer of concepts per round or two). */
const MAX_ROUNDS = 200;
/** Decoded posting lists, concept lists and walk rows kept between questions. */
const MAX_CACHED = 50_000;

const EMPTY_U32 = new Uint32Array(0);
const EMPTY_F32 = new Float32Array(0);
export const EMPTY_ROW = { targets: EMPTY_U32, weights: EMPTY_F32, degree: 0 };
const EMPTY_CHUNKS: ConceptChunks = { chunks: EMPTY_U32, tf: EMPTY_F32, shares: EMPTY_F32 };

/** What a read returns: its value, and the bytes, rounds and waiting it took. */
export interface PagedRead<T> {
  value: T;
  bytes: number;
  rounds: number;
  waitMs: number;
}
/** Concept u's row of the walk graph: its neighbours (ascending), their Dice weights, and its weighted degree. */
type WalkRow = { targets: Uint32Array; weights: Float32Array; degree: number };
/** A decoded group of the `rows` section: chunk i's concepts are ids[starts[i]..starts[i + 1]). */
interface RowGroup {
  starts: Uint32Array;
  ids: Uint32Array;
  /** Version 4's lists kept in the rows (listsInRows): the chunk's count of each concept, beside its id. */
  counts?: Uint32Array;
  /** Version 6's lists kept in the rows: the lists the group holds, which the rows were inverted from. */
  lists?: InvertedRows;
}

/** Every concept's chunks and counts, inverted from rows that keep the lists (listsInRows). */
interface InvertedRows {
  /** Concept c's entries are [offsets[c], offsets[c + 1]). */
  offsets: Uint32Array;
  chunks: Uint32Array;
  counts: Uint32Array;
}

export class SectionReader {
  private readonly lists = new Map<number, ConceptChunks>();
  private readonly postings = new Map<string, { chunks: Uint32Array; freqs: Uint16Array }>();
  private readonly rowCache = new Map<number, WalkRow>();

  /**
   * Version 9: the walk degree of each concept in one chunk (df 1) whose chunk's row has been decoded (noteSingles), −1
   * for the others; allocated at the first row group decoded (8 bytes a concept: 4.7 MB at 100 MiB). `open` holds no
   * code for such a concept, only a bound on them all (singleUpper). Kept for the library's life: a row group stays
   * decoded in the store between questions, and is not decoded again to tell them (a bounded map that forgot them
   * made later questions at 100 MiB read 27 KB more of lists, mean, for degrees their rows held).
   */
  private singles: Float64Array | undefined;
  /** Version 16: the row block rowGroupOf found last (a list's chunks ascend: the next is nearly always there or after). */
  private lastRowBlock = 0;
  /** Version 9: degreeUpper(open.singleCode), at least every one-chunk concept's degree; undefined before. */
  private readonly singleUpper: number | undefined;

  constructor(
    /** The source's name, which every refusal starts with. */
    readonly name: string,
    readonly store: BlockStore,
    readonly directory: PagesDirectory,
    readonly open: OpenTables,
  ) {
    store.onArrival = () => this.computeWaitingRows();
    this.singleUpper = open.singleCode === undefined ? undefined : degreeUpper(open.singleCode);
  }

  /**
   * Concepts whose walk row a run asked for while its list or a row group of its chunks was missing: each is
   * computed as soon as what it needs has arrived, between the responses of the load that brings it (BlockStore
   * onArrival), rather than in the run after the load, so that the co-occurrence counting of a layer of the walk
   * overlaps the transfer of its rows (at 100 MiB a layer's rows are 1–3 MB, seconds at 10 Mbit/s).
   */
  private readonly waitingRows = new Map<number, number>();

  get chunkCount(): number {
    return this.directory.chunkCount;
  }

  /** Chunk id → index of the chunks this library has shown (records know their index only by position). */
  readonly chunkIndex = new Map<string, number>();

  /** The record group of chunks found by id before (recordsById). */
  private readonly groupOfId = new Map<string, number>();

  /** Version 10: the records' dictionary, once read (recordDictionary). */
  private dictionary: Uint8Array | undefined;

  /** The lists inverted from the rows, when the rows keep them (listsInRows), once the rows are read. */
  private inverted: InvertedRows | undefined;

  /** Scratch co-occurrence counts per concept for walkRow (allocated at the first walk). */
  private coCounts: Uint32Array | undefined;

  /**
   * Runs `run` over what is loaded until a run reads nothing missing, counting what it read; `beforeLoad` may read
   * first between two runs (a question's early words), told what was read so far `step` loads into the round.
   */
  async readUntilComplete<T>(
    run: () => T,
    signal?: AbortSignal,
    what = 'the graph view',
    beforeLoad?: (readSoFar: (step: number) => Omit<PagedRead<T>, 'value'>) => Promise<void>,
  ): Promise<PagedRead<T>> {
    this.store.trim();
    // Rows a read before this one waited for are not computed for this one unless it asks for them too.
    this.waitingRows.clear();
    const before = this.store.bytesRead;
    let waitMs = 0;
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      signal?.throwIfAborted();
      timelineMark('run', { round });
      const value = run();
      timelineMark('ran', { round, noted: this.store.noted });
      if (!this.store.missing) return { value, bytes: this.store.bytesRead - before, rounds: round, waitMs };
      const waited = performance.now();
      await beforeLoad?.((step) => ({
        bytes: this.store.bytesRead - before,
        rounds: round + step,
        waitMs: waitMs + performance.now() - waited,
      }));
      await this.store.load();
      waitMs += performance.now() - waited;
    }
    throw new Error(`${this.name}: ${what} needed more than ${MAX_ROUNDS} rounds of reads`);
  }

  /** What `run` returns when it read nothing missing (what it missed is noted for the next round), else undefined. */
  completeRun<T>(run: () => T): T | undefined {
    const misses = this.store.misses;
    timelineMark('run', { round: 0 });
    const value = run();
    timelineMark('ran', { round: 0, noted: this.store.noted });
    return this.store.misses === misses ? value : undefined;
  }

  private section(name: SectionName): number {
    return this.directory.sections[name][0];
  }

  // ---- words: the dictionary and the postings

  termEntry(term: string): TermEntry | undefined {
    const g = groupOf(this.open.termFirst, term);
    if (g < 0) return undefined;
    const offsets = this.open.termGroups;
    const entries = this.store.group<TermEntry[]>(
      `t${g}`,
      this.section('terms') + offsets[g],
      offsets[g + 1] - offsets[g],
      (bytes) =>
        checkTermGroup(
          decodeJson(bytes),
          this.groupLength(g, this.directory.termCount, 'terms'),
          this.directory.sections.postings[1],
        ),
    );
    if (!entries) {
      // A word is looked up for its postings (BM25, its IDF): noted as soon as its entry has arrived.
      this.store.after(() => {
        const entry = this.termEntry(term);
        if (!entry) return;
        this.postingsOf(term, entry, false);
        if (this.directory.headingCopies > 0) this.postingsOf(term, entry, true);
      });
      return undefined;
    }
    const i = groupOf(entries, term, (e) => e[0]);
    return i >= 0 && entries[i][0] === term ? entries[i] : undefined;
  }

  postingsOf(
    term: string,
    entry: TermEntry,
    heading: boolean,
  ): { chunks: Uint32Array; freqs: Uint16Array } | undefined {
    const key = (heading ? 'h:' : 't:') + term;
    const cached = this.postings.get(key);
    if (cached) return cached;
    const at = heading ? entry[3] : entry[1];
    const length = heading ? entry[4] : entry[2];
    if (length === 0) return undefined;
    const bytes = this.store.bytes(this.section('postings') + at, length);
    if (!bytes) return undefined;
    const fail = (why: string): never => {
      throw new PagesError(`${this.name}: pages.bin's postings of "${term}" ${why}`);
    };
    const list = this.decodePostingList(bytes, fail);
    if (this.postings.size >= MAX_CACHED) this.postings.clear();
    this.postings.set(key, list);
    return list;
  }

  /** A list decoded as the directory codes it (postingsCoding.ts), refused naming the word when it does not decode. */
  private decodePostingList(
    bytes: Uint8Array,
    fail: (why: string) => never,
  ): { chunks: Uint32Array; freqs: Uint16Array } {
    try {
      return this.directory.postingsCoding
        ? decodePostings(bytes, this.chunkCount)
        : decodeVarintPostings(bytes, this.chunkCount);
    } catch (e) {
      // Refused naming the part and the word, as the concept lists are (decodeList).
      return fail(messageOf(e));
    }
  }

  // ---- concepts: the dictionary, each concept's chunks, each chunk's concepts

  conceptLookup(): TermLookup {
    const find = (term: string, then?: (c: number) => void): number | undefined => {
      const g = groupOf(this.open.conceptFirst, term);
      if (g < 0) return undefined;
      const terms = this.conceptGroup(g);
      if (!terms) {
        if (then) {
          this.store.after(() => {
            const c = find(term);
            if (c !== undefined) then(c);
          });
        }
        return undefined;
      }
      const i = groupOf(terms, term);
      return i >= 0 && terms[i] === term ? g * this.directory.groups.concepts + i : undefined;
    };
    // A concept is got (not only checked for) to be a seed of the walk, which reads its chunk list first: noted as
    // soon as its dictionary group has arrived.
    return {
      get: (term) => find(term, (c) => this.chunksOf(c)),
      has: (term) => find(term) !== undefined,
    };
  }

  conceptGroup(g: number): string[] | undefined {
    const offsets = this.open.conceptGroups;
    return this.store.group<string[]>(
      `c${g}`,
      this.section('concepts') + offsets[g],
      offsets[g + 1] - offsets[g],
      (bytes) =>
        checkConceptGroup(decodeJson(bytes), this.groupLength(g, this.directory.conceptCount, 'concepts')),
    );
  }

  /** How many items group g of a section grouped by `size` holds, of `count` in all (the last one may be short). */
  private groupLength(g: number, count: number, groups: keyof PagesDirectory['groups']): number {
    const size = this.directory.groups[groups];
    return Math.min(size, count - g * size);
  }

  conceptTerm(c: number): string {
    const size = this.directory.groups.concepts;
    return this.conceptGroup(Math.floor(c / size))?.[c % size] ?? '';
  }

  /** Concept c's name when its dictionary group is decoded, else '' and nothing noted (its caller noted it before). */
  conceptTermIfRead(c: number): string {
    return this.store.hasGroup(`c${Math.floor(c / this.directory.groups.concepts)}`)
      ? this.conceptTerm(c)
      : '';
  }

  chunksOf(c: number): ConceptChunks | undefined {
    const cached = this.lists.get(c);
    if (cached) return cached;
    if (this.directory.listsInRows) return this.listInRows(c);
    const firsts = this.open.listFirsts;
    let list: ConceptChunks;
    if (firsts) {
      // Version 12: the list's blocks, from its block's first byte (listPacking.ts).
      const blockBytes = this.directory.listCoding!.blockBytes;
      const [from, to] = listSpanOf(firsts, c, blockBytes, this.directory.sections.lists[1]);
      const bytes = this.store.bytes(this.section('lists') + from, to - from);
      if (!bytes) return undefined;
      list = this.decodePackedList(c, bytes, firsts[listBlockOf(firsts, c)]);
    } else {
      const from = this.open.listOffsets[c];
      const bytes = this.store.bytes(this.section('lists') + from, this.open.listOffsets[c + 1] - from);
      if (!bytes) return undefined;
      list = this.decodeList(c, bytes);
    }
    if (this.lists.size >= MAX_CACHED) this.lists.clear();
    this.lists.set(c, list);
    return list;
  }

  /**
   * Concept c's chunk list in version 12's packed blocks (listPacking.ts): the lists from the block's first concept
   * `first` up to c skipped (each within the bytes read, which end where the next list's block begins), then c's df
   * gaps, checked as decodeList checks them, and its counts in 4 bits. df is checked against the bytes left before
   * anything is allocated.
   */
  private decodePackedList(c: number, bytes: Uint8Array, first: number): ConceptChunks {
    const df = this.open.df[c];
    const fail = (why: string): never => {
      throw new PagesError(`${this.name}: pages.bin's chunk list of concept ${c} ${why}`);
    };
    const r = new ByteReader(bytes);
    try {
      for (let j = first; j < c; j++) skipList(r, this.open.df[j]);
      if (leastListBytes(df) > bytes.length - r.at)
        fail(`has ${bytes.length - r.at} bytes, too few for its ${df} chunks`);
      const chunks = new Uint32Array(df);
      r.varints(chunks, df);
      this.gapsToChunks(chunks, fail);
      const counts = new Uint32Array(df);
      readListCounts(r, df, counts);
      const tf = Float32Array.from(counts);
      const shares = new Float32Array(df);
      listShares(tf, this.directory.shares!, shares);
      if (!shares.every((x) => Number.isFinite(x))) fail('has a share that is not a number');
      return { chunks, tf, shares };
    } catch (e) {
      if (e instanceof PagesError) throw e;
      return fail(`does not decode (${messageOf(e)})`);
    }
  }

  /** A list's gaps made chunk ids in place: ascending, each below the chunk count. */
  private gapsToChunks(chunks: Uint32Array, fail: (why: string) => never): void {
    const n = this.chunkCount;
    for (let i = 0, k = 0; i < chunks.length; i++) {
      if (i > 0 && chunks[i] === 0) fail('names a chunk twice');
      chunks[i] = k += chunks[i];
      if (k >= n) fail(`names chunk ${k} of ${n}`);
    }
  }

  /**
   * Concept c's chunk list: df chunks (ascending, as gaps), their counts, their shares (stored up to version 2,
   * computed from the counts from version 3: listShares). Each chunk takes at least minListBytes, so df is checked
   * against the list's bytes before anything is allocated, and the bytes must hold exactly the list; chunks are below
   * the chunk count, counts (version 3) at least 1 and shares finite.
   */
  private decodeList(c: number, bytes: Uint8Array): ConceptChunks {
    const df = this.open.df[c];
    const fail = (why: string): never => {
      throw new PagesError(`${this.name}: pages.bin's chunk list of concept ${c} ${why}`);
    };
    const stored = this.directory.version < 3;
    if (df * minListBytes(this.directory.version) > bytes.length)
      fail(`is ${bytes.length} bytes, too few for its ${df} chunks`);
    const r = new ByteReader(bytes);
    const chunks = new Uint32Array(df);
    const tf = new Float32Array(df);
    const shares = new Float32Array(df);
    try {
      r.varints(chunks, df);
      this.gapsToChunks(chunks, fail);
      const counts = new Uint32Array(df);
      r.varints(counts, df);
      tf.set(counts);
      if (!stored) {
        if (counts.includes(0)) fail('has a count of 0');
        listShares(tf, this.directory.shares!, shares);
      }
      for (let i = 0; i < df; i++) {
        if (stored) shares[i] = r.f32();
        if (!Number.isFinite(shares[i])) fail('has a share that is not a number');
      }
    } catch (e) {
      if (e instanceof PagesError) throw e;
      fail(`does not decode (${messageOf(e)})`);
    }
    if (r.at !== bytes.length) fail(`has ${bytes.length - r.at} bytes past its ${df} chunks`);
    return { chunks, tf, shares };
  }

  /**
   * Concept c's chunk list from rows that keep the lists (listsInRows): the rows inverted once they are read (one
   * group, ascending chunks, so each list comes out ascending), the shares computed from the counts as a version 3
   * list's are. Each concept must have as many chunks as its df says.
   */
  private listInRows(c: number): ConceptChunks | undefined {
    if (!this.inverted) {
      const group = this.rowGroup(0);
      if (!group) return undefined;
      this.inverted = group.lists ?? this.invert(group);
    }
    const { offsets, chunks, counts } = this.inverted;
    const a = offsets[c];
    const b = offsets[c + 1];
    const tf = Float32Array.from(counts.subarray(a, b));
    const shares = new Float32Array(b - a);
    listShares(tf, this.directory.shares!, shares);
    const list = { chunks: chunks.slice(a, b), tf, shares };
    if (this.lists.size >= MAX_CACHED) this.lists.clear();
    this.lists.set(c, list);
    return list;
  }

  /** The lists of every concept from the one row group that keeps them, checked against `open`'s df. */
  private invert(group: RowGroup): InvertedRows {
    const nc = this.directory.conceptCount;
    const df = this.open.df;
    const offsets = new Uint32Array(nc + 1);
    for (let c = 0; c < nc; c++) offsets[c + 1] = offsets[c] + df[c];
    if (offsets[nc] !== group.ids.length)
      throw new PagesError(
        `${this.name}: pages.bin's rows hold ${group.ids.length} concept ids, but the concepts' df sum to ${offsets[nc]}`,
      );
    const chunks = new Uint32Array(group.ids.length);
    const counts = new Uint32Array(group.ids.length);
    const fill = offsets.slice(0, nc);
    for (let k = 0; k < this.chunkCount; k++) {
      for (let j = group.starts[k]; j < group.starts[k + 1]; j++) {
        const c = group.ids[j];
        if (fill[c] >= offsets[c + 1])
          throw new PagesError(
            `${this.name}: pages.bin's rows name concept ${c} in more chunks than its df ${df[c]}`,
          );
        chunks[fill[c]] = k;
        counts[fill[c]++] = group.counts![j];
      }
    }
    return { offsets, chunks, counts };
  }

  conceptsOf(k: number): Uint32Array | undefined {
    const g = this.rowGroupOf(k);
    const group = this.rowGroup(g);
    if (!group) return undefined;
    const i = k - this.rowGroupFirst(g);
    return group.ids.subarray(group.starts[i], group.starts[i + 1]);
  }

  /**
   * Chunk k's number of concepts: conceptsOf's length without a view of them (the same reads, the same note when its
   * row is missing). Version 16's rows hold their counts, so `open` has none: the walk's scores and the concepts' BM25
   * ask it of every chunk they touch, tens of thousands a run at 100 MiB, and a view each was garbage at once.
   */
  conceptCountOf(k: number): number | undefined {
    const g = this.rowGroupOf(k);
    const group = this.rowGroup(g);
    if (!group) return undefined;
    const i = k - this.rowGroupFirst(g);
    return group.starts[i + 1] - group.starts[i];
  }

  /**
   * The row group holding chunk k: groups of `groups.rows` chunks, or version 16's blocks of rows (rowsDelimited,
   * each block's first chunk in `open.rowBlockFirsts`: a binary search, from the block asked for last, since a list's
   * chunks ascend).
   */
  rowGroupOf(k: number): number {
    const firsts = this.open.rowBlockFirsts;
    if (!firsts) return Math.floor(k / this.directory.groups.rows);
    let g = this.lastRowBlock;
    if (!(firsts[g] <= k && k < firsts[g + 1])) {
      let lo = 0;
      let hi = firsts.length - 2;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (firsts[mid] <= k) lo = mid;
        else hi = mid - 1;
      }
      g = this.lastRowBlock = lo;
    }
    return g;
  }

  /** The first chunk of row group g (rowGroupOf). */
  rowGroupFirst(g: number): number {
    return this.open.rowBlockFirsts?.[g] ?? g * this.directory.groups.rows;
  }

  /**
   * The row groups the store gave, by index, while its decoded groups are the same (store.generation): the walk asks
   * for a group at each chunk of a list (walkRow twice, conceptsOf, the chunk's concept count), and the store's lookup
   * by name built and hashed a key each time (round twenty-seven). Never more than the store holds.
   */
  private rowGroupsAt: Array<RowGroup | undefined> = [];
  private rowGroupsGeneration = -1;

  /** Row group g: the concepts of its chunks, ids[starts[i]..starts[i + 1]) for its i-th chunk. */
  rowGroup(g: number): RowGroup | undefined {
    if (this.rowGroupsGeneration !== this.store.generation) {
      this.rowGroupsAt = new Array<RowGroup | undefined>(this.open.rowGroups.length);
      this.rowGroupsGeneration = this.store.generation;
    }
    const known = this.rowGroupsAt[g];
    if (known) return known;
    const group = this.decodedRowGroup(g);
    if (group) this.rowGroupsAt[g] = group;
    return group;
  }

  /** Whether row group g is decoded (nothing noted). */
  private hasRowGroup(g: number): boolean {
    return (
      (this.rowGroupsGeneration === this.store.generation && this.rowGroupsAt[g] !== undefined) ||
      this.store.hasGroup(`r${g}`)
    );
  }

  private decodedRowGroup(g: number): RowGroup | undefined {
    const offsets = this.open.rowGroups;
    return this.store.group<RowGroup>(
      `r${g}`,
      this.section('rows') + offsets[g],
      offsets[g + 1] - offsets[g],
      (bytes) => {
        const group = this.directory.listsInRows
          ? this.decodeRowsWithCounts(bytes)
          : this.open.rowBlockFirsts
            ? this.decodeRowBlock(g, bytes)
            : this.decodeRowGroup(g, bytes);
        this.noteSingles(this.rowGroupFirst(g), group);
        return group;
      },
    );
  }

  /**
   * Version 16's row block g (rowsDelimited): the rows of its chunks (open.rowBlockFirsts) one after another, each
   * starting with its count, checked as rowsCoding.ts decodeDelimitedRows checks them (refused naming the chunk).
   */
  private decodeRowBlock(g: number, bytes: Uint8Array): RowGroup {
    const firsts = this.open.rowBlockFirsts!;
    try {
      return decodeDelimitedRows(bytes, firsts[g + 1] - firsts[g], this.directory.conceptCount, firsts[g]);
    } catch (e) {
      throw new PagesError(`row block ${g}: ${messageOf(e)}`);
    }
  }

  /** Version 9: whether concept c is in one chunk, its degree code left out of `open` (singleDegree). */
  private isSingle(c: number): boolean {
    return this.singleUpper !== undefined && this.open.df[c] === 1;
  }

  /**
   * Version 9: the walk degree of every one-chunk concept in a decoded row group (its first chunk `from`), kept in
   * `singles`. Such a concept v is linked to each other concept w of its chunk alone, by a co-occurrence of 1 (kept
   * when θco ≤ 1, as the engine keeps it), with the weight walkRow gives it, the float32 2 / (1 + df(w)); its degree
   * is their f64 sum in ascending order, as walkRow and weightedDegreesFromTable sum it, bit for bit. The walk only
   * reaches v along the row of a concept sharing its chunk, computed from that chunk's row, so v's degree is known
   * before the walk asks for it; a seed's is bounded by singleUpper until its own row is read. Each must lie within
   * that bound, or `open` is refused.
   */
  private noteSingles(from: number, group: RowGroup): void {
    const bound = this.singleUpper;
    if (bound === undefined) return;
    const df = this.open.df;
    const linked = this.directory.thetaCo <= 1;
    const { starts, ids } = group;
    const singles = (this.singles ??= new Float64Array(this.directory.conceptCount).fill(-1));
    for (let i = 0; i + 1 < starts.length; i++) {
      const a = starts[i];
      const b = starts[i + 1];
      for (let j = a; j < b; j++) {
        const v = ids[j];
        if (df[v] !== 1) continue;
        let degree = 0;
        if (linked) for (let x = a; x < b; x++) if (x !== j) degree += Math.fround(2 / (1 + df[ids[x]]));
        if (!(degree <= bound))
          throw new PagesError(
            `${this.name}: pages.bin (open) bounds the walk degree of a concept in one chunk by ${bound} ` +
              `(singleCode ${String(this.open.singleCode)}), but concept ${v}, in chunk ${from + i} alone, has ${degree}`,
          );
        singles[v] = degree;
      }
    }
  }

  /** Version 9: the walk degree of one-chunk concept c if its chunk's row has been decoded. */
  private singleDegree(c: number): number | undefined {
    const d = this.singles?.[c];
    return d === undefined || d < 0 ? undefined : d;
  }

  /** A lower bound of concept c's walk degree from what is at hand (`open`'s bracket; version 9's rows read). */
  lowerDegree(c: number): number {
    if (this.open.degrees) return this.open.degrees[c];
    if (this.isSingle(c)) return this.singleDegree(c) ?? 0;
    return degreeLower(this.open.degreeCodes![c]);
  }

  /** An upper bound of concept c's walk degree from what is at hand (0 exactly when c has no edge). */
  upperDegree(c: number): number {
    if (this.open.degrees) return this.open.degrees[c];
    if (this.isSingle(c)) return this.singleDegree(c) ?? this.singleUpper!;
    return degreeUpper(this.open.degreeCodes![c]);
  }

  /**
   * The one row group of rows that keep the lists (listsInRows): gzip'd, its inflated size bounded (gzipSize) before
   * it is allocated; from version 6 the lists coded by concept, up to version 5 the rows with counts, each decoded
   * and checked in listsInRows.ts (every list against `open`'s df, every chunk against its concept count).
   */
  private decodeRowsWithCounts(stored: Uint8Array): RowGroup {
    const fail = (why: string): never => {
      throw new PagesError(`${this.name}: pages.bin's rows ${why}`);
    };
    let bytes: Uint8Array;
    try {
      bytes = gunzipSync(stored, { out: new Uint8Array(gzipSize(stored)) });
    } catch (e) {
      return fail(`do not inflate (${messageOf(e)})`);
    }
    const n = this.chunkCount;
    const nc = this.directory.conceptCount;
    const perChunk = this.open.conceptCounts!;
    if (this.directory.version >= 6) return decodeRiceLists(bytes, n, this.open.df, perChunk, fail);
    return decodeCountedRows(bytes, n, nc, perChunk, fail);
  }

  /**
   * Row group g from its bytes: as many concept ids as `open`'s counts of its chunks say, each a varint of at least
   * one byte, so the counts are checked against the bytes before anything is allocated or looped over, and the bytes
   * must hold exactly that many. Each chunk's ids ascend (gaps from the one before) and name concepts the pages have.
   */
  private decodeRowGroup(g: number, bytes: Uint8Array): RowGroup {
    const size = this.directory.groups.rows;
    const counts = this.open.conceptCounts!;
    const nc = this.directory.conceptCount;
    const from = g * size;
    const to = Math.min(this.chunkCount, from + size);
    let total = 0;
    for (let i = from; i < to; i++) total += counts[i];
    // A varint takes a byte at least, a Rice code a bit (version 15: rowsCoding.ts checks each row's bits too).
    if (total > bytes.length * (this.directory.rowsCoding ? 8 : 1))
      throw new PagesError(
        `its chunks' concept counts sum to ${total}, more than its ${bytes.length} bytes hold`,
      );
    const starts = new Uint32Array(to - from + 1);
    for (let i = from; i < to; i++) starts[i - from + 1] = starts[i - from] + counts[i];
    const ids = new Uint32Array(total);
    if (this.directory.rowsCoding) return { starts, ids: this.decodeRiceRows(from, to, bytes, starts, ids) };
    const end = readVarints(bytes, 0, ids, total);
    if (end !== bytes.length)
      throw new PagesError(`it holds ${bytes.length - end} bytes past its chunks' ${total} concept ids`);
    // Each chunk's ids are stored as gaps from the one before (from 0 at its first).
    for (let i = 0; i < to - from; i++) {
      let c = 0;
      for (let j = starts[i]; j < starts[i + 1]; j++) {
        if (j > starts[i] && ids[j] === 0) throw new PagesError(`chunk ${from + i} names a concept twice`);
        ids[j] = c += ids[j];
        if (c >= nc) throw new PagesError(`chunk ${from + i} names concept ${c} of ${nc}`);
      }
    }
    return { starts, ids };
  }

  /**
   * Version 15's rows (rowsCoding.ts) of chunks [from, to), one after another in `bytes`, each refused naming its
   * chunk when it runs past the group's bytes, names a concept the pages do not have or ends with bits that are not
   * 0; the group must end where its last row does.
   */
  private decodeRiceRows(
    from: number,
    to: number,
    bytes: Uint8Array,
    starts: Uint32Array,
    ids: Uint32Array,
  ): Uint32Array {
    const nc = this.directory.conceptCount;
    let at = 0;
    for (let k = from; k < to; k++) {
      const i = k - from;
      try {
        at = decodeRow(bytes, at, bytes.length, starts[i + 1] - starts[i], nc, ids, starts[i]);
      } catch (e) {
        throw new PagesError(`chunk ${k}'s row ${messageOf(e)}`);
      }
    }
    if (at !== bytes.length)
      throw new PagesError(`it holds ${bytes.length - at} bytes past its chunks' ${ids.length} concept ids`);
    return ids;
  }

  conceptAccess(): ConceptAccess {
    const open = this.open;
    const counts = open.conceptCounts;
    // Every (chunk, concept) link is one id of a row and one chunk of a list: version 16's rows hold their counts
    // (rowsDelimited), so the links are the df summed (whole numbers: the same sum, the same mean, bit for bit).
    let links = 0;
    for (const x of counts ?? open.df) links += x;
    const n = this.directory.chunkCount;
    return {
      chunkCount: n,
      meanChunkConcepts: n ? links / n : 1,
      idf: (c) => open.idf[c],
      df: (c) => open.df[c],
      chunksOf: (c) => this.chunksOf(c) ?? EMPTY_CHUNKS,
      conceptsOf: (k) => this.conceptsOf(k) ?? EMPTY_U32,
      // Version 16: from the chunk's row (a row not read yet is noted as missing, and the run is asked again).
      conceptCount: counts ? (k) => counts[k] : (k) => this.conceptCountOf(k) ?? 0,
    };
  }

  // ---- the walk graph: rows computed from the chunk rows, degrees

  /**
   * The walk's degrees, each checked against its row once the row is computed (`differs`): version 1's from `open`;
   * version 2's bracket of each from `open`, and the exact one, when the bracket cannot decide a step of the walk,
   * summed from the concept's row (walkRow) rather than read from the `degrees` section. A concept whose exact degree
   * the walk asks for is nearly always one it pushes next (90–94 % of them on the shared sets), whose row it reads
   * anyway; the section's 8-byte entries lay scattered over it, and a question read it nearly whole for about a
   * kilobyte asked (docs/results/question-bytes.md, round twelve). The row's sum is the degree the pages were
   * written with, bit for bit (weightedDegreesFromTable sums the same weights in the same order), so the walk takes
   * the same steps.
   */
  walkDegrees(): WalkDegrees {
    const differs = (u: number, stored: string, computed: number): never => {
      throw new PagesError(
        `${this.name}: pages.bin stores the walk degree of concept ${u} as ${stored}, but its row sums to ` +
          `${computed} (the pages are damaged or forged)`,
      );
    };
    if (this.open.degrees) return exactDegrees(this.open.degrees, differs);
    // The walk asks for a bracket at every edge it follows (PersonalizedPageRank's reaches: ~100 ms of a question's
    // worker time at 100 MiB went to lowerDegree and singleDegree, round twenty-three): lowerDegree's and
    // upperDegree's tests, whose answers do not change for the library's life, are taken once here, not at each call.
    const df = this.open.df;
    const codes = this.open.degreeCodes!;
    const singleUpper = this.singleUpper;
    if (singleUpper === undefined)
      return {
        lower: (u) => degreeLower(codes[u]),
        upper: (u) => degreeUpper(codes[u]),
        exact: (u) => this.walkRow(u)?.degree,
        differs,
      };
    // Version 9: the one-chunk concepts' degrees as noteSingles finds them (−1 until their chunk's row is decoded).
    const singles = (this.singles ??= new Float64Array(this.directory.conceptCount).fill(-1));
    return {
      lower: (u) => (df[u] === 1 ? Math.max(singles[u], 0) : degreeLower(codes[u])),
      upper: (u) => (df[u] !== 1 ? degreeUpper(codes[u]) : singles[u] < 0 ? singleUpper : singles[u]),
      exact: (u) => (df[u] === 1 && singles[u] >= 0 ? singles[u] : this.walkRow(u)?.degree),
      differs,
    };
  }

  /**
   * The waiting walk rows (waitingRows) whose list and row groups are all decoded now, computed; those still short
   * of something wait for the next arrival or the next run. Reads only what is here: nothing is noted.
   */
  private computeWaitingRows(): void {
    if (this.waitingRows.size === 0 || this.directory.listsInRows) return;
    for (const [u, from] of this.waitingRows) {
      const list = this.lists.get(u);
      if (!list) continue;
      // From the first chunk whose group was missing at the arrival before (the groups before it stay decoded).
      let i = from;
      for (let g = -1; i < list.chunks.length; i++) {
        const gk = this.rowGroupOf(list.chunks[i]);
        if (gk === g) continue;
        g = gk;
        if (!this.hasRowGroup(g)) break;
      }
      if (i === list.chunks.length) this.walkRow(u);
      else this.waitingRows.set(u, i);
    }
  }

  /**
   * Concept u's row of the walk graph, computed from the table as buildCooccurrenceGraph computes it: every
   * concept sharing a chunk with u (at least θco of them), ascending, with the Dice weight 2·Co / (|T(u)| + |T(v)|)
   * as a float32. Undefined (and noted) while u's chunk list or one of those chunks' rows is not loaded.
   */
  walkRow(u: number): WalkRow | undefined {
    const cached = this.rowCache.get(u);
    if (cached) return cached;
    const list = this.chunksOf(u);
    if (!list) {
      // The rows of the list's chunks are what this row needs next: noted as soon as the list has arrived.
      this.store.after(() => {
        for (const k of this.chunksOf(u)?.chunks ?? EMPTY_U32) this.conceptsOf(k);
      });
      this.waitingRows.set(u, 0);
      return undefined;
    }
    // Every chunk row first, noting all that are missing, so that one round fetches them all; counting waits for a
    // run that has them (a hub's partial counts would be thrown away). The list is ascending, so its chunks' row
    // groups come in order: each is looked up once, not once per chunk (a hub is in thousands of chunks).
    let complete = true;
    for (let i = 0, g = -1; i < list.chunks.length; i++) {
      const gk = this.rowGroupOf(list.chunks[i]);
      if (gk === g) continue;
      g = gk;
      if (!this.rowGroup(g)) complete = false;
    }
    if (!complete) {
      this.waitingRows.set(u, 0);
      return undefined;
    }
    this.waitingRows.delete(u);
    // Co-occurrence counts in a scratch array (zeroed again after), as buildCooccurrenceGraph counts them.
    const counts = (this.coCounts ??= new Uint32Array(this.directory.conceptCount));
    const found: number[] = [];
    let group: RowGroup | undefined;
    let first = 0;
    for (let i = 0, g = -1; i < list.chunks.length; i++) {
      const k = list.chunks[i];
      const gk = this.rowGroupOf(k);
      if (gk !== g) {
        group = this.rowGroup((g = gk));
        first = this.rowGroupFirst(g);
      }
      const { starts, ids } = group!;
      for (let j = starts[k - first], end = starts[k - first + 1]; j < end; j++) {
        const v = ids[j];
        if (v !== u && counts[v]++ === 0) found.push(v);
      }
    }
    const seen = Uint32Array.from(found).sort();
    const theta = this.directory.thetaCo;
    let kept = 0;
    for (const v of seen) if (counts[v] >= theta) kept++;
    const targets = new Uint32Array(kept);
    const weights = new Float32Array(kept);
    const tu = this.open.df[u];
    let e = 0;
    for (const v of seen) {
      if (counts[v] >= theta) {
        targets[e] = v;
        weights[e++] = (2 * counts[v]) / (tu + this.open.df[v]);
      }
      counts[v] = 0;
    }
    // Its weighted degree, summed as weightedDegreesFromTable sums it: the walk pushes along a row by it.
    let degree = 0;
    for (let i = 0; i < kept; i++) degree += weights[i];
    const row = { targets, weights, degree };
    if (this.rowCache.size >= MAX_CACHED) this.rowCache.clear();
    this.rowCache.set(u, row);
    return row;
  }

  /**
   * Concept c's weighted degree in the walk graph (version 2: from the `degrees` section, read by the Graph view and
   * the KG build's order, not by the walk), undefined while unread.
   */
  weightedDegree(c: number): number | undefined {
    if (this.open.degrees) return this.open.degrees[c];
    const single = this.isSingle(c);
    const known = single ? this.singleDegree(c) : undefined;
    if (known !== undefined) return known;
    const code = this.open.degreeCodes![c];
    if (!single && code === 0) return 0;
    const bytes = this.store.bytes(this.section('degrees') + c * 8, 8);
    if (!bytes) return undefined;
    const d = new DataView(bytes.buffer, bytes.byteOffset, 8).getFloat64(0, true);
    if (single) {
      // Version 9: a concept in one chunk has no code, only the bound on them all.
      if (!(d >= 0 && d <= this.singleUpper!))
        throw new PagesError(
          `${this.name}: pages.bin's degrees section gives concept ${c}, in one chunk, a walk degree of ${d}, ` +
            `outside the bound in open (0 to ${this.singleUpper!}, singleCode)`,
        );
      return d;
    }
    // The exact degree lies in the bracket `open` gives it (a degree of code c is above c − 1's upper end).
    if (!(d > degreeLower(code) && d <= degreeUpper(code)))
      throw new PagesError(
        `${this.name}: pages.bin's degrees section gives concept ${c} a walk degree of ${d}, outside ` +
          `its bracket in open (${degreeLower(code)} to ${degreeUpper(code)})`,
      );
    return d;
  }

  // ---- version 12's evidenceArrays: each chunk's tokens, by block (evidenceArrays.ts)

  /**
   * Times a run asked for a chunk's tokens whose block was not loaded (as store.misses counts every miss): a run that
   * missed only these can go on with estimates (tokensOrEstimate) to note what else it will need in the same round.
   */
  evidenceMisses = 0;

  /** Evidence block b's token counts (undefined, noted, while it is not loaded). */
  private evidenceBlock(b: number): Uint32Array | undefined {
    const d = this.directory;
    const evidence = d.evidenceArrays!;
    const starts = this.open.evidenceStarts!;
    const at = this.section('records') + d.sections.records[1] - evidence.bytes + starts[b];
    const coding = {
      entries: evidence.entries,
      textLengths: this.open.textLengths,
      tokensPerLength: d.openResiduals!.tokensPerLength,
    };
    const tokens = this.store.group<Uint32Array>(`e${b}`, at, starts[b + 1] - starts[b], (bytes) =>
      decodeEvidenceBlock(bytes, b, this.chunkCount, coding),
    );
    if (!tokens) this.evidenceMisses++;
    return tokens;
  }

  /** Chunk k's tokens (the chunker's count), or undefined (noted) while its evidence block is not loaded. */
  tokensOf(k: number): number | undefined {
    const evidence = this.directory.evidenceArrays;
    if (!evidence) return this.open.tokens[k];
    const b = Math.floor(k / evidence.entries);
    return this.evidenceBlock(b)?.[k - b * evidence.entries];
  }

  /**
   * Chunk k's tokens, or while its block is not loaded (noted) what the slope of tokens over text length predicts:
   * a run that noted a block is thrown away, and an estimate near the count cuts the budget near where the count
   * will (0 would take every candidate into the budget and note all their blocks).
   */
  tokensOrEstimate(k: number): number {
    const tokens = this.tokensOf(k);
    if (tokens !== undefined) return tokens;
    return predicted(this.open.textLengths[k], this.directory.openResiduals!.tokensPerLength);
  }

  /** Notes the evidence blocks of these chunks (read ahead: the walk's rankings name them before its evidence). */
  noteEvidence(chunks: Iterable<number>): void {
    if (!this.directory.evidenceArrays) return;
    for (const k of chunks) this.tokensOf(k);
  }

  /** Every chunk's tokens (noting every block not loaded), or undefined until all are here. */
  allTokens(): Uint32Array | undefined {
    const evidence = this.directory.evidenceArrays;
    if (!evidence) return this.open.tokens;
    const out = new Uint32Array(this.chunkCount);
    let complete = true;
    for (let b = 0; b < evidence.count; b++) {
      const block = this.evidenceBlock(b);
      if (block) out.set(block, b * evidence.entries);
      else complete = false;
    }
    return complete ? out : undefined;
  }

  // ---- records: what evidence shows

  record(k: number): PagedChunkRecord | undefined {
    const size = this.directory.groups.records;
    const g = Math.floor(k / size);
    const r = this.recordGroup(g)?.[k - g * size];
    if (r) this.chunkIndex.set(r.id, k);
    return r;
  }

  /** Record group g (undefined, noted, while it is not loaded). */
  private recordGroup(g: number): PagedChunkRecord[] | undefined {
    const offsets = this.open.recordGroups;
    const expected = this.groupLength(g, this.chunkCount, 'records');
    const at = this.section('records') + offsets[g];
    const length = offsets[g + 1] - offsets[g];
    if (!this.directory.recordCoding)
      return this.store.group<PagedChunkRecord[]>(`k${g}`, at, length, (bytes) =>
        checkRecordGroup(decodeJson(bytes), expected),
      );
    // Version 10: the group's stored bytes and the dictionary are read in the same round (both noted before either is
    // here), then the group is inflated with the dictionary here, once (its records kept with its bytes).
    const dictionary = this.recordDictionary();
    const group = this.store.group<CodedGroup>(`k${g}`, at, length, (bytes) => ({ bytes: bytes.slice() }));
    if (!dictionary || !group) return undefined;
    if (!group.records) {
      try {
        group.records = decodeRecordGroup(group.bytes, dictionary, expected);
      } catch (e) {
        throw new PagesError(`${this.name}: pages.bin group k${g} does not decode (${messageOf(e)})`);
      }
    }
    return group.records;
  }

  /**
   * Version 10: the records' dictionary (recordCoding.ts), read with the first record group a library reads and kept;
   * undefined (noted) while it is not here, empty when the part has none.
   */
  private recordDictionary(): Uint8Array | undefined {
    if (this.dictionary) return this.dictionary;
    const stored = this.directory.recordCoding!.dictionary;
    if (stored === 0) return (this.dictionary = new Uint8Array(0));
    const value = this.store.group<Uint8Array>(
      'kd',
      this.section('records') + recordGroupBytes(this.directory),
      stored,
      decodeDictionary,
    );
    if (value) this.dictionary = value;
    return value;
  }

  /**
   * The records of chunks named by id, not by a search of these pages (the chunks a KG's entities point at):
   * found by a binary search over the record groups (recordSearch.ts), all at once. An id the pages do not hold
   * is left out, as a chunk removed after the KG was built is by a library in memory.
   */
  async recordsById(
    ids: Iterable<string>,
    signal?: AbortSignal,
  ): Promise<PagedRead<Map<string, PagedChunkRecord>>> {
    const size = this.directory.groups.records;
    const search = new RecordSearch(
      ids,
      { count: this.open.recordGroups.length - 1, group: (g) => this.recordGroup(g) },
      (id) => {
        const k = this.chunkIndex.get(id);
        return k === undefined ? this.groupOfId.get(id) : Math.floor(k / size);
      },
    );
    const read = await this.readUntilComplete(() => {
      search.step();
      return search.found;
    }, signal);
    for (const [id, g] of search.groupOf) this.groupOfId.set(id, g);
    return read;
  }

  /** The records of the chunks at these places of the pages (the KG build's core chunks), in that order. */
  async recordsAt(places: readonly number[], signal?: AbortSignal): Promise<PagedChunkRecord[]> {
    const read = await this.readUntilComplete(
      () => places.map((k) => this.record(k)),
      signal,
      'the KG build’s chunks',
    );
    return read.value.map((r, i) => {
      if (!r) throw new PagesError(`${this.name}: no record of chunk ${places[i]}`);
      return r;
    });
  }

  /** Lets go of what reads decoded and the blocks they read (BlockStore.forget). Not during a read. */
  forget(): void {
    this.store.forget();
    this.rowCache.clear();
    // The lists inverted from the rows are as large as the lists: read again with the rows when next wanted.
    this.inverted = undefined;
    this.dictionary = undefined;
  }
}

/** A version 10 record group as the block store keeps it: its stored bytes, and its records once inflated. */
interface CodedGroup {
  bytes: Uint8Array;
  records?: PagedChunkRecord[];
}

/** A version 3 list's shares from its counts (format.ts: the lists hold the counts only), as the engine computes them. */
export function listShares(tf: Float32Array, params: ShareParams, out: Float32Array): void {
  sharesOfCounts(tf, 0, tf.length, params.tfSpread, params.chunkScorePower, out);
}

/**
 * The group whose first key is the last ≤ key (−1 when key sorts before every group); in a sorted group, the place
 * of the last key ≤ key (the key itself when it is there).
 */
export function groupOf<T = string>(
  sorted: readonly T[],
  key: string,
  keyOf = (item: T) => item as string,
): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (keyOf(sorted[mid]) <= key) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
