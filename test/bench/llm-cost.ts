// How far the app's LLM cost estimate is from the calls a build really makes (issue 44): the core KG, the atomic
// questions, and both in one pass, over the same chunks, estimated (src/core/atomic/estimate.ts, what the KG panel
// shows before a build) and then built against the scripted OpenAI-compatible server on loopback with the app's
// own client and build (buildDistilled). Printed per part: calls, input and output tokens and the cost, estimated
// and real, where "real" is given twice for input: the cl100k tokens of the messages actually sent (what a
// cl100k model would bill) and what the scripted server reported (its own count: characters of the request body /
// 4). Output tokens of the scripted server are its canned replies' words, so they say nothing of a real model's:
// the comparison shows the estimate's arithmetic and its prompt counting, not a model's verbosity.
// Usage: node --import tsx test/bench/llm-cost.ts [corpus.jsonl] [--chunks 120] [--price-in 2] [--price-out 8]
//   corpus: default ../shared/bench/musique/corpus.jsonl (its first --chunks passages, κ = 1).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import process from 'node:process';
import {
  buildDistilled,
  DEFAULT_MAX_QUESTIONS,
  estimateDistillCost,
  MemoryAtomicStore,
} from '../../src/core/atomic/index.ts';
import { MemoryKgStore } from '../../src/core/kg/index.ts';
import { costOf, estimateMessageTokens, LlmClient } from '../../src/core/llm/index.ts';
import { DEFAULT_INDEX_PARAMS } from '../../src/core/types.ts';
import { prepareCorpus } from '../../src/cli/benchData.ts';
import { startScriptedLlmServer } from '../support/scriptedLlmServer.ts';
import { scriptedPike } from '../support/scriptedPike.ts';

const PARTS = [
  { name: 'KG', kinds: { kg: true, atomic: false }, onePass: false },
  { name: 'atomic questions', kinds: { kg: false, atomic: true }, onePass: false },
  { name: 'both, one pass', kinds: { kg: true, atomic: true }, onePass: true },
];

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!(v > 0)) throw new Error(`llm-cost: --${name} needs a positive number, got "${process.argv[i + 1]}"`);
  return v;
}

const pct = (est: number, real: number): string =>
  real === 0 ? '–' : `${est >= real ? '+' : ''}${(((est - real) / real) * 100).toFixed(1)} %`;

async function main(): Promise<void> {
  const positional = process.argv
    .slice(2)
    .find((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
  const corpusPath = resolve(positional ?? '../shared/bench/musique/corpus.jsonl');
  const take = flag('chunks', 120);
  const priceIn = flag('price-in', 2);
  const priceOut = flag('price-out', 8);
  const lines = (await readFile(corpusPath, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  const dir = await mkdtemp(join(tmpdir(), 'llm-cost-'));
  try {
    const slice = join(dir, 'corpus.jsonl');
    await writeFile(slice, lines.slice(0, take).join('\n') + '\n');
    const corpus = await prepareCorpus(slice, DEFAULT_INDEX_PARAMS.maxChunkTokens);
    const chunks = corpus.chunks.map((c) => ({ id: c.id, docId: c.docId, text: c.text }));
    console.log(
      `${corpusPath}: first ${take} passages, ${chunks.length} chunks, κ = 1; prices ${priceIn} in / ${priceOut} out ` +
        `per M tokens; load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    for (const part of PARTS) {
      const [estimate] = estimateDistillCost(
        corpus.chunks.map((c) => ({ tokens: c.tokens })),
        [1],
        {
          kinds: part.kinds,
          onePass: part.onePass,
          maxQuestions: DEFAULT_MAX_QUESTIONS,
          priceInPerM: priceIn,
          priceOutPerM: priceOut,
        },
      );
      // The suite's scripted replies to the KG, atomizing and one-pass prompts (scriptedPike.ts).
      const server = await startScriptedLlmServer({ responders: [scriptedPike()] });
      const real = { calls: 0, inputTokens: 0, outputTokens: 0, cost: 0 };
      try {
        const client = new LlmClient(
          {
            baseUrl: server.baseUrl,
            model: 'scripted-model',
            apiKey: '',
            priceInPerM: priceIn,
            priceOutPerM: priceOut,
            concurrency: 4,
          },
          {
            onUsage: (u) => {
              real.calls += 1;
              real.inputTokens += u.inputTokens;
              real.outputTokens += u.outputTokens;
              real.cost += u.cost;
            },
          },
        );
        const summary = await buildDistilled({
          chunks,
          kinds: part.kinds,
          onePass: part.onePass,
          maxQuestions: DEFAULT_MAX_QUESTIONS,
          kg: new MemoryKgStore(),
          atomic: new MemoryAtomicStore(),
          client,
          concurrency: 4,
        });
        if (summary.error) throw new Error(`llm-cost: the ${part.name} build stopped: ${summary.error}`);
        const failed = summary.failures.length;
        const sent = server.requests
          .filter((r) => r.body?.messages)
          .reduce((sum, r) => sum + estimateMessageTokens(r.body!.messages!), 0);
        console.log(
          `\n${part.name}:\n` +
            `  calls          estimated ${estimate.calls}, made ${real.calls} (${failed} chunk parts failed)\n` +
            `  input tokens   estimated ${estimate.inputTokens}, cl100k of the messages sent ${sent} ` +
            `(${pct(estimate.inputTokens, sent)}), reported by the server ${real.inputTokens} ` +
            `(${pct(estimate.inputTokens, real.inputTokens)})\n` +
            `  output tokens  estimated ${estimate.outputTokens}, reported ${real.outputTokens} ` +
            `(${pct(estimate.outputTokens, real.outputTokens)})\n` +
            `  cost           estimated ${estimate.cost.toFixed(4)}, billed as reported ${real.cost.toFixed(4)} ` +
            `(${pct(estimate.cost, real.cost)}); at the sent cl100k input and reported output ` +
            `${costOf(sent, real.outputTokens, priceIn, priceOut).toFixed(4)}`,
        );
      } finally {
        await server.close();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
