// Where the KG lives, behind one storage-agnostic interface: the build only ever commits a finished chunk (its
// state, entities and relations together) or nothing, so an interrupted build leaves no half-built chunk and a
// resumed build skips every chunk already done. MemoryKgStore serves tests and the CLI; the worker has a Dexie one.
import {
  addEntityMentions,
  addRelationMentions,
  contributionOf,
  withoutChunksEntity,
  withoutChunksRelation,
} from './merge.ts';
import type { StepSpend } from '../llm/index.ts';
import type { Extraction, KgChunkState, KgEntity, KgRelation } from './types.ts';

/** What a finished chunk commits: its extraction (done) or the reason it failed, and what its calls cost. */
export type ChunkOutcome = (
  { status: 'done'; extraction: Extraction } | { status: 'failed'; reason: string }
) &
  StepSpend;

export interface KgVectorUpdate {
  kind: 'entity' | 'relation';
  id: string;
  text: string;
  vector: Float32Array;
}

export interface KgStore {
  /** Build states of the chunks that have one (done or failed). */
  getStates(chunkIds: readonly string[]): Promise<Map<string, KgChunkState>>;
  /** Commits one chunk atomically: its state and its merged entities/relations, or nothing on error. */
  commit(chunkId: string, outcome: ChunkOutcome): Promise<KgChunkState>;
  /** Removes the chunks' states and their share of every entity/relation (deleting items left without source). */
  removeChunks(chunkIds: readonly string[]): Promise<void>;
  /** Removes every chunk of a document (chunk ids start with `${docId}#`). */
  removeDocument(docId: string): Promise<void>;
  entities(): Promise<KgEntity[]>;
  relations(): Promise<KgRelation[]>;
  states(): Promise<KgChunkState[]>;
  putVectors(updates: readonly KgVectorUpdate[]): Promise<void>;
}

/** Applies one outcome to in-memory maps; the Dexie store does the same inside a transaction. */
export function applyOutcome(
  chunkId: string,
  outcome: ChunkOutcome,
  get: { entity(id: string): KgEntity | undefined; relation(id: string): KgRelation | undefined },
  now: number,
): { state: KgChunkState; entities: KgEntity[]; relations: KgRelation[] } {
  const base = {
    chunkId,
    attempts: outcome.attempts,
    inputTokens: outcome.inputTokens,
    outputTokens: outcome.outputTokens,
    cost: outcome.cost,
    finishedAt: now,
  };
  if (outcome.status === 'failed') {
    return {
      state: { ...base, status: 'failed', reason: outcome.reason, entityIds: [], relationIds: [] },
      entities: [],
      relations: [],
    };
  }
  const contribution = contributionOf(chunkId, outcome.extraction);
  const entities = [...contribution.entities].map(([id, mentions]) =>
    addEntityMentions(id, get.entity(id), chunkId, mentions),
  );
  const relations = [...contribution.relations].map(([id, r]) =>
    addRelationMentions(id, r.source, r.target, get.relation(id), chunkId, r.mentions),
  );
  return {
    state: {
      ...base,
      status: 'done',
      entityIds: entities.map((e) => e.id),
      relationIds: relations.map((r) => r.id),
    },
    entities,
    relations,
  };
}

export class MemoryKgStore implements KgStore {
  readonly entityMap = new Map<string, KgEntity>();
  readonly relationMap = new Map<string, KgRelation>();
  readonly stateMap = new Map<string, KgChunkState>();

  async getStates(chunkIds: readonly string[]): Promise<Map<string, KgChunkState>> {
    const out = new Map<string, KgChunkState>();
    for (const id of chunkIds) {
      const s = this.stateMap.get(id);
      if (s) out.set(id, s);
    }
    return out;
  }

  async commit(chunkId: string, outcome: ChunkOutcome): Promise<KgChunkState> {
    // A re-extracted chunk replaces its earlier share first.
    if (this.stateMap.has(chunkId)) await this.removeChunks([chunkId]);
    const applied = applyOutcome(
      chunkId,
      outcome,
      { entity: (id) => this.entityMap.get(id), relation: (id) => this.relationMap.get(id) },
      Date.now(),
    );
    // Everything is computed before the first write, so a throw above leaves the store untouched.
    for (const e of applied.entities) this.entityMap.set(e.id, e);
    for (const r of applied.relations) this.relationMap.set(r.id, r);
    this.stateMap.set(chunkId, applied.state);
    return applied.state;
  }

  async removeChunks(chunkIds: readonly string[]): Promise<void> {
    const gone = new Set(chunkIds);
    const entityIds = new Set<string>();
    const relationIds = new Set<string>();
    for (const id of chunkIds) {
      const s = this.stateMap.get(id);
      s?.entityIds.forEach((e) => entityIds.add(e));
      s?.relationIds.forEach((r) => relationIds.add(r));
      this.stateMap.delete(id);
    }
    trim(this.entityMap, entityIds, (e) => withoutChunksEntity(e, gone));
    trim(this.relationMap, relationIds, (r) => withoutChunksRelation(r, gone));
  }

  async removeDocument(docId: string): Promise<void> {
    await this.removeChunks([...this.stateMap.keys()].filter((id) => id.startsWith(`${docId}#`)));
  }

  async entities(): Promise<KgEntity[]> {
    return [...this.entityMap.values()];
  }

  async relations(): Promise<KgRelation[]> {
    return [...this.relationMap.values()];
  }

  async states(): Promise<KgChunkState[]> {
    return [...this.stateMap.values()];
  }

  async putVectors(updates: readonly KgVectorUpdate[]): Promise<void> {
    for (const u of updates) {
      const item = u.kind === 'entity' ? this.entityMap.get(u.id) : this.relationMap.get(u.id);
      if (item) {
        item.vector = u.vector;
        item.vectorText = u.text;
      }
    }
  }
}

/** Replaces each listed item by what is left of it, deleting those left without any source. */
function trim<T>(map: Map<string, T>, ids: Iterable<string>, left: (item: T) => T | null): void {
  for (const id of ids) {
    const item = map.get(id);
    if (!item) continue;
    const next = left(item);
    if (next) map.set(id, next);
    else map.delete(id);
  }
}
