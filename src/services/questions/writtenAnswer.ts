// The written answer over the evidence the page shows: the model's text with its citations mapped back to the
// library (the cited sentence's offsets in its document, and its own pages where the document's are known).
import { answerQuestion } from '../../core/answer/index.ts';
import type { LlmClient } from '../../core/llm/index.ts';
import type { PagedChunkRecord } from '../../core/paged/index.ts';
import { pageRange } from '../../core/pages.ts';
import { sentencesWithin, type QuestionLibrary } from '../library/questionLibrary.ts';
import type { AnswerOut, AnswerRequest } from './queryProtocol.ts';

/**
 * Where a citation's sentence and pages come from: the library in memory, or the chunk records a question over
 * pages read (a library too large to load, or a bundle read by ranges).
 */
export interface CitationSource {
  /** A chunk's sentences as offsets into its text; undefined when unknown (the citation is then the passage). */
  sentences(
    chunkId: string,
    chunkStart: number,
    textLength: number,
  ): Array<{ start: number; end: number }> | undefined;
  /** A document's page starts (PDFs), when known. */
  pageStarts(docId: string): readonly number[] | undefined;
}

/** Citations from the library in memory (null: none loaded, the citations are the passages). */
export function libraryCitations(library: QuestionLibrary | null): CitationSource {
  return {
    sentences: (chunkId, chunkStart, textLength) =>
      sentencesWithin(library?.sentences.get(chunkId), chunkStart, textLength),
    pageStarts: (docId) => library?.documents.get(docId)?.pageStarts,
  };
}

/** Citations from the records of the chunks a question over a paged index showed (src/services/source/pagedSource.ts). */
export function recordCitations(records: ReadonlyMap<string, PagedChunkRecord>): CitationSource {
  const byDoc = new Map([...records.values()].map((r) => [r.docId, r.pageStarts]));
  return {
    sentences: (chunkId) => {
      const record = records.get(chunkId);
      return record && recordSentences(record);
    },
    pageStarts: (docId) => byDoc.get(docId),
  };
}

/** Streams the answer to `onDelta`; `source` gives the sentences and pages of citations. */
export async function writeAnswer(
  client: LlmClient,
  source: CitationSource,
  request: AnswerRequest,
  onDelta: ((delta: string) => void) | undefined,
  signal: AbortSignal,
): Promise<AnswerOut> {
  const context = request.evidence.map((e) => ({
    chunkId: e.chunkId,
    title: e.docTitle,
    heading: e.heading,
    text: e.text,
    sentences: source.sentences(e.chunkId, e.chunkStart, e.text.length),
    pageStart: e.pageStart,
    pageEnd: e.pageEnd,
  }));
  const a = await answerQuestion(client, request.question, context, {
    facts: request.facts,
    onDelta,
    signal,
  });
  const byChunk = new Map(request.evidence.map((e) => [e.chunkId, e]));
  return {
    text: a.text,
    noAnswer: a.noAnswer,
    citations: a.citations.map((cit) => {
      const e = byChunk.get(cit.chunkId)!;
      const start = e.chunkStart + (cit.sentence?.start ?? 0);
      const end = e.chunkStart + (cit.sentence?.end ?? e.text.length);
      // The cited sentence's own pages where the document's pages are known, else the passage's.
      const pageStarts = source.pageStarts(e.docId);
      const pages = pageStarts?.length
        ? pageRange(pageStarts, start, end)
        : cit.pageStart !== undefined
          ? { pageStart: cit.pageStart, pageEnd: cit.pageEnd ?? cit.pageStart }
          : {};
      return {
        n: cit.n,
        chunkId: cit.chunkId,
        docId: e.docId,
        start,
        end,
        sentence: cit.sentence?.text ?? '',
        ...pages,
      };
    }),
    inputTokens: a.usage.inputTokens,
    outputTokens: a.usage.outputTokens,
    cost: a.usage.cost,
  };
}

/** A chunk record's sentences as offsets into its own text. */
export function recordSentences(record: PagedChunkRecord): Array<{ start: number; end: number }> {
  return sentencesWithin(recordRanges(record), record.start, record.text.length)!;
}

/** A chunk record's sentences in document offsets (the record keeps them in pairs). */
export function recordRanges({ sentences: s }: PagedChunkRecord): Array<{ start: number; end: number }> {
  return Array.from({ length: s.length >> 1 }, (_, i) => ({ start: s[2 * i], end: s[2 * i + 1] }));
}
