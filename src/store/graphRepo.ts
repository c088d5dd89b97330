// The concept graph over IndexedDB (table graph): the stored graph under 'concept', and the incremental build's
// state beside it under its own id, so a reload or another tab continues the build; the library's themes under
// theirs. Removing the last document
// clears the table (documentsRepo.ts), both records with it.
import {
  compactGraph,
  conceptTableGraph,
  isCompactGraph,
  isConceptTableGraph,
  type CompactGraph,
  type ConceptTableGraph,
  type IncrementalGraphState,
  type SerializedGraph,
} from '../core/graph/index.ts';
import { checkRecordGroup, type PagedChunkRecord } from '../core/paged/index.ts';
import { readThemes, THEME_LIMITS, type LibraryThemes } from '../core/themes/index.ts';
import { DEFAULT_INDEX_PARAMS } from '../core/types.ts';
import type { Table } from 'dexie';
import type { ConceptDb } from './db.ts';
import { emptyMeta } from './indexMeta.ts';
import type { GraphRecord } from './records.ts';

/** The graph table's record of the incremental concept graph's state (beside the 'concept' graph record). */
const GRAPH_STATE_ID = 'incremental';

/**
 * The graph table's record of the library's themes (issue 48), computed from the graph stored with them and written
 * in the same transaction, so that a corpus-wide question is answered from them without loading the library. Any
 * other write of the graph deletes them (forgetThemes), and the counts they were computed with are checked
 * against the index record's on read.
 */
const THEMES_ID = 'themes';

/**
 * The themes record's format. 1 (no `format` field): the themes alone, their passages read from their documents on
 * each answer (1.3–2.2 s of a 2.6 s answer on the Vue docs at load 28–40). 2: with the records of the passages the
 * themes answer shows (`passages`). A format-1 record is still read, its passages from their documents, until the
 * next graph refresh writes the themes again in format 2.
 */
const THEMES_FORMAT = 2;

interface ThemesRecord {
  id: typeof THEMES_ID;
  format?: number;
  builtAt: number;
  /** The graph's counts when they were computed (the index record's `concepts` and `edges`). */
  concepts: number;
  edges: number;
  themes: unknown;
  /** Format 2: the records of the passages a themes answer shows (services/themes/answerPassages.ts). */
  passages?: unknown;
}

/** Themes to store with a graph: the themes, and the records of the passages their answer shows. */
export interface ThemesToStore {
  themes: LibraryThemes;
  passages: readonly PagedChunkRecord[];
}

/** The stored passage records of a format-2 themes record, checked; undefined when absent or not of that shape. */
function storedPassages(record: ThemesRecord): ReadonlyMap<string, PagedChunkRecord> | undefined {
  if (record.format !== THEMES_FORMAT || !Array.isArray(record.passages)) return undefined;
  // Never more than one passage a theme: a longer list is not this writer's.
  if (record.passages.length > THEME_LIMITS.themes) return undefined;
  try {
    const records = checkRecordGroup(record.passages, record.passages.length);
    return new Map(records.map((r) => [r.id, r]));
  } catch {
    return undefined;
  }
}

interface GraphStateRecord {
  id: typeof GRAPH_STATE_ID;
  builtAt: number;
  state: IncrementalGraphState;
}

/**
 * The graph as the store keeps it (see putGraph): a compact graph or a concept table as is, a full one with a
 * semantic layer as its keep-mask, a lexical-only one as its concept table. A bundle's import stores it so too.
 */
export function storedGraph(graph: object): CompactGraph | ConceptTableGraph | undefined {
  if (isCompactGraph(graph) || isConceptTableGraph(graph)) return graph;
  const full = graph as SerializedGraph;
  try {
    return full.semantic ? compactGraph(full) : conceptTableGraph(full);
  } catch {
    return undefined;
  }
}

/** Deletes the stored themes (a write of the graph other than putGraph's, inside its transaction). */
export function forgetThemes(db: ConceptDb): Promise<void> {
  return (db.graph as unknown as Table<ThemesRecord, string>).delete(THEMES_ID);
}

export class GraphRepo {
  constructor(private readonly db: ConceptDb) {}

  /** The stored concept graph record alone (the graph worker builds its walk graph while the corpus is read). */
  async getStoredGraph(): Promise<GraphRecord | undefined> {
    return this.db.graph.get('concept');
  }

  /**
   * Stores the concept graph and its counts (shown in the Library view). Only what a load cannot rebuild in
   * seconds is kept: a graph with a semantic layer as its θsem keep-mask (a few hundred KB, where the full graph
   * with concept vectors and edge cosines was most of the database), a lexical-only graph as its concept table
   * (~3 MB for MuSiQue; its edges follow from it in about a second, where choosing the keyphrases again took
   * most of the query worker's open).
   */
  async putGraph(
    graph: SerializedGraph | CompactGraph | ConceptTableGraph,
    stats: { concepts: number; edges: number },
    /** The library's themes computed from this graph (absent: the themes stored before are deleted). */
    themes?: ThemesToStore,
  ): Promise<void> {
    const db = this.db;
    const stored = storedGraph(graph);
    await db.transaction('rw', [db.graph, db.meta], async () => {
      const builtAt = Date.now();
      if (stored) await db.graph.put({ id: 'concept', builtAt, graph: stored });
      else await db.graph.delete('concept');
      if (themes && stored) {
        await this.themesTable().put({
          id: THEMES_ID,
          format: THEMES_FORMAT,
          builtAt,
          ...stats,
          themes: themes.themes,
          passages: themes.passages,
        });
      } else await forgetThemes(db);
      const { graphBuiltAt: _before, ...meta } =
        (await db.meta.get('index')) ?? emptyMeta(DEFAULT_INDEX_PARAMS);
      await db.meta.put({
        ...meta,
        concepts: stats.concepts,
        edges: stats.edges,
        ...(stored ? { graphBuiltAt: builtAt } : {}),
      });
    });
  }

  /**
   * The themes stored with the present graph, checked as untrusted input (themesShape.ts; undefined when none are
   * stored, or they were computed with another graph than the one the index record counts), with the `builtAt` of the graph record they were stored with (the same transaction wrote both), the
   * records of their answer's passages when the record holds them (format 2), whether that graph is still the
   * library's (`current`: no document removed since, IndexMeta.graphBuiltAt), and the index record's layers.
   */
  async getThemesBuilt(): Promise<
    | {
        builtAt: number;
        themes: LibraryThemes;
        passages?: ReadonlyMap<string, PagedChunkRecord>;
        current: boolean;
        layers: { lexical: boolean; semantic: boolean };
      }
    | undefined
  > {
    const db = this.db;
    const [record, meta] = await db.transaction('r', [db.graph, db.meta], () =>
      Promise.all([this.themesTable().get(THEMES_ID), db.meta.get('index')]),
    );
    if (!record || !meta || record.concepts !== meta.concepts || record.edges !== meta.edges)
      return undefined;
    const themes = readThemes(record.themes, 'the stored themes');
    const passages = storedPassages(record);
    return {
      builtAt: record.builtAt,
      themes,
      ...(passages ? { passages } : {}),
      current: meta.graphBuiltAt === record.builtAt,
      layers: meta.layers,
    };
  }

  private themesTable(): Table<ThemesRecord, string> {
    return this.db.graph as unknown as Table<ThemesRecord, string>;
  }

  /** The incremental concept graph's state (src/core/graph/incremental.ts, toJSON; src/services/ingest/graphBuild.ts). */
  async getGraphState(): Promise<IncrementalGraphState | undefined> {
    const record = await this.graphStates().get(GRAPH_STATE_ID);
    return record?.state;
  }

  async putGraphState(state: IncrementalGraphState): Promise<void> {
    await this.graphStates().put({ id: GRAPH_STATE_ID, builtAt: Date.now(), state });
  }

  private graphStates(): Table<GraphStateRecord, string> {
    return this.db.graph as unknown as Table<GraphStateRecord, string>;
  }
}
