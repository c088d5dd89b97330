// The time of a question answered by words while a large library waits for its pages (askByWords.ts over
// src/core/retrieval/batchBm25.ts), in Node on fake-indexeddb: a folder's files are parsed and stored with their
// lexical layer (as the ingest pipeline stores them, as pages-from-store.ts does), the pages threshold is set under
// the library's chunks with no pages written, and each question is scored over the stored chunks read a batch of
// documents at a time. Prints the wall and CPU time of each question, the process's peak heap over the questions
// (fake-indexeddb holds the whole library in this same heap: the browser's IndexedDB does not), what a question
// holds (with --expose-gc: the heap collected at each batch), and the load.
// Usage: node --expose-gc --import tsx test/bench/words-while-awaiting.ts --folder /work/scale-data/mb30/copy-000
//        [--limit <files>] [--questions <qa.jsonl>] [--count 5] [--mode ppr|bm25]
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { collectFiles } from '../../src/cli/index.ts';
import { PAGES_MIN_CHUNKS_SETTING } from '../../src/services/library/pagesThreshold.ts';
import { openStoredPages } from '../../src/services/library/storedPages.ts';
import { askByWords } from '../support/askOver.ts';
import { openDatabase } from '../../src/store/db.ts';
import { Repo } from '../../src/store/repo.ts';
import { loadText as load, quantile } from './lib/report.ts';
import { storeFile } from './lib/storeFile.ts';

const { values: opts } = parseArgs({
  options: {
    folder: { type: 'string' },
    limit: { type: 'string' },
    questions: { type: 'string' },
    count: { type: 'string', default: '5' },
    mode: { type: 'string', default: 'ppr' },
  },
});
if (!opts.folder) {
  process.stderr.write(
    'usage: node --import tsx test/bench/words-while-awaiting.ts --folder <folder> [--limit <files>] ' +
      '[--questions <qa.jsonl>] [--count 5] [--mode ppr|bm25]\n',
  );
  process.exit(2);
}

const MiB = 1024 * 1024;

const files = (await collectFiles([opts.folder])).slice(0, opts.limit ? Number(opts.limit) : undefined);
const repo = new Repo(openDatabase('words-bench', { indexedDB: new IDBFactory(), IDBKeyRange }));
await repo.setSetting('sentenceVectors', false);
console.log(
  `words-while-awaiting: ${files.length} files of ${opts.folder}; ${cpus().length} cores, load ${load()}`,
);
const t0 = performance.now();
for (const f of files) {
  await storeFile(repo, f);
}
const counts = await repo.counts();
console.log(
  `stored ${counts.documents} documents, ${counts.chunks} chunks in ${((performance.now() - t0) / 1000).toFixed(1)} s; ` +
    `load ${load()}`,
);
await repo.setSetting(PAGES_MIN_CHUNKS_SETTING, Math.min(counts.chunks, 10_000));
const state = await openStoredPages(repo.db);
if (!state || !('awaiting' in state)) throw new Error('the library is not waiting for its pages');

const questions = opts.questions
  ? readFileSync(opts.questions, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { question: string }).question)
  : ['What is the capital of the region?'];
global.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
let peakHeap = heapBefore;
const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 50);
const walls: number[] = [];
for (const question of questions.slice(0, Number(opts.count))) {
  const c = process.cpuUsage();
  const t = performance.now();
  let largest = 0;
  const { result } = await askByWords(
    state,
    { question, mode: opts.mode as 'ppr', budget: 2000 },
    { onBatch: (chunks) => (largest = Math.max(largest, chunks)) },
  );
  const wall = (performance.now() - t) / 1000;
  const u = process.cpuUsage(c);
  walls.push(wall);
  console.log(
    `  ${wall.toFixed(2)} s wall, ${((u.user + u.system) / 1e6).toFixed(2)} CPU s; ${result.evidence.length} evidence, ` +
      `largest batch ${largest} chunks; load ${load()} — ${question.slice(0, 60)}`,
  );
}
clearInterval(sampler);
// The peak above counts garbage not yet collected (each batch read from fake-indexeddb is new objects). What a
// question holds: one more question, the heap collected at each batch of its scoring pass, against before it.
let retained = 0;
if (global.gc) {
  global.gc();
  const base = process.memoryUsage().heapUsed;
  await askByWords(
    state,
    { question: questions[0], mode: opts.mode as 'ppr', budget: 2000 },
    {
      onBatch: () => {
        global.gc!();
        retained = Math.max(retained, process.memoryUsage().heapUsed - base);
      },
    },
  );
  console.log(
    `held by a question (heap after a collection at each batch of its scoring pass, less before): at most ` +
      `${(retained / MiB).toFixed(1)} MiB; load ${load()}`,
  );
}
console.log(
  `by words over ${counts.chunks} chunks (${opts.mode}): median ${quantile(walls, 0.5).toFixed(2)} s, ` +
    `max ${Math.max(...walls).toFixed(2)} s over ${walls.length} questions; heap ${(heapBefore / MiB).toFixed(0)} MiB ` +
    `before (the library in fake-indexeddb), peak ${(peakHeap / MiB).toFixed(0)} MiB during; load ${load()}`,
);
