// The graph refresh of a drop through the ingest pipeline's path, on the store (fake-indexeddb): MuSiQue's corpus
// stored with its lexical layer, then 10 more passages (10 one-passage documents spread through the corpus, one
// batch). Times the refresh the pipeline runs (src/services/ingest/graphBuild.ts IncrementalGraphRefresh: corpus load,
// diff, analysis of the new chunks only, snapshot, store writes including the ~3 MB state) against the full rebuild
// it replaces (rebuildConceptGraph: corpus load, analysis of every chunk, graph from scratch). Also the refresh of
// a restarted pipeline (state read from the store, first snapshot recounts the pairs) after removing the 10.
// Usage: node --import tsx test/bench/graph-update-store.ts [--corpus path/to/corpus.jsonl] [--runs 3]
import { dirname, resolve } from 'node:path';
import { cpus, loadavg } from 'node:os';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { prepareCorpus } from '../../src/cli/benchData.ts';
import { DEFAULT_INDEX_PARAMS } from '../../src/core/types.ts';
import { IncrementalGraphRefresh } from '../../src/services/ingest/graphBuild.ts';
import { rebuildConceptGraph } from '../support/fullGraphBuild.ts';
import { openDatabase } from '../../src/store/db.ts';
import { Repo } from '../../src/store/repo.ts';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name: string, fallback: string): string =>
  args.includes(name) ? args[args.indexOf(name) + 1] : fallback;
const corpusPath = option(
  '--corpus',
  resolve(here, '..', '..', '..', 'shared', 'bench', 'musique', 'corpus.jsonl'),
);
const runs = Number(option('--runs', '3'));
const HELD_OUT = 10;
const signal = new AbortController().signal;

const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Wall and CPU time (user + system of the process) of an async step, in ms. */
async function time(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const c = process.cpuUsage();
  const t = performance.now();
  await fn();
  const wall = performance.now() - t;
  const d = process.cpuUsage(c);
  return { wall, cpu: (d.user + d.system) / 1000 };
}
const show = (label: string, xs: { wall: number; cpu: number }[]): void =>
  console.log(
    `${label.padEnd(58)} wall ${median(xs.map((x) => x.wall)).toFixed(0)} ms, CPU ${median(xs.map((x) => x.cpu)).toFixed(0)} ms` +
      (xs.length > 1 ? ` (median of ${xs.length})` : ''),
  );

const prepared = await prepareCorpus(corpusPath, DEFAULT_INDEX_PARAMS.maxChunkTokens);
const docs = prepared.documents;
const stride = Math.floor(docs.length / HELD_OUT);
const heldIdx = new Set(Array.from({ length: HELD_OUT }, (_, i) => i * stride + 7));
const base = docs.filter((_, i) => !heldIdx.has(i));
const drop = docs.filter((_, i) => heldIdx.has(i));
console.log(
  `corpus: ${docs.length} documents; base ${base.length}, drop ${drop.length} (${cpus().length} CPUs)`,
);
console.log(`load average at start: ${load()}`);

const repo = new Repo(openDatabase('graph-update-store', { indexedDB: new IDBFactory(), IDBKeyRange }));
for (let i = 0; i < base.length; i += 256) {
  await repo.putPreparedDocuments(base.slice(i, i + 256).map((p) => ({ prepared: p })));
}
const loadCorpus = await time(() => repo.loadCorpus());
show('corpus load alone (repo.loadCorpus)', [loadCorpus]);

const refresh = new IncrementalGraphRefresh();
show('first refresh, no stored state (full build + fresh state)', [
  await time(() => refresh.refresh(repo, signal)),
]);

const incremental: { wall: number; cpu: number }[] = [];
const full: { wall: number; cpu: number }[] = [];
const restarted: { wall: number; cpu: number }[] = [];
for (let r = 0; r < runs; r++) {
  await repo.putPreparedDocuments(drop.map((p) => ({ prepared: p })));
  incremental.push(await time(() => refresh.refresh(repo, signal)));
  full.push(await time(() => rebuildConceptGraph(repo, signal)));
  // The same graph either way: the counts the refresh stored are the full rebuild's.
  const meta = (await repo.loadCorpus()).meta!;
  const snapshot = refresh.lastSnapshot!;
  if (meta.concepts !== snapshot.table.terms.length || meta.edges !== snapshot.graph.targets.length / 2) {
    throw new Error(
      `refresh and rebuild disagree: ${meta.concepts} vs ${snapshot.table.terms.length} concepts`,
    );
  }
  for (const d of drop) await repo.removeDocument(d.doc.id);
  // A reload: a new pipeline continues from the stored state (no base: its first snapshot recounts every pair).
  const again = new IncrementalGraphRefresh(() => {
    throw new Error('restarted refresh built from scratch');
  });
  restarted.push(await time(() => again.refresh(repo, signal)));
  await refresh.refresh(repo, signal);
}
const meta = (await repo.loadCorpus()).meta;
console.log(`graph over the base: ${meta?.concepts} concepts, ${meta?.edges} edges`);
show(`drop of ${HELD_OUT} passages: incremental refresh (pipeline path)`, incremental);
show(`drop of ${HELD_OUT} passages: full rebuild (rebuildConceptGraph)`, full);
show(`restarted pipeline, ${HELD_OUT} passages removed (state from the store)`, restarted);
const state = (await repo.getGraphState())!;
const typed =
  state.chunkTermOffsets.byteLength + state.chunkTermIds.byteLength + state.chunkTermFreqs.byteLength;
const strings = [...state.terms, ...state.chunkIds, ...state.docIds].reduce((n, s) => n + s.length * 2, 0);
console.log(`stored state: ~${((typed + strings) / 2 ** 20).toFixed(1)} MB (typed arrays + UTF-16 strings)`);
console.log(`load average at end: ${load()}`);
