// One merge rule for both paths: adding library B to library A in memory (mergeSnapshots, what `cli index --into`
// does) and importing B into A's IndexedDB store (writeSnapshot, what the app's bundle import does) give the same
// library — documents, sections, chunks, sentences, vectors and KG — in either direction, with a document that
// both hold (same id) and one that B holds under another id (same content).
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { quantizeInt8 } from '../../../src/core/bundle/codecs.ts';
import { describe, expect, it } from 'vitest';
import { mergeSnapshots, type IndexSnapshot } from '../../../src/core/bundle/index.ts';
import { librarySnapshot } from '../../../src/store/bundleExport.ts';
import { writeSnapshot } from '../../../src/store/bundleImport.ts';
import { openDatabase } from '../../../src/store/db.ts';
import { DOCS, EMBEDDER, fakeVector, prepared, type FixtureDoc } from './fixtures.ts';

const [LOTHAIR, ERMENGARDE, PORT] = DOCS;
/** Lothair's text again under another id (as an older id scheme or a hand-made bundle would give it). */
const LOTHAIR_COPY: FixtureDoc = { ...LOTHAIR, id: 'd00000000000000ff' };
const chunkOf = (d: FixtureDoc): string => `${d.id}#0000#0000`;

function entity(id: string, name: string, mentions: Array<[FixtureDoc, string]>) {
  return {
    id,
    name,
    type: 'person',
    description: mentions.map(([, description]) => description).join(' '),
    chunkIds: mentions.map(([d]) => chunkOf(d)).sort(),
    mentions: mentions.map(([d, description]) => ({
      chunkId: chunkOf(d),
      name,
      type: 'person',
      description,
    })),
    vector: fakeVector(name).buffer,
  };
}

function state(d: FixtureDoc, entityIds: string[], relationIds: string[] = []) {
  return { chunkId: chunkOf(d), status: 'done', entityIds, relationIds, attempts: 1, finishedAt: 1 };
}

function library(docs: FixtureDoc[], tables: Record<string, unknown[]>): IndexSnapshot {
  const parts = docs.map(prepared);
  // The copy has Lothair's text, so it has Lothair's content hash.
  for (const p of parts) if (p.doc.id === LOTHAIR_COPY.id) p.doc.hash = `hash-of-${LOTHAIR.id}`;
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

/** A: Lothair and Ermengarde, KG built for Lothair only. */
function libraryA(): IndexSnapshot {
  return library([LOTHAIR, ERMENGARDE], {
    kgChunks: [state(LOTHAIR, ['lothair ii'])],
    kgEntities: [entity('lothair ii', 'Lothair II', [[LOTHAIR, 'King of Lotharingia.']])],
    kgRelations: [],
  });
}

/** B: Ermengarde (as in A), Port of Spain, and Lothair's text under another id; KG built for all three. */
function libraryB(): IndexSnapshot {
  return library([ERMENGARDE, PORT, LOTHAIR_COPY], {
    kgChunks: [
      state(ERMENGARDE, ['lothair ii', 'ermengarde'], ['ermengarde→lothair ii']),
      state(PORT, ['port of spain']),
      state(LOTHAIR_COPY, ['lothair ii', 'teutberga']),
    ],
    kgEntities: [
      entity('lothair ii', 'Lothair II', [
        [ERMENGARDE, 'Son of Ermengarde.'],
        [LOTHAIR_COPY, 'A king.'],
      ]),
      entity('ermengarde', 'Ermengarde', [[ERMENGARDE, 'Mother of Lothair II.']]),
      entity('port of spain', 'Port of Spain', [[PORT, 'Capital of Trinidad.']]),
      entity('teutberga', 'Teutberga', [[LOTHAIR_COPY, 'Wife of Lothair II.']]),
    ],
    kgRelations: [
      {
        id: 'ermengarde→lothair ii',
        source: 'ermengarde',
        target: 'lothair ii',
        description: 'Mother of.',
        weight: 8,
        chunkIds: [chunkOf(ERMENGARDE)],
        mentions: [{ chunkId: chunkOf(ERMENGARDE), description: 'Mother of.', weight: 8 }],
      },
    ],
  });
}

let dbCounter = 0;
/** `add` imported into a store that holds `base` (itself imported into an empty store), read back whole. */
async function importedInto(base: IndexSnapshot, add: IndexSnapshot): Promise<IndexSnapshot> {
  const db = openDatabase(`merge-${dbCounter++}`, { indexedDB: new IDBFactory(), IDBKeyRange });
  await writeSnapshot(db, base);
  await writeSnapshot(db, add);
  return librarySnapshot(db);
}

type Keyed = { id?: string; chunkId?: string };
const byKey = (a: Keyed, b: Keyed): number =>
  String(a.id ?? a.chunkId).localeCompare(String(b.id ?? b.chunkId));

function int8Codes(v: Float32Array, dim: number): number[] {
  const rows = v.length / dim;
  return Array.from(new Int8Array(quantizeInt8(v, dim).buffer, rows * 4, rows * dim));
}

/** Layers in key order, records without absent fields (IndexedDB keeps `undefined` fields, JSON does not). */
function comparable(s: IndexSnapshot) {
  const sorted = <T>(records: readonly T[]) =>
    [...records]
      .map((r) => Object.fromEntries(Object.entries(r as object).filter(([, v]) => v !== undefined)))
      .sort(byKey);
  return {
    documents: sorted(s.documents),
    sections: sorted(s.sections),
    chunks: sorted(s.chunks),
    sentences: sorted(s.sentences),
    // The store keeps vectors as int8 (schema v2): both sides compared by the codes the store would hold.
    vectors: [...s.vectors.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, v]) => [id, int8Codes(v, s.embedder?.dimension ?? 1)]),
    tables: Object.fromEntries(
      ['kgChunks', 'kgEntities', 'kgRelations'].map((name) => [name, sorted(s.tables[name] ?? [])]),
    ),
  };
}

/** Every chunk a KG record names, so none can point outside the merged library. */
function namedChunks(s: IndexSnapshot): string[] {
  const out: string[] = [];
  for (const r of s.tables.kgChunks ?? []) out.push((r as { chunkId: string }).chunkId);
  for (const r of [...(s.tables.kgEntities ?? []), ...(s.tables.kgRelations ?? [])]) {
    const k = r as { chunkIds: string[]; mentions?: Array<{ chunkId: string }> };
    out.push(...k.chunkIds, ...(k.mentions ?? []).map((m) => m.chunkId));
  }
  return out;
}

const entityOf = (s: IndexSnapshot, id: string) =>
  (s.tables.kgEntities as Array<ReturnType<typeof entity>>).find((e) => e.id === id);

describe('one merge rule for the CLI and the bundle import', () => {
  it('B into A: both paths give the same library; duplicates are kept once and the KG is re-keyed onto A', async () => {
    const inMemory = mergeSnapshots(libraryA(), libraryB());
    const inStore = await importedInto(libraryA(), libraryB());
    expect(comparable(inStore)).toEqual(comparable(inMemory));

    expect(inMemory.documents.map((d) => d.id).sort()).toEqual([LOTHAIR.id, ERMENGARDE.id, PORT.id]);
    expect(inMemory.sentences).toHaveLength(7);
    expect([...inMemory.vectors.keys()].sort()).toEqual([LOTHAIR.id, ERMENGARDE.id, PORT.id]);
    const chunks = new Set(inMemory.chunks.map((c) => c.id));
    expect(namedChunks(inMemory).filter((id) => !chunks.has(id))).toEqual([]);
    // Lothair's chunk keeps A's extraction (A built it); B's Ermengarde chunk, unbuilt in A, brings its own.
    const lothair = entityOf(inMemory, 'lothair ii')!;
    expect(lothair.chunkIds).toEqual([chunkOf(LOTHAIR), chunkOf(ERMENGARDE)]);
    expect(lothair.description).toBe('King of Lotharingia. Son of Ermengarde.');
    expect(lothair.vector).toEqual(fakeVector('Lothair II').buffer);
    expect(entityOf(inMemory, 'ermengarde')!.chunkIds).toEqual([chunkOf(ERMENGARDE)]);
    expect((inMemory.tables.kgChunks as Keyed[]).map((s) => s.chunkId).sort()).toEqual(
      [chunkOf(LOTHAIR), chunkOf(ERMENGARDE), chunkOf(PORT)].sort(),
    );
    expect(inMemory.tables.kgRelations).toHaveLength(1);
    // B's extraction of its copy of Lothair found Teutberga; A's own extraction of that chunk stands.
    expect(entityOf(inMemory, 'teutberga')).toBeUndefined();
  });

  it("A into B: both paths give the same library; A's Lothair is B's copy, which keeps B's extraction", async () => {
    const inMemory = mergeSnapshots(libraryB(), libraryA());
    const inStore = await importedInto(libraryB(), libraryA());
    expect(comparable(inStore)).toEqual(comparable(inMemory));

    expect(inMemory.documents.map((d) => d.id).sort()).toEqual(
      [LOTHAIR_COPY.id, ERMENGARDE.id, PORT.id].sort(),
    );
    const chunks = new Set(inMemory.chunks.map((c) => c.id));
    expect(namedChunks(inMemory).filter((id) => !chunks.has(id))).toEqual([]);
    const lothair = entityOf(inMemory, 'lothair ii')!;
    expect(lothair.chunkIds).toEqual([chunkOf(LOTHAIR_COPY), chunkOf(ERMENGARDE)].sort());
    expect(lothair.description).toBe('Son of Ermengarde. A king.');
    expect(entityOf(inMemory, 'teutberga')!.chunkIds).toEqual([chunkOf(LOTHAIR_COPY)]);
  });

  it("a kept document without vectors takes the added copy's (a backup taken mid-embedding, then a later one)", async () => {
    // A: both documents stored, Ermengarde not embedded yet. B: the same two, both embedded.
    const a = library([LOTHAIR, ERMENGARDE], {});
    a.vectors.delete(ERMENGARDE.id);
    const b = library([LOTHAIR, ERMENGARDE], {});
    const memory = mergeSnapshots(a, b);
    const stored = await importedInto(a, b);
    for (const merged of [memory, stored]) {
      expect(merged.documents).toHaveLength(2);
      expect([...merged.vectors.keys()].sort()).toEqual([ERMENGARDE.id, LOTHAIR.id].sort());
    }
    expect(comparable(stored).vectors).toEqual(comparable(memory).vectors);
    expect(int8Codes(stored.vectors.get(ERMENGARDE.id)!, EMBEDDER.dimension)).toEqual(
      int8Codes(b.vectors.get(ERMENGARDE.id)!, EMBEDDER.dimension),
    );
    // Vectors whose rows do not match the kept document's sentences are not taken.
    const odd = library([LOTHAIR, ERMENGARDE], {});
    odd.vectors.set(ERMENGARDE.id, new Float32Array(EMBEDDER.dimension * 99));
    expect(mergeSnapshots(a, odd).vectors.has(ERMENGARDE.id)).toBe(false);
  });

  it('re-keys the KG of a copy onto the kept document when the kept one has none', async () => {
    const unbuilt = { ...libraryA(), tables: {} };
    const inMemory = mergeSnapshots(unbuilt, libraryB());
    const inStore = await importedInto(unbuilt, libraryB());
    expect(comparable(inStore)).toEqual(comparable(inMemory));
    const lothair = entityOf(inMemory, 'lothair ii')!;
    expect(lothair.chunkIds).toEqual([chunkOf(LOTHAIR), chunkOf(ERMENGARDE)]);
    expect(lothair.mentions.map((m) => m.chunkId)).toEqual([chunkOf(ERMENGARDE), chunkOf(LOTHAIR)]);
    expect((inMemory.tables.kgChunks as Keyed[]).map((s) => s.chunkId)).toContain(chunkOf(LOTHAIR));
    expect(entityOf(inMemory, 'teutberga')!.chunkIds).toEqual([chunkOf(LOTHAIR)]);
  });

  it('keeps a document once when the added library itself holds it twice, also into an empty store', async () => {
    const twice = library([LOTHAIR, LOTHAIR_COPY], {
      kgChunks: [state(LOTHAIR_COPY, ['teutberga'])],
      kgEntities: [entity('teutberga', 'Teutberga', [[LOTHAIR_COPY, 'Wife of Lothair II.']])],
    });
    const empty = library([], {});
    const inMemory = mergeSnapshots(empty, twice);
    const inStore = await importedInto(empty, twice);
    expect(comparable(inStore)).toEqual(comparable(inMemory));
    expect(inMemory.documents.map((d) => d.id)).toEqual([LOTHAIR.id]);
    expect(entityOf(inMemory, 'teutberga')!.chunkIds).toEqual([chunkOf(LOTHAIR)]);
  });
});
