// The atomic-question index: BM25 over the questions normalized to 0…1, cosine where vectors exist, δ and top K.
import { describe, expect, it } from 'vitest';
import { AtomicIndex } from '../../../src/core/atomic/index.ts';
import { validateOnePass, validateQuestions } from '../../../src/core/atomic/schema.ts';

const q = (id: string, text: string, vector?: number[]) => ({
  id: `${id}?0`,
  chunkId: id,
  docId: id.split('#')[0],
  text,
  ...(vector ? { vector: Float32Array.from(vector) } : {}),
});

describe('AtomicIndex', () => {
  const index = new AtomicIndex([q('a#0', 'alpha beta'), q('b#0', 'gamma')]);

  it('scores a question by BM25 normalized by the query terms’ IDF (hand-computed)', () => {
    // N = 2, df(alpha) = 1: idf = ln(1 + 1.5/1.5) = ln 2. Lengths 2 and 1, average 1.5: the length norm of
    // "alpha beta" is 0.25 + 0.75·2/1.5 = 1.25, so BM25 = ln2 · 2.2 / (1 + 1.2·1.25) = 0.88 · ln2; normalized by ln2.
    const [hit] = index.search({ text: 'alpha' }, { delta: 0 });
    expect(hit.question.chunkId).toBe('a#0');
    expect(hit.lexical).toBeCloseTo(0.88, 6);
    // "delta" is in no question: idf ln(1 + 2.5/0.5) = ln 6 joins the norm; 0.88·ln2 / (ln2 + ln6) = 0.24549.
    expect(index.search({ text: 'alpha delta' }, { delta: 0 })[0].lexical).toBeCloseTo(0.24549, 4);
  });

  it('keeps only questions at or above δ, at most K, and skips excluded chunks', () => {
    expect(index.search({ text: 'alpha delta' }, { delta: 0.25 })).toEqual([]);
    expect(index.search({ text: 'alpha delta' }, { delta: 0.24 })).toHaveLength(1);
    expect(index.search({ text: 'alpha gamma' }, { delta: 0, topK: 1 })).toHaveLength(1);
    expect(index.search({ text: 'alpha' }, { delta: 0, exclude: new Set(['a#0']) })).toEqual([]);
  });

  it('uses the cosine where the query and the question have vectors, the larger of the two', () => {
    const dense = new AtomicIndex([q('a#0', 'alpha', [1, 0]), q('b#0', 'beta', [0.6, 0.8])]);
    const hits = dense.search({ text: 'beta', vector: Float32Array.from([1, 0]) }, { delta: 0.5 });
    // a: cosine 1, lexical 0 → 1. b: cosine 0.6; lexical: N = 2, df 1, both length 1: 2.2/2.2 = 1 → 1.
    expect(hits.map((h) => [h.question.chunkId, h.score])).toEqual([
      ['b#0', 1],
      ['a#0', 1],
    ]);
    expect(hits[0].dense).toBeCloseTo(0.6, 6);
  });
});

describe('atomizing replies', () => {
  it('names the field and the reason of a bad reply', () => {
    expect(validateQuestions([], 12)).toEqual({
      ok: false,
      errors: ['the top level must be an object with a "questions" array'],
    });
    expect(validateQuestions({ questions: 'Who?' }, 12)).toMatchObject({ ok: false });
    expect(validateQuestions({ questions: ['Who?', 3, ' '] }, 12)).toEqual({
      ok: false,
      errors: [
        'questions[1] must be a non-empty string (got 3)',
        'questions[2] must be a non-empty string (got " ")',
      ],
    });
  });

  it('trims, drops repeats ignoring case, and caps at the maximum', () => {
    expect(validateQuestions({ questions: [' Who  is A? ', 'who is a?', 'When?', 'Where?'] }, 2)).toEqual({
      ok: true,
      value: ['Who is A?', 'When?'],
    });
  });

  it('one pass: the KG validator and the questions validator both apply', () => {
    const bad = validateOnePass({ entities: [{ type: 'person' }], relations: [] }, 12);
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.errors.some((e) => e.startsWith('entities[0].name'))).toBe(true);
      expect(bad.errors.some((e) => e.startsWith('"questions" must be an array'))).toBe(true);
    }
    expect(validateOnePass({ entities: [], relations: [], questions: ['Who?'] }, 12)).toEqual({
      ok: true,
      value: { extraction: { entities: [], relations: [] }, questions: ['Who?'] },
    });
  });
});
