import { describe, expect, it } from 'vitest';
import { contributionOf, embeddingText } from '../../../src/core/kg/merge.ts';
import { normalizeName } from '../../../src/core/kg/normalize.ts';
import { extractionMessages } from '../../../src/core/kg/prompt.ts';
import { validateExtraction } from '../../../src/core/kg/schema.ts';
import { parseJsonReply } from '../../../src/core/llm/json.ts';
import { estimateDistillCost } from '../../../src/core/atomic/estimate.ts';
import { coreCount, selectCoreChunks } from '../../../src/core/kg/select.ts';
import { MemoryKgStore } from '../../../src/core/kg/store.ts';
import { estimateMessageTokens } from '../../../src/core/llm/usage.ts';

describe('normalizeName', () => {
  it('folds width, case and whitespace', () => {
    expect(normalizeName('  Ada\u00a0  LOVELACE ')).toBe('ada lovelace');
    expect(normalizeName('ＡＢＣ')).toBe('abc'); // full-width letters under NFKC
  });
});

describe('validateExtraction', () => {
  it('accepts a valid object and defaults a missing type and weight', () => {
    const v = validateExtraction({
      entities: [{ name: ' Ada ', description: 'a mathematician' }],
      relations: [{ source: 'Ada', target: 'Babbage', description: 'worked with' }],
    });
    expect(v).toEqual({
      ok: true,
      value: {
        entities: [{ name: 'Ada', type: 'unknown', description: 'a mathematician' }],
        relations: [{ source: 'Ada', target: 'Babbage', description: 'worked with', weight: 5 }],
      },
    });
  });
  it('names each bad field', () => {
    const v = validateExtraction({
      entities: [{ name: '' }, 3],
      relations: [{ source: 'a', target: 'b', weight: 11 }],
    });
    expect(v.ok).toBe(false);
    if (!v.ok) {
      expect(v.errors).toEqual([
        'entities[0].name must be a non-empty string (got "")',
        'entities[1] must be an object',
        'relations[0].weight must be a number from 1 to 10 (got 11)',
      ]);
    }
    expect(validateExtraction([])).toMatchObject({ ok: false });
    expect(validateExtraction({ entities: {} })).toEqual({
      ok: false,
      errors: ['"entities" must be an array'],
    });
  });
  it('parses a JSON object out of a fenced reply, and explains failures', () => {
    expect(parseJsonReply('Sure!\n```json\n{"entities": []}\n```')).toEqual({
      ok: true,
      value: { entities: [] },
    });
    expect(parseJsonReply('no json here')).toEqual({ ok: false, error: 'the reply contains no JSON object' });
    expect(parseJsonReply('<think>maybe {a} or {b}?</think>\n{"entities": [], "relations": []}')).toEqual({
      ok: true,
      value: { entities: [], relations: [] },
    });
    expect(parseJsonReply('{"a": }')).toMatchObject({ ok: false });
  });
});

describe('contributionOf', () => {
  it('merges spellings, adds missing relation endpoints and drops self-relations', () => {
    const c = contributionOf('c1', {
      entities: [
        { name: 'Ada Lovelace', type: 'person', description: 'wrote notes' },
        { name: 'ada  lovelace', type: 'person', description: 'wrote notes' },
      ],
      relations: [
        { source: 'ADA LOVELACE', target: 'Analytical Engine', description: 'described it', weight: 9 },
        { source: 'Ada Lovelace', target: 'ada lovelace', description: 'self', weight: 1 },
      ],
    });
    expect([...c.entities.keys()]).toEqual(['ada lovelace', 'analytical engine']);
    expect(c.entities.get('ada lovelace')).toHaveLength(1);
    expect(c.entities.get('analytical engine')![0]).toMatchObject({ type: 'unknown', description: '' });
    expect([...c.relations.keys()]).toEqual(['ada lovelace→analytical engine']);
  });
});

describe('MemoryKgStore merging', () => {
  it('combines descriptions across chunks, keeps the majority type and the mean weight', async () => {
    const store = new MemoryKgStore();
    const done = (entities: object[], relations: object[] = []) => ({
      status: 'done' as const,
      extraction: { entities, relations } as never,
      attempts: 1,
      inputTokens: 10,
      outputTokens: 5,
      cost: 0,
    });
    await store.commit(
      'd#0000#0000',
      done(
        [
          { name: 'Ada', type: 'person', description: 'A mathematician.' },
          { name: 'Babbage', type: 'person', description: 'An inventor.' },
        ],
        [{ source: 'Ada', target: 'Babbage', description: 'friends', weight: 8 }],
      ),
    );
    await store.commit(
      'd#0000#0001',
      done(
        [
          { name: 'ADA', type: 'person', description: 'Wrote the first program.' },
          { name: 'Babbage', type: 'person', description: 'An inventor.' },
        ],
        [{ source: 'ada', target: 'babbage', description: 'collaborators', weight: 4 }],
      ),
    );
    await store.commit('e#0000#0000', done([{ name: 'Ada', type: 'ship', description: 'A ship.' }]));
    const ada = store.entityMap.get('ada')!;
    expect(ada.description).toBe('A mathematician. Wrote the first program. A ship.');
    expect(ada.type).toBe('person');
    expect(ada.chunkIds).toEqual(['d#0000#0000', 'd#0000#0001', 'e#0000#0000']);
    const rel = store.relationMap.get('ada→babbage')!;
    expect(rel.weight).toBe(6);
    expect(rel.description).toBe('friends collaborators');
    expect(embeddingText(ada)).toBe('Ada (person): A mathematician. Wrote the first program. A ship.');
    // Re-committing a chunk replaces its share instead of doubling it.
    await store.commit('e#0000#0000', done([{ name: 'Ada', type: 'ship', description: 'A boat.' }]));
    expect(store.entityMap.get('ada')!.description).toBe('A mathematician. Wrote the first program. A boat.');
    await store.removeChunks(['d#0000#0000']);
    expect(store.relationMap.get('ada→babbage')!.weight).toBe(4);
    expect(store.entityMap.get('babbage')!.chunkIds).toEqual(['d#0000#0001']);
  });
});

describe('core-chunk selection and cost', () => {
  const ranks = new Map([
    ['a', 0.1],
    ['b', 0.4],
    ['c', 0.4],
    ['d', 0.05],
    ['e', 0.3],
  ]);
  it('takes the top ⌈κ·n⌉ by rank, ties by id', () => {
    expect(selectCoreChunks(ranks, 0.4)).toEqual(['b', 'c']);
    expect(selectCoreChunks(ranks, 0.8)).toEqual(['b', 'c', 'e', 'a']);
    expect(selectCoreChunks(ranks, 1)).toEqual(['b', 'c', 'e', 'a', 'd']);
    expect(selectCoreChunks([{ chunkId: 'x', rank: 1 }], 0.01)).toEqual(['x']);
    expect(coreCount(10, 0.3)).toBe(3);
    expect(() => selectCoreChunks(ranks, 0)).toThrow(/κ must be in \(0, 1\]/);
  });
  it('counts input tokens of the real prompt and estimates output as 0.35× input', () => {
    const texts = [{ text: 'Ada Lovelace wrote notes.' }, { text: 'Babbage built engines.' }];
    const [half, full] = estimateDistillCost(texts, [0.5, 1], {
      kinds: { kg: true, atomic: false },
      priceInPerM: 1_000_000,
      priceOutPerM: 0,
    });
    const t0 = estimateMessageTokens(extractionMessages(texts[0].text));
    const t1 = estimateMessageTokens(extractionMessages(texts[1].text));
    expect(half).toEqual({
      kappa: 0.5,
      chunks: 1,
      calls: 1,
      inputTokens: t0,
      outputTokens: Math.round(t0 * 0.35),
      cost: t0,
    });
    expect(full.calls).toBe(2);
    expect(full.inputTokens).toBe(t0 + t1);
  });
});
