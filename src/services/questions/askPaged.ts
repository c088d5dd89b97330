// A question to a library read by ranges (src/core/paged): the default mode or bm25, its evidence shown as
// askLibrary shows a library in memory (the same mapping, the same relevance scale), with what the question read.
import type { PagedLibrary } from '../../core/paged/index.ts';
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

export async function askPaged(
  library: PagedLibrary,
  request: AskRequest,
  signal?: AbortSignal,
): Promise<PagedAskResult> {
  const started = performance.now();
  const budget = Math.max(1, Math.floor(request.budget));
  const answer = await library.search(request.question, engineMode(request.mode), budget, signal);
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
