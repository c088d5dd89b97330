// What a drop costs the concept graph: a full lexical build of MuSiQue's corpus (6,761 passages) against the
// incremental graph taking one more 10-passage document, and giving it back. Every incremental snapshot is checked
// against a fresh build (edges exact, largest concept-rank difference printed).
// Usage: node --import tsx test/bench/graph-update.ts [--runs 3] [--corpus path/to/corpus.jsonl]
// (add --expose-gc to node for a steadier memory figure)
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { conceptTerms } from '../../src/core/graph/analyzer.ts';
import { buildLexicalGraph, type ConceptGraphIndex } from '../../src/core/graph/conceptGraph.ts';
import { IncrementalConceptGraph, type IncrementalChunk } from '../../src/core/graph/incremental.ts';
import { parseJsonl } from '../../src/core/parse/jsonl.ts';
import { DEFAULTS } from '../../src/core/retrieval/params.ts';
import { createTermAnalyzer } from '../../src/core/text/analyzer.ts';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name: string, fallback: string): string =>
  args.includes(name) ? args[args.indexOf(name) + 1] : fallback;
const runs = Number(option('--runs', '3'));
const corpusPath = option(
  '--corpus',
  resolve(here, '..', '..', '..', 'shared', 'bench', 'musique', 'corpus.jsonl'),
);
const HELD_OUT = 10;

const gc = (globalThis as { gc?: () => void }).gc;
const memory = (): number => {
  gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const ms = (x: number): string => `${x.toFixed(0)} ms`;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function time<T>(fn: () => T): [T, number] {
  const t = performance.now();
  const out = fn();
  return [out, performance.now() - t];
}

// The engine's analysis: index terms plus phrases, one chunk per passage (MuSiQue passages are far below ℓ).
const { documents, errors } = parseJsonl('corpus.jsonl', readFileSync(corpusPath, 'utf8'));
if (errors.length > 0) throw new Error(`corpus: ${errors[0].reason}`);
const analyzer = createTermAnalyzer();
const [passages, analyzeMs] = time(() =>
  documents.map((d, i) => {
    const docId = `p${String(i).padStart(5, '0')}`;
    return { id: `${docId}#0#0`, docId, terms: conceptTerms(analyzer, d.text, DEFAULTS.phrases) };
  }),
);
// The held-out document: 10 passages spread through the corpus, as one document (chunk ids after its own doc id).
const stride = Math.floor(passages.length / HELD_OUT);
const heldIdx = new Set(Array.from({ length: HELD_OUT }, (_, i) => i * stride + 7));
const base = passages.filter((_, i) => !heldIdx.has(i));
const drop: IncrementalChunk[] = [...heldIdx].map((i, n) => ({
  id: `zdrop#0#${n}`,
  docId: 'zdrop',
  terms: passages[i].terms,
}));
const options = DEFAULTS;

function fullBuild(chunks: readonly IncrementalChunk[]): ConceptGraphIndex {
  const sorted = [...chunks].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return buildLexicalGraph(
    sorted.map((c) => c.id),
    sorted.map((c) => c.terms),
    options,
  );
}

function check(got: ConceptGraphIndex, want: ConceptGraphIndex): string {
  const same = (a: ArrayLike<number>, b: ArrayLike<number>): boolean =>
    a.length === b.length && Array.prototype.every.call(a, (x: number, i: number) => x === b[i]);
  const g = got.cooccurrence;
  const w = want.cooccurrence;
  const exact =
    got.table.terms.length === want.table.terms.length &&
    got.table.terms.every((t, i) => t === want.table.terms[i]) &&
    got.chunkIds.every((id, i) => id === want.chunkIds[i]) &&
    same(got.table.conceptChunks, want.table.conceptChunks) &&
    same(got.table.chunkConceptWeights, want.table.chunkConceptWeights) &&
    same(g.offsets, w.offsets) &&
    same(g.targets, w.targets) &&
    same(g.co, w.co) &&
    same(g.weights, w.weights);
  if (!exact) throw new Error('incremental snapshot differs from the fresh build');
  let worst = 0;
  let l1 = 0;
  for (let c = 0; c < want.conceptRank.length; c++) {
    const d = Math.abs(got.conceptRank[c] - want.conceptRank[c]);
    worst = Math.max(worst, d);
    l1 += d;
  }
  return `edges exact (${w.targets.length / 2} undirected), concept ranks max |Δ| ${worst.toExponential(1)}, L1 ${l1.toExponential(1)}`;
}

console.log(
  `corpus: ${passages.length} passages (analysed in ${ms(analyzeMs)}); held out: ${HELD_OUT} as one document`,
);

// Full builds: the base library, and the library with the drop (what graphBuild.ts does after every batch).
const fullWith: number[] = [];
let reference: ConceptGraphIndex | undefined;
for (let r = 0; r < runs; r++) {
  const [index, t] = time(() => fullBuild([...base, ...drop]));
  fullWith.push(t);
  reference = index;
}
const referenceBase = fullBuild(base);
console.log(
  `full build (${passages.length} chunks): median ${ms(median(fullWith))} over ${runs} runs ` +
    `[${fullWith.map(ms).join(', ')}]; ${reference!.table.terms.length} concepts`,
);

// The incremental state, built once from the base library (a recount, like a full build).
const before = memory();
let graph = new IncrementalConceptGraph(options);
const [, initMs] = time(() => {
  graph.addChunks(base);
  graph.snapshot();
});
const held = memory() - before;
console.log(
  `incremental: initial build of ${base.length} chunks ${ms(initMs)} (${check(graph.snapshot(), referenceBase)})`,
);
const stats = graph.stats();
console.log(
  `incremental state: ${mb(held)} heap + array buffers (${mb(stats.typedBytes)} of typed arrays, of which the ` +
    `pair CSR shared with the snapshot); ${stats.terms} terms, ${stats.concepts} concepts`,
);
const stateBytes = (() => {
  const s = graph.toJSON();
  return (
    s.chunkTermIds.byteLength +
    s.chunkTermFreqs.byteLength +
    s.chunkTermOffsets.byteLength +
    s.terms.reduce((n, t) => n + t.length, 0) * 2 +
    s.chunkIds.reduce((n, t) => n + t.length, 0) * 4
  );
})();
console.log(`stored state (toJSON, without the graph itself): ≈ ${mb(stateBytes)}`);

const add: number[] = [];
const addSnap: number[] = [];
const remove: number[] = [];
const removeSnap: number[] = [];
const detail: string[] = [];
for (let r = 0; r < runs; r++) {
  const [, a] = time(() => graph.addChunks(drop));
  const [withDrop, s] = time(() => graph.snapshot());
  add.push(a);
  addSnap.push(s);
  const t = graph.lastSnapshot!;
  detail.push(
    `add: table ${ms(t.tableMs)}, pairs ${ms(t.pairsMs)}, PageRank ${ms(t.rankMs)}${t.recounted ? ' (recount!)' : ''}`,
  );
  if (r === 0) console.log(`  after add: ${check(withDrop, reference!)}`);
  const [, b] = time(() => graph.removeDocument('zdrop'));
  const [without, s2] = time(() => graph.snapshot());
  remove.push(b);
  removeSnap.push(s2);
  const t2 = graph.lastSnapshot!;
  detail.push(`remove: table ${ms(t2.tableMs)}, pairs ${ms(t2.pairsMs)}, PageRank ${ms(t2.rankMs)}`);
  if (r === 0) console.log(`  after remove: ${check(without, referenceBase)}`);
}
// Restored from the stored state and the last snapshot (a new session), then the same drop.
const [restored, restoreMs] = time(() => IncrementalConceptGraph.fromJSON(graph.toJSON(), graph.snapshot()));
graph = restored;
const [, restoredAdd] = time(() => {
  graph.addChunks(drop);
  graph.snapshot();
});
console.log(
  `\n10-passage document, median of ${runs}:` +
    `\n  add:    update ${ms(median(add))} + snapshot ${ms(median(addSnap))} = ${ms(median(add) + median(addSnap))}` +
    `   (full rebuild ${ms(median(fullWith))})` +
    `\n  remove: update ${ms(median(remove))} + snapshot ${ms(median(removeSnap))} = ${ms(median(remove) + median(removeSnap))}` +
    `\n  restore from toJSON + last snapshot: ${ms(restoreMs)}; then add + snapshot ${ms(restoredAdd)}`,
);
for (const line of detail) console.log(`  ${line}`);
