// One QA item scored on a ranked context, the way the CLI bench and the app's evaluation both score it.
import { describe, expect, it } from 'vitest';
import { needsSearchAtBudget, scoreQaItem, type ScoredContext } from '../../../src/core/metrics.ts';

const hit = (docId: string, text: string, tokens: number): ScoredContext => ({ docId, text, tokens });

describe('scoreQaItem', () => {
  const hits = [
    hit('d1', 'Paris is in France.', 50),
    hit('d2', 'Berlin is the capital of Germany.', 100),
    hit('d1', 'More about Paris.', 30),
    hit('d3', 'Rome is in Italy.', 40),
  ];
  const external = new Map([
    ['d1', 'p-1'],
    ['d2', 'p-2'],
    ['d3', 'p-3'],
  ]);
  const options = { budgets: [60, 200], ks: [1, 2, 3], externalId: (id: string) => external.get(id) ?? id };

  it('finds the answer within each budget and counts distinct supporting documents within k', async () => {
    const s = await scoreQaItem({ answers: ['Berlin'], supporting: ['p-2', 'p-3'] }, hits, options);
    // 60 tokens hold only the first chunk (no Berlin); 200 hold the first three (150 tokens, Berlin in the second).
    expect(s.cr).toEqual([0, 1]);
    // Distinct documents in order: p-1, p-2, p-3 (the second d1 is not counted again).
    expect(s.recall).toEqual([0, 0.5, 1]);
  });

  it("counts an excerpt's section heading as part of the context it is shown with", async () => {
    const excerpt: ScoredContext = {
      docId: 'd4',
      heading: 'Lifetime Elision',
      text: 'Rust infers them.',
      tokens: 9,
    };
    const item = { answers: ['lifetime elision'], supporting: [] };
    expect((await scoreQaItem(item, [excerpt], options)).cr).toEqual([1, 1]);
    expect((await scoreQaItem(item, [{ ...excerpt, heading: undefined }], options)).cr).toEqual([0, 0]);
  });

  it('leaves recall out (null) when the item names no supporting passage', async () => {
    expect(await scoreQaItem({ answers: ['Paris'], supporting: [] }, hits, options)).toEqual({
      cr: [1, 1],
      recall: null,
    });
  });

  it("asks the mode's own search when the first chunk is larger than a budget", async () => {
    const asked: number[] = [];
    const s = await scoreQaItem({ answers: ['France'], supporting: [] }, hits, {
      ...options,
      budgets: [10, 60],
      searchAt: async (b) => {
        asked.push(b);
        return [hit('d1', 'Paris is in France.', 5)];
      },
    });
    expect(asked).toEqual([10]);
    expect(s.cr).toEqual([1, 1]);
    expect(needsSearchAtBudget(hits, 10)).toBe(true);
    expect(needsSearchAtBudget(hits, 60)).toBe(false);
    expect(needsSearchAtBudget([], 10)).toBe(false);
  });

  it('without searchAt an empty cut finds nothing', async () => {
    expect(
      (await scoreQaItem({ answers: ['France'], supporting: [] }, hits, { ...options, budgets: [10] })).cr,
    ).toEqual([0]);
  });
});
