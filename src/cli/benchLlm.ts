// The LLM half of `npm run cli -- bench`: with `--llm-base-url/--llm-model` (key from the environment), a core KG is built
// over the top κ chunks by concept-graph rank (in memory, resumable within the run), modes `kg` and `hybrid` search
// it, and every mode's context can be answered by the LLM and scored with EM and token F1 (SQuAD normalization, best
// over aliases; citation markers removed first). Without an endpoint, kg/hybrid and EM/F1 are reported as needing one.
import { answerQuestion } from '../core/answer/index.ts';
import {
  AtomicIndex,
  buildDistilled,
  embedAtomic,
  MemoryAtomicStore,
  type DistillBuildSummary,
  type DistillChunkInput,
} from '../core/atomic/index.ts';
import { embedKg, KgIndex, MemoryKgStore } from '../core/kg/index.ts';
import { DEFAULT_LLM_SETTINGS, LlmClient, validateLlmSettings, type LlmSettings } from '../core/llm/index.ts';
import { scoreAnswerText } from '../core/metrics.ts';
import type { RetrievedChunk } from '../core/retrieval/index.ts';
import type { Embedder } from '../core/types.ts';

export const NEEDS_ENDPOINT =
  'modes kg, hybrid, atomic and the reasoning modes, and EM/F1 of answers, need an LLM endpoint (--llm-base-url, --llm-model; key in CONCEPTRAG_LLM_API_KEY or --llm-key-file)';

/** LLM settings from the bench flags, or undefined when no endpoint was given. Throws on an invalid combination. */
export function llmSettingsFromFlags(
  flags: {
    'llm-base-url'?: string;
    'llm-model'?: string;
    'llm-concurrency'?: string;
  },
  apiKey = '',
): LlmSettings | undefined {
  if (!flags['llm-base-url']) return undefined;
  const settings: LlmSettings = {
    ...DEFAULT_LLM_SETTINGS,
    baseUrl: flags['llm-base-url'],
    model: flags['llm-model'] ?? '',
    apiKey,
    concurrency: flags['llm-concurrency']
      ? Number(flags['llm-concurrency'])
      : DEFAULT_LLM_SETTINGS.concurrency,
  };
  const problems = validateLlmSettings(settings);
  if (problems.length) throw new Error(`bench: ${problems.join('; ')}`);
  return settings;
}

export interface AnswerScore {
  em: number;
  f1: number;
  answer: string;
  /** The answer call's usage (reasoning modes report calls and tokens per question, the answer's included). */
  usage: { inputTokens: number; outputTokens: number; cost: number };
  /** Why the question failed (its mode's step or the answer call): then em and f1 are 0. */
  error?: string;
}

/** The score of a question whose LLM step failed: nothing answered, nothing spent that was counted. */
export function failedAnswer(reason: string): AnswerScore {
  return { em: 0, f1: 0, answer: '', usage: { inputTokens: 0, outputTokens: 0, cost: 0 }, error: reason };
}

/** Answers a question over a retrieved context and scores it against the gold answers. */
export async function scoreAnswer(
  client: LlmClient,
  question: string,
  hits: readonly RetrievedChunk[],
  answers: readonly string[],
  facts?: string[],
): Promise<AnswerScore> {
  const a = await answerQuestion(
    client,
    question,
    hits.map((h) => ({ chunkId: h.chunkId, heading: h.heading, text: h.text })),
    { maxTokens: 200, ...(facts?.length ? { facts } : {}) },
  );
  // The best of the answer and its first sentence, as the app's evaluation scores it (scoreAnswerText).
  return {
    ...scoreAnswerText(a.text, answers),
    answer: a.text,
    usage: { inputTokens: a.usage.inputTokens, outputTokens: a.usage.outputTokens, cost: a.usage.cost },
  };
}

/** Builds one layer of the core chunks (their order: LibrarySource.buildOrder, as the KG worker's); stops on an error. */
async function distil(
  what: string,
  input: Parameters<typeof buildDistilled>[0],
): Promise<DistillBuildSummary> {
  const summary = await buildDistilled(input);
  if (summary.error) throw new Error(`bench: ${what} stopped: ${summary.error}`);
  return summary;
}

/**
 * A core KG built for one bench run: `kg` and `hybrid` search its index through ask(), as the app does. Without an
 * embedder (the corpus's: entity and relation descriptions), the KG search matches names only.
 */
export async function benchKg(
  core: DistillChunkInput[],
  client: LlmClient,
  embedder?: Embedder,
): Promise<{ index: KgIndex; summary: DistillBuildSummary }> {
  const store = new MemoryKgStore();
  const summary = await distil('KG build', {
    chunks: core,
    kinds: { kg: true, atomic: false },
    kg: store,
    client,
  });
  if (embedder) await embedKg(store, embedder);
  return { index: new KgIndex(await store.entities(), await store.relations()), summary };
}

/**
 * The atomic layer built for one bench run (PIKE-RAG atomizing of the core chunks), for `atomic` and `decompose`.
 * Without an embedder, its questions are matched by words only.
 */
export async function benchAtomic(
  core: DistillChunkInput[],
  client: LlmClient,
  options: { maxQuestions: number; temperature: number; embedder?: Embedder },
): Promise<{ index: AtomicIndex; summary: DistillBuildSummary }> {
  const store = new MemoryAtomicStore();
  const { maxQuestions, temperature } = options;
  const input = {
    chunks: core,
    kinds: { kg: false, atomic: true },
    atomic: store,
    client,
    maxQuestions,
    temperature,
  };
  const summary = await distil('atomizing', input);
  if (options.embedder) await embedAtomic(store, options.embedder);
  return { index: new AtomicIndex(await store.questions()), summary };
}
