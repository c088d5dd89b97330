// The cost of writing a library's pages from the store (src/services/ingest/pagesWrite.ts), in Node on
// fake-indexeddb: a folder's files are parsed and stored with their lexical layer (as the ingest pipeline stores
// them), then the pages are written from the store, timed (wall and CPU) with the process's peak RSS and heap over
// the write, and compared with what they replace after a reload: reading the whole corpus and opening the engine
// (loadCorpus + loadEngine), and opening the pages plus one question over them.
// Usage: node --import tsx test/bench/pages-from-store.ts --folder /work/scale-data/mb10 [--limit <files>]
//        [--questions <qa.jsonl>]
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { collectFiles } from '../../src/cli/index.ts';
import { writeLibraryPages } from '../../src/services/ingest/pagesWrite.ts';
import { PAGES_MIN_CHUNKS_SETTING } from '../../src/services/library/pagesThreshold.ts';
import { loadEngine } from '../../src/services/library/engine.ts';
import { openStoredPages } from '../../src/services/library/storedPages.ts';
import { askPaged } from '../support/askOver.ts';
import { openDatabase } from '../../src/store/db.ts';
import { Repo } from '../../src/store/repo.ts';
import { loadText as load } from './lib/report.ts';
import { storeFile } from './lib/storeFile.ts';

const { values: opts } = parseArgs({
  options: {
    folder: { type: 'string' },
    limit: { type: 'string' },
    questions: { type: 'string' },
  },
});
if (!opts.folder) {
  process.stderr.write(
    'usage: node --import tsx test/bench/pages-from-store.ts --folder <folder> [--limit <files>] [--questions <qa.jsonl>]\n',
  );
  process.exit(2);
}

const MiB = 1024 * 1024;

/** Wall and CPU seconds of an async step, and the process's peak RSS / heap sampled every 100 ms during it. */
async function measured<T>(
  fn: () => Promise<T>,
): Promise<{ value: T; wall: number; cpu: number; peakRss: number; peakHeap: number }> {
  let peakRss = process.memoryUsage().rss;
  let peakHeap = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 100);
  const c = process.cpuUsage();
  const t = performance.now();
  try {
    const value = await fn();
    const u = process.cpuUsage(c);
    const m = process.memoryUsage();
    return {
      value,
      wall: (performance.now() - t) / 1000,
      cpu: (u.user + u.system) / 1e6,
      peakRss: Math.max(peakRss, m.rss) / MiB,
      peakHeap: Math.max(peakHeap, m.heapUsed) / MiB,
    };
  } finally {
    clearInterval(timer);
  }
}

const files = (await collectFiles([opts.folder])).slice(0, opts.limit ? Number(opts.limit) : undefined);
const repo = new Repo(openDatabase('pages-bench', { indexedDB: new IDBFactory(), IDBKeyRange }));
console.log(
  `pages-from-store: ${files.length} files of ${opts.folder}; ${cpus().length} cores, load ${load()}`,
);

const stored = await measured(async () => {
  let bytes = 0;
  for (const f of files) {
    bytes += (await storeFile(repo, f)).bytes;
  }
  return bytes;
});
const counts = await repo.counts();
console.log(
  `stored ${(stored.value / MiB).toFixed(1)} MiB: ${counts.documents} documents, ${counts.chunks} chunks, ` +
    `${counts.sentences} sentences in ${stored.wall.toFixed(1)} s; load ${load()}`,
);

global.gc?.();
const written = await measured(() => writeLibraryPages(repo));
const w = written.value;
console.log(
  `pages written from the store: ${w.stored ? 'stored' : 'NOT stored'}, ${(w.bytes / MiB).toFixed(1)} MiB in ` +
    `${written.wall.toFixed(1)} s wall, ${written.cpu.toFixed(1)} CPU s; peak RSS ${written.peakRss.toFixed(0)} MiB, ` +
    `peak heap ${written.peakHeap.toFixed(0)} MiB (fake-indexeddb holds the library in this heap too); load ${load()}`,
);

const question = opts.questions
  ? (JSON.parse(readFileSync(opts.questions, 'utf8').split('\n').find(Boolean)!) as { question: string })
      .question
  : 'What is the capital of the region?';
// The pages are read only for a library at or past the threshold (pagesThreshold.ts): a --limit under the default
// threshold would otherwise be loaded into memory instead, and the bench would time nothing.
await repo.setSetting(PAGES_MIN_CHUNKS_SETTING, Math.min(counts.chunks, 10_000));
const opened = await measured(async () => {
  const pages = await openStoredPages(repo.db);
  if (!pages || 'awaiting' in pages) throw new Error('the stored pages do not open');
  const answer = await askPaged(pages.library, { question, mode: 'ppr', budget: 2000 });
  return { pages, answer };
});
console.log(
  `reopen from the pages: opened and first question answered in ${opened.wall.toFixed(2)} s ` +
    `(${opened.value.answer.evidence.length} evidence, ${(opened.value.answer.reads.bytes / 1024).toFixed(0)} KiB read); load ${load()}`,
);

global.gc?.();
const inMemory = await measured(async () => {
  const corpus = await repo.loadCorpus();
  return loadEngine(corpus);
});
console.log(
  `reopen in memory (what the pages replace): loadCorpus + loadEngine in ${inMemory.wall.toFixed(1)} s wall, ` +
    `${inMemory.cpu.toFixed(1)} CPU s, peak heap ${inMemory.peakHeap.toFixed(0)} MiB; load ${load()}`,
);
