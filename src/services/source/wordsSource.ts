// A large library whose pages are not written yet (an older app's library, pages a removal cleared, a drop that
// passed the threshold before its first pages) as a LibrarySource: such a library is not loaded into memory
// (src/services/library/storedPages.ts), so instead of refusing, the default mode and bm25 are answered by words over
// its stored chunks, read once, a batch of documents at a time, and scored by the engine's own BM25 arithmetic
// (src/core/retrieval/batchBm25.ts): the default mode's words (BM25F with the heading copies), or bm25. Past its batch
// a chunk is kept only as a key and its question words' counts, and only when it holds one; the best candidates'
// documents are then read again by id, so memory is bounded by the batch and the answer, not the library. Its `walk`
// is that stand-in: the evidence is marked `from: 'words'`, and the concept walk answers once the pages are there.
// It reads no chunk by id, so every mode that names chunks (the KG, atomic and reasoning modes) waits for the pages.
import type { PagedChunkRecord } from '../../core/paged/index.ts';
import { pagesRecords, recordChunk, recordSentences } from '../../core/paged/index.ts';
import {
  DEFAULT_MODE,
  headingField,
  rankedEvidence,
  resolveParams,
  searchByBatches,
  SentenceTermCache,
  sentenceQuery,
  type ChunkTerms,
  type EvidenceSource,
  type RetrievedChunk,
} from '../../core/retrieval/index.ts';
import { termAnalyzer } from '../library/engine.ts';
import type { PagesAwaited } from '../library/storedPages.ts';
import { recordEvidence } from '../questions/evidence.ts';
import type { Capability } from '../questions/modeRegistry.ts';
import { recordCitations } from '../questions/writtenAnswer.ts';
import { noDocument, type LibrarySource } from './librarySource.ts';

/** The stored library, as storedPages.ts gives it to a question while the pages are awaited (PagesAwaited). */
export type StoredDocuments = Pick<PagesAwaited, 'documentBatches' | 'documentsOf'>;

export interface WordsOptions {
  /** Documents read per transaction (PagesRepo's default when absent). */
  documentsPerRead?: number;
  /** Each batch's chunks and how many chunks so far hold a question word (their keys are kept), as they are read. */
  onBatch?: (chunks: number, kept: number) => void;
  /** The library's chunk count, for the refusal of what waits for the pages. */
  chunks?: number;
}

/** A chunk as the words read it: its text and heading path (pagesRecords). */
type WordsChunk = ReturnType<typeof pagesRecords>['chunks'][number];

/** A chunk's record with its document's chunk count (what evidence reads of it). */
interface Kept {
  record: PagedChunkRecord;
  documentChunks: number;
}

export function wordsSource(stored: StoredDocuments, options: WordsOptions = {}): LibrarySource {
  const has = new Set<Capability>(['walk', 'bm25']);
  const analyzer = termAnalyzer();
  let shown = new Map<string, PagedChunkRecord>();
  const awaiting = (what: string) =>
    `${what}: this library${options.chunks === undefined ? '' : ` (${options.chunks.toLocaleString('en')} chunks)`} ` +
    'is answered from its paged index to stay within the tab’s memory, and that index is being written ' +
    '("writing the paged index" in the Library view)';
  const source: LibrarySource = {
    kind: 'words',
    from: 'words',
    has,
    layers: { lexical: true, semantic: false },
    lacking: () => awaiting("the library's paged index"),
    answering: (modes) =>
      `questions in ${modes} are answered by words meanwhile, the rest once they are written`,
    question: (signal) => {
      const records = new Map<string, PagedChunkRecord>();
      return {
        search: async (query, mode, budget) => {
          const found = await byWords(stored, query.text, mode, budget, { ...options, signal });
          for (const [id, record] of found.records) records.set(id, record);
          return found.hits;
        },
        chunk: () => undefined,
        evidence: (hit) => recordEvidence(hit, records.get(hit.chunkId)),
        show: () => (shown = records),
      };
    },
    terms: (text) => analyzer.terms(text),
    kg: () => Promise.reject(new Error(source.lacking('kg'))),
    atomic: () => Promise.resolve(null),
    citations: () => recordCitations(shown),
    questionGraph: () => Promise.reject(new Error(`the Graph view needs ${source.lacking('walk')}`)),
    libraryGraph: () => Promise.reject(new Error(`the Graph view needs ${source.lacking('walk')}`)),
    document: () => noDocument(source),
    buildOrder: () =>
      Promise.reject(new Error(`KG: the build ranks the chunks by ${source.lacking('walk')}`)),
  };
  return source;
}

/** The default mode's words or bm25 over the stored documents, with the records of the chunks shown. */
async function byWords(
  stored: StoredDocuments,
  question: string,
  mode: string,
  budget: number,
  options: WordsOptions & { signal: AbortSignal },
): Promise<{ hits: RetrievedChunk[]; records: Map<string, PagedChunkRecord> }> {
  const params = resolveParams();
  const analyzer = termAnalyzer();
  // The default mode's words are BM25F over the text and its heading copies (as the pages' and the engine's);
  // bm25 is the text alone.
  const copies = mode === DEFAULT_MODE ? Math.round(params.headingWeight) : 0;
  // Read without their sentences (most of the records): only the evidence shown needs them, read after the ranking.
  const chunkBatches = async function* (): AsyncGenerator<WordsChunk[]> {
    for await (const documents of stored.documentBatches(options.documentsPerRead, { sentences: false })) {
      yield documents.flatMap((d) => pagesRecords(d).chunks);
    }
  };
  const termsOf = (chunk: WordsChunk): ChunkTerms => {
    const field = headingField(chunk);
    return {
      text: analyzer.terms(chunk.text),
      heading: field.length ? analyzer.terms(field.join('\n')) : [],
    };
  };
  const { best: ranked, stats } = await searchByBatches(
    chunkBatches,
    termsOf,
    (record) => ({ id: record.id, docId: record.docId }),
    analyzer.terms(question),
    params.candidates,
    {
      copies,
      k1: params.bm25K1,
      b: params.bm25B,
      scriptStatistics: params.scriptStatistics,
      signal: options.signal,
      onBatch: options.onBatch,
    },
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
      query: sentenceQuery(analyzer, question, idf, noConcepts, () => 0),
      budgetTokens: budget,
      window: params.evidenceTokens,
      slack: params.evidenceSlack,
    },
  );
  const records = new Map<string, PagedChunkRecord>();
  for (const { record } of kept)
    if (hits.some((h) => h.chunkId === record.id)) records.set(record.id, record);
  return { hits, records };
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
