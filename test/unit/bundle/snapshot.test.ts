// Whole-index bundles: every layer round-trips, vectors within int8 precision (exact as Float32), layers that
// disagree with each other are refused, and merging keeps duplicate content once.
import { describe, expect, it } from 'vitest';
import {
  BundleError,
  bundleBytes,
  mergeSnapshots,
  readBundle,
  readIndexBundle,
  writeBundle,
  writeSnapshotBundle,
} from '../../../src/core/bundle/index.ts';
import { jsonlPart } from '../../../src/core/bundle/codecs.ts';
import { indexParts } from '../../../src/core/bundle/snapshot.ts';
import { DIM, DOCS, EMBEDDER, snapshotOf } from './fixtures.ts';

function cosine(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += a[i] * b[i];
  return d;
}

const graph = {
  format: 'conceptrag-graph',
  version: 1,
  chunkIds: DOCS.map((d) => `${d.id}#0000#0000`),
  terms: ['lothair ii', 'tours'],
  idf: new Float32Array([0.4, 1.1]),
  edgeTargets: new Uint32Array([1, 0]),
};

describe('index bundle round trip', () => {
  it('returns every record, the graph, the KG table and Float32 vectors exactly', async () => {
    const original = { ...snapshotOf(), graph };
    // 'full': the graph as it is (by default a lexical graph goes as its concept table, see conceptTable.test.ts).
    const bytes = await bundleBytes(
      writeSnapshotBundle(original, { appVersion: '0.1.0', vectors: 'f32', graph: 'full' }),
    );
    const back = await readIndexBundle(bytes, EMBEDDER);
    expect(back.documents).toEqual(original.documents);
    expect(back.sections).toEqual(original.sections);
    expect(back.chunks).toEqual(original.chunks);
    expect(back.sentences).toEqual(original.sentences);
    expect(back.graph).toEqual(graph);
    expect(back.tables).toEqual(original.tables);
    expect([...back.vectors.keys()].sort()).toEqual(DOCS.map((d) => d.id));
    for (const [id, v] of original.vectors) expect(back.vectors.get(id)).toEqual(v);
    const manifest = (await readBundle(bytes)).manifest;
    expect(manifest.counts).toMatchObject({ documents: 3, chunks: 3, sentences: 7, vectors: 7, concepts: 2 });
  });

  it('keeps int8 vectors within cosine 0.999 of the originals, still unit length', async () => {
    const original = snapshotOf();
    const back = await readIndexBundle(
      await bundleBytes(writeSnapshotBundle(original, { appVersion: '0.1.0' })),
      EMBEDDER,
    );
    for (const [id, v] of original.vectors) {
      const w = back.vectors.get(id)!;
      for (let r = 0; r < v.length / DIM; r++) {
        const a = v.subarray(r * DIM, (r + 1) * DIM);
        const b = w.subarray(r * DIM, (r + 1) * DIM);
        expect(cosine(a, b)).toBeGreaterThan(0.999);
        expect(cosine(b, b)).toBeCloseTo(1, 5);
      }
    }
  });

  it('stores chunk and sentence texts once (as document slices) and restores them exactly', async () => {
    const original = snapshotOf();
    original.sentences[1] = { ...original.sentences[1], text: 'not the slice' };
    const bytes = await bundleBytes(writeSnapshotBundle(original, { appVersion: 'x' }));
    const parts = (await readBundle(bytes)).parts;
    const chunkLines = new TextDecoder().decode(parts.get('chunks.jsonl')).split('\n');
    expect(chunkLines.every((l) => !('text' in JSON.parse(l)))).toBe(true);
    const sentenceLines = new TextDecoder().decode(parts.get('sentences.jsonl')).split('\n');
    expect(sentenceLines.filter((l) => 'text' in JSON.parse(l))).toHaveLength(1);
    const back = await readIndexBundle(bytes);
    expect(back.chunks).toEqual(original.chunks);
    expect(back.sentences).toEqual(original.sentences);
  });

  it('refuses a bundle whose vectors do not match the sentences', async () => {
    const broken = snapshotOf();
    broken.vectors.set(DOCS[0].id, new Float32Array(2 * DIM)); // 3 sentences, 2 vectors
    const bytes = await bundleBytes(writeSnapshotBundle(broken, { appVersion: 'x' }));
    await expect(readIndexBundle(bytes)).rejects.toThrow(
      `bundle: document ${DOCS[0].id} has 3 sentences but 2 vectors`,
    );
  });

  it('refuses a chunk without its document; leaves a graph for other chunks out', async () => {
    const orphan = snapshotOf();
    orphan.documents = orphan.documents.slice(1);
    orphan.vectors.delete(DOCS[0].id);
    const e = await readIndexBundle(
      await bundleBytes(writeSnapshotBundle(orphan, { appVersion: 'x' })),
    ).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(BundleError);
    expect((e as BundleError).kind).toBe('invalid-content');
    expect((e as BundleError).message).toMatch(/section .* belongs to no document/);

    // A graph for other chunks is stale derived data: the writer leaves it out (the importer rebuilds it).
    const wrongGraph = { ...snapshotOf(), graph: { ...graph, chunkIds: ['elsewhere#0000#0000'] } };
    const back = await readIndexBundle(
      await bundleBytes(writeSnapshotBundle(wrongGraph, { appVersion: 'x' })),
    );
    expect(back.graph).toBeUndefined();
    expect(back.documents).toHaveLength(DOCS.length);
  });

  it('refuses a bundle that lacks a required layer', async () => {
    const parts = [];
    for await (const p of indexParts(snapshotOf(), { appVersion: 'x' })) {
      if (p.name !== 'chunks.jsonl') parts.push(p);
    }
    const bytes = await bundleBytes(writeBundle(parts, { appVersion: 'x', embedder: EMBEDDER }));
    await expect(readIndexBundle(bytes)).rejects.toThrow('bundle: the part chunks.jsonl is missing');
  });

  it('refuses a record count that disagrees with the manifest', async () => {
    const part = jsonlPart('documents.jsonl', [{ id: 'a' }]);
    const bytes = await bundleBytes(
      writeBundle([{ ...part, count: 2 }], { appVersion: 'x', embedder: null }),
    );
    await expect(readIndexBundle(bytes)).rejects.toThrow(
      'bundle: part documents.jsonl holds 1 records, the manifest says 2',
    );
  });
});

describe('mergeSnapshots', () => {
  it('adds new documents once, drops the stale graph and unions KG chunk links', () => {
    const a = { ...snapshotOf(DOCS.slice(0, 2)), graph };
    const b = snapshotOf(DOCS.slice(1));
    // B's entity names a chunk of its new document and one no document holds: the latter link is dropped.
    (b.tables.kgEntities[0] as { chunkIds: string[] }).chunkIds = [
      `${DOCS[2].id}#0000#0000`,
      'other#0000#0000',
    ];
    const merged = mergeSnapshots(a, b);
    expect(merged.documents.map((d) => d.id)).toEqual(DOCS.map((d) => d.id));
    expect(merged.sentences).toHaveLength(7);
    expect(merged.vectors.size).toBe(3);
    expect(merged.graph).toBeUndefined();
    expect((merged.tables.kgEntities[0] as { chunkIds: string[] }).chunkIds).toEqual([
      `${DOCS[0].id}#0000#0000`,
      `${DOCS[2].id}#0000#0000`,
    ]);
    // Merging what is already there changes nothing and keeps the graph.
    expect(mergeSnapshots(a, snapshotOf(DOCS.slice(0, 1), false)).graph).toBe(graph);
  });

  it('refuses to merge vectors of another embedder', () => {
    const other = { ...snapshotOf(), embedder: { id: 'hf:x', dimension: DIM } };
    expect(() => mergeSnapshots(snapshotOf(), other)).toThrow(
      'bundle: built with embedder hf:x (dimension 8) but this library uses test-embedder@1 (dimension 8)',
    );
  });
});
