// The written answer over the evidence the page shows: the model's text with its citations mapped back to the
// library (the cited sentence's offsets in its document, and its own pages where the document's are known).
import { answerQuestion } from '../../core/answer/index.ts';
import type { LlmClient } from '../../core/llm/index.ts';
import { pageRange } from '../../core/pages.ts';
import { sentencesWithin, type QuestionLibrary } from '../library/questionLibrary.ts';
import type { AnswerOut, AnswerRequest } from './queryProtocol.ts';

/** Streams the answer to `onDelta`; `library` (null: none loaded) gives the sentences and pages of citations. */
export async function writeAnswer(
  client: LlmClient,
  library: QuestionLibrary | null,
  request: AnswerRequest,
  onDelta: ((delta: string) => void) | undefined,
  signal: AbortSignal,
): Promise<AnswerOut> {
  const context = request.evidence.map((e) => ({
    chunkId: e.chunkId,
    title: e.docTitle,
    heading: e.heading,
    text: e.text,
    sentences: sentencesWithin(library, e.chunkId, e.chunkStart, e.text.length),
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
      const pageStarts = library?.documents.get(e.docId)?.pageStarts;
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
