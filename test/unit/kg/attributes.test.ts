// Entity attributes in the KG: normalized when an extraction is read, kept per chunk (in the mentions), so removing
// a chunk removes exactly what it stated, in memory, in IndexedDB and through a bundle merge; records written
// before attributes existed still load.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { layerRecordsToMerge, mergeLayerRecord } from '../../../src/core/bundle/merge.ts';
import { normalizeAttributeValue, normalizeDate, normalizeNumber } from '../../../src/core/kg/normalize.ts';
import { validateExtraction } from '../../../src/core/kg/schema.ts';
import { MemoryKgStore, type ChunkOutcome } from '../../../src/core/kg/store.ts';
import type { Extraction } from '../../../src/core/kg/types.ts';
import { openDatabase } from '../../../src/store/db.ts';
import { DexieKgStore, entityFromRecord } from '../../../src/store/kgStore.ts';

const done = (extraction: Extraction): ChunkOutcome => ({
  status: 'done',
  extraction,
  attempts: 1,
  inputTokens: 0,
  outputTokens: 0,
  cost: 0,
});

function extraction(raw: unknown): Extraction {
  const v = validateExtraction(raw);
  if (!v.ok) throw new Error(v.errors.join('; '));
  return v.value;
}

const chunkA = extraction({
  entities: [
    {
      name: 'Phoolwari',
      type: 'work',
      description: 'A 1946 film.',
      attributes: [
        { key: 'Release_Date', value: '3 May 1946' },
        { key: 'runtime', value: '1,200 minutes' },
      ],
    },
  ],
  relations: [],
});
const chunkB = extraction({
  entities: [
    {
      name: 'phoolwari',
      type: 'work',
      description: 'An Indian film.',
      attributes: [
        { key: 'release date', value: 'May 3, 1946' },
        { key: 'country', value: 'India' },
      ],
    },
  ],
  relations: [],
});

describe('attribute values', () => {
  it('normalizes dates to ISO and numbers with their unit', () => {
    expect(normalizeDate('3 May 1945')).toBe('1945-05-03');
    expect(normalizeDate('May 3, 1945')).toBe('1945-05-03');
    expect(normalizeDate('March 1990')).toBe('1990-03');
    expect(normalizeDate('1946')).toBe('1946');
    expect(normalizeDate('8 August 869')).toBe('0869-08-08');
    expect(normalizeDate('31 February 1990')).toBeUndefined();
    expect(normalizeNumber('1,234,567 inhabitants')).toEqual({ value: 1234567, unit: 'inhabitants' });
    expect(normalizeNumber('12 million')).toEqual({ value: 12000000, unit: '' });
    expect(normalizeAttributeValue('3.5 km')).toEqual({ kind: 'number', value: '3.5 km' });
    expect(normalizeAttributeValue('India')).toEqual({ kind: 'text', value: 'India' });
    // A bare 4-digit number is a year, except under a key that counts or measures.
    expect(normalizeAttributeValue('1911', 'founded')).toEqual({ kind: 'date', value: '1911' });
    expect(normalizeAttributeValue('1946', 'population')).toEqual({ kind: 'number', value: '1946' });
  });

  it('refuses malformed attributes naming the entity and the field', () => {
    const v = validateExtraction({
      entities: [
        { name: 'X', type: 'work', description: '', attributes: [{ key: '', value: 3 }, { key: 'k' }] },
      ],
    });
    expect(v.ok).toBe(false);
    if (!v.ok) {
      expect(v.errors).toContain('entities[0].attributes[0].key must be a non-empty string (got "")');
      expect(v.errors).toContain(
        'entities[0].attributes[1].value must be a non-empty string or a number (got null)',
      );
    }
  });

  it('caps the distinct attributes of an entity, not repeats of the same fact', () => {
    const year = (i: number) => ({ key: 'date', value: String(1900 + i) });
    // 92 entries, 36 distinct (a chunk of the 100 MiB bench library, as the scripted server extracts it).
    const repeated = Array.from({ length: 92 }, (_, i) => year(i % 36));
    const kept = validateExtraction({ entities: [{ name: 'X', attributes: repeated }] });
    expect(kept.ok).toBe(true);
    if (kept.ok) expect(kept.value.entities[0].attributes).toHaveLength(36);
    const many = validateExtraction({
      entities: [{ name: 'X', attributes: Array.from({ length: 41 }, (_, i) => year(i)) }],
    });
    expect(many.ok).toBe(false);
    if (!many.ok) expect(many.errors).toEqual(['entities[0].attributes: too many (41 > 40)']);
    const endless = validateExtraction({
      entities: [{ name: 'X', attributes: Array.from({ length: 401 }, () => year(0)) }],
    });
    expect(endless.ok).toBe(false);
    if (!endless.ok) expect(endless.errors).toEqual(['entities[0].attributes: too many (401 > 400 entries)']);
  });
});

describe('attributes kept per chunk', () => {
  it('merges two chunks, lists the chunks of each attribute, and a removal takes exactly its share', async () => {
    const store = new MemoryKgStore();
    await store.commit('d#0000#0000', done(chunkA));
    await store.commit('d#0000#0001', done(chunkB));
    const e = store.entityMap.get('phoolwari')!;
    expect(e.attributes).toEqual([
      { key: 'release date', value: '1946-05-03', kind: 'date', chunkIds: ['d#0000#0000', 'd#0000#0001'] },
      { key: 'runtime', value: '1200 minutes', kind: 'number', chunkIds: ['d#0000#0000'] },
      { key: 'country', value: 'India', kind: 'text', chunkIds: ['d#0000#0001'] },
    ]);
    // The chunk side of the mutual index names the entity.
    expect(store.stateMap.get('d#0000#0001')!.entityIds).toEqual(['phoolwari']);
    await store.removeChunks(['d#0000#0000']);
    expect(store.entityMap.get('phoolwari')!.attributes).toEqual([
      { key: 'release date', value: '1946-05-03', kind: 'date', chunkIds: ['d#0000#0001'] },
      { key: 'country', value: 'India', kind: 'text', chunkIds: ['d#0000#0001'] },
    ]);
  });

  it('survives IndexedDB and a document removal there, and reads records without attributes', async () => {
    const db = openDatabase('attrs', { indexedDB: new IDBFactory(), IDBKeyRange });
    const store = new DexieKgStore(db);
    await store.commit('d#0000#0000', done(chunkA));
    await store.commit('e#0000#0000', done(chunkB));
    const [loaded] = await store.entities();
    expect(loaded.attributes!.map((a) => `${a.key}=${a.value}@${a.chunkIds.join(',')}`)).toEqual([
      'release date=1946-05-03@d#0000#0000,e#0000#0000',
      'runtime=1200 minutes@d#0000#0000',
      'country=India@e#0000#0000',
    ]);
    await store.removeDocument('e');
    const [after] = await store.entities();
    expect(after.attributes!.map((a) => `${a.key}=${a.value}@${a.chunkIds.join(',')}`)).toEqual([
      'release date=1946-05-03@d#0000#0000',
      'runtime=1200 minutes@d#0000#0000',
    ]);
    // A record of an earlier version: no mentions, no attributes.
    const old = entityFromRecord({ id: 'x', name: 'X', type: 'work', description: 'old', chunkIds: ['c#1'] });
    expect(old?.attributes).toBeUndefined();
    expect(old?.chunkIds).toEqual(['c#1']);
    db.close();
  });

  it('keeps attributes through the bundle merge (re-keyed chunks and a record present on both sides)', async () => {
    const store = new MemoryKgStore();
    await store.commit('d#0000#0000', done(chunkA));
    const record = JSON.parse(JSON.stringify(store.entityMap.get('phoolwari')));
    const moved = layerRecordsToMerge(
      'kgEntities',
      [record],
      { chunkIds: new Map([['d#0000#0000', 'd2#0000#0000']]) } as never,
      new Set(),
    ) as Array<{ attributes: Array<{ key: string; chunkIds: string[] }> }>;
    expect(moved[0].attributes.map((a) => `${a.key}@${a.chunkIds.join(',')}`)).toEqual([
      'release date@d2#0000#0000',
      'runtime@d2#0000#0000',
    ]);
    const other = new MemoryKgStore();
    await other.commit('f#0000#0000', done(chunkB));
    const merged = mergeLayerRecord(
      'kgEntities',
      moved[0],
      JSON.parse(JSON.stringify(other.entityMap.get('phoolwari'))),
    ) as { attributes: Array<{ key: string; chunkIds: string[] }> };
    expect(merged.attributes.map((a) => `${a.key}@${a.chunkIds.join(',')}`)).toEqual([
      'release date@d2#0000#0000,f#0000#0000',
      'runtime@d2#0000#0000',
      'country@f#0000#0000',
    ]);
  });
});
