// Input side of the CLI bench: reads a QA set and a corpus in JSON Lines (the ../shared/bench shape or anything
// like it), prepares the corpus through the app's own prepareFile, and embeds texts in batches with progress.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import process from 'node:process';
import { prepareFile } from '../core/prepare.ts';
import type { ChunkRecord, Embedder, PreparedDocument, SentenceRecord } from '../core/types.ts';

export interface BenchQuestion {
  id: string;
  question: string;
  answers: string[];
  /** Supporting passage ids (the corpus lines' "id"); empty when the set does not label them. */
  supporting: string[];
}

/** Reads a questions .jsonl: {id?, question, answers (or answer), supporting?} per line. */
export async function loadQuestions(path: string): Promise<BenchQuestion[]> {
  const text = await readFile(path, 'utf8');
  const out: BenchQuestion[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let row: Record<string, unknown>;
    try {
      row = JSON.parse(line) as Record<string, unknown>;
    } catch (err) {
      throw new Error(`bench: ${path} line ${i + 1} is not JSON (${(err as Error).message})`);
    }
    const question = row.question;
    if (typeof question !== 'string' || question.trim() === '') {
      throw new Error(`bench: ${path} line ${i + 1} has no "question" string`);
    }
    const rawAnswers = Array.isArray(row.answers)
      ? row.answers
      : row.answer !== undefined
        ? [row.answer]
        : [];
    const answers = rawAnswers.filter((a): a is string => typeof a === 'string' && a.trim() !== '');
    if (answers.length === 0) throw new Error(`bench: ${path} line ${i + 1} has no "answers"`);
    const supporting = Array.isArray(row.supporting)
      ? row.supporting.filter((s): s is string => typeof s === 'string')
      : [];
    out.push({ id: typeof row.id === 'string' ? row.id : `q${i + 1}`, question, answers, supporting });
  });
  return out;
}

export interface PreparedCorpus {
  documents: PreparedDocument[];
  chunks: ChunkRecord[];
  sentences: SentenceRecord[];
  /** DocumentRecord.id → the corpus line's "id" (falls back to the document id). */
  externalIds: Map<string, string>;
  seconds: number;
}

export async function prepareCorpus(path: string, maxChunkTokens: number): Promise<PreparedCorpus> {
  const bytes = new Uint8Array(await readFile(path));
  const t = performance.now();
  const { documents, errors } = await prepareFile(basename(path), bytes, { maxChunkTokens });
  if (documents.length === 0) {
    const why = errors.map((e) => `${e.file}: ${e.reason}`).join('; ');
    throw new Error(`bench: no document could be read from ${path}${why ? ` (${why})` : ''}`);
  }
  for (const e of errors) process.stderr.write(`bench: skipped ${e.file}: ${e.reason}\n`);
  const externalIds = new Map<string, string>();
  for (const d of documents) externalIds.set(d.doc.id, d.doc.externalId ?? d.doc.id);
  return {
    documents,
    chunks: documents.flatMap((d) => d.chunks),
    sentences: documents.flatMap((d) => d.sentences),
    externalIds,
    seconds: (performance.now() - t) / 1000,
  };
}

/** Embeds texts in batches, printing progress to stderr; returns texts.length × dimension floats. */
export async function embedAll(
  embedder: Embedder,
  texts: string[],
  label: string,
  batch = 512,
): Promise<Float32Array> {
  const out = new Float32Array(texts.length * embedder.dimension);
  const t = performance.now();
  for (let i = 0; i < texts.length; i += batch) {
    const part = await embedder.embed(texts.slice(i, i + batch));
    out.set(part, i * embedder.dimension);
    const done = Math.min(texts.length, i + batch);
    const rate = done / ((performance.now() - t) / 1000);
    if (process.stderr.isTTY || done === texts.length || (i / batch) % 10 === 0) {
      process.stderr.write(`bench: embedded ${done}/${texts.length} ${label} (${rate.toFixed(0)}/s)\n`);
    }
  }
  return out;
}
