// Strict validation of one chunk's extraction JSON, with messages that say which field is wrong and why.
// A hand-written validator (no schema library): the shape is small and the messages go back to the LLM on retry.
import type { Extraction, RawEntity, RawRelation } from './types.ts';
export { parseJsonReply, stripThinking } from '../llm/index.ts';

const MAX_ENTITIES_PER_CHUNK = 200;
const MAX_RELATIONS_PER_CHUNK = 400;

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
    if (name) entities.push({ name, type, description });
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
