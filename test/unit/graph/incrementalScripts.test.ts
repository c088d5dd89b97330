// The incremental concept graph with word statistics per script (scriptStatistics): after adds and removals that
// take a library from one script to two and back (the Chinese chunks crossing MIN_SCRIPT_CHUNKS), every snapshot is
// the table and edges a fresh build gives with the per-script counts of the chunks held (extractConcepts'
// scriptChunks), and a stored state resumes to the same.
import { describe, expect, it } from 'vitest';
import {
  buildLexicalGraph,
  type ConceptGraphIndex,
  type GraphOptions,
} from '../../../src/core/graph/conceptGraph.ts';
import { IncrementalConceptGraph, type IncrementalChunk } from '../../../src/core/graph/incremental.ts';
import { seededRandom } from '../../../src/core/seededRandom.ts';
import { MIN_SCRIPT_CHUNKS, ScriptTally, scriptCountsOf } from '../../../src/core/text/scripts.ts';

const OPTIONS: GraphOptions = {
  conceptsPerChunk: 0,
  maxDfFraction: 0.25,
  minDfCap: 3,
  thetaCo: 1,
  thetaSem: 0.5,
  scriptStatistics: true,
};

/** `count` chunks of one script: Zipf-like words of a small vocabulary (many near the cap), a few of the other. */
function chunks(prefix: string, count: number, seed: number, cjk: boolean): IncrementalChunk[] {
  const r = seededRandom(seed);
  const word = (other: boolean) => {
    const i = Math.floor(40 * r() * r());
    return cjk !== other ? `中文${i}` : `w${i}`;
  };
  return Array.from({ length: count }, (_, k) => {
    const terms = Array.from({ length: 3 + Math.floor(r() * 8) }, () => word(r() < 0.1));
    const id = `${prefix}${String(k).padStart(3, '0')}`;
    return { id: `${id}#0`, docId: id, terms, scripts: scriptCountsOf(terms) };
  });
}

/** A fresh build over the chunks held, with their per-script counts as the engine's BM25 would give them. */
function fresh(held: readonly IncrementalChunk[]): ConceptGraphIndex {
  const sorted = [...held].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const tally = new ScriptTally();
  for (const c of sorted) tally.add(c.terms);
  const scriptChunks = tally.counts();
  return buildLexicalGraph(
    sorted.map((c) => c.id),
    sorted.map((c) => c.terms),
    scriptChunks ? { ...OPTIONS, scriptChunks } : OPTIONS,
  );
}

function expectSameGraph(got: ConceptGraphIndex, want: ConceptGraphIndex): void {
  expect(got.chunkIds).toEqual(want.chunkIds);
  expect(got.table.terms).toEqual(want.table.terms);
  for (const key of [
    'idf',
    'conceptChunkOffsets',
    'conceptChunks',
    'chunkConceptOffsets',
    'chunkConcepts',
    'chunkConceptWeights',
  ] as const)
    expect([key, [...got.table[key]]]).toEqual([key, [...want.table[key]]]);
  for (const key of ['offsets', 'targets', 'co', 'weights'] as const)
    expect([key, [...got.cooccurrence[key]]]).toEqual([key, [...want.cooccurrence[key]]]);
  expect(got.options.scriptChunks).toEqual(want.options.scriptChunks);
}

describe('incremental concept graph with word statistics per script', () => {
  it('gives a fresh build’s table and edges as a library goes from one script to two and back', () => {
    const english = chunks('en', 60, 1, false);
    const chinese = chunks('zh', 40, 2, true);
    const graph = new IncrementalConceptGraph(OPTIONS);
    const held: IncrementalChunk[] = [];
    const add = (batch: IncrementalChunk[]) => {
      graph.addChunks(batch);
      held.push(...batch);
    };
    const remove = (docIds: string[]) => {
      for (const d of docIds) graph.removeDocument(d);
      for (const d of docIds)
        held.splice(
          held.findIndex((c) => c.docId === d),
          1,
        );
    };
    const seen: Array<ConceptGraphIndex['options']['scriptChunks']> = [];
    const check = () => {
      const want = fresh(held);
      expectSameGraph(graph.snapshot(), want);
      seen.push(want.options.scriptChunks);
    };
    add(english);
    check();
    // Chinese chunks a few at a time: below MIN_SCRIPT_CHUNKS one N, then the two scripts' own.
    for (let at = 0; at < chinese.length; at += 7) {
      add(chinese.slice(at, at + 7));
      check();
    }
    // A restored state continues to the same graphs.
    const restored = IncrementalConceptGraph.fromJSON(graph.toJSON(), graph.snapshot());
    expectSameGraph(restored.snapshot(), fresh(held));
    // Chinese documents removed until the script has too few chunks of its own, and English ones.
    remove(chinese.slice(0, 25).map((c) => c.docId));
    check();
    remove(english.slice(0, 10).map((c) => c.docId));
    check();
    expect(seen[0]).toBeUndefined();
    expect(seen.some((s) => s !== undefined && s.cjk >= MIN_SCRIPT_CHUNKS)).toBe(true);
    expect(seen.at(-1)).toBeUndefined();
  });

  it('needs each chunk’s words by script, and a stored state’s counts', () => {
    const graph = new IncrementalConceptGraph(OPTIONS);
    expect(() => graph.addChunks([{ id: 'a#0', docId: 'a', terms: ['w1'] }])).toThrow(/by script/);
    graph.addChunks(chunks('en', 5, 3, false));
    const state = graph.toJSON();
    expect(() => IncrementalConceptGraph.fromJSON({ ...state, chunkScripts: undefined })).toThrow(
      /chunkScripts/,
    );
    expect(() => IncrementalConceptGraph.fromJSON({ ...state, chunkScripts: new Uint32Array(3) })).toThrow(
      /chunkScripts/,
    );
  });
});
