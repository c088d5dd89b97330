// A library answered by ranges: the default mode (`ppr`), `concept` and `bm25` over a pages part (format.ts), reading
// only the blocks a question needs. The ranking and the evidence are the engine's own code (pprSearch.ts, evidence.ts)
// run over accessors that read loaded blocks (sectionReader.ts); a run that met a missing block is thrown away, the
// blocks it noted are fetched, and the question runs again (blockStore.ts). The last run read nothing missing, so its
// answer is the one the engine in memory gives for the same index: the same chunks, scores and evidence
// (library.test.ts). What stands in for PageRank (the Graph view's top concepts, the KG build's order) is
// degreeRanks.ts.
import { decodeStructured, gunzip } from '../bundle/index.ts';
import type { TermAnalyzer } from '../graph/index.ts';
import { PersonalizedPageRank, questionTerms } from '../graph/index.ts';
import type { RetrievalChunkInput } from '../retrieval/index.ts';
import { rankedEvidence, SentenceTermCache, sentenceQuery, type EvidenceSource } from '../retrieval/index.ts';
import { FOLLOWING_WINDOW_SHARE, WINDOWED_TOKENS } from '../retrieval/index.ts';
import { REBUILD_PARAMS, resolveParams, type RetrievalParams } from '../retrieval/index.ts';
import { rankPpr, type PprContext, type PprLexicon } from '../retrieval/index.ts';
import { parseMode, reciprocalRankFusion } from '../retrieval/index.ts';
import { termChunkCount } from '../text/index.ts';
import { addQueryScores, topK } from '../retrieval/index.ts';
import { buildWalkView, withCaps, wordsOnlyView } from '../retrieval/index.ts';
import type { WalkView, WalkViewCaps, WalkViewGraph } from '../retrieval/index.ts';
import type { Candidate, Provenance, RetrievedChunk } from '../retrieval/index.ts';
import { KeptTerms } from './keptTerms.ts';
import { recordChunk, recordSentences } from './recordEvidence.ts';
import { rankConcepts, type ConceptReads } from './conceptRanking.ts';
import { BlockStore, gzipSize, PagesError, type NotedReads } from './blockStore.ts';
import { expandOpen, residualsOf } from './compactOpen.ts';
import {
  blockLayoutOf,
  checkDirectory,
  checkOpen,
  placeRowBlocks,
  placeEvidenceBlocks,
  decodeTop,
  hashBytesOf,
  hashesPartLength,
  hashLevels,
} from './format.ts';
import type {
  OpenTables,
  PagedChunkRecord,
  PagesDirectory,
  PagesOpenV1,
  PagesOpenV2,
  PagesOpenV6,
} from './format.ts';
import type { RangeSource } from './rangeSource.ts';
import { EMPTY_ROW, SectionReader, type PagedRead } from './sectionReader.ts';
import { timelineMark } from './timeline.ts';

/**
 * A ranking that lacks at most this many blocks and groups is nearly final: its evidence is run too, so that the
 * records its passages need are read in the same round rather than one round after the ranking settles. Over 30
 * questions at 100 MiB: 118 rounds instead of 149 for 2.6% more bytes (64: the same rounds, 3.9% more bytes); at
 * 1 GiB, 43 instead of 50 rounds for 7 questions, the same bytes (docs/results/ranges.md). 8 since round seventeen: a
 * later question on a library already open read the records of rankings that lacked 9–32 and then changed, 31 KB of
 * its 646 (100 MiB, 24 questions: p50 521 → 498 KB; rounds a question 6.13 → 6.38, a cold one 6.80 → 7.20, its bytes
 * the same; docs/results/question-bytes.md, wip/later17).
 *
 * A question asked for its first cards (the Ask view's first page) over a link (BlockStore.readsAhead) has every such
 * ranking's evidence run, whatever it lacks (round twenty-two): the cards', the windowed evidence's records and their
 * concepts' names are a few, and mostly the final ranking's, so the round they took after the walk had settled goes
 * with the walk's. At 100 MiB (25 questions, read alone) the first page read 2,376 KB p50 either way (a later question
 * 470 → 472 KB) in 6.32 rounds a question for 7.28 (later 6.00 for 6.88); on the slow link (link-sim --virtual, 20
 * questions) 8 settled a round trip (~100 ms) sooner, −41 ms mean. The whole answer (`cli ask`) keeps the bound: its
 * budget's records of rankings that then changed cost 37 KB p50 (2,562 → 2,599 KB; docs/results/question-bytes.md,
 * round twenty-two).
 */
const PREFETCH_NOTED = 8;
/**
 * A ranking that lacks at most this many (as PREFETCH_NOTED did before round seventeen) is read ahead too when its
 * first PREFETCH_TOP chunks are the previous run's, in the same order: settled at its top, it rarely changes after
 * (100 MiB, 24 later questions: the same bytes as PREFETCH_NOTED alone, rounds 6.38 → 6.21, main's 6.13; cold
 * questions 7.20 → 6.84, main's 6.80).
 */
const PREFETCH_SETTLED_NOTED = 32;
const PREFETCH_TOP = 10;
/**
 * Version 12: the chunks of a ranking that met a missing block whose token counts (evidenceArrays.ts) are read ahead
 * with the walk's reads. At 100 MiB (25 questions, blocks of 64 chunks) the first
 * page's rounds were 7.24 / 7.20 / 7.20 a question (main's 7.20) for 80 / 160 / 300, its bytes 2,489 / 2,507 / 2,514
 * KB p50 (docs/results/question-bytes.md, round twenty-one): a chunk that enters the ranking in its last rounds
 * otherwise waits a round for its count.
 */
const PREFETCH_EVIDENCE = 160;
/**
 * The chunk lists of at most NEARLY_PUSHED concepts the walk did not push but that hold NEARLY_SHARE of the residual
 * that would push them are read with the run's reads (PersonalizedPageRank.nearlyPushed): once the rows the run lacked
 * bring them the rest, their rows are read in the next round at once, not their lists first and their rows in a stage
 * after (each stage a round trip). At 100 MiB on the slow link (link-sim --virtual, 120-byte parts, 40 questions),
 * with the first page read ahead above: settled 3,481 → 3,430 ms p50, −79 ms mean, for +15 KB mean; 20 questions
 * −96 ms mean, +15 KB (0.5 of the residual, 100 lists: −98 ms, +24 KB; 0.25, 400: −38 ms, +113 KB; lists and the
 * rows of those in ≤ 16 chunks: −122 ms, +35 KB). A library keeping its lists in its rows reads them with the rows;
 * a source that is not a link (BlockStore.readsAhead) reads none ahead.
 */
const NEARLY_PUSHED = 100;
const NEARLY_SHARE = 0.8;
/** Loads the words' early evidence may take before the walk's reads go on (postings, records, and one spare). */
const EARLY_STEPS = 3;
/**
 * Over a link (BlockStore.readsAhead), the early step whose load the walk's reads go out beside: the first load brings
 * the dictionaries, the postings and the seeds' lists, after which the walk knows its first rows; they are read while
 * the early evidence's records are (the walk run again after each of its loads until the early evidence is shown), in
 * requests queued after the early evidence's (slotPool.ts). Before round twenty-six they waited for the early evidence,
 * and the link was idle ~450 ms of its first 769 at question 1. At 100 MiB (link-sim --virtual --part-overhead 120, 20
 * questions): settled 2,888 → 2,755 ms p50 over a link shared among the responses (−71 ms a question median, 17 of 20
 * sooner), 2,888 → 2,765 first come, first served (−118, 18 of 20); first evidence 673 → 857 and 840 ms; the same
 * answers, −20 to +5 KB a question. In Chromium (link-latency.ts, 10 Mbit/s, 100 ms): settled −253 and −327 ms a
 * question in two pairs with main (14 and 18 of 20 sooner), first evidence +168 and +134 ms (1.10–1.19 s p50).
 * -1: after the early evidence, as before (docs/results/question-bytes.md, round twenty-six).
 */
const WALK_BESIDE_STEP = 1;
/**
 * Requests the early evidence's load at WALK_BESIDE_STEP takes (its records, a few tens of KB), the walk's first rows
 * starting beside it: over a link shared among the responses arriving at once, one request carries those bytes as soon
 * as six would, but six held every slot for a round trip, and the walk's first rows (the settled answer's path) were
 * sent only as they came free (question 1 at 100 MiB: records 367 → 517 ms, the first rows from 517; link-sim
 * --waterfall's critical path). In one (with its hash pages beside it when they do not fit), the walk's first wave goes
 * out with them. The walk's own load is split as any (staggeredBatches): its first wave of small requests was there
 * for these records to find slots. The early evidence's later stages take the slots as they come free (foreground).
 * At 100 MiB (link-sim --virtual --shared --part-overhead 120, 20 questions, asked 3 s after opening): settled
 * 2,704 → 2,560 ms p50, −154 ms a question (20 of 20 sooner); first evidence 777 → 849 ms p50, 990 → 1,195 max;
 * the same answers and ranges, requests 88 → 77. In Chromium (link-latency.ts, 10 Mbit/s, 100 ms, 20 questions; 7
 * pairs with main at load 2.6–7.4): settled −185 ms a question in the quietest (20 of 20 sooner), −205 to −450 in
 * four more, −47 and +37 in two; pooled −106 ms (17 of 20), first evidence +26 ms, CPU −185 ms a question (fewer
 * responses to check; docs/results/question-bytes.md, round twenty-nine).
 */
const BESIDE_EARLY_REQUESTS = 1;
/**
 * Loads a read ahead for typed words (prepare) takes: the dictionaries (with the seeds' lists as their follow-up),
 * the postings with the seeds' rows, and one for what came late.
 */
const PREPARE_LOADS = 3;
/**
 * Chunk rows a read ahead for typed words reads at most (the seeds' with fewest chunks first): what it may read that
 * the question then does not, where a word typed is not one of the question's seeds after all.
 */
const PREPARE_ROWS = 2000;

export interface PagesLocation {
  /** Offset of the pages part's payload in the source, and the part's directory and block hashes. */
  base: number;
  length: number;
  directory: PagesDirectory;
  /**
   * The block hashes, read whole; or where `pages.sha256` lies in the source, when the directory says they are read
   * by pages (format.ts, HashPages: openPagedBundle passes the place then, and the store reads the pages it needs).
   */
  hashes: Uint8Array | { offset: number; length: number };
  /**
   * The part's bytes, when the caller holds them whole and trusts them (the library's own stored pages): read at
   * once, without hash checks or rounds (BlockStore).
   */
  held?: Uint8Array;
}

/** A question's hits, the records of the chunks shown (title, document offsets, pages), and what it read. */
export type PagedAnswer = Omit<PagedRead<unknown>, 'value'> & {
  hits: RetrievedChunk[];
  records: Map<string, PagedChunkRecord>;
  /**
   * An answer asked with `cards` (search): the places in `hits` whose records are not read. Such a hit holds its
   * rank, score and token count (the `open` section's) and nothing else; `rest` gives the answer they belong to.
   */
  unread?: ReadonlySet<number>;
  /** With `unread`: each hit's chunk by its place in the pages (the same place, the same chunk, read or not). */
  places?: readonly number[];
  /** An answer with unread hits: reads their records and gives the whole answer (the one asked without `cards`). */
  rest?: (signal?: AbortSignal) => Promise<PagedAnswer>;
};

/**
 * Which unread hits of an answer asked with `cards` are wanted as well (places in `hits`), from the hits read (their
 * texts) and every hit's score and tokens; asked again after each read until it wants none (the Ask view's first
 * page: src/services/source/firstPage.ts). `mayHold(i, term)` is false when hit i's chunk holds the analysed term
 * neither in its text nor in its heading path, as the word index says (its postings, read as needed).
 */
export type CardsWanted = (
  hits: readonly RetrievedChunk[],
  unread: ReadonlySet<number>,
  mayHold: (hit: number, term: string) => boolean,
) => Iterable<number>;

/** Query-time parameters a library read by ranges is asked with (the rest are the ones its pages were built with). */
export type QueryParams = Partial<Record<keyof RetrievalParams, unknown>>;

/** The id of an unread hit: no chunk id starts with a NUL (ids are the chunker's, from file paths and numbers). */
const UNREAD_ID = '\u0000unread:';

export class PagedLibrary {
  private readonly params: RetrievalParams;
  private readonly wordScores: Float32Array;
  /** BM25 over the text, and BM25F over the text and its heading copies (fieldBm25.ts's arithmetic). */
  private readonly scoring: Record<'text' | 'fields', Parameters<typeof addQueryScores>[2]>;
  private readonly ctx: PprContext;
  /** The walk of `ppr` over rows read as needed (the ctx's): what it nearly pushed is read ahead (NEARLY_PUSHED). */
  private readonly walker: PersonalizedPageRank;
  private readonly lexicon: PprLexicon;
  private readonly evidence: EvidenceSource;
  /** The analyser, its terms() kept for the question being answered (keptTerms.ts). */
  readonly analyzer: TermAnalyzer;
  private readonly keptTerms: KeptTerms;
  /** Questions begun (search): a read ahead for typed words (prepare) stops at the next. */
  private questionsBegun = 0;

  private constructor(
    /** The part's sections (the Graph view's library-wide side and the KG build read them too: degreeRanks.ts). */
    readonly reader: SectionReader,
    builtAnalyzer: TermAnalyzer,
    overrides: QueryParams,
  ) {
    this.keptTerms = new KeptTerms(builtAnalyzer);
    const analyzer = this.keptTerms.analyzer;
    this.analyzer = analyzer;
    const { directory, open } = reader;
    this.params = resolveParams(overrides);
    const n = directory.chunkCount;
    this.wordScores = new Float32Array(n);
    const { bm25K1: k1, bm25B: b } = this.params;
    const copies = directory.headingCopies;
    const fieldLengths = new Float32Array(n);
    for (let k = 0; k < n; k++) fieldLengths[k] = open.textLengths[k] + copies * open.headingLengths[k];
    // Version 11's per-script N of each word's IDF, as the engine in memory counts them (Bm25Index.countByScript).
    const scripts = directory.scriptChunks;
    const nOf = scripts && ((term: string) => termChunkCount(term, n, scripts));
    this.scoring = {
      text: { copies: 0, n, nOf, lengths: open.textLengths, norm: mean(open.textLengths) || 1, k1, b },
      fields: { copies, n, nOf, lengths: fieldLengths, norm: mean(fieldLengths) || 1, k1, b },
    };
    const termCache = new SentenceTermCache(analyzer);
    this.walker = new PersonalizedPageRank(
      { nodeCount: directory.conceptCount, row: (u) => reader.walkRow(u) },
      reader.walkDegrees(),
    );
    this.ctx = {
      concepts: reader.conceptAccess(),
      conceptIds: reader.conceptLookup(),
      walker: this.walker,
      chunkScores: new Float64Array(n),
      params: this.params,
    };
    const fields = directory.headingCopies > 0;
    this.lexicon = {
      analyzer,
      words: { search: (terms, limit) => this.bm25(terms, limit, false) },
      fields: { search: (terms, limit) => this.bm25(terms, limit, fields) },
      headings: fields
        ? {
            postingsOf: (term) => {
              const entry = this.reader.termEntry(term);
              return entry && this.reader.postingsOf(term, entry, true);
            },
            lengthOf: (k) => open.headingLengths[k],
            textIdf: (term) => this.wordIdf(term),
          }
        : undefined,
      // A part written before titleChunks answers as it was built: the blend then reads the documents.
      documentChunks: (k) => (open.titleChunks ?? open.documentChunks)[k],
    };
    this.evidence = {
      analyzer,
      chunk: (k) => this.chunkInput(k),
      sentences: (k) => recordSentences(reader.record(k), k),
      documentChunks: (k) => open.documentChunks[k],
      conceptTerm: (c) => reader.conceptTerm(c),
      dimension: 0,
      sentenceTerms: (s, text) => termCache.get(s, text),
    };
  }

  /** Reads the part's `open` section (checked blocks) and checks its arrays against the directory. */
  static async open(
    source: RangeSource,
    location: PagesLocation,
    analyzer: TermAnalyzer,
    overrides: QueryParams = {},
  ): Promise<PagedLibrary> {
    // The pages were built with the defaults: only what a question reads them with may differ (e.g. walkMaxDf).
    for (const key of REBUILD_PARAMS)
      if (key in overrides)
        throw new PagesError(
          `${source.name}: "${key}" shapes the pages and cannot change when they are read`,
        );
    const d = checkDirectory(location.directory, location.length);
    const { hashes } = location;
    if (!(hashes instanceof Uint8Array) && !d.hashPages)
      throw new PagesError(
        `${source.name}: pages.sha256 is to be read by pages, but the directory has no top list`,
      );
    // Version 7's tree of hash pages follows the block hashes in pages.sha256 (format.ts, hashLevels): the part is
    // the length every level adds up to; whole, only its block hashes are used (it was checked whole, or is the
    // library's own).
    // From version 8 a section may have blocks of its own size (blockLayout.ts): the blocks are counted zone by zone.
    const layout = blockLayoutOf(d, location.length);
    const blockHashes = layout.count * hashBytesOf(d);
    const levels = d.hashPages ? hashLevels(blockHashes, d.hashPages) : [];
    if (levels.length > 1 && hashes.length !== hashesPartLength(d, location.length))
      throw new PagesError(
        `${source.name}: pages.sha256 has ${hashes.length} bytes, expected ` +
          `${hashesPartLength(d, location.length)} (block hashes and ${levels.length - 1} levels of hash pages)`,
      );
    const store = new BlockStore(
      source,
      location.base,
      location.length,
      layout,
      hashes instanceof Uint8Array
        ? levels.length > 1
          ? hashes.subarray(0, blockHashes)
          : hashes
        : {
            offset: hashes.offset,
            length: levels.length > 1 ? blockHashes : hashes.length,
            pageSize: d.hashPages!.size,
            top: decodeTop(d.hashPages!.top)!,
            upper: levels.slice(1),
          },
      'pages.bin',
      location.held,
      hashBytesOf(d),
    );
    const [at, length] = d.sections.open;
    type Stored = PagesOpenV1 | PagesOpenV2 | PagesOpenV6;
    let stored: Stored | undefined;
    const read = () =>
      store.group<Stored>('open', at, length, async (bytes) =>
        decodeStructured<Stored>(await gunzip(bytes, gzipSize(bytes)), 'pages.bin (open)'),
      );
    if (!(stored = read())) {
      await store.load();
      stored = read()!;
    }
    const n = d.chunkCount;
    const nc = d.conceptCount;
    let open: OpenTables;
    try {
      // Version 6's df are varints: checkOpen holds their count to the directory's once decoded.
      if (d.version < 6 && stored.df?.length !== nc)
        throw new PagesError(`pages.bin (open) has ${stored.df?.length ?? 'no'} df, expected ${nc}`);
      open = expandOpen(stored, d.version, n, d.listsInRows === true, residualsOf(d));
    } catch (error) {
      if (error instanceof PagesError) throw new PagesError(`${source.name}: ${error.message}`);
      throw error;
    }
    checkOpen(source.name, d, open);
    // Version 10's blocks of whole rows start where `open`'s row groups say (format.ts, placeRowBlocks); version
    // 12's evidence blocks where its evidenceStarts say.
    placeRowBlocks(source.name, d, layout, open.rowGroups);
    placeEvidenceBlocks(d, layout, open.evidenceStarts);
    return new PagedLibrary(
      new SectionReader(source.name, store, d, open),
      builtWith(analyzer, d.analyzer ?? 1, source.name),
      overrides,
    );
  }

  get chunkCount(): number {
    return this.reader.chunkCount;
  }

  get directory(): PagesDirectory {
    return this.reader.directory;
  }

  /** The library's analyser's terms of a text (what the Ask view's relevance reads). */
  terms(text: string): string[] {
    return this.analyzer.terms(text);
  }

  /**
   * Reads ahead, while a person is still typing a question, what a question of these words reads first: each word's
   * dictionary entry and postings (the early evidence's and the walk's words), each of its concepts' dictionary entry
   * and chunk list (the walk's seeds), then the rows of those chunks (the walk's first layer). A question over a link
   * reads these in three or four round trips before its walk can go on; typed, they come while the person types. Over a
   * link only (BlockStore.readsAhead): a file, memory or a host answering one range a request read what a question
   * needs only. Nothing is ranked or answered; the reads go out behind any question's (slotPool.ts's ahead class),
   * and before a question's once it begins (promoteAhead): it waits on them. It stops between its loads once
   * `wanted` says so or a question has begun (search): what is on its way arrives and is kept, and a question that
   * wants those blocks waits for them rather than reading them again.
   */
  async prepare(text: string, wanted: () => boolean = () => true): Promise<void> {
    const { reader } = this;
    const { store } = reader;
    if (!store.readsAhead) return;
    const began = this.questionsBegun;
    const fields = this.directory.headingCopies > 0;
    const terms = this.analyzer.terms(text);
    const ids = this.ctx.conceptIds;
    for (let step = 0; step < PREPARE_LOADS; step++) {
      if (!wanted() || this.questionsBegun !== began) return;
      // Noted apart from anything else noted (a question's run, the walk beside its early evidence), then read.
      const mine = store.notedAhead(() => {
        for (const term of terms) {
          const entry = reader.termEntry(term);
          if (!entry) continue;
          reader.postingsOf(term, entry, false);
          if (fields) reader.postingsOf(term, entry, true);
        }
        // A seed's chunk list is noted once its dictionary group is here (conceptLookup's get); its rows once the
        // list is (walkRow), seeds of fewer chunks first, within PREPARE_ROWS chunk rows.
        const seeds: number[] = [];
        for (const t of questionTerms(this.analyzer, text, ids)) {
          const c = ids.get(t);
          if (c !== undefined) seeds.push(c);
        }
        let rows = 0;
        for (const c of seeds.sort((a, b) => reader.open.df[a] - reader.open.df[b])) {
          rows += reader.open.df[c];
          if (rows > PREPARE_ROWS) break;
          if (reader.chunksOf(c)) reader.walkRow(c);
        }
      });
      if (mine.blocks.length === 0 && mine.groups.length === 0) return;
      await store.loadTaken(mine, { background: 'ahead' });
    }
  }

  /**
   * Answers a question in `ppr` (the default), `concept`, `bm25` or a fusion, reading what it needs. With `early`, a `ppr` question that
   * needs reads also runs bm25 beside it, in the same rounds, and hands its answer to `early` as soon as a run of it
   * read nothing missing: the words' evidence, on screen while the walk still reads its rows (at 1 GiB by ranges
   * the walk's first question waits on 6–9 rounds; bm25's on 2–3). The walk's answer is the same either way.
   */
  async search(
    text: string,
    mode: string,
    budgetTokens: number,
    signal?: AbortSignal,
    early?: (answer: PagedAnswer) => void,
    cards?: CardsWanted,
  ): Promise<PagedAnswer> {
    const parsed = parseMode(mode);
    if (('base' in parsed ? [parsed.base] : parsed.fuse).includes('dense'))
      throw new Error(
        `a library read by ranges has no vectors: it answers every mode but dense, not ${mode}`,
      );
    const { reader } = this;
    const { store } = reader;
    this.questionsBegun++;
    store.promoteAhead();
    this.bm25Kept.clear();
    this.keptTerms.clear();
    let earlyOwed = early !== undefined && mode === 'ppr';
    // A ranking that read nothing missing is final: the rounds after it only bring its evidence's records and
    // passages, so it is kept rather than computed again (the same chunks and scores either way).
    let ranked: Candidate[] | undefined;
    // The first chunks of the last run's ranking that met a missing block (PREFETCH_TOP).
    let lastTop: number[] | undefined;
    // With `cards`, the places whose records the answer reads (kept from run to run), the final ranking's and the
    // early words' apart.
    const places = new Set<number>();
    const wordsPlaces = new Set<number>();
    const answer = (
      m: string,
      candidates: Candidate[],
      read: Set<number>,
    ): {
      hits: RetrievedChunk[];
      records: Map<string, PagedChunkRecord>;
      unread?: ReadonlySet<number>;
      places?: readonly number[];
    } =>
      cards
        ? this.cardsOf(text, m, candidates, budgetTokens, cards, read)
        : this.answerOf(text, m, candidates, budgetTokens);
    // A run of the question: its ranking, and once that is final its answer (noting what either lacks).
    const run = () => {
      if (!ranked) {
        const walks = this.walker.runs;
        const candidates = this.rank(text, mode);
        // A ranking that met a missing block is not the answer: reading the records of its chunks would fetch
        // passages the next run may not show.
        if (!store.missing) ranked = candidates;
        else {
          const top = candidates.slice(0, PREFETCH_TOP).map((c) => c.chunk);
          const settled =
            lastTop !== undefined && top.length === lastTop.length && top.every((k, i) => k === lastTop![i]);
          // Only what it notes is kept: the evidence shown is always the final ranking's.
          if (
            (cards && store.readsAhead) ||
            store.noted <= PREFETCH_NOTED ||
            (settled && store.noted <= PREFETCH_SETTLED_NOTED)
          )
            answer(mode, candidates, new Set());
          lastTop = top;
          // Version 12: the token counts of the ranking's first chunks, read with the walk's rows, so that its
          // evidence finds them here (evidenceArrays.ts): the budget is cut by them before the records it shows are
          // read (without them, `cli ask` at 100 MiB took 7.44 rounds a question for 6.84).
          reader.noteEvidence(candidates.slice(0, PREFETCH_EVIDENCE).map((c) => c.chunk));
          // Only after this run's own walk (a question with no concept to start from walks nowhere).
          if (store.readsAhead && !this.directory.listsInRows && this.walker.runs !== walks)
            for (const c of this.walker.nearlyPushed(this.params.pushEpsilon, NEARLY_SHARE, NEARLY_PUSHED))
              reader.chunksOf(c);
        }
      }
      return ranked
        ? answer(mode, ranked, places)
        : { hits: [], records: new Map<string, PagedChunkRecord>() };
    };
    const { value, ...read } = await reader.readUntilComplete(
      run,
      signal,
      'a question',
      async (readSoFar) => {
        if (!earlyOwed) return;
        // The words' reads first (their postings, then their evidence's records: a few small loads), the walk's
        // after them: the early evidence does not wait on the walk's rows.
        const walkNotes = store.setAside();
        // Over a link, the walk's reads go out beside the early evidence's once the seeds' lists are here.
        const beside = store.readsAhead && WALK_BESIDE_STEP >= 0;
        let walking: Promise<NotedReads> | undefined;
        let earlyDone = false;
        // The walk run again after each of its loads (its next layer noted), until the early evidence is shown.
        const walk = async (notes: NotedReads): Promise<NotedReads> => {
          for (;;) {
            const left = await store.loadTaken(notes, { background: true, signal });
            if (earlyDone) return left;
            const outer = store.setAside();
            store.restore(left);
            // Marked apart from the rounds' runs (link-timeline.ts: which CPU runs while nothing is on the link).
            timelineMark('walk');
            run();
            timelineMark('walked');
            notes = store.setAside();
            store.restore(outer);
            if (notes.blocks.length === 0 && notes.groups.length === 0) return notes;
          }
        };
        let left: NotedReads | undefined;
        // The seeds' lists do ride with the words' reads: the evidence's sentence query looks the question's concepts
        // up (conceptLookup's get), which notes each one's list as soon as its dictionary group arrives, in the load
        // that brings the words' postings. The walk's first round after the early evidence then reads their rows at
        // once, not their lists first and their rows a round later: at 100 MiB 20–60 KB more in that load, one
        // round trip and a run less for the settled answer (docs/results/question-bytes.md, round seventeen).
        // Cards read in two rounds (the first ones, then those the rating may still want).
        for (let step = 0; step < EARLY_STEPS + (cards ? 1 : 0) && earlyOwed; step++) {
          if (left) store.restore(left);
          const words = reader.completeRun(() => answer('bm25', this.rank(text, 'bm25'), wordsPlaces));
          if (words) {
            earlyOwed = false;
            early!({ ...words, ...readSoFar(step) });
          } else if (!beside) {
            await store.load();
          } else {
            // The early evidence's requests queued first, then the walk's (the pool sends them in that order); as the
            // walk starts beside them, in as few as carry them (BESIDE_EARLY_REQUESTS).
            const starting = !walking && step === WALK_BESIDE_STEP;
            const loading = store.loadTaken(store.setAside(), {
              signal,
              requests: starting ? BESIDE_EARLY_REQUESTS : undefined,
            });
            if (starting) {
              store.restore(walkNotes);
              timelineMark('walk');
              run();
              timelineMark('walked');
              walking = walk(store.setAside());
              // Awaited below; a refusal or a cancel meanwhile fails the early evidence's loads as well.
              walking.catch(() => undefined);
            }
            left = await loading;
          }
        }
        earlyDone = true;
        if (left) store.restore(left);
        store.restore(walking ? await walking : walkNotes);
      },
    );
    const final = ranked;
    if (!value.unread?.size || !final) return { ...value, ...read };
    return {
      ...value,
      ...read,
      rest: async (restSignal) => {
        const whole = await reader.readUntilComplete(
          () => this.answerOf(text, mode, final, budgetTokens),
          restSignal,
          'the rest of a question’s evidence',
        );
        return { ...whole.value, bytes: whole.bytes, rounds: whole.rounds, waitMs: whole.waitMs };
      },
    };
  }

  /**
   * A ranking's evidence with the records of some hits only: those `cards` wants, and those whose text decides the
   * evidence itself (a long section among the first WINDOWED_TOKENS may be cut to its best sentences, which changes
   * what the budget holds after it). Every other hit is a chunk whose record is not read: its evidence is computed
   * as a whole chunk of the token count `open` gives, which is where the budget cut puts every chunk past the first
   * WINDOWED_TOKENS (evidence.ts), so the hits, their order and their tokens are those of answerOf.
   */
  private cardsOf(
    text: string,
    mode: string,
    ranked: Candidate[],
    budgetTokens: number,
    cards: CardsWanted,
    places: Set<number>,
  ): {
    hits: RetrievedChunk[];
    records: Map<string, PagedChunkRecord>;
    unread: ReadonlySet<number>;
    places: readonly number[];
  } {
    const { store, open } = this.reader;
    const windowed = this.params.evidenceTokens > 0 && mode === 'ppr';
    // A chunk up to this many tokens is never cut (the smaller window, evidence.ts's windowed()).
    const whole = Math.round(this.params.evidenceTokens * FOLLOWING_WINDOW_SHARE) * this.params.evidenceSlack;
    // Version 12: chunks' tokens whose block is not here yet count as estimates (tokensOrEstimate), not as misses: the
    // run goes on to note the records its cards want in the same round as the blocks (the run is not final either
    // way: store.missing). Before version 12 nothing is counted there, so this is store.misses.
    const misses = (): number => store.misses - this.reader.evidenceMisses;
    for (let steps = 0; steps <= ranked.length; steps++) {
      // Before the misses are counted: what it notes is the places' concepts' names (lazyEvidence).
      const evidence = this.lazyEvidence(places, ranked);
      const before = misses();
      const hits = rankedEvidence(evidence, ranked, this.evidenceOptions(text, mode, budgetTokens));
      const unread = new Set<number>();
      const placeOf = hits.map((h, i) => {
        if (!h.chunkId.startsWith(UNREAD_ID)) return this.reader.chunkIndex.get(h.chunkId) ?? -1;
        unread.add(i);
        // Nothing else of an unread hit is read, its concepts' names neither (lazyEvidence): none rather than blanks.
        if (h.provenance.concepts) hits[i] = { ...h, provenance: withoutConcepts(h.provenance) };
        return Number(h.chunkId.slice(UNREAD_ID.length));
      });
      // A record (or a block of its provenance) is missing: read, then run again.
      if (misses() !== before) return { hits: [], records: new Map(), unread: new Set(), places: [] };
      const add: number[] = [];
      if (windowed) {
        // Unread hits the windowed evidence may cut, all at once. An unread one that may be cut is counted as its
        // window's worth of tokens, what its excerpt is near (an excerpt's own count is known once read): the
        // range the budget's first WINDOWED_TOKENS reach is then read in one round, not one round per excerpt.
        // Wrong either way, it costs a record too many or one more round: every run checks the range again.
        const following = Math.round(this.params.evidenceTokens * FOLLOWING_WINDOW_SHARE);
        let used = 0;
        for (let i = 0; i < hits.length && used < WINDOWED_TOKENS; i++) {
          const k = placeOf[i];
          const cut =
            unread.has(i) && open.documentChunks[k] !== 1 && this.reader.tokensOrEstimate(k) > whole;
          if (cut) add.push(k);
          used += cut ? Math.min(hits[i].tokens, following) : hits[i].tokens;
        }
      }
      const asked = misses();
      const wants = [...cards(hits, unread, (i, term) => this.mayHold(placeOf[i], term))];
      for (const i of wants) if (unread.has(i)) add.push(placeOf[i]);
      // A word's postings were not read yet: they are read with the records wanted so far, then `cards` is asked
      // again (what it wanted without them stands: records are only ever added).
      if (misses() !== asked) {
        for (const k of add) places.add(k);
        if (add.length > 0)
          rankedEvidence(
            this.lazyEvidence(places, ranked),
            ranked,
            this.evidenceOptions(text, mode, budgetTokens),
          );
        return { hits: [], records: new Map(), unread: new Set(), places: [] };
      }
      if (add.length === 0) {
        const records = new Map<string, PagedChunkRecord>();
        hits.forEach((h, i) => {
          const r = unread.has(i) ? undefined : this.reader.record(placeOf[i]);
          if (r) records.set(r.id, r);
        });
        return { hits, records, unread, places: placeOf };
      }
      for (const k of add) places.add(k);
    }
    throw new PagesError(`${this.reader.name}: a question's cards wanted more reads than it has hits`);
  }

  /**
   * Whether chunk k may hold an analysed term in its text or its heading path: false only when the word index's
   * postings of both (the text's, the headings') leave it out. A part without heading postings may hold its headings'
   * words anywhere; a posting not read yet is noted, and the answer is true until it is read.
   */
  private mayHold(k: number, term: string): boolean {
    const misses = this.reader.store.misses;
    const entry = this.reader.termEntry(term);
    if (this.reader.store.misses !== misses) return true;
    if (!entry) return false;
    if (this.reader.directory.headingCopies === 0) return true;
    for (const heading of [false, true]) {
      if (entry[heading ? 4 : 2] === 0) continue;
      const list = this.reader.postingsOf(term, entry, heading);
      if (!list || sortedHas(list.chunks, k)) return true;
    }
    return false;
  }

  /**
   * The evidence source of cardsOf: records of `places` only, checked against `open`'s token counts, and the names
   * of the concepts that led to those places' chunks only. Every hit of the budget names up to 3 concepts, ~68 on
   * 2Wiki, scattered over the concept dictionary (a block each); the first page shows 5 to 8 cards, whose names are
   * read with their records (issue 47: 2Wiki's dictionary read 108 KB a question for ~39 KB of groups asked).
   */
  private lazyEvidence(places: ReadonlySet<number>, ranked: readonly Candidate[]): EvidenceSource {
    const { reader } = this;
    const named = new Set<number>();
    for (const c of ranked) if (c.concepts && places.has(c.chunk)) for (const id of c.concepts) named.add(id);
    // Their names are noted here, before the evidence is run (cardsOf counts its misses after): a run whose records
    // are all here but some names not still finds which records the cards want next, and they are read with the
    // names. Asked during the run, a missing name made it stop there, and the records came a round after the names
    // (at 100 MiB a round of 100–115 ms at the end of a question on a 100 ms link). A run with a name missing is
    // never the answer: the name is noted, and readUntilComplete runs again once it is read.
    for (const id of named) this.reader.conceptTerm(id);
    return {
      ...this.evidence,
      conceptTerm: (c) => (named.has(c) ? this.reader.conceptTermIfRead(c) : ''),
      chunk: (k) => {
        if (!places.has(k))
          return { id: UNREAD_ID + k, docId: '', text: '', tokens: reader.tokensOrEstimate(k), start: 0 };
        const chunk = this.chunkInput(k);
        // The hits past a card were cut by `open`'s counts (version 12: the evidence blocks', checked once here): a
        // record must give its chunk the same.
        const counted = reader.tokensOf(k);
        if (chunk.id && counted !== undefined && chunk.tokens !== counted)
          throw new PagesError(
            `${this.reader.name}: pages.bin's records give chunk ${k} ${chunk.tokens} tokens, open ${counted}`,
          );
        return chunk;
      },
      sentences: (k) => (places.has(k) ? this.evidence.sentences(k) : recordSentences(undefined, k)),
    };
  }

  /** A ranking's evidence and the records it shows (noting what is missing). */
  private answerOf(
    text: string,
    mode: string,
    ranked: Candidate[],
    budgetTokens: number,
  ): { hits: RetrievedChunk[]; records: Map<string, PagedChunkRecord> } {
    const hits = this.evidenceOf(text, mode, ranked, budgetTokens);
    const records = new Map<string, PagedChunkRecord>();
    for (const h of hits) {
      const k = this.reader.chunkIndex.get(h.chunkId);
      const r = k === undefined ? undefined : this.reader.record(k);
      if (r) records.set(r.id, r);
    }
    return { hits, records };
  }

  private rank(text: string, mode: string): Candidate[] {
    // A fusion of its two modes, as the engine fuses them (RetrievalEngine.rank): the same candidates, fused alike.
    const parsed = parseMode(mode);
    if ('fuse' in parsed) {
      const [a, b] = parsed.fuse;
      return reciprocalRankFusion([this.rank(text, a), this.rank(text, b)], this.params.rrfK, [a, b]);
    }
    if (mode === 'bm25') return this.bm25(this.analyzer.terms(text), this.params.candidates, false);
    if (mode === 'concept') return this.conceptRanking(text);
    return rankPpr(this.ctx, this.lexicon, text, undefined, this.params.candidates);
  }

  /** `concept` as the engine ranks it without vectors (conceptRanking.ts), once the question's reads are here. */
  private conceptRanking(text: string): Candidate[] {
    const misses = this.reader.store.misses;
    const ids = this.ctx.conceptIds;
    const questionConcepts = questionTerms(this.analyzer, text, ids).flatMap((t) => ids.get(t) ?? []);
    const words = this.bm25(this.analyzer.terms(text), this.chunkCount, false);
    // What the ranking reads next (the concepts' rows, the chunks' concepts) depends on these.
    if (this.reader.store.misses !== misses) return [];
    const reads: ConceptReads = {
      chunkCount: this.chunkCount,
      questionConcepts,
      idf: (c) => this.reader.open.idf[c],
      words,
      chunksOf: (c) => this.reader.chunksOf(c)?.chunks,
      conceptsOf: (k) => this.reader.conceptsOf(k),
      row: (c) => this.reader.walkRow(c)?.targets,
    };
    return rankConcepts(reads, this.params, this.params.candidates);
  }

  private evidenceOf(
    text: string,
    mode: string,
    ranked: Candidate[],
    budgetTokens: number,
  ): RetrievedChunk[] {
    return rankedEvidence(this.evidence, ranked, this.evidenceOptions(text, mode, budgetTokens));
  }

  private evidenceOptions(text: string, mode: string, budgetTokens: number) {
    return {
      mode,
      query: sentenceQuery(
        this.analyzer,
        text,
        (t) => this.wordIdf(t),
        this.ctx.conceptIds,
        (c) => this.reader.open.idf[c],
      ),
      budgetTokens,
      window: this.params.evidenceTokens,
      slack: this.params.evidenceSlack,
    };
  }

  private wordIdf(term: string): number {
    const entry = this.reader.termEntry(term);
    const list = entry && this.reader.postingsOf(term, entry, false);
    if (!list) return 0;
    const df = list.chunks.length;
    // As fieldScoring.ts: a script's N is never below a document frequency (an honest part never has it so).
    const n = Math.max(termChunkCount(term, this.chunkCount, this.reader.directory.scriptChunks), df);
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /**
   * The BM25 rankings of the question being answered whose every posting was here when they were computed: the same
   * numbers every later run of the question would compute again from the same checked postings (a question runs its
   * ranking once a round of reads, 6–8 times at 100 MiB, and its early words' more). Kept for one question only
   * (search and walkNeighbourhood clear them): a later question reads its postings as it would without them.
   */
  private readonly bm25Kept = new Map<string, Candidate[]>();

  private bm25(queryTerms: readonly string[], limit: number, fields: boolean): Candidate[] {
    const key = `${fields ? 'f' : 't'}${limit}\u0000${queryTerms.join('\u0000')}`;
    const kept = this.bm25Kept.get(key);
    // Copies: a caller may place a candidate with its own fields (placeWords).
    if (kept) return kept.map((c) => ({ ...c }));
    const misses = this.reader.store.misses;
    const best = this.bm25Scores(queryTerms, limit, fields);
    if (this.reader.store.misses === misses)
      this.bm25Kept.set(
        key,
        best.map((c) => ({ ...c })),
      );
    return best;
  }

  private bm25Scores(queryTerms: readonly string[], limit: number, fields: boolean): Candidate[] {
    const { wordScores: scores } = this;
    const touched: number[] = [];
    // The text's own IDF for plain BM25, the fields' document frequency for BM25F (as the two indexes count).
    addQueryScores(
      queryTerms,
      (term) => {
        const entry = this.reader.termEntry(term);
        if (!entry) return [undefined, undefined];
        return [
          this.reader.postingsOf(term, entry, false),
          fields ? this.reader.postingsOf(term, entry, true) : undefined,
        ];
      },
      this.scoring[fields ? 'fields' : 'text'],
      scores,
      touched,
    );
    const best = topK(scores, limit, touched).map((k) => ({ chunk: k, score: scores[k] }));
    for (const k of touched) scores[k] = 0;
    return best;
  }

  private chunkInput(k: number): RetrievalChunkInput {
    const r = this.reader.record(k);
    return r
      ? recordChunk(r)
      : { id: '', docId: '', text: '', tokens: this.reader.tokensOrEstimate(k), start: 0 };
  }

  /**
   * The Graph view of a question: the neighbourhood of this library's own `ppr` walk, bounded by the caps, built by
   * the code that draws the engine's (walkView.ts), so it is the engine's view (the same seeds, mass, edges, chunks
   * and scores), with the records of the chunks drawn (where each opens).
   */
  async walkNeighbourhood(
    text: string,
    caps: Partial<WalkViewCaps> = {},
    signal?: AbortSignal,
  ): Promise<PagedRead<{ view: WalkView; records: Map<number, PagedChunkRecord> }>> {
    const cap = withCaps(caps);
    this.bm25Kept.clear();
    this.keptTerms.clear();
    const graph: WalkViewGraph = {
      ...this.ctx.concepts,
      term: (c) => this.reader.conceptTerm(c),
      row: (u) => this.reader.walkRow(u) ?? EMPTY_ROW,
      chunkId: (k) => this.reader.record(k)?.id ?? '',
    };
    return this.reader.readUntilComplete(() => {
      let view: WalkView | undefined;
      const ranked = rankPpr(this.ctx, this.lexicon, text, undefined, Math.max(1, cap.evidence), (walk) => {
        view = buildWalkView(walk, cap, graph);
      });
      view ??= wordsOnlyView(ranked, cap.evidence, graph.chunkId);
      const records = new Map<number, PagedChunkRecord>();
      for (const ch of view.chunks) {
        const r = this.reader.record(ch.chunk);
        if (r) records.set(ch.chunk, r);
      }
      return { view, records };
    }, signal);
  }
}

/** A provenance without its concepts' names (an unread hit's: lazyEvidence). */
function withoutConcepts({ concepts: _names, ...rest }: Provenance): Provenance {
  return rest;
}

function sortedHas(sorted: Uint32Array, value: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] === value) return true;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

function mean(values: Float32Array): number {
  let total = 0;
  for (const v of values) total += v;
  return values.length ? total / values.length : 0;
}

/**
 * The analyser a library is questioned with: the one its word index was built with, so a library written before a
 * change of analysis (stemming) keeps answering as built. Hand-made analysers (no version) are taken as given.
 */
function builtWith(analyzer: TermAnalyzer, version: number, name: string): TermAnalyzer {
  if (analyzer.version === undefined || analyzer.version === version || !analyzer.atVersion) return analyzer;
  try {
    return analyzer.atVersion(version);
  } catch {
    throw new PagesError(
      `${name}: pages.bin was built with text analyzer version ${version}, unknown to this app`,
    );
  }
}
