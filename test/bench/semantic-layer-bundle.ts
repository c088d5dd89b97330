// Measures the concept graph build of a bundle in Node (a script, not a test): a fresh build (lexical graph,
// concept vectors, edge cosines) against loading with the compact graph (keep-mask), and checks that both give
// the same walk graph, the same concept vectors and the same rankings.
// Usage: node --import tsx test/bench/semantic-layer-bundle.ts <x.bundle>
import process from 'node:process';
import { readBundleFile } from '../../src/cli/bundleIo.ts';
import { snapshotToCorpus } from '../../src/store/bundleImport.ts';
import { buildEngine, loadEngine } from '../../src/services/library/engine.ts';
import { compactGraph } from '../../src/core/graph/compactGraph.ts';
import type { RetrievalEngine } from '../../src/core/retrieval/engine.ts';

const seconds = (t: number): string => `${((performance.now() - t) / 1000).toFixed(2)} s`;
const path = process.argv[2];
if (!path) throw new Error('usage: semantic-layer-bundle.ts <x.bundle>');
let t = performance.now();
const snapshot = await readBundleFile(path);
console.log(`read + validate: ${seconds(t)}; graph part: ${String(snapshot.graph?.format ?? 'none')}`);
const corpus = { ...snapshotToCorpus(snapshot), graph: undefined };

t = performance.now();
const fresh = buildEngine(corpus);
const ms = fresh.timings;
console.log(
  `fresh build: ${seconds(t)} (analyze ${(ms.analyzeMs / 1000).toFixed(2)} s, lexical graph ` +
    `${(ms.lexicalGraphMs / 1000).toFixed(2)} s, semantic ${(ms.semanticMs / 1000).toFixed(2)} s)`,
  fresh.stats(),
);
t = performance.now();
const compact = compactGraph(fresh.exportGraph())!;
console.log(
  `compact graph: ${seconds(t)}, mask ${compact.keepMask.length} bytes, ${compact.keptEdges} kept edges`,
);

t = performance.now();
const masked = loadEngine({ ...corpus, graph: { id: 'concept', builtAt: 0, graph: compact as never } });
console.log(`load with keep-mask: ${seconds(t)}`, masked.stats());

const same = (a: ArrayLike<number>, b: ArrayLike<number>): boolean =>
  a.length === b.length && Array.from(a).every((x, i) => x === b[i]);
const g1 = fresh.graph;
const g2 = masked.graph;
console.log(
  'same walk graph:',
  same(g1.graph.offsets, g2.graph.offsets) && same(g1.graph.targets, g2.graph.targets),
  '| same concept vectors:',
  same(g1.semantic!.conceptVectors, g2.semantic!.conceptVectors),
  '| same concept ranks:',
  same(g1.conceptRank, g2.conceptRank),
);
// Rankings for questions made of chunk texts and vectors of chunk 0, 100, 200, …
const ranking = (e: RetrievalEngine, k: number, mode: string): string =>
  e
    .search({ text: e.chunkIds[k], vector: e.chunkVectors?.slice(k * 512, k * 512 + 512) }, mode, 3000)
    .map((h) => `${h.chunkId}:${h.score}`)
    .join(' ');
let identical = 0;
let total = 0;
for (let k = 0; k < fresh.chunkIds.length; k += 500) {
  for (const mode of ['ppr', 'concept', 'dense']) {
    total++;
    if (ranking(fresh, k, mode) === ranking(masked, k, mode)) identical++;
  }
}
console.log(`identical rankings: ${identical} / ${total}`);
