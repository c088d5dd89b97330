import { describe, expect, it } from 'vitest';
import { hybrid } from '../../../src/core/kg/hybrid.ts';
import { KgIndex, splitSentences, type KgProvenance } from '../../../src/core/kg/search.ts';
import type { KgEntity, KgRelation } from '../../../src/core/kg/types.ts';
import type { RetrievedChunk } from '../../../src/core/retrieval/types.ts';

const entity = (id: string, name: string, v: number[], chunkIds: string[]): KgEntity => ({
  id,
  name,
  type: 'person',
  description: '',
  chunkIds,
  mentions: [],
  vector: new Float32Array(v),
});
const relation: KgRelation = {
  id: 'ada lovelace→babbage',
  source: 'ada lovelace',
  target: 'babbage',
  description: 'worked with',
  weight: 10,
  chunkIds: ['c2'],
  mentions: [],
};
const texts: Record<string, string> = {
  c1: 'Ada Lovelace was born in 1815. She liked poetry.',
  c2: 'Babbage designed engines. Ada Lovelace described one.',
  c3: 'London is large.',
};
const view = (id: string) => (texts[id] ? { docId: 'd', text: texts[id], tokens: 10 } : undefined);

describe('KgIndex.search', () => {
  const index = new KgIndex(
    [
      entity('ada lovelace', 'Ada Lovelace', [1, 0], ['c1', 'c2']),
      entity('babbage', 'Babbage', [0.6, 0.8], ['c2']),
      entity('london', 'London', [0, 1], ['c3']),
    ],
    [relation],
  );
  const question = { text: 'Who was Ada Lovelace?', vector: new Float32Array([1, 0]) };

  it('scores entities by cosine plus the name bonus, then chunks from entities and relations', () => {
    const r = index.search(question, view, 100);
    expect(r.entities.map((e) => [e.id, e.score])).toEqual([
      ['ada lovelace', 1.5],
      ['babbage', expect.closeTo(0.6, 6)],
    ]);
    expect(r.relations[0]).toMatchObject({ id: 'ada lovelace→babbage', score: expect.closeTo(2.1, 6) });
    // c2 = 1.5/(1+ln 2) + 0.6 + 0.5·2.1 ; c1 = 1.5/(1+ln 2)
    const ada = 1.5 / (1 + Math.log(2));
    expect(r.chunks.map((c) => c.chunkId)).toEqual(['c2', 'c1']);
    expect(r.chunks[0].score).toBeCloseTo(ada + 0.6 + 1.05, 6);
    expect(r.chunks[1].score).toBeCloseTo(ada, 6);
    const prov = r.chunks[0].provenance as KgProvenance;
    expect(prov.mode).toBe('kg');
    expect(prov.entities).toEqual(['Ada Lovelace', 'Babbage']);
    // Best sentence of c1 names Ada Lovelace: "Ada Lovelace was born in 1815."
    expect(r.chunks[1].bestSentences).toEqual([{ start: 0, end: 30, score: 1 }]);
  });

  it('cuts to the token budget and skips chunks that no longer exist', () => {
    expect(index.search(question, view, 15).chunks.map((c) => c.chunkId)).toEqual(['c2']);
    const partial = (id: string) => (id === 'c2' ? undefined : view(id));
    expect(index.search(question, partial, 100).chunks.map((c) => c.chunkId)).toEqual(['c1']);
  });

  it('finds entities by name alone when there is no question vector', () => {
    const r = index.search({ text: 'Tell me about London' }, view, 100);
    expect(r.entities.map((e) => e.id)).toEqual(['london']);
    expect(r.chunks.map((c) => c.chunkId)).toEqual(['c3']);
  });

  it('finds entities that have no vector yet by name', () => {
    const bare = { ...entity('babbage', 'Babbage', [], ['c2']), vector: undefined };
    const r = new KgIndex([bare], []).search(
      { text: 'Who was Babbage?', vector: new Float32Array([1, 0]) },
      view,
      100,
    );
    expect(r.entities.map((e) => [e.id, e.score])).toEqual([['babbage', 0.5]]);
    expect(r.chunks.map((c) => c.chunkId)).toEqual(['c2']);
  });

  it('finds a relation by the similarity of its own description when no entity matches', () => {
    const rel: KgRelation = {
      ...relation,
      id: 'x→y',
      source: 'x',
      target: 'y',
      weight: 5,
      chunkIds: ['c2'],
      vector: new Float32Array([0.8, 0.6]),
    };
    const idx = new KgIndex(
      [entity('x', 'Xavier', [0, 1], ['c1']), entity('y', 'Yolanda', [0, 1], ['c3'])],
      [rel],
    );
    const r = idx.search({ text: 'something else', vector: new Float32Array([1, 0]) }, view, 100);
    expect(r.entities).toEqual([]);
    // relation score = cos 0.8 × weight 5/10 = 0.4; chunk c2 = 0.5 × 0.4 / (1 + ln 1) = 0.2
    expect(r.relations.map((x) => [x.id, x.score])).toEqual([['x→y', expect.closeTo(0.4, 6)]]);
    expect(r.chunks.map((c) => [c.chunkId, c.score])).toEqual([['c2', expect.closeTo(0.2, 6)]]);
  });

  it('refuses vectors of mixed dimension', () => {
    expect(() => new KgIndex([entity('a', 'A', [1, 0], []), entity('b', 'B', [1, 0, 0], [])], [])).toThrow(
      /entity "B" has a 3-d vector, expected 2/,
    );
  });
});

describe('splitSentences', () => {
  it('gives trimmed ranges', () => {
    expect(splitSentences('One. Two!  Three')).toEqual([
      { start: 0, end: 4 },
      { start: 5, end: 9 },
      { start: 11, end: 16 },
    ]);
  });
});

describe('hybrid', () => {
  const chunk = (id: string, mode: string): RetrievedChunk => ({
    chunkId: id,
    docId: 'd',
    score: 1,
    text: id,
    tokens: 10,
    provenance: mode === 'kg' ? ({ mode: 'kg', entities: ['E'] } as KgProvenance) : { mode, concepts: ['x'] },
    bestSentences: [],
  });
  const concept = ['A', 'B', 'C'].map((id) => chunk(id, 'ppr'));
  const kg = ['C', 'D', 'E'].map((id) => chunk(id, 'kg'));

  it('puts chunks found by both first and keeps each path within its share of the budget', () => {
    // β = 50, λ = 0.6: concept ≤ 20, KG ≤ 30. C (both) costs 4 + 6; D, E fill KG (24 → 4); A fits concept (16 → 6).
    const out = hybrid(concept, kg, 50, 0.6);
    expect(out.map((c) => c.chunkId)).toEqual(['C', 'D', 'A', 'E']);
    expect(out[0].provenance).toMatchObject({
      mode: 'hybrid',
      paths: ['concept', 'kg'],
      entities: ['E'],
      via: 'ppr#3, kg#1',
    });
    expect(out[2].provenance).toMatchObject({ paths: ['concept'], concepts: ['x'] });
    expect(out.reduce((s, c) => s + c.tokens, 0)).toBeLessThanOrEqual(50);
  });

  it('λ = 0 takes only concept-path chunks, λ = 1 only KG-path chunks (shared ones first)', () => {
    expect(hybrid(concept, kg, 30, 0).map((c) => c.chunkId)).toEqual(['C', 'A', 'B']);
    expect(hybrid(concept, kg, 30, 1).map((c) => c.chunkId)).toEqual(['C', 'D', 'E']);
    expect(() => hybrid(concept, kg, 30, 1.5)).toThrow(/λ must be in \[0, 1\]/);
  });
});
