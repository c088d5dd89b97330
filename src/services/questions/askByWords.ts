// A question to a large library whose pages are not written yet (an older app's library, pages a removal cleared, a
// drop that passed the threshold before its first pages): such a library is not loaded into memory
// (src/services/library/storedPages.ts), so instead of refusing, the default mode and bm25 are answered by words over
// its stored chunks, read a batch of documents at a time and scored by the engine's own BM25 arithmetic
// (src/core/retrieval/batchBm25.ts): the default mode's words (BM25F with the heading copies), or bm25. Only the best
// candidates' records are kept, so memory is bounded by the batch and the answer, not the library. The evidence is
// shown as a paged answer is (askPaged.ts), marked `from: 'words'`; the concept walk answers once the pages are there.
import type { PagedChunkRecord } from '../../core/paged/index.ts';
import { pagesRecords, recordChunk, recordSentences } from '../../core/paged/index.ts';
import {
  rankedEvidence,
  resolveParams,
  searchByBatches,
  SentenceTermCache,
  sentenceQuery,
  type ChunkTerms,
  type EvidenceSource,
} from '../../core/retrieval/index.ts';
import { termAnalyzer } from '../library/engine.ts';
import type { PagesAwaited } from '../library/storedPages.ts';
import { shownAnswer } from './askPaged.ts';
import { parseQuestionMode } from './modeRegistry.ts';
import type { AskRequest, AskResult } from './queryProtocol.ts';

/** The modes answered by words while the pages are awaited: the default mode (its words) and bm25. */
const WORDS_MODES = ['ppr', 'bm25'] as const;

/** Whether a mode is answered by words while the pages are awaited. */
export function wordsAnswer(mode: string): boolean {
  try {
    const { name } = parseQuestionMode(mode, { allowDefault: true });
    return (WORDS_MODES as readonly string[]).includes(name);
  } catch {
    return false;
  }
}

export interface ByWordsOptions {
  signal?: AbortSignal;
  /** Documents read per transaction (PagesRepo's default when absent). */
  documentsPerRead?: number;
  /** Each batch's chunks and the candidates kept, as the scoring pass reads them (for tests). */
  onBatch?: (chunks: number, kept: number) => void;
}

/** A chunk's record with its document's chunk count (what evidence reads of it). */
interface Kept {
  record: PagedChunkRecord;
  documentChunks: number;
}

/** The stored library, as storedPages.ts gives it to a question while the pages are awaited (PagesAwaited). */
export type StoredDocuments = Pick<PagesAwaited, 'documentBatches' | 'sentencesOf'>;

/**
 * Answers `request` (the default mode or bm25) by words over the stored documents, with the records of the chunks
 * shown (what a written answer over this evidence cites).
 */
export async function askByWords(
  stored: StoredDocuments,
  request: AskRequest,
  options: ByWordsOptions = {},
): Promise<{ result: AskResult; records: Map<string, PagedChunkRecord> }> {
  const started = performance.now();
  const { name } = parseQuestionMode(request.mode, { allowDefault: true });
  if (!wordsAnswer(name)) throw new Error(`askByWords: mode ${request.mode} is not answered by words`);
  const budget = Math.max(1, Math.floor(request.budget));
  const params = resolveParams();
  const analyzer = termAnalyzer();
  // The default mode's words are BM25F over the text and its heading copies (as the pages' and the engine's);
  // bm25 is the text alone.
  const copies = name === 'bm25' ? 0 : Math.round(params.headingWeight);
  // Read without their sentences (most of the records): only the evidence shown needs them, read after the ranking.
  const chunkBatches = async function* (): AsyncGenerator<Kept[]> {
    for await (const documents of stored.documentBatches(options.documentsPerRead, { sentences: false })) {
      yield documents.flatMap((d) => {
        const { records } = pagesRecords(d);
        return records.map((record) => ({ record, documentChunks: records.length }));
      });
    }
  };
  const termsOf = ({ record }: Kept): ChunkTerms => ({
    text: analyzer.terms(record.text),
    heading: record.path?.length ? analyzer.terms(record.path.join('\n')) : [],
  });
  const { best, stats } = await searchByBatches(
    chunkBatches,
    termsOf,
    analyzer.terms(request.question),
    params.candidates,
    { copies, k1: params.bm25K1, b: params.bm25B, signal: options.signal, onBatch: options.onBatch },
  );
  const kept = best.map((b) => b.item);
  await readSentences(stored, kept);
  const termCache = new SentenceTermCache(analyzer);
  const source: EvidenceSource = {
    analyzer,
    chunk: (k) => recordChunk(kept[k].record),
    sentences: (k) => recordSentences(kept[k].record, k),
    documentChunks: (k) => kept[k].documentChunks,
    conceptTerm: () => '',
    dimension: 0,
    sentenceTerms: (s, text) => termCache.get(s, text),
  };
  const noConcepts = { get: () => undefined, has: () => false };
  const idf = (term: string): number => {
    const df = stats.df.get(term) ?? 0;
    return df ? Math.log(1 + (stats.chunks - df + 0.5) / (df + 0.5)) : 0;
  };
  const hits = rankedEvidence(
    source,
    best.map((b, k) => ({ chunk: k, score: b.score })),
    {
      mode: 'bm25',
      query: sentenceQuery(analyzer, request.question, idf, noConcepts, () => 0),
      budgetTokens: budget,
      window: params.evidenceTokens,
      slack: params.evidenceSlack,
    },
  );
  const records = new Map<string, PagedChunkRecord>();
  for (const { record } of kept)
    if (hits.some((h) => h.chunkId === record.id)) records.set(record.id, record);
  const answer = { hits, records, bytes: 0, rounds: 0, waitMs: 0 };
  const { reads: _reads, ...shown } = shownAnswer(analyzer, request, budget, answer, started);
  return { result: { ...shown, from: 'words' }, records };
}

/** Fills the kept records' sentences (document offsets, in order), as pagesRecords does from a whole document. */
async function readSentences(stored: StoredDocuments, kept: readonly Kept[]): Promise<void> {
  const byDocument = await stored.sentencesOf(kept.map((k) => k.record.docId));
  for (const { record } of kept) {
    const offsets: number[] = [];
    const list = (byDocument.get(record.docId) ?? []).filter((s) => s.chunkId === record.id);
    for (const s of list.sort((a, b) => a.index - b.index)) offsets.push(s.start, s.end);
    record.sentences = offsets;
  }
}
