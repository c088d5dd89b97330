// Name and predicate matching against the KG, tier by tier: exact (names, mention spellings, alias attributes),
// fuzzy (a near spelling, the same words), embedding (only when the first two found nothing), and predicates
// against attribute keys and relation descriptions.
import { describe, expect, it } from 'vitest';
import type { KgEntity } from '../../../src/core/kg/index.ts';
import { describes, findEntities, keyScore, type KgView } from '../../../src/core/logical/kgMatch.ts';

const entity = (id: string, name: string, extra: Partial<KgEntity> = {}): KgEntity => ({
  id,
  name,
  type: 'person',
  description: '',
  chunkIds: ['c#1'],
  mentions: [{ chunkId: 'c#1', name, type: 'person', description: '' }],
  ...extra,
});

const kg: KgView = {
  entities: [
    entity('andrew james somers', 'Andrew James Somers', {
      attributes: [{ key: 'alias', value: 'Andy Summers', kind: 'text', chunkIds: ['c#1'] }],
    }),
    entity('bo kim', 'Bo Kim', { vector: new Float32Array([1, 0, 0]) }),
    entity('cy moe', 'Cy Moe', { vector: new Float32Array([0, 1, 0]) }),
  ],
  relations: [],
  // The "embedder" puts one nickname next to Cy Moe and everything else nowhere near.
  embed: async (text) =>
    text === 'The Director' ? new Float32Array([0.1, 0.99, 0]) : new Float32Array([0, 0, 1]),
};

describe('matching names', () => {
  it('finds by alias exactly, by near spelling fuzzily, and by embedding last', async () => {
    expect(await findEntities(kg, 'andy summers')).toMatchObject({
      tier: 'exact',
      entities: [{ id: 'andrew james somers' }],
    });
    expect(await findEntities(kg, 'Bo Kimm')).toMatchObject({ tier: 'fuzzy', entities: [{ id: 'bo kim' }] });
    expect(await findEntities(kg, 'Kim Bo')).toMatchObject({ tier: 'fuzzy', entities: [{ id: 'bo kim' }] });
    // cos([0.1, 0.99, 0], [0, 1, 0]) = 0.99/√(0.01 + 0.9801) ≈ 0.995 ≥ 0.85.
    expect(await findEntities(kg, 'The Director')).toMatchObject({
      tier: 'embedding',
      entities: [{ id: 'cy moe' }],
    });
    expect(await findEntities(kg, 'Zed Zebra')).toEqual({ entities: [] });
  });
});

describe('matching predicates', () => {
  it('scores attribute keys by shared words and needs every word of a relation predicate', () => {
    expect(keyScore('date of birth', 'birth date')).toBe(1);
    // {death, dat} vs {birth, dat}: 1 shared of 3.
    expect(keyScore('death date', 'birth date')).toBeCloseTo(1 / 3, 6);
    expect(keyScore('release date', 'released')).toBe(0.5);
    expect(describes('director', 'directed by')).toBe(true);
    expect(describes('birth place', 'born in')).toBe(false);
  });
});
