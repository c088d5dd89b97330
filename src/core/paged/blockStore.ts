// The verified blocks of a pages part and what a question still lacks. A question is answered by running the
// ordinary synchronous search over what is loaded (library.ts): every read that finds its bytes missing notes them
// here and gets nothing; after the run the store fetches all that was noted at once (adjacent blocks in one range),
// checks each block's SHA-256, and the search runs again, until a run needs nothing new. Only that last run's answer
// is kept, so it is computed entirely from verified bytes.
import { gunzipSync } from 'fflate';
import { blockDigests, matchesBlockHash } from './blockDigest.ts';
import { BlockLayout } from './blockLayout.ts';
import {
  chainsFromPaths,
  DEPTH,
  leafRoots,
  LEAF_HASHES,
  PATH_NODE_BYTES,
  ProvenNodes,
  sameNode,
} from './blockPaths.ts';
import { DEFAULT_IN_FLIGHT, MAX_IN_FLIGHT, ROUND_TRIP_GAP, type RangeSource } from './rangeSource.ts';
import { messageOf } from '../errors.ts';
import { SlotPool } from './slotPool.ts';
import { timelineMark } from './timeline.ts';
import { warmListRuns, warmRuns, type WarmRun } from './warmPages.ts';

/** Bytes of each hash page's hash in the directory's top list: SHA-256's first 16, as a block's (format.ts, BLOCK_HASH_BYTES). */
export const TOP_HASH_BYTES = 16;

/** A hash page's key by level and number (the maps of pages in flight above the leaves). */
function pageKey(level: number, p: number): string {
  return `${level}:${p}`;
}

/** The page of `pages.sha256` holding block b's hash, and where in that page it starts. */
function hashPageOf(b: number, hashBytes: number, pageSize: number): [number, number] {
  const at = b * hashBytes;
  const page = Math.floor(at / pageSize);
  return [page, at - page * pageSize];
}

/**
 * Decoded groups (records, dictionary groups, rows) and the bytes of raw blocks kept between questions at most: past
 * the first, trim() sets the decoded groups aside for one more question; past the second it forgets the blocks before
 * the next question. The blocks are bounded in bytes, not in number (32 MiB: 65,536 blocks of 512 bytes, the bound
 * before version 8): version 8's 128-byte row blocks counted four to a 512-byte one, and at 100 MiB the bound was
 * passed after a few questions, each then reading again what those before had read (214 KB a later question, mean). Never during one: a question that needs more (a walk through the hubs of a gigabyte
 * library reads tens of thousands of rows) would forget what its next run needs and fetch it again, round after
 * round.
 */
const MAX_DECODED = 20_000;
const MAX_BLOCK_BYTES = 32 << 20;
/**
 * Ranges in one multi-range request at most: Apache answers more than its MaxRanges (200 by default) with the whole
 * file; the header stays under 4.5 KB (a range of a gigabyte file is about 22 characters; nginx and Apache take a
 * header line of 8 KB). 200, not 100 (round twenty-four): a stage of the walk's rows at 100 MiB is ~3,800 ranges, and
 * each request costs its connection a round trip (6 a host over HTTP/1.1), so 38 requests were 7 round trips a
 * connection and 19 are 4; in Chromium on the slow link the stages' network time fell 4,045 → 3,749 ms p50 (5
 * questions, link-timeline.ts), where link-sim's link, which hands a request's bytes over after those ahead of it
 * rather than sharing the link among the requests, saw 11 ms (round eighteen).
 */
const MAX_RANGES_A_REQUEST = 200;
/**
 * The most bytes a run across gaps is widened by at either end to end on whole pages of block hashes (pageAligned).
 * Widened by up to the whole gap (32 KiB), a cold question at 100 MiB read 13,708 KB p50 (main 14,741), by up to 1 KiB
 * 13,809 KB; but by the whole gap the small sets' records (a page of hashes covers 8 KiB of their 1 KiB blocks) read
 * more than their pages of hashes saved (docs-scale 784 → 847 KB, 2Wiki 1,347 → 1,362; round eighteen). So by the
 * whole gap only where a page of hashes covers at most 2 KiB of blocks (the 128- and 256-byte zones), else by 1 KiB:
 * docs-scale 736, 2Wiki 1,323 KB (main 771, 1,323), 100 MiB 13,610.
 */
const WIDEN_BYTES = 1024;
/** Reads in one load(): what was noted, then what its follow-ups noted, and so on (see after()). */
const MAX_STAGES = 3;

export class PagesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PagesError';
  }
}

/**
 * Block hashes read by pages (format.ts, HashPages): where `pages.sha256` lies in the source, the length of its block
 * hashes, the bytes of a hash page, and the hash (TOP_HASH_BYTES) of each page of the last level from the checked
 * directory.
 */
export interface PagedHashes {
  offset: number;
  length: number;
  pageSize: number;
  top: Uint8Array;
  /**
   * Version 7: the levels above the block hashes, lowest first (format.ts, hashLevels: where each lies in
   * `pages.sha256`, its bytes, its page size); `top` then holds the hashes of the last one's pages.
   */
  upper?: ReadonlyArray<{ at: number; length: number; pageSize: number }>;
}

/** A level of hash pages as the store reads it: the block hashes (level 0) or a level above them. */
interface StoreLevel {
  at: number;
  length: number;
  pageSize: number;
  /** Bytes of each hash the level holds: the block hash length for level 0, TOP_HASH_BYTES above. */
  entry: number;
}

/** A run of pages of one level of hash pages. */
interface PageRun {
  level: number;
  first: number;
  last: number;
}

export class BlockStore {
  private readonly blocks = new Map<number, Uint8Array>();
  /** The bytes of the blocks held (checked or, for a part held whole, touched): what trim() bounds. */
  private blockBytes = 0;
  /**
   * The hash pages read and checked so far, by level (paged hashes only: the block hashes' pages, then version 7's
   * levels above them); kept for the library's life, as small as they are.
   */
  private readonly hashPages: Array<Map<number, Uint8Array>> = [];
  private readonly levels: StoreLevel[] = [];
  private readonly wantedBlocks = new Set<number>();
  private decoded = new Map<string, unknown>();
  /** The groups decoded before the last trim: one a question uses again moves back to `decoded`. */
  private previous = new Map<string, unknown>();
  private readonly wantedGroups = new Map<string, WantedGroup>();
  private readonly followUps: Array<() => void> = [];
  /** Bytes of held pages that questions have touched (each block counted once until a trim forgets it). */
  private touchedBytes = 0;
  /**
   * Milliseconds spent in load() so far, by kind: reading blocks (requests and their digests), the digests alone
   * (summed over batches in flight, so they may overlap the reads), decoding groups, and follow-ups. Benches read it
   * to tell a question's wait on the network from its work between responses.
   */
  readonly spent = { readMs: 0, hashMs: 0, decodeMs: 0, followUpMs: 0, arrivalMs: 0 };
  /** Where the part's blocks lie (blockLayout.ts): every `blockSize` bytes, or from version 8 by section. */
  private readonly layout: BlockLayout;
  /** The part's block size (a section's own may differ: layout): what the source's gap is counted in. */
  private readonly blockSize: number;
  /** The sections' bytes: the part's less version 13's paths (which lie after their blocks, outside the offsets). */
  private readonly sectionsLength: number;
  /**
   * Version 13's `blockPaths` (blockPaths.ts): a leaf page's hash in the level above is the root of its block hashes,
   * and the blocks that carry paths are checked by them where their leaf page is not here.
   */
  private readonly paths: boolean;
  /** Version 13: by leaf page not here, the nodes of its tree that checked paths proved (blockPaths.ts). */
  private readonly proven = new Map<number, ProvenNodes>();
  /**
   * Blocks in flight, each settled once its request's blocks are checked (or refused): a load that wants one waits
   * for it rather than fetching it again (the walk's reads go out beside the early evidence's: library.ts search).
   */
  private readonly arriving = new Map<number, Promise<void>>();
  /**
   * Pages of block hashes (level 0) being read, each settled once checked: a load whose blocks need one waits for it.
   * Only level 0: a read page waits on nothing but its own requests, so two loads never wait on each other's pages
   * (a page above is read again by the second load, a few hundred bytes, rather than risk that).
   */
  private readonly pagesArriving = new Map<number, Promise<void>>();
  /** The requests out at once, shared by every load (slotPool.ts); made at the first load. */
  private pool: SlotPool | undefined;
  /**
   * Pages of levels ≥ 1 read ahead of any question (readUpperPages) and not yet checked, by pageKey: a load that needs
   * one waits for it rather than reading it again. Safe to wait on: that read waits only on pages of loads that were
   * reading them before it was sent (upperReading), never on a load that came after it.
   */
  private readonly warmArriving = new Map<string, Promise<void>>();
  /** Pages of levels ≥ 1 that a load is reading in its own requests, by pageKey: readUpperPages leaves them to it. */
  private readonly upperReading = new Map<string, Promise<unknown>>();

  constructor(
    private readonly source: RangeSource,
    /** Where the pages part's payload starts in the source, and its length. */
    private readonly base: number,
    private readonly length: number,
    /** The block size of every block (versions 1 to 7), or where each lies (blockLayoutOf). */
    blocksOf: number | BlockLayout,
    /** The block hashes: read whole (at opening), or by pages as the blocks they cover are read. */
    private readonly hashes: Uint8Array | PagedHashes,
    private readonly partName: string,
    /**
     * The part's bytes, when they are held whole in memory and trusted: the library's own pages, written by this
     * app into its IndexedDB (src/services/library/storedPages.ts), which are no more in doubt than every other
     * record a library loads from there unchecked. Block hashes guard bytes that come from elsewhere (a bundle's
     * file, a host). Held pages are read in the run that asks for them: a question is one run, not 5–7 rounds
     * of the same walk over a growing set of blocks (docs/results/ranges.md, "Pages held in memory").
     */
    private readonly held?: Uint8Array,
    /** Bytes of each block's hash (the directory's hashBytes: 16 in version 3, 32 before). */
    private readonly hashBytes = 32,
  ) {
    this.layout = typeof blocksOf === 'number' ? BlockLayout.uniform(length, blocksOf) : blocksOf;
    this.blockSize = typeof blocksOf === 'number' ? blocksOf : blocksOf.unit;
    this.sectionsLength = length - this.layout.pathsLength;
    // Block hashes held whole check every block themselves: the paths are only read past.
    this.paths = this.layout.paths !== undefined && !(hashes instanceof Uint8Array);
    if (this.paths && (hashes as PagedHashes).pageSize !== LEAF_HASHES * hashBytes)
      throw new PagesError(
        `${source.name}: ${partName}'s blocks carry paths, but its hashes are not in leaf pages of ${LEAF_HASHES}`,
      );
    const blocks = this.layout.count;
    if (hashes.length !== blocks * hashBytes) {
      throw new PagesError(
        `${source.name}: ${partName} has ${hashes.length} bytes of block hashes in pages.sha256, ` +
          `expected ${blocks} blocks × ${hashBytes} bytes`,
      );
    }
    if (!(hashes instanceof Uint8Array)) {
      this.levels.push({ at: 0, length: hashes.length, pageSize: hashes.pageSize, entry: hashBytes });
      for (const level of hashes.upper ?? []) {
        const below = this.levels[this.levels.length - 1];
        // Each level one hash a page of the one below (format.ts, hashLevels checked the directory's sizes).
        if (level.length !== Math.ceil(below.length / below.pageSize) * TOP_HASH_BYTES || level.pageSize < 1)
          throw new PagesError(
            `${source.name}: level ${this.levels.length} of pages.sha256 has ${level.length} bytes, expected ` +
              `${Math.ceil(below.length / below.pageSize)} hashes × ${TOP_HASH_BYTES} bytes`,
          );
        this.levels.push({ ...level, entry: TOP_HASH_BYTES });
      }
      for (let i = 0; i < this.levels.length; i++) this.hashPages.push(new Map());
      const last = this.levels[this.levels.length - 1];
      const pages = Math.ceil(last.length / last.pageSize);
      if (hashes.top.length !== pages * TOP_HASH_BYTES)
        throw new PagesError(
          `${source.name}: the top list of pages.sha256 has ${hashes.top.length} bytes, expected ${pages} ` +
            `pages × ${TOP_HASH_BYTES} bytes`,
        );
    }
  }

  /** How many blocks and groups the last run noted missing. */
  get noted(): number {
    return this.wantedBlocks.size + this.wantedGroups.size;
  }

  /** Bytes read from the source so far, and of held pages the bytes questions touched (what a question cost). */
  get bytesRead(): number {
    return this.source.bytesRead + this.touchedBytes;
  }

  /**
   * Whether reads ahead of need pay here: a source that sends many ranges a request (RangeSource.partBytes, a host on
   * a link) costs a round trip a stage of reads, and a few more ranges in a stage cost little beside it. Memory, a
   * file or a host answering one range a request read what a question needs only (library.ts: round twenty-two).
   */
  get readsAhead(): boolean {
    return partGap(this.source) > 0;
  }

  /** How many reads have found their bytes missing so far (a run that leaves it unchanged read only what is here). */
  get misses(): number {
    return this.missCount;
  }
  private missCount = 0;

  /** Whether the last run noted anything missing. */
  get missing(): boolean {
    return this.wantedBlocks.size > 0 || this.wantedGroups.size > 0;
  }

  /** Bytes [offset, offset + length) of the part, or undefined (noted as wanted) when a block is not loaded. */
  bytes(offset: number, length: number): Uint8Array | undefined {
    if (
      !Number.isSafeInteger(offset) ||
      !Number.isSafeInteger(length) ||
      offset < 0 ||
      length < 0 ||
      offset + length > this.sectionsLength
    ) {
      throw new PagesError(
        `${this.source.name}: ${this.partName} has no bytes ${offset}..${offset + length}`,
      );
    }
    if (length === 0) return new Uint8Array(0);
    const first = this.layout.blockOf(offset);
    const last = this.layout.blockOf(offset + length - 1);
    if (this.held) {
      for (let b = first; b <= last; b++) {
        if (this.blocks.has(b)) continue;
        const bytes = this.layout.endOf(b) - this.layout.startOf(b);
        // Version 13: a block's bytes lie after the paths before it; held as a view (the part is held whole).
        const from = this.layout.storedStartOf(b);
        this.blocks.set(b, this.layout.paths ? this.held.subarray(from, from + bytes) : EMPTY);
        this.touchedBytes += bytes;
        this.blockBytes += bytes;
      }
      if (!this.layout.paths) return this.held.subarray(offset, offset + length);
    } else {
      let complete = true;
      for (let b = first; b <= last; b++) {
        if (!this.blocks.has(b)) {
          this.wantedBlocks.add(b);
          complete = false;
        }
      }
      if (!complete) {
        this.missCount++;
        return undefined;
      }
    }
    if (first === last) {
      const block = this.blocks.get(first)!;
      const from = offset - this.layout.startOf(first);
      return block.subarray(from, from + length);
    }
    const out = new Uint8Array(length);
    let at = 0;
    for (let b = first; b <= last; b++) {
      const block = this.blocks.get(b)!;
      const start = this.layout.startOf(b);
      const from = b === first ? offset - start : 0;
      const to = Math.min(block.length, offset + length - start);
      out.set(block.subarray(from, to), at);
      at += to - from;
    }
    return out;
  }

  /**
   * A decoded group (gzip'd JSON of a grouped section), or undefined (noted) when it is not decoded yet: decoding
   * inflates, which is asynchronous, so it happens in load() between runs.
   */
  group<T>(key: string, offset: number, length: number, decode: Decode = decodeJson): T | undefined {
    if (this.decoded.has(key)) return this.decoded.get(key) as T;
    if (this.previous.has(key)) {
      const value = this.previous.get(key);
      this.previous.delete(key);
      this.decoded.set(key, value);
      return value as T;
    }
    if (this.held && length > 0) {
      const value = this.decodeGroup(key, this.bytes(offset, length)!, decode);
      // An asynchronous decoder (the `open` section's) is awaited in load(), as for pages read by ranges.
      if (!isThenable(value)) {
        this.decoded.set(key, value);
        return value as T;
      }
      void Promise.resolve(value).catch(() => undefined); // rejected, it fails the load() that awaits it
      this.wantedGroups.set(key, { offset, length, decode, pending: value });
      this.missCount++;
      return undefined;
    }
    this.wantedGroups.set(key, { offset, length, decode });
    this.missCount++;
    return undefined;
  }

  /** A group's decoder run over its bytes; what it throws names the group. */
  private decodeGroup(key: string, raw: Uint8Array, decode: Decode): unknown {
    const fail = (e: unknown): never => {
      throw new PagesError(
        `${this.source.name}: ${this.partName} group ${key} does not decode (${messageOf(e)})`,
      );
    };
    try {
      const value = decode(raw);
      return isThenable(value) ? Promise.resolve(value).catch(fail) : value;
    } catch (e) {
      return fail(e);
    }
  }

  /**
   * Forgets every decoded group and every block read: for a caller that has taken what it read and will not ask
   * again soon (the KG build reads its core chunks' records once for their ids, then a batch at a time for their
   * texts), whose reads would otherwise stay decoded for the library's life. Not during a read.
   */
  forget(): void {
    this.generation++;
    this.decoded = new Map();
    this.previous = new Map();
    this.blocks.clear();
    this.blockBytes = 0;
  }

  /**
   * Between questions: forgets every block when they have grown past their bound, and the decoded groups no question
   * has used since the trim before (two generations: a walk through a gigabyte library's hubs uses tens of thousands
   * of row groups, question after question; forgetting them all made each question decode them again).
   */
  trim(): void {
    if (this.blockBytes > MAX_BLOCK_BYTES) {
      this.blocks.clear();
      this.blockBytes = 0;
    }
    if (this.decoded.size > MAX_DECODED) {
      this.generation++;
      this.previous = this.decoded;
      this.decoded = new Map();
    }
  }

  /**
   * Takes what is noted so far (and its follow-ups) out of the next load(): a question that shows the words'
   * evidence early loads what they need first, then restore()s the walk's notes (library.ts search).
   */
  setAside(): NotedReads {
    const noted: NotedReads = {
      blocks: [...this.wantedBlocks],
      groups: [...this.wantedGroups],
      followUps: this.followUps.splice(0),
    };
    this.wantedBlocks.clear();
    this.wantedGroups.clear();
    return noted;
  }

  /** Notes again what setAside() took, less what has been loaded since. */
  restore(noted: NotedReads): void {
    for (const b of noted.blocks) if (!this.blocks.has(b)) this.wantedBlocks.add(b);
    for (const [key, g] of noted.groups) if (!this.decoded.has(key)) this.wantedGroups.set(key, g);
    this.followUps.push(...noted.followUps);
  }

  /**
   * Runs `then` once the next load() has brought what is noted now, in the same load: what it notes in turn is read
   * before load() returns. A walk that finds a concept's chunk list missing knows it will want those chunks' rows next;
   * read in the same round, a layer of the walk costs one round of reads instead of two.
   */
  after(then: () => void): void {
    // Held pages are never missing: nothing waits for a round.
    if (this.held) return;
    this.followUps.push(then);
  }

  /**
   * Fetches and checks every block noted, then decodes every group noted; then runs the follow-ups (after()) and reads
   * what they noted, up to MAX_STAGES times. What the last stage's follow-ups noted stays noted for the next load.
   */
  async load(options: LoadOptions = {}): Promise<void> {
    this.restore(await this.loadTaken(this.setAside(), options));
  }

  /**
   * Loads reads set aside (setAside), its follow-ups' notes apart from anything noted meanwhile: another load may be
   * in flight (library.ts search reads the walk's rows beside the early evidence's records). Takes its reads when
   * called, not at its first await. Returns what the last stage's follow-ups noted, not yet read.
   */
  async loadTaken(noted: NotedReads, options: LoadOptions = {}): Promise<NotedReads> {
    for (let stage = 0; stage < MAX_STAGES && (noted.blocks.length > 0 || noted.groups.length > 0); stage++) {
      options.signal?.throwIfAborted();
      timelineMark('stage', { stage, noted: noted.blocks.length + noted.groups.length });
      await this.loadNoted(noted, options);
      timelineMark('decoded', { stage });
      const started = performance.now();
      // What the follow-ups note is this load's next stage (synchronous: nothing else notes meanwhile).
      const outer = this.setAside();
      for (const then of noted.followUps) then();
      noted = this.setAside();
      this.restore(outer);
      this.spent.followUpMs += performance.now() - started;
    }
    timelineMark('loaded');
    // Follow-ups left (the last stage's) are dropped: the next run notes whatever it still lacks.
    return { blocks: noted.blocks, groups: noted.groups, followUps: [] };
  }

  private slotPool(): SlotPool {
    // The source's count asked anew each time (it grows once the host's protocol is known).
    return (this.pool ??= new SlotPool(() => inFlightOf(this.source)));
  }

  private async loadNoted(noted: NotedReads, options: LoadOptions): Promise<void> {
    const { groups } = noted;
    const wanted = new Set<number>();
    for (const b of noted.blocks) if (!this.blocks.has(b)) wanted.add(b);
    for (const [, g] of groups) {
      if (g.length === 0) continue;
      const first = this.layout.blockOf(g.offset);
      const last = this.layout.blockOf(g.offset + g.length - 1);
      for (let b = first; b <= last; b++) if (!this.blocks.has(b)) wanted.add(b);
    }
    const reading = performance.now();
    if (!this.held) {
      // Blocks another load has in flight are waited for, not fetched again.
      const own: number[] = [];
      const elsewhere = new Set<Promise<void>>();
      for (const b of [...wanted].sort((a, b) => a - b)) {
        const arriving = this.arriving.get(b);
        if (arriving) elsewhere.add(arriving);
        else own.push(b);
      }
      const awaiting = this.groupsAwaiting(groups);
      await Promise.all([
        this.fetchBlocks(own, (runs) => this.arrived(awaiting, runs), options),
        ...elsewhere,
      ]);
    }
    this.spent.readMs += performance.now() - reading;
    const decoding = performance.now();
    for (const [key, g] of groups) {
      if (this.decoded.has(key)) continue;
      const raw = this.bytes(g.offset, g.length);
      if (!raw) throw new PagesError(`${this.source.name}: blocks of ${key} did not load`);
      this.decoded.set(key, await (g.pending ?? this.decodeGroup(key, raw, g.decode)));
    }
    this.spent.decodeMs += performance.now() - decoding;
  }

  /**
   * Called after each request of a load has been checked, while the others are still on their way: decodes the
   * groups of the load whose blocks are all here (a decoder that answers at once: the rows', the dictionaries',
   * the records'), then lets `onArrival` use them. A round that reads megabytes of rows waits seconds on the link at
   * 10 Mbit/s with the thread idle; what is decoded and computed meanwhile is not done after the last response.
   */
  private arrived(awaiting: GroupsAwaiting, runs: ReadonlyArray<[number, number]>): void {
    timelineMark('arrive');
    try {
      this.decodeArrived(awaiting, runs);
    } finally {
      timelineMark('arrived');
    }
  }

  private decodeArrived(awaiting: GroupsAwaiting, runs: ReadonlyArray<[number, number]>): void {
    const decoding = performance.now();
    for (const [key, g] of awaiting.complete(runs)) {
      const raw = g.pending || this.decoded.has(key) ? undefined : this.bytes(g.offset, g.length);
      // (Not here: loadNoted's pass after the load refuses it by name.)
      if (!raw) continue;
      const value = this.decodeGroup(key, raw, g.decode);
      if (isThenable(value)) {
        // An asynchronous decoder (the `open` section's): loadNoted awaits it, and fails the load when it is refused.
        void Promise.resolve(value).catch(() => undefined);
        g.pending = value;
        continue;
      }
      this.decoded.set(key, value);
    }
    this.spent.decodeMs += performance.now() - decoding;
    if (!this.onArrival) return;
    const started = performance.now();
    this.onArrival();
    this.spent.arrivalMs += performance.now() - started;
  }

  /**
   * The groups of a load still to decode, each with the count of its blocks not here yet, and for each such block the
   * groups waiting on it: a response then costs its own blocks, where checking every group of the load at each
   * response cost groups × responses (a host answering one range a request sends thousands of responses for
   * thousands of rows' groups a load: at 100 MiB 38 of 48 s of CPU over 4 questions, round twenty-five's wip/gib25).
   */
  private groupsAwaiting(groups: ReadonlyArray<[string, WantedGroup]>): GroupsAwaiting {
    const missing: number[] = [];
    const byBlock = new Map<number, number[]>();
    const ready: number[] = [];
    groups.forEach(([key, g], i) => {
      missing.push(0);
      if (g.pending || g.length === 0 || this.decoded.has(key)) return;
      const last = this.layout.blockOf(g.offset + g.length - 1);
      for (let b = this.layout.blockOf(g.offset); b <= last; b++) {
        if (this.blocks.has(b)) continue;
        missing[i]++;
        const waiting = byBlock.get(b);
        if (waiting) waiting.push(i);
        else byBlock.set(b, [i]);
      }
      if (missing[i] === 0) ready.push(i);
    });
    return new GroupsAwaiting(groups, missing, byBlock, ready);
  }

  /**
   * Counts the times decoded groups were let go (trim, forget): a group group() gave stays decoded while it is the
   * same, so a reader may keep what it was given under its own index until it changes (sectionReader.ts rowGroup).
   */
  generation = 0;

  /** Whether a group is decoded (nothing noted, nothing moved between generations). */
  hasGroup(key: string): boolean {
    return this.decoded.has(key) || this.previous.has(key);
  }

  /**
   * Work a reader does between the responses of a load (see arrived()): it must note nothing missing (it may read
   * only what hasGroup() and the blocks say is here), since the run after the load is what notes.
   */
  onArrival: (() => void) | undefined;

  /**
   * Reads the wanted blocks in runs (mergedRuns, blocks at most the source's gap apart in one run), a few requests in
   * flight, and checks every block's digest. A source
   * that reads several ranges at once (readRanges: a host answering multi-range requests) gets the runs in batches,
   * one request each; any other source one range a run.
   */
  private async fetchBlocks(
    wanted: number[],
    arrived: (runs: ReadonlyArray<[number, number]>) => void,
    options: LoadOptions,
  ): Promise<void> {
    if (wanted.length === 0) return;
    // Blocks at most the source's gap apart in bytes (from version 8 blocks differ in size by section: a gap counted
    // in blocks of the rows' 128 bytes would be a quarter of the bytes, and four times the ranges on a host that
    // answers one range a request).
    const gapBytes = gapBlocks(this.source, this.blockSize) * this.blockSize;
    // Wanted blocks less than a part's headers apart (partGap) are read as one range with the blocks between them,
    // which are checked and kept as every block read.
    // Never across a block another load has in flight (a block is fetched once).
    const runs = this.apartFromArriving(
      this.pageAligned(
        mergedBlockRuns(wanted, Math.max(gapBytes, partGap(this.source)), this.layout),
        gapBytes,
      ),
    );
    // Version 13: a run's stored bytes, each block with its path after it, but the last block's read only up to the
    // first node of its leaf page's tree already proven (none of it when the page is here, or its own hash proven by
    // a sibling's path): a later question's rows lie in pages earlier ones touched, and the rest would be read for
    // nothing.
    // Paged hashes: the hash pages of these blocks that are not here yet are read in the same stage (no round of
    // their own), in the first request of blocks when a host takes several ranges a request and they fit, else in
    // requests of their own ahead of the blocks'; each block waits for them to be checked.
    const { runs: pageRuns, computed, elsewhere: pagesElsewhere, warm } = this.missingHashPages(runs);
    const pathRead = new Map<number, number>();
    if (this.paths)
      for (const [, last] of runs) {
        // A page made from the run's blocks (and hashes proven) checks them all: no path.
        const bytes = computed.has(Math.floor(last / LEAF_HASHES)) ? 0 : this.pathNeeded(last);
        if (bytes < this.layout.pathBytesOf(last)) pathRead.set(last, bytes);
      }
    const range = ([first, last]: [number, number]): [number, number] => {
      const from = this.layout.storedStartOf(first);
      return [this.base + from, this.storedEndOf(last, pathRead) - from];
    };
    const readRanges = this.source.readRanges?.bind(this.source);
    const read = async (ranges: Array<[number, number]>): Promise<Uint8Array[]> =>
      readRanges ? await readRanges(ranges) : [await this.source.read(ranges[0][0], ranges[0][1])];
    // What the source says a request costs: how many it keeps out at once and how many ranges one carries (a host
    // answering one range a request over HTTP/2: many in flight, a range each).
    // A load that says how many requests it takes (LoadOptions.requests) leaves the other slots to a load beside it.
    const inFlight = Math.min(inFlightOf(this.source), options.requests ?? Infinity);
    const perRequest = rangesARequestOf(this.source);
    // A wave of more requests than may be in flight is staggered (staggeredBatches).
    const blockBatches = readRanges ? staggeredBatches(runs, inFlight, perRequest) : runs.map((r) => [r]);
    // Each job with what fails when it is never sent (a refused block or a cancelled question drops it).
    const jobs: Array<{ send: () => Promise<void>; dropped: (e: unknown) => void }> = [];
    // The pages read ahead (warm) are checked before this load's own pages below them can be.
    const warmIn = Promise.all(warm);
    let pagesIn: Promise<unknown> = Promise.all([...pagesElsewhere, warmIn]);
    pagesIn.catch(() => undefined); // awaited by every batch of blocks, which fails with it
    // The hash page ranges each batch of blocks carries after its own (none when they go in requests of their own).
    let carried: Array<Array<[number, number]>> = blockBatches.map(() => []);
    let arrivals: Array<{ deliver: (bytes: Uint8Array[]) => void; fail: (e: unknown) => void }> = [];
    if (pageRuns.length > 0) {
      const { offset } = this.hashes as PagedHashes;
      const pageRanges = pageRuns.map(({ level, first, last }): [number, number] => {
        const { at, length, pageSize } = this.levels[level];
        return [offset + at + first * pageSize, Math.min(length, (last + 1) * pageSize) - first * pageSize];
      });
      // Spread over the batches, a share after each one's blocks, so that every request of the stage goes out at
      // once: in requests of their own they took slots of the 6 in flight, and at 100 MiB the early evidence's last
      // two batches of records waited ~260 ms for one (round fourteen's waterfall: ~156 scattered pages of 256 bytes
      // do not fit beside one batch). Only when every batch is in flight together: each waits on all the pages, and
      // one queued behind it would never be sent.
      let spread = false;
      if (readRanges && blockBatches.length <= inFlight) {
        const n = blockBatches.length;
        const shares = blockBatches.map((_, i) =>
          pageRanges.slice(
            Math.floor((i * pageRanges.length) / n),
            Math.floor(((i + 1) * pageRanges.length) / n),
          ),
        );
        if (shares.every((share, i) => share.length + blockBatches[i].length <= perRequest)) {
          carried = shares;
          spread = true;
        }
      }
      const promises: Array<Promise<Uint8Array[]>> = [];
      arrivals = Array.from({ length: spread ? blockBatches.length : 1 }, () => {
        let deliver: (bytes: Uint8Array[]) => void = () => undefined;
        let fail: (e: unknown) => void = () => undefined;
        promises.push(
          new Promise<Uint8Array[]>((resolve, reject) => {
            deliver = resolve;
            fail = reject;
          }),
        );
        return { deliver: (bytes: Uint8Array[]) => deliver(bytes), fail: (e: unknown) => fail(e) };
      });
      // In page order: the shares are consecutive slices of the page ranges, delivered batch by batch.
      const own = Promise.all([Promise.all(promises), warmIn]).then(([parts]) =>
        this.acceptHashPages(pageRuns, parts.flat()),
      );
      own.catch(() => undefined); // awaited by every batch of blocks, which fails with it
      // Another load's blocks may wait on these pages: only on their own requests (never on another load's pages).
      for (const { level, first, last } of pageRuns)
        for (let p = first; p <= last; p++)
          if (level === 0) this.pagesArriving.set(p, own);
          else this.upperReading.set(pageKey(level, p), own);
      void own.then(
        () => this.forgetPages(pageRuns, own),
        () => this.forgetPages(pageRuns, own),
      );
      pagesIn = Promise.all([own, pagesIn]);
      pagesIn.catch(() => undefined);
      if (!spread) {
        // Read ahead of the blocks, in requests of their own; the batches carry none.
        const arrival = arrivals[0];
        arrivals = [];
        if (readRanges) {
          // A job of the queue each request (one, where they fit in one), ahead of every batch of blocks: taken first,
          // so a batch waiting on them never holds a slot they need; and a source that reads a range a request
          // (rangesARequest 1) keeps no more out at once than it said.
          const own = batchesOf(pageRanges, 1, perRequest);
          const got: Uint8Array[][] = [];
          let left = own.length;
          own.forEach((batch, k) =>
            jobs.push({
              send: async () => {
                try {
                  got[k] = await read(batch);
                } catch (e) {
                  arrival.fail(e);
                  throw e;
                }
                if (--left === 0) arrival.deliver(got.flat());
              },
              dropped: arrival.fail,
            }),
          );
        } else
          jobs.push({
            send: async () => {
              try {
                arrival.deliver((await Promise.all(pageRanges.map((r) => read([r])))).flat());
              } catch (e) {
                arrival.fail(e);
                throw e;
              }
            },
            dropped: arrival.fail,
          });
      }
    }
    // Each batch's check (see below), awaited once every request of the stage has been sent.
    const checks: Array<Promise<void>> = [];
    const pool = this.slotPool();
    blockBatches.forEach((batch, i) => {
      // Its blocks are in flight from now: another load that wants one waits for this check.
      const checked = this.inFlight(batch);
      jobs.push({
        dropped: (e) => {
          arrivals[i]?.fail(e);
          checked.fail(e);
        },
        send: async () => {
          const extra = carried[i];
          const arrival = arrivals[i];
          let bytes: Uint8Array[];
          const ranges = [...batch.map(range), ...extra];
          timelineMark('send', {
            ranges: ranges.length,
            bytes: ranges.reduce((n, [, length]) => n + length, 0),
          });
          try {
            // After the blocks': the hashes part follows the pages in a bundle, and a Range header lists ascending.
            bytes = await read(ranges);
          } catch (e) {
            arrival?.fail(e);
            checked.fail(e);
            throw e;
          }
          timelineMark('got', { ranges: ranges.length });
          arrival?.deliver(bytes.slice(batch.length));
          // Checked apart from the request's slot, which takes the next request at its last byte: a batch waits for
          // every hash page of the stage (pagesIn), and a stage of more batches than slots sends its pages in a request
          // of their own, often the largest. Checked in its slot, each batch of the first wave held its connection
          // until that request ended (Chromium, 100 MiB: five slots idle ~170 ms a large stage, round twenty-four's
          // link-timeline.ts), and every later request waited for its slot's digests as well.
          const check = (async () => {
            await pagesIn;
            await this.accept(batch, bytes.slice(0, batch.length), computed, pathRead);
            arrived(batch);
            timelineMark('checked', { ranges: ranges.length });
          })();
          check.then(checked.done, checked.fail);
          // Awaited below with every other check, which fails the load; a refused block stops every load's next sends.
          check.catch((e: unknown) => pool.drop(e));
          checks.push(check);
        },
      });
    });
    // A few requests in flight (the pool's, shared with any other load): a static host answers them in parallel, a
    // file reads them back to back. A cancelled question sends none of its loads' next requests.
    await Promise.all(
      jobs.map(({ send, dropped }) =>
        pool
          .run(async () => {
            options.signal?.throwIfAborted();
            await send();
          }, options.background)
          .catch((e: unknown) => {
            dropped(e);
            throw e;
          }),
      ),
    );
    await Promise.all(checks);
  }

  /**
   * Marks the blocks of a request's runs in flight (arriving) until `done` or `fail`: another load waits on them. A
   * failure is also handled here, so that a refusal nobody else waits on is not left unhandled.
   */
  private inFlight(runs: ReadonlyArray<[number, number]>): {
    done: () => void;
    fail: (e: unknown) => void;
  } {
    let settle: { done: () => void; fail: (e: unknown) => void } = { done: () => {}, fail: () => {} };
    const promise = new Promise<void>((done, fail) => (settle = { done, fail }));
    promise.catch(() => undefined);
    for (const [first, last] of runs) for (let b = first; b <= last; b++) this.arriving.set(b, promise);
    const forget = () => {
      for (const [first, last] of runs)
        for (let b = first; b <= last; b++) if (this.arriving.get(b) === promise) this.arriving.delete(b);
    };
    return {
      done: () => {
        forget();
        settle.done();
      },
      fail: (e) => {
        forget();
        settle.fail(e);
      },
    };
  }

  /** Forgets the pages a load read from `pagesArriving` once they are checked (or refused). */
  private forgetPages(runs: readonly PageRun[], own: Promise<unknown>): void {
    for (const { level, first, last } of runs)
      for (let p = first; p <= last; p++)
        if (level === 0) {
          if (this.pagesArriving.get(p) === own) this.pagesArriving.delete(p);
        } else if (this.upperReading.get(pageKey(level, p)) === own)
          this.upperReading.delete(pageKey(level, p));
  }

  /**
   * Over a link (readsAhead), reads the hash pages every question would read whatever its words (warmPages.ts: level 1
   * over the blocks that carry paths, every level above it), in one request of the pool's last class: any question's
   * requests go first. Meant for once the library is open and before the first question (a person looks at the
   * Library view for seconds): at 100 MiB of text 162 KB, which a cold question read in its own requests (0.13 s of a
   * 10 Mbit/s link; 1.8 MB at 1 GiB). Each page is checked as a question's is (acceptHashPages: from the top list down); a page
   * that fails refuses as there, naming it. A load that needs a page of it once sent waits for it; a page a load is
   * reading already is left to it (waited for before the check). Not sent once `signal` is aborted (the library
   * closed or replaced). Resolves to the pages' bytes read (0: nothing to read, or not a link).
   */
  async readUpperPages(signal?: AbortSignal): Promise<number> {
    if (!this.readsAhead || this.held || this.hashes instanceof Uint8Array) return 0;
    const levels = this.levels;
    // Level 1 over the rows' blocks (version 17's lists carry paths too, but see warmListRuns) and the levels above;
    // then the lists' level 1 when few enough that a question would read most of it, in a request of its own, only
    // while no question has asked for anything: one asked at once would wait for that request where it needs a page
    // of it (at 100 MiB, asked at once, first evidence 906 → 1,040 ms p50 in link-sim.ts, settled +29 ms) and reads
    // the pages it needs in its own requests.
    const misses = this.missCount;
    const rows = await this.readAhead(warmRuns(this.layout.paths && this.layout.rowBlocks, levels), signal);
    if (this.missCount !== misses) return rows;
    return rows + (await this.readAhead(warmListRuns(this.layout.blocksOf('lists'), levels), signal));
  }

  /** readUpperPages' request of `runs` (pages held, or being read by a load, left out). */
  private async readAhead(runs: readonly WarmRun[], signal?: AbortSignal): Promise<number> {
    if (runs.length === 0) return 0;
    const levels = this.levels;
    const { offset } = this.hashes as PagedHashes;
    const wanted: PageRun[] = [];
    let bytes: Uint8Array[] = [];
    let settle: { done: () => void; fail: (e: unknown) => void } = { done: () => {}, fail: () => {} };
    const checked = new Promise<void>((done, fail) => (settle = { done, fail }));
    checked.catch(() => undefined); // a load waiting on it fails with it; a refusal nobody waits on is not unhandled
    const readRanges = this.source.readRanges?.bind(this.source);
    await this.slotPool().run(async () => {
      signal?.throwIfAborted();
      // What is still missing when the slot comes: a question asked meanwhile may hold some pages or be reading them.
      const waits = new Set<Promise<unknown>>();
      for (const { level, first, last } of runs)
        for (let p = first; p <= last; p++) {
          if (this.hashPages[level].has(p)) continue;
          const reading = this.upperReading.get(pageKey(level, p));
          if (reading) {
            waits.add(reading);
            continue;
          }
          const run = wanted.at(-1);
          if (run && run.level === level && run.last === p - 1) run.last = p;
          else wanted.push({ level, first: p, last: p });
          this.warmArriving.set(pageKey(level, p), checked);
        }
      if (wanted.length === 0) return;
      const ranges = wanted.map(({ level, first, last }): [number, number] => {
        const { at, length, pageSize } = levels[level];
        return [offset + at + first * pageSize, Math.min(length, (last + 1) * pageSize) - first * pageSize];
      });
      timelineMark('send', { ranges: ranges.length, bytes: ranges.reduce((n, [, l]) => n + l, 0) });
      try {
        bytes = readRanges
          ? await readRanges(ranges)
          : await Promise.all(ranges.map(([o, l]) => this.source.read(o, l)));
        // Checked apart from the slot (as a batch of blocks is): the pages a load is reading come first.
        void Promise.all(waits)
          .then(() => this.acceptHashPages(wanted, bytes))
          .then(settle.done, settle.fail);
      } catch (e) {
        settle.fail(e);
        throw e;
      }
    }, 'idle');
    if (wanted.length === 0) return 0;
    try {
      await checked;
    } finally {
      for (const { level, first, last } of wanted)
        for (let p = first; p <= last; p++)
          if (this.warmArriving.get(pageKey(level, p)) === checked)
            this.warmArriving.delete(pageKey(level, p));
    }
    return bytes.reduce((n, b) => n + b.length, 0);
  }

  /** The runs less every block another load has in flight (split where one lies inside). */
  private apartFromArriving(runs: Array<[number, number]>): Array<[number, number]> {
    if (this.arriving.size === 0) return runs;
    const out: Array<[number, number]> = [];
    for (const [first, last] of runs) {
      let from = first;
      for (let b = first; b <= last; b++) {
        if (!this.arriving.has(b)) continue;
        if (b > from) out.push([from, b - 1]);
        from = b + 1;
      }
      if (from <= last) out.push([from, last]);
    }
    return out;
  }

  /**
   * For a source that reads across gaps (a host answering one range a request): each run widened to whole pages of
   * block hashes where that reads at most the gap more at either end, so that the pages are computed from the blocks
   * rather than read (missingHashPages). A page of 8 hashes covers 1 KiB of the rows' 128-byte blocks: at 100 MiB,
   * where the gaps make the rows' zone read nearly whole, its pages of hashes (1 MB) were read with it.
   * Not at an end whose block carries its path (version 13's rows): such a block is checked by its path, read with
   * it, where its page is not here, and a page made from the blocks saves no read but the last path's 48 bytes. Round
   * twenty-eight: at 100 MiB, one range a request over HTTP/2 (gap 4 KiB), a cold first page read 8,372 → 6,728 KB p50
   * (the rows 5,872 → 4,593 KB mean) in 2,151 → 2,211 requests, its hash pages' bytes the same (450 KB mean).
   */
  private pageAligned(runs: Array<[number, number]>, gapBytes: number): Array<[number, number]> {
    if (gapBytes === 0 || this.hashes instanceof Uint8Array || runs.length === 0) return runs;
    // Version 10's rows' blocks are placed once `open` is read (blockLayout.ts): `open`'s own read is not widened.
    if (!this.layout.placed) return runs;
    const perPage = this.levels[0].pageSize / this.levels[0].entry;
    if (!Number.isInteger(perPage) || perPage < 1) return runs;
    const out: Array<[number, number]> = [];
    for (const [first, last] of runs) {
      const from = Math.floor(first / perPage) * perPage;
      const to = Math.min(Math.ceil((last + 1) / perPage) * perPage, this.layout.count) - 1;
      // Where a page of hashes covers little (the 128- and 256-byte zones), by up to the whole gap; a block that carries
      // its path, not at all.
      const most = (b: number) =>
        this.layout.pathBytesOf(b) > 0
          ? 0
          : (this.layout.endOf(b) - this.layout.startOf(b)) * perPage <= 2048
            ? gapBytes
            : Math.min(gapBytes, WIDEN_BYTES);
      const a = this.layout.startOf(first) - this.layout.startOf(from) <= most(first) ? from : first;
      const z = this.layout.endOf(to) - this.layout.endOf(last) <= most(last) ? to : last;
      const prev = out.at(-1);
      if (prev && a <= prev[1] + 1) prev[1] = Math.max(prev[1], z);
      else out.push([a, z]);
    }
    return out;
  }

  /**
   * The runs of hash pages that the runs' blocks need and the store has not read: every block of a run, the ones read
   * between two wanted blocks too (a source's gap of 32 KiB spans 16 blocks of 2 KiB, a whole page of 256 bytes).
   * A page of block hashes whose every block lies in one run is not read but `computed`: accept() makes it from the
   * blocks' digests and checks it against its hash in the level above, as a read one is checked (a host answering one
   * range a request reads whole stretches of a section through its gaps: at 100 MiB the rows' zone of 128-byte blocks
   * nearly whole, and its pages of block hashes, 16 bytes for every 128, with it).
   */
  private missingHashPages(runs: ReadonlyArray<[number, number]>): {
    runs: PageRun[];
    computed: Set<number>;
    /** Pages of block hashes another load is reading: waited for, not read again. */
    elsewhere: Set<Promise<unknown>>;
    /** Pages above the leaves read ahead of any question (readUpperPages): waited for, not read again. */
    warm: Set<Promise<unknown>>;
  } {
    const computed = new Set<number>();
    const pathed = new Set<number>();
    const elsewhere = new Set<Promise<unknown>>();
    const warm = new Set<Promise<unknown>>();
    if (this.hashes instanceof Uint8Array) return { runs: [], computed, elsewhere, warm };
    const out: PageRun[] = [];
    // Level by level: the pages of the level below that are missing need theirs (a page held was checked already).
    let below: Array<[number, number]> = runs.map(([first, last]) => [first, last]);
    for (let level = 0; level < this.levels.length && below.length > 0; level++) {
      const { pageSize, entry } = this.levels[level];
      const held = this.hashPages[level];
      const perPage = pageSize / entry;
      const pages: number[] = [];
      for (const [first, last] of below) {
        const [from] = hashPageOf(first, entry, pageSize);
        const [to] = hashPageOf(last, entry, pageSize);
        for (let p = from; p <= to; p++) {
          if (held.has(p) || pages[pages.length - 1] === p) continue;
          const arriving = level === 0 ? this.pagesArriving.get(p) : undefined;
          if (arriving) {
            elsewhere.add(arriving);
            continue;
          }
          // Read ahead of the question (readUpperPages) and on its way: waited for, with the pages above it.
          const warming = level > 0 ? this.warmArriving.get(pageKey(level, p)) : undefined;
          if (warming) {
            warm.add(warming);
            continue;
          }
          if (
            level === 0 &&
            Number.isInteger(perPage) &&
            this.allHere(p * perPage, Math.min((p + 1) * perPage, this.layout.count) - 1, first, last, runs)
          )
            computed.add(p);
          else if (
            level === 0 &&
            this.layout.pathBytesOf(Math.max(first, p * perPage)) > 0 &&
            this.layout.pathBytesOf(Math.min(last, (p + 1) * perPage - 1)) > 0
          )
            // Version 13: the run's blocks in this page carry their paths (one zone: its first and last do), checked
            // against the page's hash in the level above; the page itself is not read.
            pathed.add(p);
          else pages.push(p);
        }
      }
      pages.sort((a, b) => a - b);
      const unique = pages.filter((p, i) => i === 0 || p !== pages[i - 1]);
      // Pages at most the source's gap apart in one run, as blocks are: a host answering one range a request pays a
      // round trip a range (at 32 KiB, 120 more ranges a cold question at 100 MiB read page by page).
      const read = mergedRuns(unique, gapBlocks(this.source, pageSize));
      for (const [first, last] of read) out.push({ level, first, last });
      // The pages computed (and version 13's pages of paths) need their hashes in the level above as much as the
      // pages read.
      below =
        level === 0
          ? [...read, ...[...computed, ...pathed].map((p): [number, number] => [p, p])].sort(
              (a, b) => a[0] - b[0],
            )
          : read;
    }
    return { runs: out, computed, elsewhere, warm };
  }

  /**
   * Pages of block hashes made from the digests of blocks just read (missingHashPages' `computed`: a page whose
   * every block is here), each checked against its hash in the level above (or the top list) before it is kept.
   * One that does not check out is read instead, so that a changed block is named by its number (accept()).
   */
  private async computePages(pages: readonly number[], digestOf: (b: number) => Uint8Array): Promise<void> {
    const { pageSize, length } = this.levels[0];
    const perPage = pageSize / this.hashBytes;
    const made = pages.map((p) => {
      const page = new Uint8Array(Math.min(pageSize, length - p * pageSize));
      for (let b = p * perPage, at = 0; at < page.length; b++, at += this.hashBytes)
        page.set(digestOf(b).subarray(0, this.hashBytes), at);
      return page;
    });
    const digests = await this.leafDigests(made);
    const failed: number[] = [];
    pages.forEach((p, k) => {
      if (this.pageFits(0, p, digests[k])) this.hashPages[0].set(p, made[k]);
      else failed.push(p);
    });
    if (failed.length === 0) return;
    const { offset } = this.hashes as PagedHashes;
    const runs: PageRun[] = failed.map((p) => ({ level: 0, first: p, last: p }));
    const bytes = await Promise.all(
      failed.map((p) => this.source.read(offset + p * pageSize, Math.min(pageSize, length - p * pageSize))),
    );
    await this.acceptHashPages(runs, bytes);
  }

  /** The hashes of leaf pages as the level above holds them: SHA-256, or version 13's roots (blockPaths.ts). */
  private leafDigests(pages: readonly Uint8Array[]): Promise<Uint8Array[]> {
    return this.paths ? Promise.resolve(leafRoots(pages)) : blockDigests(pages);
  }

  /** Whether a hash page's digest is its hash: in the top list for the last level, else in the page above (held). */
  private pageFits(level: number, p: number, digest: Uint8Array): boolean {
    if (level === this.levels.length - 1)
      return matchesBlockHash(digest, (this.hashes as PagedHashes).top, p, TOP_HASH_BYTES);
    const above = this.levels[level + 1];
    const [q, at] = hashPageOf(p, TOP_HASH_BYTES, above.pageSize);
    const page = this.hashPages[level + 1].get(q);
    if (!page)
      throw new PagesError(
        `${this.source.name}: the hash page above page ${p} of level ${level} did not load`,
      );
    return matchesBlockHash(digest, page.subarray(at), 0, TOP_HASH_BYTES);
  }

  /**
   * Hash pages from their bytes, each checked before it is kept: a page of the last level against its hash in the
   * directory's top list, a page below against its hash in the page above it (read before, or checked first here:
   * levels are checked from the top down), so every page is fixed by the manifest's digest.
   */
  private async acceptHashPages(runs: readonly PageRun[], bytes: readonly Uint8Array[]): Promise<void> {
    const { top } = this.hashes as PagedHashes;
    const pages: Uint8Array[] = [];
    const numbers: Array<[number, number]> = [];
    runs.forEach(({ level, first, last }, i) => {
      const { length, pageSize } = this.levels[level];
      for (let p = first; p <= last; p++) {
        const from = (p - first) * pageSize;
        pages.push(bytes[i].slice(from, from + Math.min(pageSize, length - p * pageSize)));
        numbers.push([level, p]);
      }
    });
    // Version 13: a leaf page's hash is its root (blockPaths.ts); every page above is hashed whole.
    const leafAt = numbers.flatMap(([l], k) => (l === 0 && this.paths ? [k] : []));
    const isLeaf = new Set(leafAt);
    const digests = await blockDigests(pages.map((page, k) => (isLeaf.has(k) ? EMPTY : page)));
    if (leafAt.length > 0) {
      const roots = leafRoots(leafAt.map((k) => pages[k]));
      leafAt.forEach((k, i) => (digests[k] = roots[i]));
    }
    const checked = this.levels.map(() => new Map<number, Uint8Array>());
    const topLevel = this.levels.length - 1;
    for (let level = topLevel; level >= 0; level--) {
      const { length, pageSize } = this.levels[level];
      numbers.forEach(([l, p], k) => {
        if (l !== level) return;
        let fits = pages[k].length === Math.min(pageSize, length - p * pageSize);
        if (fits && level === topLevel) fits = matchesBlockHash(digests[k], top, p, TOP_HASH_BYTES);
        else if (fits) {
          const above = this.levels[level + 1];
          const [q, at] = hashPageOf(p, TOP_HASH_BYTES, above.pageSize);
          const page = checked[level + 1].get(q) ?? this.hashPages[level + 1].get(q);
          if (!page)
            throw new PagesError(
              `${this.source.name}: the hash page above page ${p} of level ${level} did not load`,
            );
          fits = matchesBlockHash(digests[k], page.subarray(at), 0, TOP_HASH_BYTES);
        }
        if (!fits)
          throw new PagesError(
            `${this.source.name}: corrupted (SHA-256 mismatch in hash page ${p}` +
              `${level > 0 ? ` of level ${level}` : ''} of part pages.sha256)`,
          );
        checked[level].set(p, pages[k]);
      });
    }
    checked.forEach((held, level) => held.forEach((page, p) => this.hashPages[level].set(p, page)));
  }

  /**
   * Whether every block of a leaf page [from, to] lies in the run [first, last] or has its hash proven by a checked
   * path (version 13) and lies in no other run: the page is then made from this run's digests rather than read
   * (missingHashPages), in this run's batch (a page another run touches would wait on two batches).
   */
  private allHere(
    from: number,
    to: number,
    first: number,
    last: number,
    runs: ReadonlyArray<[number, number]>,
  ): boolean {
    for (let b = from; b <= to; b++) {
      if (b >= first && b <= last) continue;
      if (!this.provenHash(b) || inRuns(runs, b)) return false;
    }
    return true;
  }

  /** Version 13: block b's hash where a checked path proved it (its leaf page not here). */
  private provenHash(b: number): Uint8Array | undefined {
    return this.proven.get(Math.floor(b / LEAF_HASHES))?.node(b % LEAF_HASHES, 0);
  }

  /** Where a run ending at block b ends as read: after its path, or the part of it read (fetchBlocks). */
  private storedEndOf(b: number, pathRead: ReadonlyMap<number, number>): number {
    const path = this.layout.pathBytesOf(b);
    return this.layout.storedEndOf(b) - path + (pathRead.get(b) ?? path);
  }

  /** The bytes of block b's path a run ending at it reads: none when its leaf page is here, else up to a proven node. */
  private pathNeeded(b: number): number {
    const path = this.layout.pathBytesOf(b);
    if (path === 0 || this.hasLeafOf(b)) return 0;
    const proven = this.proven.get(Math.floor(b / LEAF_HASHES));
    return proven ? Math.min(path, proven.needed(b % LEAF_HASHES) * PATH_NODE_BYTES) : path;
  }

  /** Whether block b's page of block hashes is here (paged hashes). */
  private hasLeafOf(b: number): boolean {
    const { pageSize } = this.levels[0];
    return this.hashPages[0].has(hashPageOf(b, this.hashBytes, pageSize)[0]);
  }

  /** Whether a block's digest begins with its hash (paged hashes: from its page, read and checked before). */
  private matches(digest: Uint8Array, b: number): boolean {
    if (this.hashes instanceof Uint8Array) return matchesBlockHash(digest, this.hashes, b, this.hashBytes);
    const [p, at] = hashPageOf(b, this.hashBytes, this.hashes.pageSize);
    const page = this.hashPages[0].get(p);
    if (!page) throw new PagesError(`${this.source.name}: the hash page of block ${b} did not load`);
    return matchesBlockHash(digest, page.subarray(at), 0, this.hashBytes);
  }

  /**
   * The blocks of each run from its bytes, each checked against its SHA-256 before any is kept. A batch's blocks are
   * digested in one go: awaited run by run, a request of 100 ranges waited on 100 turns of WebCrypto.
   */
  private async accept(
    runs: ReadonlyArray<[number, number]>,
    bytes: readonly Uint8Array[],
    computed: ReadonlySet<number> = new Set(),
    /** Version 13: the bytes of path read after runs' last blocks, where less than the whole (fetchBlocks). */
    pathRead: ReadonlyMap<number, number> = new Map(),
  ): Promise<void> {
    const blocks: Uint8Array[] = [];
    const numbers: number[] = [];
    // Version 13: the paths read after their blocks, by block.
    const paths = new Map<number, Uint8Array>();
    runs.forEach(([first, last], i) => {
      const from = this.layout.storedStartOf(first);
      const length = this.storedEndOf(last, pathRead) - from;
      if (bytes[i].length !== length)
        throw new PagesError(
          `${this.source.name}: blocks ${first}..${last} of part ${this.partName} came back with ` +
            `${bytes[i].length} bytes, expected ${length}`,
        );
      for (let b = first; b <= last; b++) {
        const at = this.layout.storedStartOf(b) - from;
        const end = at + this.layout.endOf(b) - this.layout.startOf(b);
        blocks.push(bytes[i].slice(at, end));
        numbers.push(b);
        if (this.layout.pathBytesOf(b) > 0)
          paths.set(b, bytes[i].subarray(end, end + (pathRead.get(b) ?? this.layout.pathBytesOf(b))));
      }
    });
    const hashing = performance.now();
    const digests = await blockDigests(blocks);
    if (computed.size > 0) {
      // The pages of block hashes this batch's blocks make whole (missingHashPages), not read: made and checked here.
      const digestAt = new Map(numbers.map((b, k) => [b, digests[k]]));
      const { pageSize } = this.levels[0];
      const mine: number[] = [];
      for (const [first, last] of runs) {
        const [from] = hashPageOf(first, this.hashBytes, pageSize);
        const [to] = hashPageOf(last, this.hashBytes, pageSize);
        for (let p = from; p <= to; p++) if (computed.has(p) && !this.hashPages[0].has(p)) mine.push(p);
      }
      if (mine.length > 0) await this.computePages(mine, (b) => digestAt.get(b) ?? this.provenHash(b)!);
    }
    // Version 13: a block whose leaf page is not here is checked by its path (or the part of it read), folded up to
    // the first node of the page's tree already proven, or to the page's root in the level above.
    const byPath = this.paths
      ? numbers.flatMap((b, k) => (paths.has(b) && !this.hasLeafOf(b) ? [k] : []))
      : [];
    const placeOf = (k: number) => numbers[k] % LEAF_HASHES;
    const provenOf = (k: number) => this.proven.get(Math.floor(numbers[k] / LEAF_HASHES));
    const upTo = byPath.map((k) =>
      Math.min(paths.get(numbers[k])!.length / PATH_NODE_BYTES, provenOf(k)?.needed(placeOf(k)) ?? DEPTH),
    );
    // The proven nodes taken now: another batch's blocks may make the page whole meanwhile (prove()).
    const targets = byPath.map((k, i) => provenOf(k)?.node(placeOf(k), upTo[i]));
    const rooted = new Set<number>();
    const chains = chainsFromPaths(
      byPath.map((k) => digests[k]),
      byPath.map((k) => paths.get(numbers[k])!),
      byPath.map(placeOf),
      upTo,
    );
    byPath.forEach((k, i) => {
      const chain = chains[i];
      const fits =
        upTo[i] === DEPTH
          ? this.pageFits(0, Math.floor(numbers[k] / LEAF_HASHES), chain[DEPTH])
          : sameNode(chain[upTo[i]], targets[i]);
      if (fits) rooted.add(k);
    });
    this.spent.hashMs += performance.now() - hashing;
    const checkedByPath = new Set(byPath);
    numbers.forEach((b, k) => {
      if (checkedByPath.has(k) ? !rooted.has(k) : !this.matches(digests[k], b))
        throw new PagesError(
          `${this.source.name}: corrupted (SHA-256 mismatch in block ${b} of part ${this.partName})`,
        );
    });
    byPath.forEach((k, i) => this.prove(numbers[k], chains[i], paths.get(numbers[k])!, upTo[i]));
    numbers.forEach((b, k) => {
      if (!this.blocks.has(b)) this.blockBytes += blocks[k].length;
      this.blocks.set(b, blocks[k]);
    });
  }

  /**
   * Version 13: what block b's checked path proved of its leaf page's tree; a page whose every block hash is proven
   * is kept as if read (its runs' last blocks then read no path, and are checked by their hashes in it).
   */
  private prove(b: number, chain: readonly Uint8Array[], path: Uint8Array, checkedAt: number): void {
    const p = Math.floor(b / LEAF_HASHES);
    if (this.hashPages[0].has(p)) return;
    let proven = this.proven.get(p);
    if (!proven) this.proven.set(p, (proven = new ProvenNodes()));
    proven.prove(b % LEAF_HASHES, chain, path, checkedAt);
    const { pageSize, length } = this.levels[0];
    const page = proven.page(Math.min(pageSize, length - p * pageSize) / this.hashBytes);
    if (page) {
      this.hashPages[0].set(p, page);
      this.proven.delete(p);
    }
  }
}

/**
 * The runs of a round split into requests of several ranges each: as many requests as may be in flight (so that
 * they travel in parallel), more when a request would carry over `maxRanges`; neighbouring runs share a request.
 */
export function batchesOf<T>(runs: readonly T[], inFlight: number, maxRanges: number): T[][] {
  const count = Math.max(Math.min(inFlight, runs.length), Math.ceil(runs.length / maxRanges));
  const out: T[][] = [];
  for (let i = 0; i < count; i++) {
    const batch = runs.slice(
      Math.floor((i * runs.length) / count),
      Math.floor(((i + 1) * runs.length) / count),
    );
    if (batch.length > 0) out.push(batch);
  }
  return out;
}

/**
 * The runs of a stage of more requests than may be in flight, split so that the first wave's requests end one after
 * another: its k-th of `inFlight` carries k/inFlight of `maxRanges` ranges, every later one up to `maxRanges` (as
 * batchesOf). A link shares its bytes among the responses arriving at once (Chromium's emulation, TCP's flows), so
 * requests of like size end together, and each next wave's round trip left the link idle; staggered, a request ends
 * while the others still arrive, and the next one's round trip overlaps their bytes. The same ranges, a few more
 * requests. At 100 MiB (link-sim --virtual --shared, 20 questions): settled 3,055 → 2,888 ms p50, 20 of 20 sooner,
 * requests 79 → 82 p50; first come, first served 2,886 → 2,888 (docs/results/question-bytes.md, round twenty-five).
 */
export function staggeredBatches<T>(runs: readonly T[], inFlight: number, maxRanges: number): T[][] {
  if (Math.ceil(runs.length / maxRanges) <= inFlight) return batchesOf(runs, inFlight, maxRanges);
  const out: T[][] = [];
  let at = 0;
  for (let k = 1; k <= inFlight && at < runs.length; k++) {
    const size = Math.max(1, Math.round((maxRanges * k) / inFlight));
    out.push(runs.slice(at, at + size));
    at += size;
  }
  if (at < runs.length) out.push(...batchesOf(runs.slice(at), 1, maxRanges));
  return out;
}

type Decode = (bytes: Uint8Array) => Promise<unknown> | unknown;

/** A load's groups by the blocks they still wait for (BlockStore.groupsAwaiting). */
class GroupsAwaiting {
  constructor(
    private readonly groups: ReadonlyArray<[string, WantedGroup]>,
    private readonly missing: number[],
    private readonly byBlock: Map<number, number[]>,
    /** Groups whose blocks are all here and not yet handed out (at first, those that needed none). */
    private ready: number[],
  ) {}

  /** The groups whose last missing block is in `runs` (or that missed none and were not handed out), in load order. */
  complete(runs: ReadonlyArray<[number, number]>): Array<[string, WantedGroup]> {
    for (const [first, last] of runs)
      for (let b = first; b <= last; b++) {
        const waiting = this.byBlock.get(b);
        if (!waiting) continue;
        this.byBlock.delete(b);
        for (const i of waiting) if (--this.missing[i] === 0) this.ready.push(i);
      }
    const done = this.ready.sort((a, b) => a - b).map((i) => this.groups[i]);
    this.ready = [];
    return done;
  }
}

interface WantedGroup {
  offset: number;
  length: number;
  decode: Decode;
  /** Held pages: the asynchronous decode already started. */
  pending?: PromiseLike<unknown>;
}

/** How a load shares the source with another in flight (BlockStore.loadTaken). */
export interface LoadOptions {
  /** Its requests go after every queued one of a load without it (the walk's after the early evidence's). */
  background?: boolean;
  /**
   * Requests a wave of its stages at most (the source's count otherwise; never more than it), its ranges spread over
   * them: a load of a few KB that starts with another beside it holds fewer of the slots they share (library.ts
   * search: the early evidence's records as the walk's first rows go out).
   */
  requests?: number;
  /** Cancels the question: none of the load's next requests is sent. */
  signal?: AbortSignal;
}

/** What a run noted missing, set aside (BlockStore.setAside). */
export interface NotedReads {
  blocks: number[];
  groups: Array<[string, WantedGroup]>;
  followUps: Array<() => void>;
}

const EMPTY = new Uint8Array(0);

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

const decoder = new TextDecoder();

/**
 * A gzip'd JSON group; its inflated size is bounded by 64× its stored size (as the bundle reader bounds a part):
 * the output buffer is allocated at the size the member declares, and fflate writes nothing past it (a member that
 * inflates further comes out cut short and fails to parse). Inflated here with fflate, synchronously, rather than with
 * the platform's DecompressionStream: groups are a few KB, a question decodes 100–300 of them, and in Chromium a
 * stream costs 1.1–1.8 ms a group against 0.2–0.45 ms (200 groups of 2.3 KB, docs/results/ranges.md).
 */
export function decodeJson(bytes: Uint8Array): unknown {
  const raw = gunzipSync(bytes, { out: new Uint8Array(gzipSize(bytes)) });
  return JSON.parse(decoder.decode(raw)) as unknown;
}

/**
 * The inflated size a gzip member declares (its trailer's ISIZE), refused above 64× its stored size (as the bundle
 * reader bounds a part) before anything is allocated for it.
 */
export function gzipSize(bytes: Uint8Array): number {
  if (bytes.length < 18) throw new Error('too short for gzip');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = view.getUint32(bytes.length - 4, true);
  if (size > bytes.length * 64 + 1024 * 1024) throw new Error(`declares ${size} bytes inflated`);
  return size;
}

/**
 * The blocks between two wanted ones that are read rather than sent as another range: the source's gap
 * (RangeSource.gapBytes) in whole blocks. A gap that is not a byte count at all (a source's bug) counts as the
 * default's, never as an endless run.
 */
export function gapBlocks(source: RangeSource, blockSize: number): number {
  const gap = source.gapBytes;
  const bytes = typeof gap === 'number' && Number.isFinite(gap) && gap >= 0 ? gap : ROUND_TRIP_GAP;
  return Math.floor(bytes / blockSize);
}

/**
 * Requests kept out at once (RangeSource.inFlight): the source's count, bounded by MAX_IN_FLIGHT; one that is not a
 * whole count of at least 1 (a source's bug) counts as the default's.
 */
function inFlightOf(source: RangeSource): number {
  const n = source.inFlight;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1
    ? Math.min(n, MAX_IN_FLIGHT)
    : DEFAULT_IN_FLIGHT;
}

/**
 * Ranges a readRanges call carries at most (RangeSource.rangesARequest): the source's count, bounded by
 * MAX_RANGES_A_REQUEST; one that is not a whole count of at least 1 counts as that bound.
 */
function rangesARequestOf(source: RangeSource): number {
  const n = source.rangesARequest;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1
    ? Math.min(n, MAX_RANGES_A_REQUEST)
    : MAX_RANGES_A_REQUEST;
}

/**
 * The bytes of a gap that cost less read than sent as a part of their own (RangeSource.partBytes): shorter than a
 * part's headers. At 100 MiB a cold question's ranges are ~9,600, and a row block (~100 bytes) is shorter than its
 * part's headers (~120), so two wanted rows one row apart cost fewer bytes as one range than as two. A part cost that
 * is not a byte count (a source's bug) counts as none.
 */
function partGap(source: RangeSource): number {
  const part = source.partBytes;
  return typeof part === 'number' && Number.isFinite(part) && part >= 1 ? Math.ceil(part) - 1 : 0;
}

/**
 * The wanted blocks (ascending) as runs: blocks whose bytes lie at most `gapBytes` apart in one run, with the blocks
 * between them. For blocks of one size, mergedRuns with the gap in blocks.
 */
function mergedBlockRuns(
  wanted: readonly number[],
  gapBytes: number,
  layout: BlockLayout,
): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (const b of wanted) {
    const run = runs.at(-1);
    // The bytes between as stored (version 13's paths of the blocks between are read with them).
    if (run && layout.storedStartOf(b) - layout.storedEndOf(run[1]) <= gapBytes) run[1] = b;
    else runs.push([b, b]);
  }
  return runs;
}

/** Whether block b lies in one of the runs (ascending, disjoint): a binary search. */
function inRuns(runs: ReadonlyArray<[number, number]>, b: number): boolean {
  let lo = 0;
  let hi = runs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (b < runs[mid][0]) hi = mid - 1;
    else if (b > runs[mid][1]) lo = mid + 1;
    else return true;
  }
  return false;
}

/**
 * The wanted blocks (ascending) as runs, one range request each: adjacent blocks, and blocks at most `maxGap`
 * blocks apart with the ones between them (read and checked too, and kept).
 */
export function mergedRuns(wanted: readonly number[], maxGap: number): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (const b of wanted) {
    const run = runs.at(-1);
    if (run && b - run[1] - 1 <= maxGap) run[1] = b;
    else runs.push([b, b]);
  }
  return runs;
}
