// Where a drop's time goes as the library grows (issue 25, the in-tab drop): the ingest pipeline
// (src/services/ingest/ingestPipeline.ts) with the worker's incremental graph refresh (graphBuild.ts) and the real
// parser, over a folder, on fake-indexeddb in Node. Every store call and every graph refresh is timed; a line per
// --every documents prints the time of that stretch split into parse, store calls (by method) and graph refreshes,
// so a step that grows with the library shows as a column that grows. fake-indexeddb is not Chromium's store (its
// absolute times differ), but a cost that follows the stored library shows the same shape in both.
// Usage: node --import tsx test/bench/ingest-scaling.ts --folder /work/scale-data/mb3 [--limit 2000]
//        [--every 200] [--refresh-ms 60000]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadavg } from 'node:os';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { prepareFile } from '../../src/core/prepare.ts';
import { isSupportedFile } from '../../src/core/parse/formats.ts';
import { IncrementalGraphRefresh } from '../../src/services/ingest/graphBuild.ts';
import { IngestPipeline } from '../../src/services/ingest/ingestPipeline.ts';
import { SENTENCE_VECTORS_SETTING } from '../../src/services/ingest/ingestProtocol.ts';
import { openDatabase } from '../../src/store/db.ts';
import { Repo } from '../../src/store/repo.ts';

const { values: opts } = parseArgs({
  options: {
    folder: { type: 'string' },
    limit: { type: 'string', default: '100000' },
    every: { type: 'string', default: '200' },
    'refresh-ms': { type: 'string', default: '60000' },
  },
});
if (!opts.folder) {
  process.stderr.write(
    'usage: ingest-scaling.ts --folder <folder> [--limit n] [--every n] [--refresh-ms ms]\n',
  );
  process.exit(2);
}
const limit = Number(opts.limit);
const every = Number(opts.every);

function walk(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (isSupportedFile(name)) out.push(path);
  }
  return out;
}
const paths = walk(opts.folder, []).slice(0, limit);

const repo = new Repo(openDatabase('scaling', { indexedDB: new IDBFactory(), IDBKeyRange }));
await repo.setSetting(SENTENCE_VECTORS_SETTING, false);

/** Milliseconds per step name in the current stretch. */
let spent = new Map<string, number>();
const add = (name: string, ms: number) => spent.set(name, (spent.get(name) ?? 0) + ms);
async function timed<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t = performance.now();
  try {
    return await fn();
  } finally {
    add(name, performance.now() - t);
  }
}
// Every Repo method timed (calls nest: a method calling another counts in both).
const timedRepo = new Proxy(repo, {
  get(target, key, receiver) {
    const value = Reflect.get(target, key, receiver) as unknown;
    if (typeof value !== 'function' || typeof key !== 'string') return value;
    return (...a: unknown[]) => {
      const r = (value as (...x: unknown[]) => unknown).apply(target, a);
      return r instanceof Promise ? timed(`repo.${key}`, () => r) : r;
    };
  },
});
const graph = new IncrementalGraphRefresh();
let stored = 0;
let last = performance.now();
let lastCpu = process.cpuUsage();
const started = performance.now();
const pipeline = new IngestPipeline(
  {
    repo: timedRepo,
    prepare: (name, bytes, o) => timed('parse', () => prepareFile(name, bytes, o)),
    embedder: async () => {
      throw new Error('lexical only');
    },
    rebuildGraph: (r, s) => timed('graph refresh', () => graph.refresh(r, s)),
    emit: (event) => {
      if (event.type !== 'file' || event.outcome.status !== 'indexed') return;
      stored += 1;
      if (stored % every !== 0) return;
      const now = performance.now();
      const cpu = process.cpuUsage(lastCpu);
      const top = [...spent.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)}`)
        .join(', ');
      console.log(
        `${stored} docs at ${((now - started) / 1000).toFixed(0)} s: last ${every} in ${((now - last) / 1000).toFixed(1)} s ` +
          `(cpu ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s; heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB): ${top}`,
      );
      spent = new Map();
      last = now;
      lastCpu = process.cpuUsage();
    },
  },
  Number(opts['refresh-ms']),
);
console.log(
  `${paths.length} files from ${opts.folder}; load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
const files = paths.map((p) => {
  const b = readFileSync(p);
  return {
    name: relative(opts.folder!, p),
    bytes: b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength),
  };
});
await pipeline.enqueue(files);
await pipeline.ensureRunning();
console.log(`done: ${stored} documents in ${((performance.now() - started) / 1000).toFixed(1)} s`);
// What the incremental graph holds between refreshes (Node's heap after a collection, with and without it; run
// with --expose-gc for these figures).
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) {
  const heapMB = () => {
    gc();
    return process.memoryUsage().heapUsed / 2 ** 20;
  };
  const withGraph = heapMB();
  graph.release();
  const without = heapMB();
  console.log(
    `heap after the drop: ${withGraph.toFixed(0)} MB with the incremental graph, ${without.toFixed(0)} MB without ` +
      `(it holds ${(withGraph - without).toFixed(0)} MB)`,
  );
}
