// The global answer (core/themes/globalAnswer.ts) over a LibrarySource: its themes and their passages, read through
// one question's reads (a paged index reads only those records), wherever the library is. The plan is what the page
// shows before the person confirms; the run sends it.
import { DEFAULT_KAPPA } from '../../core/kg/index.ts';
import type { LlmClient } from '../../core/llm/index.ts';
import { planGlobalAnswer, runGlobalAnswer, type GlobalPlan } from '../../core/themes/index.ts';
import type { LibrarySource } from './librarySource.ts';
import type { GlobalAnswerOut, GlobalEstimate, GlobalPassageShown } from '../themes/themesProtocol.ts';

/** A plan and where its passages are, for the page to open them. */
export interface PlannedGlobal {
  plan: GlobalPlan;
  passages: GlobalPassageShown[];
}

/** The plan of a global answer over a source's themes; null when the source has none. */
export async function planOverSource(
  source: LibrarySource,
  question: string,
  options: { kappa?: number; priceInPerM?: number; priceOutPerM?: number; signal?: AbortSignal } = {},
): Promise<PlannedGlobal | null> {
  const themes = await source.themes?.();
  if (!themes || themes.themes.length === 0) return null;
  const reads = source.question(options.signal ?? new AbortController().signal);
  await reads.readChunks?.(themes.themes.flatMap((t) => t.passages));
  const shown = new Map<string, GlobalPassageShown>();
  const plan = planGlobalAnswer(
    question,
    themes.themes,
    (chunkId) => {
      const chunk = reads.chunk(chunkId);
      if (!chunk) return undefined;
      const evidence = reads.evidence({
        chunkId,
        docId: chunk.docId,
        score: 0,
        text: chunk.text,
        tokens: chunk.tokens,
        provenance: { mode: 'themes' },
        bestSentences: [],
      });
      shown.set(chunkId, {
        n: 0,
        docId: evidence.docId,
        docTitle: evidence.docTitle,
        start: evidence.chunkStart,
        end: evidence.chunkStart + chunk.text.length,
        theme: '',
      });
      return { title: evidence.docTitle, text: chunk.text };
    },
    {
      kappa: options.kappa ?? DEFAULT_KAPPA,
      ...(options.priceInPerM !== undefined ? { priceInPerM: options.priceInPerM } : {}),
      ...(options.priceOutPerM !== undefined ? { priceOutPerM: options.priceOutPerM } : {}),
    },
  );
  const passages = plan.maps.flatMap((m) =>
    m.passages.map((p) => ({ ...shown.get(p.chunkId)!, n: p.n, theme: m.theme.label })),
  );
  return { plan, passages };
}

/** What the page shows before the run. */
export function estimateOf(planned: PlannedGlobal): GlobalEstimate {
  const { plan } = planned;
  return {
    question: plan.question,
    kappa: plan.kappa,
    themes: plan.themes,
    of: plan.of,
    share: plan.share,
    passages: planned.passages.length,
    calls: plan.calls,
    inputTokens: plan.inputTokens,
    outputTokens: plan.outputTokens,
    cost: plan.cost,
  };
}

/** Runs a plan the person confirmed. */
export async function runPlanned(
  planned: PlannedGlobal,
  client: LlmClient,
  options: { signal?: AbortSignal; onDelta?: (delta: string) => void } = {},
): Promise<GlobalAnswerOut> {
  const result = await runGlobalAnswer(planned.plan, client, options);
  return { ...result, passages: planned.passages };
}
