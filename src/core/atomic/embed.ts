// Embeds the atomic questions that have no vector yet with the library's embedder, so the atomic path and the
// decomposition's candidate search compare questions by meaning as well as by words.
import type { Embedder } from '../types.ts';
import type { AtomicStore } from './store.ts';

export async function embedAtomic(
  store: AtomicStore,
  embedder: Embedder,
  options: { batchSize?: number } = {},
): Promise<{ embedded: number }> {
  const missing = (await store.questions()).filter((q) => !q.vector);
  const batch = Math.max(1, options.batchSize ?? 64);
  let embedded = 0;
  for (let i = 0; i < missing.length; i += batch) {
    const part = missing.slice(i, i + batch);
    const flat = await embedder.embed(part.map((q) => q.text));
    const d = embedder.dimension;
    if (flat.length !== part.length * d) {
      throw new Error(
        `atomic questions: embedder "${embedder.id}" returned ${flat.length} floats for ${part.length}×${d}`,
      );
    }
    await store.putVectors(part.map((q, j) => ({ id: q.id, vector: flat.slice(j * d, (j + 1) * d) })));
    embedded += part.length;
  }
  return { embedded };
}
