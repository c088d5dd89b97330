// Where the atomic layer lives, behind one storage-agnostic interface: a chunk's questions and its state are
// committed together or not at all, so an interrupted atomizing leaves no half-written chunk and a resumed one
// skips every chunk already done. MemoryAtomicStore serves tests and the CLI; the app has a Dexie one
// (src/store/atomicStore.ts).
import { questionId, type AtomicChunkState, type AtomicOutcome, type AtomicQuestion } from './types.ts';

export interface AtomicStore {
  /** States of the chunks that have one (done or failed). */
  getStates(chunkIds: readonly string[]): Promise<Map<string, AtomicChunkState>>;
  /** Commits one chunk: its state and (when done) its questions, replacing any it had. */
  commit(chunk: { id: string; docId: string }, outcome: AtomicOutcome): Promise<AtomicChunkState>;
  questions(): Promise<AtomicQuestion[]>;
  states(): Promise<AtomicChunkState[]>;
  putVectors(updates: ReadonlyArray<{ id: string; vector: Float32Array }>): Promise<void>;
  /** Removes every question and state of a document. */
  removeDocument(docId: string): Promise<void>;
}

/** The state and question records one outcome commits (the Dexie store writes the same in a transaction). */
export function recordsOf(
  chunk: { id: string; docId: string },
  outcome: AtomicOutcome,
  now: number,
): { state: AtomicChunkState; questions: AtomicQuestion[] } {
  const questions =
    outcome.status === 'done'
      ? outcome.questions.map((text, n) => ({
          id: questionId(chunk.id, n),
          chunkId: chunk.id,
          docId: chunk.docId,
          text,
        }))
      : [];
  return {
    state: {
      chunkId: chunk.id,
      docId: chunk.docId,
      status: outcome.status,
      ...(outcome.status === 'failed' ? { reason: outcome.reason } : {}),
      questions: questions.length,
      attempts: outcome.attempts,
      inputTokens: outcome.inputTokens,
      outputTokens: outcome.outputTokens,
      cost: outcome.cost,
      updatedAt: now,
    },
    questions,
  };
}

export class MemoryAtomicStore implements AtomicStore {
  private readonly stateMap = new Map<string, AtomicChunkState>();
  private readonly byChunk = new Map<string, AtomicQuestion[]>();

  constructor(private readonly now: () => number = () => Date.now()) {}

  getStates(chunkIds: readonly string[]): Promise<Map<string, AtomicChunkState>> {
    const out = new Map<string, AtomicChunkState>();
    for (const id of chunkIds) {
      const s = this.stateMap.get(id);
      if (s) out.set(id, { ...s });
    }
    return Promise.resolve(out);
  }

  commit(chunk: { id: string; docId: string }, outcome: AtomicOutcome): Promise<AtomicChunkState> {
    const { state, questions } = recordsOf(chunk, outcome, this.now());
    this.stateMap.set(chunk.id, state);
    if (outcome.status === 'done') this.byChunk.set(chunk.id, questions);
    return Promise.resolve({ ...state });
  }

  questions(): Promise<AtomicQuestion[]> {
    return Promise.resolve([...this.byChunk.values()].flat().map((q) => ({ ...q })));
  }

  states(): Promise<AtomicChunkState[]> {
    return Promise.resolve([...this.stateMap.values()].map((s) => ({ ...s })));
  }

  putVectors(updates: ReadonlyArray<{ id: string; vector: Float32Array }>): Promise<void> {
    const byId = new Map(updates.map((u) => [u.id, u.vector]));
    for (const list of this.byChunk.values()) {
      for (const q of list) {
        const v = byId.get(q.id);
        if (v) q.vector = v;
      }
    }
    return Promise.resolve();
  }

  removeDocument(docId: string): Promise<void> {
    for (const [id, s] of this.stateMap) {
      if (s.docId === docId) {
        this.stateMap.delete(id);
        this.byChunk.delete(id);
      }
    }
    return Promise.resolve();
  }
}
