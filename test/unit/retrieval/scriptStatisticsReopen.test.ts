// A library reopened around its stored concept table (RetrievalEngine.fromTable: a bundle's or the store's table
// graph) answers as a fresh build with word statistics per script: a table chosen against the same per-script counts
// is taken, one chosen the other way (one N, or another parameter) is refused so that the library is built again,
// and a library of one script keeps its stored table whatever the parameter.
import { describe, expect, it } from 'vitest';
import { conceptTableGraph, type ConceptTableGraph } from '../../../src/core/graph/index.ts';
import { RetrievalEngine, type RetrievalInput } from '../../../src/core/retrieval/index.ts';
import { createTermAnalyzer, sameScriptChunks } from '../../../src/core/text/index.ts';
import { MIXED_QUESTIONS, mixedPassages } from '../../support/mixedScripts.ts';

const QUESTIONS = MIXED_QUESTIONS;
const analyzer = createTermAnalyzer();

/** The table graph a bundle stores for a library built with or without per-script statistics (JSON round trip). */
function storedTable(input: RetrievalInput, scriptStatistics: boolean): ConceptTableGraph {
  const engine = RetrievalEngine.build(input, analyzer, { scriptStatistics });
  const table = conceptTableGraph(engine.exportGraph())!;
  return { ...table, options: JSON.parse(JSON.stringify(table.options)) as ConceptTableGraph['options'] };
}

describe('a stored concept table with word statistics per script', () => {
  it('is taken when chosen against the same counts, and the reopened library answers as a fresh build', () => {
    const input = mixedPassages();
    const fresh = RetrievalEngine.build(input, analyzer, { scriptStatistics: true });
    const reopened = RetrievalEngine.fromTable(input, analyzer, storedTable(input, true), {
      scriptStatistics: true,
    });
    expect(reopened).toBeDefined();
    for (const q of QUESTIONS)
      for (const mode of ['ppr', 'bm25', 'concept'] as const)
        expect(reopened!.search({ text: q }, mode, 2000)).toEqual(fresh.search({ text: q }, mode, 2000));
    // Stored again, it still says how its table was chosen.
    expect(reopened!.exportGraph().options.scriptChunks).toEqual({ other: 30, cjk: 30 });
  });

  it('is refused when chosen with one N, or reopened without the parameter (the library is built again)', () => {
    const input = mixedPassages();
    expect(
      RetrievalEngine.fromTable(input, analyzer, storedTable(input, false), { scriptStatistics: true }),
    ).toBeUndefined();
    expect(
      RetrievalEngine.fromTable(input, analyzer, storedTable(input, true), { scriptStatistics: false }),
    ).toBeUndefined();
    // The one-N table would not have answered as the fresh build with the parameter.
    const oneN = RetrievalEngine.fromTable(input, analyzer, storedTable(input, false), {
      scriptStatistics: false,
    })!;
    const fresh = RetrievalEngine.build(input, analyzer, { scriptStatistics: true });
    const answers = (e: RetrievalEngine) => QUESTIONS.map((q) => e.search({ text: q }, 'ppr', 2000));
    expect(answers(oneN)).not.toEqual(answers(fresh));
  });

  it('of a library of one script is kept whatever the parameter (one N either way)', () => {
    const input = mixedPassages({ englishOnly: true });
    const stored = storedTable(input, false);
    expect(RetrievalEngine.fromTable(input, analyzer, stored, { scriptStatistics: true })).toBeDefined();
  });

  it('reads the stored counts as untrusted values', () => {
    const now = { other: 30, cjk: 30 };
    expect(sameScriptChunks({ scriptChunks: { other: 30, cjk: 30 } }, now)).toBe(true);
    expect(sameScriptChunks({}, undefined)).toBe(true);
    expect(sameScriptChunks({ scriptChunks: { other: 30, cjk: 29 } }, now)).toBe(false);
    expect(sameScriptChunks({ scriptChunks: { other: '30', cjk: 30 } }, now)).toBe(false);
    expect(sameScriptChunks({ scriptChunks: null }, now)).toBe(false);
    expect(sameScriptChunks({ scriptChunks: 7 }, undefined)).toBe(false);
    expect(sameScriptChunks(null, undefined)).toBe(true);
  });
});
