// The incremental concept graph against hand-counted tiny libraries (adds and removals that move a term across
// the document-frequency cap) and against a fresh buildLexicalGraph after random adds and removals of real
// MuSiQue passages and of a synthetic corpus with a small vocabulary (many terms near the cap).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { conceptTerms } from '../../../src/core/graph/analyzer.ts';
import {
  buildLexicalGraph,
  type ConceptGraphIndex,
  type GraphOptions,
} from '../../../src/core/graph/conceptGraph.ts';
import { findEdge, type ConceptGraph } from '../../../src/core/graph/cooccurrence.ts';
import { pagerank } from '../../../src/core/graph/pagerank.ts';
import { IncrementalConceptGraph, type IncrementalChunk } from '../../../src/core/graph/incremental.ts';
import { parseJsonl } from '../../../src/core/parse/jsonl.ts';
import { seededRandom } from '../../../src/core/seededRandom.ts';
import { createTermAnalyzer } from '../../../src/core/text/analyzer.ts';

// The first 300 MuSiQue passages, vendored (test/fixtures/musique-300) so the test runs without ../shared.
const MUSIQUE_300 = join(import.meta.dirname, '../../fixtures/musique-300/corpus.jsonl');

// The cap's floor at 3 chunks (the product's is 20): these hand-counted libraries are small.
const OPTIONS: GraphOptions = {
  conceptsPerChunk: 0,
  maxDfFraction: 0.25,
  minDfCap: 3,
  thetaCo: 1,
  thetaSem: 0.5,
};

function chunk(id: string, text: string, docId = id): IncrementalChunk {
  return { id, docId, terms: text.split(' ') };
}

/** What a full rebuild gives for the chunks the incremental graph holds. */
function fresh(chunks: readonly IncrementalChunk[], options: GraphOptions): ConceptGraphIndex {
  const sorted = [...chunks].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return buildLexicalGraph(
    sorted.map((c) => c.id),
    sorted.map((c) => c.terms),
    options,
  );
}

/** Index of the first difference of two arrays, or -1 (cheaper than toEqual on 100k elements). */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

/**
 * Edges and table exactly equal; concept ranks within 1e-3. PageRank stops when a sweep moves the ranks by less
 * than N·1e-6 (L1), which leaves each run within d/(1−d)·N·1e-6 of the exact ranks (the iteration contracts by d);
 * a warm start meets that rule at another point than a uniform start, so the two runs may differ by up to twice
 * that in L1, over concepts and over chunks alike (a chunk's rank is a share of its concepts' ranks). Returns the
 * largest concept-rank difference for the record.
 */
function expectSameGraph(got: ConceptGraphIndex, want: ConceptGraphIndex): number {
  expect(got.chunkIds).toEqual(want.chunkIds);
  expect(got.table.terms).toEqual(want.table.terms);
  const arrays = [
    'idf',
    'conceptChunkOffsets',
    'conceptChunks',
    'chunkConceptOffsets',
    'chunkConcepts',
    'chunkConceptWeights',
  ] as const;
  for (const key of arrays)
    expect([key, firstDifference(got.table[key], want.table[key])]).toEqual([key, -1]);
  for (const key of ['offsets', 'targets', 'co', 'weights'] as const) {
    expect([key, firstDifference(got.cooccurrence[key], want.cooccurrence[key])]).toEqual([key, -1]);
  }
  const d = want.options.globalDamping ?? 0.85;
  const bound = ((2 * d) / (1 - d)) * want.conceptRank.length * 1e-6;
  let worst = 0;
  let l1 = 0;
  for (let c = 0; c < want.conceptRank.length; c++) {
    const diff = Math.abs(got.conceptRank[c] - want.conceptRank[c]);
    worst = Math.max(worst, diff);
    l1 += diff;
  }
  expect(worst).toBeLessThanOrEqual(1e-3);
  expect(l1).toBeLessThanOrEqual(bound);
  let chunkL1 = 0;
  for (let k = 0; k < want.chunkRank.length; k++) chunkL1 += Math.abs(got.chunkRank[k] - want.chunkRank[k]);
  expect(chunkL1).toBeLessThanOrEqual(bound);
  return worst;
}

function concepts(index: ConceptGraphIndex): string[] {
  return index.table.terms;
}

/** Co and Dice weight of the edge between two terms, or undefined when there is none. */
function edge(index: ConceptGraphIndex, a: string, b: string): { co: number; weight: number } | undefined {
  const u = index.table.terms.indexOf(a);
  const v = index.table.terms.indexOf(b);
  if (u < 0 || v < 0) return undefined;
  const e = findEdge(index.graph, u, v);
  return e < 0 ? undefined : { co: index.graph.co[e], weight: index.graph.weights[e] };
}

describe('pagerank warm start', () => {
  // Path a–b–c with unit weights: b = 0.15/3 + 0.85·(a/1 + c/1) and a = c = 0.15/3 + 0.85·b/2, so
  // b = 0.05 + 1.7·(0.05 + 0.425·b), b = 0.135 / (1 − 0.7225) ≈ 0.4865 and a = c = (1 − b)/2 ≈ 0.2568.
  const path: ConceptGraph = {
    nodeCount: 3,
    offsets: Uint32Array.from([0, 1, 3, 4]),
    targets: Uint32Array.from([1, 0, 2, 1]),
    co: Uint32Array.from([1, 1, 1, 1]),
    weights: Float32Array.from([1, 1, 1, 1]),
  };
  const b = 0.135 / (1 - 0.7225);
  const exact = [(1 - b) / 2, b, (1 - b) / 2];

  it('reaches the same ranks from any starting distribution', () => {
    const options = { damping: 0.85, maxIterations: 500, tolerance: 1e-12 };
    for (const start of [undefined, Float64Array.from([1, 0, 0]), Float64Array.from(exact)]) {
      const x = pagerank(path, options, start);
      for (let i = 0; i < 3; i++) expect(x[i]).toBeCloseTo(exact[i], 9);
    }
  });

  it('needs no sweep past the first from the exact ranks, and refuses a start of the wrong size', () => {
    expect(() => pagerank(path, { maxIterations: 1 }, Float64Array.from(exact))).not.toThrow();
    expect(() => pagerank(path, {}, new Float64Array(2))).toThrow(/initial ranks/);
  });
});

describe('IncrementalConceptGraph on hand-counted libraries', () => {
  // maxDfFraction 0.25: the cap is max(⌊N/4⌋, min(3, N − 1)) = 3 for 4 ≤ N ≤ 15, 4 for N = 16.
  const four = [chunk('c1', 'x a b'), chunk('c2', 'x a'), chunk('c3', 'x b'), chunk('c4', 'y z')];

  it('drops a term whose df passes the cap, with its edges', () => {
    const g = new IncrementalConceptGraph(OPTIONS);
    g.addChunks(four);
    const before = g.snapshot();
    // df x = 3 ≤ 3: a concept; Co(x, a) = 2 (c1, c2), Dice = 2·2 / (3 + 2).
    expect(concepts(before)).toEqual(['a', 'b', 'x', 'y', 'z']);
    expect(edge(before, 'x', 'a')).toEqual({ co: 2, weight: Math.fround(4 / 5) });
    const added = chunk('c5', 'x a y');
    g.addChunks([added]);
    const after = g.snapshot();
    // N = 5, cap 3, df x = 4: x is no concept, so a–x is gone; a–y appears (c5), Co(a, b) = 1 (c1).
    expect(concepts(after)).toEqual(['a', 'b', 'y', 'z']);
    expect(edge(after, 'x', 'a')).toBeUndefined();
    expect(edge(after, 'a', 'y')).toEqual({ co: 1, weight: Math.fround(2 / (3 + 2)) });
    expect(edge(after, 'a', 'b')).toEqual({ co: 1, weight: Math.fround(2 / (3 + 2)) });
    expectSameGraph(after, fresh([...four, added], OPTIONS));
  });

  it('takes in a term when a larger library raises the cap, with counts from its postings', () => {
    // 15 chunks: w in 4 of them (cap 3: no concept). The 16th chunk (without w) raises the cap to 4.
    const chunks: IncrementalChunk[] = [];
    for (let i = 0; i < 15; i++) {
      const text = i < 4 ? `w p${i % 2} q` : `f${i} g${i}`;
      chunks.push(chunk(`c${String(i).padStart(2, '0')}`, text));
    }
    const g = new IncrementalConceptGraph(OPTIONS);
    g.addChunks(chunks);
    expect(concepts(g.snapshot())).not.toContain('w');
    // q (df 4) also waits at the cap; p0 and p1 (df 2) are concepts.
    expect(concepts(g.snapshot())).not.toContain('q');
    const last = chunk('c15', 'h p0');
    g.addChunks([last]);
    const after = g.snapshot();
    expect(concepts(after)).toContain('w');
    expect(concepts(after)).toContain('q');
    // w and q share all 4 chunks: Co 4, Dice 2·4 / (4 + 4) = 1; w–p0 share chunks 0 and 2 (p0 df 3 now).
    expect(edge(after, 'w', 'q')).toEqual({ co: 4, weight: 1 });
    expect(edge(after, 'w', 'p0')).toEqual({ co: 2, weight: Math.fround(4 / 7) });
    expectSameGraph(after, fresh([...chunks, last], OPTIONS));
  });

  it('follows removals: a lower cap drops terms, a lower df takes them back', () => {
    const chunks: IncrementalChunk[] = [];
    for (let i = 0; i < 16; i++) {
      const text = i < 4 ? `w p${i % 2}` : i < 8 ? `v${i} r` : `f${i} g${i}`;
      chunks.push(chunk(`c${String(i).padStart(2, '0')}`, text, `d${i}`));
    }
    const g = new IncrementalConceptGraph(OPTIONS);
    g.addChunks(chunks);
    // N = 16, cap 4: w (df 4) and r (df 4) are concepts.
    expect(concepts(g.snapshot())).toEqual(expect.arrayContaining(['w', 'r']));
    expect(g.removeDocument('d15')).toBe(1);
    // N = 15, cap 3: both leave.
    let now = g.snapshot();
    expect(concepts(now)).not.toContain('w');
    expect(concepts(now)).not.toContain('r');
    // Without c07, r is in 3 chunks: back under the cap, with Co(r, v4) = 1.
    g.removeChunks(['c07']);
    now = g.snapshot();
    expect(concepts(now)).toContain('r');
    expect(edge(now, 'r', 'v4')).toEqual({ co: 1, weight: Math.fround(2 / (3 + 1)) });
    expectSameGraph(
      now,
      fresh(
        chunks.filter((c) => c.id !== 'c15' && c.id !== 'c07'),
        OPTIONS,
      ),
    );
  });

  it.each([false, true])(
    'recounts a term that left and came back, ignoring its counts from before it left (snapshot each step: %s)',
    (snapshotEachStep) => {
      // maxDfFraction 0.05: cap 3 for N < 80, 4 for 80 ≤ N < 100. 76 filler chunks keep every batch below the
      // share that would make the graph recount everything, so the pair-by-pair path is what is checked.
      const options: GraphOptions = { ...OPTIONS, maxDfFraction: 0.05 };
      const base: IncrementalChunk[] = [chunk('a1', 'a m')];
      for (let i = 0; i < 76; i++) base.push(chunk(`f${String(i).padStart(2, '0')}`, `u${i} v${i}`));
      const g = new IncrementalConceptGraph(options);
      g.addChunks([...base, chunk('x1', 'x a'), chunk('x2', 'x a')]);
      // N = 79, cap 3: x (df 2) and a (df 3) are concepts, Co(x, a) = 2.
      expect(edge(g.snapshot(), 'x', 'a')).toEqual({ co: 2, weight: Math.fround(4 / 5) });
      const step = (): void => void (snapshotEachStep && g.snapshot());
      g.addChunks([chunk('x3', 'x a')]); // N = 80, cap 4: Co(x, a) = 3, a (df 4) stays
      step();
      g.addChunks([chunk('x4', 'x b')]); // N = 81, cap 4, df x = 4
      step();
      g.addChunks([chunk('x5', 'x c')]); // N = 82, cap 4, df x = 5: x leaves
      if (snapshotEachStep) expect(concepts(g.snapshot())).not.toContain('x');
      g.removeChunks(['x1', 'x2', 'x3']); // N = 79, cap 3, df x = 2: x is back
      expect(g.stats().recountPending).toBe(false);
      const now = g.snapshot();
      // x no longer shares a chunk with a (its count of 3 from before it left must not come back);
      // it shares one with b and one with c: Dice 2·1 / (2 + 1).
      expect(concepts(now)).toContain('x');
      expect(edge(now, 'x', 'a')).toBeUndefined();
      expect(edge(now, 'x', 'b')).toEqual({ co: 1, weight: Math.fround(2 / 3) });
      expect(edge(now, 'x', 'c')).toEqual({ co: 1, weight: Math.fround(2 / 3) });
      expectSameGraph(now, fresh([...base, chunk('x4', 'x b'), chunk('x5', 'x c')], options));
    },
  );

  it('tracks only the pairs of the chunks a batch touches', () => {
    // 100 chunks of two unique terms, and s1..s4 in one chunk each: cap 5, nothing near it.
    const library = [chunk('s', 's1 s2 s3 s4')];
    for (let i = 0; i < 100; i++) library.push(chunk(`f${String(i).padStart(3, '0')}`, `u${i} v${i}`));
    const g = new IncrementalConceptGraph({ ...OPTIONS, maxDfFraction: 0.05 });
    g.addChunks(library);
    g.snapshot();
    // One chunk with s1..s3 (df 1 → 2, still under the cap) and a new term w: the pairs among s1, s2, s3 (3)
    // change, and w enters with a recount of its pairs with them (3): 6 pairs, whatever the library's size.
    g.addChunks([chunk('t', 's1 s2 s3 w')]);
    expect(g.stats()).toMatchObject({ pendingPairs: 6, recountPending: false });
    const now = g.snapshot();
    expect(edge(now, 's1', 's2')).toEqual({ co: 2, weight: 1 });
    expect(edge(now, 's1', 'w')).toEqual({ co: 1, weight: Math.fround(2 / 3) });
    expect(edge(now, 's1', 's4')).toEqual({ co: 1, weight: Math.fround(2 / 3) });
    // Removing and adding back the same document between two snapshots changes nothing.
    g.removeDocument('t');
    g.addChunks([chunk('t', 's1 s2 s3 w')]);
    expectSameGraph(
      g.snapshot(),
      fresh([...library, chunk('t', 's1 s2 s3 w')], { ...OPTIONS, maxDfFraction: 0.05 }),
    );
  });

  it('empties and fills again', () => {
    const g = new IncrementalConceptGraph(OPTIONS);
    g.addChunks([chunk('c1', 'a b', 'd'), chunk('c2', 'b c', 'd')]);
    g.snapshot();
    expect(g.removeDocument('d')).toBe(2);
    const empty = g.snapshot();
    expect(empty.chunkIds).toEqual([]);
    expect(empty.table.terms).toEqual([]);
    expect(empty.conceptRank).toHaveLength(0);
    g.addChunks([chunk('c3', 'a c')]);
    expectSameGraph(g.snapshot(), fresh([chunk('c3', 'a c')], OPTIONS));
  });

  it('refuses top-K concepts per chunk and chunks it already holds', () => {
    expect(() => new IncrementalConceptGraph({ ...OPTIONS, conceptsPerChunk: 5 })).toThrow(
      /conceptsPerChunk/,
    );
    const g = new IncrementalConceptGraph(OPTIONS);
    g.addChunks([chunk('c1', 'a b')]);
    expect(() => g.addChunks([chunk('c1', 'a')])).toThrow(/already/);
  });
});

const random = seededRandom;

/** Documents of 1–4 consecutive passages, chunk ids "<doc>#<n>". */
function documents(passages: readonly string[][], prefix: string): IncrementalChunk[][] {
  const rand = random(7);
  const docs: IncrementalChunk[][] = [];
  for (let i = 0; i < passages.length;) {
    const size = 1 + Math.floor(rand() * 4);
    const docId = `${prefix}${String(docs.length).padStart(4, '0')}`;
    docs.push(passages.slice(i, i + size).map((terms, n) => ({ id: `${docId}#${n}`, docId, terms })));
    i += size;
  }
  return docs;
}

/**
 * Adds the first half of the documents, then in random order adds the rest one by one and removes random ones
 * (sometimes adding a removed one back), snapshotting at random points; every snapshot must equal a fresh build.
 */
function replay(docs: IncrementalChunk[][], options: GraphOptions, seed: number, tracked: boolean): number[] {
  const rand = random(seed);
  let g = new IncrementalConceptGraph(options);
  const held = new Map<string, IncrementalChunk[]>();
  const waiting = docs.slice();
  const half = waiting.splice(0, Math.floor(docs.length / 2));
  g.addChunks(half.flat());
  for (const d of half) held.set(d[0].docId, d);
  const worst: number[] = [expectSameGraph(g.snapshot(), fresh([...held.values()].flat(), options))];
  for (let step = 0; step < 36; step++) {
    const r = rand();
    if ((r < 0.6 && waiting.length > 0) || held.size < 3) {
      const d = waiting.splice(Math.floor(rand() * waiting.length), 1)[0];
      g.addChunks(d);
      held.set(d[0].docId, d);
    } else {
      const ids = [...held.keys()];
      const id = ids[Math.floor(rand() * ids.length)];
      expect(g.removeDocument(id)).toBe(held.get(id)!.length);
      if (rand() < 0.5) waiting.push(held.get(id)!);
      held.delete(id);
    }
    // On real text a batch of a few passages is tracked pair by pair, not left to a recount of everything; the
    // synthetic corpus (120 terms, few edges) goes over the pair table's limit and also checks the recount.
    if (tracked) expect(g.stats().recountPending).toBe(false);
    if (step === 18) {
      // Store and restore mid-way, with the last snapshot as the base (as the ingest worker would).
      g = IncrementalConceptGraph.fromJSON(structuredClone(g.toJSON()), g.snapshot());
    }
    if (rand() < 0.25 || step === 35) {
      worst.push(expectSameGraph(g.snapshot(), fresh([...held.values()].flat(), options)));
    }
  }
  return worst;
}

describe('IncrementalConceptGraph equals a fresh build', () => {
  it('on 300 MuSiQue passages, added and removed as documents', () => {
    const source = readFileSync(MUSIQUE_300, 'utf8');
    // The first 300 lines are enough: parse only them.
    const lines = source.split('\n', 300).join('\n');
    const { documents: parsed } = parseJsonl('musique.jsonl', lines);
    expect(parsed).toHaveLength(300);
    const analyzer = createTermAnalyzer();
    const passages = parsed.map((d) => conceptTerms(analyzer, d.text, true));
    // The product's cap (5% with the floor of 3): 150 chunks → cap 7, 300 → 15; terms cross it as N moves.
    const options: GraphOptions = {
      conceptsPerChunk: 0,
      maxDfFraction: 0.05,
      minDfCap: 3,
      thetaCo: 1,
      thetaSem: 0.5,
    };
    const worst = replay(documents(passages, 'm'), options, 11, true);
    expect(worst.length).toBeGreaterThan(5);
  });

  it('on a synthetic corpus where many terms sit at the cap, at θco = 1 and θco = 2', () => {
    const rand = random(3);
    const passages: string[][] = [];
    for (let i = 0; i < 240; i++) {
      const terms: string[] = [];
      const n = 4 + Math.floor(rand() * 10);
      // Zipf-like: term j drawn with probability ∝ 1/(j+1) over 120 terms, so dfs spread across the cap.
      for (let k = 0; k < n; k++) terms.push(`t${Math.floor(Math.exp(rand() * Math.log(121))) - 1}`);
      passages.push(terms);
    }
    const docs = documents(passages, 's');
    replay(docs, { conceptsPerChunk: 0, maxDfFraction: 0.1, thetaCo: 1, thetaSem: 0.5 }, 5, false);
    replay(docs, { conceptsPerChunk: 0, maxDfFraction: 0.1, thetaCo: 2, thetaSem: 0.5 }, 6, false);
  });

  it('restores with a stored snapshot only if it matches the state, else recounts', () => {
    const g = new IncrementalConceptGraph(OPTIONS);
    const chunks = [chunk('c1', 'a b c'), chunk('c2', 'a b'), chunk('c3', 'b d'), chunk('c4', 'e f')];
    g.addChunks(chunks);
    const matching = g.snapshot();
    const other = fresh([...chunks, chunk('c5', 'g')], OPTIONS);
    const state = structuredClone(g.toJSON());
    expect(IncrementalConceptGraph.fromJSON(state, matching).stats().recountPending).toBe(false);
    const refused = IncrementalConceptGraph.fromJSON(state, other);
    expect(refused.stats().recountPending).toBe(true);
    // Same chunks, but cut at θco = 2: the pairs seen once are missing from it, so it cannot be the base.
    const cut = fresh(chunks, { ...OPTIONS, thetaCo: 2 });
    expect(IncrementalConceptGraph.fromJSON(state, cut).stats().recountPending).toBe(true);
    expectSameGraph(refused.snapshot(), fresh(chunks, OPTIONS));
  });

  it('restores from its stored state without the last snapshot (recounts once)', () => {
    const g = new IncrementalConceptGraph(OPTIONS);
    const chunks = [chunk('c1', 'a b c'), chunk('c2', 'a b'), chunk('c3', 'b d'), chunk('c4', 'e f')];
    g.addChunks(chunks);
    const restored = IncrementalConceptGraph.fromJSON(structuredClone(g.toJSON()));
    restored.addChunks([chunk('c5', 'a f')]);
    expectSameGraph(restored.snapshot(), fresh([...chunks, chunk('c5', 'a f')], OPTIONS));
  });
});
