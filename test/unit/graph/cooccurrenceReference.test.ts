import { describe, expect, it } from 'vitest';
import { extractConcepts, type ConceptTable } from '../../../src/core/graph/concepts.ts';
import { buildCooccurrenceGraph, filterEdges } from '../../../src/core/graph/cooccurrence.ts';
import { seededRandom } from '../../../src/core/seededRandom.ts';

// The co-occurrence builder against the definition, computed the plain way: count every pair of concepts sharing
// a chunk in a Map, keep Co ≥ θco, weigh by Dice = 2·Co/(|T(u)|+|T(v)|), rows ascending. Random tables of several
// sizes, with empty chunks, concepts in no chunk or in one chunk only, and concepts alone in their chunk.

/** A table from chunk → concept lists (each list distinct ids), the concept → chunk side derived from it. */
function tableOf(conceptCount: number, chunks: number[][]): ConceptTable {
  const kco = new Uint32Array(chunks.length + 1);
  chunks.forEach((list, k) => (kco[k + 1] = kco[k] + list.length));
  const kc = Uint32Array.from(chunks.flat());
  const perConcept: number[][] = Array.from({ length: conceptCount }, () => []);
  chunks.forEach((list, k) => list.forEach((c) => perConcept[c].push(k)));
  const cco = new Uint32Array(conceptCount + 1);
  perConcept.forEach((list, c) => (cco[c + 1] = cco[c] + list.length));
  return {
    chunkCount: chunks.length,
    terms: Array.from({ length: conceptCount }, (_, c) => `t${c}`),
    idf: new Float32Array(conceptCount),
    conceptChunkOffsets: cco,
    conceptChunks: Uint32Array.from(perConcept.flat()),
    chunkConceptOffsets: kco,
    chunkConcepts: kc,
    chunkConceptWeights: new Float32Array(kc.length),
  };
}

/** Random chunk lists, ascending: some chunks empty, the last concept in no chunk, concept 0 alone in one chunk. */
function randomChunks(conceptCount: number, chunkCount: number, seed: number): number[][] {
  const random = seededRandom(seed);
  const chunks: number[][] = [];
  for (let k = 0; k < chunkCount; k++) {
    if (random() < 0.15) {
      chunks.push([]);
      continue;
    }
    // Skewed draws, so a few concepts share many chunks (Co > 1) and many appear once.
    const size = 1 + Math.floor(random() * Math.min(12, conceptCount - 2));
    const set = new Set<number>();
    for (let i = 0; i < size; i++) set.add(1 + Math.floor(random() ** 2 * (conceptCount - 2)));
    chunks.push([...set].sort((a, b) => a - b));
  }
  chunks.push([0]);
  return chunks;
}

interface Csr {
  offsets: number[];
  targets: number[];
  co: number[];
  weights: number[];
}

function reference(conceptCount: number, chunks: number[][], thetaCo: number): Csr {
  const chunkSets = new Array<number>(conceptCount).fill(0);
  const pairs = new Map<string, number>();
  for (const list of chunks) {
    for (const a of list) {
      chunkSets[a]++;
      for (const b of list) if (a !== b) pairs.set(`${a},${b}`, (pairs.get(`${a},${b}`) ?? 0) + 1);
    }
  }
  const rows: Array<Array<[number, number]>> = Array.from({ length: conceptCount }, () => []);
  for (const [key, count] of pairs) {
    const [a, b] = key.split(',').map(Number);
    if (count >= thetaCo) rows[a].push([b, count]);
  }
  const out: Csr = { offsets: [0], targets: [], co: [], weights: [] };
  rows.forEach((row, a) => {
    row.sort((x, y) => x[0] - y[0]);
    for (const [b, count] of row) {
      out.targets.push(b);
      out.co.push(count);
      out.weights.push(Math.fround((2 * count) / (chunkSets[a] + chunkSets[b])));
    }
    out.offsets.push(out.targets.length);
  });
  return out;
}

function plain(g: ReturnType<typeof buildCooccurrenceGraph>): Csr {
  return {
    offsets: Array.from(g.offsets),
    targets: Array.from(g.targets),
    co: Array.from(g.co),
    weights: Array.from(g.weights),
  };
}

const SIZES: Array<[concepts: number, chunks: number]> = [
  [3, 1],
  [6, 4],
  [40, 25],
  [300, 120],
  [1500, 600],
];

describe('buildCooccurrenceGraph against the pairwise definition', () => {
  for (const [concepts, chunkCount] of SIZES) {
    for (const thetaCo of [1, 2, 3]) {
      it(`${concepts} concepts, ${chunkCount} chunks, θco = ${thetaCo}`, () => {
        const chunks = randomChunks(concepts, chunkCount, concepts * 31 + chunkCount);
        const g = buildCooccurrenceGraph(tableOf(concepts, chunks), thetaCo);
        const want = reference(concepts, chunks, thetaCo);
        expect(g.nodeCount).toBe(concepts);
        expect(plain(g)).toEqual(want);
        // The edge cases the generator promises are present (else the comparison above would not cover them).
        expect(want.offsets[1] - want.offsets[0]).toBe(0); // concept 0: alone in its one chunk
        expect(want.offsets[concepts] - want.offsets[concepts - 1]).toBe(0); // last concept: in no chunk
      });
    }
  }

  it('gives the same graph when chunk lists are not in ascending concept order', () => {
    const chunks = randomChunks(300, 120, 7);
    const random = seededRandom(11);
    const shuffled = chunks.map((list) => [...list].sort(() => random() - 0.5));
    expect(shuffled.some((list, k) => list.some((c, i) => c !== chunks[k][i]))).toBe(true);
    for (const thetaCo of [1, 2]) {
      expect(plain(buildCooccurrenceGraph(tableOf(300, shuffled), thetaCo))).toEqual(
        reference(300, chunks, thetaCo),
      );
    }
  });

  it('matches the definition on a table made by concept extraction', () => {
    const random = seededRandom(3);
    const words = Array.from({ length: 60 }, (_, i) => `w${i}`);
    const chunkTerms = Array.from({ length: 50 }, () =>
      Array.from({ length: 2 + Math.floor(random() * 10) }, () => words[Math.floor(random() ** 2 * 60)]),
    );
    const table = extractConcepts(chunkTerms, { conceptsPerChunk: 5, maxDfFraction: 0.5 });
    const chunks = Array.from({ length: table.chunkCount }, (_, k) =>
      Array.from(
        table.chunkConcepts.subarray(table.chunkConceptOffsets[k], table.chunkConceptOffsets[k + 1]),
      ),
    );
    for (const thetaCo of [1, 2, 3]) {
      expect(plain(buildCooccurrenceGraph(table, thetaCo))).toEqual(
        reference(table.terms.length, chunks, thetaCo),
      );
    }
  });
});

describe('co-occurrence counts read back from the Dice weights', () => {
  it('are exact for counts in the hundreds of thousands, and after the θsem filter', () => {
    // 300,001 chunks: concept 0 in all, concept 1 in every chunk but the multiples of 7, concept 2 in every third,
    // concept 3 in chunk 0 only. The Dice weights are floats far from short binary fractions.
    const n = 300_001;
    const chunks: number[][] = [];
    for (let k = 0; k < n; k++) {
      const list = [0];
      if (k % 7 !== 0) list.push(1);
      if (k % 3 === 0) list.push(2);
      if (k === 0) list.push(3);
      chunks.push(list);
    }
    const g = buildCooccurrenceGraph(tableOf(4, chunks), 1);
    const want = reference(4, chunks, 1);
    expect(want.co).toContain(n - Math.ceil(n / 7));
    expect(plain(g)).toEqual(want);
    // Keep every edge but 0–3 (both directions): the kept graph's counts are still the definition's.
    const cosines = new Float32Array(g.targets.length).fill(1);
    for (let u = 0; u < 4; u++) {
      for (let e = g.offsets[u]; e < g.offsets[u + 1]; e++) {
        if ((u === 0 && g.targets[e] === 3) || (u === 3 && g.targets[e] === 0)) cosines[e] = 0;
      }
    }
    const kept = filterEdges(g, cosines, 0.5);
    expect(kept.targets.length).toBe(g.targets.length - 2);
    for (let u = 0; u < 4; u++) {
      for (let e = kept.offsets[u]; e < kept.offsets[u + 1]; e++) {
        const v = kept.targets[e];
        const at = want.targets.findIndex(
          (t, i) => t === v && i >= want.offsets[u] && i < want.offsets[u + 1],
        );
        expect(kept.co[e], `${u}-${v}`).toBe(want.co[at]);
      }
    }
  });
});
