// The library's themes as the graph refresh stored them with its graph (src/store/graphRepo.ts), opened for a
// corpus-wide question asked before the library is loaded (src/services/source/storedThemesSource.ts): the themes,
// and the records of their passages, read from IndexedDB by id (their documents only).
import { pagesRecords, type PagedChunkRecord } from '../../core/paged/index.ts';
import type { ConceptDb } from '../../store/db.ts';
import { GraphRepo } from '../../store/graphRepo.ts';
import { PagesRepo } from '../../store/pagesRepo.ts';
import type { LibraryThemes } from '../../core/themes/index.ts';

/** The themes stored with the present graph, and a reader of chunk records by id. */
export interface StoredThemes {
  themes: LibraryThemes;
  /** The stored graph record they were computed from (its `builtAt`). */
  builtAt: number;
  layers: { lexical: boolean; semantic: boolean };
  /** The records of these chunks that are still stored, by id. */
  records(chunkIds: readonly string[]): Promise<ReadonlyMap<string, PagedChunkRecord>>;
}

/** Undefined when no themes are stored with the present graph (or they cannot be read: they are then computed). */
export async function openStoredThemes(db: ConceptDb): Promise<StoredThemes | undefined> {
  const [built, meta] = await Promise.all([
    new GraphRepo(db).getThemesBuilt().catch(() => undefined),
    db.meta.get('index'),
  ]);
  if (!built || !meta) return undefined;
  const pages = new PagesRepo(db);
  return {
    ...built,
    layers: meta.layers,
    records: async (chunkIds) => {
      const wanted = new Set(chunkIds);
      const chunks = await db.chunks.bulkGet([...wanted]);
      const found = new Map<string, PagedChunkRecord>();
      for (const d of await pages.documentsOf(chunks.flatMap((c) => (c ? [c.docId] : [])))) {
        for (const record of pagesRecords(d).records) if (wanted.has(record.id)) found.set(record.id, record);
      }
      return found;
    },
  };
}
