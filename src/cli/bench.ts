// `npm run cli -- bench`: indexes a corpus in memory with the app's own code, answers a QA set in every mode and
// prints context recall at each token budget, supporting-passage recall@2/5/10, index seconds and query latency.
// `--grid key=v1,v2` repeats the run over parameter combinations (calibration) on the same embeddings.
import { writeFile } from 'node:fs/promises';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { contextRecall, recallAtK } from '../core/metrics.ts';
import { cutToBudget } from '../core/retrieval/budget.ts';
import { REBUILD_PARAMS, RetrievalEngine, type EngineTimings } from '../core/retrieval/engine.ts';
import { parseParamOverride, type RetrievalParams } from '../core/retrieval/params.ts';
import { parseMode } from '../core/retrieval/types.ts';
import { createTermAnalyzer } from '../core/text/analyzer.ts';
import {
  embedAll,
  loadQuestions,
  prepareCorpus,
  type BenchQuestion,
  type PreparedCorpus,
} from './benchData.ts';
import { compareVoy } from './benchVoy.ts';
import { cachedEmbedder } from './embeddingCache.ts';
import { createEmbedderFromSpec } from './embedders.ts';

const USAGE = `usage: npm run cli -- bench --corpus <corpus.jsonl> --questions <questions.jsonl>
  [--modes ppr,concept,dense,bm25,rrf:ppr+bm25] [--limit N] [--offset N] [--budgets 1000,3000,12000]
  [--json out.json] [--embedder use|none|hf:<model>|openai:<url>#<model>] [--cache .cache/embeddings]
  [--param key=value]... [--grid key=v1,v2]... [--max-chunk-tokens 1200] [--voy]
`;

const RECALL_KS = [2, 5, 10] as const;

export interface ModeResult {
  cr: Record<string, number>;
  recall: Record<string, number | null>;
  indexSeconds: number;
  queryMs: { p50: number; p95: number };
}

export interface BenchResult {
  questions: number;
  modes: Record<string, ModeResult>;
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
        embedder: { type: 'string', default: 'use' },
        cache: { type: 'string', default: '.cache/embeddings' },
        param: { type: 'string', multiple: true, default: [] },
        grid: { type: 'string', multiple: true, default: [] },
        'max-chunk-tokens': { type: 'string', default: '1200' },
        voy: { type: 'boolean', default: false },
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
  const modes = opts.modes
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  modes.forEach((m) => parseMode(m));
  const budgets = positiveInts(opts.budgets, '--budgets');
  const limit = opts.limit === undefined ? Infinity : positiveInts(opts.limit, '--limit')[0];
  const offset = Number(opts.offset);
  const base: Overrides = Object.fromEntries(opts.param.map(parseParamOverride));
  const grid = expandGrid(opts.grid);

  const questions = (await loadQuestions(opts.questions)).slice(offset, offset + limit);
  const corpus = await prepareCorpus(opts.corpus, Number(opts['max-chunk-tokens']));
  process.stderr.write(
    `bench: ${corpus.documents.length} documents, ${corpus.chunks.length} chunks, ${corpus.sentences.length} ` +
      `sentences prepared in ${corpus.seconds.toFixed(1)} s; ${questions.length} questions\n`,
  );

  let sentenceVectors: Float32Array | undefined;
  let questionVectors: Float32Array | undefined;
  let dimension = 0;
  if (opts.embedder !== 'none') {
    const embedder = cachedEmbedder(await createEmbedderFromSpec(opts.embedder), opts.cache);
    dimension = embedder.dimension;
    const t = performance.now();
    sentenceVectors = await embedAll(
      embedder,
      corpus.sentences.map((s) => s.text),
      'sentences',
    );
    process.stderr.write(
      `bench: sentence vectors ready in ${((performance.now() - t) / 1000).toFixed(1)} s\n`,
    );
    questionVectors = await embedAll(
      embedder,
      questions.map((q) => q.question),
      'questions',
    );
    process.stderr.write(
      `bench: embedding cache ${embedder.stats.hits} hits, ${embedder.stats.misses} misses\n`,
    );
    await embedder.dispose?.();
  } else if (modes.some((m) => JSON.stringify(parseMode(m)).includes('dense'))) {
    throw new Error('bench: dense needs an embedder (drop --embedder none)');
  }

  const combos = grid.length ? grid : [{}];
  const summary: Array<{ params: Overrides; result: BenchResult }> = [];
  // Engines by their build-time parameters: query-time parameters reuse the indexes (engine.withParams).
  let built: { key: string; engine: RetrievalEngine } | undefined;
  for (const combo of combos) {
    const overrides = { ...base, ...combo };
    const key = JSON.stringify(REBUILD_PARAMS.map((k) => overrides[k] ?? null));
    if (built?.key !== key) {
      built = undefined; // let the previous engine be collected before building the next
      const engine = RetrievalEngine.build(
        { chunks: corpus.chunks, sentences: corpus.sentences, sentenceVectors, dimension },
        createTermAnalyzer(),
        overrides,
      );
      built = { key, engine };
      const s = engine.stats();
      process.stderr.write(
        `bench: ${s.concepts} concepts, ${s.cooccurrenceEdges} co-occurrence edges, ${s.edges} walk edges; ` +
          `build ${fmtTimings(engine.timings)}\n`,
      );
    }
    const engine = built.engine.withParams(overrides);
    if (opts.voy && engine.chunkVectors && questionVectors) {
      const v = await compareVoy(engine.chunkVectors, dimension, questionVectors, 20);
      process.stdout.write(
        `dense top-20 over ${v.rows} chunk vectors: voy build ${v.voyBuildMs.toFixed(0)} ms, ` +
          `query p50 ${v.voyMs.p50} / p95 ${v.voyMs.p95} ms; brute force p50 ${v.bruteMs.p50} / p95 ` +
          `${v.bruteMs.p95} ms; same top-20: ${(100 * v.agreement).toFixed(1)}%\n`,
      );
    }
    const result = runOnce(engine, corpus, questions, modes, budgets, questionVectors, dimension);
    summary.push({ params: combo, result });
    if (grid.length) process.stdout.write(gridLine(combo, result, budgets));
    else process.stdout.write(table(result, budgets));
  }
  if (opts.json) {
    const payload = grid.length
      ? { grid: summary.map((s) => ({ params: s.params, ...s.result })) }
      : summary[0].result;
    await writeFile(opts.json, JSON.stringify(payload, null, 2) + '\n');
    process.stderr.write(`bench: wrote ${opts.json}\n`);
  }
  return 0;
}

function runOnce(
  engine: RetrievalEngine,
  corpus: PreparedCorpus,
  questions: BenchQuestion[],
  modes: string[],
  budgets: number[],
  questionVectors: Float32Array | undefined,
  dimension: number,
): BenchResult {
  const maxBudget = Math.max(...budgets);
  const labelled = questions.filter((q) => q.supporting.length > 0).length;
  const result: BenchResult = { questions: questions.length, modes: {} };
  for (const mode of modes) {
    const cr = budgets.map(() => 0);
    const recall = RECALL_KS.map(() => 0);
    const times: number[] = [];
    questions.forEach((q, i) => {
      const vector = questionVectors?.subarray(i * dimension, (i + 1) * dimension);
      const t = performance.now();
      const hits = engine.search({ text: q.question, vector }, mode, maxBudget);
      times.push(performance.now() - t);
      budgets.forEach((b, j) => {
        const context = cutToBudget(hits, b)
          .map((h) => h.text)
          .join('\n');
        cr[j] += contextRecall(context, q.answers);
      });
      if (q.supporting.length > 0) {
        const ranked = hits.map((h) => corpus.externalIds.get(h.docId) ?? h.docId);
        RECALL_KS.forEach((k, j) => (recall[j] += recallAtK(ranked, q.supporting, k)));
      }
    });
    const n = Math.max(1, questions.length);
    result.modes[mode] = {
      cr: Object.fromEntries(budgets.map((b, j) => [String(b), cr[j] / n])),
      recall: Object.fromEntries(
        RECALL_KS.map((k, j) => [String(k), labelled ? recall[j] / labelled : null]),
      ),
      indexSeconds: round(corpus.seconds + modeIndexMs(mode, engine.timings) / 1000, 3),
      queryMs: { p50: round(percentile(times, 0.5), 2), p95: round(percentile(times, 0.95), 2) },
    };
  }
  return result;
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

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
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
  const head = [
    'mode'.padEnd(16),
    ...budgets.map((b) => `CR@${b}`.padStart(8)),
    ...RECALL_KS.map((k) => `R@${k}`.padStart(6)),
    'index s'.padStart(8),
    'p50 ms'.padStart(8),
    'p95 ms'.padStart(8),
  ].join(' ');
  const rows = Object.entries(result.modes).map(([mode, r]) =>
    [
      mode.padEnd(16),
      ...budgets.map((b) => pct(r.cr[String(b)]).padStart(8)),
      ...RECALL_KS.map((k) => pct(r.recall[String(k)]).padStart(6)),
      r.indexSeconds.toFixed(1).padStart(8),
      r.queryMs.p50.toFixed(1).padStart(8),
      r.queryMs.p95.toFixed(1).padStart(8),
    ].join(' '),
  );
  return `${result.questions} questions (percent)\n${head}\n${rows.join('\n')}\n`;
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
          ` p50 ${r.queryMs.p50.toFixed(1)} ms`,
      )
      .join('\n') + '\n'
  );
}
