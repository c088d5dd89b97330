// Measures voy-search (WASM k-d tree) against the engine's brute-force Float32 dense search on the same chunk
// vectors and questions, for the README's "voy vs brute force" choice. voy ships as a wasm-pack bundler build, so
// in Node its .wasm is instantiated by hand against its JS glue.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DenseIndex } from '../core/retrieval/index.ts';

type VoyGlue = typeof import('voy-search') & { __wbg_set_wasm(exports: unknown): void };

async function loadVoy(): Promise<VoyGlue> {
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('voy-search/package.json'));
  const glue = (await import(join(dir, 'voy_search_bg.js'))) as VoyGlue;
  const bytes = await readFile(join(dir, 'voy_search_bg.wasm'));
  const { instance } = await WebAssembly.instantiate(bytes, {
    './voy_search_bg.js': glue as unknown as WebAssembly.ModuleImports,
  });
  glue.__wbg_set_wasm(instance.exports);
  return glue;
}

export interface VoyComparison {
  rows: number;
  voyBuildMs: number;
  voyMs: { p50: number; p95: number };
  bruteMs: { p50: number; p95: number };
  /** Mean overlap of voy's top-k with brute force's top-k (1 = same sets). */
  agreement: number;
}

export async function compareVoy(
  vectors: Float32Array,
  dim: number,
  queries: Float32Array,
  k = 20,
): Promise<VoyComparison> {
  const voy = await loadVoy();
  const rows = vectors.length / dim;
  let t = performance.now();
  const index = new voy.Voy({
    embeddings: Array.from({ length: rows }, (_, r) => ({
      id: String(r),
      title: '',
      url: '',
      embeddings: Array.from(vectors.subarray(r * dim, (r + 1) * dim)),
    })),
  });
  const voyBuildMs = performance.now() - t;
  const brute = new DenseIndex(vectors, dim);
  const nq = queries.length / dim;
  const voyTimes: number[] = [];
  const bruteTimes: number[] = [];
  let overlap = 0;
  for (let q = 0; q < nq; q++) {
    const query = queries.subarray(q * dim, (q + 1) * dim);
    t = performance.now();
    const found = index.search(query, k).neighbors.map((n) => Number(n.id));
    voyTimes.push(performance.now() - t);
    t = performance.now();
    const exact = brute.search(query, k).map((c) => c.chunk);
    bruteTimes.push(performance.now() - t);
    const set = new Set(exact);
    overlap += found.filter((r) => set.has(r)).length / Math.max(1, exact.length);
  }
  index.free();
  return {
    rows,
    voyBuildMs,
    voyMs: stats(voyTimes),
    bruteMs: stats(bruteTimes),
    agreement: overlap / Math.max(1, nq),
  };
}

function stats(times: number[]): { p50: number; p95: number } {
  const s = [...times].sort((a, b) => a - b);
  const at = (p: number): number =>
    Math.round(100 * (s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0)) / 100;
  return { p50: at(0.5), p95: at(0.95) };
}
