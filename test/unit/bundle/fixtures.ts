// Small hand-built index snapshots for the bundle tests: documents of given sentences, one chunk per document,
// deterministic unit vectors, an optional KG table with ArrayBuffer vectors.
import { quantizeInt8 } from '../../../src/core/bundle/codecs.ts';
import type { BundlePart } from '../../../src/core/bundle/format.ts';
import type { IndexSnapshot } from '../../../src/core/bundle/snapshot.ts';
import type { ChunkRecord, DocumentRecord, SectionRecord, SentenceRecord } from '../../../src/core/types.ts';

export const DIM = 8;
export const EMBEDDER = { id: 'test-embedder@1', dimension: DIM };

/** Deterministic unit vector for a text (a hash-seeded xorshift), so equal texts get equal vectors. */
export function fakeVector(text: string, dim = DIM): Float32Array {
  let x = 2166136261;
  for (let i = 0; i < text.length; i++) x = Math.imul(x ^ text.charCodeAt(i), 16777619);
  const v = new Float32Array(dim);
  let n = 0;
  for (let i = 0; i < dim; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    v[i] = ((x >>> 0) / 0x100000000) * 2 - 1;
    n += v[i] * v[i];
  }
  for (let i = 0; i < dim; i++) v[i] /= Math.sqrt(n);
  return v;
}

export interface FixtureDoc {
  id: string;
  title: string;
  sentences: string[];
}

export function prepared(doc: FixtureDoc): {
  doc: DocumentRecord;
  sections: SectionRecord[];
  chunks: ChunkRecord[];
  sentences: SentenceRecord[];
  vectors: Float32Array;
} {
  const text = doc.sentences.join(' ');
  const chunkId = `${doc.id}#0000#0000`;
  const sentences: SentenceRecord[] = [];
  let offset = 0;
  doc.sentences.forEach((s, i) => {
    sentences.push({
      id: `${doc.id}:${String(i).padStart(6, '0')}`,
      docId: doc.id,
      chunkId,
      index: i,
      start: offset,
      end: offset + s.length,
      text: s,
    });
    offset += s.length + 1;
  });
  const vectors = new Float32Array(doc.sentences.length * DIM);
  doc.sentences.forEach((s, i) => vectors.set(fakeVector(s), i * DIM));
  return {
    doc: {
      id: doc.id,
      title: doc.title,
      sourceName: `${doc.id}.txt`,
      mime: 'text/plain',
      size: text.length,
      hash: `hash-of-${doc.id}`,
      addedAt: 1700000000000,
      text,
    },
    sections: [
      { id: `${doc.id}#0000`, docId: doc.id, index: 0, heading: '', level: 0, start: 0, end: text.length },
    ],
    chunks: [
      {
        id: chunkId,
        docId: doc.id,
        sectionIndex: 0,
        position: 0,
        order: 0,
        start: 0,
        end: text.length,
        text,
        tokens: Math.ceil(text.length / 4),
        firstSentence: 0,
        sentenceCount: doc.sentences.length,
      },
    ],
    sentences,
    vectors,
  };
}

export const DOCS: FixtureDoc[] = [
  {
    id: 'd0000000000000001',
    title: 'Lothair',
    sentences: ['Lothair II was king of Lotharingia.', 'He married Teutberga.', 'His lover was Waldrada.'],
  },
  {
    id: 'd0000000000000002',
    title: 'Ermengarde',
    sentences: ['Ermengarde of Tours was the wife of Lothair I.', 'She was the mother of Lothair II.'],
  },
  {
    id: 'd0000000000000003',
    title: 'Port of Spain',
    sentences: ['Port of Spain is the capital of Trinidad and Tobago.', 'It lies on the Gulf of Paria.'],
  },
];

export function snapshotOf(docs: FixtureDoc[] = DOCS, withKg = true): IndexSnapshot {
  const parts = docs.map(prepared);
  const tables: Record<string, unknown[]> = {};
  if (withKg) {
    tables.kgEntities = [
      {
        id: 'lothair ii', // src/core/kg ids are normalized names
        name: 'Lothair II',
        type: 'person',
        description: 'king',
        chunkIds: [parts[0].chunks[0].id],
        vector: fakeVector('Lothair II').buffer,
      },
    ];
    tables.kgChunks = [
      { chunkId: parts[0].chunks[0].id, status: 'done', entityIds: ['lothair ii'], relationIds: [] },
    ];
  }
  return {
    embedder: EMBEDDER,
    params: { maxChunkTokens: 1200 },
    documents: parts.map((p) => p.doc),
    sections: parts.flatMap((p) => p.sections),
    chunks: parts.flatMap((p) => p.chunks),
    sentences: parts.flatMap((p) => p.sentences),
    vectors: new Map(parts.map((p) => [p.doc.id, p.vectors])),
    graph: undefined,
    tables,
  };
}

/** A raw vectors part of `rows × dim` floats, as the index writer lays it out (for tests of the reader alone). */
export function vectorsPart(
  name: string,
  vectors: Float32Array,
  dim: number,
  encoding: 'i8' | 'f32',
): BundlePart {
  const count = vectors.length / dim;
  const meta = { dimension: dim };
  if (encoding === 'i8') return { name, kind: 'vectors-i8', count, data: quantizeInt8(vectors, dim), meta };
  const data = new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength).slice();
  return { name, kind: 'vectors-f32', count, data, meta };
}
