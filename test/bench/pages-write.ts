// Where the ingest worker's pages write (src/services/ingest/pagesWrite.ts, writeLibraryPages) spends its time as the
// library grows: the 100 MiB drop's write at 83,378 chunks took ~490 s in the tab (docs/results/drop-projected.md).
// In Node on fake-indexeddb, one library is stored file by file (prepareFile + putPreparedDocuments, as the ingest
// pipeline stores a drop) and, each time it passes the next of `--at` chunk counts, its pages are written by the same
// call as the worker's, with a PhaseClock: the time of each phase (store reads, keyphrases, records gzip, word terms,
// concept table, degrees, sections, hashing, the Blob, the put), the peak heap during the write, and the load.
// fake-indexeddb keeps the library in this process's heap, so the heap before the write is printed beside the peak.
// Usage: node --expose-gc --max-old-space-size=8192 --import tsx test/bench/pages-write.ts
//        --folder /work/scale-data/mb100 [--at 10000,30000,60000,90000] [--json out.json] [--cpu]
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { collectFiles } from '../../src/cli/index.ts';
import { PhaseClock } from '../../src/core/paged/index.ts';
import { writeLibraryPages } from '../../src/services/ingest/pagesWrite.ts';
import { openDatabase } from '../../src/store/db.ts';
import { Repo } from '../../src/store/repo.ts';
import { loadText as load } from './lib/report.ts';
import { storeFile } from './lib/storeFile.ts';

const { values: opts } = parseArgs({
  options: {
    folder: { type: 'string' },
    at: { type: 'string', default: '10000,30000,60000,90000' },
    json: { type: 'string' },
    // Phases in the process's CPU time (every thread: GC helpers too) instead of wall time.
    cpu: { type: 'boolean', default: false },
  },
});
if (!opts.folder) {
  process.stderr.write(
    'usage: node --expose-gc --import tsx test/bench/pages-write.ts --folder <folder> [--at 10000,30000] [--json f]\n',
  );
  process.exit(2);
}

const MiB = 1024 * 1024;
const targets = opts.at.split(',').map(Number);

const files = await collectFiles([opts.folder]);
const repo = new Repo(openDatabase('pages-write-bench', { indexedDB: new IDBFactory(), IDBKeyRange }));
console.log(
  `pages-write: ${files.length} files of ${opts.folder}, writes at ${targets.join(', ')} chunks; ` +
    `${cpus().length} cores, load ${load()}`,
);

interface Row {
  chunks: number;
  documents: number;
  seconds: number;
  cpu: number;
  bytes: number;
  heapBefore: number;
  peakHeap: number;
  phases: Record<string, number>;
  /** Wall seconds of garbage-collector pauses during the write. */
  gcSeconds: number;
  load: [string, string];
}
/** The garbage collector's pauses (ms) since the process started: each write's share is the difference. */
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ['gc'] });

const rows: Row[] = [];
let chunks = 0;
let next = 0;
let storeSeconds = 0;
for (const f of files) {
  if (next >= targets.length) break;
  const t = performance.now();
  chunks += (await storeFile(repo, f)).chunks;
  storeSeconds += (performance.now() - t) / 1000;
  if (chunks < targets[next]) continue;
  next++;
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed / MiB;
  let peakHeap = heapBefore;
  const timer = setInterval(() => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed / MiB);
  }, 50);
  const loadBefore = load();
  const gcBefore = gcMs;
  const clock = opts.cpu
    ? new PhaseClock(() => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
      })
    : new PhaseClock();
  const cpu = process.cpuUsage();
  const written = await writeLibraryPages(repo, { clock });
  const used = process.cpuUsage(cpu);
  clearInterval(timer);
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed / MiB);
  if (!written.stored) throw new Error('pages-write: the pages were not stored');
  const row: Row = {
    chunks: written.chunks,
    documents: written.documents,
    seconds: written.seconds,
    cpu: (used.user + used.system) / 1e6,
    bytes: written.bytes,
    heapBefore,
    peakHeap,
    phases: clock.ms,
    gcSeconds: (gcMs - gcBefore) / 1000,
    load: [loadBefore, load()],
  };
  rows.push(row);
  console.log(
    `\n${row.chunks} chunks, ${row.documents} documents (stored in ${storeSeconds.toFixed(0)} s so far): pages ` +
      `${(row.bytes / MiB).toFixed(1)} MiB in ${row.seconds.toFixed(1)} s wall, ${row.cpu.toFixed(1)} CPU s; heap ` +
      `${heapBefore.toFixed(0)} MiB before, peak ${peakHeap.toFixed(0)} MiB; garbage collection ${row.gcSeconds.toFixed(1)} s; ` +
      `load ${row.load[0]} → ${row.load[1]}`,
  );
  console.log(`  phases in ${opts.cpu ? 'CPU' : 'wall'} seconds:`);
  for (const [phase, ms] of Object.entries(clock.ms))
    console.log(
      `  ${phase.padEnd(36)} ${(ms / 1000).toFixed(2).padStart(8)} s  ${((1e6 * ms) / 1000 / row.chunks).toFixed(1).padStart(7)} µs/chunk`,
    );
  if (opts.json) writeFileSync(opts.json, JSON.stringify(rows, null, 1));
}
