// The library's themes as the graph refresh stored them with its graph (src/store/graphRepo.ts), opened for a
// corpus-wide question asked before the library is loaded (src/services/source/storedThemesSource.ts): the themes,
// and the records of their passages — the ones stored with the themes (the passages their answer shows), any other
// read from its document.
import type { PagedChunkRecord } from '../../core/paged/index.ts';
import type { ConceptDb } from '../../store/db.ts';
import { GraphRepo } from '../../store/graphRepo.ts';
import { LibraryRepo } from '../../store/libraryRepo.ts';
import type { LibraryThemes } from '../../core/themes/index.ts';

/** The themes stored with the present graph, and a reader of chunk records by id. */
export interface StoredThemes {
  themes: LibraryThemes;
  /** The stored graph record they were computed from (its `builtAt`). */
  builtAt: number;
  layers: { lexical: boolean; semantic: boolean };
  /** The records of these chunks that are still stored, by id. */
  records(chunkIds: readonly string[]): Promise<ReadonlyMap<string, PagedChunkRecord>>;
  /**
   * Where the time went (ms) and where the records came from, for benchmarks (the query worker's askTimings):
   * `themesRead` (the themes record and the index record), then per records() call `recordsRead`, `fromThemes`
   * (records stored with the themes) and `fromDocuments` (records built from their documents).
   */
  readonly steps: Record<string, number>;
}

/** Undefined when no themes are stored with the present graph (or they cannot be read: they are then computed). */
export async function openStoredThemes(db: ConceptDb): Promise<StoredThemes | undefined> {
  const t0 = performance.now();
  // One read of the graph and index records (during a drop, each read waits behind the ingest worker's writes).
  const built = await new GraphRepo(db).getThemesBuilt().catch(() => undefined);
  if (!built) return undefined;
  const steps: Record<string, number> = { themesRead: round(performance.now() - t0) };
  const library = new LibraryRepo(db);
  return {
    themes: built.themes,
    builtAt: built.builtAt,
    layers: built.layers,
    steps,
    records: async (chunkIds) => {
      const r0 = performance.now();
      const wanted = [...new Set(chunkIds)];
      const found = new Map<string, PagedChunkRecord>();
      const rest: string[] = [];
      if (built.passages) {
        // A record stored with the themes is shown while its chunk is stored: certainly so while their graph is the
        // library's (a removal drops IndexMeta.graphBuiltAt), else the chunks are looked up (keys only).
        const kept = built.current
          ? new Set(wanted)
          : new Set((await db.chunks.where(':id').anyOf(wanted).primaryKeys()) as string[]);
        for (const id of wanted) {
          const record = built.passages.get(id);
          if (record && kept.has(id)) found.set(id, record);
          else if (kept.has(id)) rest.push(id);
        }
      } else rest.push(...wanted);
      const fromThemes = found.size;
      if (rest.length > 0)
        for (const [id, record] of await library.passageRecords(rest)) found.set(id, record);
      steps.recordsRead = round(performance.now() - r0);
      steps.fromThemes = fromThemes;
      steps.fromDocuments = found.size - fromThemes;
      return found;
    },
  };
}

const round = (ms: number) => Math.round(ms * 10) / 10;
