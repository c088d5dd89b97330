// The index record ('meta' table, key 'index'): what built the library and its counts. Every write of documents,
// vectors or the graph updates it in the same transaction; these are the parts of that update they share.
import type { IndexParams } from '../core/types.ts';
import type { ConceptDb } from './db.ts';
import { SCHEMA_VERSION } from './db.ts';
import type { IndexMeta } from './records.ts';

/** The index record of a library that has no documents yet (no embedder: a lexical-only index has none). */
export function emptyMeta(params: IndexParams): IndexMeta {
  return {
    key: 'index',
    embedderId: null,
    dimension: 0,
    params,
    schemaVersion: SCHEMA_VERSION,
    layers: { lexical: false, semantic: false },
    vectorRows: 0,
    concepts: 0,
    edges: 0,
  };
}

/** The tally of a library with no documents yet (IndexMeta.sentenceTally). */
export const EMPTY_TALLY = { documents: 0, sentences: 0, chunks: 0 } as const;

/**
 * The index record's tally after a write added these (negative: removed them), in the write's own transaction. No
 * tally stays none; one without chunks (written by an app from before them) stays without, so they are counted.
 */
export function talliedAfter(
  tally: IndexMeta['sentenceTally'],
  change: { documents: number; sentences: number; chunks: number },
): IndexMeta['sentenceTally'] {
  if (!tally) return undefined;
  const next = {
    documents: tally.documents + change.documents,
    sentences: tally.sentences + change.sentences,
  };
  return tally.chunks === undefined ? next : { ...next, chunks: tally.chunks + change.chunks };
}

/**
 * The chunks stored, from the index record's tally while it is the tally of these `documents` (it is kept in the
 * documents' own transactions); undefined when it cannot say (no tally, one without chunks, or another count of
 * documents), and the caller counts. A count() in Chromium walks every record of the store (0.1–0.6 s for the
 * 102,310 chunks of 100 MiB), one of the reads that the reopening of a large library waits behind
 * (docs/results/drop-projected.md).
 */
export function talliedChunks(meta: IndexMeta | undefined, documents: number): number | undefined {
  const tally = meta?.sentenceTally;
  return tally?.documents === documents ? tally.chunks : undefined;
}

/**
 * The index record's tally with its chunks: this app's, kept by every write of documents since, and so what the
 * counts show without counting. A count() of the documents walks their text (0.5–1.4 s at 100 MiB, on the browser's
 * IndexedDB thread, which the query worker's first reads of a reopened library then wait behind:
 * docs/results/drop-projected.md, "Start-up reads after the first question"). A tally an app from before it left
 * behind its documents is set right by the ingest worker's check, seconds after each start (LibraryRepo.checkTally).
 */
export function keptTally(
  meta: IndexMeta | undefined,
): { documents: number; sentences: number; chunks: number } | undefined {
  const tally = meta?.sentenceTally;
  return tally?.chunks === undefined ? undefined : { ...tally, chunks: tally.chunks };
}

/**
 * True when every document has its vectors: the semantic layer is complete. Must run inside a transaction over
 * documents and vectors, so the two counts describe one state.
 */
export async function allEmbedded(db: ConceptDb): Promise<boolean> {
  const documents = await db.documents.count();
  return documents > 0 && (await db.vectors.count()) === documents;
}
