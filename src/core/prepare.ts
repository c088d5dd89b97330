// prepareFile: a file's name and bytes → documents ready for embedding and storage (parsed, hashed, chunked).
// The document id is derived from the text, so the same content always gets the same id and is stored once.
// It never throws for bad input: every problem comes back as a FileError for the user, the rest goes on.
import { chunkDocument } from './chunk.ts';
import { sha256Hex } from './hash.ts';
import { ParseError, parseFile } from './parse/index.ts';
import type { OcrOptions, ParsedDocument, ParseProgress } from './parse/index.ts';
import { DEFAULT_INDEX_PARAMS, type FileError, type PreparedDocument } from './types.ts';
import { messageOf } from './errors.ts';

export interface PrepareOptions {
  /** Chunk size limit ℓ in cl100k tokens (default 1200). */
  maxChunkTokens?: number;
  /** addedAt timestamp for the records (default Date.now()). */
  now?: number;
  /** Text recognition for scanned pages and pictures (see src/core/parse/ocr.ts). */
  ocr?: OcrOptions;
  /**
   * Hears the parse go on: each page of a PDF as it is read, then the file's documents as they are chunked (at most
   * every PROGRESS_EVERY_MS, and the last). The ingest pipeline stops only a parse that reports nothing for its limit.
   */
  onProgress?: (progress: ParseProgress) => void;
}

/** Documents chunked are reported at most this often (a .jsonl of 6,761 passages would send as many messages). */
const PROGRESS_EVERY_MS = 250;

export interface PrepareResult {
  documents: PreparedDocument[];
  errors: FileError[];
  /** The file's text was (partly) recognised from pictures: how many pages, in which language. */
  recognised?: NonNullable<ParsedDocument['recognised']>;
}

function reasonOf(error: unknown): string {
  if (error instanceof ParseError) return error.reason;
  const message = messageOf(error);
  return `could not read the file (${message})`;
}

/** 'd' + the first 16 hex chars of the text's SHA-256 (and the full hash). */
async function documentId(text: string): Promise<{ id: string; hash: string }> {
  const hash = await sha256Hex(text);
  return { id: `d${hash.slice(0, 16)}`, hash };
}

/** Hashes and chunks one parsed document. */
async function prepareParsed(
  parsed: ParsedDocument,
  maxChunkTokens: number,
  now: number,
): Promise<PreparedDocument> {
  const { id, hash } = await documentId(parsed.text);
  const { sections, chunks, sentences } = chunkDocument(parsed, id, maxChunkTokens);
  const doc: PreparedDocument['doc'] = {
    id,
    title: parsed.title,
    sourceName: parsed.sourceName,
    mime: parsed.mime,
    size: parsed.size,
    hash,
    addedAt: now,
    text: parsed.text,
  };
  if (parsed.externalId !== undefined) doc.externalId = parsed.externalId;
  if (parsed.pageStarts) doc.pageStarts = parsed.pageStarts;
  if (parsed.ocr) doc.ocr = parsed.ocr;
  return { doc, sections, chunks, sentences };
}

/** Parses, hashes and chunks one file. Identical documents inside one file (same text) are returned once. */
export async function prepareFile(
  name: string,
  bytes: Uint8Array,
  opts: PrepareOptions = {},
): Promise<PrepareResult> {
  const maxChunkTokens = opts.maxChunkTokens ?? DEFAULT_INDEX_PARAMS.maxChunkTokens;
  const now = opts.now ?? Date.now();
  const result: PrepareResult = { documents: [], errors: [] };
  let parsed: ParsedDocument[];
  try {
    const parseResult = await parseFile(name, bytes, {
      ocr: opts.ocr,
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    });
    parsed = parseResult.documents;
    const recognised = parsed.find((d) => d.recognised)?.recognised;
    if (recognised) result.recognised = recognised;
    result.errors.push(...parseResult.errors);
  } catch (error) {
    result.errors.push({ file: name, reason: reasonOf(error) });
    return result;
  }
  const seen = new Set<string>();
  let reported = Date.now();
  for (const [k, document] of parsed.entries()) {
    if (opts.onProgress && (k === parsed.length - 1 || Date.now() - reported >= PROGRESS_EVERY_MS)) {
      reported = Date.now();
      opts.onProgress({ unit: 'document', done: k, total: parsed.length });
    }
    try {
      const prepared = await prepareParsed(document, maxChunkTokens, now);
      if (seen.has(prepared.doc.id)) continue;
      seen.add(prepared.doc.id);
      result.documents.push(prepared);
    } catch (error) {
      result.errors.push({ file: document.sourceName, reason: reasonOf(error) });
    }
  }
  return result;
}
