// What distilling the core chunks would cost before any call: KG extraction, atomizing, or both — as two passes
// (one call per part) or one pass (one call per chunk). Input tokens are counted exactly from the real prompts
// (cl100k); output tokens are estimates, labelled as such: the KG's ratio (src/core/kg) and, for atomizing, the
// cap on questions times a short question's length.
import { coreCount, DEFAULT_OUTPUT_RATIO, EXTRACTION_MAX_TOKENS, extractionMessages } from '../kg/index.ts';
import { costOf, estimateMessageTokens, type StepUsage } from '../llm/index.ts';
import { countTokens } from '../text/index.ts';
import { ATOMIZE_MAX_TOKENS, atomizeMessages, DEFAULT_MAX_QUESTIONS, onePassMessages } from './prompt.ts';
import type { DistillKinds } from './distill.ts';

/** Estimated output tokens of one atomic question in JSON (an assumption, not a measurement). */
export const TOKENS_PER_QUESTION = 16;

/** The usage a distillation will have: its output tokens estimated. */
export interface DistillCostEstimate extends StepUsage {
  kappa: number;
  /** Chunks selected. */
  chunks: number;
}

export interface DistillCostOptions {
  kinds: DistillKinds;
  onePass?: boolean;
  maxQuestions?: number;
  priceInPerM?: number;
  priceOutPerM?: number;
  outputRatio?: number;
}

/** Cost of distilling the given chunks (ordered by rank) at each κ. */
export function estimateDistillCost(
  rankedChunks: ReadonlyArray<{ text: string } | { tokens: number }>,
  kappas: readonly number[],
  options: DistillCostOptions,
): DistillCostEstimate[] {
  const max = options.maxQuestions ?? DEFAULT_MAX_QUESTIONS;
  const ratio = options.outputRatio ?? DEFAULT_OUTPUT_RATIO;
  const atomOut = Math.min(ATOMIZE_MAX_TOKENS, TOKENS_PER_QUESTION * max);
  // Prompt framing is the same for every chunk: counted once, then each chunk's own tokens added.
  const framing = (messages: { content: string }[]) => estimateMessageTokens(messages) - countTokens('');
  const kgFrame = framing(extractionMessages(''));
  const atomFrame = framing(atomizeMessages('', max));
  const oneFrame = framing(onePassMessages('', max));
  const { kg, atomic } = options.kinds;
  const one = kg && atomic && options.onePass;
  const perChunk = rankedChunks.map((c) => {
    // A chunk's tokens as the chunker counted them (cl100k, as countTokens counts its text) where it has them.
    const t = 'tokens' in c ? c.tokens : countTokens(c.text);
    const kgOut = Math.min(EXTRACTION_MAX_TOKENS, Math.round((kgFrame + t) * ratio));
    if (one) return { calls: 1, input: oneFrame + t, output: kgOut + atomOut };
    return {
      calls: (kg ? 1 : 0) + (atomic ? 1 : 0),
      input: (kg ? kgFrame + t : 0) + (atomic ? atomFrame + t : 0),
      output: (kg ? kgOut : 0) + (atomic ? atomOut : 0),
    };
  });
  return kappas.map((kappa) => {
    const chunks = coreCount(perChunk.length, kappa);
    let calls = 0;
    let inputTokens = 0;
    let outputTokens = 0;
    for (let i = 0; i < chunks; i++) {
      calls += perChunk[i].calls;
      inputTokens += perChunk[i].input;
      outputTokens += perChunk[i].output;
    }
    return {
      kappa,
      chunks,
      calls,
      inputTokens,
      outputTokens,
      cost: costOf(inputTokens, outputTokens, options.priceInPerM ?? 0, options.priceOutPerM ?? 0),
    };
  });
}
