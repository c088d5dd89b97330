// Embeds entity and relation descriptions for KG search, with the same embedder as the sentences. Only items
// whose text changed since their last embedding (new, merged with another chunk, or partly removed) are embedded.
import type { Embedder } from '../types.ts';
import { embeddingText } from './merge.ts';
import type { KgStore, KgVectorUpdate } from './store.ts';

/** Descriptions per embedding call. */
const EMBED_BATCH = 64;

export async function embedKg(store: KgStore, embedder: Embedder): Promise<{ embedded: number }> {
  const entities = await store.entities();
  const names = new Map(entities.map((e) => [e.id, e.name]));
  const relations = await store.relations();
  const pending: Array<{ kind: 'entity' | 'relation'; id: string; text: string }> = [];
  for (const e of entities) {
    const text = embeddingText(e);
    if (!e.vector || e.vectorText !== text) pending.push({ kind: 'entity', id: e.id, text });
  }
  for (const r of relations) {
    const text = embeddingText(r, names);
    if (!r.vector || r.vectorText !== text) pending.push({ kind: 'relation', id: r.id, text });
  }
  for (let i = 0; i < pending.length; i += EMBED_BATCH) {
    const part = pending.slice(i, i + EMBED_BATCH);
    const flat = await embedder.embed(part.map((p) => p.text));
    const d = embedder.dimension;
    if (flat.length !== part.length * d) {
      throw new Error(
        `KG embedding: embedder "${embedder.id}" returned ${flat.length} floats for ${part.length}×${d}`,
      );
    }
    const updates: KgVectorUpdate[] = part.map((p, k) => ({ ...p, vector: flat.slice(k * d, (k + 1) * d) }));
    await store.putVectors(updates);
  }
  return { embedded: pending.length };
}
