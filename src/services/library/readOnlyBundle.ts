// A bundle opened read-only (?bundle=, `cli ask --bundle`): its KG and atomic layers as the indexes questions read,
// from the records as the store keeps them (read through the store's own mappings).
import { AtomicIndex } from '../../core/atomic/index.ts';
import { KgIndex } from '../../core/kg/index.ts';
import { questionFromRecord } from '../../store/atomicStore.ts';
import type { AtomicQuestionRecord, KgEntityRecord, KgRelationRecord } from '../../store/db.ts';
import { entityFromRecord, relationFromRecord } from '../../store/kgStore.ts';

/** A bundle's KG tables hold records as the store keeps them: read them through the store's own mapping. */
export function bundleKgIndex(tables: Record<string, unknown[]>): KgIndex {
  const entities = (tables.kgEntities ?? []) as KgEntityRecord[];
  const relations = (tables.kgRelations ?? []) as KgRelationRecord[];
  return new KgIndex(
    entities.map(entityFromRecord).filter((e) => e !== null),
    relations.map(relationFromRecord).filter((r) => r !== null),
  );
}

/** A bundle's atomic questions as an index (null when the bundle has no atomic layer, e.g. a format-1 bundle). */
export function bundleAtomicIndex(tables: Record<string, unknown[]>): AtomicIndex | null {
  const records = (tables.atomicQuestions ?? []) as AtomicQuestionRecord[];
  return records.length ? new AtomicIndex(records.map(questionFromRecord)) : null;
}
