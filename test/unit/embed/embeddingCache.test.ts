// Disk embedding cache: hits skip the embedder, misses are appended, a torn tail is cut, a wrong file refused.
import { mkdtempSync, readFileSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheFileName, cachedEmbedder } from '../../../src/cli/embeddingCache.ts';
import type { Embedder } from '../../../src/core/types.ts';

/** 2-d fake embedder: row = [length, 1] normalized; records every text it was asked for. */
function fakeEmbedder(id = 'fake@1'): Embedder & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    id,
    dimension: 2,
    calls,
    async embed(texts: string[]) {
      calls.push([...texts]);
      const out = new Float32Array(texts.length * 2);
      texts.forEach((t, i) => {
        const n = Math.hypot(t.length, 1);
        out[2 * i] = t.length / n;
        out[2 * i + 1] = 1 / n;
      });
      return out;
    },
  };
}

describe('cachedEmbedder', () => {
  it('embeds only misses, once each, and serves repeats from memory and from disk after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'embcache-'));
    const inner = fakeEmbedder();
    const c1 = cachedEmbedder(inner, dir);
    const a = await c1.embed(['ab', 'abc', 'ab']);
    expect(inner.calls).toEqual([['ab', 'abc']]);
    const b = await c1.embed(['abc', 'abcd']);
    expect(inner.calls).toEqual([['ab', 'abc'], ['abcd']]);
    expect(Array.from(b.subarray(0, 2))).toEqual(Array.from(a.subarray(2, 4)));
    expect(c1.stats).toEqual({ hits: 2, misses: 3 });
    await c1.dispose?.();
    // header 16 + 3 records × (32 + 2 × 4)
    const file = join(dir, cacheFileName('fake@1'));
    expect(statSync(file).size).toBe(16 + 3 * 40);

    const inner2 = fakeEmbedder();
    const c2 = cachedEmbedder(inner2, dir);
    const again = await c2.embed(['abcd', 'ab']);
    expect(inner2.calls).toEqual([]);
    expect(again[0]).toBeCloseTo(4 / Math.hypot(4, 1), 6);
    expect(again[2]).toBeCloseTo(2 / Math.hypot(2, 1), 6);
  });

  it('keys by embedder id: another embedder gets its own file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'embcache-'));
    await cachedEmbedder(fakeEmbedder('one'), dir).embed(['x']);
    const other = fakeEmbedder('two');
    await cachedEmbedder(other, dir).embed(['x']);
    expect(other.calls).toEqual([['x']]);
    expect(cacheFileName('one')).not.toBe(cacheFileName('two'));
  });

  it('cuts a torn last record and keeps the whole ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'embcache-'));
    await cachedEmbedder(fakeEmbedder(), dir).embed(['a', 'bb']);
    const file = join(dir, cacheFileName('fake@1'));
    appendFileSync(file, Buffer.alloc(17, 7));
    const inner = fakeEmbedder();
    await cachedEmbedder(inner, dir).embed(['a', 'bb', 'ccc']);
    expect(inner.calls).toEqual([['ccc']]);
    expect(statSync(file).size).toBe(16 + 3 * 40);
  });

  it('refuses a file that is not a cache, or of another dimension, naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'embcache-'));
    const file = join(dir, cacheFileName('fake@1'));
    writeFileSync(file, 'not a cache at all');
    await expect(cachedEmbedder(fakeEmbedder(), dir).embed(['a'])).rejects.toThrow(/bad header/);
    const header = Buffer.alloc(16);
    header.write('CRAGEMB1', 0, 'latin1');
    header.writeUInt32LE(3, 8);
    writeFileSync(file, header);
    await expect(cachedEmbedder(fakeEmbedder(), dir).embed(['a'])).rejects.toThrow(
      /holds 3-d vectors.*gives 2-d/,
    );
    expect(readFileSync(file).length).toBe(16);
  });
});
