// `cli index --stream`: builds a lexical library read by ranges (src/core/paged) from files one at a time, in memory
// bounded by the index's compact arrays rather than by the text. The in-memory build (index.ts: snapshotFromFiles →
// buildEngine → writePagedIndex) holds every chunk's text, every sentence object and the co-occurrence graph at once:
// 100 MiB of text took 3.5 GB and 1 GiB did not fit in V8's heap (docs/results/scale.md).
//
// Pass 1 parses each file in the parse thread (as the in-memory build does), chooses each chunk's keyphrases within
// its document (keyphrases.ts: they depend on the document alone), counts every keyphrase's document frequency over
// chunks, and spools each document's records (text, heading path, sentence offsets) and keyphrase counts to a
// temporary file. The chunk order of every index is the chunk ids' order, which is the document ids' order (a chunk
// id is `${docId}#…`), so pass 2 (src/core/paged/build.ts, shared with the app's pages written from IndexedDB)
// reads the spooled documents back sorted by id: the records go into their groups, the text and headings into
// BM25's compact builders, and each chunk keeps its concepts by the same selection as extractConcepts. The concept
// table, shares and walk degrees follow from typed arrays (the degrees a row at a time, without the graph), the
// sections are written by the same pieces as writePagedIndex into temporary files, and the bundle is written from
// them: the same pages.bin, byte for byte, as the in-memory build's (test/unit/paged/streamBuild.test.ts).
//
// The bundle holds the pages only (no documents, chunks or sentences parts, which need the whole text at once to be
// written as the whole-read layers are): `cli ask` and the app read it by ranges; reading it whole (import,
// `cli ask --whole`, `cli info`) is refused by name (bundle/snapshot.ts: pagesOnlyProblem).
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import process from 'node:process';
import { PAGES_ONLY_PARAM, writeBundle, type StreamedPart } from '../core/bundle/index.ts';
import { checkConceptOptions } from '../core/graph/index.ts';
import { themesPart } from '../core/themes/index.ts';
import { PagedThemes } from '../services/themes/themesOf.ts';
import {
  blockLayoutOf,
  buildPages,
  ConceptCandidates,
  duration,
  type GroupSizes,
  PAGES_HASHES_PART,
  PAGES_PART,
  pagesDocument,
  type PagesDocument,
  type SectionName,
  type SectionSpool,
  type SpoolSink,
} from '../core/paged/index.ts';
import { resolveParams, type RetrievalParams } from '../core/retrieval/index.ts';
import type { FileError } from '../core/types.ts';
import type { OcrLanguageSetting } from '../core/parse/index.ts';
import { termAnalyzer } from '../services/library/engine.ts';
import { writeBundleFile } from './bundleIo.ts';
import { readInputFile } from './fileWalker.ts';
import { logOcrProgress, ThreadParser } from './threadParser.ts';

export interface StreamBuildOptions {
  maxChunkTokens: number;
  appVersion: string;
  log?: (line: string) => void;
  /** Per-file parse time limit (default the browser's PARSE_TIMEOUT_MS). */
  parseTimeoutMs?: number;
  /** The language scans are read in ('auto': from the document's text, else its first page). */
  ocrLanguage?: OcrLanguageSetting;
  /** Where the temporary files go (default: beside the output). */
  tempDir?: string;
  /** Bytes per checked block of pages.bin (tests use small ones). */
  blockSize?: number;
  /** Items per group of the grouped sections (`--group-sizes`; default DEFAULT_GROUPS). */
  groups?: GroupSizes;
  /** Rows with counts up to this many gzip'd bytes keep the lists (tests write a large library's layout with 0). */
  listsInRowsBytes?: number;
  /** Retrieval parameters other than the defaults (attachGraph's `params`: the same library either way). */
  params?: Partial<Record<keyof RetrievalParams, unknown>>;
  /** Pages version 12: chunks an evidence block (attachGraph's `evidenceEntries`); absent: none. */
  evidenceEntries?: number;
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
class FileSink implements SpoolSink {
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

/** The sections' temporary files (`<name>.part` in the build's temporary folder). */
class FileSpool implements SectionSpool {
  constructor(private readonly folder: string) {}
  create(name: SectionName): FileSink {
    return new FileSink(this.path(name));
  }
  read(name: SectionName): AsyncIterable<Uint8Array> {
    return fileChunks(this.path(name));
  }
  private path(name: SectionName): string {
    return join(this.folder, `${name}.part`);
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

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
  const params = resolveParams(options.params);
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
  const docOffsets: number[] = [];
  const docLengths: number[] = [];
  const seen = new Set<string>();
  const candidates = new ConceptCandidates();
  let chunkCount = 0;
  let readBytes = 0;
  let lastLog = performance.now();
  const parser = new ThreadParser({
    timeoutMs: options.parseTimeoutMs,
    onOcrProgress: logOcrProgress('index'),
    ocrLanguage: options.ocrLanguage,
  });
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
        const spooled = pagesDocument(d, analyzer, params, candidates);
        candidates.count(spooled);
        const entry = encoder.encode(JSON.stringify(spooled));
        docIds.push(d.doc.id);
        docOffsets.push(spool.length);
        docLengths.push(entry.length);
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

  // ---- pass 2 (src/core/paged/build.ts): documents in id order (= chunk order), from the spool
  const order = Uint32Array.from(docIds.keys()).sort((a, b) =>
    docIds[a] < docIds[b] ? -1 : docIds[a] > docIds[b] ? 1 : 0,
  );
  const spooled = async function* (): AsyncGenerator<PagesDocument> {
    const spoolFd = openSync(spool.path, 'r');
    try {
      for (let i = 0; i < order.length; i++) {
        const d = order[i];
        const doc = JSON.parse(
          decoder.decode(readAt(spoolFd, docOffsets[d], docLengths[d])),
        ) as PagesDocument;
        for (const record of doc.records) themes.add(record);
        yield doc;
      }
    } finally {
      closeSync(spoolFd);
      rmSync(spool.path, { force: true });
    }
  };
  // The themes, from the build's concept table (a part of their own, themes.json, as `cli index --pages` writes).
  const themes = new PagedThemes();
  const built = await buildPages(
    { documents: spooled(), documentCount: docIds.length, chunkCount, candidates },
    new FileSpool(temp),
    {
      params,
      analyzer,
      blockSize: options.blockSize,
      groups: options.groups,
      listsInRowsBytes: options.listsInRowsBytes,
      evidenceEntries: options.evidenceEntries,
      log,
      onTable: (table, degrees) => themes.of(table, degrees, params.thetaCo),
    },
  );
  const n = built.chunks;
  const pagesPart: StreamedPart = {
    name: PAGES_PART,
    kind: 'binary',
    count: n,
    length: built.length,
    sha256: built.sha256,
    meta: built.directory as unknown as Record<string, unknown>,
    chunks: built.bytes,
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
          // One a block (version 7's levels of hash pages follow the block hashes).
          count: blockLayoutOf(built.directory, built.length).count,
          data: built.hashes,
        },
        ...(themes.themes ? [themesPart(themes.themes)] : []),
      ],
      {
        appVersion: options.appVersion,
        embedder: null,
        params: { maxChunkTokens: options.maxChunkTokens, [PAGES_ONLY_PARAM]: true },
        counts: { documents: docIds.length, chunks: n, concepts: built.concepts },
      },
    ),
  );
  return {
    bytes,
    documents: docIds.length,
    chunks: n,
    concepts: built.concepts,
    terms: built.terms,
    errors,
  };
}

/** No file gave a document. */
export class StreamBuildEmpty extends Error {
  constructor() {
    super('index: no document could be indexed');
  }
}
