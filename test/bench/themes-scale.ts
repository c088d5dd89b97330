// Time and memory to compute a library's themes (issue 48), after its concept graph: the step the query worker runs
// on the first corpus-wide question (memorySource → themesOf.ts) and `cli index --pages` runs to write themes.json.
//
//   node --expose-gc --import tsx test/bench/themes-scale.ts <folder or .jsonl> [--runs 3]
//
// Prints the corpus, the graph build (for scale), then per run the themes' wall time and the heap and RSS they added
// (measured after a forced GC before the run; peak RSS sampled every 20 ms during it), and the number of themes.
import { loadavg } from 'node:os';
import process from 'node:process';
import { themesOfGraph } from '../../src/services/themes/themesOf.ts';
import { arg, positional } from './lib/args.ts';
import { lexicalLibrary } from './lib/lexicalLibrary.ts';

const path = positional();
if (!path) throw new Error('usage: themes-scale.ts <folder or .jsonl> [--runs 3]');
const runs = Number(arg('runs', '3'));
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const gc = (globalThis as { gc?: () => void }).gc;

let started = performance.now();
const { engine, library } = await lexicalLibrary(path, {
  onCorpus: (corpus) => {
    const chars = corpus.documents.reduce((n, d) => n + d.doc.text.length, 0);
    process.stdout.write(
      `corpus ${path}: ${corpus.documents.length} documents, ${corpus.chunks.length} chunks, ${(chars / 2 ** 20).toFixed(1)} M chars, parsed in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
    started = performance.now();
  },
});
const graph = engine.graph;
process.stdout.write(
  `graph: ${graph.table.terms.length} concepts, ${graph.cooccurrence.targets.length / 2} co-occurrence edges, built in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
);
for (let run = 0; run < runs; run++) {
  gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  // A new seed each run, as the library's themes are computed (themesOfLibrary, which keeps its result).
  const themes = themesOfGraph(graph, library.chunks, (doc) => library.documents.get(doc)?.title ?? doc, {
    seed: 48 + run,
  });
  const ms = performance.now() - t0;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  const heap = process.memoryUsage().heapUsed - heap0;
  process.stdout.write(
    `run ${run + 1}: ${themes.themes.length} themes in ${ms.toFixed(0)} ms; heap +${mb(heap)} MB, RSS +${mb(peak - rss0)} MB at peak (RSS ${mb(peak)} MB)\n`,
  );
}
process.stdout.write(
  `load average: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}\n`,
);
