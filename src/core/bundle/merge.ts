// The one rule for adding a library (a bundle) to another: the CLI's `index --into` merges two snapshots in memory
// with it, and the browser's bundle import merges a bundle into IndexedDB with it, so both give the same library.
//
// - Same document: the same id or the same content hash (an earlier document of the added library counts too).
//   The library added to wins: its document stays with everything derived from it; the added copy is skipped.
// - Re-keyed: the KG share of a skipped copy is moved onto the kept document's chunk with the same span, as the
//   text is the same (same hash). A chunk with no such counterpart, or a copy whose text differs (same id, other
//   hash), takes its KG share with it. Nothing else is re-keyed: ids are derived from content.
// - KG, per chunk: a chunk the library added to already has a KG build state for keeps its own extraction; the
//   added library's mentions of it are dropped. Entities and relations present on both sides keep the base's
//   record (and vector) and gain the other mentions, their name, type and description re-derived from them.
// - Other layer tables: the record already there wins.
// - Concept graph: kept when it still covers exactly the merged chunks, else dropped (rebuilt by the app).
import { entityFromMentions, relationFromMentions } from '../kg/index.ts';
import type { EntityMention, RelationMention } from '../kg/index.ts';
import type { ChunkRecord, DocumentRecord } from '../types.ts';
import { checkEmbedder } from './format.ts';
import { graphCoversChunks, type IndexSnapshot } from './snapshot.ts';

/** What the merge must see of the library added to: its documents that share an id or hash with the added ones. */
export interface MergeBase {
  /** Documents of the base with the id or content hash of an added document (more may be given). */
  documents: readonly DocumentRecord[];
  /** The chunks of those documents (more may be given). */
  chunks: readonly ChunkRecord[];
  /**
   * Which of those documents already have sentence vectors. A kept document without them takes the added copy's
   * (lexical-first indexing stores documents before their vectors, so a backup taken mid-embedding lacks some).
   */
  withVectors: ReadonlySet<string>;
}

/** The added library's documents as the merge keeps them. */
export interface DocumentMerge extends Pick<
  IndexSnapshot,
  'documents' | 'sections' | 'chunks' | 'sentences' | 'vectors'
> {
  /** Ids of the added documents that are new. */
  fresh: Set<string>;
  /** Added documents already present (in the base, or earlier in the added library). */
  skipped: number;
  /** Each added chunk id → its id in the merged library; a chunk not listed takes its KG share with it. */
  chunkIds: Map<string, string>;
  /** Each merged chunk id a chunk was mapped to → its document id (records that move with a chunk move docs too). */
  chunkDocs: Map<string, string>;
}

const spanKey = (c: { start: number; end: number }): string => `${c.start}:${c.end}`;

function byDocument(chunks: readonly ChunkRecord[]): Map<string, ChunkRecord[]> {
  const out = new Map<string, ChunkRecord[]>();
  for (const c of chunks) {
    const list = out.get(c.docId);
    if (list) list.push(c);
    else out.set(c.docId, [c]);
  }
  return out;
}

/** Which added documents are new, and where the chunks of the others are in the merged library. */
export function mergeDocuments(base: MergeBase, add: IndexSnapshot): DocumentMerge {
  const baseById = new Map(base.documents.map((d) => [d.id, d]));
  const baseByHash = new Map(base.documents.map((d) => [d.hash, d]));
  const addedByHash = new Map<string, DocumentRecord>();
  const baseChunks = byDocument(base.chunks);
  const addChunks = byDocument(add.chunks);
  const fresh = new Set<string>();
  const chunkIds = new Map<string, string>();
  const chunkDocs = new Map<string, string>();
  const vectors = new Map<string, Float32Array>();
  const dimension = add.embedder?.dimension ?? 0;
  for (const d of add.documents) {
    const own = addChunks.get(d.id) ?? [];
    const inBase = baseById.get(d.id) ?? baseByHash.get(d.hash);
    const kept = inBase ?? addedByHash.get(d.hash);
    if (!kept) {
      fresh.add(d.id);
      addedByHash.set(d.hash, d);
      for (const c of own) {
        chunkIds.set(c.id, c.id);
        chunkDocs.set(c.id, c.docId);
      }
      continue;
    }
    // Same id but other text: no chunk of it is known to match.
    if (kept.hash !== d.hash) continue;
    const keptChunks = (inBase ? baseChunks : addChunks).get(kept.id) ?? [];
    const bySpan = new Map(keptChunks.map((c) => [spanKey(c), c.id]));
    for (const c of own) {
      const target = bySpan.get(spanKey(c));
      if (target !== undefined) {
        chunkIds.set(c.id, target);
        chunkDocs.set(target, kept.id);
      }
    }
    // Same text, so the same sentences: the added copy's vectors fill a kept document that has none yet, provided
    // their row count is the kept document's sentence count.
    const v = add.vectors.get(d.id);
    const sentences = keptChunks.reduce((n, c) => n + c.sentenceCount, 0);
    const holds = inBase ? base.withVectors.has(kept.id) : vectors.has(kept.id) || add.vectors.has(kept.id);
    if (v && !holds && dimension > 0 && v.length === sentences * dimension) vectors.set(kept.id, v);
  }
  for (const [docId, v] of add.vectors) if (fresh.has(docId)) vectors.set(docId, v);
  return {
    fresh,
    documents: add.documents.filter((d) => fresh.has(d.id)),
    sections: add.sections.filter((s) => fresh.has(s.docId)),
    chunks: add.chunks.filter((c) => fresh.has(c.docId)),
    sentences: add.sentences.filter((s) => fresh.has(s.docId)),
    vectors,
    skipped: add.documents.length - fresh.size,
    chunkIds,
    chunkDocs,
  };
}

/** Primary keys of the layer tables the app knows (the store's tables use the same). */
const LAYER_KEYS: Record<string, string> = {
  kgChunks: 'chunkId',
  kgEntities: 'id',
  kgRelations: 'id',
  atomicQuestions: 'id',
  atomicChunks: 'chunkId',
};

/**
 * The table of build states of a layer table's part of the distilled layer: a chunk the base has a state for
 * keeps the base's records of that part (its own extraction, its own atomic questions).
 */
export function layerStateTable(table: string): 'kgChunks' | 'atomicChunks' {
  return table.startsWith('atomic') ? 'atomicChunks' : 'kgChunks';
}

/** The key of a layer-table record: the table's key field, else `id`, else `chunkId`, else its JSON. */
export function layerRecordKey(table: string, record: unknown): string {
  const r = record as Record<string, unknown>;
  const field = Object.hasOwn(LAYER_KEYS, table) ? LAYER_KEYS[table] : undefined;
  if (field) return String(r[field]);
  if (typeof r?.id === 'string') return r.id;
  if (typeof r?.chunkId === 'string') return r.chunkId;
  return JSON.stringify(record);
}

type Mention = { chunkId: string } & Record<string, unknown>;
type KgRecord = Record<string, unknown> & { id: string; chunkIds: string[]; mentions?: Mention[] };

/**
 * A stored entity's mentions, as the KG store reads them back and as the merge combines them. Records from
 * bundles of earlier versions carry no mentions: each listed chunk stands for one. Databases written before
 * document removal went through removeKgChunks (src/store/kgStore.ts) hold records whose chunkIds were trimmed but
 * whose mentions were not: the listed chunks are the truth, so such stale mentions are left out.
 */
export function entityMentions(record: object): EntityMention[] {
  return mentionsOf('kgEntities', record as KgRecord) as unknown as EntityMention[];
}

/** A stored relation's mentions, by the same reading as entityMentions. */
export function relationMentions(record: object): RelationMention[] {
  return mentionsOf('kgRelations', record as KgRecord) as unknown as RelationMention[];
}

function mentionsOf(table: string, r: KgRecord): Mention[] {
  const listed = new Set(r.chunkIds);
  const mentions =
    r.mentions ??
    r.chunkIds.map((chunkId) =>
      table === 'kgEntities'
        ? { chunkId, name: r.name, type: r.type ?? 'unknown', description: r.description ?? '' }
        : { chunkId, description: r.description ?? '', weight: typeof r.weight === 'number' ? r.weight : 1 },
    );
  return mentions.filter((m) => listed.has(m.chunkId));
}

/** The record with the given mentions and the fields derived from them; null when none is left. */
function withMentions(table: string, r: KgRecord, mentions: Mention[]): KgRecord | null {
  const derived =
    table === 'kgEntities'
      ? entityFromMentions(r.id, mentions as unknown as EntityMention[])
      : relationFromMentions(
          r.id,
          String(r.source),
          String(r.target),
          mentions as unknown as RelationMention[],
        );
  if (!derived) return null;
  const { vector: _vector, vectorText: _vectorText, ...fields } = derived;
  return { ...r, ...fields } as unknown as KgRecord;
}

/**
 * Items that move with their chunk, each with its chunk's id in the merged library. Of a chunk's two copies, the items
 * of the copy with its own id win, else those of the first copy listed; an item whose chunk is not merged is dropped.
 */
function movedWithChunks<T>(
  items: readonly T[],
  chunkOf: (item: T) => string,
  target: (chunkId: string) => string | undefined,
): Array<[T, string]> {
  const fromOwnId = new Set(items.map(chunkOf).filter((c) => target(c) === c));
  const firstSource = new Map<string, string>();
  const out: Array<[T, string]> = [];
  for (const item of items) {
    const source = chunkOf(item);
    const id = target(source);
    if (id === undefined || (id !== source && fromOwnId.has(id))) continue;
    if ((firstSource.get(id) ?? source) !== source) continue;
    firstSource.set(id, source);
    out.push([item, id]);
  }
  return out;
}

/**
 * The added library's records of one layer table, their chunk references moved to the merged library's chunk ids:
 * references of chunks that are not in it, or whose KG the base already has (`baseKgChunks`), are dropped, and a
 * record left without any is not merged. Records of other tables pass unchanged.
 */
export function layerRecordsToMerge(
  table: string,
  records: readonly unknown[],
  merge: DocumentMerge,
  baseKgChunks: ReadonlySet<string>,
): unknown[] {
  const target = (chunkId: string): string | undefined => {
    const id = merge.chunkIds.get(chunkId);
    return id === undefined || baseKgChunks.has(id) ? undefined : id;
  };
  if (table === 'kgChunks' || table === 'atomicChunks') {
    // An atomic chunk state moves its document id with its chunk id.
    const moved = (id: string) =>
      table === 'kgChunks' ? { chunkId: id } : { chunkId: id, docId: merge.chunkDocs.get(id) };
    const byChunk = new Map<string, Record<string, unknown>>();
    for (const record of records as Array<Record<string, unknown>>) {
      const source = String(record.chunkId);
      const id = target(source);
      // Of two copies of one chunk (a document twice in the added library), the one with its own id wins.
      if (id === undefined || (byChunk.has(id) && source !== id)) continue;
      byChunk.set(id, source === id ? record : { ...record, ...moved(id) });
    }
    return [...byChunk.values()];
  }
  if (table === 'atomicQuestions') {
    // A question moves with its chunk (its id is the chunk id and its number).
    const questions = records as Array<Record<string, unknown>>;
    return movedWithChunks(questions, (r) => String(r.chunkId), target).map(([r, id]) => {
      const source = String(r.chunkId);
      if (id === source) return r;
      return {
        ...r,
        id: `${id}?${String(r.id).slice(source.length + 1)}`,
        chunkId: id,
        docId: merge.chunkDocs.get(id),
      };
    });
  }
  if (table !== 'kgEntities' && table !== 'kgRelations') return [...records];
  const out: unknown[] = [];
  for (const record of records as KgRecord[]) {
    const mentions = mentionsOf(table, record);
    const moved = movedWithChunks(mentions, (m) => m.chunkId, target).map(([m, id]) =>
      id === m.chunkId ? m : { ...m, chunkId: id },
    );
    const unchanged = moved.length === mentions.length && moved.every((m, i) => m === mentions[i]);
    if (unchanged) out.push(record);
    else {
      const rekeyed = withMentions(table, record, moved);
      if (rekeyed) out.push(rekeyed);
    }
  }
  return out;
}

/**
 * One added record against the base's record with the same key: the record to store, or undefined when the base's
 * stays as it is.
 */
export function mergeLayerRecord(table: string, base: unknown, incoming: unknown): unknown {
  if (base === undefined) return incoming;
  if (table !== 'kgEntities' && table !== 'kgRelations') return undefined;
  const kept = base as KgRecord;
  const mentions = mentionsOf(table, kept);
  const known = new Set(mentions.map((m) => m.chunkId));
  const extra = mentionsOf(table, incoming as KgRecord).filter((m) => !known.has(m.chunkId));
  if (extra.length === 0) return undefined;
  return withMentions(table, kept, [...mentions, ...extra]) ?? undefined;
}

/** The base's chunk ids that have a KG build state, from its kgChunks records. */
export function kgChunkIds(records: readonly unknown[] | undefined): Set<string> {
  return new Set((records ?? []).map((r) => String((r as { chunkId?: unknown }).chunkId)));
}

/**
 * The concept graph after the merge: the base's when nothing was added; the added library's when the base had no
 * documents and that graph covers exactly the merged chunks; else none (`stale`: the app rebuilds it).
 */
export function mergedGraph(
  baseDocuments: number,
  merge: DocumentMerge,
  baseGraph: Record<string, unknown> | undefined,
  addGraph: Record<string, unknown> | undefined,
): { graph: Record<string, unknown> | undefined; stale: boolean } {
  if (merge.fresh.size === 0) return { graph: baseGraph, stale: false };
  const covers =
    baseDocuments === 0 &&
    addGraph !== undefined &&
    graphCoversChunks(addGraph, new Set(merge.chunks.map((c) => c.id)));
  return covers ? { graph: addGraph, stale: false } : { graph: undefined, stale: true };
}

/** Adds `add` to `base` in memory by the rule above (the embedders must agree). */
export function mergeSnapshots(base: IndexSnapshot, add: IndexSnapshot): IndexSnapshot {
  checkEmbedder(add.embedder, base.embedder);
  const merge = mergeDocuments({ ...base, withVectors: new Set(base.vectors.keys()) }, add);
  const baseStates = {
    kgChunks: kgChunkIds(base.tables.kgChunks),
    atomicChunks: kgChunkIds(base.tables.atomicChunks),
  };
  const tables: Record<string, unknown[]> = {};
  for (const name of new Set([...Object.keys(base.tables), ...Object.keys(add.tables)])) {
    const merged = new Map<string, unknown>();
    for (const r of base.tables[name] ?? []) merged.set(layerRecordKey(name, r), r);
    for (const r of layerRecordsToMerge(
      name,
      add.tables[name] ?? [],
      merge,
      baseStates[layerStateTable(name)],
    )) {
      const key = layerRecordKey(name, r);
      const next = mergeLayerRecord(name, merged.get(key), r);
      if (next !== undefined) merged.set(key, next);
    }
    tables[name] = [...merged.values()];
  }
  const vectors = new Map(base.vectors);
  for (const [docId, v] of merge.vectors) vectors.set(docId, v);
  return {
    embedder: base.embedder ?? add.embedder,
    params: { ...add.params, ...base.params },
    documents: [...base.documents, ...merge.documents],
    sections: [...base.sections, ...merge.sections],
    chunks: [...base.chunks, ...merge.chunks],
    sentences: [...base.sentences, ...merge.sentences],
    vectors,
    graph: mergedGraph(base.documents.length, merge, base.graph, add.graph).graph,
    tables,
  };
}
