// Strict validation of one chunk's extraction JSON, with messages that say which field is wrong and why.
// A hand-written validator (no schema library): the shape is small and the messages go back to the LLM on retry.
import { normalizeAttributeValue, normalizeKey } from './normalize.ts';
import type { Extraction, KgAttribute, RawEntity, RawRelation } from './types.ts';

const MAX_ENTITIES_PER_CHUNK = 200;
const MAX_RELATIONS_PER_CHUNK = 400;
const MAX_ATTRIBUTES_PER_ENTITY = 40;
/** Entries an entity's attributes may list, repeats included (a model repeats a date it met in several sentences). */
const RAW_ATTRIBUTES_PER_ENTITY = 10 * MAX_ATTRIBUTES_PER_ENTITY;

/** An entity's optional "attributes": [{key, value}] with string or number values, normalized (dates ISO…). */
function attributesOf(value: unknown, where: string, errors: string[]): KgAttribute[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    errors.push(`${where}.attributes must be an array of {"key", "value"} objects`);
    return undefined;
  }
  // Repeats are allowed (below), but not without end: each entry is compared with those kept.
  if (value.length > RAW_ATTRIBUTES_PER_ENTITY) {
    errors.push(`${where}.attributes: too many (${value.length} > ${RAW_ATTRIBUTES_PER_ENTITY} entries)`);
    return undefined;
  }
  const out: KgAttribute[] = [];
  value.forEach((a: unknown, i) => {
    const at = `${where}.attributes[${i}]`;
    const o = (typeof a === 'object' && a !== null ? a : {}) as Record<string, unknown>;
    const key = typeof o.key === 'string' ? normalizeKey(o.key) : '';
    const v = o.value;
    if (!key) errors.push(`${at}.key must be a non-empty string (got ${JSON.stringify(o.key ?? null)})`);
    const valueOk =
      (typeof v === 'string' && v.trim() !== '') || (typeof v === 'number' && Number.isFinite(v));
    if (!valueOk)
      errors.push(`${at}.value must be a non-empty string or a number (got ${JSON.stringify(v ?? null)})`);
    if (key && valueOk) {
      const normalized = normalizeAttributeValue(v as string | number, key);
      if (!out.some((x) => x.key === key && x.value === normalized.value)) out.push({ key, ...normalized });
    }
  });
  // The cap is on what is kept: a fact repeated (the same key and value, as normalized) counts once.
  if (out.length > MAX_ATTRIBUTES_PER_ENTITY) {
    errors.push(`${where}.attributes: too many (${out.length} > ${MAX_ATTRIBUTES_PER_ENTITY})`);
    return undefined;
  }
  return out;
}

export type Validation = { ok: true; value: Extraction } | { ok: false; errors: string[] };

function str(
  obj: Record<string, unknown>,
  field: string,
  where: string,
  errors: string[],
  required = true,
): string {
  const v = obj[field];
  if (typeof v === 'string' && v.trim()) return v.trim();
  if (!required && (v === undefined || v === null || v === '')) return '';
  errors.push(
    `${where}.${field} must be a non-empty string (got ${v === undefined ? 'nothing' : JSON.stringify(v)})`,
  );
  return '';
}

export function validateExtraction(value: unknown): Validation {
  const errors: string[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, errors: ['the top level must be an object with "entities" and "relations" arrays'] };
  }
  const root = value as Record<string, unknown>;
  const entitiesIn = root.entities;
  const relationsIn = root.relations ?? [];
  if (!Array.isArray(entitiesIn)) errors.push('"entities" must be an array');
  if (!Array.isArray(relationsIn)) errors.push('"relations" must be an array');
  if (errors.length) return { ok: false, errors };
  const ents = entitiesIn as unknown[];
  const rels = relationsIn as unknown[];
  if (ents.length > MAX_ENTITIES_PER_CHUNK)
    errors.push(`too many entities (${ents.length} > ${MAX_ENTITIES_PER_CHUNK})`);
  if (rels.length > MAX_RELATIONS_PER_CHUNK) {
    errors.push(`too many relations (${rels.length} > ${MAX_RELATIONS_PER_CHUNK})`);
  }
  const entities: RawEntity[] = [];
  ents.forEach((e, i) => {
    const where = `entities[${i}]`;
    if (typeof e !== 'object' || e === null) {
      errors.push(`${where} must be an object`);
      return;
    }
    const o = e as Record<string, unknown>;
    const name = str(o, 'name', where, errors);
    const type = str(o, 'type', where, errors, false) || 'unknown';
    const description = str(o, 'description', where, errors, false);
    const attributes = attributesOf(o.attributes, where, errors);
    if (name)
      entities.push(
        attributes?.length ? { name, type, description, attributes } : { name, type, description },
      );
  });
  const relations: RawRelation[] = [];
  rels.forEach((r, i) => {
    const where = `relations[${i}]`;
    if (typeof r !== 'object' || r === null) {
      errors.push(`${where} must be an object`);
      return;
    }
    const o = r as Record<string, unknown>;
    const source = str(o, 'source', where, errors);
    const target = str(o, 'target', where, errors);
    const description = str(o, 'description', where, errors, false);
    let weight = o.weight === undefined ? 5 : Number(o.weight);
    if (!Number.isFinite(weight) || weight < 1 || weight > 10) {
      errors.push(`${where}.weight must be a number from 1 to 10 (got ${JSON.stringify(o.weight)})`);
      weight = 5;
    }
    if (source && target) relations.push({ source, target, description, weight });
  });
  return errors.length ? { ok: false, errors } : { ok: true, value: { entities, relations } };
}
