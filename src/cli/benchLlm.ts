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
import { embedKg, KgIndex, MemoryKgStore, rankOrder, selectCoreChunks } from '../core/kg/index.ts';
import { DEFAULT_LLM_SETTINGS, LlmClient, validateLlmSettings, type LlmSettings } from '../core/llm/index.ts';
import { scoreAnswerText, stripCitations } from '../core/metrics.ts';
import type { RetrievedChunk } from '../core/retrieval/index.ts';
import type { ChunkRecord, Embedder, ProgressCallback } from '../core/types.ts';

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

/** Answer text without citation markers, as EM/F1 compare it (shared with the app's evaluation). */
export { stripCitations };

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

/** The top κ of the corpus's chunks by concept-graph rank: what the KG and the atomic layer are built over. */
function coreChunks(opts: {
  chunks: readonly ChunkRecord[];
  chunkIds: readonly string[];
  chunkRank: ArrayLike<number>;
  kappa: number;
}): DistillChunkInput[] {
  const byId = new Map(opts.chunks.map((c) => [c.id, c]));
  const order = rankOrder(opts.chunkIds.map((chunkId, i) => ({ chunkId, rank: opts.chunkRank[i] })));
  return selectCoreChunks(
    order.map((chunkId, i) => ({ chunkId, rank: -i })),
    opts.kappa,
  ).map((id) => ({ id, docId: byId.get(id)!.docId, text: byId.get(id)!.text }));
}

/** A core KG built for one bench run: `kg` and `hybrid` search its index through ask(), as the app does. */
export class BenchKg {
  private constructor(
    /** The KG as the question modes search it (the `kg` loader of the bench's library). */
    readonly index: KgIndex,
    readonly summary: DistillBuildSummary,
  ) {}

  static async build(opts: {
    chunks: readonly ChunkRecord[];
    /** Chunk ids and ranks from the concept graph (engine.graph.chunkIds / chunkRank). */
    chunkIds: readonly string[];
    chunkRank: ArrayLike<number>;
    kappa: number;
    client: LlmClient;
    concurrency?: number;
    /** Embeds entity/relation descriptions (the corpus's embedder); without it, KG search matches names only. */
    embedder?: Embedder;
    onProgress?: ProgressCallback;
  }): Promise<BenchKg> {
    const store = new MemoryKgStore();
    const summary = await buildDistilled({
      chunks: coreChunks(opts),
      kinds: { kg: true, atomic: false },
      kg: store,
      client: opts.client,
      concurrency: opts.concurrency,
      onProgress: opts.onProgress,
    });
    if (summary.error) throw new Error(`bench: KG build stopped: ${summary.error}`);
    if (opts.embedder) await embedKg(store, opts.embedder);
    return new BenchKg(new KgIndex(await store.entities(), await store.relations()), summary);
  }
}

/** The atomic layer built for one bench run (PIKE-RAG atomizing of the top κ chunks), for `atomic` and `decompose`. */
export class BenchAtomic {
  private constructor(
    readonly index: AtomicIndex,
    readonly summary: DistillBuildSummary,
  ) {}

  static async build(opts: {
    chunks: readonly ChunkRecord[];
    chunkIds: readonly string[];
    chunkRank: ArrayLike<number>;
    kappa: number;
    client: LlmClient;
    maxQuestions?: number;
    temperature?: number;
    /** Embeds the questions (the corpus's embedder); without it, they are matched by words only. */
    embedder?: Embedder;
  }): Promise<BenchAtomic> {
    const store = new MemoryAtomicStore();
    const summary = await buildDistilled({
      chunks: coreChunks(opts),
      kinds: { kg: false, atomic: true },
      atomic: store,
      client: opts.client,
      maxQuestions: opts.maxQuestions,
      temperature: opts.temperature,
    });
    if (summary.error) throw new Error(`bench: atomizing stopped: ${summary.error}`);
    if (opts.embedder) await embedAtomic(store, opts.embedder);
    return new BenchAtomic(new AtomicIndex(await store.questions()), summary);
  }
}
