// A question to a large library whose pages are not written yet (an older app's library, pages a removal cleared, a
// drop that passed the threshold before its first pages): such a library is not loaded into memory
// (src/services/library/storedPages.ts), so instead of refusing, the default mode and bm25 are answered by words over
// its stored chunks, read once, a batch of documents at a time, and scored by the engine's own BM25 arithmetic
// (src/core/retrieval/batchBm25.ts): the default mode's words (BM25F with the heading copies), or bm25. Past its batch
// a chunk is kept only as a key and its question words' counts, and only when it holds one; the best candidates'
// documents are then read again by id, so memory is bounded by the batch and the answer, not the library. The
// evidence is shown as a paged answer is (askPaged.ts), marked `from: 'words'`; the concept walk answers once the
// pages are there.
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
  /** Each batch's chunks and how many chunks so far hold a question word (their keys are kept), as they are read. */
  onBatch?: (chunks: number, kept: number) => void;
}

/** A chunk's record with its document's chunk count (what evidence reads of it). */
interface Kept {
  record: PagedChunkRecord;
  documentChunks: number;
}

/** The stored library, as storedPages.ts gives it to a question while the pages are awaited (PagesAwaited). */
export type StoredDocuments = Pick<PagesAwaited, 'documentBatches' | 'documentsOf'>;

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
  const chunkBatches = async function* (): AsyncGenerator<PagedChunkRecord[]> {
    for await (const documents of stored.documentBatches(options.documentsPerRead, { sentences: false })) {
      yield documents.flatMap((d) => pagesRecords(d).records);
    }
  };
  const termsOf = (record: PagedChunkRecord): ChunkTerms => ({
    text: analyzer.terms(record.text),
    heading: record.path?.length ? analyzer.terms(record.path.join('\n')) : [],
  });
  const { best: ranked, stats } = await searchByBatches(
    chunkBatches,
    termsOf,
    (record) => ({ id: record.id, docId: record.docId }),
    analyzer.terms(request.question),
    params.candidates,
    { copies, k1: params.bm25K1, b: params.bm25B, signal: options.signal, onBatch: options.onBatch },
  );
  const byId = await keptRecords(
    stored,
    ranked.map((r) => r.item.docId),
  );
  // A document removed since it was read (a removal during the question) leaves its chunks out.
  const best = ranked.filter((r) => byId.has(r.item.id));
  const kept = best.map((r) => byId.get(r.item.id)!);
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

/** The records, sentences included, of every chunk of these documents, by chunk id, with their documents' sizes. */
async function keptRecords(stored: StoredDocuments, docIds: readonly string[]): Promise<Map<string, Kept>> {
  const byId = new Map<string, Kept>();
  for (const d of await stored.documentsOf(docIds)) {
    const { records } = pagesRecords(d);
    for (const record of records) byId.set(record.id, { record, documentChunks: records.length });
  }
  return byId;
}
