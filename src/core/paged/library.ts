// A library answered by ranges: the default mode (`ppr`), `concept` and `bm25` over a pages part (format.ts), reading
// only the blocks a question needs. The ranking and the evidence are the engine's own code (pprSearch.ts, evidence.ts)
// run over accessors that read loaded blocks; a run that met a missing block is thrown away, the blocks it noted are
// fetched, and the question runs again (blockStore.ts). The last run read nothing missing, so its answer is the one
// the engine in memory gives for the same index: the same chunks, scores and evidence (library.test.ts).
import { decodeStructured, gunzip } from '../bundle/index.ts';
import { exactDegrees, PersonalizedPageRank, questionTerms } from '../graph/index.ts';
import type { RowSource, TermAnalyzer } from '../graph/index.ts';
import type { WalkDegrees } from '../graph/index.ts';
import type { ConceptAccess, ConceptChunks, TermLookup } from '../retrieval/index.ts';
import type { RetrievalChunkInput } from '../retrieval/index.ts';
import { rankedEvidence, SentenceTermCache, sentenceQuery, type EvidenceSource } from '../retrieval/index.ts';
import { resolveParams, type RetrievalParams } from '../retrieval/index.ts';
import { rankPpr, type PprContext, type PprLexicon } from '../retrieval/index.ts';
import { parseMode, reciprocalRankFusion, starEdges } from '../retrieval/index.ts';
import { addQueryScores, topK } from '../retrieval/index.ts';
import { buildWalkView, withCaps, wordsOnlyView } from '../retrieval/index.ts';
import type { WalkView, WalkViewCaps, WalkViewGraph } from '../retrieval/index.ts';
import type { Candidate, RetrievedChunk } from '../retrieval/index.ts';
import { BlockStore, decodeJson, gzipSize, PagesError } from './blockStore.ts';
import { checkConceptGroup, checkRecordGroup, checkTermGroup } from './groupShapes.ts';
import { ByteReader, readVarints } from './bytes.ts';
import { recordChunk, recordSentences } from './recordEvidence.ts';
import { RecordSearch } from './recordSearch.ts';
import { rankConcepts, type ConceptReads } from './conceptRanking.ts';
import { degreeLower, degreeUpper, expandOpen } from './compactOpen.ts';
import {
  PAGES_FORMAT,
  PAGES_VERSIONS_READ,
  sectionsOf,
  type OpenTables,
  type PagedChunkRecord,
  type PagesDirectory,
  type PagesOpenV1,
  type PagesOpenV2,
  type SectionName,
  type TermEntry,
} from './format.ts';
import type { RangeSource } from './rangeSource.ts';

/** A question reads at most this many rounds of blocks (a walk reaches a new layer of concepts per round or two). */
const MAX_ROUNDS = 200;
/**
 * A ranking that lacks at most this many blocks and groups is nearly final: its evidence is run too, so that the
 * records its passages need are read in the same round rather than one round after the ranking settles. Over 30
 * questions at 100 MiB: 118 rounds instead of 149 for 2.6% more bytes (64: the same rounds, 3.9% more bytes); at
 * 1 GiB, 43 instead of 50 rounds for 7 questions, the same bytes (docs/results/ranges.md).
 */
const PREFETCH_NOTED = 32;
/** Loads the words' early evidence may take before the walk's reads go on (postings, records, and one spare). */
const EARLY_STEPS = 3;
/** Decoded posting lists, concept lists and walk rows kept between questions. */
const MAX_CACHED = 50_000;

export interface PagesLocation {
  /** Offset of the pages part's payload in the source, and the part's directory and block hashes. */
  base: number;
  length: number;
  directory: PagesDirectory;
  hashes: Uint8Array;
  /**
   * The part's bytes, when the caller holds them whole and trusts them (the library's own stored pages): read at
   * once, without hash checks or rounds (BlockStore).
   */
  held?: Uint8Array;
}

export interface PagedAnswer {
  hits: RetrievedChunk[];
  /** The records of the chunks shown (title, document offsets, pages). */
  records: Map<string, PagedChunkRecord>;
  /** Bytes this question read from the source, the rounds it took, and the milliseconds it waited on them. */
  bytes: number;
  rounds: number;
  waitMs: number;
}

const EMPTY_U32 = new Uint32Array(0);
const EMPTY_ROW = { targets: EMPTY_U32, weights: new Float32Array(0), degree: 0 };
/** Dictionary groups a concept search reads past its place for the terms starting with it (128 terms a group). */
const PREFIX_GROUPS = 8;

/** What a read of the Graph view returns: its value, and the bytes, rounds and waiting it took. */
export interface PagedRead<T> {
  value: T;
  bytes: number;
  rounds: number;
  waitMs: number;
}

/** conceptMap's result over the pages: each concept's weighted degree in the walk graph in place of its PageRank. */
export interface PagedConceptMap {
  focus?: number;
  nodes: Array<{ concept: number; term: string; degree: number; chunks: number }>;
  edges: Array<{ source: number; target: number; weight: number }>;
  matches: string[];
}
/** A decoded group of the `rows` section: chunk i's concepts are ids[starts[i]..starts[i + 1]). */
interface RowGroup {
  starts: Uint32Array;
  ids: Uint32Array;
}
const EMPTY_CHUNKS: ConceptChunks = {
  chunks: EMPTY_U32,
  tf: new Float32Array(0),
  shares: new Float32Array(0),
};

/**
 * Checks a directory read from a bundle's manifest before anything is read by it. A version 1 directory comes back
 * with an empty `degrees` section at the part's end (its degrees are in `open`).
 */
export function checkDirectory(value: unknown, partLength: number): PagesDirectory {
  const d = value as PagesDirectory;
  const fail = (why: string): never => {
    throw new PagesError(`the pages part's directory ${why}`);
  };
  if (!d || typeof d !== 'object' || d.format !== PAGES_FORMAT) fail('is missing or of another format');
  if (!PAGES_VERSIONS_READ.includes(d.version))
    fail(`has version ${String(d.version)} (this app reads ${PAGES_VERSIONS_READ.join(' and ')})`);
  const counts = [d.blockSize, d.chunkCount, d.conceptCount, d.termCount, d.headingCopies, d.thetaCo];
  if (!counts.every((x) => Number.isSafeInteger(x) && x >= 0) || d.blockSize < 512) fail('has a bad count');
  if (d.analyzer !== undefined && !(Number.isSafeInteger(d.analyzer) && d.analyzer >= 1))
    fail(`has a bad analyzer version ${String(d.analyzer)}`);
  const g = d.groups;
  if (!g || ![g.records, g.terms, g.concepts, g.rows].every((x) => Number.isSafeInteger(x) && x > 0))
    fail('has bad group sizes');
  let end = 0;
  for (const name of sectionsOf(d.version)) {
    const s = d.sections?.[name];
    if (!Array.isArray(s) || s[0] !== end || !(Number.isSafeInteger(s[1]) && s[1] >= 0))
      fail(`has a bad section ${name}`);
    end += s[1];
  }
  if (end !== partLength) fail(`covers ${end} bytes of a ${partLength}-byte part`);
  if (d.version === 1) return { ...d, sections: { ...d.sections, degrees: [end, 0] } };
  if (d.sections.degrees[1] !== d.conceptCount * 8) fail('has a degrees section of the wrong length');
  return d;
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

export class PagedLibrary {
  private readonly params: RetrievalParams;
  private readonly lists = new Map<number, ConceptChunks>();
  private readonly postings = new Map<string, { chunks: Uint32Array; freqs: Uint16Array }>();
  private readonly rowCache = new Map<
    number,
    { targets: Uint32Array; weights: Float32Array; degree: number }
  >();
  private readonly walker: PersonalizedPageRank;
  private readonly chunkScores: Float64Array;
  private readonly wordScores: Float32Array;
  private readonly fieldLengths: Float32Array;
  private readonly textAvg: number;
  private readonly fieldAvg: number;
  private readonly termCache: SentenceTermCache;
  private readonly ctx: PprContext;
  private readonly lexicon: PprLexicon;
  private readonly evidence: EvidenceSource;

  private constructor(
    private readonly source: RangeSource,
    private readonly store: BlockStore,
    readonly directory: PagesDirectory,
    private readonly open: OpenTables,
    readonly analyzer: TermAnalyzer,
  ) {
    this.params = resolveParams();
    const n = directory.chunkCount;
    this.chunkScores = new Float64Array(n);
    this.wordScores = new Float32Array(n);
    this.textAvg = mean(open.textLengths);
    this.fieldLengths = new Float32Array(n);
    for (let k = 0; k < n; k++)
      this.fieldLengths[k] = open.textLengths[k] + directory.headingCopies * open.headingLengths[k];
    this.fieldAvg = mean(this.fieldLengths);
    this.termCache = new SentenceTermCache(analyzer);
    const rows: RowSource = { nodeCount: directory.conceptCount, row: (u) => this.walkRow(u) };
    const differs = (u: number, stored: string, computed: number): never => {
      throw new PagesError(
        `${source.name}: pages.bin stores the walk degree of concept ${u} as ${stored}, but its row sums to ` +
          `${computed} (the pages are damaged or forged)`,
      );
    };
    this.walker = new PersonalizedPageRank(
      rows,
      open.degrees ? exactDegrees(open.degrees, differs) : this.walkDegrees(open.degreeCodes!, differs),
    );
    this.ctx = {
      concepts: this.conceptAccess(),
      conceptIds: this.conceptLookup(),
      walker: this.walker,
      chunkScores: this.chunkScores,
      params: this.params,
    };
    const fields = directory.headingCopies > 0;
    this.lexicon = {
      analyzer,
      words: { search: (terms, limit) => this.bm25(terms, limit, false) },
      fields: { search: (terms, limit) => this.bm25(terms, limit, fields) },
      // A part written before titleChunks answers as it was built: the blend then reads the documents.
      documentChunks: (k) => (open.titleChunks ?? open.documentChunks)[k],
    };
    this.evidence = {
      analyzer,
      chunk: (k) => this.chunkInput(k),
      sentences: (k) => recordSentences(this.record(k), k),
      documentChunks: (k) => open.documentChunks[k],
      conceptTerm: (c) => this.conceptTerm(c),
      dimension: 0,
      sentenceTerms: (s, text) => this.termCache.get(s, text),
    };
  }

  /** Reads the part's `open` section (checked blocks) and checks its arrays against the directory. */
  static async open(
    source: RangeSource,
    location: PagesLocation,
    analyzer: TermAnalyzer,
  ): Promise<PagedLibrary> {
    const d = checkDirectory(location.directory, location.length);
    const store = new BlockStore(
      source,
      location.base,
      location.length,
      d.blockSize,
      location.hashes,
      'pages.bin',
      location.held,
    );
    const [at, length] = d.sections.open;
    let stored: PagesOpenV1 | PagesOpenV2 | undefined;
    const read = () =>
      store.group<PagesOpenV1 | PagesOpenV2>('open', at, length, async (bytes) =>
        decodeStructured<PagesOpenV1 | PagesOpenV2>(await gunzip(bytes, gzipSize(bytes)), 'pages.bin (open)'),
      );
    if (!(stored = read())) {
      await store.load();
      stored = read()!;
    }
    const n = d.chunkCount;
    const nc = d.conceptCount;
    let open: OpenTables;
    try {
      if (stored.df?.length !== nc)
        throw new PagesError(`pages.bin (open) has ${stored.df?.length ?? 'no'} df, expected ${nc}`);
      open = expandOpen(stored, d.version, n);
    } catch (error) {
      if (error instanceof PagesError) throw new PagesError(`${source.name}: ${error.message}`);
      throw error;
    }
    checkOpen(source.name, d, open);
    return new PagedLibrary(source, store, d, open, builtWith(analyzer, d.analyzer ?? 1, source.name));
  }

  get chunkCount(): number {
    return this.directory.chunkCount;
  }

  /** The library's analyser's terms of a text (what the Ask view's relevance reads). */
  terms(text: string): string[] {
    return this.analyzer.terms(text);
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
  ): Promise<PagedAnswer> {
    const parsed = parseMode(mode);
    if (('base' in parsed ? [parsed.base] : parsed.fuse).includes('dense'))
      throw new Error(
        `a library read by ranges has no vectors: it answers every mode but dense, not ${mode}`,
      );
    this.store.trim();
    const before = this.store.bytesRead;
    let earlyOwed = early !== undefined && mode === 'ppr';
    // A ranking that read nothing missing is final: the rounds after it only bring its evidence's records and
    // passages, so it is kept rather than computed again (the same chunks and scores either way).
    let ranked: Candidate[] | undefined;
    let waitMs = 0;
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      signal?.throwIfAborted();
      if (!ranked) {
        const candidates = this.rank(text, mode);
        // A ranking that met a missing block is not the answer: reading the records of its chunks would fetch
        // passages the next run may not show.
        if (!this.store.missing) ranked = candidates;
        // Only what it notes is kept: the evidence shown is always the final ranking's.
        else if (this.store.noted <= PREFETCH_NOTED) this.evidenceOf(text, mode, candidates, budgetTokens);
      }
      const { hits, records } = ranked
        ? this.answerOf(text, mode, ranked, budgetTokens)
        : { hits: [], records: new Map<string, PagedChunkRecord>() };
      if (!this.store.missing) {
        return { hits, records, bytes: this.store.bytesRead - before, rounds: round, waitMs };
      }
      const waited = performance.now();
      if (earlyOwed) {
        // The words' reads first (their postings, then their evidence's records: a few small loads), the walk's
        // after them: the early evidence does not wait on the walk's rows.
        const walkNotes = this.store.setAside();
        for (let step = 0; step < EARLY_STEPS && earlyOwed; step++) {
          const words = this.completeRun(() =>
            this.answerOf(text, 'bm25', this.rank(text, 'bm25'), budgetTokens),
          );
          if (words) {
            earlyOwed = false;
            const wait = waitMs + performance.now() - waited;
            early!({ ...words, bytes: this.store.bytesRead - before, rounds: round + step, waitMs: wait });
          } else {
            await this.store.load();
          }
        }
        this.store.restore(walkNotes);
      }
      await this.store.load();
      waitMs += performance.now() - waited;
    }
    throw new Error(`${this.source.name}: a question needed more than ${MAX_ROUNDS} rounds of reads`);
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
      const k = this.chunkIndex.get(h.chunkId);
      const r = k === undefined ? undefined : this.record(k);
      if (r) records.set(r.id, r);
    }
    return { hits, records };
  }

  /** What `run` returns when it read nothing missing (what it missed is noted for the next round), else undefined. */
  private completeRun<T>(run: () => T): T | undefined {
    const misses = this.store.misses;
    const value = run();
    return this.store.misses === misses ? value : undefined;
  }

  /** Chunk id → index of the chunks this library has shown (records know their index only by position). */
  private readonly chunkIndex = new Map<string, number>();

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
    const misses = this.store.misses;
    const ids = this.ctx.conceptIds;
    const questionConcepts = questionTerms(this.analyzer, text, ids).flatMap((t) => ids.get(t) ?? []);
    const words = this.bm25(this.analyzer.terms(text), this.chunkCount, false);
    // What the ranking reads next (the concepts' rows, the chunks' concepts) depends on these.
    if (this.store.misses !== misses) return [];
    const reads: ConceptReads = {
      chunkCount: this.chunkCount,
      questionConcepts,
      idf: (c) => this.open.idf[c],
      words,
      chunksOf: (c) => this.chunksOf(c)?.chunks,
      conceptsOf: (k) => this.conceptsOf(k),
      row: (c) => this.walkRow(c)?.targets,
    };
    return rankConcepts(reads, this.params, this.params.candidates);
  }

  private evidenceOf(
    text: string,
    mode: string,
    ranked: Candidate[],
    budgetTokens: number,
  ): RetrievedChunk[] {
    return rankedEvidence(this.evidence, ranked, {
      mode,
      query: sentenceQuery(
        this.analyzer,
        text,
        (t) => this.wordIdf(t),
        this.ctx.conceptIds,
        (c) => this.open.idf[c],
      ),
      budgetTokens,
      window: this.params.evidenceTokens,
      slack: this.params.evidenceSlack,
    });
  }

  // ---- words: BM25 over the text, BM25F over text + heading copies (the arithmetic of bm25.ts and fieldBm25.ts)

  private section(name: SectionName): number {
    return this.directory.sections[name][0];
  }

  private termEntry(term: string): TermEntry | undefined {
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

  private postingsOf(
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
    const r = new ByteReader(bytes);
    const chunks: number[] = [];
    const freqs: number[] = [];
    const fail = (why: string): never => {
      throw new PagesError(`${this.source.name}: pages.bin's postings of "${term}" ${why}`);
    };
    let k = 0;
    try {
      while (r.at < bytes.length) {
        const gap = r.varint();
        k += gap;
        if ((chunks.length > 0 && gap === 0) || k >= this.chunkCount)
          fail(`name chunk ${k} out of order or of ${this.chunkCount}`);
        chunks.push(k);
        freqs.push(r.varint());
      }
    } catch (e) {
      // A damaged byte can end a varint past the list (or make it too long): refused naming the part, as the
      // concept lists are (decodeList).
      if (e instanceof PagesError) throw e;
      fail(`do not decode (${e instanceof Error ? e.message : String(e)})`);
    }
    const list = { chunks: Uint32Array.from(chunks), freqs: Uint16Array.from(freqs) };
    if (this.postings.size >= MAX_CACHED) this.postings.clear();
    this.postings.set(key, list);
    return list;
  }

  private wordIdf(term: string): number {
    const entry = this.termEntry(term);
    const list = entry && this.postingsOf(term, entry, false);
    if (!list) return 0;
    const df = list.chunks.length;
    return Math.log(1 + (this.chunkCount - df + 0.5) / (df + 0.5));
  }

  private bm25(queryTerms: readonly string[], limit: number, fields: boolean): Candidate[] {
    const { wordScores: scores } = this;
    const { bm25K1: k1, bm25B: b } = this.params;
    const n = this.chunkCount;
    const lengths = fields ? this.fieldLengths : this.open.textLengths;
    const norm = (fields ? this.fieldAvg : this.textAvg) || 1;
    const copies = fields ? this.directory.headingCopies : 0;
    const scoring = { copies, n, lengths, norm, k1, b };
    const touched: number[] = [];
    // The text's own IDF for plain BM25, the fields' document frequency for BM25F (as the two indexes count).
    addQueryScores(
      queryTerms,
      (term) => {
        const entry = this.termEntry(term);
        if (!entry) return [undefined, undefined];
        return [this.postingsOf(term, entry, false), fields ? this.postingsOf(term, entry, true) : undefined];
      },
      scoring,
      scores,
      touched,
    );
    const best = topK(scores, limit, touched).map((k) => ({ chunk: k, score: scores[k] }));
    for (const k of touched) scores[k] = 0;
    return best;
  }

  // ---- concepts: the dictionary, each concept's chunks, each chunk's concepts, and the walk's rows

  private conceptLookup(): TermLookup {
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
    return { get: (term) => find(term, (c) => this.chunksOf(c)), has: (term) => find(term) !== undefined };
  }

  private conceptGroup(g: number): string[] | undefined {
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

  private conceptTerm(c: number): string {
    const size = this.directory.groups.concepts;
    return this.conceptGroup(Math.floor(c / size))?.[c % size] ?? '';
  }

  private chunksOf(c: number): ConceptChunks | undefined {
    const cached = this.lists.get(c);
    if (cached) return cached;
    const from = this.open.listOffsets[c];
    const bytes = this.store.bytes(this.section('lists') + from, this.open.listOffsets[c + 1] - from);
    if (!bytes) return undefined;
    const list = this.decodeList(c, bytes);
    if (this.lists.size >= MAX_CACHED) this.lists.clear();
    this.lists.set(c, list);
    return list;
  }

  /**
   * Concept c's chunk list: df chunks (ascending, as gaps), their counts, their shares. Each chunk takes at least 6
   * bytes, so df is checked against the list's bytes before anything is allocated, and the bytes must hold exactly
   * the list; chunks are below the chunk count and shares finite.
   */
  private decodeList(c: number, bytes: Uint8Array): ConceptChunks {
    const df = this.open.df[c];
    const fail = (why: string): never => {
      throw new PagesError(`${this.source.name}: pages.bin's chunk list of concept ${c} ${why}`);
    };
    if (df * 6 > bytes.length) fail(`is ${bytes.length} bytes, too few for its ${df} chunks`);
    const r = new ByteReader(bytes);
    const chunks = new Uint32Array(df);
    const tf = new Float32Array(df);
    const shares = new Float32Array(df);
    const n = this.chunkCount;
    try {
      r.varints(chunks, df);
      for (let i = 0, k = 0; i < df; i++) {
        if (i > 0 && chunks[i] === 0) fail('names a chunk twice');
        chunks[i] = k += chunks[i];
        if (k >= n) fail(`names chunk ${k} of ${n}`);
      }
      const counts = new Uint32Array(df);
      r.varints(counts, df);
      tf.set(counts);
      for (let i = 0; i < df; i++) {
        shares[i] = r.f32();
        if (!Number.isFinite(shares[i])) fail('has a share that is not a number');
      }
    } catch (e) {
      if (e instanceof PagesError) throw e;
      fail(`does not decode (${e instanceof Error ? e.message : String(e)})`);
    }
    if (r.at !== bytes.length) fail(`has ${bytes.length - r.at} bytes past its ${df} chunks`);
    return { chunks, tf, shares };
  }

  private conceptsOf(k: number): Uint32Array | undefined {
    const size = this.directory.groups.rows;
    const g = Math.floor(k / size);
    const group = this.rowGroup(g);
    if (!group) return undefined;
    const i = k - g * size;
    return group.ids.subarray(group.starts[i], group.starts[i + 1]);
  }

  /** Row group g: the concepts of its chunks, ids[starts[i]..starts[i + 1]) for its i-th chunk. */
  private rowGroup(g: number): RowGroup | undefined {
    const offsets = this.open.rowGroups;
    return this.store.group<RowGroup>(
      `r${g}`,
      this.section('rows') + offsets[g],
      offsets[g + 1] - offsets[g],
      (bytes) => this.decodeRowGroup(g, bytes),
    );
  }

  /**
   * Row group g from its bytes: as many concept ids as `open`'s counts of its chunks say, each a varint of at least
   * one byte, so the counts are checked against the bytes before anything is allocated or looped over, and the bytes
   * must hold exactly that many. Each chunk's ids ascend (gaps from the one before) and name concepts the pages have.
   */
  private decodeRowGroup(g: number, bytes: Uint8Array): RowGroup {
    const size = this.directory.groups.rows;
    const counts = this.open.conceptCounts;
    const nc = this.directory.conceptCount;
    const from = g * size;
    const to = Math.min(this.chunkCount, from + size);
    let total = 0;
    for (let i = from; i < to; i++) total += counts[i];
    if (total > bytes.length)
      throw new PagesError(
        `its chunks' concept counts sum to ${total}, more than its ${bytes.length} bytes hold`,
      );
    const starts = new Uint32Array(to - from + 1);
    for (let i = from; i < to; i++) starts[i - from + 1] = starts[i - from] + counts[i];
    const ids = new Uint32Array(total);
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

  private conceptAccess(): ConceptAccess {
    const open = this.open;
    let links = 0;
    for (const x of open.conceptCounts) links += x;
    const n = this.directory.chunkCount;
    return {
      chunkCount: n,
      meanChunkConcepts: n ? links / n : 1,
      idf: (c) => open.idf[c],
      df: (c) => open.df[c],
      chunksOf: (c) => this.chunksOf(c) ?? EMPTY_CHUNKS,
      conceptsOf: (k) => this.conceptsOf(k) ?? EMPTY_U32,
      conceptCount: (k) => open.conceptCounts[k],
    };
  }

  /**
   * A version 2 library's walk degrees: the bracket of each from `open`, the exact one from the row when it is
   * cached, else from the `degrees` section (8 bytes a concept, f64), read only for a concept whose residual falls
   * inside its bracket (PersonalizedPageRank).
   */
  private walkDegrees(codes: Uint8Array, differs: NonNullable<WalkDegrees['differs']>): WalkDegrees {
    const at = this.section('degrees');
    return {
      lower: (u) => degreeLower(codes[u]),
      upper: (u) => degreeUpper(codes[u]),
      exact: (u) => {
        const row = this.rowCache.get(u);
        if (row) return row.degree;
        const bytes = this.store.bytes(at + u * 8, 8);
        if (!bytes) return undefined;
        const d = new DataView(bytes.buffer, bytes.byteOffset, 8).getFloat64(0, true);
        // The exact degree lies in the bracket `open` gives it (a degree of code c is above c − 1's upper end).
        if (!(d > degreeLower(codes[u]) && d <= degreeUpper(codes[u])))
          throw new PagesError(
            `${this.source.name}: pages.bin's degrees section gives concept ${u} a walk degree of ${d}, outside ` +
              `its bracket in open (${degreeLower(codes[u])} to ${degreeUpper(codes[u])})`,
          );
        return d;
      },
      differs,
    };
  }

  /**
   * Concept u's row of the walk graph, computed from the table as buildCooccurrenceGraph computes it: every
   * concept sharing a chunk with u (at least θco of them), ascending, with the Dice weight 2·Co / (|T(u)| + |T(v)|)
   * as a float32. Undefined (and noted) while u's chunk list or one of those chunks' rows is not loaded.
   */
  private walkRow(u: number): { targets: Uint32Array; weights: Float32Array; degree: number } | undefined {
    const cached = this.rowCache.get(u);
    if (cached) return cached;
    const list = this.chunksOf(u);
    if (!list) {
      // The rows of the list's chunks are what this row needs next: noted as soon as the list has arrived.
      this.store.after(() => {
        for (const k of this.chunksOf(u)?.chunks ?? EMPTY_U32) this.conceptsOf(k);
      });
      return undefined;
    }
    // Every chunk row first, noting all that are missing, so that one round fetches them all; counting waits for a
    // run that has them (a hub's partial counts would be thrown away). The list is ascending, so its chunks' row
    // groups come in order: each is looked up once, not once per chunk (a hub is in thousands of chunks).
    const size = this.directory.groups.rows;
    let complete = true;
    for (let i = 0, g = -1; i < list.chunks.length; i++) {
      const gk = Math.floor(list.chunks[i] / size);
      if (gk === g) continue;
      g = gk;
      if (!this.rowGroup(g)) complete = false;
    }
    if (!complete) return undefined;
    // Co-occurrence counts in a scratch array (zeroed again after), as buildCooccurrenceGraph counts them.
    const counts = (this.coCounts ??= new Uint32Array(this.directory.conceptCount));
    const found: number[] = [];
    let group: RowGroup | undefined;
    for (let i = 0, g = -1; i < list.chunks.length; i++) {
      const k = list.chunks[i];
      const gk = Math.floor(k / size);
      if (gk !== g) group = this.rowGroup((g = gk));
      const { starts, ids } = group!;
      for (let j = starts[k - g * size], end = starts[k - g * size + 1]; j < end; j++) {
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
  /** Scratch co-occurrence counts per concept for walkRow (allocated at the first walk). */
  private coCounts: Uint32Array | undefined;

  // ---- records: what evidence shows

  private record(k: number): PagedChunkRecord | undefined {
    const size = this.directory.groups.records;
    const g = Math.floor(k / size);
    const r = this.recordGroup(g)?.[k - g * size];
    if (r) this.chunkIndex.set(r.id, k);
    return r;
  }

  /** Record group g (undefined, noted, while it is not loaded). */
  private recordGroup(g: number): PagedChunkRecord[] | undefined {
    const offsets = this.open.recordGroups;
    return this.store.group<PagedChunkRecord[]>(
      `k${g}`,
      this.section('records') + offsets[g],
      offsets[g + 1] - offsets[g],
      (bytes) => checkRecordGroup(decodeJson(bytes), this.groupLength(g, this.chunkCount, 'records')),
    );
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
  /** The record group of chunks found by id before (recordsById). */
  private readonly groupOfId = new Map<string, number>();

  // ---- the KG build's order of the chunks (src/services/llm/kgBuild.ts), from the pages alone

  /**
   * The chunks in the KG build's order (its core chunks are the first κ of it), from the pages alone: by the sum over
   * each chunk's concepts of the concept's weighted degree in the walk graph over its chunk count, highest first,
   * ties in page order. A library in memory sums each concept's global PageRank so (conceptGraph.ts, globalRanks);
   * the pages hold no PageRank, and the weighted degree is where a walk without teleport settles. On the shared sets
   * the core chunks it selects are 93-99% of PageRank's at κ 0.05-0.8 (docs/results/kg-pages.md). With each chunk's
   * tokens, for the build's estimate. Reads the whole `rows` section, and the `degrees` section of a version 2 part.
   */
  async buildOrder(signal?: AbortSignal): Promise<{ order: Uint32Array; tokens: Uint32Array }> {
    const n = this.chunkCount;
    const nc = this.directory.conceptCount;
    const groups = this.open.rowGroups.length - 1;
    const degrees = new Float64Array(nc);
    const read = await this.readUntilComplete(
      () => {
        // Everything is noted in one run, so one round reads it all; the ranks are summed once nothing is missing.
        let complete = true;
        for (let g = 0; g < groups; g++) if (!this.rowGroup(g)) complete = false;
        for (let c = 0; c < nc; c++) {
          const d = this.weightedDegree(c);
          if (d === undefined) complete = false;
          else degrees[c] = d;
        }
        if (!complete) return undefined;
        const ranks = new Float64Array(n);
        for (let k = 0; k < n; k++) {
          let sum = 0;
          for (const c of this.conceptsOf(k)!) sum += this.open.df[c] > 0 ? degrees[c] / this.open.df[c] : 0;
          ranks[k] = sum;
        }
        return ranks;
      },
      signal,
      'the KG build order',
    );
    const ranks = read.value!;
    const order = Uint32Array.from({ length: n }, (_, k) => k).sort((a, b) => ranks[b] - ranks[a] || a - b);
    return { order, tokens: Uint32Array.from(this.open.tokens) };
  }

  /** Lets go of what reads decoded and the blocks they read (BlockStore.forget). Not during a read. */
  forget(): void {
    this.store.forget();
    this.rowCache.clear();
  }

  /** The records of the chunks at these places of the pages (the KG build's core chunks), in that order. */
  async recordsAt(places: readonly number[], signal?: AbortSignal): Promise<PagedChunkRecord[]> {
    const read = await this.readUntilComplete(
      () => places.map((k) => this.record(k)),
      signal,
      'the KG build’s chunks',
    );
    return read.value.map((r, i) => {
      if (!r) throw new PagesError(`${this.source.name}: no record of chunk ${places[i]}`);
      return r;
    });
  }

  private chunkInput(k: number): RetrievalChunkInput {
    const r = this.record(k);
    return r ? recordChunk(r) : { id: '', docId: '', text: '', tokens: this.open.tokens[k], start: 0 };
  }

  // ---- the Graph view (src/services/questions/graphView.ts): read as a question is, re-run until complete

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
    const graph: WalkViewGraph = {
      term: (c) => this.conceptTerm(c),
      conceptsOf: (k) => this.conceptsOf(k) ?? EMPTY_U32,
      chunksOf: (c) => this.chunksOf(c) ?? EMPTY_CHUNKS,
      row: (u) => this.walkRow(u) ?? EMPTY_ROW,
      chunkId: (k) => this.record(k)?.id ?? '',
    };
    return this.readUntilComplete(() => {
      let view: WalkView | undefined;
      const ranked = rankPpr(this.ctx, this.lexicon, text, undefined, Math.max(1, cap.evidence), (walk) => {
        view = buildWalkView(walk, cap, graph);
      });
      view ??= wordsOnlyView(ranked, cap.evidence, graph.chunkId);
      const records = new Map<number, PagedChunkRecord>();
      for (const ch of view.chunks) {
        const r = this.record(ch.chunk);
        if (r) records.set(ch.chunk, r);
      }
      return { view, records };
    }, signal);
  }

  /**
   * The library-wide side of the Graph view, as conceptMap draws it in memory but by a measure the pages hold: the
   * concepts of highest weighted degree in the walk graph (the global PageRank is not in the pages, and computing it
   * reads every row; on this undirected graph a random walk's stationary mass is proportional to the weighted
   * degree), or the concept a search names with its heaviest neighbours (its walk row) and the edges among them.
   * A search is looked up in the sorted dictionary: the exact term, else the terms starting with it (the first
   * PREFIX_GROUPS groups of them), heaviest first; the terms merely containing it would take the whole dictionary.
   */
  async conceptNeighbourhood(
    options: { search?: string; limit?: number; edges?: number; matches?: number } = {},
    signal?: AbortSignal,
  ): Promise<PagedRead<PagedConceptMap>> {
    const limit = Math.max(1, options.limit ?? 120);
    const edgeCap = Math.max(0, options.edges ?? 400);
    const matchCap = options.matches ?? 8;
    const search = (options.search ?? '').toLowerCase().replace(/\s+/g, ' ').trim();
    const df = this.open.df;
    return this.readUntilComplete((): PagedConceptMap => {
      const node = (c: number, degree: number) => ({
        concept: c,
        term: this.conceptTerm(c),
        degree,
        chunks: df[c],
      });
      if (!search) {
        const { ids, degrees } = this.topByDegree(limit);
        return {
          nodes: ids.map((c, i) => node(c, degrees[i])),
          edges: this.edgesAmongLists(ids, edgeCap),
          matches: [],
        };
      }
      const found = this.conceptsNamed(search, matchCap + 1);
      if (found.length === 0) return { nodes: [], edges: [], matches: [] };
      const focus = found[0];
      // The focus's neighbours by edge weight, as conceptMap picks them from the walk graph's row.
      const row = this.walkRow(focus) ?? EMPTY_ROW;
      const weights = Float64Array.from(row.weights);
      const picked = topK(weights, limit - 1);
      const neighbours = picked.map((i) => row.targets[i]);
      const star = starEdges(focus, neighbours, picked, weights, edgeCap);
      const rest = this.edgesAmongLists(neighbours, Math.max(0, edgeCap - star.length));
      return {
        focus,
        nodes: [focus, ...neighbours].map((c) => node(c, this.weightedDegree(c) ?? 0)),
        edges: [...star, ...rest].sort(
          (a, b) => b.weight - a.weight || a.source - b.source || a.target - b.target,
        ),
        matches: found.slice(1).map((c) => this.conceptTerm(c)),
      };
    }, signal);
  }

  /** Runs `run` over what is loaded until a run reads nothing missing (as search does), counting what it read. */
  private async readUntilComplete<T>(
    run: () => T,
    signal?: AbortSignal,
    what = 'the graph view',
  ): Promise<PagedRead<T>> {
    this.store.trim();
    const before = this.store.bytesRead;
    let waitMs = 0;
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      signal?.throwIfAborted();
      const value = run();
      if (!this.store.missing) return { value, bytes: this.store.bytesRead - before, rounds: round, waitMs };
      const waited = performance.now();
      await this.store.load();
      waitMs += performance.now() - waited;
    }
    throw new Error(`${this.source.name}: ${what} needed more than ${MAX_ROUNDS} rounds of reads`);
  }

  /** Concept c's weighted degree in the walk graph (version 2: from the `degrees` section), undefined while unread. */
  private weightedDegree(c: number): number | undefined {
    if (this.open.degrees) return this.open.degrees[c];
    if (this.open.degreeCodes![c] === 0) return 0;
    const bytes = this.store.bytes(this.section('degrees') + c * 8, 8);
    return bytes && new DataView(bytes.buffer, bytes.byteOffset, 8).getFloat64(0, true);
  }

  /**
   * The `limit` concepts of highest weighted degree (ties by id), heaviest first. Version 2 keeps a bracket of each
   * degree in `open`: only the concepts whose bracket reaches the limit-th highest lower bound have their exact
   * degree read (8 bytes each).
   */
  private topByDegree(limit: number): { ids: number[]; degrees: number[] } {
    const nc = this.directory.conceptCount;
    let exact: Float64Array;
    let candidates: number[] | undefined;
    if (this.open.degrees) exact = this.open.degrees;
    else {
      const codes = this.open.degreeCodes!;
      const lower = new Float64Array(nc);
      for (let c = 0; c < nc; c++) lower[c] = degreeLower(codes[c]);
      const best = topK(lower, limit);
      const bar = best.length < limit ? 0 : lower[best[best.length - 1]];
      candidates = [];
      exact = new Float64Array(nc);
      for (let c = 0; c < nc; c++) {
        if (codes[c] === 0 || degreeUpper(codes[c]) < bar) continue;
        candidates.push(c);
        exact[c] = this.weightedDegree(c) ?? 0;
      }
    }
    const ids = topK(exact, limit, candidates);
    return { ids, degrees: ids.map((c) => exact[c]) };
  }

  /**
   * Concepts a search names: the exact term, then the terms starting with it, heaviest first (at most `limit`, from
   * the first PREFIX_GROUPS dictionary groups at or after it).
   */
  private conceptsNamed(search: string, limit: number): number[] {
    const size = this.directory.groups.concepts;
    const groups = this.open.conceptFirst.length;
    let exact: number | undefined;
    const prefix: number[] = [];
    let g = Math.max(0, groupOf(this.open.conceptFirst, search));
    for (let read = 0; g < groups && read < PREFIX_GROUPS; g++, read++) {
      const terms = this.conceptGroup(g);
      if (!terms) return [];
      let past = false;
      for (let i = 0; i < terms.length; i++) {
        const t = terms[i];
        if (t < search) continue;
        if (t === search) exact = g * size + i;
        else if (t.startsWith(search)) prefix.push(g * size + i);
        else {
          past = true;
          break;
        }
      }
      if (past) break;
    }
    const degree = new Map(prefix.map((c) => [c, this.weightedDegree(c) ?? 0]));
    prefix.sort((a, b) => degree.get(b)! - degree.get(a)! || a - b);
    return [...(exact === undefined ? [] : [exact]), ...prefix].slice(0, limit);
  }

  /**
   * The walk-graph edges among a set of concepts (each once, source < target, heaviest first, at most `limit`),
   * counted from their chunk lists rather than their rows: an edge u–v is there when they share at least θco chunks,
   * weighted 2·Co / (|T(u)| + |T(v)|) as a float32, as walkRow computes it. A row reads every chunk of its concept's
   * list; the lists alone are far fewer bytes for the hubs a library's top concepts are.
   */
  private edgesAmongLists(
    ids: readonly number[],
    limit: number,
  ): Array<{ source: number; target: number; weight: number }> {
    const set = [...new Set(ids)].sort((a, b) => a - b);
    const m = set.length;
    const holders = new Map<number, number[]>();
    for (let i = 0; i < m; i++) {
      const list = this.chunksOf(set[i]);
      if (!list) continue;
      for (const k of list.chunks) {
        const at = holders.get(k);
        if (at) at.push(i);
        else holders.set(k, [i]);
      }
    }
    if (this.store.missing) return [];
    const co = new Uint32Array(m * m);
    for (const at of holders.values()) {
      for (let a = 0; a < at.length; a++) for (let b = a + 1; b < at.length; b++) co[at[a] * m + at[b]]++;
    }
    const theta = this.directory.thetaCo;
    const df = this.open.df;
    const out: Array<{ source: number; target: number; weight: number }> = [];
    for (let a = 0; a < m; a++) {
      for (let b = a + 1; b < m; b++) {
        const n = co[a * m + b];
        if (n === 0 || n < theta) continue;
        const u = set[a];
        const v = set[b];
        out.push({ source: u, target: v, weight: Math.fround((2 * n) / (df[u] + df[v])) });
      }
    }
    out.sort((x, y) => y.weight - x.weight || x.source - y.source || x.target - y.target);
    return out.slice(0, limit);
  }
}

/**
 * The group whose first key is the last ≤ key (−1 when key sorts before every group); in a sorted group, the place
 * of the last key ≤ key (the key itself when it is there).
 */
function groupOf<T = string>(sorted: readonly T[], key: string, keyOf = (item: T) => item as string): number {
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

function mean(values: Float32Array): number {
  let total = 0;
  for (const v of values) total += v;
  return values.length ? total / values.length : 0;
}

/**
 * The `open` arrays of a pages part checked against its directory before anything reads by them (a library's
 * open, and `cli upgrade`): each array's length, the counts against the bytes that hold what they count, the group
 * and list offsets as byte offsets that ascend and cover their sections, the degrees finite. `name` names the source.
 */
export function checkOpen(name: string, d: PagesDirectory, open: OpenTables): void {
  const n = d.chunkCount;
  const nc = d.conceptCount;
  const sized: Array<[string, { length: number } | undefined, number]> = [
    ['textLengths', open.textLengths, n],
    ['headingLengths', open.headingLengths, n],
    ['conceptCounts', open.conceptCounts, n],
    ['tokens', open.tokens, n],
    ['documentChunks', open.documentChunks, n],
    ['df', open.df, nc],
    ['idf', open.idf, nc],
    [d.version === 1 ? 'degrees' : 'degreeCodes', open.degrees ?? open.degreeCodes, nc],
    ['listOffsets', open.listOffsets, nc + 1],
    ['recordGroups', open.recordGroups, Math.ceil(n / d.groups.records) + 1],
    ['termGroups', open.termGroups, Math.ceil(d.termCount / d.groups.terms) + 1],
    ['conceptGroups', open.conceptGroups, Math.ceil(nc / d.groups.concepts) + 1],
    ['rowGroups', open.rowGroups, Math.ceil(n / d.groups.rows) + 1],
    ['termFirst', open.termFirst, Math.ceil(d.termCount / d.groups.terms)],
    ['conceptFirst', open.conceptFirst, Math.ceil(nc / d.groups.concepts)],
  ];
  for (const [array, value, expected] of sized) {
    if (!value || value.length !== expected)
      throw new PagesError(
        `${name}: pages.bin (open) has ${value?.length ?? 'no'} ${array}, expected ${expected}`,
      );
  }
  checkOpenCounts(name, d, open);
  if (open.degrees && !open.degrees.every((x) => x >= 0 && x < Infinity))
    throw new PagesError(`${name}: pages.bin (open) has a walk degree that is not a finite number ≥ 0`);
  const ends: Array<[string, Float64Array, number]> = [
    ['recordGroups', open.recordGroups, d.sections.records[1]],
    ['termGroups', open.termGroups, d.sections.terms[1]],
    ['conceptGroups', open.conceptGroups, d.sections.concepts[1]],
    ['rowGroups', open.rowGroups, d.sections.rows[1]],
    ['listOffsets', open.listOffsets, d.sections.lists[1]],
  ];
  for (const [array, offsets, end] of ends) {
    for (let i = 0; i < offsets.length; i++)
      if (!Number.isSafeInteger(offsets[i]) || (i > 0 && !(offsets[i] >= offsets[i - 1])))
        throw new PagesError(`${name}: pages.bin ${array} go backwards or are not byte offsets`);
    if (offsets[0] !== 0 || offsets[offsets.length - 1] !== end)
      throw new PagesError(`${name}: pages.bin ${array} do not cover their section`);
  }
}

/**
 * The per-chunk and per-concept counts of `open` against the bytes that hold what they count, before any of them
 * drives a loop or an allocation: every concept id a chunk row names is a varint of at least one byte, every chunk of
 * a concept's list at least six; a chunk names at most every concept once.
 */
function checkOpenCounts(name: string, d: PagesDirectory, open: OpenTables): void {
  const fail = (why: string): never => {
    throw new PagesError(`${name}: pages.bin (open) ${why}`);
  };
  let ids = 0;
  for (let k = 0; k < open.conceptCounts.length; k++) {
    const count = open.conceptCounts[k];
    if (count > d.conceptCount) fail(`gives chunk ${k} ${count} concepts of ${d.conceptCount}`);
    ids += count;
  }
  if (ids > d.sections.rows[1])
    fail(`gives the chunks ${ids} concepts, more than the ${d.sections.rows[1]}-byte rows section holds`);
  let listed = 0;
  for (let c = 0; c < open.df.length; c++) {
    if (open.df[c] > d.chunkCount) fail(`gives concept ${c} ${open.df[c]} chunks of ${d.chunkCount}`);
    listed += open.df[c];
  }
  if (listed * 6 > d.sections.lists[1])
    fail(
      `gives the concepts ${listed} chunks, more than the ${d.sections.lists[1]}-byte lists section holds`,
    );
  for (const key of ['termFirst', 'conceptFirst'] as const)
    if (!open[key].every((t) => typeof t === 'string')) fail(`has a ${key} that is not a string`);
  for (const key of ['textLengths', 'headingLengths', 'idf'] as const)
    if (!open[key].every((x) => Number.isFinite(x) && x >= 0)) fail(`has ${key} that are not numbers ≥ 0`);
  for (let k = 0; k < open.documentChunks.length; k++)
    if (open.documentChunks[k] > d.chunkCount || open.documentChunks[k] < 1)
      fail(`gives chunk ${k} a document of ${open.documentChunks[k]} chunks`);
  if (open.titleChunks) {
    if (open.titleChunks.length !== d.chunkCount)
      fail(`has ${open.titleChunks.length} titleChunks, expected ${d.chunkCount}`);
    for (let k = 0; k < open.titleChunks.length; k++)
      if (open.titleChunks[k] > d.chunkCount || open.titleChunks[k] < open.documentChunks[k])
        fail(`gives chunk ${k} a title of ${open.titleChunks[k]} chunks`);
  }
}
