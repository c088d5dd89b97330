// Word statistics per script (issue 45): a term's IDF and the concept cap count the chunks of its own script in a
// library written in CJK and other scripts, and nothing changes in a library of one script.
import { describe, expect, it } from 'vitest';
import { extractConcepts } from '../../../src/core/graph/concepts.ts';
import { Bm25Builder, Bm25Index } from '../../../src/core/retrieval/bm25.ts';
import { RetrievalEngine, type RetrievalInput } from '../../../src/core/retrieval/engine.ts';
import { MIN_SCRIPT_CHUNKS, ScriptTally, termChunkCount } from '../../../src/core/text/scripts.ts';
import { toyAnalyzer } from './toyAnalyzer.ts';

/** 25 English chunks (apple in all, one own word each) and 25 Chinese ones (组件 in the first 10, one own word). */
function mixedTerms(): string[][] {
  const english = Array.from({ length: 25 }, (_, i) => ['apple', `e${i}`]);
  const chinese = Array.from({ length: 25 }, (_, i) => (i < 10 ? ['组件', `中${i}`] : ['渲染', `中${i}`]));
  return [...english, ...chinese];
}

describe('ScriptTally', () => {
  it('gives per-script counts only when each script is the main one of MIN_SCRIPT_CHUNKS chunks', () => {
    const tally = new ScriptTally();
    for (const terms of mixedTerms()) tally.add(terms);
    expect(tally.counts()).toEqual({ other: 25, cjk: 25 });
    // An English library quoting a few Chinese names: one N for every term.
    const quoting = new ScriptTally();
    for (let i = 0; i < 40; i++)
      quoting.add(['river', 'city', ...(i < MIN_SCRIPT_CHUNKS - 1 ? ['长江'] : [])]);
    for (let i = 0; i < MIN_SCRIPT_CHUNKS - 1; i++) quoting.add(['长江', '大桥']);
    expect(quoting.counts()).toBeUndefined();
    quoting.add(['长江', '大桥']);
    // Chunks holding a CJK term: the 19 quotations, the 20 Chinese chunks; holding another: the 40 English.
    expect(quoting.counts()).toEqual({ other: 40, cjk: 2 * MIN_SCRIPT_CHUNKS - 1 });
  });

  it('counts kana and Hangul with Han, and a term in one chunk of its script against that script', () => {
    expect(termChunkCount('コンポーネント', 100, { other: 90, cjk: 12 })).toBe(12);
    expect(termChunkCount('컴포넌트', 100, { other: 90, cjk: 12 })).toBe(12);
    expect(termChunkCount('usestate', 100, { other: 90, cjk: 12 })).toBe(90);
    expect(termChunkCount('组件', 100, undefined)).toBe(100);
  });
});

describe('Bm25Index.countByScript', () => {
  it("computes a Chinese word's IDF against the Chinese chunks (hand-computed)", () => {
    const plain = new Bm25Index(mixedTerms());
    const byScript = new Bm25Index(mixedTerms()).countByScript();
    // 组件 in 10 chunks: ln(1 + (50 − 10 + 0.5) / 10.5) over the library, ln(1 + (25 − 10 + 0.5) / 10.5) over its script.
    expect(plain.idf('组件')).toBeCloseTo(Math.log(1 + 40.5 / 10.5), 12);
    expect(byScript.idf('组件')).toBeCloseTo(Math.log(1 + 15.5 / 10.5), 12);
    expect(byScript.idf('apple')).toBeCloseTo(Math.log(1 + 0.5 / 25.5), 12);
    // The ranking's scores use the same IDF: one chunk's score is idf × the tf part, so the ratio is the IDFs'.
    const a = plain.search(['组件'], 1)[0];
    const b = byScript.search(['组件'], 1)[0];
    expect(b.chunk).toBe(a.chunk);
    expect(b.score / a.score).toBeCloseTo(byScript.idf('组件') / plain.idf('组件'), 5);
  });

  it('keeps one N in a library of one script', () => {
    const english = Array.from({ length: 30 }, (_, i) => ['river', `w${i % 7}`, ...(i < 5 ? ['长江'] : [])]);
    const byScript = new Bm25Index(english).countByScript();
    expect(byScript.scriptChunks).toBeUndefined();
    const plain = new Bm25Index(english);
    for (const t of ['river', 'w3', '长江']) expect(byScript.idf(t)).toBe(plain.idf(t));
  });

  it('counts again when chunks are added (extended), as an index built over all of them', () => {
    const all = mixedTerms();
    const first = new Bm25Index(all.slice(0, 30)).countByScript();
    const added = new Bm25Builder();
    for (const terms of all.slice(30)) added.add(terms);
    const place = Uint32Array.from({ length: 30 }, (_, i) => i);
    const addedPlace = Uint32Array.from({ length: 20 }, (_, i) => 30 + i);
    const extended = first.extended(place, added, addedPlace);
    expect(extended.scriptChunks).toEqual({ other: 25, cjk: 25 });
    expect(extended.idf('组件')).toBe(new Bm25Index(all).countByScript().idf('组件'));
  });
});

describe('extractConcepts with scriptChunks', () => {
  const options = { conceptsPerChunk: 0, maxDfFraction: 0.3, minDfCap: 1 };

  it("caps a Chinese word by the Chinese chunks' count and takes its IDF against them", () => {
    const one = extractConcepts(mixedTerms(), options);
    const perScript = extractConcepts(mixedTerms(), { ...options, scriptChunks: { other: 25, cjk: 25 } });
    // 组件 is in 10 chunks: under ⌊0.3 · 50⌋ = 15 of the library, over ⌊0.3 · 25⌋ = 7 of the Chinese chunks.
    expect(one.terms).toContain('组件');
    expect(perScript.terms).not.toContain('组件');
    // 渲染 (15 chunks) is at the library's cap, over the script's; apple (25) over both.
    expect(one.terms).toContain('渲染');
    expect(perScript.terms).not.toContain('渲染');
    expect(one.terms).not.toContain('apple');
    const c = perScript.terms.indexOf('中3');
    expect(perScript.idf[c]).toBeCloseTo(Math.log(25), 6);
    expect(one.idf[one.terms.indexOf('中3')]).toBeCloseTo(Math.log(50), 6);
    expect(perScript.scriptChunks).toEqual({ other: 25, cjk: 25 });
  });
});

describe('RetrievalEngine with scriptStatistics', () => {
  const texts = Array.from(
    { length: 30 },
    (_, i) => `River ${i % 5} runs through city ${i % 3}. The bridge ${i % 4} crosses river ${i % 5}.`,
  );
  const input: RetrievalInput = {
    chunks: texts.map((text, d) => ({
      id: `d${String(d).padStart(2, '0')}#0000#0000`,
      docId: `d${d}`,
      text,
      tokens: text.split(' ').length,
      start: 0,
    })),
    sentences: [],
  };

  it('answers a library of one script exactly as without it (every mode, every score)', () => {
    const off = RetrievalEngine.build(input, toyAnalyzer, { maxDfFraction: 1 });
    const on = RetrievalEngine.build(input, toyAnalyzer, { maxDfFraction: 1, scriptStatistics: true });
    for (const mode of ['bm25', 'ppr', 'concept'] as const) {
      const q = { text: 'which bridge crosses river 3 in city 2' };
      expect(on.search(q, mode, 1000)).toEqual(off.search(q, mode, 1000));
    }
  });
});
