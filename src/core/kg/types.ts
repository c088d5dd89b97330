// The core knowledge graph's records: what one chunk's extraction produced, the merged entities and relations
// (each keeping the chunks it came from, mention by mention, so removing a chunk removes exactly its share), and
// the per-chunk build state that makes the build resumable. Field names match the store's kg tables.
import type { StepSpend } from '../llm/index.ts';

/**
 * One attribute of an entity as stated in one chunk ("release date": "1946-05-03", "population": "1200000"), its
 * value normalized by normalizeAttributeValue (dates ISO, numbers with their unit) when the extraction is read.
 */
export interface KgAttribute {
  /** Lowercase key ("birth date"), see normalizeKey. */
  key: string;
  value: string;
  kind: 'date' | 'number' | 'text';
}

/** One entity as the LLM wrote it for one chunk (validated). */
export interface RawEntity {
  name: string;
  type: string;
  description: string;
  /** Absent in extractions made before attributes existed. */
  attributes?: KgAttribute[];
}

/** One relation as the LLM wrote it for one chunk (validated). */
export interface RawRelation {
  source: string;
  target: string;
  description: string;
  /** Strength 1–10. */
  weight: number;
}

export interface Extraction {
  entities: RawEntity[];
  relations: RawRelation[];
}

/** One chunk's entity; its attributes are kept per mention, so removing the chunk removes exactly these. */
export interface EntityMention extends RawEntity {
  chunkId: string;
}

/** An attribute of a merged entity with the chunks that state it (the chunk side: KgChunkState.entityIds). */
export interface KgEntityAttribute extends KgAttribute {
  chunkIds: string[];
}

export interface RelationMention {
  chunkId: string;
  description: string;
  weight: number;
}

/** A merged entity; `id` is the normalized name. */
export interface KgEntity {
  id: string;
  /** The display name: the first spelling seen. */
  name: string;
  /** The most frequent type among mentions. */
  type: string;
  /** Distinct mention descriptions, joined. */
  description: string;
  chunkIds: string[];
  mentions: EntityMention[];
  /** Distinct (key, value) pairs over the mentions, each with its chunks; absent when no mention has any. */
  attributes?: KgEntityAttribute[];
  /** Embedding of `embeddingText(entity)`, and the text it was computed from (stale when they differ). */
  vector?: Float32Array;
  vectorText?: string;
}

/** A merged relation; `id` is `${source}→${target}` over entity ids. */
export interface KgRelation {
  id: string;
  source: string;
  target: string;
  description: string;
  /** Mean weight of the mentions. */
  weight: number;
  chunkIds: string[];
  mentions: RelationMention[];
  vector?: Float32Array;
  vectorText?: string;
}

/** Build state of one chunk: present only once the chunk is finished (done or failed), never half. */
export interface KgChunkState extends StepSpend {
  chunkId: string;
  status: 'done' | 'failed';
  /** Why the chunk failed (malformed output twice, invalid schema…). */
  reason?: string;
  entityIds: string[];
  relationIds: string[];
  finishedAt: number;
}
