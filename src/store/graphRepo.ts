// The concept graph over IndexedDB (table graph): the stored graph under 'concept', and the incremental build's
// state beside it under its own id, so a reload or another tab continues the build. Removing the last document
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
import { DEFAULT_INDEX_PARAMS } from '../core/types.ts';
import type { Table } from 'dexie';
import type { ConceptDb } from './db.ts';
import { emptyMeta } from './indexMeta.ts';
import type { GraphRecord } from './records.ts';

/** The graph table's record of the incremental concept graph's state (beside the 'concept' graph record). */
const GRAPH_STATE_ID = 'incremental';

interface GraphStateRecord {
  id: typeof GRAPH_STATE_ID;
  builtAt: number;
  state: IncrementalGraphState;
}

/** The stored form of a full graph: its keep-mask when it has a semantic layer, else its concept table. */
function storableGraph(graph: SerializedGraph): CompactGraph | ConceptTableGraph | undefined {
  try {
    return graph.semantic ? compactGraph(graph) : conceptTableGraph(graph);
  } catch {
    return undefined;
  }
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
  ): Promise<void> {
    const db = this.db;
    const stored = isCompactGraph(graph) || isConceptTableGraph(graph) ? graph : storableGraph(graph);
    await db.transaction('rw', [db.graph, db.meta], async () => {
      if (stored) await db.graph.put({ id: 'concept', builtAt: Date.now(), graph: stored });
      else await db.graph.delete('concept');
      const meta = (await db.meta.get('index')) ?? emptyMeta(DEFAULT_INDEX_PARAMS);
      await db.meta.put({ ...meta, concepts: stats.concepts, edges: stats.edges });
    });
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
