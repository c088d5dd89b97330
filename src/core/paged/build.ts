// Builds a library read by ranges (format.ts) from documents given one at a time, in memory bounded by the index's
// compact arrays rather than by the text: the build of `cli index --stream` (src/cli/streamIndex.ts, which reads the
// documents from files and spools them to disk) and of the app's pages (src/services/library/storedPages.ts, which
// reads them from IndexedDB). Platform-neutral: the documents come from an async iterable, the sections' bytes go to
// sinks the caller gives (temporary files, Blob pieces, memory) and are read back from them for the hashes.
//
// Two passes over the documents. The first (the caller's, with `pagesDocument` and `ConceptCandidates`) chooses each
// chunk's keyphrases within its document (they depend on the document alone) and counts every keyphrase's document
// frequency over chunks. The second (`buildPages`) takes the documents in id order (= chunk order: a chunk id is
// `${docId}#…`): the records go into their groups, the text and headings into BM25's compact builders, and each chunk
// keeps its concepts by the same selection as extractConcepts. The concept table and walk degrees follow
// from typed arrays (the degrees a row at a time, without the graph), and the sections are written by the same
// pieces as writePagedIndex: the same pages, byte for byte, as the in-memory build's
// (test/unit/paged/streamBuild.test.ts).
import {
  chunkConceptLists,
  conceptIdf,
  conceptTableFromChunks,
  dfCap,
  scriptStatistics,
  selectChunkConcepts,
  weightedDegreesFromTable,
  type ConceptTable,
  type TermAnalyzer,
} from '../graph/index.ts';
import { Sha256 } from '../bundle/index.ts';
import {
  Bm25Builder,
  Bm25Index,
  headingField,
  HeadingFieldBm25,
  titleGroupSizes,
  withSectionPaths,
  type RetrievalParams,
} from '../retrieval/index.ts';
import { ScriptTally } from '../text/index.ts';
import type { ChunkRecord, DocumentRecord, SectionRecord } from '../types.ts';
import {
  blockHashBytes,
  PAGES_EVIDENCE_VERSION,
  writerEvidenceEntries,
  PAGES_VERSION,
  SECTIONS,
  type GroupSizes,
  type PagedChunkRecord,
  type PagesDirectory,
  type PostingsCoding,
  type SectionName,
} from './format.ts';
import {
  BlockHasher,
  defaultBlockSize,
  DEFAULT_GROUPS,
  sectionBlocksFor,
  rowBlocksFor,
  writtenBlocks,
  hashPartOf,
  blockPathsOf,
  postingsCodingFor,
  rowsCodingFor,
  rowsDelimitedFor,
  delimitsRows,
  storedBytesAsync,
  openSections,
  pagedRecord,
  pagesDirectory,
  pagesOpen,
  RecordGroupWriter,
  sectionTable,
  shareParams,
  writeConceptSections,
  writeTermSections,
  type SectionSink,
} from './write.ts';
import type { PhaseClock } from './phaseClock.ts';
import { PATH_BYTES } from './blockPaths.ts';

/** A growing typed array (the chunk → concept rows before the table is made). */
class Grow<T extends Uint32Array | Float32Array | Float64Array> {
  length = 0;
  constructor(public data: T) {}
  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new (this.data.constructor as new (n: number) => T)(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }
}

/**
 * One document as the second pass takes it: its chunks' records in id order, and each chunk's keyphrases (chosen
 * within the document) as flat (candidate id, tf) pairs.
 */
export interface PagesDocument {
  records: PagedChunkRecord[];
  concepts: ArrayLike<number>[];
  /** Records whose path begins with the document's .jsonl line label (their index; absent when none): headingField. */
  labelled?: number[];
}

/** The `labelled` of a document's chunks in record order (pagesRecords' chunks). */
export function labelledRecords(chunks: ReadonlyArray<{ pathLabel?: boolean }>): { labelled?: number[] } {
  const labelled: number[] = [];
  chunks.forEach((c, j) => {
    if (c.pathLabel) labelled.push(j);
  });
  return labelled.length ? { labelled } : {};
}

/** Every keyphrase met in the first pass: its candidate id (order of first sight) and its df over chunks. */
export class ConceptCandidates {
  readonly ids = new Map<string, number>();
  readonly terms: string[] = [];
  private df = new Grow(new Uint32Array(1 << 16));

  idOf(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.ids.set(term, id);
      this.terms.push(term);
      this.df.push(0);
    }
    return id;
  }

  /** Counts a document's chunks into the df (each chunk's list names a candidate once). */
  count(document: PagesDocument): void {
    for (const list of document.concepts) for (let i = 0; i < list.length; i += 2) this.df.data[list[i]]++;
  }

  dfOf(id: number): number {
    return this.df.data[id];
  }

  /** Lets every candidate go (buildPages, once its concept table has the kept ones: millions in a large build). */
  release(): void {
    this.ids.clear();
    this.terms.length = 0;
    this.df = new Grow(new Uint32Array(0));
  }
}

/** A document with its parts, as the parser gives it and as the store gives it back (chunk text sliced). */
export interface PagesSourceInput {
  doc: Pick<DocumentRecord, 'id' | 'title' | 'sourceName' | 'pageStarts'>;
  sections: SectionRecord[];
  chunks: ChunkRecord[];
  sentences: ReadonlyArray<{ chunkId: string; index: number; start: number; end: number }>;
}

/** A document's chunks in id order with their heading paths, and their records (what evidence shows). */
export function pagesRecords(d: PagesSourceInput): {
  chunks: Array<ChunkRecord & { path: string[]; pathLabel?: boolean }>;
  records: PagedChunkRecord[];
} {
  const chunks = withSectionPaths([d.doc], d.sections, d.chunks).sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  const sentences = new Map<string, Array<{ index: number; start: number; end: number }>>();
  for (const s of d.sentences) {
    let list = sentences.get(s.chunkId);
    if (!list) sentences.set(s.chunkId, (list = []));
    list.push(s);
  }
  const doc = { title: d.doc.title, ...(d.doc.pageStarts ? { pageStarts: d.doc.pageStarts } : {}) };
  const records = chunks.map((c) => {
    const offsets: number[] = [];
    for (const s of (sentences.get(c.id) ?? []).sort((a, b) => a.index - b.index))
      offsets.push(s.start, s.end);
    return pagedRecord(c, doc, offsets);
  });
  return { chunks, records };
}

/**
 * One document for the builder: its records (pagesRecords), and each chunk's keyphrases (chosen within the
 * document, as the engine chooses them) as (candidate id, tf) pairs.
 */
export function pagesDocument(
  d: PagesSourceInput,
  analyzer: TermAnalyzer,
  params: RetrievalParams,
  candidates: ConceptCandidates,
): PagesDocument {
  const { chunks, records } = pagesRecords(d);
  const concepts = chunkConceptLists(analyzer, chunks, params).map((list) => {
    const counts = new Map<number, number>();
    for (const t of list) {
      const id = candidates.idOf(t);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    const flat: number[] = [];
    for (const [id, tf] of counts) flat.push(id, tf);
    return flat;
  });
  return { records, concepts, ...labelledRecords(chunks) };
}

/** A section's temporary bytes: written in order, read back in order once closed. */
export interface SpoolSink extends SectionSink {
  close(): void | Promise<void>;
}

/** Where the sections' bytes wait until the pages are put together (files in the CLI, Blob pieces in the app). */
export interface SectionSpool {
  create(name: SectionName): SpoolSink;
  /** The closed section's bytes, in order, in pieces of any size. */
  read(name: SectionName): AsyncIterable<Uint8Array>;
}

export interface PagesBuildOptions {
  params: RetrievalParams;
  analyzer: TermAnalyzer;
  /** Bytes per checked block (tests use small ones). */
  blockSize?: number;
  /** Items per group of the grouped sections (default DEFAULT_GROUPS). */
  groups?: GroupSizes;
  /** Rows with counts up to this many gzip'd bytes keep the concept lists (write.ts LISTS_IN_ROWS_BYTES; 0: never). */
  listsInRowsBytes?: number;
  log?: (line: string) => void;
  /** Called after each document of the second pass. */
  onDocument?: (done: number) => void;
  /** Checked between documents: an aborted build throws its reason. */
  signal?: AbortSignal;
  /** Charged with each phase's time (test/bench/pages-write.ts). */
  clock?: PhaseClock;
  /**
   * Given the concept table and the concepts' weighted degrees once they are made (the library's themes are computed
   * from them: src/services/ingest/pagesWrite.ts).
   */
  onTable?: (table: ConceptTable, degrees: Float64Array) => void;
  /** Version 12: chunks an evidence block (evidenceArrays.ts, as writePagedIndex's); absent: the writers'; 0: none. */
  evidenceEntries?: number;
}

export interface BuiltPages {
  directory: PagesDirectory;
  /** The bytes of `pages.sha256`: every block's hash, then version 7's levels of hash pages (write.ts, hashTreeOf). */
  hashes: Uint8Array;
  /** SHA-256 of the whole part. */
  sha256: Uint8Array;
  length: number;
  chunks: number;
  concepts: number;
  terms: number;
  /** The part's bytes in order (from the spool). */
  bytes(): AsyncIterable<Uint8Array>;
}

/**
 * The chunks' kept concepts (candidate id, weight) in chunk order until the concept table is made, in blocks that grow
 * as a BM25 builder's do (bm25.ts: never copied, a large library's mapped whole) rather than arrays doubled (at 1 GiB,
 * 40 M links in 67 M-entry arrays: 537 MB where 320 MB hold them, and both copies while they grew).
 */
class ConceptRows {
  private candidates: Uint32Array[] = [];
  private weights: Float32Array[] = [];
  /** Where each block starts (and, last, where the next one will). */
  private starts: number[] = [0];
  length = 0;
  /** The block read last: rows are read in order. */
  private block = 0;

  push(candidate: number, weight: number): void {
    const b = this.candidates.length - 1;
    if (b < 0 || this.length === this.starts[b + 1]) {
      const size = Math.min(ROW_BLOCK_FIRST * 2 ** (b + 1), ROW_BLOCK_MOST);
      this.candidates.push(new Uint32Array(size));
      this.weights.push(new Float32Array(size));
      this.starts.push(this.length + size);
    }
    const last = this.candidates.length - 1;
    const at = this.length - this.starts[last];
    this.candidates[last][at] = candidate;
    this.weights[last][at] = weight;
    this.length++;
  }

  private blockOf(o: number): number {
    if (o < this.starts[this.block]) this.block = 0;
    while (o >= this.starts[this.block + 1]) this.block++;
    return this.block;
  }

  candidate(o: number): number {
    const b = this.blockOf(o);
    return this.candidates[b][o - this.starts[b]];
  }

  weight(o: number): number {
    const b = this.blockOf(o);
    return this.weights[b][o - this.starts[b]];
  }

  /** The block `set` wrote last: writes go in order too, behind the reads (keep). */
  private writeBlock = 0;

  /** Overwrites row `o` (< length): keep's compaction in place. */
  private set(o: number, candidate: number, weight: number): void {
    if (o < this.starts[this.writeBlock]) this.writeBlock = 0;
    while (o >= this.starts[this.writeBlock + 1]) this.writeBlock++;
    const b = this.writeBlock;
    this.candidates[b][o - this.starts[b]] = candidate;
    this.weights[b][o - this.starts[b]] = weight;
  }

  /**
   * Keeps, chunk by chunk, the rows `choose` returns of each chunk's rows (`offsets`, rewritten to the kept rows),
   * in place: a chunk's kept rows are written where its rows or earlier ones were, after they are read, so the rows
   * of every chunk are never held twice (at 1 GiB, 40 M links: 320 MB once).
   */
  keep(offsets: Uint32Array, choose: (rows: Array<[number, number]>) => Iterable<[number, number]>): void {
    let kept = 0;
    let from = offsets[0];
    for (let k = 0; k + 1 < offsets.length; k++) {
      const to = offsets[k + 1];
      const rows: Array<[number, number]> = [];
      for (let o = from; o < to; o++) rows.push([this.candidate(o), this.weight(o)]);
      for (const [candidate, weight] of choose(rows)) this.set(kept++, candidate, weight);
      offsets[k + 1] = kept;
      from = to;
    }
    // The blocks past the kept rows go.
    while (this.candidates.length > 0 && this.starts[this.candidates.length - 1] >= kept) {
      this.candidates.pop();
      this.weights.pop();
      this.starts.pop();
    }
    this.length = kept;
    this.block = 0;
    this.writeBlock = 0;
  }

  /** Lets the rows go once the table holds them. */
  clear(): void {
    this.candidates = [];
    this.weights = [];
    this.starts = [0];
    this.length = 0;
    this.block = 0;
    this.writeBlock = 0;
  }
}

const ROW_BLOCK_FIRST = 1 << 12;
const ROW_BLOCK_MOST = 1 << 23;

/** What the open section and the directory need of the word indexes once their sections are written. */
interface WrittenWords {
  termGroups: Float64Array;
  textLengths: Float32Array;
  headingLengths: Float32Array;
  headingCopies: number;
  termCount: number;
  /** The dictionary's length with only each group's first term set (pagesOpen reads no other). */
  groupFirsts: string[];
}

/**
 * The second pass's word indexes: BM25's builders over each chunk's text and heading path, then the `terms` and
 * `postings` sections written from them. `write` lets the builders, the indexes and the dictionary go, so that
 * none of them is held while the concept table is made.
 */
class WordSections {
  private text: Bm25Builder | undefined = new Bm25Builder();
  private headings: Bm25Builder | undefined = new Bm25Builder();
  private anyPath = false;
  /** Each chunk's text terms by script, as Bm25Index.countByScript counts them from the text's postings. */
  readonly scripts = new ScriptTally();

  /** `path`: the chunk's heading field (headingField). */
  add(analyzer: TermAnalyzer, text: string, path: readonly string[]): void {
    if (!this.text || !this.headings)
      throw new Error('pages: a chunk added after the word sections were written');
    const terms = analyzer.terms(text);
    this.scripts.add(terms);
    this.text.add(terms);
    if (path.length) this.anyPath = true;
    this.headings.add(path.length ? analyzer.terms(path.join('\n')) : []);
  }

  async write(
    params: RetrievalParams,
    terms: SectionSink,
    postings: SectionSink,
    groupSize: number,
    n: number,
    coding: PostingsCoding | undefined,
  ): Promise<WrittenWords> {
    const { text, headings } = this;
    if (!text || !headings) throw new Error('pages: the word sections are written once');
    this.text = this.headings = undefined;
    const bm25 = new Bm25Index(text, params.bm25K1, params.bm25B);
    const copies = Math.round(params.headingWeight);
    const field =
      copies > 0 && this.anyPath
        ? new HeadingFieldBm25(bm25, new Bm25Index(headings), copies, params.bm25K1, params.bm25B)
        : undefined;
    const headingIndex = field?.headings;
    const vocabulary = new Set(bm25.terms());
    if (headingIndex) for (const t of headingIndex.terms()) vocabulary.add(t);
    const words = [...vocabulary].sort();
    vocabulary.clear();
    const termGroups = await writeTermSections(
      words,
      (t) => [bm25.postingsOf(t), headingIndex?.postingsOf(t)],
      terms,
      postings,
      groupSize,
      coding,
    );
    return {
      termGroups,
      textLengths: Float32Array.from({ length: n }, (_, c) => bm25.lengthOf(c)),
      headingLengths: Float32Array.from({ length: n }, (_, c) => headingIndex?.lengthOf(c) ?? 0),
      headingCopies: field ? field.copies : 0,
      termCount: words.length,
      groupFirsts: words.map((w, i) => (i % groupSize === 0 ? w : '')),
    };
  }
}

/** No document had a chunk. */
class PagesBuildEmpty extends Error {
  constructor() {
    super('pages: no document could be indexed');
  }
}

/** Seconds as "1 h 02 min", "3 min 05 s" or "12 s". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600)
    return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${s} s`;
}

/**
 * The second pass: `documents` in id order (each counted into `candidates` by the first pass), `chunkCount` chunks
 * in all, `documentCount` documents (for the log). Writes every section to `spool`, then hashes the part from it.
 * `candidates` are released once the concept table is made (ConceptCandidates.release).
 */
export async function buildPages(
  input: {
    documents: AsyncIterable<PagesDocument>;
    documentCount: number;
    chunkCount: number;
    candidates: ConceptCandidates;
  },
  spool: SectionSpool,
  options: PagesBuildOptions,
): Promise<BuiltPages> {
  const { params, analyzer, candidates } = { ...options, candidates: input.candidates };
  const log = options.log ?? (() => {});
  const mark = (phase: string): void => options.clock?.mark(phase);
  const n = input.chunkCount;
  if (n === 0) throw new PagesBuildEmpty();
  // Word statistics per script (scriptStatistics): a chunk's concepts are weighed against the chunks of each term's
  // script, known only once every chunk's words are read, so each chunk's candidates are kept whole in pass 2 and
  // selected after it (as extractConcepts selects them over the counts the engine's BM25 gives).
  const deferSelection = params.scriptStatistics;
  const t2 = performance.now();
  // As extractConcepts gets it from buildLexicalGraph: the retrieval parameters have no minDfCap of their own.
  const maxDf = dfCap(params.maxDfFraction, n);
  const sinks = Object.fromEntries(SECTIONS.map((name) => [name, spool.create(name)])) as Record<
    SectionName,
    SpoolSink
  >;
  const groups = options.groups ?? DEFAULT_GROUPS;
  const records = new RecordGroupWriter(sinks.records, groups.records, true);
  const words = new WordSections();
  const tokens = new Uint32Array(n);
  const documentChunks = new Uint32Array(n);
  /** Document and title of every chunk, for the question blend's unit (titleGroupSizes) once all are read. */
  const owners: Array<{ docId: string; path?: readonly string[] }> = new Array(n);
  const rowOffsets = new Uint32Array(n + 1);
  const rows = new ConceptRows();
  const keptCandidate = new Uint8Array(candidates.terms.length);
  const dfOf = (term: string): number => candidates.dfOf(candidates.ids.get(term)!);
  let k = 0;
  let i = 0;
  let lastLog = performance.now();
  for await (const entry of input.documents) {
    mark('pass 2: documents');
    options.signal?.throwIfAborted();
    for (let j = 0; j < entry.records.length; j++) {
      if (k >= n) throw new Error(`pages: the documents hold more than the ${n} chunks counted`);
      const record = entry.records[j];
      await records.add(record);
      mark('pass 2: records gzip');
      const path = record.path ?? [];
      words.add(analyzer, record.text, headingField({ path, pathLabel: entry.labelled?.includes(j) }));
      mark('pass 2: word terms');
      tokens[k] = record.tokens;
      documentChunks[k] = entry.records.length;
      owners[k] = { docId: record.docId, path: path.length ? [path[0]] : undefined };
      const list = entry.concepts[j];
      if (deferSelection) for (let p = 0; p < list.length; p += 2) rows.push(list[p], list[p + 1]);
      else {
        const counts: Array<[string, number]> = [];
        for (let p = 0; p < list.length; p += 2) counts.push([candidates.terms[list[p]], list[p + 1]]);
        for (const [term, w] of selectChunkConcepts(counts, dfOf, n, maxDf, params.conceptsPerChunk)) {
          const id = candidates.ids.get(term)!;
          keptCandidate[id] = 1;
          rows.push(id, w);
        }
      }
      rowOffsets[++k] = rows.length;
      mark('pass 2: chunk concepts');
    }
    i++;
    options.onDocument?.(i);
    const now = performance.now();
    if (now - lastLog > 2000 || i === input.documentCount) {
      lastLog = now;
      const seconds = (now - t2) / 1000;
      const left = ((input.documentCount - i) * seconds) / i;
      log(
        `indexed ${i}/${input.documentCount} documents, ${k} chunks (${duration(seconds)}, about ${duration(left)} left)`,
      );
    }
  }
  if (k !== n) throw new Error(`pages: the documents held ${k} chunks, ${n} were counted`);
  const { offsets: recordGroups, dictionary } = await records.finish();
  mark('pass 2: records gzip');
  const titleChunks = titleGroupSizes(owners);
  owners.length = 0;

  const scriptChunks = params.scriptStatistics ? words.scripts.counts() : undefined;
  const perScript = scriptChunks && scriptStatistics(scriptChunks, params.maxDfFraction);
  if (deferSelection)
    rows.keep(rowOffsets, (chunkRows) => {
      const counts = chunkRows.map(([id, tf]): [string, number] => [candidates.terms[id], tf]);
      return selectChunkConcepts(counts, dfOf, n, maxDf, params.conceptsPerChunk, perScript).map(
        ([term, w]): [number, number] => {
          const id = candidates.ids.get(term)!;
          keptCandidate[id] = 1;
          return [id, w];
        },
      );
    });
  // Version 11 holds both openCoding (every part) and scriptChunks (a library of two scripts).
  const version =
    (options.evidenceEntries ?? 0) > 0 ? Math.max(PAGES_EVIDENCE_VERSION, PAGES_VERSION) : PAGES_VERSION;

  // ---- the concept table (ids are the sorted terms), degrees
  const t3 = performance.now();
  const keptIds: number[] = [];
  for (let c = 0; c < candidates.terms.length; c++) if (keptCandidate[c]) keptIds.push(c);
  const all = candidates.terms;
  keptIds.sort((a, b) => (all[a] < all[b] ? -1 : all[a] > all[b] ? 1 : 0));
  const conceptOf = new Int32Array(all.length).fill(-1);
  keptIds.forEach((c, x) => (conceptOf[c] = x));
  const terms = keptIds.map((c) => all[c]);
  const idf = Float32Array.from(keptIds, (c) =>
    conceptIdf(perScript ? perScript.nOf(all[c]) : n, candidates.dfOf(c)),
  );
  candidates.release();
  const total = rowOffsets[n];
  const chunkConcepts = new Uint32Array(total);
  const chunkConceptWeights = new Float32Array(total);
  for (let kk = 0; kk < n; kk++) {
    const pairs: Array<[number, number]> = [];
    for (let o = rowOffsets[kk]; o < rowOffsets[kk + 1]; o++)
      pairs.push([conceptOf[rows.candidate(o)], rows.weight(o)]);
    pairs.sort((a, b) => a[0] - b[0]);
    let o = rowOffsets[kk];
    for (const [c, w] of pairs) {
      chunkConcepts[o] = c;
      chunkConceptWeights[o++] = w;
    }
  }
  rows.clear();
  const table = conceptTableFromChunks({
    chunkCount: n,
    terms,
    idf,
    chunkConceptOffsets: rowOffsets,
    chunkConcepts,
    chunkConceptWeights,
    ...(scriptChunks && { scriptChunks }),
  });
  log(
    `concept table: ${terms.length} concepts, ${total} chunk links (${duration((performance.now() - t3) / 1000)})`,
  );
  mark('concept table');
  options.signal?.throwIfAborted();
  const t4 = performance.now();
  const degrees = weightedDegreesFromTable(table, params.thetaCo, (u) => {
    if (u > 0)
      log(`walk degrees: ${u}/${terms.length} concepts (${duration((performance.now() - t4) / 1000)})`);
  });
  log(`walk degrees in ${duration((performance.now() - t4) / 1000)}`);
  mark('walk degrees');
  options.signal?.throwIfAborted();
  options.onTable?.(table, degrees);

  // ---- the word indexes and their sections (laid out here, after the degrees, rather than right after pass 2: there
  // they met the heap that pass 2 had left, and the peak rose, docs/results/stream-build.md, round sixteen); BM25's
  // builders and indexes are let go once written
  const word = await words.write(
    params,
    sinks.terms,
    sinks.postings,
    groups.terms,
    n,
    postingsCodingFor(version),
  );
  mark('terms + postings sections');

  // ---- the concept sections and the open section
  // Version 3 lists hold no shares (the reader computes them from the tf): the table's are not written.
  const concepts = await writeConceptSections(
    table,
    undefined,
    sinks.concepts,
    sinks.lists,
    sinks.rows,
    groups,
    options.listsInRowsBytes,
    version,
    delimitsRows(version, options.blockSize === undefined ? sectionBlocksFor(version, false) : undefined),
  );
  // Lists kept in the rows make the rows one group (format.ts, listsInRows).
  const writtenGroups = { ...groups, rows: concepts.rows };
  const sectionBlocks =
    options.blockSize === undefined ? sectionBlocksFor(version, concepts.listsInRows) : undefined;
  const rowBlocks = rowBlocksFor(version, concepts.listsInRows, sectionBlocks, concepts.rowGroups);
  const rowsDelimited = rowsDelimitedFor(version, rowBlocks);
  mark('concepts + lists + rows sections');
  const full = pagesOpen({
    textLengths: word.textLengths,
    headingLengths: word.headingLengths,
    tokens,
    documentChunks,
    titleChunks,
    table,
    degrees,
    concepts,
    recordGroups,
    termGroups: word.termGroups,
    terms: word.groupFirsts,
    groups: writtenGroups,
  });
  const written = await openSections(
    full,
    n,
    version,
    concepts.listsInRows,
    writtenGroups.rows,
    writtenGroups.records,
    options.evidenceEntries ?? writerEvidenceEntries(version, concepts.listsInRows),
    rowsDelimited && rowBlocks?.size,
  );
  await sinks.open.write(written.open);
  await sinks.degrees.write(written.degrees);
  // Version 12: the evidence's blocks after the records and their dictionary (evidenceArrays.ts).
  for (const block of written.evidence?.blocks ?? []) await sinks.records.write(block);
  for (const name of SECTIONS) await sinks[name].close();
  mark('open section');

  // ---- the part's hashes (per block and whole)
  const blockSize = options.blockSize ?? defaultBlockSize(version, concepts.listsInRows);
  const lengths = Object.fromEntries(SECTIONS.map((name) => [name, sinks[name].length])) as Record<
    SectionName,
    number
  >;
  const { sections, total: length } = sectionTable(lengths, version);
  const sectionBytes = async function* (): AsyncGenerator<Uint8Array> {
    for (const name of SECTIONS) yield* spool.read(name);
  };
  const layout = writtenBlocks(
    version,
    blockSize,
    sections,
    sectionBlocks,
    length,
    rowBlocks && {
      rows: rowBlocks,
      rowGroups: concepts.rowGroups,
    },
    written.evidence,
  );
  const blocks = new BlockHasher(layout, blockHashBytes(version));
  // Version 13: the rows' paths (blockPaths.ts) are made from the block hashes, so the part as stored (and its
  // SHA-256) takes a second pass over the spool.
  const paths = blockPathsOf(version, layout, sections.lists[1]);
  let whole = new Sha256();
  for await (const c of sectionBytes()) {
    mark('hashes: spool read');
    blocks.update(c);
    if (!paths) whole.update(c);
    mark('hashes: sha-256');
  }
  const leaves = blocks.finish();
  const bytes = (): AsyncIterable<Uint8Array> => storedBytesAsync(sectionBytes(), paths, leaves);
  if (paths) {
    whole = new Sha256();
    for await (const c of bytes()) whole.update(c);
    mark('hashes: paths');
  }
  const hashPart = hashPartOf(version, blockSize, leaves, paths !== undefined);
  const directory = pagesDirectory(
    {
      blockSize,
      chunkCount: n,
      conceptCount: terms.length,
      termCount: word.termCount,
      headingCopies: word.headingCopies,
      thetaCo: params.thetaCo,
      analyzer: analyzer.version,
      shares: shareParams(params),
      listsInRows: concepts.listsInRows,
      sections,
      groups: writtenGroups,
      hashPages: hashPart.hashPages,
      sectionBlocks,
      openResiduals: written.openResiduals,
      openCoding: written.openCoding,
      listCoding: written.listCoding,
      rowBlocks,
      recordCoding: { dictionary },
      ...(scriptChunks && { scriptChunks }),
      ...(written.evidence ? { evidenceArrays: written.evidence.field } : {}),
      ...(paths ? { blockPaths: paths.field } : {}),
      postingsCoding: postingsCodingFor(version),
      rowsCoding: rowsCodingFor(version, concepts.listsInRows),
      rowsDelimited,
    },
    version,
  );
  return {
    directory,
    hashes: hashPart.bytes,
    sha256: whole.digest(),
    length: length + (paths ? paths.zone.count * PATH_BYTES : 0),
    chunks: n,
    concepts: terms.length,
    terms: word.termCount,
    bytes,
  };
}
