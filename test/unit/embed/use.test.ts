// USE-lite in Node through createNodeUseEmbedder: real model files from node_modules, WASM backend.
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeUseEmbedder } from '../../../src/cli/embedders.ts';
import { dot } from '../../../src/core/embed/vectors.ts';
import type { Embedder } from '../../../src/core/types.ts';

const DIM = 512;
let use: Embedder;

beforeAll(async () => {
  use = await createNodeUseEmbedder({ batchSize: 3 });
}, 60_000);
afterAll(async () => {
  await use.dispose?.();
});

function row(m: Float32Array, i: number): Float32Array {
  return m.subarray(i * DIM, (i + 1) * DIM);
}

describe('USE-lite embedder (Node, WASM)', () => {
  it('returns one unit-length 512-d row per text, across internal batches, empty text included', async () => {
    const texts = [
      'The cat sat on the mat.',
      'A kitten is a young cat.',
      '',
      'Stock markets fell sharply.',
      '  ',
    ];
    const m = await use.embed(texts);
    expect(use.id).toBe('use-lite@1');
    expect(use.dimension).toBe(DIM);
    expect(m.length).toBe(texts.length * DIM);
    for (let i = 0; i < texts.length; i++) expect(dot(row(m, i), row(m, i))).toBeCloseTo(1, 4);
  });

  it('puts related sentences closer than unrelated ones', async () => {
    const m = await use.embed(['cat', 'kitten', 'car insurance', 'quarterly earnings report']);
    const catKitten = dot(row(m, 0), row(m, 1));
    expect(catKitten).toBeGreaterThan(dot(row(m, 0), row(m, 2)) + 0.2);
    expect(catKitten).toBeGreaterThan(dot(row(m, 0), row(m, 3)) + 0.2);
  });

  it('gives the same vector for the same text, alone or inside a batch', async () => {
    const alone = await use.embed(['Paris is the capital of France.']);
    const inBatch = await use.embed(['Something else entirely.', 'Paris is the capital of France.']);
    for (let j = 0; j < DIM; j++) expect(inBatch[DIM + j]).toBeCloseTo(alone[j], 4);
  });

  it('frees every tensor it creates (no growth over calls)', async () => {
    await use.embed(['warm the model up']);
    const before = tf.memory().numTensors;
    expect(before).toBeGreaterThan(0); // the model's weights: proves this is the engine the embedder uses
    await use.embed(['one sentence', 'and another one', 'and a third, longer than the others', 'four']);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('stops between batches when the signal fires', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(use.embed(['a', 'b', 'c', 'd'], ac.signal)).rejects.toMatchObject({ name: 'AbortError' });
    // The embedder is still usable afterwards.
    expect((await use.embed(['still works'])).length).toBe(DIM);
  });
});
