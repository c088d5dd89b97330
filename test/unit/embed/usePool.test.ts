// USE-lite on worker threads gives the same vectors, in input order, as the single-thread embedder.
import { describe, expect, it } from 'vitest';
import { createEmbedderFromSpec, createNodeUseEmbedderPool } from '../../../src/cli/embedders.ts';

describe('USE-lite worker-thread pool', () => {
  it('matches the single-thread embedder row by row, with repeats and empty texts', async () => {
    const texts = [
      'A kitten is a young cat.',
      'x',
      '',
      'Stock markets fell sharply on Monday.',
      'x',
      'Paris',
    ];
    const one = await createEmbedderFromSpec('use');
    const pool = await createEmbedderFromSpec('use:2');
    try {
      expect([pool.id, pool.dimension]).toEqual(['use-lite@1', 512]);
      const a = await one.embed(texts);
      const b = await pool.embed(texts);
      expect(b.length).toBe(a.length);
      let maxDiff = 0;
      for (let i = 0; i < a.length; i++) maxDiff = Math.max(maxDiff, Math.abs(a[i] - b[i]));
      expect(maxDiff).toBeLessThan(1e-5);
      const ac = new AbortController();
      ac.abort();
      await expect(pool.embed(['a'], ac.signal)).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      await one.dispose?.();
      await pool.dispose?.();
    }
  }, 60_000);

  it('rejects a bad worker count', async () => {
    await expect(createNodeUseEmbedderPool(0)).rejects.toThrow(/whole number of workers ≥ 1, got 0/);
    await expect(createEmbedderFromSpec('use:two')).rejects.toThrow(/whole number ≥ 1, got 'two'/);
  });
});
