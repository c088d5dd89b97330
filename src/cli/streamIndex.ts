// `cli index --stream`: builds a lexical library read by ranges (src/core/paged) from files one at a time, in memory
// bounded by the index's compact arrays rather than by the text. The in-memory build (index.ts: snapshotFromFiles →
// buildEngine → writePagedIndex) holds every chunk's text, every sentence object and the co-occurrence graph at once:
// 100 MiB of text took 3.5 GB and 1 GiB did not fit in V8's heap (docs/results/scale.md).
//
// Pass 1 parses each file in the parse thread (as the in-memory build does), chooses each chunk's keyphrases within
// its document (keyphrases.ts: they depend on the document alone), counts every keyphrase's document frequency over
// chunks, and spools each document's records (text, heading path, sentence offsets) and keyphrase counts to a
// temporary file. The chunk order of every index is the chunk ids' order, which is the document ids' order (a chunk
// id is `${docId}#…`), so pass 2 reads the spooled documents back sorted by id: the records go into their groups,
// the text and headings into BM25's compact builders, and each chunk keeps its concepts by the same selection as
// extractConcepts. The concept table, shares and walk degrees follow from typed arrays (the degrees a row at a
// time, without the graph), the sections are written by the same pieces as writePagedIndex into temporary files,
// and the bundle is written from them: the same pages.bin, byte for byte, as the in-memory build's
// (test/unit/paged/streamBuild.test.ts).
//
// The bundle holds the pages only (no documents, chunks or sentences parts, which need the whole text at once to be
// written as the whole-read layers are): `cli ask` and the app read it by ranges; reading it whole (import,
// `cli ask --whole`, `cli info`) is refused by name (bundle/snapshot.ts: pagesOnlyProblem).
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import process from 'node:process';
import { PAGES_ONLY_PARAM, Sha256, writeBundle, type StreamedPart } from '../core/bundle/index.ts';
import {
  checkConceptOptions,
  chunkConceptLists,
  conceptIdf,
  conceptTableFromChunks,
  dfCap,
  selectChunkConcepts,
  weightedDegreesFromTable,
} from '../core/graph/index.ts';
import {
  BlockHasher,
  DEFAULT_BLOCK_SIZE,
  encodeOpen,
  PAGES_HASHES_PART,
  PAGES_PART,
  pagedRecord,
  pagesDirectory,
  pagesOpen,
  RecordGroupWriter,
  SECTIONS,
  sectionTable,
  writeConceptSections,
  writeTermSections,
  type PagedChunkRecord,
  type SectionName,
  type SectionSink,
} from '../core/paged/index.ts';
import {
  Bm25Builder,
  Bm25Index,
  conceptChunkShares,
  HeadingFieldBm25,
  resolveParams,
  withSectionPaths,
} from '../core/retrieval/index.ts';
import type { FileError, PreparedDocument } from '../core/types.ts';
import { termAnalyzer } from '../services/library/engine.ts';
import { writeBundleFile } from './bundleIo.ts';
import { readInputFile } from './fileWalker.ts';
import { ThreadParser } from './threadParser.ts';

export interface StreamBuildOptions {
  maxChunkTokens: number;
  appVersion: string;
  log?: (line: string) => void;
  /** Per-file parse time limit (default the browser's PARSE_TIMEOUT_MS). */
  parseTimeoutMs?: number;
  /** Where the temporary files go (default: beside the output). */
  tempDir?: string;
  /** Bytes per checked block of pages.bin (tests use small ones). */
  blockSize?: number;
}

export interface StreamBuildResult {
  bytes: number;
  documents: number;
  chunks: number;
  concepts: number;
  terms: number;
  errors: FileError[];
}

/** Appends to a file through a buffer of its own; `length` counts every byte given. */
class FileSink implements SectionSink {
  private readonly fd: number;
  private readonly buffer = new Uint8Array(1 << 20);
  private used = 0;
  length = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
  }

  write(bytes: Uint8Array): void {
    this.length += bytes.length;
    if (this.used + bytes.length > this.buffer.length) this.flush();
    if (bytes.length > this.buffer.length) writeAll(this.fd, bytes);
    else {
      this.buffer.set(bytes, this.used);
      this.used += bytes.length;
    }
  }

  private flush(): void {
    writeAll(this.fd, this.buffer.subarray(0, this.used));
    this.used = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let at = 0;
  while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
}

function readAt(fd: number, offset: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  while (at < length) {
    const got = readSync(fd, out, at, length - at, offset + at);
    if (got === 0) throw new Error('stream build: a temporary file ended early');
    at += got;
  }
  return out;
}

/** Reads a file in pieces of 1 MiB. */
async function* fileChunks(path: string): AsyncGenerator<Uint8Array> {
  const fd = openSync(path, 'r');
  try {
    const size = statSync(path).size;
    for (let at = 0; at < size; at += 1 << 20) yield readAt(fd, at, Math.min(1 << 20, size - at));
  } finally {
    closeSync(fd);
  }
}

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

/** What pass 1 spools per document: its chunks' records (id order) and each chunk's keyphrases as (id, tf) pairs. */
interface SpooledDocument {
  records: PagedChunkRecord[];
  concepts: number[][];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Seconds as "1 h 02 min", "3 min 05 s" or "12 s". */
function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600)
    return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${s} s`;
}

/**
 * Builds the pages-only bundle of `files` at `out` (written through a temporary file and renamed: never half
 * written). Temporary files are removed on success, failure and SIGINT.
 */
export async function streamBuild(
  files: string[],
  out: string,
  options: StreamBuildOptions,
): Promise<StreamBuildResult> {
  const temp = mkdtempSync(join(options.tempDir ?? dirname(out), `.${basename(out)}.stream-`));
  const cleanup = (): void => rmSync(temp, { recursive: true, force: true });
  const onSigint = (): void => {
    cleanup();
    process.stderr.write(`index: interrupted; removed ${temp}\n`);
    process.exit(130);
  };
  process.once('SIGINT', onSigint);
  try {
    return await build(files, out, options, temp);
  } finally {
    process.off('SIGINT', onSigint);
    cleanup();
  }
}

async function build(
  files: string[],
  out: string,
  options: StreamBuildOptions,
  temp: string,
): Promise<StreamBuildResult> {
  const log = options.log ?? (() => {});
  const params = resolveParams();
  checkConceptOptions(params);
  const analyzer = termAnalyzer();
  const errors: FileError[] = [];
  const started = performance.now();

  // ---- pass 1: parse, keyphrases, df; spool each document
  let totalBytes = 0;
  for (const f of files) {
    try {
      totalBytes += statSync(f).size;
    } catch {
      // readInputFile gives the file its verdict below.
    }
  }
  const spool = new FileSink(join(temp, 'documents.spool'));
  const docIds: string[] = [];
  const docOffsets = new Grow(new Float64Array(1024));
  const docLengths = new Grow(new Uint32Array(1024));
  const docChunkCounts = new Grow(new Uint32Array(1024));
  const seen = new Set<string>();
  const candidateIds = new Map<string, number>();
  const candidates: string[] = [];
  const candidateDf = new Grow(new Uint32Array(1 << 16));
  let chunkCount = 0;
  let readBytes = 0;
  let lastLog = performance.now();
  const parser = new ThreadParser({ timeoutMs: options.parseTimeoutMs });
  try {
    for (let f = 0; f < files.length; f++) {
      const file = files[f];
      let bytes: Uint8Array;
      try {
        bytes = await readInputFile(file);
      } catch (error) {
        errors.push({ file, reason: (error as Error).message });
        continue;
      }
      readBytes += bytes.length;
      const result = await parser.prepare(basename(file), bytes, options.maxChunkTokens);
      errors.push(...result.errors);
      for (const d of result.documents) {
        if (seen.has(d.doc.id)) continue;
        seen.add(d.doc.id);
        const spooled = spoolDocument(d, analyzer, params, (term) => {
          let id = candidateIds.get(term);
          if (id === undefined) {
            id = candidates.length;
            candidateIds.set(term, id);
            candidates.push(term);
            candidateDf.push(0);
          }
          return id;
        });
        for (const list of spooled.concepts)
          for (let i = 0; i < list.length; i += 2) candidateDf.data[list[i]]++;
        const entry = encoder.encode(JSON.stringify(spooled));
        docIds.push(d.doc.id);
        docOffsets.push(spool.length);
        docLengths.push(entry.length);
        docChunkCounts.push(spooled.records.length);
        chunkCount += spooled.records.length;
        spool.write(entry);
      }
      const now = performance.now();
      if (now - lastLog > 2000 || f === files.length - 1) {
        lastLog = now;
        const seconds = (now - started) / 1000;
        const rate = readBytes / 2 ** 20 / seconds;
        const left = rate > 0 ? (totalBytes - readBytes) / 2 ** 20 / rate : 0;
        log(
          `read ${f + 1}/${files.length} files, ${(readBytes / 2 ** 20).toFixed(1)} of ${(totalBytes / 2 ** 20).toFixed(1)} MB ` +
            `(${rate.toFixed(2)} MB/s, ${duration(seconds)} so far, about ${duration(left)} left to read), ` +
            `${docIds.length} documents, ${chunkCount} chunks`,
        );
      }
    }
  } finally {
    await parser.close();
    spool.close();
  }
  if (chunkCount === 0) throw new StreamBuildEmpty();

  // ---- pass 2: documents in id order (= chunk order): records, BM25, each chunk's concepts
  const t2 = performance.now();
  const order = Uint32Array.from(docIds.keys()).sort((a, b) =>
    docIds[a] < docIds[b] ? -1 : docIds[a] > docIds[b] ? 1 : 0,
  );
  const n = chunkCount;
  // As extractConcepts gets it from buildLexicalGraph: the retrieval parameters have no minDfCap of their own.
  const maxDf = dfCap(params.maxDfFraction, n);
  const sinks = Object.fromEntries(
    SECTIONS.map((name) => [name, new FileSink(join(temp, `${name}.part`))]),
  ) as Record<SectionName, FileSink>;
  const records = new RecordGroupWriter(sinks.records);
  const text = new Bm25Builder();
  const headings = new Bm25Builder();
  let anyPath = false;
  const tokens = new Uint32Array(n);
  const documentChunks = new Uint32Array(n);
  const rowOffsets = new Uint32Array(n + 1);
  const rowCandidates = new Grow(new Uint32Array(1 << 16));
  const rowWeights = new Grow(new Float32Array(1 << 16));
  const keptCandidate = new Uint8Array(candidates.length);
  const dfOf = (term: string): number => candidateDf.data[candidateIds.get(term)!];
  let k = 0;
  const spoolFd = openSync(spool.path, 'r');
  lastLog = performance.now();
  try {
    for (let i = 0; i < order.length; i++) {
      const d = order[i];
      const entry = JSON.parse(
        decoder.decode(readAt(spoolFd, docOffsets.data[d], docLengths.data[d])),
      ) as SpooledDocument;
      for (let j = 0; j < entry.records.length; j++) {
        const record = entry.records[j];
        await records.add(record);
        text.add(analyzer.terms(record.text));
        const path = record.path ?? [];
        if (path.length) anyPath = true;
        headings.add(path.length ? analyzer.terms(path.join('\n')) : []);
        tokens[k] = record.tokens;
        documentChunks[k] = entry.records.length;
        const list = entry.concepts[j];
        const counts: Array<[string, number]> = [];
        for (let p = 0; p < list.length; p += 2) counts.push([candidates[list[p]], list[p + 1]]);
        for (const [term, w] of selectChunkConcepts(counts, dfOf, n, maxDf, params.conceptsPerChunk)) {
          const id = candidateIds.get(term)!;
          keptCandidate[id] = 1;
          rowCandidates.push(id);
          rowWeights.push(w);
        }
        rowOffsets[++k] = rowCandidates.length;
      }
      const now = performance.now();
      if (now - lastLog > 2000 || i === order.length - 1) {
        lastLog = now;
        const seconds = (now - t2) / 1000;
        const left = ((order.length - i - 1) * seconds) / (i + 1);
        log(
          `indexed ${i + 1}/${order.length} documents, ${k} chunks (${duration(seconds)}, about ${duration(left)} left)`,
        );
      }
    }
  } finally {
    closeSync(spoolFd);
  }
  const recordGroups = await records.finish();
  rmSync(spool.path, { force: true });

  // ---- the concept table (ids are the sorted terms), shares, degrees
  const t3 = performance.now();
  const keptIds: number[] = [];
  for (let c = 0; c < candidates.length; c++) if (keptCandidate[c]) keptIds.push(c);
  keptIds.sort((a, b) => (candidates[a] < candidates[b] ? -1 : candidates[a] > candidates[b] ? 1 : 0));
  const conceptOf = new Int32Array(candidates.length).fill(-1);
  keptIds.forEach((c, i) => (conceptOf[c] = i));
  const terms = keptIds.map((c) => candidates[c]);
  const idf = Float32Array.from(keptIds, (c) => conceptIdf(n, candidateDf.data[c]));
  const total = rowOffsets[n];
  const chunkConcepts = new Uint32Array(total);
  const chunkConceptWeights = new Float32Array(total);
  for (let kk = 0; kk < n; kk++) {
    const pairs: Array<[number, number]> = [];
    for (let o = rowOffsets[kk]; o < rowOffsets[kk + 1]; o++)
      pairs.push([conceptOf[rowCandidates.data[o]], rowWeights.data[o]]);
    pairs.sort((a, b) => a[0] - b[0]);
    let o = rowOffsets[kk];
    for (const [c, w] of pairs) {
      chunkConcepts[o] = c;
      chunkConceptWeights[o++] = w;
    }
  }
  const table = conceptTableFromChunks({
    chunkCount: n,
    terms,
    idf,
    chunkConceptOffsets: rowOffsets,
    chunkConcepts,
    chunkConceptWeights,
  });
  const shares = conceptChunkShares(table, params.tfSpread, params.chunkScorePower);
  log(
    `concept table: ${terms.length} concepts, ${total} chunk links (${duration((performance.now() - t3) / 1000)})`,
  );
  const t4 = performance.now();
  const degrees = weightedDegreesFromTable(table, params.thetaCo, (u) => {
    if (u > 0)
      log(`walk degrees: ${u}/${terms.length} concepts (${duration((performance.now() - t4) / 1000)})`);
  });
  log(`walk degrees in ${duration((performance.now() - t4) / 1000)}`);

  // ---- the word indexes and the sections
  const bm25 = new Bm25Index(text, params.bm25K1, params.bm25B);
  const copies = Math.round(params.headingWeight);
  const field =
    copies > 0 && anyPath
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
    sinks.terms,
    sinks.postings,
  );
  const concepts = await writeConceptSections(table, shares, sinks.concepts, sinks.lists, sinks.rows);
  const open = pagesOpen({
    textLengths: Float32Array.from({ length: n }, (_, c) => bm25.lengthOf(c)),
    headingLengths: Float32Array.from({ length: n }, (_, c) => headingIndex?.lengthOf(c) ?? 0),
    tokens,
    documentChunks,
    table,
    degrees,
    concepts,
    recordGroups,
    termGroups,
    terms: words,
  });
  sinks.open.write(await encodeOpen(open));
  for (const name of SECTIONS) sinks[name].close();

  // ---- pages.bin's hashes (per block and whole), then the bundle
  const blockSize = options.blockSize ?? DEFAULT_BLOCK_SIZE;
  const lengths = Object.fromEntries(SECTIONS.map((name) => [name, sinks[name].length])) as Record<
    SectionName,
    number
  >;
  const { sections, total: pagesLength } = sectionTable(lengths);
  const pagesChunks = async function* (): AsyncGenerator<Uint8Array> {
    for (const name of SECTIONS) yield* fileChunks(sinks[name].path);
  };
  const blocks = new BlockHasher(blockSize);
  const whole = new Sha256();
  for await (const c of pagesChunks()) {
    blocks.update(c);
    whole.update(c);
  }
  const hashes = blocks.finish();
  const directory = pagesDirectory({
    blockSize,
    chunkCount: n,
    conceptCount: terms.length,
    termCount: words.length,
    headingCopies: field ? field.copies : 0,
    thetaCo: params.thetaCo,
    sections,
  });
  const pagesPart: StreamedPart = {
    name: PAGES_PART,
    kind: 'binary',
    count: n,
    length: pagesLength,
    sha256: whole.digest(),
    meta: directory as unknown as Record<string, unknown>,
    chunks: pagesChunks,
  };
  const bytes = await writeBundleFile(
    out,
    writeBundle(
      [
        pagesPart,
        {
          name: PAGES_HASHES_PART,
          kind: 'binary',
          encoding: 'identity',
          count: hashes.length / 32,
          data: hashes,
        },
      ],
      {
        appVersion: options.appVersion,
        embedder: null,
        params: { maxChunkTokens: options.maxChunkTokens, [PAGES_ONLY_PARAM]: true },
        counts: { documents: docIds.length, chunks: n, concepts: terms.length },
      },
    ),
  );
  return { bytes, documents: docIds.length, chunks: n, concepts: terms.length, terms: words.length, errors };
}

/** No file gave a document. */
export class StreamBuildEmpty extends Error {
  constructor() {
    super('index: no document could be indexed');
  }
}

/**
 * One document as pass 1 spools it: its chunks in id order with their heading paths as records, and each chunk's
 * keyphrases (chosen within the document, as the engine chooses them) as (candidate id, tf) pairs.
 */
function spoolDocument(
  d: PreparedDocument,
  analyzer: ReturnType<typeof termAnalyzer>,
  params: ReturnType<typeof resolveParams>,
  idOf: (term: string) => number,
): SpooledDocument {
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
  const concepts = chunkConceptLists(analyzer, chunks, params).map((list) => {
    const counts = new Map<number, number>();
    for (const t of list) {
      const id = idOf(t);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    const flat: number[] = [];
    for (const [id, tf] of counts) flat.push(id, tf);
    return flat;
  });
  return { records, concepts };
}
