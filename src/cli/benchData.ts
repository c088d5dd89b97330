// Input side of the CLI bench: reads a QA set and a corpus in JSON Lines (the ../shared/bench shape or anything
// like it), prepares the corpus through the app's own prepareFile, and embeds texts through the app's embedding
// loop with progress on stderr.
import { readFile, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import process from 'node:process';
import { prepareFile } from '../core/prepare.ts';
import { embedTexts } from '../core/pipeline/index.ts';
import type { RetrievalChunkInput } from '../core/retrieval/index.ts';
import { withSectionPaths } from '../core/retrieval/index.ts';
import { readInputFile, walkInputs } from './fileWalker.ts';
import { logOcrProgress, ThreadParser } from './threadParser.ts';
import type { OcrLanguageSetting } from '../core/parse/index.ts';
import type { ChunkRecord, Embedder, PreparedDocument, SentenceRecord } from '../core/types.ts';
import type { QaItem } from '../services/questions/evalProtocol.ts';
import { parseQaSet } from '../services/questions/qaSet.ts';

/** A question of a set as the bench asks it: Evaluate's QaItem without the line it was read from. */
export type BenchQuestion = Omit<QaItem, 'line'>;

/**
 * Reads a questions .jsonl ({id?, question, answers (or answer), supporting?, type?} per line) with Evaluate's own
 * reader (services/questions/qaSet.ts), so the bench and the app take and refuse the same sets.
 */
export async function loadQuestions(path: string): Promise<BenchQuestion[]> {
  return parseQaSet(path, await readFile(path, 'utf8')).items;
}

export interface PreparedCorpus {
  documents: PreparedDocument[];
  chunks: ChunkRecord[];
  /** The chunks with their heading paths, as the app gives them to the retrieval engine. */
  retrievalChunks: RetrievalChunkInput[];
  sentences: SentenceRecord[];
  /** DocumentRecord.id → the corpus line's "id" (falls back to the document id). */
  externalIds: Map<string, string>;
  seconds: number;
}

/**
 * Prepares a corpus through the app's own parsers: a .jsonl file (one passage per line, `id` = its external id) or
 * a folder of documents as a user would drop it (Markdown sections, HTML, PDF, …), where a document's external id
 * is its file name without the extension, so `supporting` names files and recall counts distinct files.
 */
export async function prepareCorpus(
  path: string,
  maxChunkTokens: number,
  ocrLanguage: OcrLanguageSetting = 'auto',
  /** Per-file parse time limit (default the browser's): a 1.4 MB .jsonl takes over 30 s at load 20. */
  parseTimeoutMs?: number,
): Promise<PreparedCorpus> {
  const isFolder = (await stat(path)).isDirectory();
  // The same walk as `cli index` (fileWalker.ts): regular files inside the folder, the page's filter and cap, and
  // a verdict for each entry left out. A folder's files are parsed as a drop would be, in a thread under the
  // browser's time limit; a corpus file named directly is the benchmark's own data set, parsed here.
  const walk = isFolder ? await walkInputs([path]) : { files: [path], skipped: [] };
  for (const e of walk.skipped) process.stderr.write(`bench: skipped ${e.file}: ${e.reason}\n`);
  const t = performance.now();
  const documents: PreparedDocument[] = [];
  const externalIds = new Map<string, string>();
  const seen = new Set<string>();
  const parser = isFolder
    ? new ThreadParser({ onOcrProgress: logOcrProgress('bench'), ocrLanguage, timeoutMs: parseTimeoutMs })
    : null;
  try {
    for (const file of walk.files) {
      const bytes = await readInputFile(file).catch((error: Error) => {
        process.stderr.write(`bench: skipped ${file}: ${error.message}\n`);
        return null;
      });
      if (!bytes) continue;
      const { documents: docs, errors } = parser
        ? await parser.prepare(basename(file), bytes, maxChunkTokens)
        : await prepareFile(basename(file), bytes, { maxChunkTokens });
      for (const e of errors) process.stderr.write(`bench: skipped ${e.file}: ${e.reason}\n`);
      for (const d of docs) {
        // The same text twice (two identical files) is one document, as in the app.
        if (seen.has(d.doc.id)) continue;
        seen.add(d.doc.id);
        documents.push(d);
        externalIds.set(d.doc.id, d.doc.externalId ?? (isFolder ? fileStem(file) : d.doc.id));
      }
    }
  } finally {
    await parser?.close();
  }
  if (documents.length === 0) throw new Error(`bench: no document could be read from ${path}`);
  const chunks = documents.flatMap((d) => d.chunks);
  return {
    documents,
    chunks,
    retrievalChunks: withSectionPaths(
      documents.map((d) => d.doc),
      documents.flatMap((d) => d.sections),
      chunks,
    ),
    sentences: documents.flatMap((d) => d.sentences),
    externalIds,
    seconds: (performance.now() - t) / 1000,
  };
}

function fileStem(file: string): string {
  const name = basename(file);
  return name.slice(0, name.length - extname(name).length);
}

/**
 * Embeds texts with the app's embedding loop (each distinct text once, batches of 512), printing progress to
 * stderr; returns texts.length × dimension floats and the dimension the embedder's answers had.
 */
export async function embedWithProgress(
  embedder: Embedder,
  texts: string[],
  label: string,
): Promise<{ vectors: Float32Array; dimension: number }> {
  let calls = 0;
  return embedTexts(texts, embedder, {
    batchSize: 512,
    onProgress: ({ done, total, rate }) => {
      // Every call on a terminal; in a log file every tenth and the last.
      if (process.stderr.isTTY || done === total || calls++ % 10 === 0) {
        process.stderr.write(`bench: embedded ${done}/${total} ${label} (${rate.toFixed(0)}/s)\n`);
      }
    },
  });
}
