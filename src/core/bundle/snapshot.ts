// What an index bundle holds, layer by layer, and the mapping between those layers and bundle parts.
// The store (browser) and the CLI (Node) both go through here, so a bundle written by one reads identically in the
// other, and both decode vectors with the same code (the same ranking for the same bundle).
import type { ChunkRecord, DocumentRecord, SectionRecord, SentenceRecord } from '../types.ts';
import {
  decodeJsonl,
  decodeStructured,
  decodeVectors,
  jsonlPart,
  quantizeInt8,
  structuredPart,
  type VectorEncoding,
} from './codecs.ts';
import {
  BundleError,
  checkEmbedder,
  type BundlePart,
  type EmbedderInfo,
  type ManifestBase,
  type PartEntry,
} from './format.ts';
import type { ReadBundle } from './reader.ts';
import { checkShapes, checkUnique, checkVectors, type RecordShape } from './validate.ts';
import {
  compactGraph,
  compactGraphProblem,
  conceptTableGraph,
  conceptTableGraphProblem,
  isCompactGraph,
  isConceptTableGraph,
} from '../graph/index.ts';
import type { SerializedGraph } from '../graph/index.ts';

/** Every layer of an index, in memory. */
export interface IndexSnapshot {
  embedder: EmbedderInfo | null;
  params: Record<string, unknown>;
  documents: DocumentRecord[];
  sections: SectionRecord[];
  chunks: ChunkRecord[];
  sentences: SentenceRecord[];
  /** Sentence vectors per document id: rows in sentence-index order, unit length. */
  vectors: Map<string, Float32Array>;
  /**
   * The concept graph (src/core/graph) when one was built for exactly these chunks: serialized in full, or (what
   * bundles carry by default) compact — the θsem keep-mask and counts, the lexical graph being rebuilt on load.
   */
  graph?: Record<string, unknown>;
  /**
   * Any other layer as a table of records (KG: kgEntities, kgRelations, kgChunks; later layers likewise). Stored
   * as "table.<name>.bin" parts, so a new layer needs no format change. Records may hold ArrayBuffers.
   */
  tables: Record<string, unknown[]>;
}

const PART = {
  documents: 'documents.jsonl',
  sections: 'sections.jsonl',
  chunks: 'chunks.jsonl',
  sentences: 'sentences.jsonl',
  vectorLayout: 'vectors.layout.jsonl',
  vectorsI8: 'vectors.i8',
  vectorsF32: 'vectors.f32',
  graph: 'graph.bin',
  tablePrefix: 'table.',
} as const;

export interface ExportOptions {
  /** int8 with a per-vector scale (default) or exact Float32. */
  vectors?: VectorEncoding;
  appVersion: string;
  /**
   * 'compact' (default): a full concept graph with a semantic layer is written as its keep-mask (~0.75 MB for
   * MuSiQue instead of ~150 MB); 'full': as is. Other graphs (lexical only, already compact) go as they are.
   */
  graph?: 'compact' | 'full';
  /** Parts written after the index's own (the pages of a library read by ranges, src/core/paged). */
  extraParts?: readonly BundlePart[];
}

/** The graph as the bundle stores it under `mode` (see ExportOptions.graph). */
function graphForBundle(
  graph: Record<string, unknown>,
  mode: 'compact' | 'full' = 'compact',
): Record<string, unknown> {
  if (mode === 'full' || graph.format !== 'conceptrag-graph') return graph;
  const semantic = graph.semantic as SerializedGraph['semantic'];
  if (!semantic) {
    const table = conceptTableGraph(graph as unknown as SerializedGraph);
    return table ? (table as unknown as Record<string, unknown>) : graph;
  }
  if (!(semantic.cosines || semantic.keepMask)) return graph;
  const compact = compactGraph(graph as unknown as SerializedGraph);
  return compact ? (compact as unknown as Record<string, unknown>) : graph;
}

/** True when `graph` was built for exactly these chunks (a full or a compact graph list their ids). */
export function graphCoversChunks(graph: Record<string, unknown>, chunkIds: ReadonlySet<string>): boolean {
  const ids = graph.chunkIds;
  return (
    Array.isArray(ids) &&
    ids.length === chunkIds.size &&
    ids.every((id) => typeof id === 'string' && chunkIds.has(id))
  );
}

/** Rows of each document's vectors, in document-id order (the order of the vectors part). */
interface LayoutRow {
  docId: string;
  rows: number;
}

function vectorPart(vectors: Map<string, Float32Array>, dim: number, encoding: VectorEncoding): BundlePart[] {
  const layout: LayoutRow[] = [...vectors.keys()]
    .sort()
    .map((docId) => ({ docId, rows: vectors.get(docId)!.length / dim }));
  const totalRows = layout.reduce((n, l) => n + l.rows, 0);
  const layoutPart = jsonlPart(PART.vectorLayout, layout);
  if (encoding === 'f32') {
    const data = new Uint8Array(totalRows * dim * 4);
    let offset = 0;
    for (const { docId } of layout) {
      const v = vectors.get(docId)!;
      data.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), offset);
      offset += v.byteLength;
    }
    return [
      layoutPart,
      { name: PART.vectorsF32, kind: 'vectors-f32', count: totalRows, data, meta: { dimension: dim } },
    ];
  }
  // Block layout of quantizeInt8 (all scales, then all codes), assembled document by document.
  const data = new Uint8Array(totalRows * (4 + dim));
  let row = 0;
  for (const { docId, rows } of layout) {
    const q = quantizeInt8(vectors.get(docId)!, dim);
    data.set(q.subarray(0, rows * 4), row * 4);
    data.set(q.subarray(rows * 4), totalRows * 4 + row * dim);
    row += rows;
  }
  return [
    layoutPart,
    { name: PART.vectorsI8, kind: 'vectors-i8', count: totalRows, data, meta: { dimension: dim } },
  ];
}

/** Manifest fields for writeBundle from a snapshot, with its counts. */
export function manifestBase(snapshot: IndexSnapshot, appVersion: string): ManifestBase {
  const { embedder, params } = snapshot;
  return { appVersion, embedder, params, counts: snapshotCounts(snapshot) };
}

/**
 * Yields the parts of an index one layer at a time: each layer is encoded and handed to the writer before the next,
 * so at most one layer is held twice (records + encoded bytes).
 */
export function* indexParts(snapshot: IndexSnapshot, options: ExportOptions): Generator<BundlePart> {
  const { documents, chunks, embedder, graph } = snapshot;
  const texts = new Map(documents.map((d) => [d.id, d.text]));
  yield jsonlPart(PART.documents, documents);
  yield jsonlPart(PART.sections, snapshot.sections);
  yield jsonlPart(
    PART.chunks,
    chunks.map((c) => withoutText(c, texts.get(c.docId))),
  );
  yield jsonlPart(
    PART.sentences,
    snapshot.sentences.map((x) => withoutText(x, texts.get(x.docId))),
  );
  if (embedder) {
    for (const [docId, v] of snapshot.vectors) {
      if (v.length % embedder.dimension !== 0) {
        throw new Error(
          `bundle export: vectors of document ${docId} are not rows of dimension ${embedder.dimension}`,
        );
      }
    }
    yield* vectorPart(snapshot.vectors, embedder.dimension, options.vectors ?? 'i8');
  }
  // A graph built for another set of chunks (the library was exported while indexing ran, or after a Cancel
  // stopped the rebuild) is derived data that no longer applies: leave it out and the importer rebuilds it.
  if (graph && graphCoversChunks(graph, new Set(chunks.map((c) => c.id)))) {
    yield structuredPart(PART.graph, graphForBundle(graph, options.graph));
  }
  for (const [name, records] of Object.entries(snapshot.tables)) {
    if (records.length) yield structuredPart(`${PART.tablePrefix}${name}.bin`, records, records.length);
  }
  yield* options.extraParts ?? [];
}

type Spanned = { docId: string; start: number; end: number; text: string };

/**
 * A chunk or sentence without its text when its document's text gives it back: stored once (in documents.jsonl, and
 * in the store's documents table), such texts shrink a MuSiQue bundle by about a sixth. A text that is not exactly
 * its slice is kept as is.
 */
export function withoutText<T extends Spanned>(
  record: T,
  docText: string | undefined,
): Omit<T, 'text'> & { text?: string } {
  if (docText?.slice(record.start, record.end) !== record.text) return record;
  const { text: _derived, ...rest } = record;
  return rest;
}

function restoreText<T extends Spanned>(records: T[], texts: Map<string, string>, part: string): void {
  for (const r of records) {
    if (typeof r.text === 'string') continue;
    const text = texts.get(r.docId);
    if (text === undefined || !(r.start >= 0 && r.end <= text.length && r.start <= r.end)) {
      throw invalid(
        `part ${part}: the text range of ${(r as { id?: string }).id ?? '?'} is not in its document`,
        part,
      );
    }
    r.text = text.slice(r.start, r.end);
  }
}

function invalid(message: string, part?: string): BundleError {
  return new BundleError('invalid-content', message, part);
}

function decodeRecords<T>(read: ReadBundle, name: string, required: boolean): T[] {
  const bytes = read.parts.get(name);
  if (!bytes) {
    if (required) throw invalid(`the part ${name} is missing`, name);
    return [];
  }
  const records = decodeJsonl<T>(bytes, name);
  const entry = read.manifest.parts.find((p) => p.name === name)!;
  if (records.length !== entry.count) {
    throw invalid(`part ${name} holds ${records.length} records, the manifest says ${entry.count}`, name);
  }
  return records;
}

/**
 * The fields each layer's code relies on, with their types (src/core/types.ts). Other fields pass as they are.
 * `text` of chunks and sentences is optional: it is restored from the document when absent.
 */
const SHAPES: Record<string, RecordShape> = {
  [PART.documents]: {
    id: 'string',
    title: 'string',
    hash: 'string',
    text: 'string',
    sourceName: 'string?',
    mime: 'string?',
    size: 'count?',
    addedAt: 'number?',
    pageStarts: 'counts?',
  },
  [PART.sections]: {
    id: 'string',
    docId: 'string',
    index: 'count?',
    heading: 'string?',
    level: 'count?',
    start: 'count?',
    end: 'count?',
  },
  [PART.chunks]: {
    id: 'string',
    docId: 'string',
    start: 'count',
    end: 'count',
    tokens: 'count',
    text: 'string?',
    sectionIndex: 'count?',
    position: 'count?',
    order: 'number?',
    firstSentence: 'count?',
    sentenceCount: 'count?',
    pageStart: 'count?',
    pageEnd: 'count?',
  },
  [PART.sentences]: {
    id: 'string',
    docId: 'string',
    chunkId: 'string',
    index: 'count',
    start: 'count',
    end: 'count',
    text: 'string?',
  },
  [PART.vectorLayout]: { docId: 'string', rows: 'count' },
};

/**
 * Layer tables the app knows, with the fields their readers use (others are kept out by the store), and the shape
 * of each of their `mentions` (absent in bundles of earlier versions; read and merged per chunk when present).
 */
const TABLE_SHAPES: Record<string, { key: string; shape: RecordShape; mention?: RecordShape }> = {
  kgEntities: {
    key: 'id',
    shape: { id: 'string', name: 'string', type: 'string?', description: 'string?', chunkIds: 'strings' },
    mention: { chunkId: 'string', name: 'string', type: 'string', description: 'string' },
  },
  kgRelations: {
    key: 'id',
    shape: {
      id: 'string',
      source: 'string',
      target: 'string',
      description: 'string?',
      weight: 'number?',
      chunkIds: 'strings',
    },
    mention: { chunkId: 'string', description: 'string', weight: 'number' },
  },
  kgChunks: {
    key: 'chunkId',
    shape: { chunkId: 'string', status: 'string?', entityIds: 'strings?', relationIds: 'strings?' },
  },
  // PIKE-RAG's atomic layer (format 2): questions with their chunk, and each chunk's atomizing state.
  atomicQuestions: {
    key: 'id',
    shape: { id: 'string', chunkId: 'string', docId: 'string', text: 'string' },
  },
  atomicChunks: {
    key: 'chunkId',
    shape: { chunkId: 'string', docId: 'string', status: 'string', questions: 'count?' },
  },
};

/** The shape check of a table's records; unknown tables need only be arrays of objects. */
function checkTable(name: string, records: unknown[], part: string, embedder: EmbedderInfo | null): void {
  const known = Object.hasOwn(TABLE_SHAPES, name) ? TABLE_SHAPES[name] : undefined;
  checkShapes(records, known?.shape ?? {}, part);
  if (!known) return;
  const typed = records as Array<Record<string, unknown>>;
  checkUnique(typed, known.key, part);
  checkVectors(typed, embedder?.dimension ?? 0, part);
  if (!known.mention) return;
  typed.forEach((r, i) => {
    if (!Object.hasOwn(r, 'mentions') || r.mentions === undefined) return;
    if (!Array.isArray(r.mentions)) {
      throw invalid(`part ${part} record ${i + 1}: the field "mentions" must be an array`, part);
    }
    checkShapes(r.mentions, known.mention!, `${part} record ${i + 1} mentions`);
  });
}

function decodeVectorParts(
  read: ReadBundle,
  embedder: EmbedderInfo | null,
  sentencesPerDoc: Map<string, number>,
): Map<string, Float32Array> {
  const vectors = new Map<string, Float32Array>();
  const entry: PartEntry | undefined = read.manifest.parts.find(
    (p) => p.name === PART.vectorsI8 || p.name === PART.vectorsF32,
  );
  if (!entry) {
    if (embedder) throw invalid('the bundle names an embedder but has no vectors part');
    return vectors;
  }
  if (!embedder) throw invalid('the bundle has vectors but names no embedder');
  const dim = embedder.dimension;
  if (entry.meta?.dimension !== dim) {
    throw invalid(`part ${entry.name} has dimension ${String(entry.meta?.dimension)}, the manifest ${dim}`);
  }
  const layout = decodeRecords<LayoutRow>(read, PART.vectorLayout, true);
  checkShapes(layout, SHAPES[PART.vectorLayout], PART.vectorLayout);
  const all = decodeVectors(entry.kind, read.parts.get(entry.name)!, dim, entry.count);
  let row = 0;
  for (const { docId, rows } of layout) {
    const expected = sentencesPerDoc.get(docId);
    if (expected === undefined) throw invalid(`vectors for unknown document ${docId}`, PART.vectorLayout);
    if (rows !== expected) {
      throw invalid(`document ${docId} has ${expected} sentences but ${rows} vectors`, PART.vectorLayout);
    }
    vectors.set(docId, all.slice(row * dim, (row + rows) * dim));
    row += rows;
  }
  if (row !== entry.count)
    throw invalid(`the vector layout covers ${row} of ${entry.count} rows`, entry.name);
  return vectors;
}

/**
 * Decodes a validated bundle into a snapshot, checking that the layers agree with each other (every chunk's
 * document exists, vectors match sentence counts, the graph covers exactly the chunks, …).
 */
export function snapshotFromBundle(read: ReadBundle, expectEmbedder?: EmbedderInfo | null): IndexSnapshot {
  const { manifest } = read;
  checkEmbedder(manifest.embedder, expectEmbedder);
  const documents = decodeRecords<DocumentRecord>(read, PART.documents, true);
  const sections = decodeRecords<SectionRecord>(read, PART.sections, true);
  const chunks = decodeRecords<ChunkRecord>(read, PART.chunks, true);
  const sentences = decodeRecords<SentenceRecord>(read, PART.sentences, true);
  checkShapes(documents, SHAPES[PART.documents], PART.documents);
  checkShapes(sections, SHAPES[PART.sections], PART.sections);
  checkShapes(chunks, SHAPES[PART.chunks], PART.chunks);
  checkShapes(sentences, SHAPES[PART.sentences], PART.sentences);
  // Primary keys of the store: a repeat would abort the import half-way (rolled back, but with a store error).
  checkUnique(sections as unknown as Array<Record<string, unknown>>, 'id', PART.sections);
  checkUnique(chunks as unknown as Array<Record<string, unknown>>, 'id', PART.chunks);
  checkUnique(sentences as unknown as Array<Record<string, unknown>>, 'id', PART.sentences);
  const texts = new Map(documents.map((d) => [d.id, d.text]));
  restoreText(chunks, texts, PART.chunks);
  restoreText(sentences, texts, PART.sentences);

  const docIds = new Set<string>();
  for (const d of documents) {
    if (docIds.has(d.id)) throw invalid(`document ${d.id} appears twice`, PART.documents);
    docIds.add(d.id);
  }
  for (const s of sections) {
    if (!docIds.has(s.docId)) throw invalid(`section ${s.id} belongs to no document`, PART.sections);
  }
  const chunkIds = new Set<string>();
  for (const c of chunks) {
    if (!docIds.has(c.docId)) throw invalid(`chunk ${c.id} belongs to no document`, PART.chunks);
    chunkIds.add(c.id);
  }
  const sentencesPerDoc = new Map<string, number>();
  for (const s of sentences) {
    if (!chunkIds.has(s.chunkId)) throw invalid(`sentence ${s.id} belongs to no chunk`, PART.sentences);
    sentencesPerDoc.set(s.docId, (sentencesPerDoc.get(s.docId) ?? 0) + 1);
  }
  const vectors = decodeVectorParts(read, manifest.embedder, sentencesPerDoc);

  let graph: Record<string, unknown> | undefined;
  const graphBytes = read.parts.get(PART.graph);
  if (graphBytes) {
    const decoded = decodeStructured<unknown>(graphBytes, PART.graph);
    if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) {
      throw invalid('the concept graph is not an object', PART.graph);
    }
    graph = decoded as Record<string, unknown>;
    // A graph for other chunks is stale derived data (bundles exported while indexing ran, or after a Cancel,
    // by app versions that did not leave it out): dropped, so the importer rebuilds it, instead of refusing the
    // user's own backup. A graph for exactly these chunks must be sound.
    if (!graphCoversChunks(graph, chunkIds)) graph = undefined;
  }
  if (graph && isConceptTableGraph(graph)) {
    const problem = conceptTableGraphProblem(graph);
    if (problem) throw invalid(`the concept table is unusable: ${problem}`, PART.graph);
  }
  if (graph && isCompactGraph(graph)) {
    const problem = compactGraphProblem(graph);
    if (problem) throw invalid(`the compact concept graph is unusable: ${problem}`, PART.graph);
    if (manifest.embedder && graph.dimension !== manifest.embedder.dimension) {
      throw invalid(
        `the compact concept graph was made with vectors of dimension ${graph.dimension}, ` +
          `the bundle's are ${manifest.embedder.dimension}`,
        PART.graph,
      );
    }
  }

  const tables: Record<string, unknown[]> = {};
  for (const entry of manifest.parts) {
    if (!entry.name.startsWith(PART.tablePrefix) || !entry.name.endsWith('.bin')) continue;
    const name = entry.name.slice(PART.tablePrefix.length, -'.bin'.length);
    // The reader already refuses part names that are Object.prototype properties; a table name is a key here.
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name) || name in Object.prototype) {
      throw invalid(`part ${entry.name} does not name a table`, entry.name);
    }
    tables[name] = decodeTablePart(name, entry, read.parts.get(entry.name)!, manifest.embedder);
  }

  return {
    embedder: manifest.embedder,
    params: manifest.params,
    documents,
    sections,
    chunks,
    sentences,
    vectors,
    graph,
    tables,
  };
}

/**
 * A layer table's records from its part's decoded payload, checked as a whole read checks them (count, shapes,
 * unique keys, vector sizes): the whole read and a library read by ranges (its KG beside its pages) share it.
 */
export function decodeTablePart(
  name: string,
  entry: PartEntry,
  payload: Uint8Array,
  embedder: EmbedderInfo | null,
): unknown[] {
  const records = decodeStructured<unknown[]>(payload, entry.name);
  if (!Array.isArray(records) || records.length !== entry.count) {
    throw invalid(`part ${entry.name} does not hold ${entry.count} records`, entry.name);
  }
  checkTable(name, records, entry.name, embedder);
  return records;
}

/** The part that holds a layer table (`table.<name>.bin`). */
export function tablePartName(name: string): string {
  return `${PART.tablePrefix}${name}.bin`;
}

/** Record counts of a snapshot (the manifest's counts and `info`). */
export function snapshotCounts(s: IndexSnapshot): Record<string, number> {
  let vectorRows = 0;
  for (const v of s.vectors.values()) vectorRows += s.embedder ? v.length / s.embedder.dimension : 0;
  const counts: Record<string, number> = {
    documents: s.documents.length,
    sections: s.sections.length,
    chunks: s.chunks.length,
    sentences: s.sentences.length,
    vectors: vectorRows,
  };
  // The edges of the graph the walk reads, as the library that wrote the bundle counts them (its index record): for a
  // compact graph the θsem-kept edges, not every co-occurrence edge under the mask (a library of 414,406 edges was
  // exported as 468,708: issue 44); a concept table's graph has no semantic filter, its edges are the walk's.
  if (isCompactGraph(s.graph)) {
    counts.concepts = s.graph.concepts;
    counts.edges = s.graph.keptEdges;
  } else if (isConceptTableGraph(s.graph)) {
    counts.concepts = s.graph.concepts;
    counts.edges = s.graph.edges;
  }
  const terms = s.graph?.terms;
  if (Array.isArray(terms)) counts.concepts = terms.length;
  const targets = s.graph?.edgeTargets;
  if (targets instanceof Uint32Array) counts.edges = targets.length / 2;
  for (const [name, records] of Object.entries(s.tables)) counts[name] = records.length;
  return counts;
}
