// What a drop costs the concept graph: a full lexical build of MuSiQue's corpus (6,761 passages) against the
// incremental graph taking one more 10-passage document, and giving it back. Every incremental snapshot is checked
// against a fresh build (edges exact, largest concept-rank difference printed).
// Usage: node --import tsx test/bench/graph-update.ts [--runs 3] [--corpus path/to/corpus.jsonl]
// (add --expose-gc to node for a steadier memory figure; CPU times are less disturbed by a busy machine than wall)
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { cpus, loadavg } from 'node:os';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { conceptTerms } from '../../src/core/graph/analyzer.ts';
import { buildLexicalGraph, type ConceptGraphIndex } from '../../src/core/graph/conceptGraph.ts';
import { IncrementalConceptGraph, type IncrementalChunk } from '../../src/core/graph/incremental.ts';
import { parseJsonl } from '../../src/core/parse/jsonl.ts';
import { DEFAULTS } from '../../src/core/retrieval/params.ts';
import { createTermAnalyzer } from '../../src/core/text/analyzer.ts';
import { scriptCountsOf } from '../../src/core/text/scripts.ts';

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

/** Wall and CPU time (user + system of the process, GC threads included) of fn, in ms. */
function time<T>(fn: () => T): [T, number, number] {
  const c = process.cpuUsage();
  const t = performance.now();
  const out = fn();
  const wall = performance.now() - t;
  const d = process.cpuUsage(c);
  return [out, wall, (d.user + d.system) / 1000];
}

/** Typed-array bytes of a graph index (what the engine holds for it). */
function indexBytes(index: ConceptGraphIndex): number {
  const t = index.table;
  const g = index.cooccurrence;
  const arrays = [
    t.idf,
    t.conceptChunkOffsets,
    t.conceptChunks,
    t.chunkConceptOffsets,
    t.chunkConcepts,
    t.chunkConceptWeights,
    g.offsets,
    g.targets,
    g.co,
    g.weights,
    index.conceptRank,
    index.chunkRank,
  ];
  return arrays.reduce((n, a) => n + a.byteLength, 0);
}

// The engine's analysis: index terms plus phrases, one chunk per passage (MuSiQue passages are far below ℓ).
const { documents, errors } = parseJsonl('corpus.jsonl', readFileSync(corpusPath, 'utf8'));
if (errors.length > 0) throw new Error(`corpus: ${errors[0].reason}`);
const analyzer = createTermAnalyzer();
const [passages, analyzeMs] = time(() =>
  documents.map((d, i) => {
    const docId = `p${String(i).padStart(5, '0')}`;
    // With word statistics per script (on by default) each chunk carries its text words by script, as the app's
    // graph build gives them (services/ingest/graphBuild.ts incrementalChunks).
    const scripts = DEFAULTS.scriptStatistics ? { scripts: scriptCountsOf(analyzer.terms(d.text)) } : {};
    return { id: `${docId}#0#0`, docId, terms: conceptTerms(analyzer, d.text, DEFAULTS.phrases), ...scripts };
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
  ...(passages[i].scripts && { scripts: passages[i].scripts }),
}));
// What the app adds to a drop's graph update for word statistics per script: reading the drop's text words again.
const [, scriptsMs] = time(() =>
  [...heldIdx].forEach((i) => scriptCountsOf(analyzer.terms(documents[i].text))),
);
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
  `corpus: ${passages.length} passages (analysed in ${ms(analyzeMs)}); held out: ${HELD_OUT} as one document` +
    (DEFAULTS.scriptStatistics ? `; its text words by script ${ms(scriptsMs)}` : ''),
);

// The incremental state, built once from the base library (a recount, like a full build).
const referenceBase = fullBuild(base);
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
const snapshotBytes = indexBytes(graph.snapshot());
console.log(
  `memory: state + its snapshot ${mb(held)} (heap + array buffers); the snapshot's arrays, which the engine holds ` +
    `anyway, ${mb(snapshotBytes)}; the state's own ≈ ${mb(held - snapshotBytes)} (${stats.terms} terms, ` +
    `${stats.concepts} concepts)`,
);
const stored = graph.toJSON();
const storedBytes =
  stored.chunkTermIds.byteLength +
  stored.chunkTermFreqs.byteLength +
  stored.chunkTermOffsets.byteLength +
  stored.terms.reduce((n, t) => n + t.length, 0) +
  stored.chunkIds.reduce((n, t) => n + t.length, 0) * 2;
console.log(`stored state (toJSON, the graph itself not included): ≈ ${mb(storedBytes)}`);

// Interleaved: a full rebuild with the drop (what graphBuild.ts does after every batch), then the incremental
// add + snapshot, remove + snapshot, so a busy machine slows both alike.
const wall = {
  full: [] as number[],
  add: [] as number[],
  addSnap: [] as number[],
  rm: [] as number[],
  rmSnap: [] as number[],
};
const cpu = {
  full: [] as number[],
  add: [] as number[],
  addSnap: [] as number[],
  rm: [] as number[],
  rmSnap: [] as number[],
};
const detail: string[] = [];
const record = (key: keyof typeof wall, w: number, c: number): void => {
  wall[key].push(w);
  cpu[key].push(c);
};
for (let r = 0; r < runs; r++) {
  const [reference, fw, fc] = time(() => fullBuild([...base, ...drop]));
  record('full', fw, fc);
  const [, aw, ac] = time(() => graph.addChunks(drop));
  record('add', aw, ac);
  const [withDrop, sw, sc] = time(() => graph.snapshot());
  record('addSnap', sw, sc);
  const t = graph.lastSnapshot!;
  detail.push(`add snapshot: table ${ms(t.tableMs)}, pairs ${ms(t.pairsMs)}, PageRank ${ms(t.rankMs)}`);
  if (t.recounted) throw new Error('a 10-passage add should not recount the pairs');
  if (r === 0) console.log(`  after add: ${check(withDrop, reference)}`);
  const [, rw, rc] = time(() => graph.removeDocument('zdrop'));
  record('rm', rw, rc);
  const [without, s2w, s2c] = time(() => graph.snapshot());
  record('rmSnap', s2w, s2c);
  const t2 = graph.lastSnapshot!;
  detail.push(`remove snapshot: table ${ms(t2.tableMs)}, pairs ${ms(t2.pairsMs)}, PageRank ${ms(t2.rankMs)}`);
  if (r === 0) console.log(`  after remove: ${check(without, referenceBase)}`);
}
// Restored from the stored state alone, without a snapshot: what the ingest worker does at a drain's first refresh,
// since it lets the graph go when a drain ends (IncrementalGraphRefresh.release); its first snapshot recounts.
const state = graph.toJSON();
const [alone, aloneMs] = time(() => IncrementalConceptGraph.fromJSON(state));
const [, aloneAdd] = time(() => {
  alone.addChunks(drop);
  alone.snapshot();
});
alone.removeDocument('zdrop');
// Restored from the stored state and the last snapshot (a new session), then the same drop.
const [restored, restoreMs] = time(() => IncrementalConceptGraph.fromJSON(state, graph.snapshot()));
graph = restored;
const [, restoredAdd] = time(() => {
  graph.addChunks(drop);
  graph.snapshot();
});
const both = (key: keyof typeof wall): string =>
  `${ms(median(wall[key]))} wall / ${ms(median(cpu[key]))} CPU`;
const sum = (a: keyof typeof wall, b: keyof typeof wall): string =>
  `${ms(median(wall[a]) + median(wall[b]))} wall / ${ms(median(cpu[a]) + median(cpu[b]))} CPU`;
console.log(
  `\n10-passage document, medians of ${runs} (load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores):` +
    `\n  full rebuild with it:  ${both('full')}  [${wall.full.map(ms).join(', ')}]` +
    `\n  incremental add:       update ${both('add')} + snapshot ${both('addSnap')} = ${sum('add', 'addSnap')}` +
    `\n  incremental remove:    update ${both('rm')} + snapshot ${both('rmSnap')} = ${sum('rm', 'rmSnap')}` +
    `\n  restore from toJSON + last snapshot: ${ms(restoreMs)}; then add + snapshot ${ms(restoredAdd)}` +
    `\n  restore from toJSON alone (a drain after release): ${ms(aloneMs)}; then add + snapshot ${ms(aloneAdd)}`,
);
for (const line of detail) console.log(`  ${line}`);
