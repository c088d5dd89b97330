// The atomic layer over IndexedDB (Dexie tables atomicQuestions and atomicChunks): a chunk's questions and its state
// are committed in one transaction, so an interrupted atomizing leaves no half-written chunk; removing a document
// removes its questions and states in the caller's transaction (Repo.removeDocument). Vectors are stored as Float32
// bytes, as the KG's are.
import type { AtomicChunkState, AtomicOutcome, AtomicQuestion, AtomicStore } from '../core/atomic/index.ts';
import { recordsOf } from '../core/atomic/index.ts';
import type { AtomicQuestionRecord, ConceptDb } from './db.ts';

/** A stored question as the index reads it (vector bytes back to a Float32Array). */
export function questionFromRecord(r: AtomicQuestionRecord): AtomicQuestion {
  const { vector, ...rest } = r;
  return vector ? { ...rest, vector: new Float32Array(vector.slice(0)) } : rest;
}

export function questionRecord(q: AtomicQuestion): AtomicQuestionRecord {
  const { vector, ...rest } = q;
  return vector ? { ...rest, vector: Float32Array.from(vector).buffer } : rest;
}

/**
 * Removes a document's atomic questions and states. Must run inside a read-write transaction over both atomic
 * tables when it is part of a larger removal (Repo.removeDocument opens one over every table it touches).
 */
export async function removeAtomicDocument(db: ConceptDb, docId: string): Promise<void> {
  await db.atomicQuestions.where('docId').equals(docId).delete();
  await db.atomicChunks.where('docId').equals(docId).delete();
}

export class DexieAtomicStore implements AtomicStore {
  constructor(
    private readonly db: ConceptDb,
    private readonly now: () => number = () => Date.now(),
  ) {}

  async getStates(chunkIds: readonly string[]): Promise<Map<string, AtomicChunkState>> {
    const rows = await this.db.atomicChunks.bulkGet([...chunkIds]);
    const out = new Map<string, AtomicChunkState>();
    for (const r of rows) if (r) out.set(r.chunkId, r);
    return out;
  }

  /** Inside the caller's transaction when there is one (the one-pass commit adds the KG part in the same one). */
  async commit(chunk: { id: string; docId: string }, outcome: AtomicOutcome): Promise<AtomicChunkState> {
    const db = this.db;
    const { state, questions } = recordsOf(chunk, outcome, this.now());
    await db.transaction('rw', [db.chunks, db.atomicQuestions, db.atomicChunks], async () => {
      // A chunk that no longer exists (its document was removed while the call ran) is not written.
      if (!(await db.chunks.get(chunk.id))) return;
      if (outcome.status === 'done') {
        await db.atomicQuestions.where('chunkId').equals(chunk.id).delete();
        await db.atomicQuestions.bulkAdd(questions.map(questionRecord));
      }
      await db.atomicChunks.put(state);
    });
    return state;
  }

  async questions(): Promise<AtomicQuestion[]> {
    return (await this.db.atomicQuestions.toArray()).map(questionFromRecord);
  }

  async states(): Promise<AtomicChunkState[]> {
    return this.db.atomicChunks.toArray();
  }

  async putVectors(updates: ReadonlyArray<{ id: string; vector: Float32Array }>): Promise<void> {
    const db = this.db;
    await db.transaction('rw', db.atomicQuestions, async () => {
      for (const u of updates) {
        await db.atomicQuestions.update(u.id, { vector: Float32Array.from(u.vector).buffer });
      }
    });
  }

  async removeDocument(docId: string): Promise<void> {
    const db = this.db;
    await db.transaction('rw', [db.atomicQuestions, db.atomicChunks], () => removeAtomicDocument(db, docId));
  }
}
