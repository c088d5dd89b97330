// Ingest rate in headless Chromium on the built app: sentences per second of the bare embedder (the configured
// one, USE-lite by default, called in the ingest worker in the pipeline's batch size) and of the whole pipeline
// (file → parse → embed → one-transaction store → concept graph) on the same text.
// Usage: npm run build && node --import tsx test/bench/ingest-rate-browser.ts [--corpus <jsonl>] [--limit 300]
//        [--rounds 2]
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { prepareFile } from '../../src/core/prepare.ts';
import { DEFAULT_INDEX_PARAMS } from '../../src/core/types.ts';
import type { Diagnostics } from '../../src/ui/workers.ts';
import { addFiles, openApp, readCounts, waitIdle } from '../e2e/lib/app.ts';
import { openHarness } from '../e2e/lib/harness.ts';
import { serveStatic } from '../e2e/lib/staticServer.ts';
import { arg } from './lib/args.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Documents in IndexedDB: a count, so polling it reads no records. */
function storedDocuments(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('conceptrag');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const r = db.transaction('documents').objectStore('documents').count();
          r.onsuccess = () => {
            db.close();
            resolve(r.result);
          };
          r.onerror = () => reject(r.error);
        };
      }),
  );
}

async function main(): Promise<void> {
  const corpus = arg('corpus', join(root, '..', 'shared', 'bench', '2wikimultihopqa', 'corpus.jsonl'));
  const limit = Number(arg('limit', '300'));
  const dist = process.env.E2E_DIST ?? join(root, 'dist');
  const lines = (await readFile(corpus, 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .slice(0, limit);
  const tmp = await mkdtemp(join(tmpdir(), 'conceptrag-bench-'));
  const file = join(tmp, 'passages.jsonl');
  await writeFile(file, lines.join('\n') + '\n');
  const { documents } = await prepareFile('passages.jsonl', new Uint8Array(await readFile(file)), {
    maxChunkTokens: DEFAULT_INDEX_PARAMS.maxChunkTokens,
  });
  const texts = documents.flatMap((d) => d.sentences.map((s) => s.text));
  console.log(
    `corpus: ${lines.length} passages of ${corpus}; ${documents.length} documents, ${texts.length} sentences`,
  );

  const rounds = Number(arg('rounds', '2'));
  const server = await serveStatic(dist);
  const bareRates: number[] = [];
  const storedRates: number[] = [];
  const pipeRates: number[] = [];
  try {
    // Each round in a fresh profile (an empty library), bare embedder first: the machine is shared, so rounds
    // are interleaved and the best of each is reported next to every round's figure.
    for (let round = 1; round <= rounds; round++) {
      const { harness, close } = await openHarness(server.origin, dist, 'bench');
      try {
        const { page } = harness;
        await openApp(page, server.origin);
        const bare = await page.evaluate(
          (t) =>
            (
              globalThis as unknown as { conceptragDiagnostics: Diagnostics }
            ).conceptragDiagnostics.measureEmbedder(t),
          texts,
        );
        const bareRate = bare.sentences / bare.seconds;
        const t0 = performance.now();
        await addFiles(page, [file]);
        // Stored: every document with its vectors is in IndexedDB (polled every 50 ms).
        for (;;) {
          if ((await storedDocuments(page)) >= documents.length) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const storedSeconds = (performance.now() - t0) / 1000;
        await waitIdle(page, 30 * 60_000, 50);
        const seconds = (performance.now() - t0) / 1000;
        const counts = await readCounts(page);
        const storedRate = counts.sentences / storedSeconds;
        const pipeRate = counts.sentences / seconds;
        bareRates.push(bareRate);
        storedRates.push(storedRate);
        pipeRates.push(pipeRate);
        console.log(
          `round ${round}: bare embedder ${bare.sentences} sentences in ${bare.seconds.toFixed(2)} s = ` +
            `${bareRate.toFixed(1)}/s (model load ${bare.loadSeconds.toFixed(2)} s, not counted); ` +
            `${counts.documents} documents stored in ${storedSeconds.toFixed(2)} s = ${storedRate.toFixed(1)}/s ` +
            `(${((100 * storedRate) / bareRate).toFixed(1)}%); with the concept graph ${seconds.toFixed(2)} s = ` +
            `${pipeRate.toFixed(1)}/s (${((100 * pipeRate) / bareRate).toFixed(1)}%)`,
        );
        if (harness.foreignRequests.length > 0)
          console.log(`foreign requests: ${harness.foreignRequests.join(', ')}`);
      } finally {
        await close();
      }
    }
  } finally {
    await server.close();
    await rm(tmp, { recursive: true, force: true });
  }
  const bestBare = Math.max(...bareRates);
  const bestStored = Math.max(...storedRates);
  const bestPipe = Math.max(...pipeRates);
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)];
  const ratios = (rates: number[]) => median(rates.map((r, i) => (100 * r) / bareRates[i])).toFixed(1);
  console.log(`bare embedder (best of ${rounds}): ${bestBare.toFixed(1)} sentences/s`);
  console.log(
    `pipeline to stored (file → parse → embed → store), best: ${bestStored.toFixed(1)} sentences/s = ` +
      `${((100 * bestStored) / bestBare).toFixed(1)}% of the best bare rate; median of the rounds' ratios ` +
      `${ratios(storedRates)}%`,
  );
  console.log(
    `pipeline with the concept graph rebuilt, best: ${bestPipe.toFixed(1)} sentences/s = ` +
      `${((100 * bestPipe) / bestBare).toFixed(1)}% of the best bare rate; median of the rounds' ratios ` +
      `${ratios(pipeRates)}%`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
