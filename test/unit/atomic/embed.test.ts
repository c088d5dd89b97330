// Embedding the atomic questions: only those without a vector, in batches, each question's own row; an embedder
// that returns the wrong number of floats is refused with its name instead of storing shifted vectors.
import { describe, expect, it } from 'vitest';
import { embedAtomic, MemoryAtomicStore } from '../../../src/core/atomic/index.ts';
import type { Embedder } from '../../../src/core/types.ts';

const spent = { attempts: 1, inputTokens: 0, outputTokens: 0, cost: 0 };

/** Two dimensions: [question length, batch position]; records every batch it was given. */
function lengthEmbedder(batches: string[][], floatsPerText = 2): Embedder {
  return {
    id: 'length',
    dimension: 2,
    async embed(texts) {
      batches.push([...texts]);
      const out = new Float32Array(texts.length * floatsPerText);
      texts.forEach((t, i) => out.set([t.length, i].slice(0, floatsPerText), i * floatsPerText));
      return out;
    },
  };
}

describe('embedAtomic', () => {
  it('embeds each question without a vector once, in batches, with its own row', async () => {
    const store = new MemoryAtomicStore();
    await store.commit(
      { id: 'd#0', docId: 'd' },
      { status: 'done', questions: ['Who?', 'Where is it?', 'Why so?'], ...spent },
    );
    const batches: string[][] = [];
    expect(await embedAtomic(store, lengthEmbedder(batches), { batchSize: 2 })).toEqual({ embedded: 3 });
    expect(batches).toEqual([['Who?', 'Where is it?'], ['Why so?']]);
    const vectors = Object.fromEntries((await store.questions()).map((q) => [q.text, [...q.vector!]]));
    // Row j of a batch is [length, j]: "Why so?" is row 0 of the second batch.
    expect(vectors).toEqual({ 'Who?': [4, 0], 'Where is it?': [12, 1], 'Why so?': [7, 0] });
    // Nothing left to embed: no call.
    expect(await embedAtomic(store, lengthEmbedder(batches))).toEqual({ embedded: 0 });
    expect(batches).toHaveLength(2);
  });

  it('refuses an embedder that returns the wrong number of floats, naming it', async () => {
    const store = new MemoryAtomicStore();
    await store.commit({ id: 'd#0', docId: 'd' }, { status: 'done', questions: ['Who?', 'When?'], ...spent });
    await expect(embedAtomic(store, lengthEmbedder([], 1))).rejects.toThrow(
      'atomic questions: embedder "length" returned 2 floats for 2×2',
    );
    expect((await store.questions()).some((q) => q.vector)).toBe(false);
  });
});
