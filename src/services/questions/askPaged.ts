// A question to a library read by ranges (src/core/paged): the default mode or bm25, its evidence shown as
// askLibrary shows a library in memory (the same mapping, the same relevance scale), with what the question read.
import type { PagedAnswer, PagedLibrary } from '../../core/paged/index.ts';
import { rateEvidence } from '../../core/retrieval/index.ts';
import { shownEvidence } from './askLibrary.ts';
import { parseQuestionMode } from './modeRegistry.ts';
import type { AskRequest, AskResult, PagedReads } from './queryProtocol.ts';

export interface PagedAskResult extends AskResult {
  reads: PagedReads;
}

/** The modes a library read by ranges (or from its stored pages) answers. */
export const PAGED_MODES = ['ppr', 'bm25'] as const;

/** The engine mode of a request a paged library answers, or an error naming what it cannot. */
function engineMode(mode: string): 'ppr' | 'bm25' {
  const { name } = parseQuestionMode(mode, { allowDefault: true });
  if (name === 'ppr' || name === 'bm25') return name;
  throw new Error(
    `mode ${mode} needs the library in memory; a library read by ranges answers the default mode and bm25`,
  );
}

/**
 * Answers from a paged library. With `onEarly`, a default-mode question that waits on reads first shows the words'
 * evidence (bm25, read in the same rounds: PagedLibrary.search), marked early; the result then says whether the
 * walk ranks otherwise.
 */
export async function askPaged(
  library: PagedLibrary,
  request: AskRequest,
  signal?: AbortSignal,
  onEarly?: (early: AskResult) => void,
): Promise<PagedAskResult> {
  const started = performance.now();
  const budget = Math.max(1, Math.floor(request.budget));
  let sent: AskResult | undefined;
  const early = onEarly
    ? (answer: PagedAnswer) => {
        sent = { ...shownAnswer(library, request, budget, answer, started), stage: 'early' };
        onEarly(sent);
      }
    : undefined;
  const answer = await library.search(request.question, engineMode(request.mode), budget, signal, early);
  const result = shownAnswer(library, request, budget, answer, started);
  return sent ? { ...result, rankingChanged: !sameChunks(sent, result) } : result;
}

/** A paged answer as the Ask view shows it (askLibrary's mapping and relevance scale). */
function shownAnswer(
  library: PagedLibrary,
  request: AskRequest,
  budget: number,
  answer: PagedAnswer,
  started: number,
): PagedAskResult {
  const shown = answer.hits.map((hit) => {
    const record = answer.records.get(hit.chunkId);
    return shownEvidence(hit, record?.start ?? 0, record?.title ?? hit.docId, record?.pageStarts);
  });
  const rated = rateEvidence(request.question, shown, (text) => library.terms(text));
  shown.forEach((e, i) => (e.relevance = rated.relevance[i]));
  return {
    question: request.question,
    mode: request.mode,
    budget,
    evidence: shown,
    ...(rated.noGoodMatch ? { noGoodMatch: true } : {}),
    layers: { lexical: true, semantic: false },
    layer: 'lexical',
    milliseconds: performance.now() - started,
    reads: { bytes: answer.bytes, rounds: answer.rounds, waitMs: answer.waitMs },
  };
}

/** Same chunks in the same order. */
export function sameChunks(a: AskResult, b: AskResult): boolean {
  return (
    a.evidence.length === b.evidence.length && a.evidence.every((e, i) => e.chunkId === b.evidence[i].chunkId)
  );
}
