// Node ingest-rate benchmark: sentences per second of the bare embedder and of the whole pipeline (prepareFile on
// .jsonl parts of the same passages → embedDocuments) on this machine. Wall-clock rates depend on
// what else runs on the 2 cores; sentences per CPU-second of this process is printed beside them as the
// load-independent figure. The browser half is test/bench/ingest-rate-browser.ts.
// Usage: npm run bench:ingest -- [--corpus <jsonl>] [--limit 300] [--embedder use] [--rounds 2] [--part-lines 20]
//   BENCH_DIR (default: ../shared/bench next to the repo) locates the default corpus, 2wikimultihopqa/corpus.jsonl.
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { prepareFile } from '../../src/core/prepare.ts';
import { DEFAULT_INDEX_PARAMS, type PreparedDocument } from '../../src/core/types.ts';
import { formatRateTable, measureEmbedderRate, measurePipelineRate, type RateRow } from './lib/ingestRate.ts';
import { createEmbedderFromSpec } from '../../src/cli/embedders.ts';
import { arg } from './lib/args.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PIPELINE_BATCH = 128;

/** Runs `fn`, returning its result with the CPU seconds (user + system) this process spent. */
async function withCpu<T>(fn: () => Promise<T>): Promise<{ value: T; cpuSeconds: number }> {
  const c0 = process.cpuUsage();
  const value = await fn();
  const c = process.cpuUsage(c0);
  return { value, cpuSeconds: (c.user + c.system) / 1e6 };
}

/** Prepares the lines in parts of `perPart`, one part at a time, so parsing overlaps embedding. */
async function* preparedParts(lines: string[], perPart: number): AsyncGenerator<PreparedDocument> {
  const encoder = new TextEncoder();
  for (let i = 0; i < lines.length; i += perPart) {
    const bytes = encoder.encode(lines.slice(i, i + perPart).join('\n') + '\n');
    const { documents, errors } = await prepareFile(`passages-${i}.jsonl`, bytes, {
      maxChunkTokens: DEFAULT_INDEX_PARAMS.maxChunkTokens,
    });
    if (errors.length)
      throw new Error(`ingest-rate: ${errors.map((e) => `${e.file}: ${e.reason}`).join('; ')}`);
    yield* documents;
  }
}

async function main(): Promise<void> {
  const benchDir = process.env.BENCH_DIR ?? join(root, '..', 'shared', 'bench');
  const corpus = arg('corpus', join(benchDir, '2wikimultihopqa', 'corpus.jsonl'));
  const limit = Number(arg('limit', '300'));
  const rounds = Number(arg('rounds', '2'));
  const perPart = Number(arg('part-lines', '20'));
  const spec = arg('embedder', 'use');
  const lines = (await readFile(corpus, 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .slice(0, limit);

  const prep = await withCpu(async () => {
    const t0 = performance.now();
    const docs: PreparedDocument[] = [];
    for await (const d of preparedParts(lines, perPart)) docs.push(d);
    return { docs, seconds: (performance.now() - t0) / 1000 };
  });
  const texts = prep.value.docs.flatMap((d) => d.sentences.map((s) => s.text));
  console.log(
    `corpus: first ${lines.length} passages of ${corpus}: ${prep.value.docs.length} documents, ${texts.length} ` +
      `sentences (prepareFile alone: ${prep.value.seconds.toFixed(2)} s)`,
  );

  const tLoad = performance.now();
  const embedder = await createEmbedderFromSpec(spec);
  // Warm-up: the first calls compile WASM kernels; not part of either rate.
  await embedder.embed(texts.slice(0, 32).map((t) => `${t} (warm-up)`));
  console.log(
    `embedder ${embedder.id} (${embedder.dimension}-d) loaded and warmed up in ${((performance.now() - tLoad) / 1000).toFixed(2)} s`,
  );

  const rows: RateRow[] = [];
  for (let r = 1; r <= rounds; r++) {
    const bare = await withCpu(() => measureEmbedderRate(embedder, texts, PIPELINE_BATCH));
    rows.push({
      name: `bare embedder #${r}`,
      ...bare.value,
      cpuRate: bare.value.sentences / bare.cpuSeconds,
    });
    const pipe = await withCpu(() =>
      measurePipelineRate(embedder, preparedParts(lines, perPart), PIPELINE_BATCH),
    );
    rows.push({
      name: `whole pipeline #${r}`,
      ...pipe.value,
      cpuRate: pipe.value.sentences / pipe.cpuSeconds,
    });
  }
  const mean = (prefix: string, key: 'rate' | 'cpuRate'): number => {
    const sel = rows.filter((row) => row.name.startsWith(prefix));
    // Total sentences over total time (or CPU time), not a mean of rates.
    const sentences = sel.reduce((s, row) => s + row.sentences, 0);
    const time = sel.reduce(
      (s, row) => s + (key === 'rate' ? row.seconds : row.sentences / (row.cpuRate ?? 1)),
      0,
    );
    return sentences / time;
  };
  process.stdout.write('\n' + formatRateTable(rows) + '\n');
  const bareWall = mean('bare', 'rate');
  const pipeWall = mean('whole', 'rate');
  const bareCpu = mean('bare', 'cpuRate');
  const pipeCpu = mean('whole', 'cpuRate');
  console.log(
    `bare embedder:  ${bareWall.toFixed(1)} sentences/s wall, ${bareCpu.toFixed(1)} per CPU-second`,
  );
  console.log(
    `whole pipeline: ${pipeWall.toFixed(1)} sentences/s wall, ${pipeCpu.toFixed(1)} per CPU-second`,
  );
  console.log(
    `pipeline / bare: ${((100 * pipeWall) / bareWall).toFixed(1)}% wall, ${((100 * pipeCpu) / bareCpu).toFixed(1)}% CPU`,
  );
  await embedder.dispose?.();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
