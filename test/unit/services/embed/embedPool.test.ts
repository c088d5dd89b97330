// The embedding pool with in-process fake workers: rows in input order across workers and overlapping calls, the
// same output as one embedder, errors and crashes that name the embedder, abort and dispose that stop workers.
import { describe, expect, it } from 'vitest';
import { createEmbedPool, type PoolWorker } from '../../../../src/services/embed/embedPool.ts';
import { EmbedderHolder } from '../../../../src/services/embed/embedders.ts';
import {
  embedWorkerCount,
  MAX_AUTO_EMBED_WORKERS,
  toEmbedderChoice,
  type EmbedderSettings,
} from '../../../../src/services/embed/embedderChoice.ts';
import { createNodeUseEmbedder } from '../../../../src/cli/embedders.ts';
import type { Embedder } from '../../../../src/core/types.ts';

const DIM = 8;
const ID = 'fake-embedder@1';

/** A deterministic unit vector per text (what "the single embedder" gives). */
function vectorOf(text: string): Float32Array {
  const v = new Float32Array(DIM);
  for (let i = 0; i < text.length; i++) v[(i * 7 + text.charCodeAt(i)) % DIM] += text.charCodeAt(i) / 100;
  v[0] += 1; // no zero rows (the empty text)
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function single(texts: string[]): Float32Array {
  const out = new Float32Array(texts.length * DIM);
  texts.forEach((t, i) => out.set(vectorOf(t), i * DIM));
  return out;
}

const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface FakeFleet {
  spawn: () => PoolWorker;
  started: number;
  terminated: number;
  busy: number;
  maxBusy: number;
  /** Texts of every batch, per worker number. */
  batches: Map<number, string[][]>;
  crash: ((reason: string) => void)[];
}

/**
 * Fake workers embedding with vectorOf after a delay that varies by batch, so batches finish out of order.
 * Texts starting with 'FAIL' make the batch reject, 'CRASH' kill the worker, 'HANG' never finish.
 */
function fleet(
  options: { loadError?: (n: number) => string | null; id?: (n: number) => string } = {},
): FakeFleet {
  const f: FakeFleet = {
    started: 0,
    terminated: 0,
    busy: 0,
    maxBusy: 0,
    batches: new Map(),
    crash: [],
    spawn() {
      const n = f.started++;
      let onCrash: (reason: string) => void = () => undefined;
      let dead = false;
      f.batches.set(n, []);
      return {
        async load() {
          await tick(5);
          const err = options.loadError?.(n);
          if (err) throw new Error(err);
          return { id: options.id?.(n) ?? ID, dimension: DIM, backend: 'fake' };
        },
        async embed(texts) {
          if (dead) throw new Error('embed on a terminated fake');
          f.batches.get(n)!.push(texts);
          f.busy++;
          f.maxBusy = Math.max(f.maxBusy, f.busy);
          try {
            await tick(1 + ((texts.length * 13 + n * 5) % 9));
            if (texts.some((t) => t.startsWith('HANG'))) await new Promise(() => undefined);
            if (texts.some((t) => t.startsWith('CRASH'))) {
              onCrash('out of memory');
              await new Promise(() => undefined);
            }
            if (texts.some((t) => t.startsWith('FAIL'))) throw new Error('tensor shape mismatch');
            return single(texts);
          } finally {
            f.busy--;
          }
        },
        terminate() {
          dead = true;
          f.terminated++;
        },
        onCrash(listener) {
          onCrash = listener;
          f.crash.push(listener);
        },
      };
    },
  };
  return f;
}

function sentences(n: number, tag = ''): string[] {
  // Varied lengths and repeats (the pool embeds each distinct text once).
  return Array.from({ length: n }, (_, i) => `${tag}sentence ${i % 97} ${'word '.repeat(i % 13)}`.trim());
}

describe('embed pool', () => {
  it('reports the worker embedder id and dimension and keeps input order across workers', async () => {
    const f = fleet();
    const pool = await createEmbedPool({ size: 3, spawn: f.spawn, name: 'fake', minBatch: 4 });
    try {
      expect([pool.id, pool.dimension, pool.backend, pool.size]).toEqual([ID, DIM, 'fake', 3]);
      const texts = sentences(300);
      texts.push('', '', 'sentence 3');
      const rows = await pool.embed(texts);
      expect(rows).toEqual(single(texts));
      expect(f.started).toBe(3);
      expect(f.maxBusy).toBe(3);
      // Each distinct text went to exactly one worker.
      const sent = [...f.batches.values()].flat(2);
      expect(sent.length).toBe(new Set(texts).size);
      expect(new Set(sent).size).toBe(sent.length);
    } finally {
      await pool.dispose();
    }
  });

  it('answers overlapping calls each with its own rows, in order', async () => {
    const f = fleet();
    const pool = await createEmbedPool({ size: 2, spawn: f.spawn, name: 'fake', minBatch: 8 });
    try {
      const calls = [sentences(128, 'a'), sentences(5, 'b'), sentences(200, 'c'), ['x'], sentences(64, 'a')];
      const results = await Promise.all(calls.map((t) => pool.embed(t)));
      results.forEach((rows, i) => expect(rows).toEqual(single(calls[i])));
      expect(f.started).toBe(2);
      expect(await pool.embed([])).toEqual(new Float32Array(0));
    } finally {
      await pool.dispose();
    }
  });

  it('gives the same vectors as the single USE-lite embedder (two pool workers sharing one model)', async () => {
    const use = await createNodeUseEmbedder();
    const inProcess = (): PoolWorker => ({
      load: async () => ({ id: use.id, dimension: use.dimension }),
      embed: (texts) => use.embed(texts),
      terminate: () => undefined,
      onCrash: () => undefined,
    });
    const pool = await createEmbedPool({ size: 2, spawn: inProcess, name: 'use', minBatch: 3 });
    try {
      const texts = [
        'A kitten is a young cat.',
        'Stock markets fell sharply on Monday after the central bank raised interest rates.',
        '',
        'Paris',
        'The cathedral was completed in 1345, nearly two centuries after construction began.',
        'A kitten is a young cat.',
        'x',
        'Photosynthesis converts light energy into chemical energy stored in glucose.',
      ];
      const a = await use.embed(texts);
      const b = await pool.embed(texts);
      expect([pool.id, pool.dimension]).toEqual(['use-lite@1', 512]);
      expect(b.length).toBe(a.length);
      let maxDiff = 0;
      for (let i = 0; i < a.length; i++) maxDiff = Math.max(maxDiff, Math.abs(a[i] - b[i]));
      expect(maxDiff).toBeLessThan(1e-5);
    } finally {
      await pool.dispose();
      await use.dispose?.();
    }
  }, 60_000);

  it('fails a call whose batch fails, naming the embedder, and goes on serving other calls', async () => {
    const f = fleet();
    const pool = await createEmbedPool({ size: 2, spawn: f.spawn, name: 'fake', minBatch: 4 });
    try {
      const bad = pool.embed([...sentences(20), 'FAIL here']);
      const good = pool.embed(sentences(30, 'g'));
      await expect(bad).rejects.toThrow(
        /^embed pool: fake-embedder@1 failed on a batch of \d+ texts: tensor shape mismatch$/,
      );
      expect(await good).toEqual(single(sentences(30, 'g')));
      expect(await pool.embed(['after'])).toEqual(single(['after']));
      expect(f.terminated).toBe(0);
    } finally {
      await pool.dispose();
    }
  });

  it('fails the batch of a crashed worker with a clear error and starts a new worker for later calls', async () => {
    const f = fleet();
    const pool = await createEmbedPool({ size: 2, spawn: f.spawn, name: 'fake', minBatch: 4 });
    try {
      await expect(pool.embed(['CRASH now', ...sentences(10)])).rejects.toThrow(
        /^embed pool: a worker running fake-embedder@1 crashed \(out of memory\); its batch of \d+ texts was not embedded$/,
      );
      const startedBefore = f.started;
      expect(f.terminated).toBeGreaterThanOrEqual(1);
      const texts = sentences(100, 'later');
      expect(await pool.embed(texts)).toEqual(single(texts));
      // The crashed worker's place was taken by a new one.
      expect(f.started).toBe(startedBefore + 1);
      expect(pool.liveWorkers).toBe(2);
    } finally {
      await pool.dispose();
    }
  });

  it('aborts: a fired signal rejects with an AbortError and stops the workers busy with that call', async () => {
    const f = fleet();
    const pool = await createEmbedPool({ size: 2, spawn: f.spawn, name: 'fake', minBatch: 4 });
    try {
      const pre = new AbortController();
      pre.abort();
      await expect(pool.embed(['a'], pre.signal)).rejects.toMatchObject({ name: 'AbortError' });

      const ac = new AbortController();
      const other = pool.embed(sentences(12, 'o'));
      const hanging = pool.embed(['HANG forever', ...sentences(40)], ac.signal);
      // Abort once a worker holds the hanging batch (a fixed wait missed it at load 50: nothing was terminated).
      while (![...f.batches.values()].some((bs) => bs.some((b) => b.includes('HANG forever')))) await tick(5);
      ac.abort();
      await expect(hanging).rejects.toMatchObject({ name: 'AbortError', message: 'embed pool: cancelled' });
      expect(f.terminated).toBeGreaterThanOrEqual(1);
      // The other call is not affected, and the pool still works afterwards.
      expect(await other).toEqual(single(sentences(12, 'o')));
      expect(await pool.embed(sentences(50, 'n'))).toEqual(single(sentences(50, 'n')));
    } finally {
      await pool.dispose();
    }
  });

  it('dispose terminates every worker and rejects calls in progress and later ones', async () => {
    const f = fleet();
    const pool = await createEmbedPool({ size: 3, spawn: f.spawn, name: 'fake', minBatch: 4 });
    const running = pool.embed(['HANG', ...sentences(60)]);
    await tick(20);
    await pool.dispose();
    await expect(running).rejects.toThrow(/^embed pool: disposed while embedding with fake-embedder@1$/);
    expect(f.terminated).toBe(f.started);
    await expect(pool.embed(['a'])).rejects.toThrow(/after dispose/);
  });

  it('fails to start when the first worker cannot load, naming the embedder, and stops that worker', async () => {
    const f = fleet({ loadError: () => 'model.json: HTTP 404' });
    await expect(createEmbedPool({ size: 2, spawn: f.spawn, name: 'use' })).rejects.toThrow(
      /^embed pool: a worker could not load use: model.json: HTTP 404$/,
    );
    expect([f.started, f.terminated]).toEqual([1, 1]);
    await expect(createEmbedPool({ size: 0, spawn: f.spawn, name: 'use' })).rejects.toThrow(/size/);
  });

  it('goes on with fewer workers when a later one cannot load or loads another embedder', async () => {
    const f = fleet({
      loadError: (n) => (n === 1 ? 'out of memory' : null),
      id: (n) => (n === 2 ? 'other' : ID),
    });
    const pool = await createEmbedPool({ size: 3, spawn: f.spawn, name: 'fake', minBatch: 4 });
    try {
      const texts = sentences(200);
      expect(await pool.embed(texts)).toEqual(single(texts));
      expect(pool.liveWorkers).toBe(1);
      expect(f.terminated).toBe(2);
    } finally {
      await pool.dispose();
    }
  });
});

describe('embedding worker count and backend setting', () => {
  it('is cores − 1 by default, at least 1 and at most the cap; the setting or use:<n> wins; endpoints get 1', () => {
    const use: EmbedderSettings = { spec: 'use' };
    expect(embedWorkerCount(use, 2)).toBe(1);
    expect(embedWorkerCount(use, 1)).toBe(1);
    expect(embedWorkerCount(use, undefined)).toBe(1);
    expect(embedWorkerCount(use, 4)).toBe(3);
    expect(embedWorkerCount(use, 64)).toBe(MAX_AUTO_EMBED_WORKERS);
    expect(embedWorkerCount({ spec: 'use', workers: 3 }, 2)).toBe(3);
    expect(embedWorkerCount({ spec: 'use:2' }, 8)).toBe(2);
    expect(embedWorkerCount({ spec: 'hf:/models/tiny' }, 4)).toBe(3);
    expect(embedWorkerCount({ spec: 'openai:http://h/v1#m', workers: 4 }, 8)).toBe(1);
  });

  it('keeps valid workers and backend fields of the stored setting and drops invalid ones', () => {
    expect(toEmbedderChoice({ spec: 'use', workers: 3, backend: 'webgl' })).toEqual({
      spec: 'use',
      workers: 3,
      backend: 'webgl',
    });
    expect(toEmbedderChoice({ spec: 'use', workers: 0, backend: 'cuda' })).toEqual({ spec: 'use' });
    expect(toEmbedderChoice({ spec: 'use', workers: 1.5 })).toEqual({ spec: 'use' });
    expect(toEmbedderChoice({ kind: 'use' })).toEqual({ spec: 'use' });
    expect(toEmbedderChoice(undefined)).toEqual({ spec: 'use' });
  });
});

describe('EmbedderHolder with an embedding worker factory', () => {
  it('runs a local embedder on a pool of the chosen size, started with the choice, and reuses it', async () => {
    const f = fleet();
    const asked: EmbedderSettings[] = [];
    const holder = new EmbedderHolder({
      cores: 4,
      spawnEmbedWorker: (choice) => {
        asked.push(choice);
        return f.spawn();
      },
    });
    try {
      const pool: Embedder = await holder.get({ spec: 'use', backend: 'wasm' });
      expect(pool.id).toBe(ID);
      expect((pool as { size?: number }).size).toBe(3);
      expect(asked[0]).toEqual({ spec: 'use', backend: 'wasm' });
      expect(await holder.get({ spec: 'use', backend: 'wasm' })).toBe(pool);
      // Another backend is another pool; the old one's workers are stopped.
      const other = await holder.get({ spec: 'use', backend: 'webgl', workers: 2 });
      expect(other).not.toBe(pool);
      expect((other as { size?: number }).size).toBe(2);
      expect(f.terminated).toBe(1);
    } finally {
      await holder.dispose();
    }
    expect(f.terminated).toBe(f.started);
  });
});
