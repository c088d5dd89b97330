// `npm run cli -- kg-cost --corpus <corpus.jsonl> --kappa 0.2,0.5,0.8,1 [--json out.json] [--price-in P --price-out Q]`
// What a core-KG build would cost at each κ, with no endpoint: the corpus is prepared exactly as the app does
// (parse, chunk), chunks are ranked by the concept graph's PageRank (lexical layer: ranks need no embeddings),
// the top ⌈κ·n⌉ are selected, and the extraction prompts of those chunks are counted in cl100k tokens. Output
// tokens are an estimate (0.35 × input, see src/core/kg/select.ts), labelled as such.
import { writeFile } from 'node:fs/promises';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { DEFAULT_OUTPUT_RATIO, estimateKgCost, rankOrder, type KgCostEstimate } from '../core/kg/index.ts';
import { RetrievalEngine } from '../core/retrieval/index.ts';
import { createTermAnalyzer } from '../core/text/index.ts';
import { prepareCorpus } from './benchData.ts';

const USAGE =
  'usage: npm run cli -- kg-cost --corpus <corpus.jsonl> [--kappa 0.2,0.5,0.8,1] [--json out.json] ' +
  '[--price-in <per M tokens>] [--price-out <per M tokens>] [--output-ratio 0.35]\n';

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
  const estimates = estimateKgCost(ranked, kappas, { priceInPerM, priceOutPerM, outputRatio });

  process.stdout.write(table(values.corpus, corpus.chunks.length, estimates, priceInPerM + priceOutPerM > 0));
  if (values.json) {
    const payload = Object.fromEntries(
      estimates.map((e) => [
        String(e.kappa),
        { calls: e.calls, inputTokens: e.inputTokens, outputTokens: e.outputTokens, cost: e.cost },
      ]),
    );
    await writeFile(values.json, JSON.stringify(payload, null, 2) + '\n');
    process.stderr.write(`kg-cost: wrote ${values.json}\n`);
  }
  return 0;
}

function table(corpus: string, chunks: number, rows: KgCostEstimate[], withCost: boolean): string {
  const head = `| κ | calls | input tokens | output tokens (est.) |${withCost ? ' cost |' : ''}`;
  const rule = `|---|---:|---:|---:|${withCost ? '---:|' : ''}`;
  const lines = rows.map(
    (r) =>
      `| ${r.kappa} | ${r.calls} | ${r.inputTokens} | ${r.outputTokens} |${withCost ? ` ${r.cost.toFixed(4)} |` : ''}`,
  );
  return `kg-cost: ${corpus} (${chunks} chunks)\n${head}\n${rule}\n${lines.join('\n')}\n`;
}
