// The KG store over IndexedDB (Dexie tables kgChunks, kgEntities, kgRelations): each finished chunk is committed in
// ONE read-write transaction (its state, entities and relations), so a reload or crash mid-build leaves either the
// whole chunk or none of it. Vectors are stored as ArrayBuffers (structured-clone friendly, as the schema says).
// Taking chunks out of the KG has one implementation, removeKgChunks: a document's removal (Repo.removeDocument,
// in the same transaction as the document) and a chunk's re-extraction both run it.
import type { ConceptDb, KgChunkRecord, KgEntityRecord, KgRelationRecord } from './db.ts';
import { entityMentions, relationMentions } from '../core/bundle/index.ts';
import {
  entityFromMentions,
  relationFromMentions,
  withoutChunksEntity,
  withoutChunksRelation,
} from '../core/kg/index.ts';
import { applyOutcome, type ChunkOutcome, type KgStore, type KgVectorUpdate } from '../core/kg/index.ts';
import type { KgChunkState, KgEntity, KgRelation } from '../core/kg/index.ts';

type StoredEntity = KgEntityRecord & Partial<Pick<KgEntity, 'mentions' | 'vectorText'>>;
type StoredRelation = KgRelationRecord & Partial<Pick<KgRelation, 'mentions' | 'vectorText'>>;
type StoredState = KgChunkRecord & Partial<KgChunkState>;

function toVector(buffer: ArrayBuffer | undefined): Float32Array | undefined {
  return buffer && buffer.byteLength > 0 ? new Float32Array(buffer) : undefined;
}

function toBuffer(vector: Float32Array | undefined): ArrayBuffer | undefined {
  if (!vector) return undefined;
  return vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength) as ArrayBuffer;
}

export function entityFromRecord(r: StoredEntity): KgEntity | null {
  const previous = { vector: toVector(r.vector), vectorText: r.vectorText } as KgEntity;
  return entityFromMentions(r.id, entityMentions(r), previous);
}

export function relationFromRecord(r: StoredRelation): KgRelation | null {
  const previous = { vector: toVector(r.vector), vectorText: r.vectorText } as KgRelation;
  return relationFromMentions(r.id, r.source, r.target, relationMentions(r), previous);
}

export function entityRecord(e: KgEntity): StoredEntity {
  return {
    id: e.id,
    name: e.name,
    type: e.type,
    description: e.description,
    chunkIds: e.chunkIds,
    mentions: e.mentions,
    // Derived from the mentions again on read; stored so the table and a bundle show them without the KG code.
    ...(e.attributes ? { attributes: e.attributes } : {}),
    vector: toBuffer(e.vector),
    vectorText: e.vectorText,
  };
}

export function relationRecord(r: KgRelation): StoredRelation {
  return {
    id: r.id,
    source: r.source,
    target: r.target,
    description: r.description,
    weight: r.weight,
    chunkIds: r.chunkIds,
    mentions: r.mentions,
    vector: toBuffer(r.vector),
    vectorText: r.vectorText,
  };
}

/**
 * Takes the chunks' share out of the KG: their build states, their mentions in every entity and relation, the
 * entities and relations left without any mention, and relations whose endpoint entity went (so nothing points at
 * a removed chunk or entity). Must run inside a read-write transaction over kgChunks, kgEntities and kgRelations:
 * the caller's, so a document and its KG share go together or not at all.
 */
export async function removeKgChunks(db: ConceptDb, chunkIds: readonly string[]): Promise<void> {
  if (chunkIds.length === 0) return;
  const gone = new Set(chunkIds);
  const ids = [...chunkIds];
  const entities = (await db.kgEntities.where('chunkIds').anyOf(ids).distinct().toArray()) as StoredEntity[];
  const relations = (await db.kgRelations
    .where('chunkIds')
    .anyOf(ids)
    .distinct()
    .toArray()) as StoredRelation[];
  const deadEntities: string[] = [];
  for (const r of entities) {
    const current = entityFromRecord(r);
    const next = current && withoutChunksEntity(current, gone);
    if (next) await db.kgEntities.put(entityRecord(next));
    else {
      await db.kgEntities.delete(r.id);
      deadEntities.push(r.id);
    }
  }
  for (const r of relations) {
    const current = relationFromRecord(r);
    const next = current && withoutChunksRelation(current, gone);
    if (next) await db.kgRelations.put(relationRecord(next));
    else await db.kgRelations.delete(r.id);
  }
  // A relation's mentions come from chunks that mention both its endpoints, so this only finds relations of
  // records made elsewhere (hand-made bundles) that list chunks their endpoints do not.
  if (deadEntities.length > 0) {
    await db.kgRelations.where('source').anyOf(deadEntities).delete();
    await db.kgRelations.where('target').anyOf(deadEntities).delete();
  }
  await db.kgChunks.bulkDelete(ids);
}

export class DexieKgStore implements KgStore {
  constructor(private readonly db: ConceptDb) {}

  async getStates(chunkIds: readonly string[]): Promise<Map<string, KgChunkState>> {
    const rows = (await this.db.kgChunks.bulkGet([...chunkIds])) as Array<StoredState | undefined>;
    const out = new Map<string, KgChunkState>();
    for (const r of rows) if (r) out.set(r.chunkId, this.state(r));
    return out;
  }

  private state(r: StoredState): KgChunkState {
    return {
      chunkId: r.chunkId,
      status: r.status,
      reason: r.reason,
      entityIds: r.entityIds,
      relationIds: r.relationIds,
      attempts: r.attempts ?? 0,
      inputTokens: r.inputTokens ?? 0,
      outputTokens: r.outputTokens ?? 0,
      cost: r.cost ?? 0,
      finishedAt: r.finishedAt ?? 0,
    };
  }

  async commit(chunkId: string, outcome: ChunkOutcome): Promise<KgChunkState> {
    const db = this.db;
    return db.transaction('rw', [db.kgChunks, db.kgEntities, db.kgRelations], async () => {
      if (await db.kgChunks.get(chunkId)) await removeKgChunks(db, [chunkId]);
      // Read every record the outcome touches first, then compute, then write: all inside one transaction.
      const probe = applyOutcome(chunkId, outcome, { entity: () => undefined, relation: () => undefined }, 0);
      const entityRows = (await db.kgEntities.bulkGet(probe.state.entityIds)) as Array<
        StoredEntity | undefined
      >;
      const relationRows = (await db.kgRelations.bulkGet(probe.state.relationIds)) as Array<
        StoredRelation | undefined
      >;
      const entities = new Map<string, KgEntity>();
      for (const r of entityRows) {
        const e = r && entityFromRecord(r);
        if (e) entities.set(e.id, e);
      }
      const relations = new Map<string, KgRelation>();
      for (const r of relationRows) {
        const rel = r && relationFromRecord(r);
        if (rel) relations.set(rel.id, rel);
      }
      const applied = applyOutcome(
        chunkId,
        outcome,
        { entity: (id) => entities.get(id), relation: (id) => relations.get(id) },
        Date.now(),
      );
      await db.kgEntities.bulkPut(applied.entities.map(entityRecord));
      await db.kgRelations.bulkPut(applied.relations.map(relationRecord));
      await db.kgChunks.put(applied.state as StoredState);
      return applied.state;
    });
  }

  async removeChunks(chunkIds: readonly string[]): Promise<void> {
    const db = this.db;
    await db.transaction('rw', [db.kgChunks, db.kgEntities, db.kgRelations], () =>
      removeKgChunks(db, chunkIds),
    );
  }

  /**
   * The document's KG share only (the KgStore contract, which the in-memory store shares). The library removes a
   * document with Repo.removeDocument, which takes this same share in the document's own transaction.
   */
  async removeDocument(docId: string): Promise<void> {
    const prefix = `${docId}#`;
    const ids = (await this.db.kgChunks.where('chunkId').startsWith(prefix).primaryKeys()) as string[];
    await this.removeChunks(ids);
  }

  async entities(): Promise<KgEntity[]> {
    const rows = (await this.db.kgEntities.toArray()) as StoredEntity[];
    return rows.map(entityFromRecord).filter((e): e is KgEntity => e !== null);
  }

  async relations(): Promise<KgRelation[]> {
    const rows = (await this.db.kgRelations.toArray()) as StoredRelation[];
    return rows.map(relationFromRecord).filter((r): r is KgRelation => r !== null);
  }

  async states(): Promise<KgChunkState[]> {
    const rows = (await this.db.kgChunks.toArray()) as StoredState[];
    return rows.map((r) => this.state(r));
  }

  async putVectors(updates: readonly KgVectorUpdate[]): Promise<void> {
    const db = this.db;
    await db.transaction('rw', [db.kgEntities, db.kgRelations], async () => {
      for (const u of updates) {
        const table = u.kind === 'entity' ? db.kgEntities : db.kgRelations;
        await table.update(u.id, { vector: toBuffer(u.vector), vectorText: u.text } as never);
      }
    });
  }
}
