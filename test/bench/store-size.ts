// What a library costs in IndexedDB, per MB of document text, in the schema v1 form (chunk and sentence text
// stored beside the document text, Float32 sentence vectors, the whole serialized concept graph) and the v2 form
// this app writes (text once, int8 vectors with a per-row scale, the graph as its θsem keep-mask), table by table.
// v2 is measured on what the real store code writes (Repo over fake-indexeddb, the graph rebuilt as the ingest
// pipeline does); v1 from the same library in v1's record form. A record's size is its V8 structured-clone
// serialization (what Chromium's IndexedDB stores as the value) plus its key and one entry per index (key +
// primary key, UTF-16 as IndexedDB encodes string keys). LevelDB's compression, and the space v1 wasted by
// rewriting the whole graph every 60 s until compaction, are not counted.
// Sentence vectors are random unit vectors of --dim dimensions: sizes do not depend on the values.
// Usage: node --import tsx test/bench/store-size.ts [--corpus path ...] [--dim 512] [--json out.json]
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { serialize } from 'node:v8';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { prepareCorpus } from '../../src/cli/benchData.ts';
import type { SerializedGraph } from '../../src/core/graph/conceptGraph.ts';
import { buildEngine } from '../../src/services/library/engine.ts';
import { rebuildConceptGraph } from '../support/fullGraphBuild.ts';
import { openDatabase, SCHEMA_V1, SCHEMA_V2 } from '../../src/store/db.ts';
import { Repo } from '../../src/store/repo.ts';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name: string, fallback: string): string =>
  args.includes(name) ? args[args.indexOf(name) + 1] : fallback;
const all = (name: string): string[] => args.flatMap((a, i) => (args[i - 1] === name ? [a] : []));
const bench = resolve(here, '..', '..', '..', 'shared', 'bench');
const corpora = all('--corpus').length
  ? all('--corpus')
  : [resolve(bench, 'musique', 'corpus.jsonl'), resolve(bench, 'vuedocs', 'docs')];
const dim = Number(option('--dim', '512'));
const jsonOut = args.includes('--json') ? option('--json', '') : null;

/** Bytes of an IndexedDB key as Chromium encodes it (strings UTF-16, numbers 8 bytes, plus a type byte). */
function keyBytes(key: unknown): number {
  if (typeof key === 'string') return 1 + 4 + key.length * 2;
  if (typeof key === 'number') return 9;
  if (Array.isArray(key)) return 5 + key.reduce((n: number, k) => n + keyBytes(k), 0);
  return 9;
}

/** Value + primary key + one entry per index of the table's declaration (multi-entry: one per element). */
function recordBytes(record: Record<string, unknown>, declaration: string): number {
  const [primary, ...indexes] = declaration.split(',').map((s) => s.trim());
  const pk = keyBytes(record[primary]);
  let bytes = serialize(record).byteLength + pk;
  for (const index of indexes) {
    const multi = index.startsWith('*');
    const value = record[index.replace(/^[&*]/, '')];
    if (value === undefined) continue;
    const keys = multi && Array.isArray(value) ? value : [value];
    for (const k of keys) bytes += keyBytes(k) + pk;
  }
  return bytes;
}

function tableBytes(records: readonly object[], declaration: string): number {
  return records.reduce((n: number, r) => n + recordBytes(r as Record<string, unknown>, declaration), 0);
}

function randomUnitRows(rows: number, seed: number): Float32Array {
  const out = new Float32Array(rows * dim);
  let x = seed | 1;
  for (let r = 0; r < rows; r++) {
    let norm = 0;
    for (let i = 0; i < dim; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      const v = ((x >>> 0) / 0x100000000) * 2 - 1;
      out[r * dim + i] = v;
      norm += v * v;
    }
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < dim; i++) out[r * dim + i] *= inv;
  }
  return out;
}

interface Measured {
  corpus: string;
  textMB: number;
  documents: number;
  sentences: number;
  v1: Record<string, number>;
  v2: Record<string, number>;
}

async function measure(path: string): Promise<Measured> {
  const prepared = await prepareCorpus(path, 1200);
  const docs = prepared.documents;
  const textBytes = docs.reduce((n, d) => n + Buffer.byteLength(d.doc.text), 0);
  const vectors = new Map(docs.map((d, i) => [d.doc.id, randomUnitRows(d.sentences.length, i + 1)]));

  // v2: what the store code writes — documents first (lexical), then vectors, then the graph rebuild.
  const db = openDatabase('store-size', { indexedDB: new IDBFactory(), IDBKeyRange });
  const repo = new Repo(db);
  for (let i = 0; i < docs.length; i += 256) {
    await repo.putPreparedDocuments(docs.slice(i, i + 256).map((prepared) => ({ prepared })));
  }
  for (let i = 0; i < docs.length; i += 256) {
    const slice = docs.slice(i, i + 256);
    await repo.putDocumentVectors(
      slice.map((d) => ({ docId: d.doc.id, vectors: vectors.get(d.doc.id)! })),
      `random-${dim}`,
    );
  }
  await rebuildConceptGraph(repo, new AbortController().signal);
  const v2: Record<string, number> = {};
  for (const [name, declaration] of Object.entries(SCHEMA_V2)) {
    if (name === 'pending' || name === 'settings') continue;
    v2[name] = tableBytes(await db.table(name).toArray(), declaration);
  }

  // v1: the same library in v1's record form (texts kept, Float32 rows, the whole serialized graph).
  const corpus = await repo.loadCorpus();
  const fullGraph: SerializedGraph = buildEngine({ ...corpus, graph: undefined }).exportGraph();
  const v1Tables: Record<string, object[]> = {
    documents: corpus.documents,
    sections: corpus.sections,
    chunks: corpus.chunks,
    sentences: corpus.sentences,
    vectors: docs.map((d) => ({
      docId: d.doc.id,
      embedderId: `random-${dim}`,
      dimension: dim,
      count: d.sentences.length,
      data: vectors.get(d.doc.id)!.slice().buffer,
    })),
    meta: [{ ...(await db.meta.get('index')), schemaVersion: 1 }],
    graph: [{ id: 'concept', builtAt: 0, graph: fullGraph }],
  };
  const v1: Record<string, number> = {};
  for (const [name, declaration] of Object.entries(SCHEMA_V1)) {
    if (name === 'pending' || name === 'settings') continue;
    v1[name] = tableBytes(v1Tables[name] ?? [], declaration);
  }
  db.close();
  return {
    corpus: path,
    textMB: textBytes / 1e6,
    documents: docs.length,
    sentences: corpus.sentences.length,
    v1,
    v2,
  };
}

const total = (t: Record<string, number>): number => Object.values(t).reduce((a, b) => a + b, 0);
const results: Measured[] = [];
for (const path of corpora) {
  const started = performance.now();
  const m = await measure(path);
  results.push(m);
  const perMB = (bytes: number): string => (bytes / 1e6 / m.textMB).toFixed(2).padStart(9);
  console.log(
    `\n${path}: ${m.documents} documents, ${m.sentences} sentences, ${m.textMB.toFixed(2)} MB of text, ` +
      `${dim}-d vectors (${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
  console.log('table        v1 MB/textMB  v2 MB/textMB');
  for (const name of Object.keys(m.v1)) {
    console.log(`${name.padEnd(12)} ${perMB(m.v1[name])}     ${perMB(m.v2[name] ?? 0)}`);
  }
  console.log(`${'total'.padEnd(12)} ${perMB(total(m.v1))}     ${perMB(total(m.v2))}`);
  console.log(
    `total MB: v1 ${(total(m.v1) / 1e6).toFixed(1)}, v2 ${(total(m.v2) / 1e6).toFixed(1)} ` +
      `(${(total(m.v1) / total(m.v2)).toFixed(1)}× smaller)`,
  );
}
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ dim, results }, null, 2));
