// Scale of the lexical layer on real documentation: a folder (default ../shared/bench/docs-scale/docs, 722 files) is
// indexed at 1/4, 1/2 and all of its files (every k-th file, so each part holds the same mix), and for each part
// the script prints the text size, the time to parse and chunk, the time to build BM25 + concepts + co-occurrence
// graph + PageRank, the concepts, edges, the bytes of the graph's typed arrays and the heap growth, and `ppr`
// (the default mode) query latency over questions made from the folder's own headings (latency only: there is no
// gold). Edges per 1,000 characters across the parts says whether the graph grows faster than the text.
// Usage: node --import tsx test/bench/docs-scale.ts [--corpus <folder>] [--parts 4,2,1] [--queries 200]
//        [--param key=value]... [--json out.json]
import { writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { prepareCorpus } from '../../src/cli/benchData.ts';
import type { ConceptGraphIndex } from '../../src/core/graph/conceptGraph.ts';
import { RetrievalEngine } from '../../src/core/retrieval/engine.ts';
import { parseParamOverride } from '../../src/core/retrieval/params.ts';
import { DEFAULT_MODE } from '../../src/core/retrieval/types.ts';
import { createTermAnalyzer } from '../../src/core/text/analyzer.ts';
import { copyFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { readdirSync } from 'node:fs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: opts } = parseArgs({
  options: {
    corpus: { type: 'string', default: join(root, '..', 'shared', 'bench', 'docs-scale', 'docs') },
    parts: { type: 'string', default: '4,2,1' },
    queries: { type: 'string', default: '200' },
    param: { type: 'string', multiple: true, default: [] },
    json: { type: 'string' },
  },
});
const overrides = Object.fromEntries(opts.param.map(parseParamOverride));

/** Bytes held by the typed arrays of the concept table and the walk graph (what a worker keeps in memory). */
function graphBytes(g: ConceptGraphIndex): number {
  const t = g.table;
  const arrays = [
    t.idf,
    t.conceptChunkOffsets,
    t.conceptChunks,
    t.chunkConceptOffsets,
    t.chunkConcepts,
    t.chunkConceptWeights,
    ...Object.values(g.cooccurrence).filter(ArrayBuffer.isView),
    ...(g.graph === g.cooccurrence ? [] : Object.values(g.graph).filter(ArrayBuffer.isView)),
    g.conceptRank,
    g.chunkRank,
  ] as ArrayBufferView[];
  return arrays.reduce((n, a) => n + a.byteLength, 0);
}

/** A folder with every k-th file of `dir` (sorted), as symbolic links. */
async function sample(dir: string, every: number): Promise<string> {
  if (every === 1) return dir;
  const out = await mkdtemp(join(tmpdir(), 'docs-scale-'));
  const files = readdirSync(dir).sort();
  for (let i = 0; i < files.length; i += every) await copyFile(join(dir, files[i]), join(out, files[i]));
  return out;
}

const rows: Record<string, number>[] = [];
for (const every of opts.parts.split(',').map(Number)) {
  const folder = await sample(opts.corpus, every);
  global.gc?.();
  const mem = (): number => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const heap0 = mem();
  const corpus = await prepareCorpus(folder, 1200);
  const chars = corpus.documents.reduce((n, d) => n + d.doc.text.length, 0);
  const t = performance.now();
  const engine = RetrievalEngine.build(
    { chunks: corpus.retrievalChunks, sentences: corpus.sentences },
    createTermAnalyzer(),
    overrides,
  );
  const buildSeconds = (performance.now() - t) / 1000;
  global.gc?.();
  const heapMb = (mem() - heap0) / 2 ** 20;
  // Questions from the folder's headings ("How does <heading> work?"), spread over the whole folder.
  const headings = corpus.retrievalChunks.map((c) => c.path?.at(-1) ?? '').filter((h) => h.length > 3);
  const n = Math.min(Number(opts.queries), headings.length);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const text = `How does ${headings[Math.floor((i * headings.length) / n)]} work?`;
    const q0 = performance.now();
    engine.search({ text }, DEFAULT_MODE, 12000);
    times.push(performance.now() - q0);
  }
  times.sort((a, b) => a - b);
  const s = engine.stats();
  const row = {
    files: corpus.documents.length,
    chars,
    chunks: s.chunks,
    prepareSeconds: round(corpus.seconds, 2),
    buildSeconds: round(buildSeconds, 2),
    concepts: s.concepts,
    edges: s.cooccurrenceEdges,
    edgesPer1kChars: round((1000 * s.cooccurrenceEdges) / chars, 1),
    graphMb: round(graphBytes(engine.graph) / 2 ** 20, 1),
    heapMb: round(heapMb, 0),

    queries: n,
    p50Ms: round(times[Math.floor(0.5 * n)] ?? 0, 2),
    p95Ms: round(times[Math.floor(0.95 * n)] ?? 0, 2),
  };
  rows.push(row);
  process.stdout.write(JSON.stringify(row) + '\n');
}
if (opts.json) await writeFile(opts.json, JSON.stringify({ overrides, rows }, null, 2) + '\n');

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
