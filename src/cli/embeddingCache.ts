// Disk cache of sentence embeddings for the CLI and benchmarks (Node only): re-running a benchmark re-embeds
// nothing. One append-only file per embedder, `<dir>/<safe id>.<id hash>.bin`:
//   header: 8 bytes magic "CRAGEMB1", uint32 LE dimension, uint32 LE 0 (reserved)
//   records: 32-byte SHA-256 of (embedder id + "\0" + text), then `dimension` float32 LE
// The whole file is read into a Map at first use (70k × 512-d ≈ 145 MB loads in well under a second); misses
// are embedded in one call and appended. A torn last record (a crash mid-append) is cut off on load.

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, truncate, writeFile } from 'node:fs/promises';
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
  file: string;
  dimension: number;
  vectors: Map<string, Float32Array>;
}

async function loadCache(file: string, expectedDim: number): Promise<CacheState> {
  const vectors = new Map<string, Float32Array>();
  if (!existsSync(file)) return { file, dimension: expectedDim, vectors };
  const buf = await readFile(file);
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
export interface CacheStats {
  hits: number;
  misses: number;
}

/**
 * Wraps `embedder` so every text is looked up on disk first (key: SHA-256 of embedder id + text) and only misses
 * are embedded (then appended). Same id, dimension and row layout as the wrapped embedder.
 */
export function cachedEmbedder(
  embedder: Embedder,
  dir = '.cache/embeddings',
): Embedder & { readonly stats: CacheStats } {
  const file = join(dir, cacheFileName(embedder.id));
  let state: Promise<CacheState> | undefined;
  const stats: CacheStats = { hits: 0, misses: 0 };
  // Appends are chained so two concurrent embed() calls never interleave bytes in the file.
  let writes: Promise<void> = Promise.resolve();

  let loadedDimension = 0;

  async function embed(texts: string[], signal?: AbortSignal): Promise<Float32Array> {
    state ??= loadCache(file, embedder.dimension);
    const cache = await state;
    loadedDimension = cache.dimension;
    const keys = texts.map((t) => keyOf(embedder.id, t));
    const missIdx: number[] = [];
    const seenMiss = new Set<string>();
    keys.forEach((k, i) => {
      const s = k.toString('base64');
      if (!cache.vectors.has(s) && !seenMiss.has(s)) {
        seenMiss.add(s);
        missIdx.push(i);
      }
    });
    if (missIdx.length > 0) {
      const fresh = await embedder.embed(
        missIdx.map((i) => texts[i]),
        signal,
      );
      if (cache.dimension === 0) cache.dimension = embedder.dimension || fresh.length / missIdx.length;
      loadedDimension = cache.dimension;
      const dim = cache.dimension;
      if (fresh.length !== missIdx.length * dim) {
        throw new Error(
          `embedding cache: ${embedder.id} returned ${fresh.length} floats for ${missIdx.length} texts`,
        );
      }
      const out = Buffer.alloc(missIdx.length * (KEY_BYTES + 4 * dim));
      missIdx.forEach((textIdx, m) => {
        const row = fresh.slice(m * dim, (m + 1) * dim);
        cache.vectors.set(keys[textIdx].toString('base64'), row);
        const off = m * (KEY_BYTES + 4 * dim);
        keys[textIdx].copy(out, off);
        if (LITTLE_ENDIAN)
          out.set(new Uint8Array(row.buffer, row.byteOffset, row.byteLength), off + KEY_BYTES);
        else for (let j = 0; j < dim; j++) out.writeFloatLE(row[j], off + KEY_BYTES + 4 * j);
      });
      writes = writes.then(async () => {
        await mkdir(dir, { recursive: true });
        if (!existsSync(file)) {
          const header = Buffer.alloc(HEADER_BYTES);
          header.write(MAGIC, 0, 'latin1');
          header.writeUInt32LE(dim, 8);
          // Exclusive create: a second process that got there first keeps its file (and records) intact.
          await writeFile(file, header, { flag: 'wx' }).catch((e: NodeJS.ErrnoException) => {
            if (e.code !== 'EEXIST') throw e;
          });
        }
        await appendFile(file, out);
      });
      await writes;
    }
    stats.misses += missIdx.length;
    stats.hits += texts.length - missIdx.length;
    const dim = cache.dimension;
    const result = new Float32Array(texts.length * dim);
    keys.forEach((k, i) => result.set(cache.vectors.get(k.toString('base64')) as Float32Array, i * dim));
    return result;
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
    async dispose() {
      await writes;
      await embedder.dispose?.();
    },
  };
}
