// `npm run cli -- bench`: indexes a corpus in memory with the app's own code, answers a QA set in every mode and
// prints context recall at each token budget, supporting-passage recall@2/5/10, index seconds and query latency.
// `--grid key=v1,v2` repeats the run over parameter combinations (calibration) on the same embeddings.
// With an LLM endpoint (`--llm-base-url/--llm-model`, key from CONCEPTRAG_LLM_API_KEY or --llm-key-file) it also
// runs modes `kg` and `hybrid` over a core KG built once per run, and scores EM / token F1 of the LLM's answer over
// every mode's context (`--answer-budget`).
// The question-time reasoning modes (`decompose`, `logical`, and `atomic`, which reads the atomic layer) run through
// the app's own ask() (src/services/source/ask.ts) over the bench's in-memory library, with the endpoint's client, the KG (built on first
// use) as `kg`: a new reasoning mode needs no bench code of its own. They report their calls and tokens per question.
import { writeFile } from 'node:fs/promises';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { meanScores, percentile, round, scoreQaItem } from '../core/metrics.ts';
import type { MeanScores, QaItemScore } from '../core/metrics.ts';
import { cutToBudget } from '../core/retrieval/index.ts';
import { REBUILD_PARAMS, RetrievalEngine, type EngineTimings } from '../core/retrieval/index.ts';
import { parseParamOverride, type RetrievalParams } from '../core/retrieval/index.ts';
import { LlmClient, type StepUsage } from '../core/llm/index.ts';
import { DEFAULT_MODE, parseMode, type RetrievedChunk } from '../core/retrieval/index.ts';
import { createTermAnalyzer } from '../core/text/index.ts';
import type { Embedder } from '../core/types.ts';
import { ask, type AskOptions } from '../services/source/ask.ts';
import type { AtomicIndex, DistillChunkInput } from '../core/atomic/index.ts';
import type { KgIndex } from '../core/kg/index.ts';
import { openSource } from '../services/source/openSource.ts';
import { openLibrary, type QuestionLibrary } from '../services/library/questionLibrary.ts';
import { modeFamily, parseQuestionMode } from '../services/questions/modeRegistry.ts';
import { countFailures } from '../services/questions/stepFailures.ts';
import { messageOf } from '../core/errors.ts';
import {
  embedWithProgress,
  loadQuestions,
  prepareCorpus,
  type BenchQuestion,
  type PreparedCorpus,
} from './benchData.ts';
import { ocrLanguageFlag, parseTimeoutFlag } from './threadParser.ts';
import {
  benchAtomic,
  benchKg,
  failedAnswer,
  llmSettingsFromFlags,
  NEEDS_ENDPOINT,
  scoreAnswer,
  type AnswerScore,
} from './benchLlm.ts';
import { compareVoy } from './benchVoy.ts';
import { keyInArgvMessage, LLM_KEY_ENV, readApiKey } from './keys.ts';
import { cachedEmbedder } from './embeddingCache.ts';
import { createEmbedderFromSpec } from './embedders.ts';

const USAGE = `usage: npm run cli -- bench --corpus <corpus.jsonl> --questions <questions.jsonl>
  [--modes ppr,concept,dense,bm25,rrf:ppr+bm25] [--limit N] [--offset N] [--budgets 1000,3000,12000]
  [--json out.json] [--per-question out.jsonl] [--embedder use|none|hf:<model>|openai:<url>#<model>] [--cache .cache/embeddings]
  [--param key=value]... [--grid key=v1,v2]... [--max-chunk-tokens 1200] [--voy] [--ocr-language auto|eng|chi_sim]
  [--parse-timeout <seconds per file; default 30>]
  [--llm-base-url <url> --llm-model <name> [--llm-key-file <path>] [--llm-concurrency N]]
  [--kappa 0.8] [--answer-budget 3000] [--max-questions 12] [--atomize-temperature 0.7]
With an LLM endpoint, modes kg and hybrid (KG over the top κ chunks by concept-graph rank, built once per run)
can be listed in --modes, and every mode gets EM and token F1 of the LLM's answer over its --answer-budget context.
The question-time modes (atomic, decompose, logical) run as the app runs them (ask()) and also report LLM
calls and tokens per question. atomic and decompose atomize the top κ chunks once per run (PIKE-RAG's atomic
layer, --max-questions per chunk at --atomize-temperature); that cost is reported on stderr.
A --corpus folder's scanned PDFs and pictures are recognised as \`cli index\` does, in --ocr-language: auto (from
the document's text, else its first page), eng (English) or chi_sim (Chinese).
`;

const RECALL_KS = [2, 5, 10] as const;

export interface ModeResult extends MeanScores {
  /** The same measures per question `type`, where the set gives one. */
  byType?: Record<string, MeanScores & { questions: number }>;
  indexSeconds: number;
  queryMs: { p50: number; p95: number };
  /** Exact match / token F1 of the LLM answer over this mode's context (fractions), only with an endpoint. */
  em?: number;
  f1?: number;
  /**
   * Question-time modes run through ask(): LLM calls and tokens per question, the mode's own (proposals,
   * selections, plans…) and the written answer's, averaged over the questions.
   */
  perQuestion?: {
    calls: number;
    modeCalls: number;
    answerCalls: number;
    inputTokens: number;
    outputTokens: number;
    cost: number;
  };
  /**
   * Questions whose LLM step failed (only with an endpoint): scored as found nothing and answered wrong, counted
   * by reason (services/questions/stepFailures.ts), each named with its reason.
   */
  failed?: {
    questions: number;
    reasons: Record<string, number>;
    perQuestion: Array<{ id: string; reason: string }>;
  };
}

export interface BenchResult {
  questions: number;
  modes: Record<string, ModeResult>;
  /** Context size, in tokens, the EM/F1 answers were given (only with an endpoint). */
  answerBudget?: number;
  /** Requested modes that did not run, with the reason (kg/hybrid without an endpoint). */
  skipped?: Record<string, string>;
}

type BenchKg = Awaited<ReturnType<typeof benchKg>>;

/** What the LLM half of a run needs: the endpoint client, and the KG when kg/hybrid were asked for. */
interface LlmRun {
  client: LlmClient;
  answerBudget: number;
  kgSeconds: number;
  /** Seconds spent atomizing (once per run, when atomic or decompose asked for the atomic layer). */
  atomicSeconds: number;
  /** Builds the KG once, on first use (kg/hybrid ask at once; a reasoning mode only if it searches the KG). */
  ensureKg(): Promise<BenchKg>;
  /** Questions answered at once by the question-time modes (the client bounds its own calls too). */
  concurrency: number;
  /** The corpus's embedder, kept for sub-questions of the question-time modes (absent: they search lexically). */
  embedder?: Embedder;
  /** The atomic layer, atomized on first use, for the question-time modes. */
  atomic?: () => Promise<AtomicIndex | null>;
}

/** One question answered through ask(): its context as ranked chunks, the facts, the mode's LLM calls. */
interface Asked {
  hits: RetrievedChunk[];
  facts?: string[];
  usage?: StepUsage;
  ms: number;
  /** Why the question failed (its mode's LLM step): scored as found nothing, answered nothing. */
  error?: string;
}

/** Every question of a mode that runs as the app runs it, through ask(), a few at a time; in question order. */
async function askAll(
  library: QuestionLibrary,
  mode: string,
  questions: BenchQuestion[],
  vectorOf: (i: number) => Float32Array | undefined,
  budget: number,
  llm: LlmRun,
): Promise<Asked[]> {
  const out: Asked[] = new Array<Asked>(questions.length);
  const embedder = llm.embedder;
  const parsed = parseQuestionMode(mode);
  const source = openSource({
    library,
    kg: async (): Promise<KgIndex> => (await llm.ensureKg()).index,
    ...(llm.atomic ? { atomic: llm.atomic } : {}),
  });
  const options: Omit<AskOptions, 'vector'> = {
    parsed,
    llm: () => Promise.resolve(llm.client),
    ...(embedder ? { embed: async (text: string) => embedder.embed([text]) } : {}),
  };
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < questions.length) {
      const i = next++;
      const t = performance.now();
      let r: Awaited<ReturnType<typeof ask>>;
      try {
        r = await ask(
          source,
          { question: questions[i].question, mode: parsed.name, budget },
          { ...options, vector: vectorOf(i) },
        );
      } catch (error) {
        // One bad reply fails its question, not the run (small local models return malformed JSON often).
        const message = messageOf(error);
        const reason = message.startsWith(`${mode}: `) ? message : `${mode}: ${message}`;
        out[i] = { hits: [], ms: performance.now() - t, error: reason };
        process.stderr.write(`bench: ${mode} question ${questions[i].id} failed: ${out[i].error}\n`);
        continue;
      }
      out[i] = {
        // Evidence back to ranked chunks: the context the bench measures is what the Ask view would show.
        hits: r.evidence.map((e) => ({
          chunkId: e.chunkId,
          docId: e.docId,
          score: e.score,
          text: e.text,
          tokens: e.tokens,
          provenance: e.provenance,
          bestSentences: [],
        })),
        facts: r.facts,
        usage: r.usage,
        ms: performance.now() - t,
      };
      if ((i + 1) % 10 === 0 || i + 1 === questions.length) {
        process.stderr.write(`bench: ${mode} answered ${i + 1}/${questions.length} questions\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(llm.concurrency, questions.length) }, lane));
  return out;
}

function isKgMode(mode: string): boolean {
  return modeFamily(mode) === 'kg';
}

/** The question-time modes: their LLM calls and tokens are reported per question. */
function reasonsAtQuestionTime(mode: string): boolean {
  const family = modeFamily(mode);
  return family === 'reasoning' || family === 'atomic';
}

/**
 * Modes answered through ask(), as the app answers them: those over the layers the endpoint writes (the KG, the
 * atomic questions) and those that call the LLM at question time. The engine's modes are searched directly, so that
 * their latency is the engine's.
 */
function runsThroughAsk(mode: string): boolean {
  return isKgMode(mode) || reasonsAtQuestionTime(mode);
}

/** The bench's in-memory corpus as the query service's library, over an engine already built. */
function benchLibrary(corpus: PreparedCorpus, engine: RetrievalEngine): QuestionLibrary {
  return openLibrary(
    {
      meta: undefined,
      documents: corpus.documents.map((d) => d.doc),
      sections: corpus.documents.flatMap((d) => d.sections),
      chunks: corpus.chunks,
      sentences: corpus.sentences,
      vectors: new Map(),
      graph: undefined,
    },
    () => engine,
  );
}

type Overrides = Partial<Record<keyof RetrievalParams, number | boolean>>;

export async function run(args: string[]): Promise<number> {
  let opts;
  try {
    opts = parseArgs({
      args,
      options: {
        corpus: { type: 'string' },
        questions: { type: 'string' },
        modes: { type: 'string', default: 'ppr,concept,dense,bm25' },
        limit: { type: 'string' },
        offset: { type: 'string', default: '0' },
        budgets: { type: 'string', default: '1000,3000,12000' },
        json: { type: 'string' },
        'per-question': { type: 'string' },
        embedder: { type: 'string', default: 'use' },
        cache: { type: 'string', default: '.cache/embeddings' },
        param: { type: 'string', multiple: true, default: [] },
        grid: { type: 'string', multiple: true, default: [] },
        'max-chunk-tokens': { type: 'string', default: '1200' },
        'ocr-language': { type: 'string', default: 'auto' },
        'parse-timeout': { type: 'string' },
        voy: { type: 'boolean', default: false },
        'llm-base-url': { type: 'string' },
        'llm-model': { type: 'string' },
        'llm-key': { type: 'string' },
        'llm-key-file': { type: 'string' },
        'llm-concurrency': { type: 'string' },
        kappa: { type: 'string', default: '0.8' },
        'answer-budget': { type: 'string', default: '3000' },
        'max-questions': { type: 'string', default: '12' },
        'atomize-temperature': { type: 'string', default: '0.7' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (err) {
    process.stderr.write(`bench: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (opts.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!opts.corpus || !opts.questions) {
    process.stderr.write(`bench: --corpus and --questions are required\n${USAGE}`);
    return 2;
  }
  const ocrLanguage = ocrLanguageFlag('bench', opts['ocr-language']);
  if (!ocrLanguage) return 2;
  // `default` is whatever mode the app uses by default; it is run once and reported under both names.
  const requested = [
    ...new Set(
      opts.modes
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean)
        .map((m) => (m === 'default' ? DEFAULT_MODE : m)),
    ),
  ];
  const reportDefault = opts.modes.split(',').some((m) => m.trim() === 'default');
  requested.filter((m) => !runsThroughAsk(m)).forEach((m) => parseMode(m));
  const kgModes = requested.filter(isKgMode);
  const endpointModes = [...kgModes, ...requested.filter(reasonsAtQuestionTime)];
  if (opts['llm-key'] !== undefined) {
    process.stderr.write(keyInArgvMessage('bench', '--llm-key', LLM_KEY_ENV, '--llm-key-file') + '\n');
    return 2;
  }
  const settings = llmSettingsFromFlags(
    opts,
    await readApiKey({ file: opts['llm-key-file'], env: LLM_KEY_ENV }),
  );
  const kappa = Number(opts.kappa);
  if (!(kappa > 0 && kappa <= 1)) {
    throw new Error(`bench: --kappa must be a fraction in (0, 1], got "${opts.kappa}"`);
  }
  const answerBudget = positiveInts(opts['answer-budget'], '--answer-budget')[0];
  const skipped: Record<string, string> = {};
  if (!settings) {
    for (const m of endpointModes) skipped[m] = NEEDS_ENDPOINT;
    process.stderr.write(`bench: skipping ${[...endpointModes, 'EM/F1'].join(', ')}: ${NEEDS_ENDPOINT}\n`);
  }
  const modes = settings ? requested : requested.filter((m) => !endpointModes.includes(m));
  if (modes.length === 0) {
    process.stderr.write(`bench: no mode left to run (${NEEDS_ENDPOINT})\n`);
    return 2;
  }
  const budgets = positiveInts(opts.budgets, '--budgets');
  const limit = opts.limit === undefined ? Infinity : positiveInts(opts.limit, '--limit')[0];
  const offset = Number(opts.offset);
  const base: Overrides = Object.fromEntries(opts.param.map(parseParamOverride));
  const grid = expandGrid(opts.grid);

  const questions = (await loadQuestions(opts.questions)).slice(offset, offset + limit);
  const parseTimeoutMs = parseTimeoutFlag('bench', opts['parse-timeout']);
  if (parseTimeoutMs === null) return 2;
  const corpus = await prepareCorpus(
    opts.corpus,
    Number(opts['max-chunk-tokens']),
    ocrLanguage,
    parseTimeoutMs,
  );
  process.stderr.write(
    `bench: ${corpus.documents.length} documents, ${corpus.chunks.length} chunks, ${corpus.sentences.length} ` +
      `sentences prepared in ${corpus.seconds.toFixed(1)} s; ${questions.length} questions\n`,
  );

  let sentenceVectors: Float32Array | undefined;
  let questionVectors: Float32Array | undefined;
  let dimension = 0;
  // The KG embeds its entity/relation descriptions with the corpus's embedder, and the question-time modes embed
  // their sub-questions with it: it lives until the run ends when either needs it.
  let kgEmbedder: ReturnType<typeof cachedEmbedder> | undefined;
  if (opts.embedder !== 'none') {
    // The key of an openai: embedder comes from CONCEPTRAG_EMBEDDINGS_API_KEY (createEmbedderFromSpec).
    const embedder = cachedEmbedder(await createEmbedderFromSpec(opts.embedder), opts.cache);
    const t = performance.now();
    const sentences = await embedWithProgress(
      embedder,
      corpus.sentences.map((s) => s.text),
      'sentences',
    );
    sentenceVectors = sentences.vectors;
    dimension = sentences.dimension;
    process.stderr.write(
      `bench: sentence vectors ready in ${((performance.now() - t) / 1000).toFixed(1)} s\n`,
    );
    questionVectors = (
      await embedWithProgress(
        embedder,
        questions.map((q) => q.question),
        'questions',
      )
    ).vectors;
    process.stderr.write(
      `bench: embedding cache ${embedder.stats.hits} hits, ${embedder.stats.misses} misses\n`,
    );
    if (settings && endpointModes.length) kgEmbedder = embedder;
    else await embedder.dispose?.();
  } else if (modes.some((m) => !runsThroughAsk(m) && JSON.stringify(parseMode(m)).includes('dense'))) {
    throw new Error('bench: dense needs an embedder (drop --embedder none)');
  }

  let engineForKg: RetrievalEngine | undefined;
  let kgBuilding: Promise<BenchKg> | undefined;
  let atomizing: Promise<Awaited<ReturnType<typeof benchAtomic>>> | undefined;
  const maxQuestions = positiveInts(opts['max-questions'], '--max-questions')[0];
  const temperature = Number(opts['atomize-temperature']);
  if (!(temperature >= 0 && temperature <= 2)) {
    throw new Error(`bench: --atomize-temperature must be in [0, 2], got "${opts['atomize-temperature']}"`);
  }
  // The KG and the atomic layer are built over the same κ core chunks, in the first engine's build order, as the
  // KG worker orders them (LibrarySource.buildOrder).
  let core: Promise<DistillChunkInput[]> | undefined;
  const coreChunks = () =>
    (core ??= openSource({ library: benchLibrary(corpus, engineForKg!) })
      .buildOrder()
      .then((order) => order.core(kappa)));
  // The atomic layer, atomized once on first use (atomic, decompose).
  const ensureAtomic = (client: LlmClient) =>
    (atomizing ??= (async () => {
      const t = performance.now();
      const layer = await benchAtomic(await coreChunks(), client, {
        maxQuestions,
        temperature,
        embedder: kgEmbedder,
      });
      const a = layer.summary;
      if (llm) llm.atomicSeconds = (performance.now() - t) / 1000;
      process.stderr.write(
        `bench: atomic layer over ${a.selected} core chunks (κ ${kappa}): ${a.atomic.done} atomized, ` +
          `${a.atomic.failed} failed, ${a.atomic.questions} questions, ${a.calls} calls, ${a.inputTokens} in / ` +
          `${a.outputTokens} out tokens in ${((performance.now() - t) / 1000).toFixed(1)} s\n`,
      );
      return layer;
    })());
  const llm: LlmRun | undefined = settings
    ? {
        client: new LlmClient(settings),
        answerBudget,
        kgSeconds: 0,
        atomicSeconds: 0,
        concurrency: Math.max(1, settings.concurrency),
        embedder: kgEmbedder,
        atomic: async () => (await ensureAtomic(llm!.client)).index,
        ensureKg: () =>
          (kgBuilding ??= (async () => {
            // Once per run: the core chunks come from the first engine's concept-graph chunk ranks.
            const t = performance.now();
            const kg = await benchKg(await coreChunks(), llm!.client, kgEmbedder);
            llm!.kgSeconds = (performance.now() - t) / 1000;
            const k = kg.summary;
            process.stderr.write(
              `bench: KG over ${k.selected} core chunks (κ ${kappa}): ${k.kg.done} extracted, ${k.kg.failed} failed, ` +
                `${k.calls} calls, ${k.inputTokens} in / ${k.outputTokens} out tokens in ${llm!.kgSeconds.toFixed(1)} s\n`,
            );
            return kg;
          })()),
      }
    : undefined;
  const combos = grid.length ? grid : [{}];
  const summary: Array<{ params: Overrides; result: BenchResult }> = [];
  // One line per question, mode and grid combination: which questions a setting moves (--per-question).
  const perQuestion: string[] = [];
  // Engines by their build-time parameters: query-time parameters reuse the indexes (engine.withParams).
  let built: { key: string; engine: RetrievalEngine } | undefined;
  try {
    for (const combo of combos) {
      const overrides = { ...base, ...combo };
      const key = JSON.stringify(REBUILD_PARAMS.map((k) => overrides[k] ?? null));
      if (built?.key !== key) {
        built = undefined; // let the previous engine be collected before building the next
        const engine = RetrievalEngine.build(
          { chunks: corpus.retrievalChunks, sentences: corpus.sentences, sentenceVectors, dimension },
          createTermAnalyzer(),
          overrides,
        );
        built = { key, engine };
        const s = engine.stats();
        process.stderr.write(
          `bench: ${s.concepts} concepts, ${s.cooccurrenceEdges} co-occurrence edges, ${s.edges} walk edges; ` +
            `build ${fmtTimings(engine.timings)}` +
            (s.scriptChunks
              ? `; per-script chunks: ${s.scriptChunks.cjk} CJK, ${s.scriptChunks.other} other`
              : '') +
            '\n',
        );
      }
      engineForKg ??= built.engine;
      if (llm && kgModes.length) await llm.ensureKg();
      const engine = built.engine.withParams(overrides);
      if (opts.voy && engine.chunkVectors && questionVectors) {
        const v = await compareVoy(engine.chunkVectors, dimension, questionVectors, 20);
        process.stdout.write(
          `dense top-20 over ${v.rows} chunk vectors: voy build ${v.voyBuildMs.toFixed(0)} ms, ` +
            `query p50 ${v.voyMs.p50} / p95 ${v.voyMs.p95} ms; brute force p50 ${v.bruteMs.p50} / p95 ` +
            `${v.bruteMs.p95} ms; same top-20: ${(100 * v.agreement).toFixed(1)}%\n`,
        );
      }
      const result = await runOnce(
        engine,
        corpus,
        questions,
        modes,
        budgets,
        questionVectors,
        dimension,
        llm,
        opts['per-question']
          ? (mode, q, score) =>
              perQuestion.push(
                JSON.stringify({
                  params: combo,
                  mode,
                  id: q.id,
                  type: q.type,
                  cr: score.cr,
                  recall: score.recall,
                }),
              )
          : undefined,
      );
      if (reportDefault) result.modes = { default: result.modes[DEFAULT_MODE], ...result.modes };
      if (Object.keys(skipped).length) result.skipped = skipped;
      summary.push({ params: combo, result });
      if (grid.length) process.stdout.write(gridLine(combo, result, budgets));
      else process.stdout.write(table(result, budgets));
    }
  } finally {
    await kgEmbedder?.dispose?.();
  }
  if (llm) {
    const u = llm.client.totals;
    process.stderr.write(
      `bench: LLM totals ${u.calls} calls (${u.failedCalls} failed), ${u.inputTokens} in / ${u.outputTokens} out tokens\n`,
    );
  }
  if (opts['per-question']) await writeFile(opts['per-question'], perQuestion.map((l) => l + '\n').join(''));
  if (opts.json) {
    const payload = grid.length
      ? { grid: summary.map((s) => ({ params: s.params, ...s.result })) }
      : summary[0].result;
    await writeFile(opts.json, JSON.stringify(payload, null, 2) + '\n');
    process.stderr.write(`bench: wrote ${opts.json}\n`);
  }
  return 0;
}

async function runOnce(
  engine: RetrievalEngine,
  corpus: PreparedCorpus,
  questions: BenchQuestion[],
  modes: string[],
  budgets: number[],
  questionVectors: Float32Array | undefined,
  dimension: number,
  llm: LlmRun | undefined,
  onScore?: (mode: string, question: BenchQuestion, score: QaItemScore) => void,
): Promise<BenchResult> {
  const maxBudget = Math.max(...budgets);
  const result: BenchResult = { questions: questions.length, modes: {} };
  const library = benchLibrary(corpus, engine);
  if (llm) result.answerBudget = llm.answerBudget;
  // The engine's modes are searched as the app searches them, through the library's source (its latency is the
  // engine's: a library in memory searches it directly).
  const sourceQuestion = openSource({ library }).question(new AbortController().signal);
  const search = (mode: string, query: { text: string; vector?: Float32Array }, budget: number) =>
    sourceQuestion.search(query, mode, budget);
  for (const mode of modes) {
    // Each question's scores, by question type where the set gives one.
    const scored: QaItemScore[] = [];
    const byType = new Map<string, QaItemScore[]>();
    const times: number[] = [];
    const scores: Array<Promise<AnswerScore>> = [];
    const vectorOf = (i: number) => questionVectors?.subarray(i * dimension, (i + 1) * dimension);
    // The KG and question-time modes: every question through ask() first (one budget wide enough for every cut);
    // hybrid fuses the concept path (ppr) with the KG path, so its latency includes both searches.
    const asked =
      llm && runsThroughAsk(mode)
        ? await askAll(library, mode, questions, vectorOf, Math.max(maxBudget, llm.answerBudget), llm)
        : undefined;
    for (const [i, q] of questions.entries()) {
      const query = { text: q.question, vector: vectorOf(i) };
      const t = performance.now();
      const hits = asked ? asked[i].hits : await search(mode, query, maxBudget);
      times.push(asked ? asked[i].ms : performance.now() - t);
      if (llm) {
        // Answer context: a cut of the searched hits, or a wider search when the answer budget exceeds them.
        const context =
          asked || llm.answerBudget <= maxBudget
            ? cutToBudget(hits, llm.answerBudget)
            : await search(mode, query, llm.answerBudget);
        const failed = asked?.[i].error;
        scores.push(
          failed
            ? Promise.resolve(failedAnswer(failed))
            : scoreAnswer(llm.client, q.question, context, q.answers, asked?.[i].facts).catch(
                (error: unknown) => {
                  const reason = `answer: ${messageOf(error)}`;
                  process.stderr.write(`bench: ${mode} question ${q.id} failed: ${reason}\n`);
                  return failedAnswer(reason);
                },
              ),
        );
      }
      // The same scoring as the app's evaluation (src/core/metrics.ts). A first chunk over a small budget: the
      // app answers with its best sentences (engine.search), not nothing.
      const score = await scoreQaItem(q, hits, {
        budgets,
        ks: RECALL_KS,
        externalId: (docId) => corpus.externalIds.get(docId) ?? docId,
        searchAt: !asked ? (b) => search(mode, query, b) : undefined,
      });
      scored.push(score);
      onScore?.(mode, q, score);
      if (q.type !== undefined) byType.set(q.type, [...(byType.get(q.type) ?? []), score]);
    }
    const n = Math.max(1, questions.length);
    const types = [...byType.keys()].sort();
    result.modes[mode] = {
      ...meanScores(scored, budgets, RECALL_KS),
      ...(types.length
        ? {
            byType: Object.fromEntries(
              types.map((k) => [
                k,
                { questions: byType.get(k)!.length, ...meanScores(byType.get(k)!, budgets, RECALL_KS) },
              ]),
            ),
          }
        : {}),
      indexSeconds: round(
        indexSecondsOf(mode, corpus.seconds, engine.timings, llm?.kgSeconds ?? 0, llm?.atomicSeconds ?? 0),
        3,
      ),
      queryMs: { p50: round(percentile(times, 0.5), 2), p95: round(percentile(times, 0.95), 2) },
    };
    if (llm) {
      const done = await Promise.all(scores);
      result.modes[mode].em = round(done.reduce((s, x) => s + x.em, 0) / n, 4);
      result.modes[mode].f1 = round(done.reduce((s, x) => s + x.f1, 0) / n, 4);
      const failures = questions.flatMap((q, i) => {
        const reason = asked?.[i].error ?? done[i].error;
        return reason ? [{ id: q.id, reason }] : [];
      });
      result.modes[mode].failed = {
        questions: failures.length,
        reasons: countFailures(failures.map((f) => f.reason)),
        perQuestion: failures,
      };
      if (failures.length) {
        process.stderr.write(
          `bench: ${mode}: ${failures.length} of ${questions.length} questions failed (` +
            Object.entries(result.modes[mode].failed.reasons)
              .map(([k, v]) => `${v}× ${k}`)
              .join('; ') +
            ')\n',
        );
      }
      if (asked && reasonsAtQuestionTime(mode)) {
        const sum = (f: (a: Asked, s: AnswerScore) => number) =>
          round(asked.reduce((t, a, i) => t + f(a, done[i]), 0) / n, 2);
        result.modes[mode].perQuestion = {
          calls: sum((a) => (a.usage?.calls ?? 0) + 1),
          modeCalls: sum((a) => a.usage?.calls ?? 0),
          answerCalls: 1,
          inputTokens: sum((a, s) => (a.usage?.inputTokens ?? 0) + s.usage.inputTokens),
          outputTokens: sum((a, s) => (a.usage?.outputTokens ?? 0) + s.usage.outputTokens),
          cost: round(asked.reduce((t, a, i) => t + (a.usage?.cost ?? 0) + done[i].usage.cost, 0) / n, 6),
        };
      }
    }
  }
  return result;
}

function indexSecondsOf(
  mode: string,
  corpusSeconds: number,
  t: EngineTimings,
  kgSeconds: number,
  atomicSeconds: number,
): number {
  // Question-time modes read the concept graph (their ppr path) and the atomic layer where they use it (atomic,
  // decompose); their question-time LLM calls are accounted per question.
  if (mode === 'atomic' || mode === 'decompose') {
    return corpusSeconds + modeIndexMs('ppr', t) / 1000 + atomicSeconds;
  }
  if (reasonsAtQuestionTime(mode)) return corpusSeconds + modeIndexMs('ppr', t) / 1000;
  if (mode === 'kg') return corpusSeconds + kgSeconds;
  if (mode === 'hybrid') return corpusSeconds + kgSeconds + modeIndexMs('ppr', t) / 1000;
  return corpusSeconds + modeIndexMs(mode, t) / 1000;
}

/** Build time attributable to a mode: its own index parts (embedding excluded, reported separately). */
function modeIndexMs(mode: string, t: EngineTimings): number {
  const parsed = parseMode(mode);
  const parts = new Set('base' in parsed ? [parsed.base] : parsed.fuse);
  let ms = t.analyzeMs;
  if (parts.has('bm25')) ms += t.bm25Ms;
  if (parts.has('dense')) ms += t.denseMs;
  if (parts.has('ppr') || parts.has('concept')) ms += t.lexicalGraphMs + t.semanticMs + t.denseMs;
  return ms;
}

function fmtTimings(t: EngineTimings): string {
  return Object.entries(t)
    .map(([k, v]) => `${k.replace(/Ms$/, '')} ${(v / 1000).toFixed(2)} s`)
    .join(', ');
}

function positiveInts(text: string, flag: string): number[] {
  const out = text.split(',').map((s) => Number(s.trim()));
  if (out.length === 0 || out.some((n) => !Number.isInteger(n) || n <= 0)) {
    throw new Error(`bench: ${flag} must be positive integers separated by commas, got "${text}"`);
  }
  return out;
}

/** `--grid a=1,2 --grid b=x,y` → every combination as override objects. */
export function expandGrid(specs: string[]): Overrides[] {
  let combos: Overrides[] = specs.length ? [{}] : [];
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    if (eq <= 0) throw new Error(`bench: --grid expects key=v1,v2, got "${spec}"`);
    const key = spec.slice(0, eq);
    const values = spec
      .slice(eq + 1)
      .split(',')
      .map((v) => parseParamOverride(`${key}=${v}`));
    combos = combos.flatMap((c) => values.map(([k, v]) => ({ ...c, [k]: v })));
  }
  return combos;
}

function pct(x: number | null): string {
  return x === null ? '   -' : (100 * x).toFixed(1).padStart(5);
}

function table(result: BenchResult, budgets: number[]): string {
  const answered = result.answerBudget !== undefined;
  const head = [
    'mode'.padEnd(16),
    ...budgets.map((b) => `CR@${b}`.padStart(8)),
    ...RECALL_KS.map((k) => `R@${k}`.padStart(6)),
    'index s'.padStart(8),
    'p50 ms'.padStart(8),
    'p95 ms'.padStart(8),
    ...(answered ? ['EM'.padStart(6), 'F1'.padStart(6)] : []),
  ].join(' ');
  const rows = Object.entries(result.modes).map(([mode, r]) =>
    [
      mode.padEnd(16),
      ...budgets.map((b) => pct(r.cr[String(b)]).padStart(8)),
      ...RECALL_KS.map((k) => pct(r.recall[String(k)]).padStart(6)),
      r.indexSeconds.toFixed(1).padStart(8),
      r.queryMs.p50.toFixed(1).padStart(8),
      r.queryMs.p95.toFixed(1).padStart(8),
      ...(answered ? [pct(r.em ?? null).padStart(6), pct(r.f1 ?? null).padStart(6)] : []),
    ].join(' '),
  );
  const note = answered
    ? `; EM/F1 of the LLM answer over each mode's ${result.answerBudget}-token context`
    : '; EM/F1 not computed: no LLM endpoint';
  const byType = Object.entries(result.modes).flatMap(([mode, r]) =>
    Object.entries(r.byType ?? {}).map(
      ([type, t]) =>
        `  ${mode} · ${type} (${t.questions} q): ` +
        budgets.map((b) => `CR@${b} ${pct(t.cr[String(b)])}`).join(' ') +
        ' ' +
        RECALL_KS.map((k) => `R@${k} ${pct(t.recall[String(k)])}`).join(' '),
    ),
  );
  const types = byType.length ? `per question type:\n${byType.join('\n')}\n` : '';
  return `${result.questions} questions (percent${note})\n${head}\n${rows.join('\n')}\n${types}`;
}

function gridLine(combo: Overrides, result: BenchResult, budgets: number[]): string {
  const params = Object.entries(combo)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
  return (
    Object.entries(result.modes)
      .map(
        ([mode, r]) =>
          `${params} | ${mode}: ` +
          budgets.map((b) => `CR@${b} ${pct(r.cr[String(b)])}`).join(' ') +
          ' ' +
          RECALL_KS.map((k) => `R@${k} ${pct(r.recall[String(k)])}`).join(' ') +
          ` p50 ${r.queryMs.p50.toFixed(1)} ms` +
          (r.em === undefined ? '' : ` EM ${pct(r.em)} F1 ${pct(r.f1 ?? null)}`),
      )
      .join('\n') + '\n'
  );
}
