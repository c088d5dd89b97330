// Writes an engine's lexical layer as a library read by ranges (format.ts): the part `pages.bin` and the SHA-256 of
// each of its blocks (`pages.sha256`). Every number a question reads is stored as the engine holds it (Float32
// lengths and shares, Float64 degrees, the table's Float32 IDF), so the paged library ranks exactly as the engine.
import { encodeStructured } from '../bundle/index.ts';
import type { BundlePart } from '../bundle/index.ts';
import { gzip } from '../bundle/index.ts';
import { Sha256 } from '../bundle/index.ts';
import type { LexicalParts } from '../retrieval/index.ts';
import { conceptChunkTf } from '../retrieval/index.ts';
import { ByteWriter } from './bytes.ts';
import {
  PAGES_FORMAT,
  PAGES_HASHES_PART,
  PAGES_PART,
  PAGES_VERSION,
  SECTIONS,
  type GroupSizes,
  type PagedChunkRecord,
  type PagesDirectory,
  type PagesOpen,
  type SectionName,
  type TermEntry,
} from './format.ts';

/**
 * 4 KiB: a question reads many small scattered pieces (concept lists, rows). With 16 KiB blocks the first question
 * of a 41 MB mixed library read 5.7 MB instead of 3.1 MB; the hash list is then 0.8% of the part.
 */
const DEFAULT_BLOCK_SIZE = 4 * 1024;

const GROUPS: GroupSizes = { records: 8, terms: 128, concepts: 128, rows: 32 };

export interface PagedDocument {
  title: string;
  pageStarts?: number[];
}

export interface WrittenPages {
  data: Uint8Array;
  hashes: Uint8Array;
  directory: PagesDirectory;
}

/** Groups of `size` items, each encoded by `encode`; returns the bytes and each group's start (plus the end). */
async function grouped(
  items: number,
  size: number,
  encode: (from: number, to: number) => Promise<Uint8Array> | Uint8Array,
): Promise<{ bytes: Uint8Array[]; offsets: Float64Array; length: number }> {
  const groups = Math.ceil(items / size);
  const offsets = new Float64Array(groups + 1);
  const bytes: Uint8Array[] = [];
  let length = 0;
  for (let g = 0; g < groups; g++) {
    const b = await encode(g * size, Math.min(items, (g + 1) * size));
    bytes.push(b);
    length += b.length;
    offsets[g + 1] = length;
  }
  return { bytes, offsets, length };
}

const encoder = new TextEncoder();
const json = (value: unknown): Promise<Uint8Array> => gzip(encoder.encode(JSON.stringify(value)));

export async function writePagedIndex(
  parts: LexicalParts,
  documentOf: (docId: string) => PagedDocument,
  blockSize = DEFAULT_BLOCK_SIZE,
): Promise<WrittenPages> {
  const { layout, bm25, headings, table, shares, degrees, params } = parts;
  const n = layout.chunks.length;
  const nc = table.terms.length;

  // Records: what evidence shows and the Ask view maps back to its document.
  const records = await grouped(n, GROUPS.records, (from, to) => {
    const out: PagedChunkRecord[] = [];
    for (let k = from; k < to; k++) {
      const c = layout.chunks[k];
      const doc = documentOf(c.docId);
      const sentences: number[] = [];
      for (let s = layout.sentenceOffsets[k]; s < layout.sentenceOffsets[k + 1]; s++)
        sentences.push(layout.sentences[s].start, layout.sentences[s].end);
      out.push({
        id: c.id,
        docId: c.docId,
        title: doc.title,
        ...(doc.pageStarts ? { pageStarts: doc.pageStarts } : {}),
        text: c.text,
        tokens: c.tokens,
        start: c.start,
        ...(c.path ? { path: [...c.path] } : {}),
        ...(c.pageStart !== undefined ? { pageStart: c.pageStart, pageEnd: c.pageEnd } : {}),
        sentences,
      });
    }
    return json(out);
  });

  // Words: a sorted dictionary over the text's and the headings' terms, postings as varint (chunk delta, tf).
  const headingIndex = headings?.headings;
  const vocabulary = new Set(bm25.terms());
  if (headingIndex) for (const t of headingIndex.terms()) vocabulary.add(t);
  const terms = [...vocabulary].sort();
  const postings = new ByteWriter();
  const entries: TermEntry[] = [];
  const writeList = (list: { chunks: Uint32Array; freqs: Uint16Array } | undefined): [number, number] => {
    if (!list) return [0, 0];
    const from = postings.length;
    let previous = 0;
    for (let i = 0; i < list.chunks.length; i++) {
      postings.varint(list.chunks[i] - previous);
      previous = list.chunks[i];
      postings.varint(list.freqs[i]);
    }
    return [from, postings.length - from];
  };
  for (const t of terms) {
    const [textAt, textBytes] = writeList(bm25.postingsOf(t));
    const [headAt, headBytes] = writeList(headingIndex?.postingsOf(t));
    entries.push([t, textAt, textBytes, headAt, headBytes]);
  }
  const postingBytes = postings.take();
  const termGroups = await grouped(terms.length, GROUPS.terms, (from, to) => json(entries.slice(from, to)));

  // Concepts: the dictionary (ids are the sorted order), each concept's chunks with tf and shares, each chunk's row.
  const conceptGroups = await grouped(nc, GROUPS.concepts, (from, to) => json(table.terms.slice(from, to)));
  const tf = conceptChunkTf(table);
  const lists = new ByteWriter();
  const listOffsets = new Float64Array(nc + 1);
  const df = new Uint32Array(nc);
  for (let c = 0; c < nc; c++) {
    const a = table.conceptChunkOffsets[c];
    const b = table.conceptChunkOffsets[c + 1];
    df[c] = b - a;
    let previous = 0;
    for (let i = a; i < b; i++) {
      lists.varint(table.conceptChunks[i] - previous);
      previous = table.conceptChunks[i];
    }
    for (let i = a; i < b; i++) lists.varint(tf[i]);
    for (let i = a; i < b; i++) lists.f32(shares[i]);
    listOffsets[c + 1] = lists.length;
  }
  const listBytes = lists.take();
  const rowWriter = new ByteWriter();
  const rows = await grouped(n, GROUPS.rows, (from, to) => {
    for (let k = from; k < to; k++) {
      let previous = 0;
      for (let j = table.chunkConceptOffsets[k]; j < table.chunkConceptOffsets[k + 1]; j++) {
        rowWriter.varint(table.chunkConcepts[j] - previous);
        previous = table.chunkConcepts[j];
      }
    }
    return rowWriter.take();
  });

  const docChunks = new Map<string, number>();
  for (const c of layout.chunks) docChunks.set(c.docId, (docChunks.get(c.docId) ?? 0) + 1);
  const open: PagesOpen = {
    textLengths: Float32Array.from({ length: n }, (_, k) => bm25.lengthOf(k)),
    headingLengths: Float32Array.from({ length: n }, (_, k) => headingIndex?.lengthOf(k) ?? 0),
    conceptCounts: Uint32Array.from(
      { length: n },
      (_, k) => table.chunkConceptOffsets[k + 1] - table.chunkConceptOffsets[k],
    ),
    tokens: Uint32Array.from(layout.chunks, (c) => c.tokens),
    documentChunks: Uint32Array.from(layout.chunks, (c) => docChunks.get(c.docId)!),
    df,
    idf: Float32Array.from(table.idf),
    degrees: Float64Array.from(degrees),
    listOffsets,
    recordGroups: records.offsets,
    termGroups: termGroups.offsets,
    conceptGroups: conceptGroups.offsets,
    rowGroups: rows.offsets,
    termFirst: terms.filter((_, i) => i % GROUPS.terms === 0),
    conceptFirst: table.terms.filter((_, i) => i % GROUPS.concepts === 0),
  };

  const sectionBytes: Record<SectionName, Uint8Array[]> = {
    open: [await gzip(encodeStructured(open))],
    records: records.bytes,
    terms: termGroups.bytes,
    postings: [postingBytes],
    concepts: conceptGroups.bytes,
    lists: [listBytes],
    rows: rows.bytes,
  };
  const sections = {} as Record<SectionName, [number, number]>;
  let total = 0;
  for (const name of SECTIONS) {
    const length = sectionBytes[name].reduce((a, b) => a + b.length, 0);
    sections[name] = [total, length];
    total += length;
  }
  const data = new Uint8Array(total);
  let at = 0;
  for (const name of SECTIONS) {
    for (const b of sectionBytes[name]) {
      data.set(b, at);
      at += b.length;
    }
  }
  const blocks = Math.ceil(total / blockSize);
  const hashes = new Uint8Array(blocks * 32);
  for (let i = 0; i < blocks; i++) {
    hashes.set(new Sha256().update(data.subarray(i * blockSize, (i + 1) * blockSize)).digest(), i * 32);
  }
  return {
    data,
    hashes,
    directory: {
      format: PAGES_FORMAT,
      version: PAGES_VERSION,
      blockSize,
      chunkCount: n,
      conceptCount: nc,
      termCount: terms.length,
      headingCopies: headings ? headings.copies : 0,
      thetaCo: params.thetaCo,
      groups: GROUPS,
      sections,
    },
  };
}

/** The two bundle parts of a written library: the pages (stored as is, to be read by ranges) and their hashes. */
export function pagesParts(written: WrittenPages): BundlePart[] {
  return [
    {
      name: PAGES_PART,
      kind: 'binary',
      encoding: 'identity',
      count: written.directory.chunkCount,
      data: written.data,
      meta: written.directory as unknown as Record<string, unknown>,
    },
    {
      name: PAGES_HASHES_PART,
      kind: 'binary',
      encoding: 'identity',
      count: written.hashes.length / 32,
      data: written.hashes,
    },
  ];
}
