// A bundle opened read-only (?bundle=, `cli ask --bundle`): its KG and atomic layers as the indexes questions read,
// from the records as the store keeps them (read through the store's own mappings).
import { AtomicIndex } from '../../core/atomic/index.ts';
import { KgIndex } from '../../core/kg/index.ts';
import type { PagedBundle } from '../../core/paged/index.ts';
import { pagedThemesLoader } from './bundleThemes.ts';
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

/** The tables the KG search reads (kgChunks, the build state, is not needed to answer). */
const KG_SEARCH_TABLES = ['kgEntities', 'kgRelations'];

/**
 * The KG of a bundle read by ranges, as its KG modes search it: its tables read whole on first use (checked as the
 * whole read checks them) and kept for every later question; a failed read is tried again by the next question.
 * Undefined when the bundle holds no KG.
 */
export function pagedKgLoader(bundle: PagedBundle): (() => Promise<KgIndex>) | undefined {
  if (!bundle.manifest.counts.kgEntities) return undefined;
  return layerLoader(bundle, KG_SEARCH_TABLES, bundleKgIndex);
}

/**
 * The atomic questions of a bundle read by ranges, as `atomic` and `decompose` search them: read whole on first use,
 * as the KG is (pagedKgLoader). Undefined when the bundle holds none.
 */
export function pagedAtomicLoader(bundle: PagedBundle): (() => Promise<AtomicIndex | null>) | undefined {
  if (!bundle.manifest.counts.atomicQuestions) return undefined;
  return layerLoader(bundle, ['atomicQuestions'], bundleAtomicIndex);
}

/** A layer's tables read once, on first use, into its index; a failed read is tried again by the next call. */
function layerLoader<T>(
  bundle: PagedBundle,
  tables: readonly string[],
  index: (tables: Record<string, unknown[]>) => T,
): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    const current = (loading ??= bundle.layerTables(tables).then((read) => index(read.tables)));
    current.catch(() => {
      if (loading === current) loading = undefined;
    });
    return current;
  };
}

/** Each bundle's layer loaders, made once: a layer read whole is kept for every later question while it is open. */
const layersOf = new WeakMap<PagedBundle, ReturnType<typeof readLayers>>();

/**
 * A paged bundle's KG, atomic questions and themes as a source's layers, each read whole on the first question
 * needing it (the same loaders for every question of one opened bundle).
 */
export function pagedLayers(bundle: PagedBundle): ReturnType<typeof readLayers> {
  let layers = layersOf.get(bundle);
  if (!layers) layersOf.set(bundle, (layers = readLayers(bundle)));
  return layers;
}

function readLayers(bundle: PagedBundle) {
  const kg = pagedKgLoader(bundle);
  const atomic = pagedAtomicLoader(bundle);
  const themes = pagedThemesLoader(bundle);
  return { ...(kg ? { kg } : {}), ...(atomic ? { atomic } : {}), ...(themes ? { themes } : {}) };
}
