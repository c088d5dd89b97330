// `npm run cli -- kg-cost --corpus <corpus.jsonl> --kappa 0.2,0.5,0.8,1 [--json out.json] [--price-in P --price-out Q]`
// What a core-KG build would cost at each κ, with no endpoint: the corpus is prepared exactly as the app does
// (parse, chunk), chunks are ranked by the concept graph's PageRank (lexical layer: ranks need no embeddings),
// the top ⌈κ·n⌉ are selected, and the extraction prompts of those chunks are counted in cl100k tokens. Output
// tokens are an estimate (0.35 × input, see src/core/kg/select.ts), labelled as such. Every figure comes from the
// app's estimate (src/core/atomic/estimate.ts).
// `--atomize` adds PIKE-RAG atomizing (src/core/atomic): atomic questions alone, and the KG plus atomic questions as
// two separate passes; `--one-pass` adds both in one call per chunk (the KG prompt with the questions field).
import { writeFile } from 'node:fs/promises';
import process from 'node:process';
import { parseArgs } from 'node:util';
import {
  DEFAULT_MAX_QUESTIONS,
  estimateDistillCost,
  type DistillCostEstimate,
} from '../core/atomic/index.ts';
import { DEFAULT_OUTPUT_RATIO, rankOrder } from '../core/kg/index.ts';
import { RetrievalEngine } from '../core/retrieval/index.ts';
import { createTermAnalyzer } from '../core/text/index.ts';
import { prepareCorpus } from './benchData.ts';

const USAGE =
  'usage: npm run cli -- kg-cost --corpus <corpus.jsonl> [--kappa 0.2,0.5,0.8,1] [--json out.json] ' +
  '[--price-in <per M tokens>] [--price-out <per M tokens>] [--output-ratio 0.35] ' +
  '[--atomize [--one-pass] [--max-questions 12]]\n';

function parseKappas(text: string): number[] {
  const values = text.split(',').map((s) => Number(s.trim()));
  for (const k of values) {
    if (!(k > 0 && k <= 1)) throw new Error(`kg-cost: --kappa values must be in (0, 1], got "${text}"`);
  }
  return values;
}

function nonNegative(text: string | undefined, flag: string, fallback: number): number {
  if (text === undefined) return fallback;
  const v = Number(text);
  if (!(v >= 0)) throw new Error(`kg-cost: ${flag} must be a number ≥ 0, got "${text}"`);
  return v;
}

export async function run(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      corpus: { type: 'string' },
      kappa: { type: 'string', default: '0.2,0.5,0.8,1' },
      json: { type: 'string' },
      'price-in': { type: 'string' },
      'price-out': { type: 'string' },
      'output-ratio': { type: 'string' },
      'max-chunk-tokens': { type: 'string' },
      atomize: { type: 'boolean', default: false },
      'one-pass': { type: 'boolean', default: false },
      'max-questions': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!values.corpus) {
    process.stderr.write(`kg-cost: --corpus is required\n${USAGE}`);
    return 2;
  }
  const kappas = parseKappas(values.kappa!);
  const priceInPerM = nonNegative(values['price-in'], '--price-in', 0);
  const priceOutPerM = nonNegative(values['price-out'], '--price-out', 0);
  const outputRatio = nonNegative(values['output-ratio'], '--output-ratio', DEFAULT_OUTPUT_RATIO);
  const maxChunkTokens = nonNegative(values['max-chunk-tokens'], '--max-chunk-tokens', 1200);

  const corpus = await prepareCorpus(values.corpus, maxChunkTokens);
  // The same analyzer and default parameters as the app's indexing worker (workers/engineFactory.ts).
  const engine = RetrievalEngine.build(
    { chunks: corpus.chunks, sentences: corpus.sentences },
    createTermAnalyzer(),
  );
  const { chunkIds, chunkRank } = engine.graph;
  const order = rankOrder(chunkIds.map((chunkId, i) => ({ chunkId, rank: chunkRank[i] })));
  const byId = new Map(corpus.chunks.map((c) => [c.id, c]));
  const ranked = order.map((id) => byId.get(id)!);
  // The KG alone is the app's KG-only estimate (the same function with the KG part alone).
  const estimates = estimateDistillCost(ranked, kappas, {
    kinds: { kg: true, atomic: false },
    priceInPerM,
    priceOutPerM,
    outputRatio,
  });
  if (values['one-pass'] && !values.atomize) {
    process.stderr.write(`kg-cost: --one-pass compares with atomizing: add --atomize\n${USAGE}`);
    return 2;
  }
  if (values.atomize) {
    const maxQuestions = nonNegative(values['max-questions'], '--max-questions', DEFAULT_MAX_QUESTIONS);
    if (!(Number.isInteger(maxQuestions) && maxQuestions >= 1)) {
      throw new Error(
        `kg-cost: --max-questions must be a whole number ≥ 1, got "${values['max-questions']}"`,
      );
    }
    const base = { maxQuestions, priceInPerM, priceOutPerM, outputRatio };
    const rows: Record<string, DistillCostEstimate[]> = {
      kg: estimates,
      atomic: estimateDistillCost(ranked, kappas, { ...base, kinds: { kg: false, atomic: true } }),
      separate: estimateDistillCost(ranked, kappas, {
        ...base,
        kinds: { kg: true, atomic: true },
        onePass: false,
      }),
      ...(values['one-pass']
        ? {
            onePass: estimateDistillCost(ranked, kappas, {
              ...base,
              kinds: { kg: true, atomic: true },
              onePass: true,
            }),
          }
        : {}),
    };
    process.stdout.write(passesTable(values.corpus, corpus.chunks.length, kappas, rows, maxQuestions));
    const byBuild = (i: number) =>
      Object.fromEntries(Object.entries(rows).map(([k, list]) => [k, spend(list[i])]));
    await writeJson(values.json, Object.fromEntries(kappas.map((kappa, i) => [String(kappa), byBuild(i)])));
    return 0;
  }

  process.stdout.write(table(values.corpus, corpus.chunks.length, estimates, priceInPerM + priceOutPerM > 0));
  await writeJson(values.json, Object.fromEntries(estimates.map((e) => [String(e.kappa), spend(e)])));
  return 0;
}

/** What --json keeps of an estimate. */
function spend({ calls, inputTokens, outputTokens, cost }: DistillCostEstimate) {
  return { calls, inputTokens, outputTokens, cost };
}

/** Writes --json's figures, by κ, when a file was given. */
async function writeJson(file: string | undefined, payload: object): Promise<void> {
  if (!file) return;
  await writeFile(file, JSON.stringify(payload, null, 2) + '\n');
  process.stderr.write(`kg-cost: wrote ${file}\n`);
}

function table(corpus: string, chunks: number, rows: DistillCostEstimate[], withCost: boolean): string {
  const head = `| κ | calls | input tokens | output tokens (est.) |${withCost ? ' cost |' : ''}`;
  const rule = `|---|---:|---:|---:|${withCost ? '---:|' : ''}`;
  const lines = rows.map(
    (r) =>
      `| ${r.kappa} | ${r.calls} | ${r.inputTokens} | ${r.outputTokens} |${withCost ? ` ${r.cost.toFixed(4)} |` : ''}`,
  );
  return `kg-cost: ${corpus} (${chunks} chunks)\n${head}\n${rule}\n${lines.join('\n')}\n`;
}

const PASS_LABELS: Record<string, string> = {
  kg: 'KG only',
  atomic: 'atomic questions only',
  separate: 'KG + atomic, two passes',
  onePass: 'KG + atomic, one pass',
};

/** One row per κ and build: calls, input tokens (counted), output tokens (estimated), and one pass's saving. */
function passesTable(
  corpus: string,
  chunks: number,
  kappas: number[],
  rows: Record<string, DistillCostEstimate[]>,
  maxQuestions: number,
): string {
  const head = '| κ | build | calls | input tokens | output tokens (est.) |';
  const rule = '|---|---|---:|---:|---:|';
  const lines: string[] = [];
  kappas.forEach((kappa, i) => {
    for (const [name, list] of Object.entries(rows)) {
      const r = list[i];
      lines.push(`| ${kappa} | ${PASS_LABELS[name]} | ${r.calls} | ${r.inputTokens} | ${r.outputTokens} |`);
    }
  });
  const saving = rows.onePass
    ? kappas
        .map((kappa, i) => {
          const two = rows.separate[i].inputTokens;
          const one = rows.onePass[i].inputTokens;
          return `κ ${kappa}: one pass sends ${two ? (100 * (1 - one / two)).toFixed(1) : '0.0'}% fewer input tokens`;
        })
        .join('; ')
    : '';
  return (
    `kg-cost: ${corpus} (${chunks} chunks; atomizing up to ${maxQuestions} questions per chunk)\n` +
    `${head}\n${rule}\n${lines.join('\n')}\n${saving ? `${saving}\n` : ''}`
  );
}
