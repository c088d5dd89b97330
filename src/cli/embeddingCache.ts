// Disk cache of sentence embeddings for the CLI and benchmarks (Node only): re-running a benchmark re-embeds
// nothing. One append-only file per embedder, `<dir>/<safe id>.<id hash>.bin`:
//   header: 8 bytes magic "CRAGEMB1", uint32 LE dimension, uint32 LE 0 (reserved)
//   records: 32-byte SHA-256 of (embedder id + "\0" + text), then `dimension` float32 LE
// The whole file is read into a Map at first use (70k × 512-d ≈ 145 MB loads in well under a second); misses
// are embedded in one call and appended. A torn last record (a crash mid-append) is cut off on load.
// `fill` is the bulk path for an endpoint (cli index --embedder openai:…): the misses of a whole corpus go out in
// batches, several at once, and each batch is appended the moment it arrives, so a killed run loses only the
// batches in flight and the same command run again asks only for what is missing.

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, truncate, unlink, writeFile } from 'node:fs/promises';
import { endianness } from 'node:os';
import { join } from 'node:path';
import type { Embedder } from '../core/types.ts';

const MAGIC = 'CRAGEMB1';
const HEADER_BYTES = 16;
const KEY_BYTES = 32;
// The file is little-endian; on such hosts whole rows are copied as bytes instead of float by float.
const LITTLE_ENDIAN = endianness() === 'LE';

/** File name for an embedder id: readable prefix plus a hash so distinct ids never share a file. */
export function cacheFileName(embedderId: string): string {
  const safe = embedderId.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60);
  const hash = createHash('sha256').update(embedderId).digest('hex').slice(0, 10);
  return `${safe}.${hash}.bin`;
}

function keyOf(embedderId: string, text: string): Buffer {
  return createHash('sha256').update(embedderId).update('\0').update(text).digest();
}

interface CacheState {
  /** null: kept in memory only (--no-cache). */
  file: string | null;
  dimension: number;
  vectors: Map<string, Float32Array>;
}

async function loadCache(file: string | null, expectedDim: number): Promise<CacheState> {
  const vectors = new Map<string, Float32Array>();
  if (file === null || !existsSync(file)) return { file, dimension: expectedDim, vectors };
  const buf = await readFile(file);
  // Killed while the 16-byte header was being written: nothing was stored yet, start the file again.
  if (buf.length < HEADER_BYTES && Buffer.from(MAGIC, 'latin1').subarray(0, buf.length).equals(buf)) {
    await unlink(file);
    return { file, dimension: expectedDim, vectors };
  }
  if (buf.length < HEADER_BYTES || buf.toString('latin1', 0, 8) !== MAGIC) {
    throw new Error(
      `embedding cache: ${file} is not an embedding cache file (bad header); delete it to rebuild`,
    );
  }
  const dimension = buf.readUInt32LE(8);
  if (expectedDim > 0 && dimension !== expectedDim) {
    throw new Error(
      `embedding cache: ${file} holds ${dimension}-d vectors but the embedder gives ${expectedDim}-d; delete it`,
    );
  }
  const recordBytes = KEY_BYTES + 4 * dimension;
  const records = Math.floor((buf.length - HEADER_BYTES) / recordBytes);
  // One aligned copy of all floats (the file buffer's offsets are not 4-byte aligned for Float32Array views).
  const floats = new Float32Array(records * dimension);
  const floatBytes = new Uint8Array(floats.buffer);
  for (let r = 0; r < records; r++) {
    const off = HEADER_BYTES + r * recordBytes;
    const row = floats.subarray(r * dimension, (r + 1) * dimension);
    if (LITTLE_ENDIAN) {
      floatBytes.set(buf.subarray(off + KEY_BYTES, off + recordBytes), r * dimension * 4);
    } else {
      for (let j = 0; j < dimension; j++) row[j] = buf.readFloatLE(off + KEY_BYTES + 4 * j);
    }
    vectors.set(buf.toString('base64', off, off + KEY_BYTES), row);
  }
  const whole = HEADER_BYTES + records * recordBytes;
  if (whole !== buf.length) await truncate(file, whole);
  return { file, dimension, vectors };
}

/** Statistics of a cached embedder since it was created. */
interface CacheStats {
  hits: number;
  misses: number;
}

/** How `fill` sends a corpus's misses to the embedder. */
interface FillOptions {
  /** Embedder calls in flight at most (each call is one request to an endpoint). */
  concurrency: number;
  /** Texts per call. */
  batchSize: number;
  signal?: AbortSignal;
  /**
   * A gentler stop than `signal`: once it fires no new call starts, the calls in flight finish and are stored, and
   * fill throws a FillStoppedError. Nothing the service computed is thrown away (Ctrl-C in cli index).
   */
  stop?: AbortSignal;
  /** Called after every stored batch (and once before the first); the caller throttles what it prints. */
  onProgress?: (progress: FillProgress) => void;
}

/** Where a fill stands: distinct texts asked for, how many were cached before it began, how many it embedded. */
export interface FillProgress {
  total: number;
  cached: number;
  embedded: number;
  /** Since the fill began. */
  seconds: number;
}

/** A fill ended by its `stop` signal: what was stored stays stored, the same fill again embeds the rest. */
export class FillStoppedError extends Error {
  constructor(readonly progress: FillProgress) {
    const left = progress.total - progress.cached - progress.embedded;
    super(
      `embedding stopped: ${progress.embedded} texts embedded and stored, ${left} left; ` +
        `run the same command again to embed only those`,
    );
    this.name = 'FillStoppedError';
  }
}

export interface CachedEmbedder extends Embedder {
  readonly stats: CacheStats;
  /** The distinct texts of `texts` that have no stored vector yet, in first-seen order. */
  missing(texts: string[]): Promise<string[]>;
  /**
   * Embeds every distinct text of `texts` that has no stored vector: `concurrency` calls of `batchSize` texts in
   * flight at most, each call's vectors appended as soon as it returns. On a failure no new call starts, the calls
   * in flight finish (and are stored), and the first error is thrown.
   */
  fill(texts: string[], options: FillOptions): Promise<FillProgress>;
}

/**
 * Wraps `embedder` so every text is looked up on disk first (key: SHA-256 of embedder id + text) and only misses
 * are embedded (then appended). Same id, dimension and row layout as the wrapped embedder. With `dir` null the
 * vectors are kept in memory only (nothing read or written), which still lets `fill` batch and parallelize.
 */
export function cachedEmbedder(embedder: Embedder, dir: string | null = '.cache/embeddings'): CachedEmbedder {
  const file = dir === null ? null : join(dir, cacheFileName(embedder.id));
  let state: Promise<CacheState> | undefined;
  const stats: CacheStats = { hits: 0, misses: 0 };
  // Appends are chained so two concurrent embed() calls never interleave bytes in the file.
  let writes: Promise<void> = Promise.resolve();

  let loadedDimension = 0;

  const load = async (): Promise<CacheState> => {
    state ??= loadCache(file, embedder.dimension);
    const cache = await state;
    loadedDimension = cache.dimension;
    return cache;
  };

  /** Keeps `fresh` (rows for `keys`, in order) in memory and appends them to the file; resolves once written. */
  function store(cache: CacheState, keys: Buffer[], fresh: Float32Array): Promise<void> {
    if (cache.dimension === 0) cache.dimension = embedder.dimension || fresh.length / keys.length;
    loadedDimension = cache.dimension;
    const dim = cache.dimension;
    if (fresh.length !== keys.length * dim) {
      throw new Error(
        `embedding cache: ${embedder.id} returned ${fresh.length} floats for ${keys.length} texts, not ` +
          `${dim}-d vectors` +
          (cache.file && existsSync(cache.file)
            ? `; ${cache.file} holds ${dim}-d vectors: if the model behind this id changed, delete that file`
            : ''),
      );
    }
    const out = Buffer.alloc(keys.length * (KEY_BYTES + 4 * dim));
    keys.forEach((key, m) => {
      const row = fresh.slice(m * dim, (m + 1) * dim);
      cache.vectors.set(key.toString('base64'), row);
      const off = m * (KEY_BYTES + 4 * dim);
      key.copy(out, off);
      if (LITTLE_ENDIAN) out.set(new Uint8Array(row.buffer, row.byteOffset, row.byteLength), off + KEY_BYTES);
      else for (let j = 0; j < dim; j++) out.writeFloatLE(row[j], off + KEY_BYTES + 4 * j);
    });
    const target = cache.file;
    if (target === null || dir === null) return Promise.resolve();
    writes = writes.then(async () => {
      await mkdir(dir, { recursive: true });
      if (!existsSync(target)) {
        const header = Buffer.alloc(HEADER_BYTES);
        header.write(MAGIC, 0, 'latin1');
        header.writeUInt32LE(dim, 8);
        // Exclusive create: a second process that got there first keeps its file (and records) intact.
        await writeFile(target, header, { flag: 'wx' }).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'EEXIST') throw e;
        });
      }
      await appendFile(target, out);
    });
    return writes;
  }

  /** Distinct texts without a stored vector, with their keys, in first-seen order. */
  function missesOf(cache: CacheState, texts: string[]): { texts: string[]; keys: Buffer[] } {
    const misses: { texts: string[]; keys: Buffer[] } = { texts: [], keys: [] };
    const seen = new Set<string>();
    for (const text of texts) {
      const key = keyOf(embedder.id, text);
      const s = key.toString('base64');
      if (cache.vectors.has(s) || seen.has(s)) continue;
      seen.add(s);
      misses.texts.push(text);
      misses.keys.push(key);
    }
    return misses;
  }

  async function embed(texts: string[], signal?: AbortSignal): Promise<Float32Array> {
    const cache = await load();
    const keys = texts.map((t) => keyOf(embedder.id, t));
    const miss = missesOf(cache, texts);
    if (miss.texts.length > 0) {
      const fresh = await embedder.embed(miss.texts, signal);
      await store(cache, miss.keys, fresh);
    }
    stats.misses += miss.texts.length;
    stats.hits += texts.length - miss.texts.length;
    const dim = cache.dimension;
    const result = new Float32Array(texts.length * dim);
    keys.forEach((k, i) => result.set(cache.vectors.get(k.toString('base64')) as Float32Array, i * dim));
    return result;
  }

  async function fill(texts: string[], options: FillOptions): Promise<FillProgress> {
    const { concurrency, batchSize } = options;
    if (!(
      Number.isInteger(concurrency) &&
      concurrency >= 1 &&
      Number.isInteger(batchSize) &&
      batchSize >= 1
    )) {
      throw new Error(
        `embedding cache: concurrency and batch size must be whole numbers ≥ 1, got ${concurrency} and ${batchSize}`,
      );
    }
    const started = performance.now();
    const cache = await load();
    const miss = missesOf(cache, texts);
    const total = new Set(texts).size;
    const progress: FillProgress = { total, cached: total - miss.texts.length, embedded: 0, seconds: 0 };
    const report = (): void => {
      progress.seconds = (performance.now() - started) / 1000;
      options.onProgress?.({ ...progress });
    };
    report();
    let next = 0;
    let failure: { error: unknown } | null = null;
    // A fixed number of lanes, each taking the next batch when its last one is stored: never more than
    // `concurrency` calls in flight, and no lane idles while batches remain.
    const lane = async (): Promise<void> => {
      while (failure === null && !options.stop?.aborted && next < miss.texts.length) {
        const from = next;
        const to = Math.min(miss.texts.length, from + batchSize);
        next = to;
        try {
          const fresh = await embedder.embed(miss.texts.slice(from, to), options.signal);
          await store(cache, miss.keys.slice(from, to), fresh);
        } catch (error) {
          failure ??= { error };
          return;
        }
        progress.embedded += to - from;
        stats.misses += to - from;
        report();
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(concurrency, Math.ceil(miss.texts.length / batchSize)) }, lane),
    );
    if (failure !== null) throw (failure as { error: unknown }).error;
    progress.seconds = (performance.now() - started) / 1000;
    if (progress.cached + progress.embedded < total) throw new FillStoppedError({ ...progress });
    return progress;
  }

  return {
    id: embedder.id,
    // An endpoint embedder reports 0 until its first answer; a run served wholly from the cache never asks it,
    // so the cache file's dimension stands in.
    get dimension() {
      return embedder.dimension || loadedDimension;
    },
    stats,
    embed,
    async missing(texts: string[]): Promise<string[]> {
      return missesOf(await load(), texts).texts;
    },
    fill,
    async dispose() {
      await writes;
      await embedder.dispose?.();
    },
  };
}
