// Merging one chunk's extraction into the graph and taking it out again. Pure functions over single records, so
// the in-memory store and the IndexedDB store (one transaction per chunk) share exactly the same logic.
import { normalizeAttributeValue, normalizeKey, normalizeName, relationId } from './normalize.ts';
import type {
  EntityMention,
  Extraction,
  KgAttribute,
  KgEntity,
  KgEntityAttribute,
  KgRelation,
  RelationMention,
} from './types.ts';

/** Longest combined description kept (characters); it is what gets embedded and shown. */
const MAX_DESCRIPTION_CHARS = 2000;

/** A chunk's extraction grouped by merged id: what to add to each entity and relation. */
export interface ChunkContribution {
  entities: Map<string, EntityMention[]>;
  relations: Map<string, { source: string; target: string; mentions: RelationMention[] }>;
}

/**
 * Groups one chunk's extraction by normalized ids. Relation endpoints missing from the entity list are added as
 * entities without description (LLMs do this), and self-relations after normalization are dropped.
 */
export function contributionOf(chunkId: string, extraction: Extraction): ChunkContribution {
  const entities = new Map<string, EntityMention[]>();
  const addEntity = (name: string, type: string, description: string, attributes?: KgAttribute[]): string => {
    const id = normalizeName(name);
    if (!id) return id;
    const list = entities.get(id) ?? [];
    if (!entities.has(id)) entities.set(id, list);
    if (description || list.length === 0) {
      const mention: EntityMention = { chunkId, name: name.trim(), type, description };
      if (attributes?.length) mention.attributes = attributes;
      list.push(mention);
    } else if (attributes?.length) {
      const first = list[0];
      first.attributes = mergeAttributes(first.attributes, attributes);
    }
    return id;
  };
  for (const e of extraction.entities) addEntity(e.name, e.type, e.description, e.attributes);
  const relations: ChunkContribution['relations'] = new Map();
  for (const r of extraction.relations) {
    const source = entities.has(normalizeName(r.source))
      ? normalizeName(r.source)
      : addEntity(r.source, 'unknown', '');
    const target = entities.has(normalizeName(r.target))
      ? normalizeName(r.target)
      : addEntity(r.target, 'unknown', '');
    if (!source || !target || source === target) continue;
    const id = relationId(source, target);
    const entry = relations.get(id) ?? { source, target, mentions: [] };
    relations.set(id, entry);
    entry.mentions.push({ chunkId, description: r.description, weight: r.weight });
  }
  // Several mentions of one entity in one chunk: keep the ones with distinct descriptions only, the attributes of
  // a dropped duplicate going to the kept one.
  for (const [id, list] of entities) {
    const kept = new Map<string, EntityMention>();
    for (const m of list) {
      const first = kept.get(m.description);
      if (!first) kept.set(m.description, m);
      else if (m.attributes?.length) first.attributes = mergeAttributes(first.attributes, m.attributes);
    }
    entities.set(id, [...kept.values()]);
  }
  return { entities, relations };
}

function combine(descriptions: string[]): string {
  const distinct = [...new Set(descriptions.map((d) => d.trim()).filter(Boolean))];
  const joined = distinct.join(' ');
  return joined.length > MAX_DESCRIPTION_CHARS ? `${joined.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : joined;
}

function mostFrequent(values: string[]): string {
  const counts = new Map<string, number>();
  let best = values[0] ?? 'unknown';
  for (const v of values) {
    const n = (counts.get(v) ?? 0) + 1;
    counts.set(v, n);
    if (n > (counts.get(best) ?? 0)) best = v;
  }
  return best;
}

function mergeAttributes(a: KgAttribute[] | undefined, b: KgAttribute[]): KgAttribute[] {
  const out = [...(a ?? [])];
  for (const x of b) if (!out.some((y) => y.key === x.key && y.value === x.value)) out.push(x);
  return out;
}

/**
 * A mention's attributes as read from any record (a bundle or a store written by another version is untrusted):
 * malformed entries are skipped, keys and values normalized again (idempotent for ones this version wrote).
 */
function mentionAttributes(m: EntityMention): KgAttribute[] {
  const list: unknown = m.attributes;
  if (!Array.isArray(list)) return [];
  const out: KgAttribute[] = [];
  for (const a of list as unknown[]) {
    const o = (a ?? {}) as Record<string, unknown>;
    if (typeof o.key !== 'string' || (typeof o.value !== 'string' && typeof o.value !== 'number')) continue;
    const key = normalizeKey(o.key);
    if (!key || String(o.value).trim() === '') continue;
    out.push({ key, ...normalizeAttributeValue(o.value, key) });
  }
  return out;
}

/** The merged entity's attributes: distinct (key, value) pairs, each with the chunks that state it. */
function entityAttributes(mentions: readonly EntityMention[]): KgEntityAttribute[] {
  const byPair = new Map<string, KgEntityAttribute>();
  for (const m of mentions) {
    for (const a of mentionAttributes(m)) {
      const pair = `${a.key}\u0000${a.value}`;
      const known = byPair.get(pair);
      if (!known) byPair.set(pair, { ...a, chunkIds: [m.chunkId] });
      else if (!known.chunkIds.includes(m.chunkId)) known.chunkIds.push(m.chunkId);
    }
  }
  for (const a of byPair.values()) a.chunkIds.sort();
  return [...byPair.values()];
}

function uniqueChunkIds(mentions: ReadonlyArray<{ chunkId: string }>): string[] {
  return [...new Set(mentions.map((m) => m.chunkId))].sort();
}

/** Rebuilds an entity's derived fields from its mentions (null when no mention is left). */
export function entityFromMentions(
  id: string,
  mentions: EntityMention[],
  previous?: KgEntity,
): KgEntity | null {
  if (mentions.length === 0) return null;
  const typed = mentions.map((m) => m.type).filter((t) => t !== 'unknown');
  const entity: KgEntity = {
    id,
    name: mentions[0].name,
    type: typed.length ? mostFrequent(typed) : 'unknown',
    description: combine(mentions.map((m) => m.description)),
    chunkIds: uniqueChunkIds(mentions),
    mentions,
  };
  const attributes = entityAttributes(mentions);
  if (attributes.length) entity.attributes = attributes;
  // A vector stays attached; it is recomputed when its text no longer matches (see embed.ts).
  if (previous?.vector) {
    entity.vector = previous.vector;
    entity.vectorText = previous.vectorText;
  }
  return entity;
}

export function relationFromMentions(
  id: string,
  source: string,
  target: string,
  mentions: RelationMention[],
  previous?: KgRelation,
): KgRelation | null {
  if (mentions.length === 0) return null;
  const relation: KgRelation = {
    id,
    source,
    target,
    description: combine(mentions.map((m) => m.description)),
    weight: mentions.reduce((s, m) => s + m.weight, 0) / mentions.length,
    chunkIds: uniqueChunkIds(mentions),
    mentions,
  };
  if (previous?.vector) {
    relation.vector = previous.vector;
    relation.vectorText = previous.vectorText;
  }
  return relation;
}

/** Adds a chunk's mentions to an entity (replacing any earlier mentions of the same chunk). */
export function addEntityMentions(
  id: string,
  existing: KgEntity | undefined,
  chunkId: string,
  mentions: EntityMention[],
): KgEntity {
  const kept = (existing?.mentions ?? []).filter((m) => m.chunkId !== chunkId);
  return entityFromMentions(id, [...kept, ...mentions], existing)!;
}

export function addRelationMentions(
  id: string,
  source: string,
  target: string,
  existing: KgRelation | undefined,
  chunkId: string,
  mentions: RelationMention[],
): KgRelation {
  const kept = (existing?.mentions ?? []).filter((m) => m.chunkId !== chunkId);
  return relationFromMentions(id, source, target, [...kept, ...mentions], existing)!;
}

/** Removes the mentions of the given chunks; null means the item no longer has any source and must be deleted. */
export function withoutChunksEntity(entity: KgEntity, chunkIds: ReadonlySet<string>): KgEntity | null {
  return entityFromMentions(
    entity.id,
    entity.mentions.filter((m) => !chunkIds.has(m.chunkId)),
    entity,
  );
}

export function withoutChunksRelation(
  relation: KgRelation,
  chunkIds: ReadonlySet<string>,
): KgRelation | null {
  return relationFromMentions(
    relation.id,
    relation.source,
    relation.target,
    relation.mentions.filter((m) => !chunkIds.has(m.chunkId)),
    relation,
  );
}

/** The text embedded for search: name, type and description. */
export function embeddingText(item: KgEntity | KgRelation, names?: ReadonlyMap<string, string>): string {
  if ('name' in item) return `${item.name} (${item.type}): ${item.description}`.slice(0, 1000);
  const s = names?.get(item.source) ?? item.source;
  const t = names?.get(item.target) ?? item.target;
  return `${s} — ${t}: ${item.description}`.slice(0, 1000);
}
